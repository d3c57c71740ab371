"""``torch.library``: Python-defined operators (``custom_op``, ``Library.define`` / ``impl``,
``register_fake`` / ``register_kernel`` / ``register_autograd``), callable as ``ember.ops.<ns>.<name>``.

Libraries such as bitsandbytes define their kernels this way at import time. ember runs eagerly:
an op calls the kernel registered for its inputs' device (or the default one); with inputs that
need gradients it runs as an autograd Function whose backward is the registered formula. Fake
(meta) kernels are kept but only matter to tracing compilers, which ember does not have.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import ember

__all__ = ["CustomOpDef", "Library", "custom_op", "define", "impl", "register_autograd", "register_fake",
           "register_kernel"]

# dispatch keys that mean "the kernel for every device"; CompositeImplicitAutograd kernels are
# differentiable as written, so they run with autograd on instead of under a Function
_DEFAULT_KEYS = {"", "default", "compositeexplicitautograd", "compositeimplicitautograd"}


class _Op:
    """One operator: its kernels per device type, fake kernel and autograd formula."""

    def __init__(self, ns: str, name: str, signature: inspect.Signature | None = None) -> None:
        self.ns, self.name = ns, name
        self.signature = signature
        self.kernels: dict[str, Callable[..., Any]] = {}
        self.implicit_autograd = False
        self.fake: Callable[..., Any] | None = None
        self.backward: Callable[..., Any] | None = None
        self.setup_context: Callable[..., Any] | None = None
        self._function: Any = None

    @property
    def default(self) -> _Op:  # the single overload, as ``torch.ops.ns.op.default``
        return self

    def __repr__(self) -> str:
        return f"{self.ns}.{self.name}"

    def _kernel(self, args: Sequence[Any]) -> Callable[..., Any]:
        device = next((a.device.type for a in args if isinstance(a, ember.Tensor)), "cpu")
        kernel = self.kernels.get(device, self.kernels.get("default"))
        if kernel is None:
            raise NotImplementedError(f"Could not run '{self.ns}::{self.name}' with arguments from the "
                                      f"'{device.upper()}' backend.")
        return kernel

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.signature is not None and kwargs:  # positional, so the Function sees every input
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = tuple(bound.args), dict(bound.kwargs)
        kernel = self._kernel(args)
        needs_grad = ember.is_grad_enabled() and any(
            isinstance(a, ember.Tensor) and a.requires_grad for a in args)
        if self.implicit_autograd or not needs_grad or kwargs:
            return kernel(*args, **kwargs)
        return self._autograd_function().apply(*args)

    def _autograd_function(self) -> Any:
        if self._function is None:
            op = self

            def forward(ctx: Any, *args: Any) -> Any:
                out = op._kernel(args)(*args)
                if op.setup_context is not None:
                    op.setup_context(ctx, args, out)
                return out

            def backward(ctx: Any, *grads: Any) -> Any:
                if op.backward is None:
                    raise RuntimeError(f"Trying to backward through {op.ns}.{op.name}.default but no autograd "
                                       "formula was registered. Please use register_autograd to add one.")
                res = op.backward(ctx, *grads)
                return res if isinstance(res, tuple) else (res,)

            name = f"GeneratedBackwardFor_{self.ns}_{self.name}_default"
            self._function = type(name, (ember.autograd.Function,),
                                  {"forward": staticmethod(forward), "backward": staticmethod(backward)})
        return self._function


_ops: dict[str, _Op] = {}


def _split(qualname: str) -> tuple[str, str]:
    ns, name = qualname.split("::")
    return ns, name.split(".")[0]  # "ns::op.overload": one overload per op here


def _get(op: Any) -> _Op:
    if isinstance(op, _Op):
        return op
    if isinstance(op, CustomOpDef):
        return op._op
    ns, name = _split(op)
    if f"{ns}::{name}" not in _ops:
        raise ValueError(f"Operator {ns}::{name} does not exist; define it first (torch.library.define)")
    return _ops[f"{ns}::{name}"]


def _create(qualname: str, signature: inspect.Signature | None = None) -> _Op:
    ns, name = _split(qualname)
    op = _Op(ns, name, signature)
    _ops[f"{ns}::{name}"] = op
    from ember.ops import _register

    _register(ns, name, op)
    return op


def _device_keys(types: str | Sequence[str] | None) -> list[str]:
    if types is None:
        return ["default"]
    return [t.lower() if t.lower() not in _DEFAULT_KEYS else "default"
            for t in ([types] if isinstance(types, str) else types)]


class CustomOpDef:
    """What ``custom_op`` returns: the op itself (callable) plus its registration methods."""

    def __init__(self, op: _Op, fn: Callable[..., Any]) -> None:
        self._op = op
        self._init_fn = fn
        self.__name__ = getattr(fn, "__name__", op.name)
        self.__doc__ = fn.__doc__

    @property
    def _opoverload(self) -> _Op:
        return self._op

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._op(*args, **kwargs)

    def register_fake(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        self._op.fake = fn
        return fn

    def register_kernel(self, device_types: str | Sequence[str] | None,
                        fn: Callable[..., Any] | None = None) -> Any:
        def inner(f: Callable[..., Any]) -> Callable[..., Any]:
            for key in _device_keys(device_types):
                self._op.kernels[key] = f
            return f

        return inner if fn is None else inner(fn)

    def register_autograd(self, backward: Callable[..., Any], *,
                          setup_context: Callable[..., Any] | None = None) -> None:
        self._op.backward, self._op.setup_context = backward, setup_context

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._op.ns}::{self._op.name})>"


def custom_op(name: str, fn: Callable[..., Any] | None = None, /, *, mutates_args: str | Iterable[str],
              device_types: str | Sequence[str] | None = None, schema: str | None = None,
              tags: Any = None) -> Any:
    """Turn a Python function into the operator ``name`` ("namespace::op"), as a decorator or directly."""
    def inner(f: Callable[..., Any]) -> CustomOpDef:
        op = _create(name, inspect.signature(f))
        for key in _device_keys(device_types):
            op.kernels[key] = f
        return CustomOpDef(op, f)

    return inner if fn is None else inner(fn)


class Library:
    """A namespace to ``define`` operator schemas in (kind "DEF"/"FRAGMENT") and ``impl`` kernels for."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError("Unsupported kind: ", kind)
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key

    def define(self, schema: str, alias_analysis: str = "", *, tags: Any = ()) -> str:
        name = schema.split("(", 1)[0].strip()
        qualname = name if "::" in name else f"{self.ns}::{name}"
        _create(qualname)
        return _split(qualname)[1]

    def impl(self, op_name: Any, fn: Callable[..., Any], dispatch_key: str = "", *, with_keyset: bool = False,
             allow_override: bool = True) -> None:
        if isinstance(op_name, str) and "::" not in op_name:
            op_name = f"{self.ns}::{op_name}"
        op = _get(op_name)
        key = (dispatch_key or self.dispatch_key).lower()
        if key == "meta":
            op.fake = fn
            return
        if key in ("autograd", "autogradcpu", "autogradcuda", "compositeimplicitautograd"):
            op.implicit_autograd = True  # the kernel handles (or composes) its own autograd
        device = "default" if key in _DEFAULT_KEYS or key.startswith("autograd") else key
        op.kernels[device] = fn

    def _destroy(self) -> None:
        pass


def define(qualname: str, schema: str, *, lib: Library | None = None, tags: Any = ()) -> None:
    """Declare operator ``qualname`` with a schema such as ``"(Tensor x) -> Tensor"``."""
    ns, name = _split(qualname)
    (lib or Library(ns, "FRAGMENT")).define(name + schema)


def impl(qualname: str, types: str | Sequence[str], func: Callable[..., Any] | None = None, *,
         lib: Library | None = None) -> Any:
    """Register ``func`` as ``qualname``'s kernel for the device ``types`` ("cpu", "cuda", "default")."""
    def inner(f: Callable[..., Any]) -> Callable[..., Any]:
        op = _get(qualname)
        for key in _device_keys(types):
            op.kernels[key] = f
        return f

    return inner if func is None else inner(func)


def register_kernel(op: Any, device_types: str | Sequence[str] | None, func: Callable[..., Any] | None = None,
                    /, *, lib: Library | None = None) -> Any:
    return impl(op, device_types or "default", func) if isinstance(op, str) else \
        CustomOpDef(_get(op), lambda: None).register_kernel(device_types, func)


def register_fake(op: Any, func: Callable[..., Any] | None = None, /, *, lib: Library | None = None,
                  _stacklevel: int = 1, allow_override: bool = True) -> Any:
    """Register the shape-only (meta) implementation; kept for compatibility, never needed eagerly."""
    def inner(f: Callable[..., Any]) -> Callable[..., Any]:
        _get(op).fake = f
        return f

    return inner if func is None else inner(func)


def register_autograd(op: Any, backward: Callable[..., Any], /, *, setup_context: Callable[..., Any] | None = None,
                      lib: Library | None = None) -> None:
    target = _get(op)
    target.backward, target.setup_context = backward, setup_context
