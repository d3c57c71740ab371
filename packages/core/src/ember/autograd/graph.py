"""The autograd graph as Python sees it: node types, gradient edges, saved-tensor hooks
(and turning them off), save_on_cpu."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from ember._lib import _C

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "register_multi_grad_hook",
           "allow_mutation_on_saved_tensors", "Node", "GradientEdge", "get_gradient_edge", "increment_version"]

Node = _C._Node


class GradientEdge(NamedTuple):
    """An edge of the autograd graph: the ``node`` that computes a tensor's gradient and which
    of that node's outputs (``output_nr``) it is. ``get_gradient_edge(tensor)`` gives a
    tensor's."""

    node: Any
    output_nr: int
    ownership_token: Any = None


def get_gradient_edge(tensor: Any) -> GradientEdge:
    """The gradient edge of ``tensor``: its ``grad_fn`` and output number, or for a leaf its
    gradient accumulator (the node that adds into ``.grad``)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require "
                           "gradients")
    node = tensor.grad_fn
    if node is None:
        # A leaf's accumulator is the first next function of any node made from it (the
        # engine keeps one per leaf, so the object is the same each time).
        prev_grad, prev_tf = _C.is_grad_enabled(), _C._set_torch_function_disabled(2)
        _C._set_grad_enabled(True)
        try:
            node = tensor.view_as(tensor).grad_fn.next_functions[0][0]
        finally:
            _C._set_grad_enabled(prev_grad)
            _C._set_torch_function_disabled(prev_tf)
        return GradientEdge(node, 0)
    return GradientEdge(node, tensor.output_nr)


class _HooksState:
    """How many saved_tensors_hooks blocks are open, and the error that refuses new ones."""

    active = 0
    disabled_message: str | None = None


class saved_tensors_hooks:
    """Within this context, tensors saved for backward go through ``pack_hook`` and come back
    through ``unpack_hook`` when backward needs them."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if _HooksState.disabled_message is not None:
            raise RuntimeError(_HooksState.disabled_message)
        _C._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)
        _HooksState.active += 1

    def __exit__(self, *exc: Any) -> None:
        _C._pop_saved_tensors_hooks()
        _HooksState.active -= 1


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """Context manager (or decorator) within which saved-tensor hooks are refused: entering a
    ``saved_tensors_hooks`` (or ``save_on_cpu``) block raises ``RuntimeError(error_message)``,
    and so does entering this one while such a block is open. For code whose saved tensors
    must stay as they are (a feature that cannot work with packed ones)."""
    if _HooksState.active:
        raise RuntimeError(error_message)
    prev = _HooksState.disabled_message
    _HooksState.disabled_message = error_message
    try:
        yield
    finally:
        _HooksState.disabled_message = prev


class allow_mutation_on_saved_tensors:
    """PyTorch's context manager that lets tensors saved for backward be modified in place
    (autograd keeps a copy of the original). ember does not implement it: entering raises
    NotImplementedError."""

    def __enter__(self) -> Any:
        raise NotImplementedError("ember: torch.autograd.graph.allow_mutation_on_saved_tensors is not implemented")

    def __exit__(self, *exc: Any) -> None:
        pass


class save_on_cpu(saved_tensors_hooks):
    """Keep saved tensors in CPU memory (optionally pinned) until backward needs them."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack(t: Any) -> Any:
            return (t.device, t.cpu())

        def unpack(packed: Any) -> Any:
            device, t = packed
            return t.to(device)

        super().__init__(pack, unpack)


def increment_version(tensor: Any) -> None:
    """Mark ``tensor`` as modified in place (bumps its version counter)."""
    tensor.add_(0)


def register_multi_grad_hook(tensors: Any, fn: Callable[..., Any], *, mode: str = "all") -> Any:
    """Call ``fn(grads)`` once the gradients of all ``tensors`` (mode='all') or any (mode='any') are computed."""
    tensors = tuple(tensors)
    grads: list[Any] = [None] * len(tensors)
    seen = [False] * len(tensors)
    handles = []

    def make(i: int) -> Callable[[Any], None]:
        def hook(g: Any) -> None:
            if mode == "any":
                if not any(seen):
                    seen[i] = True
                    fn(g)
                return
            grads[i], seen[i] = g, True
            if all(seen[j] or not tensors[j].requires_grad for j in range(len(tensors))):
                fn(tuple(grads))
                for j in range(len(seen)):
                    seen[j], grads[j] = False, None

        return hook

    for i, t in enumerate(tensors):
        if t.requires_grad:
            handles.append(t.register_hook(make(i)))

    class _Multi:
        def remove(self) -> None:
            for h in handles:
                h.remove()

    return _Multi()
