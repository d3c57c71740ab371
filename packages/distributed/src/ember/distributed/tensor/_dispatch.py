"""``DTensor.__torch_function__``'s table: which rule each function or Tensor method runs.

Top-level functions with a DTensor rule map to it at import (``ember.sum`` -> the ``sum`` rule
of ``_ops``, ``F.linear``, ``cat``...); Tensor methods reach DTensor's own method of the same
name, and any other function is classified by name on its first call (then cached): metadata
and the optimizers' ``_foreach_*``/fused steps run on the local shards as they are (``LOCAL``:
one Python hop per call, nothing per tensor), elementwise ops line their operands up and wrap
the result, and an op without a rule runs locally only when every DTensor operand is
replicated; otherwise PyTorch's error, never a silently local result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ember
from ember import Tensor
from ember._lib import _C

from . import _dtensor, _ops_index, _ops_nn, _ops_shape
from ._dtensor import LOCAL, RULES, DTensor, DTensorSpec, _alias, adopt
from ._ops import (
    METHODS,
    _is_plain_tensor,
    _norm,
    _repl,
    _to,
    _unpartial,
    along_dim,
    as_local,
    aten_name,
    check_mesh,
    elementwise,
    elementwise_,
    linear,
    local_view,
    mixed_error,
)
from ._ops_foreach import foreach_norm, foreach_rule, foreach_zero_
from .placement_types import Replicate, Shard, _NormPartial

# Elementwise in every tensor operand (torch's pointwise ops, comparisons, activations).
_ELEMENTWISE = frozenset((
    "abs", "absolute", "acos", "arccos", "acosh", "arccosh", "add", "addcdiv", "addcmul", "angle",
    "asin", "arcsin", "asinh", "arcsinh", "atan", "arctan", "atanh", "arctanh", "atan2", "arctan2",
    "bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift", "ceil", "clamp", "clamp_min", "clamp_max", "clip", "conj_physical",
    "copysign", "cos", "cosh", "deg2rad", "div", "divide", "digamma", "erf", "erfc", "erfinv",
    "exp", "exp2", "expm1", "fix", "float_power", "floor", "floor_divide", "fmod", "frac", "hypot",
    "i0", "igamma", "igammac", "ldexp", "lerp", "lgamma", "log", "log10", "log1p", "log2",
    "logaddexp", "logaddexp2", "logical_and", "logical_not", "logical_or", "logical_xor", "logit",
    "mul", "multiply", "mvlgamma", "nan_to_num", "neg", "negative", "nextafter", "positive", "pow",
    "rad2deg", "reciprocal", "remainder", "round", "rsqrt", "sigmoid", "sign", "sgn", "signbit",
    "sin", "sinc", "sinh", "sqrt", "square", "sub", "subtract", "tan", "tanh", "true_divide",
    "trunc", "xlogy", "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less",
    "less_equal", "not_equal", "maximum", "minimum", "fmax", "fmin", "isnan", "isinf", "isfinite",
    "isposinf", "isneginf", "isreal", "isclose", "where", "masked_fill", "heaviside", "relu",
    "relu6", "elu", "selu", "celu", "gelu", "silu", "mish", "hardtanh", "hardsigmoid", "hardswish",
    "hardshrink", "softshrink", "leaky_relu", "logsigmoid", "softplus", "softsign", "tanhshrink",
    "threshold", "dropout", "conj", "real", "imag",
))
# Layout-independent: metadata, autograd plumbing, storage (results as the core gives them).
_LOCAL_NAMES = frozenset((
    "dim", "ndimension", "is_contiguous", "is_floating_point", "is_complex", "is_signed",
    "element_size", "get_device", "data_ptr", "storage_offset", "untyped_storage", "storage",
    "is_inference", "_is_view", "retain_grad", "register_post_accumulate_grad_hook",
    "is_shared", "share_memory_", "is_pinned", "__dlpack_device__", "is_set_to", "requires_grad_",
    "uniform_", "normal_", "bernoulli_", "exponential_", "geometric_", "cauchy_", "log_normal_",
    "random_", "__reduce_ex__", "__setstate__", "__format__", "__repr__", "__dir__",
))
# Shape-preserving ops along one dim (dim the first argument after the tensor).
_ALONG_DIM = {"softmax": None, "log_softmax": None, "_softmax": None, "cumsum": None,
              "cumprod": None, "logcumsumexp": None, "cummax": None, "cummin": None}
_LIKE = frozenset(("zeros_like", "ones_like", "empty_like", "full_like"))
# top-level functions that take the tensor first, as the DTensor method of the same name
_FUNCTION_FORMS = ("sum", "mean", "amax", "amin", "max", "min", "norm", "matmul", "mm", "bmm",
                   "reshape", "flatten", "unflatten", "t", "transpose", "permute", "unsqueeze", "squeeze",
                   "clone")


def _dtensors(args: Sequence[Any], kwargs: dict[str, Any]) -> list[DTensor]:
    """The DTensor operands (in list arguments too)."""
    out: list[DTensor] = []
    for a in (*args, *kwargs.values()):
        for x in (a if isinstance(a, (list, tuple)) else (a,)):
            if isinstance(x, DTensor):
                out.append(x)
    return out


def _check_plain(name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> None:
    """A plain tensor of 1+ dims among a DTensor op's operands: PyTorch's error (a 0-d one
    counts as a number)."""
    for a in (*args, *kwargs.values()):
        for x in (a if isinstance(a, (list, tuple)) else (a,)):
            if _is_plain_tensor(x) and x.dim() > 0:
                raise mixed_error(name, "default")


def fallback(func: Callable[..., Any], name: str) -> Callable[..., Any]:
    """An op without a rule: on replicated DTensors the local result is the global one
    (wrapped Replicate); on Shard or Partial ones it would be silently wrong -- PyTorch's error."""
    local = as_local(func)
    inplace = name.endswith("_") and not name.endswith("__")

    def run(*args: Any, **kwargs: Any) -> Any:
        _check_plain(name, args, kwargs)
        dts = _dtensors(args, kwargs)
        if not dts:  # only deeper inside an argument: nothing to lay out
            return func(*args, **kwargs)
        if any(not p.is_replicate() for d in dts for p in d.placements):
            raise NotImplementedError(f"Operator {aten_name(name)}.default does not have a sharding "
                                      "strategy registered.")
        mesh = check_mesh(dts, name)
        out = local(*args, **kwargs)
        if inplace and args and isinstance(args[0], DTensor):
            return args[0]  # an in-place op hands back its DTensor
        if isinstance(out, DTensor):
            return out
        if isinstance(out, Tensor) and any(out is a for a in args):
            out = _alias(out)  # a plain input handed back must stay plain
        return _wrap_replicated(out, mesh)

    return run


def _wrap_replicated(out: Any, mesh: Any) -> Any:
    """Tensors of a result computed from replicated values: Replicate DTensors (their own
    shapes: one op may return tensors of several)."""
    if isinstance(out, Tensor):
        return adopt(out, DTensorSpec(mesh, _repl(mesh.ndim), tuple(Tensor.size(out))))
    if isinstance(out, (tuple, list)):
        return type(out)(_wrap_replicated(o, mesh) for o in out)
    return out


def _fill(func: Callable[..., Any]) -> Callable[..., Any]:
    """fill_/zero_: elementwise on the local piece; a Partial becomes Replicate (every rank now
    holds the whole value), as in PyTorch."""
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(self, DTensor):
            raise mixed_error(func.__name__, "default")
        func(self, *args, **kwargs)
        if any(p.is_partial() for p in self.placements):
            self._spec = self._spec.with_placements(_unpartial(self.placements))
        return self

    return run


def _like(func: Callable[..., Any]) -> Callable[..., Any]:
    """zeros_like & co.: the same layout (a Partial's value is one rank's, so Replicate)."""
    local = as_local(func)

    keep = func.__name__ == "empty_like"  # no values: PyTorch keeps even a Partial

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        spec = self._spec if keep else self._spec.with_placements(_unpartial(self.placements))
        return adopt(local(self, *args, **kwargs), spec)

    return run


def _random_like(kind: str) -> Callable[..., Any]:
    """rand_like/randn_like: the DTensor factory's draw (equal to one process's, replicas alike)."""
    def run(self: Any, *, dtype: Any = None, requires_grad: bool = False, **_: Any) -> Any:
        from . import _factories

        make = _factories.rand if kind == "rand" else _factories.randn
        return make(tuple(self.shape), dtype=dtype or self.dtype, requires_grad=requires_grad,
                     device_mesh=self.device_mesh, placements=_unpartial(self.placements))

    return run


def _all_dtensors(name: str, tensors: Sequence[Any]) -> None:
    if not all(isinstance(t, DTensor) for t in tensors):
        raise mixed_error(name, "default")


def _shared(tensors: Sequence[Any], i: int) -> bool:
    """Every input has the same placement on mesh dim ``i`` (a common Partial stays: cat and
    stack are linear)."""
    return all(t.placements[i] == tensors[0].placements[i] for t in tensors)


def _cat(tensors: Sequence[Any], dim: int = 0) -> DTensor:
    """cat: the inputs laid out as the first, the cat dim (and any Partial) replicated."""
    _all_dtensors("cat", tensors)
    # as torch: a legacy empty 1-d input is skipped
    ts = [t for t in tensors if t.dim() != 1 or t.numel() > 0] or list(tensors)
    first = ts[0]
    mesh = check_mesh(ts, "cat")
    d = dim % first.dim()
    target = tuple(Replicate() if (p.is_partial() and not _shared(ts, i)) or (isinstance(p, Shard) and p.dim == d)
                   else p for i, p in enumerate(first.placements))
    local = ember.cat([_to(t, target) for t in ts], d)
    shape = list(first.shape)
    shape[d] = sum(t.shape[d] for t in ts)
    return adopt(local, DTensorSpec(mesh, target, shape))


def _stack(tensors: Sequence[Any], dim: int = 0) -> DTensor:
    """stack: the inputs laid out as the first (Partial replicated); shard dims from ``dim`` on
    move up one."""
    _all_dtensors("stack", tensors)
    first = tensors[0]
    mesh = check_mesh(tensors, "stack")
    d = dim % (first.dim() + 1)
    target = tuple(Replicate() if p.is_partial() and not _shared(tensors, i) else p
                   for i, p in enumerate(first.placements))
    local = ember.stack([_to(t, target) for t in tensors], d)
    shape = list(first.shape)
    shape.insert(d, len(tensors))
    placements = tuple(Shard(p.dim + (p.dim >= d)) if isinstance(p, Shard) else p for p in target)
    return adopt(local, DTensorSpec(mesh, placements, shape))


def _whole(func: Callable[..., Any], name: str) -> Callable[..., Any]:
    """equal/allclose: a verdict on the whole values (both replicated first)."""
    local = as_local(func)

    def run(a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
        if not (isinstance(a, DTensor) and isinstance(b, DTensor)):
            raise mixed_error(name, "default")
        n = a.device_mesh.ndim
        return local(_to(a, _repl(n)), _to(b, _repl(n)), *args, **kwargs)

    return run


def _vector_norm(x: Any, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,
                 dtype: Any = None) -> Any:
    return _norm(x, ord, dim, keepdim, dtype)


def _transposed(name: str) -> Callable[..., Any]:
    """The T/mT/H/mH properties as the permute/transpose rules."""
    def run(self: Any) -> Any:
        if name in ("T", "H") and self.dim() != 2:
            out = METHODS["permute"](self, tuple(reversed(range(self.dim()))))
        else:
            out = METHODS["transpose"](self, -2, -1)
        return out.conj() if name in ("H", "mH") else out

    return run


def _backward(self: Any, gradient: Any = None, *args: Any, **kwargs: Any) -> None:
    """``dt.backward()``: the engine starts from the local piece (a Partial sum's terms, a
    shard's elements) with dispatch back on, as hooks and backward functions may meet DTensors."""
    if gradient is not None and not isinstance(gradient, DTensor) and gradient.dim() > 0:
        raise mixed_error("backward", "default")
    if any(isinstance(p, _NormPartial) or p.is_partial("max") or p.is_partial("min")
           for p in self.placements):
        # the terms of a norm/max/min are not summed: backward starts from the settled value
        # (whose redistribution hands each term its share)
        self = _to(self, _unpartial(self.placements))
    local, grad = local_view(self), local_view(gradient)
    prev = _C._set_torch_function_disabled(0)
    try:
        Tensor.backward(local, grad, *args, **kwargs)
    finally:
        _C._set_torch_function_disabled(prev)


def _on_dtensor(rule: Callable[..., Any], name: str) -> Callable[..., Any]:
    """A DTensor method's rule reached with a plain tensor first (``plain[dt]``, ``plain.to(dt)``):
    PyTorch's mixed-operands error."""
    def run(*args: Any, **kwargs: Any) -> Any:
        if not args or not isinstance(args[0], DTensor):
            raise mixed_error(name)
        return rule(*args, **kwargs)

    return run


def _function_form(rule: Callable[..., Any], name: str, self_first: bool = True) -> Callable[..., Any]:
    """A top-level function's rule: ``input=`` as the first argument; ``out=`` a DTensor the
    result is copied into (PyTorch's mixed-operands error for a plain one)."""
    if self_first:
        rule = _on_dtensor(rule, name)

    def run(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if "input" in kwargs:
            args = (kwargs.pop("input"), *args)
        if out is None:
            return rule(*args, **kwargs)
        if not isinstance(out, DTensor):
            raise mixed_error(name, "out")
        METHODS["copy_"](out, rule(*args, **kwargs))
        return out

    return run


# DTensor's own methods and properties under their Tensor names, resolved by name on the first
# call: Tensor's Python-level methods are wrapped for dispatch only once it is on
_TENSOR_RULES: dict[str, Any] = {}
_TENSOR_PROPS: dict[str, tuple[Any, Any]] = {}


def classify(func: Any) -> Any:
    """The rule for ``func`` on its first call with a DTensor, by name (then cached)."""
    name = getattr(func, "__name__", "")
    if name in ("__get__", "__set__", "__delete__"):  # a property: Tensor.<prop>.__get__
        prop = getattr(getattr(func, "__self__", None), "__name__", "")
        own = _TENSOR_PROPS.get(prop, (None, None))[name == "__set__"] if name != "__delete__" else None
        rule: Any = own or (_transposed(prop) if name == "__get__" and prop in ("T", "mT", "H", "mH")
                            else LOCAL)
    elif name in _TENSOR_RULES and getattr(Tensor, name, None) == func:
        rule = _on_dtensor(_TENSOR_RULES[name], name)
    elif name.startswith("_foreach_"):  # per tensor as its op's rule (one local call if aligned)
        rule = {"_foreach_norm": foreach_norm, "_foreach_zero_": foreach_zero_}.get(name) \
            or foreach_rule(name, func)
    elif name.startswith("_fused_"):  # the fused optimizer steps: elementwise, on the shards
        rule = LOCAL
    elif name in _ops_nn.BY_NAME:
        rule = _ops_nn.BY_NAME[name]
    elif name in _LOCAL_NAMES:
        rule = LOCAL
    elif name in _ELEMENTWISE:
        rule = elementwise(func, name)
    elif name.endswith("_") and not name.endswith("__") and name[:-1] in _ELEMENTWISE:
        rule = elementwise_(func, name)
    elif name in ("fill_", "zero_"):
        rule = _fill(func)
    elif name in _LIKE:
        rule = _like(func)
    elif name in ("rand_like", "randn_like"):
        rule = _random_like(name[:-5])
    elif name in _ALONG_DIM:
        rule = along_dim(func, name, default=_ALONG_DIM[name])
    elif name in ("equal", "allclose"):
        rule = _whole(func, name)
    elif name == "backward":
        rule = _backward
    elif name in ("numel", "nelement"):
        rule = DTensor.numel
    elif name in ("vector_norm", "_linalg_vector_norm"):
        rule = _vector_norm
    else:
        rule = fallback(func, name)
    RULES[func] = rule
    return rule


def install() -> None:
    """Fill the table with the known functions (after ``_ops.install``)."""
    _dtensor.classify = classify  # type: ignore[assignment]
    for name, attr in vars(DTensor).items():  # DTensor's own methods under Tensor's names
        if not hasattr(Tensor, name) or name.startswith("__init") or name in ("__torch_function__", "__new__"):
            continue
        if isinstance(attr, property):
            _TENSOR_PROPS[name] = (attr.fget, attr.fset)
        elif callable(attr) and not isinstance(attr, (classmethod, staticmethod)):
            _TENSOR_RULES[name] = METHODS.get(name, attr)
    for name in _FUNCTION_FORMS:
        f = getattr(ember, name, None)
        if f is not None:
            RULES[f] = _function_form(METHODS["matmul" if name == "bmm" else name], name)
    for name in _ELEMENTWISE:
        f = getattr(ember, name, None)
        if callable(f) and not isinstance(f, (type, ember.dtype)):
            RULES[f] = _function_form(elementwise(f, name), name, self_first=False)
    for name in _ops_shape.FUNCTIONS:
        f = getattr(ember, name, None)
        if f is not None and name in METHODS:
            RULES[f] = _function_form(METHODS[name], name)
    RULES[ember.cat] = RULES[ember.concat] = RULES[ember.concatenate] = _function_form(_cat, "cat", self_first=False)
    RULES[ember.stack] = _function_form(_stack, "stack", self_first=False)
    _ops_nn.install(RULES, METHODS, elementwise, _function_form)
    for name in _ops_index.FUNCTIONS:
        f = getattr(ember, name, None)
        if f is not None:
            RULES[f] = _function_form(METHODS[name], name)
    _ops_index.install(RULES)
    try:
        import ember.nn.functional as F
    except ImportError:  # ember-nn not installed: no F.linear to route
        return
    RULES[F.linear] = linear
