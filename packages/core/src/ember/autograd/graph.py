"""The autograd graph as Python sees it: node types, saved-tensor hooks, save_on_cpu."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember._lib import _C

Node = _C._Node


class saved_tensors_hooks:
    """Within this context, tensors saved for backward go through ``pack_hook`` and come back
    through ``unpack_hook`` when backward needs them."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        _C._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *exc: Any) -> None:
        _C._pop_saved_tensors_hooks()


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
