"""``Module``: the base class of every layer — registration, traversal, state dicts, hooks."""

from __future__ import annotations

import functools
import itertools
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator
from typing import Any

import ember
from ember import Tensor
from ember.nn.modules._grad import zero_grads
from ember.nn.modules._hooks import RemovableHandle
from ember.nn.parameter import Buffer, Parameter, is_lazy

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_backward_hook",
           "register_module_full_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook", "register_module_parameter_registration_hook"]

from ember.nn.modules import _global_hooks as _g
from ember.nn.modules._global_hooks import backward_hooks as _global_backward_hooks
from ember.nn.modules._global_hooks import backward_pre_hooks as _global_backward_pre_hooks
from ember.nn.modules._global_hooks import forward_hooks as _global_forward_hooks
from ember.nn.modules._global_hooks import forward_pre_hooks as _global_forward_pre_hooks
from ember.nn.modules._global_hooks import (  # noqa: F401  (torch.nn.modules.module has them)
    register_module_backward_hook,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s: str, n: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


def _check_name(kind: str, name: Any, owner: Module, existing: dict[str, Any]) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {ember.typename(name)}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(owner, name) and name not in existing:
        raise KeyError(f"attribute '{name}' already exists")


def _same_kind(old: Tensor, new: Tensor) -> bool:
    """Whether ``new``'s data can replace ``old``'s in place (PyTorch's compatible shallow-copy types):
    any two devices with memory can, a meta tensor and one with memory cannot."""
    return old.is_meta == new.is_meta


class Module:
    """Base class for all neural-network modules (as ``torch.nn.Module``)."""

    dump_patches: bool = False
    _version: int = 1
    training: bool
    call_super_init: bool = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if self.call_super_init is False and (args or kwargs):
            if kwargs:
                raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                                f"'{next(iter(kwargs))}'")
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        init = object.__setattr__
        init(self, "training", True)
        init(self, "_parameters", {})
        init(self, "_buffers", {})
        init(self, "_non_persistent_buffers_set", set())
        init(self, "_backward_pre_hooks", OrderedDict())
        init(self, "_backward_hooks", OrderedDict())
        init(self, "_is_full_backward_hook", None)
        init(self, "_forward_hooks", OrderedDict())
        init(self, "_forward_hooks_with_kwargs", OrderedDict())
        init(self, "_forward_hooks_always_called", OrderedDict())
        init(self, "_forward_pre_hooks", OrderedDict())
        init(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        init(self, "_state_dict_hooks", OrderedDict())
        init(self, "_state_dict_pre_hooks", OrderedDict())
        init(self, "_load_state_dict_pre_hooks", OrderedDict())
        init(self, "_load_state_dict_post_hooks", OrderedDict())
        init(self, "_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward: Callable[..., Any]

    def _forward_unimplemented(self, *input: Any) -> None:
        """The computation the module performs on its inputs; every subclass defines it.

        Call the module itself (``module(x)``) rather than ``forward``: the call also runs the
        registered hooks. The base class's version raises NotImplementedError.
        """
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    forward = _forward_unimplemented

    # ---- registration --------------------------------------------------------------------
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer (state that is not a parameter, e.g. running statistics)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name, self, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{ember.typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        if _g.buffer_registration_hooks:
            tensor = _g.run_registration_hooks(_g.buffer_registration_hooks, self, name, tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter; ``None`` reserves the slot (e.g. ``bias=False``)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name, self, self._parameters)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{ember.typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                             "created explicitly. To express '" + name + "' as a function of another Tensor, "
                             "compute the value in the forward() method.")
        if _g.parameter_registration_hooks:
            param = _g.run_registration_hooks(_g.parameter_registration_hooks, self, name, param)
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module, reachable as attribute ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{ember.typename(module)} is not a Module subclass")
        _check_name("module", name, self, self._modules)
        if _g.module_registration_hooks:
            module = _g.run_registration_hooks(_g.module_registration_hooks, self, name, module)
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Adds ``module`` as a submodule under ``name`` (as ``setattr(self, name, module)``);
        None reserves the name."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path ``target`` (``"encoder.layers.0"``); raises AttributeError
        if some step does not exist or is not a Module.
        """
        if target == "":
            return self
        mod: Module = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Replace (or, unless ``strict``, add) the submodule at dotted path ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(parent._get_name() + " has no attribute `" + name + "`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target`` (``"encoder.weight"``); raises AttributeError
        if there is none."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target`` (``"bn.running_mean"``); raises AttributeError if there is none."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(mod, name)

    # ---- attribute protocol --------------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        def remove_from(*dicts: Any) -> None:
            for d in dicts:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{ember.typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = _g.run_registration_hooks(_g.module_registration_hooks, self, name, value)
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{ember.typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = _g.run_registration_hooks(_g.module_registration_hooks, self, name, value)
            return
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{ember.typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
                if not is_lazy(value):  # an UninitializedBuffer is stored as it is
                    value = value.detach()  # store a plain tensor, as PyTorch unwraps Buffer
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        attrs = dir(self.__class__) + list(self.__dict__)
        keys = attrs + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # ---- traversal -----------------------------------------------------------------------
    def _named_members(self, get_members: Callable[[Module], Any], prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        memo: set[int] = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """An iterator over the module's parameters (and, with ``recurse``, its submodules'), each once;
        what optimizers take.

        Args:
            recurse (bool): include the submodules' parameters.

        Example::

            >>> sum(p.numel() for p in nn.Linear(3, 2).parameters())
            8
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """An iterator of ``(dotted name, parameter)`` pairs, as ``parameters`` but with names
        (``"0.weight"``); ``remove_duplicate`` yields a shared parameter once.

        Example::

            >>> [n for n, _ in nn.Linear(3, 2).named_parameters()]
            ['weight', 'bias']
        """
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """An iterator over the module's buffers (tensors registered with ``register_buffer``), with
        ``recurse`` its submodules' too."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """An iterator of ``(dotted name, buffer)`` pairs, as ``buffers`` but with names."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self) -> Iterator[Module]:
        """An iterator over the direct submodules."""
        for _, m in self.named_children():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """An iterator of ``(name, module)`` pairs for the direct submodules."""
        memo: set[int] = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self) -> Iterator[Module]:
        """An iterator over this module and all its submodules, depth first, each once."""
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo: set[Any] | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """An iterator of ``(dotted name, module)`` pairs over this module (name ``""``) and all its submodules."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    __hash__ = object.__hash__

    # ---- mode, grads, conversion ---------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Sets training mode (``mode=True``) or evaluation mode on this module and its submodules,
        which changes what layers such as Dropout and BatchNorm do; returns the module.

        Example::

            >>> nn.Dropout().train(False).training
            False
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self) -> Module:
        """Sets evaluation mode, as ``train(False)``; returns the module."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Sets ``requires_grad`` on every parameter (False freezes the module); returns the module."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets the gradients of every parameter: to None (the default) or, with ``set_to_none=False``, to zeros."""
        if getattr(self, "_is_replica", False):
            import warnings

            warnings.warn("Calling .zero_grad() from a module created with nn.DataParallel() has no effect. The "
                          "parameters are copied (in a differentiable manner) from the original module. This means "
                          "they are not leaf nodes in autograd and so don't accumulate gradients. If you need "
                          "gradients in your forward method, consider using autograd.grad instead.", stacklevel=2)
        zero_grads(self.parameters(), set_to_none)

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Calls ``fn`` on every submodule and then on this module (for custom initialization);
        returns the module.
        """
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        if recurse:
            for m in self.children():
                m._apply(fn)
        for key, param in list(self._parameters.items()):
            if param is None:
                continue
            with ember.no_grad():
                new = fn(param)
            grad = param.grad
            out = param
            if _same_kind(param, new):
                if new is not param:
                    param.data = new  # keep the Parameter's identity, swap its data
            else:
                # between meta and a device with memory PyTorch cannot swap the data in place: the module
                # gets a new plain Parameter (a subclass and its attributes are not carried over)
                out = Parameter(new, param.requires_grad)
                self._parameters[key] = out
            if grad is not None:
                with ember.no_grad():
                    g = fn(grad)
                if out is not param:
                    out.grad = g.requires_grad_(grad.requires_grad)
                elif g is not grad:
                    param.grad = g
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Move parameters and buffers to ``device`` and cast the floating ones to ``dtype``, in place."""
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        non_blocking = bool(kwargs.pop("non_blocking", False))
        memory_format = kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
        for a in args:
            if isinstance(a, ember.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype, device = a.dtype, a.device
            elif isinstance(a, bool):
                non_blocking = a
            elif isinstance(a, (str, ember.device, int)):
                device = a
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")
        if device is not None:
            device = ember.device(device)
            ember.empty(0).to(device=device)  # the device's own error (no CUDA, no such GPU) before any move

        def convert(t: Tensor) -> Tensor:
            cast = dtype if dtype is not None and (t.is_floating_point() or t.is_complex()) else None
            # as PyTorch, a memory format reaches only the 4-d and 5-d tensors (conv weights)
            fmt = memory_format if memory_format is not None and t.dim() in (4, 5) else None
            if cast is None and device is None and fmt is None:
                return t
            try:
                if fmt is not None:
                    return t.to(device=device, dtype=cast, non_blocking=non_blocking, memory_format=fmt)
                return t.to(device=device, dtype=cast, non_blocking=non_blocking)
            except NotImplementedError as e:
                if str(e) == "Cannot copy out of meta tensor; no data!":  # PyTorch's hint for meta modules
                    raise NotImplementedError(
                        f"{e} Please use torch.nn.Module.to_empty() instead of torch.nn.Module.to() "
                        f"when moving module from meta to a different device.") from None
                raise

        return self._apply(convert)

    def to_empty(self, *, device: Any, recurse: bool = True) -> Module:
        """Move parameters and buffers to ``device`` without copying their values."""
        ember.empty(0).to(device=device)  # the device's own error (no CUDA, no such GPU) first
        return self._apply(lambda t: ember.empty_like(t, device=device), recurse=recurse)

    def cpu(self) -> Module:
        """Moves every parameter and buffer to the CPU; returns the module."""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device: Any = None) -> Module:
        """Moves every parameter and buffer to the GPU (``device``, else the current one); returns the module."""
        ember.empty(0).cuda(device)  # PyTorch's error without CUDA, before any move
        return self._apply(lambda t: t.cuda(device))

    def _float_cast(self, dtype: Any) -> Module:
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self) -> Module:
        """Converts every floating-point parameter and buffer to float32; returns the module."""
        return self._float_cast(ember.float32)

    def double(self) -> Module:
        """Converts every floating-point parameter and buffer to float64; returns the module."""
        return self._float_cast(ember.float64)

    def half(self) -> Module:
        """Converts every floating-point parameter and buffer to float16; returns the module."""
        return self._float_cast(ember.float16)

    def bfloat16(self) -> Module:
        """Converts every floating-point parameter and buffer to bfloat16; returns the module."""
        return self._float_cast(ember.bfloat16)

    def type(self, dst_type: Any) -> Module:
        """Converts every parameter and buffer to ``dst_type``; returns the module."""
        return self._apply(lambda t: t.type(dst_type))

    def share_memory(self) -> Module:
        """Accepted for compatibility (moving storage to shared memory for multiprocessing); returns the module."""
        return self._apply(lambda t: t.share_memory_())

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """Compile this module's calls in place (as PyTorch's): ember checks the arguments as
        ``ember.compile`` does and keeps running eagerly, so the module and its state_dict are unchanged."""
        self._compiled_call_impl = ember.compile(self._call_impl, *args, **kwargs)

    # ---- repr ----------------------------------------------------------------------------
    def _replicate_for_data_parallel(self) -> Module:
        """A shallow copy for a DataParallel replica: own (empty) parameter dict and own buffer and
        submodule dicts, everything else shared; ``nn.parallel.replicate`` fills it in."""
        replica = self.__new__(type(self))
        replica.__dict__ = self.__dict__.copy()
        replica._parameters = {}  # the replica's parameters are plain attributes (non-leaf copies)
        replica._buffers = replica._buffers.copy()
        replica._modules = replica._modules.copy()
        replica._is_replica = True
        return replica

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The module's own settings, shown inside the parentheses of its ``repr`` (for example
        ``in_features=2, out_features=3, bias=True``); subclasses override it, the base has none.

        Example::

            >>> ember.nn.Linear(2, 3).extra_repr()
            'in_features=2, out_features=3, bias=True'
        """
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({k}): " + _addindent(repr(m), 2) for k, m in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                body = extra_lines[0]
            else:
                body = "\n  " + "\n  ".join(lines) + "\n"
        return self._get_name() + "(" + body + ")"

    # ---- calling -------------------------------------------------------------------------
    def _call_impl(self, *args: Any, **kwargs: Any) -> Any:
        # the global dicts are module globals (mutated in place, never rebound): the fast path's cost
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks or self._backward_pre_hooks
                or _global_forward_hooks or _global_forward_pre_hooks or _global_backward_hooks
                or _global_backward_pre_hooks):
            return self.forward(*args, **kwargs)
        from ember.nn.modules._backward_hook import BackwardHook

        full_hooks, non_full_hooks = _g.backward_hook_lists(self)
        pre_hooks = [*_g.backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
        called_always: set[int] = set()
        result = None
        try:
            # over a snapshot, as PyTorch: a hook may remove itself (a lazy module's does)
            for hook_id, hook in (*_g.forward_pre_hooks.items(), *self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    r = hook(self, args, kwargs)
                    if r is not None:
                        if not (isinstance(r, tuple) and len(r) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple of "
                                               f"(new_args, new_kwargs), but got {r}.")
                        args, kwargs = r
                else:
                    r = hook(self, args)
                    if r is not None:
                        args = r if isinstance(r, tuple) else (r,)
            bw = None
            if full_hooks or pre_hooks:
                bw = BackwardHook(self, full_hooks, pre_hooks)
                args = bw.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in (*_g.forward_hooks.items(), *self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called or hook_id in _g.forward_hooks_always_called:
                    called_always.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs or hook_id in _g.forward_hooks_with_kwargs:
                    r = hook(self, args, kwargs, result)
                else:
                    r = hook(self, args, result)
                if r is not None:
                    result = r
            if bw is not None:
                result = bw.setup_output_hook(result)
            if non_full_hooks:
                _g.attach_non_full(self, non_full_hooks, args, result)
            return result
        except Exception:
            # Hooks registered with always_call still run when forward (or a hook) raised.
            for hook_id, hook in itertools.chain(_g.forward_hooks.items(), self._forward_hooks.items()):
                if hook_id in called_always:
                    continue
                if hook_id in self._forward_hooks_always_called or hook_id in _g.forward_hooks_always_called:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs or hook_id in _g.forward_hooks_with_kwargs:
                            hook(self, args, kwargs, result)
                        else:
                            hook(self, args, result)
                    except Exception:
                        pass
            raise

    __call__ = _call_impl

    # ---- hooks ---------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Registers ``hook(module, args)`` (or ``hook(module, args, kwargs)`` with ``with_kwargs``) to
        run before every ``forward``; it may return replacement arguments. Returns a handle whose
        ``remove()`` unregisters it.
        """
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """Registers ``hook(module, args, output)`` to run after every ``forward``; it may return a
        replacement output. ``always_call`` runs it even when forward raises. Returns a handle whose
        ``remove()`` unregisters it.
        """
        handle = RemovableHandle(self._forward_hooks, extra_dict=[self._forward_hooks_with_kwargs,
                                                                  self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """Registers ``hook(module, grad_output)`` to run when the gradients with respect to the
        module's outputs are known, before its input gradients are computed; it may return
        replacement gradients. Returns a removable handle.
        """
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """Registers ``hook(module, grad_input, grad_output)`` to run once the gradients with respect
        to the module's inputs are computed; it may return replacement input gradients. Returns a
        removable handle.
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Deprecated: ``hook(module, grad_input, grad_output)`` on the last autograd node of the
        module's forward only (warns where that misses gradients); prefer
        :meth:`register_full_backward_hook`. Returns a removable handle."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, prefix, keep_vars)`` runs before this module's state_dict is collected."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` runs after; must return None."""
        hook._from_public_api = True  # type: ignore[attr-defined]
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_state_dict_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors)``."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = functools.partial(hook, self)
        return handle

    def _register_load_state_dict_pre_hook(self, hook: Callable[..., Any],
                                           with_module: bool = False) -> RemovableHandle:
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = functools.partial(hook, self) if with_module else hook
        return handle

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, incompatible_keys)`` runs after load_state_dict; may edit the key lists."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # ---- state dict ----------------------------------------------------------------------
    from ember.nn.modules._state_dict import (  # noqa: E402  (methods defined in a sibling file)
        _load_from_state_dict,
        _save_to_state_dict,
        get_extra_state,
        load_state_dict,
        set_extra_state,
        state_dict,
    )
