"""``torch.utils.hooks``: the handle every ``register_*_hook`` returns, and module backward hooks.

:class:`RemovableHandle` is what ``Module.register_forward_hook``, the optimizer's step hooks and
the global module hooks return (``ember.nn.modules._hooks`` re-exports it). :class:`BackwardHook`
implements ``Module.register_full_backward_hook`` with identity autograd nodes around a call's
inputs and outputs, as PyTorch's does.
"""

from __future__ import annotations

import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from ember import Tensor
from ember.autograd import Function, is_grad_enabled

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks", "BackwardHook"]

_F = TypeVar("_F", bound=Callable[..., Any])


class _HandleMeta(type):
    """The handles of tensor and autograd-node hooks are the compiled core's own type (named
    ``torch.utils.hooks.RemovableHandle`` too); they count as instances, as in PyTorch where both
    are this one class."""

    def __instancecheck__(cls, instance: Any) -> bool:
        from ember._lib import _C

        return super().__instancecheck__(instance) or (cls is RemovableHandle
                                                       and isinstance(instance, _C._HookHandle))


class RemovableHandle(metaclass=_HandleMeta):
    """A handle that removes one registered hook from the dict(s) it was registered in.

    Args:
        hooks_dict (dict): the hooks, keyed by hook id; the handle's ``id`` is its key.
        extra_dict (dict or list of dict): further dicts keyed by the same id (flags stored
            beside the hook, such as ``with_kwargs``), cleared together with ``hooks_dict``.

    The dicts are held by weak reference, so a handle does not keep its module alive. It is also a
    context manager that removes the hook on exit.
    """

    id: int
    next_id: int = 0

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref: tuple[Any, ...] = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        """Remove the hook (and its entries in the extra dicts); removing twice is a no-op."""
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra = ref()
            if extra is not None and self.id in extra:
                del extra[self.id]

    # Pickled (and deep-copied) with the dicts themselves, as PyTorch's: a copied module's handles
    # then point at the copy's hook dicts (a lazy module's copy removes its own hooks).
    def __getstate__(self) -> tuple[Any, ...]:
        """The hook dicts themselves and the id (weak references do not pickle)."""
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        """Rebuild the weak references; a dict that was gone leaves a dead reference."""
        # a dead reference: weakref to a dict nothing else holds
        self.hooks_dict_ref = weakref.ref(OrderedDict() if state[0] is None else state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        if len(state) < 3 or state[2] is None:
            self.extra_dict_ref = ()
        else:
            self.extra_dict_ref = tuple(weakref.ref(d) for d in state[2] if d is not None)

    def __enter__(self) -> RemovableHandle:
        """The handle itself; the hook is removed when the ``with`` block exits."""
        return self

    def __exit__(self, type: Any, value: Any, tb: Any) -> None:
        """Remove the hook."""
        self.remove()


def unserializable_hook(f: _F) -> _F:
    """Mark ``f`` as a hook that is not expected to be serialized (a decorator).

    ``warn_if_has_hooks`` stays silent about tensor hooks so marked.
    """
    f.__torch_unserializable__ = True  # type: ignore[attr-defined]
    return f


def warn_if_has_hooks(tensor: Any) -> None:
    """Warn for each backward hook on ``tensor`` that will be lost when the tensor is serialized,
    unless it was decorated with :func:`unserializable_hook`."""
    # ember's tensors keep their hooks in the autograd engine; a subclass may carry the dict
    hooks = getattr(tensor, "_backward_hooks", None)
    if hooks:
        for k in hooks:
            hook = hooks[k]
            if not hasattr(hook, "__torch_unserializable__"):
                warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, "
                              "you can decorate the function with @torch.utils.hooks.unserializable_hook "
                              "to suppress this warning", stacklevel=2)


def _pack(indices: list[int], values: tuple[Any, ...], size: int) -> tuple[Any, ...]:
    out: list[Any] = [None] * size
    for i, v in zip(indices, values, strict=False):
        out[i] = v
    return tuple(out)


class _BackwardHookFunction(Function):
    """Identity on the tensors; its backward hands their gradients to a callback."""

    @staticmethod
    def forward(ctx: Any, callback: Callable[..., tuple[Any, ...]], materialize: bool, *tensors: Tensor) -> Any:
        """The tensors unchanged (as views), remembering the callback for backward."""
        ctx.callback = callback
        # PyTorch shows None (not zeros) in grad_output for outputs that got no gradient
        ctx.set_materialize_grads(materialize)
        out = tuple(t.view_as(t) for t in tensors)
        # as PyTorch's BackwardHookFunction: tensors that needed no grad stay that way
        ctx.mark_non_differentiable(*[o for o, t in zip(out, tensors, strict=True) if not t.requires_grad])
        return out

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        """The gradients as the callback returns them."""
        return (None, None) + tuple(ctx.callback(grads))


class BackwardHook:
    """Per-call state that wires one forward call's inputs and outputs to a module's full
    backward hooks (``register_full_backward_hook`` / ``register_full_backward_pre_hook``).

    ``setup_input_hook`` wraps the tensor inputs and ``setup_output_hook`` the outputs in identity
    autograd nodes: the outputs' node sees ``grad_output`` (and runs the pre-hooks), the inputs' node
    sees ``grad_input`` and runs ``hook(module, grad_input, grad_output)``. Non-tensor arguments
    appear as ``None`` in the tuples the hooks receive.
    """

    def __init__(self, module: Any, user_hooks: list[Callable[..., Any]],
                 user_pre_hooks: list[Callable[..., Any]]) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs: tuple[Any, ...] | None = None
        self.n_inputs = 0
        self.input_index: list[int] | None = None
        self.n_outputs = 0
        self.output_index: list[int] = []

    def _wrap(self, args: tuple[Any, ...], callback: Callable[..., tuple[Any, ...]],
              materialize: bool) -> tuple[tuple[Any, ...], list[int] | None]:
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (is_grad_enabled() and any(t.requires_grad for t in tensors)):
            return args, None
        new = _BackwardHookFunction.apply(callback, materialize, *tensors)
        out = list(args)
        for i, t in zip(index, new, strict=False):
            out[i] = t
        return tuple(out), index

    def _call_hooks(self, grad_input: tuple[Any, ...]) -> tuple[Any, ...] | None:
        result = None
        for hook in self.user_hooks:
            r = hook(self.module, grad_input if result is None else result, self.grad_outputs)
            if r is None:
                continue
            r = r if isinstance(r, tuple) else (r,)
            if len(r) != len(grad_input):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(r)}, "
                                   f"but expected {len(grad_input)}")
            result = r
        return result

    def setup_input_hook(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """Wrap the call's tensor inputs; returns the arguments to call forward with."""
        self.n_inputs = len(args)

        def on_grad_input(grads: tuple[Any, ...]) -> tuple[Any, ...]:
            assert self.input_index is not None
            if self.grad_outputs is None:  # the outputs' node never ran: nothing flowed through us
                return grads
            packed = _pack(self.input_index, grads, self.n_inputs)
            res = self._call_hooks(packed)
            self.grad_outputs = None
            if res is None:
                return grads
            return tuple(res[i] for i in self.input_index)

        new_args, self.input_index = self._wrap(args, on_grad_input, True)
        return new_args

    def setup_output_hook(self, result: Any) -> Any:
        """Wrap the call's tensor outputs; returns the result to hand back to the caller."""
        is_tuple = isinstance(result, tuple)
        outs = result if is_tuple else (result,)
        self.n_outputs = len(outs)

        def on_grad_output(grads: tuple[Any, ...]) -> tuple[Any, ...]:
            packed = _pack(self.output_index, grads, self.n_outputs)
            for hook in self.user_pre_hooks:
                r = hook(self.module, packed)
                if r is not None:
                    r = r if isinstance(r, tuple) else (r,)
                    if len(r) != len(packed):
                        raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, "
                                           f"got {len(r)}, but expected {len(packed)}")
                    packed = r
            self.grad_outputs = packed
            if self.input_index is None:
                # No input needs a gradient: the full hooks fire now, with all-None grad_input.
                res = self._call_hooks((None,) * self.n_inputs)
                if res is not None and any(g is not None for g in res):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                       "always return None or None for all gradients.")
                self.grad_outputs = None
            return tuple(packed[i] for i in self.output_index)

        new, index = self._wrap(outs, on_grad_output, False)
        self.output_index = index or []
        return new if is_tuple else new[0]
