"""Hooks that apply to every Module (``torch.nn.modules.module.register_module_*``): forward and
backward hooks run on each module call, registration hooks on each parameter, buffer or
submodule a module registers, and the deprecated non-full backward hooks' wiring."""

from __future__ import annotations

import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ember import Tensor
from ember.utils.hooks import RemovableHandle

__all__ = ["register_module_backward_hook", "register_module_buffer_registration_hook",
           "register_module_forward_hook", "register_module_forward_pre_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook",
           "register_module_module_registration_hook", "register_module_parameter_registration_hook"]

Hooks = OrderedDict[int, Callable[..., Any]]
forward_pre_hooks: Hooks = OrderedDict()
forward_hooks: Hooks = OrderedDict()
forward_hooks_always_called: OrderedDict[int, bool] = OrderedDict()
forward_hooks_with_kwargs: OrderedDict[int, bool] = OrderedDict()
backward_pre_hooks: Hooks = OrderedDict()
backward_hooks: Hooks = OrderedDict()
buffer_registration_hooks: Hooks = OrderedDict()
module_registration_hooks: Hooks = OrderedDict()
parameter_registration_hooks: Hooks = OrderedDict()
# None until the first global backward hook; then whether they are full ones (never both kinds,
# and the kind stays fixed once chosen, as PyTorch's)
_full_kind: list[bool | None] = [None]


def _add(hooks: Hooks, hook: Callable[..., Any], extra: Any = None) -> RemovableHandle:
    handle = RemovableHandle(hooks, extra_dict=extra)
    hooks[handle.id] = hook
    return handle


def register_module_forward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """A forward pre-hook run before every module's own pre-hooks."""
    return _add(forward_pre_hooks, hook)


def register_module_forward_hook(hook: Callable[..., Any], *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """A forward hook run after every module's forward, before its own forward hooks."""
    handle = _add(forward_hooks, hook, [forward_hooks_always_called, forward_hooks_with_kwargs])
    if with_kwargs:
        forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        forward_hooks_always_called[handle.id] = True
    return handle


def _choose_kind(full: bool) -> None:
    if _full_kind[0] is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global Module "
                           "hook. Please use only one of them.")
    _full_kind[0] = full


def register_module_full_backward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, grad_output)`` run for every module before its input gradients are computed
    (before the module's own backward pre-hooks); it may return replacement output gradients."""
    return _add(backward_pre_hooks, hook)


def register_module_full_backward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, grad_input, grad_output)`` run for every module once its input gradients are
    computed (before the module's own backward hooks)."""
    _choose_kind(True)
    return _add(backward_hooks, hook)


def register_module_backward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """The deprecated non-full backward hook for every module: called with the gradients of the
    last autograd node of the module's forward (see ``Module.register_backward_hook``)."""
    _choose_kind(False)
    return _add(backward_hooks, hook)


def register_module_buffer_registration_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, name, buffer)`` run whenever a module registers a buffer; it may return a
    replacement buffer."""
    return _add(buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, name, submodule)`` run whenever a module registers a submodule; it may return
    a replacement submodule."""
    return _add(module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, name, param)`` run whenever a module registers a parameter; it may return a
    replacement parameter."""
    return _add(parameter_registration_hooks, hook)


def run_registration_hooks(hooks: Hooks, module: Any, name: str, value: Any) -> Any:
    """``value`` after each registration hook had the chance to replace it."""
    for hook in list(hooks.values()):
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value


def backward_hook_lists(module: Any) -> tuple[list[Callable[..., Any]], list[Callable[..., Any]]]:
    """(full, non-full) backward hooks for a call of ``module``: the global ones first."""
    full: list[Callable[..., Any]] = []
    non_full: list[Callable[..., Any]] = []
    (full if _full_kind[0] else non_full).extend(backward_hooks.values())
    own = list(module._backward_hooks.values())
    (full if module._is_full_backward_hook else non_full).extend(own)
    return full, non_full


# ---- the deprecated non-full backward hooks -------------------------------------------------

def _first_tensor(value: Any) -> Tensor | None:
    while not isinstance(value, Tensor):
        if isinstance(value, dict):
            value = next((v for v in value.values() if isinstance(v, Tensor)), None)
        elif isinstance(value, (list, tuple)) and value:
            value = value[0]
        else:
            return None
    return value


def _is_tensors(value: Any) -> bool:
    return isinstance(value, Tensor) or (isinstance(value, tuple) and all(isinstance(v, Tensor) for v in value))


_DEPRECATED = (" is deprecated and will be removed in future versions. This hook will be missing some {}. Please "
               "use register_full_backward_hook to get the documented behavior.")


def _warn_partial(args: tuple[Any, ...], result: Any, grad_fn: Any) -> None:
    """PyTorch's warnings where a non-full hook cannot see all of the module's gradients."""
    if not _is_tensors(result):
        warnings.warn("Using non-full backward hooks on a Module that does not return a single Tensor or a tuple "
                      "of Tensors" + _DEPRECATED.format("of the grad_output"), FutureWarning, stacklevel=4)
        return
    if not _is_tensors(args):
        warnings.warn("Using non-full backward hooks on a Module that does not take as input a single Tensor or a "
                      "tuple of Tensors" + _DEPRECATED.format("of the grad_input"), FutureWarning, stacklevel=4)
        return
    outputs = result if isinstance(result, tuple) else (result,)
    out_fns = {o.grad_fn for o in outputs if o.grad_fn is not None}
    if len(out_fns) == 0 or (len(out_fns) == 1 and grad_fn not in out_fns):
        warnings.warn("Using a non-full backward hook when outputs are nested in python data structure"
                      + _DEPRECATED.format("grad_output"), FutureWarning, stacklevel=4)
    elif len(out_fns) > 1:
        warnings.warn("Using a non-full backward hook when outputs are generated by different autograd Nodes"
                      + _DEPRECATED.format("grad_output"), FutureWarning, stacklevel=4)
    else:
        in_fns = {a.grad_fn for a in args if a.grad_fn is not None}
        next_fns = {n[0] for n in grad_fn.next_functions}
        if in_fns != next_fns:
            warnings.warn("Using a non-full backward hook when the forward contains multiple autograd Nodes"
                          + _DEPRECATED.format("grad_input"), FutureWarning, stacklevel=4)


def attach_non_full(module: Any, hooks: list[Callable[..., Any]], args: tuple[Any, ...], result: Any) -> None:
    """Hook the autograd node that made the module's (first) output: each hook gets
    ``(module, grad_input, grad_output)`` of that node and may return replacement grad_input."""
    var = _first_tensor(result)
    grad_fn = var.grad_fn if var is not None else None
    if grad_fn is None:
        return
    ref = weakref.ref(module)  # the graph must not keep the module alive
    for hook in hooks:
        def call(grad_input: Any, grad_output: Any, hook: Callable[..., Any] = hook) -> Any:
            mod = ref()
            if mod is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return hook(mod, grad_input, grad_output)

        grad_fn.register_hook(call)
    _warn_partial(args, result, grad_fn)
