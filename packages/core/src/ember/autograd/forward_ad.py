"""Forward-mode automatic differentiation: ``ember.autograd.forward_ad`` (PyTorch's API).

Design. ember's C++ core knows nothing of forward gradients, so the tangents live here, in a
side table keyed by tensor identity (weak references: a table entry dies with its tensor), and
a ``TorchFunctionMode`` pushed for as long as a dual level is open sees every ember call. A call
none of whose tensor arguments carries a tangent runs as is. Otherwise the mode runs the call
unchanged (so the primal result, its autograd history and its view relations are exactly what
they would be without forward AD) and then computes the output tangents:

* view-like and other ops linear in their first argument: the same call on the tangent, so the
  tangent of a view is the same view of the tangent (PyTorch guarantees that);
* bilinear ops (mul, matmul, ...): the product rule, each operand's tangent in turn;
* affine ops (add, sub, cat, stack, where): the same call on tangents, zeros standing for the
  non-dual operands (and 0 for Python numbers added);
* anything else: the double-backward trick over that single call, on detached copies of its
  inputs (u ↦ uᵀJ is linear in u, so differentiating it with respect to u along the tangent
  gives J·tangent). Random ops replay the same random numbers for that second run.

In-place ops write the new tangent into the existing one in place, so the tangents of views
and bases stay linked as the primals are. The tangent of a view whose base got a tangent later
(an in-place op into a non-dual base) is derived lazily from the base's tangent.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from ember._lib import _C
from ember.overrides import TorchFunctionMode

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
           "dual_level"]

_TENSOR = _C.TensorBase
_base_of = _C.TensorBase._base.__get__  # the C getter: no __torch_function__ round trip

_current_level = -1


class _State:
    """The open level's tangents and mode, and how deep the mode is inside its own work."""

    def __init__(self) -> None:
        self.tangents: dict[int, tuple[weakref.ref[Any], Any]] = {}
        self.mode: _ForwardADMode | None = None
        self.busy = 0  # > 0 while the mode (or a custom Function's jvp) computes: no nested forward AD
        self.enabled = True  # _set_fwd_grad_enabled


_state = _State()


# ----------------------------------------------------------------------------- the tangent table

def _is_diff(t: Any) -> bool:
    return t.is_floating_point() or t.is_complex()


_ABSENT = object()


def _entry(t: Any) -> Any:
    """The stored tangent of ``t`` (None: stored as having none), or _ABSENT."""
    entry = _state.tangents.get(id(t))
    if entry is not None and entry[0]() is t:
        return entry[1]
    return _ABSENT


def _direct(t: Any) -> Any:
    tangent = _entry(t)
    return None if tangent is _ABSENT else tangent


def _dense_strides(t: Any) -> bool:
    """Whether ``t`` covers its memory exactly once (contiguous up to a permutation of dims)."""
    dims = sorted((st, sz) for st, sz in zip(t.stride(), t.shape, strict=True) if sz != 1)
    expected = 1
    for st, sz in dims:
        if st != expected:
            return False
        expected *= sz
    return True


def _same_strides(a: Any, b: Any) -> bool:
    return all(sa == sb for sa, sb, sz in zip(a.stride(), b.stride(), a.shape, strict=True) if sz != 1)


def _conform(primal: Any, tangent: Any) -> Any:
    """The tangent laid out as the primal is (as-is when it already is, a copy otherwise), so
    that a view taken of the primal can be taken of the tangent too."""
    if tangent.dim() == 0 or _same_strides(primal, tangent) or not _dense_strides(primal):
        return tangent
    out = _C.empty_strided(tuple(primal.shape), tuple(primal.stride()), dtype=tangent.dtype,
                           device=tangent.device)
    return out.copy_(tangent)


def _store(t: Any, tangent: Any) -> None:
    key = id(t)
    table = _state.tangents

    def drop(ref: Any, key: int = key) -> None:
        entry = table.get(key)
        if entry is not None and entry[0] is ref:
            del table[key]

    table[key] = (weakref.ref(t, drop), tangent)


def _lookup(t: Any) -> Any:
    """The tangent of ``t`` at the open level, or None. A view without one of its own takes the
    matching view of its base's tangent (that base became dual after the view was made)."""
    tangent = _entry(t)
    if tangent is not _ABSENT:
        return tangent
    if not _state.tangents:
        return None
    base = _base_of(t)
    if base is None:
        return None
    base_t = _direct(base)
    if base_t is None or not _same_strides(base, base_t):
        return None
    offset = base_t.storage_offset() + t.storage_offset() - base.storage_offset()
    tangent = base_t.as_strided(tuple(t.shape), tuple(t.stride()), offset)
    _store(t, tangent)
    return tangent


def _size_error(primal: Any, tangent: Any) -> RuntimeError:
    return RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                        f"Tensor, this is not supported. Tensor is of size {list(primal.shape)} while the given "
                        f"forward gradient is of size {list(tangent.shape)}.")


def _attach(t: Any, tangent: Any) -> None:
    if tuple(tangent.shape) != tuple(t.shape):
        raise _size_error(t, tangent)
    _store(t, _conform(t, tangent))


def _update_inplace(target: Any, new: Any) -> None:
    """The tangent of ``target`` after an in-place op: written into the existing tangent (so
    views and base keep sharing it); a view of a non-dual base makes the base dual, with zero
    tangent elsewhere, as PyTorch does."""
    current = _lookup(target)
    if current is None and new is None:
        return
    if current is None:
        base = _base_of(target)
        if base is not None and _is_diff(base) and _direct(base) is None:
            _store(base, _C.zeros_like(base))
            current = _lookup(target)
    if current is not None and tuple(current.shape) == tuple(target.shape):
        with _no_grad():  # the tangent may require grad; writing it is no step of the user's graph
            if new is None:
                current.zero_()
            else:
                current.copy_(new)
        return
    if new is not None:
        _attach(target, new)


@contextlib.contextmanager
def _no_grad() -> Iterator[None]:
    prev = _C.is_grad_enabled()
    _C._set_grad_enabled(False)
    try:
        yield
    finally:
        _C._set_grad_enabled(prev)


@contextlib.contextmanager
def _torch_function_off() -> Iterator[None]:
    prev = _C._set_torch_function_disabled(2)
    try:
        yield
    finally:
        _C._set_torch_function_disabled(prev)


# ----------------------------------------------------------------------------- public API

def enter_dual_level() -> int:
    """Opens a new forward-gradient level and makes it the default of the other functions here.

    Dual tensors made with :func:`make_dual` carry their tangent only while their level is open;
    as in PyTorch, only one level can be open at a time. Returns the level's number (0).
    """
    global _current_level
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    mode = _ForwardADMode()
    mode.__enter__()
    _state.mode = mode
    _state.tangents = {}
    _current_level = 0
    return _current_level


def exit_dual_level(*, level: int | None = None) -> None:
    """Closes the forward-gradient level ``level`` (the current one by default): every tangent
    of that level is dropped. Only the most recently entered level can be closed."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                           "This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    mode, _state.mode = _state.mode, None
    _state.tangents = {}
    _current_level = level - 1
    if mode is not None:
        _remove_mode(mode)


def _remove_mode(mode: Any) -> None:
    """Takes ``mode`` off the torch-function mode stack wherever it is: a mode the user pushed
    inside the level and has not popped yet stays where it is."""
    from ember import _torch_function as tf

    modes = tf._tls.modes
    for i in range(len(modes) - 1, -1, -1):
        if modes[i] is mode:
            del modes[i]
            break
    _C._set_torch_function_modes(len(modes))


def make_dual(tensor: Any, tangent: Any, *, level: int | None = None) -> Any:
    """A dual tensor: a new tensor aliasing ``tensor`` (a view, differentiable in reverse mode)
    that carries ``tangent`` as its forward gradient at ``level`` (the current level by default).

    The tangent is kept as-is when it is laid out as ``tensor`` (same strides) and copied into
    that layout otherwise. Every ember op applied to dual tensors inside the level propagates
    tangents; :func:`unpack_dual` reads them back.
    """
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    with _torch_function_off():  # the checks below are no ops to differentiate
        return _make_dual(tensor, tangent, level)


def _make_dual(tensor: Any, tangent: Any, level: int) -> Any:
    if not _is_diff(tensor):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not _is_diff(tangent):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if level != _current_level:
        raise RuntimeError("Invalid level given to _make_dual")
    if _lookup(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward gradient at the "
                           f"same level {level} is not supported.")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise _size_error(tensor, tangent)
    dual = tensor.view_as(tensor)
    _attach(dual, tangent)
    return dual


class UnpackedDualTensor(NamedTuple):
    """What :func:`unpack_dual` returns: the primal (a view of the dual tensor, without tangent)
    and the tangent (None when the tensor is not dual at the level)."""

    primal: Any
    tangent: Any


def unpack_dual(tensor: Any, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of ``tensor`` at ``level`` (the current level by default).

    ``primal`` is a view of ``tensor`` that carries no tangent; ``tangent`` is the forward
    gradient as stored (not a copy), or None when ``tensor`` is not dual at that level or no
    level is open. Both are differentiable in reverse mode.
    """
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    with _torch_function_off():
        tangent = _lookup(tensor) if level == _current_level else None
        primal = tensor.view_as(tensor)
        if _current_level >= 0:
            _store(primal, None)  # not a view of the base's tangent either
    return UnpackedDualTensor(primal, tangent)


class dual_level(contextlib.ContextDecorator):
    """Context manager (or decorator) that opens a forward-AD level for its block: tangents made
    inside are dropped on exit. Nested levels are not supported (PyTorch's rule); for higher
    order forward derivatives use :func:`ember.func.jvp`."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: object) -> None:
        exit_dual_level()


def _is_fwd_grad_enabled() -> bool:
    """Whether forward gradients are propagated when a level is open (PyTorch's private flag)."""
    return _state.enabled


class _set_fwd_grad_enabled(contextlib.ContextDecorator):
    """Turns tangent propagation on or off from construction until the block ends (PyTorch's
    private helper, which also sets the flag when built)."""

    def __init__(self, mode: bool) -> None:
        self.prev = _state.enabled
        _state.enabled = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _state.enabled = self.prev


# ----------------------------------------------------------------------------- the mode

# Ops linear in their first argument (others fixed): the tangent is the same call on the
# tangent. Views among them give views of the tangent.
_SELF_LINEAR = frozenset({
    "view", "view_as", "reshape", "reshape_as", "transpose", "swapaxes", "swapdims", "t", "T", "mT", "H",
    "mH", "adjoint", "permute", "movedim", "moveaxis", "select", "narrow", "__getitem__", "expand", "expand_as",
    "broadcast_to", "squeeze", "unsqueeze", "flatten", "unflatten", "ravel", "diagonal", "split", "chunk",
    "unbind", "tensor_split", "hsplit", "vsplit", "dsplit", "split_with_sizes", "unfold",
    "real", "imag", "view_as_real", "view_as_complex", "alias", "clone", "contiguous", "neg", "negative",
    "__neg__", "positive", "__pos__", "sum", "mean", "cumsum", "flip", "fliplr", "flipud", "roll",
    "rot90", "repeat", "tile", "repeat_interleave", "tril", "triu", "diag", "diag_embed", "diagflat", "trace",
    "gather", "index_select", "take", "take_along_dim", "masked_select", "to", "type", "type_as", "float",
    "double", "half", "bfloat16", "cpu", "cuda", "conj", "conj_physical", "resolve_conj", "resolve_neg",
    "div", "divide", "true_divide", "__truediv__", "__div__", "mul", "multiply", "__mul__", "__rmul__",
    "matmul", "__matmul__", "__rmatmul__", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "kron",
    "tensordot", "fft", "ifft", "rfft", "irfft", "fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2",
    "rfft2", "irfft2", "fftshift", "ifftshift", "atleast_1d", "atleast_2d", "atleast_3d", "squeeze_copy",
    "unsqueeze_copy", "view_copy", "permute_copy", "transpose_copy", "expand_copy", "pixel_shuffle",
    "pixel_unshuffle", "channel_shuffle", "trapz", "trapezoid",
})
# Real-bilinear in their first two arguments: the product rule.
_BILINEAR = frozenset({"mul", "multiply", "__mul__", "__rmul__", "matmul", "__matmul__", "__rmatmul__",
                       "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "kron", "tensordot"})
# Affine in their first two arguments: zeros (or 0) stand for the non-dual ones.
_AFFINE2 = frozenset({"add", "sub", "subtract", "__add__", "__radd__", "__sub__", "__rsub__", "rsub"})
_STACKING = frozenset({"cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack",
                       "row_stack"})
# Results without a tangent (PyTorch: not differentiable in forward mode, or a fresh tensor).
_NO_TANGENT = frozenset({
    "detach", "detach_", "data", "requires_grad_", "retain_grad", "_base", "grad", "zeros_like", "ones_like",
    "empty_like", "full_like", "rand_like", "randn_like", "randint_like", "new_zeros", "new_ones", "new_empty",
    "new_full", "new_empty_strided", "new_tensor", "__repr__", "__format__", "__str__", "backward",
    "register_hook", "__deepcopy__", "__reduce_ex__", "__setstate__", "numpy", "tolist", "item",
})


def _name(func: Any) -> str:
    name = getattr(func, "__name__", "")
    if name in ("__get__", "__set__", "__delete__"):  # a property's accessor: Tensor.<prop>.__get__
        name = getattr(getattr(func, "__self__", None), "__name__", name)
    return name


def _tensors(obj: Any, out: list[Any]) -> list[Any]:
    if isinstance(obj, _TENSOR):
        out.append(obj)
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            _tensors(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _tensors(o, out)
    return out


def _map(obj: Any, fn: Callable[[Any], Any]) -> Any:
    if isinstance(obj, _TENSOR):
        return fn(obj)
    if type(obj) in (tuple, list):
        return type(obj)(_map(o, fn) for o in obj)
    if isinstance(obj, dict):
        return {k: _map(v, fn) for k, v in obj.items()}
    return obj


def _is_inplace(name: str, kwargs: dict[str, Any]) -> bool:
    if name.endswith("_") and not name.startswith("_"):
        return True
    if name.startswith("__i") and name not in ("__index__", "__int__", "__invert__", "__iter__"):
        return True
    return name == "__setitem__" or kwargs.get("inplace") is True


class _ForwardADMode(TorchFunctionMode):
    """Propagates tangents through every ember call while a dual level is open."""

    def __torch_function__(self, func: Callable[..., Any], types: Any, args: Any = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        kwargs = kwargs or {}
        if _state.busy or not _state.enabled or not _state.tangents:
            return func(*args, **kwargs)
        inputs = _tensors(kwargs, _tensors(args, []))
        tangents = {id(t): tan for t in inputs if _is_diff(t) and (tan := _lookup(t)) is not None}
        name = _name(func)
        if not tangents:
            return func(*args, **kwargs)
        if name in _NO_TANGENT:
            out = func(*args, **kwargs)
            ids = {id(t) for t in inputs}
            for o in _tensors(out, []):
                if id(o) not in ids and _base_of(o) is not None:
                    _store(o, None)  # a view (detach, data) that must not pick up its base's tangent
            return out
        if kwargs.get("out") is not None:
            raise RuntimeError(f"ember: forward AD does not support the out= variant of '{name}'")
        _state.busy += 1
        try:
            return _propagate(func, name, args, kwargs, inputs, tangents)
        finally:
            _state.busy -= 1


def _propagate(func: Callable[..., Any], name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
               inputs: list[Any], tangents: dict[int, Any]) -> Any:
    from ember import random

    inplace = _is_inplace(name, kwargs)
    # The generic rule re-runs the op: on the inputs as they were before an in-place op wrote
    # them, and with the random numbers the primal run drew.
    snapshots = {id(t): t.detach().clone() for t in inputs} if inplace else {}
    rng = random.get_rng_state()
    out = func(*args, **kwargs)
    if inplace:
        target = args[0] if args else kwargs.get("input")
        if not isinstance(target, _TENSOR) or not _is_diff(target):
            return out
        new = _tangents_generic(func, name, args, kwargs, tangents, snapshots, rng, inplace)[0]
        _update_inplace(target, new)
        return out
    outs = _tensors(out, [])
    if not any(_is_diff(o) for o in outs):
        return out
    new_tangents = _linear_rules(func, name, args, kwargs, tangents, outs)
    if new_tangents is None:
        new_tangents = _tangents_generic(func, name, args, kwargs, tangents, snapshots, rng, inplace)
    input_ids = {id(t) for t in inputs}
    for o, tan in zip(outs, new_tangents, strict=False):
        # an input handed back as is (contiguous() of a contiguous tensor) keeps its own tangent
        if tan is not None and _is_diff(o) and id(o) not in input_ids:
            if tuple(tan.shape) != tuple(o.shape):
                raise RuntimeError(f"ember: forward AD computed a tangent of shape {list(tan.shape)} for an "
                                   f"output of '{name}' of shape {list(o.shape)}")
            _attach(o, tan)
    return out


def _zero_for(a: Any, tangents: dict[int, Any]) -> Any:
    """The tangent of an operand of an affine op: its own, or zeros (of its dtype, so that type
    promotion gives the output's dtype) for a non-dual one."""
    tan = tangents.get(id(a))
    return tan if tan is not None else _C.zeros_like(a)


def _linear_rules(func: Callable[..., Any], name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                  tangents: dict[int, Any], outs: list[Any]) -> list[Any] | None:
    """The output tangents by the linear rules, or None when none applies."""
    first = args[0] if args else None
    is_t = [isinstance(a, _TENSOR) for a in args]
    dual_pos = [i for i, a in enumerate(args) if is_t[i] and id(a) in tangents]
    in_kwargs = any(id(t) in tangents for t in _tensors(kwargs, []))
    if in_kwargs:
        return None
    result: Any = None
    if name in _STACKING and isinstance(first, (tuple, list)) and not dual_pos:
        result = func([_zero_for(a, tangents) if isinstance(a, _TENSOR) else a for a in first],
                      *args[1:], **kwargs)
    elif not dual_pos or any(isinstance(a, (tuple, list)) and _tensors(a, []) for a in args):
        return None
    elif name in _SELF_LINEAR and dual_pos == [0] and kwargs.get("rounding_mode") is None:
        result = func(tangents[id(first)], *args[1:], **kwargs)
    elif name in _BILINEAR and set(dual_pos) <= {0, 1}:
        for i in dual_pos:
            term = func(*[tangents[id(a)] if j == i else a for j, a in enumerate(args)], **kwargs)
            result = term if result is None else result + term
    elif name in _AFFINE2 and set(dual_pos) <= {0, 1}:
        def sub(j: int, a: Any) -> Any:
            if j > 1:
                return a
            if isinstance(a, _TENSOR):
                return _zero_for(a, tangents)
            return 0 if isinstance(a, (int, float, complex)) and not isinstance(a, bool) else a
        result = func(*[sub(j, a) for j, a in enumerate(args)], **kwargs)
    elif (name == "where" and set(dual_pos) <= {1, 2} and len(args) == 3 and isinstance(first, _TENSOR)
          and first.dtype == _C.bool):  # where(condition, x, y), not Tensor.where(self, condition, y)
        result = func(args[0], *[_zero_for(a, tangents) if isinstance(a, _TENSOR) else 0 for a in args[1:]],
                      **kwargs)
    else:
        return None
    new = _tensors(result, [])
    if len(new) != len(outs):
        return None
    # a result that is an input's tangent itself would tie the two tangents together
    given = {id(t) for t in tangents.values()}
    return [n.clone() if id(n) in given else n for n in new]


def _probe_like(o: Any) -> Any:
    """Non-constant values for the cotangent u of the generic rule: the gradient uᵀJ of an op
    whose backward autograd cannot differentiate is then nonzero (and caught) for most ops."""
    n = o.numel()
    vals = (_C.arange(n, dtype=_C.float64) * 0.6180339887498949).remainder(1.0) + 0.5
    return vals.reshape(tuple(o.shape)).to(dtype=o.dtype, device=o.device)


def _tangents_generic(func: Callable[..., Any], name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                      tangents: dict[int, Any], snapshots: dict[int, Any], rng: Any, inplace: bool
                      ) -> list[Any]:
    """J·tangent of every output of ``func`` by the double-backward trick over the one call."""
    from ember import autograd, random

    leaves: list[Any] = []
    leaf_tangents: list[Any] = []
    replaced: dict[int, Any] = {}
    target = (args[0] if args else kwargs.get("input")) if inplace else None

    def sub(a: Any) -> Any:
        key = id(a)
        if key in replaced:
            return replaced[key]
        src = snapshots.get(key, a).detach()
        tan = tangents.get(key)
        if tan is not None:
            src.requires_grad_(True)
            leaves.append(src)
            leaf_tangents.append(tan)
            if a is target:
                src = src.clone()  # in-place on a leaf that requires grad is an error
        replaced[key] = src
        return src

    new_args, new_kwargs = _map(args, sub), _map(kwargs, sub)
    after = random.get_rng_state()
    random.set_rng_state(rng)
    prev = _C.is_grad_enabled()
    _C._set_grad_enabled(True)
    try:
        res = func(*new_args, **new_kwargs)
        outs = [replaced[id(target)]] if inplace else _tensors(res, [])
        diff = [o for o in outs if _is_diff(o) and o.requires_grad]
        if not diff:
            return [None] * len(outs)
        us = [_probe_like(o).requires_grad_(True) for o in diff]
        try:
            vjps = autograd.grad(diff, leaves, us, create_graph=True, allow_unused=True)
        except RuntimeError as e:
            raise RuntimeError(f"ember: forward AD through '{name}' failed: {e}") from e
        pairs = []
        for g, tan in zip(vjps, leaf_tangents, strict=True):
            if g is None:
                continue
            if not g.requires_grad:
                if bool((g != 0).any()):
                    raise RuntimeError(f"ember: forward AD through '{name}' needs the derivative of its backward "
                                       "(double backward), which ember does not implement for this op")
                continue
            pairs.append((g, tan if tan.dtype == g.dtype else tan.to(g.dtype)))
        jvps: Any = [None] * len(us)
        if pairs:
            keep = any(t.requires_grad for _, t in pairs)
            try:
                jvps = autograd.grad([g for g, _ in pairs], us, [t for _, t in pairs], create_graph=keep,
                                     allow_unused=True)
            except RuntimeError as e:
                raise RuntimeError(f"ember: forward AD through '{name}' failed: {e}") from e
    finally:
        _C._set_grad_enabled(prev)
        random.set_rng_state(after)
    by_output = {id(o): (j if j is not None else _C.zeros_like(o)) for o, j in zip(diff, jvps, strict=True)}
    return [by_output.get(id(o)) for o in outs]


# ----------------------------------------------------------------------------- custom Functions

def _function_inputs(args: tuple[Any, ...]) -> dict[int, Any] | None:
    """The tangents of a custom Function's inputs when forward AD applies to the call, else None
    (the hook ``Function.apply`` calls; cheap when no level is open)."""
    if _current_level < 0 or _state.busy or not _state.enabled:
        return None
    tangents = {id(a): tan for a in args if isinstance(a, _TENSOR) and _is_diff(a)
                and (tan := _lookup(a)) is not None}
    return tangents or None


@contextlib.contextmanager
def _suspended() -> Iterator[None]:
    """No tangent propagation inside (a custom Function's forward and jvp)."""
    _state.busy += 1
    try:
        yield
    finally:
        _state.busy -= 1


def _function_jvp(cls: Any, ctx: Any, args: tuple[Any, ...], outputs: tuple[Any, ...],
                  tangents: dict[int, Any]) -> None:
    """Runs ``cls.jvp`` (PyTorch's rules: zeros for tensor inputs without tangent, None for the
    others; ``ctx.saved_tensors`` holds what forward passed to ``save_for_forward``) and attaches
    its results to ``outputs``."""
    grads = tuple((tangents.get(id(a)) if id(a) in tangents else _C.zeros_like(a))
                  if isinstance(a, _TENSOR) else None for a in args)
    saved = getattr(ctx, "saved_for_forward", None)
    prev = getattr(ctx, "_saved", None)
    if saved is not None:
        ctx._saved = [(t, t._version if t is not None else 0, None) for t in saved]
    try:
        with _suspended():
            result = cls.jvp(ctx, *grads)
    finally:
        if saved is not None:
            ctx._saved = prev
    result = result if isinstance(result, tuple) else (result,)
    if len(result) != len(outputs):
        raise RuntimeError("Function's jvp returned an invalid number of forward gradients (expected "
                           f"{len(outputs)} but got {len(result)})")
    dirty = tuple(getattr(ctx, "dirty_tensors", ()))
    non_diff = tuple(getattr(ctx, "non_differentiable", ()))
    for o, tan in zip(outputs, result, strict=True):
        if not isinstance(o, _TENSOR) or tan is None or not _is_diff(o) or any(o is n for n in non_diff):
            continue
        if tuple(tan.shape) != tuple(o.shape):
            raise _size_error(o, tan)
        if any(o is d for d in dirty) and id(o) in tangents:
            if tan is not tangents[id(o)]:
                raise RuntimeError("An inplace custom Function is not modifying the forward mode gradients "
                                   "inplace. If the forward is modifying an input inplace, then the jvp function "
                                   "must modify the corresponding gradient inplace.")
            continue
        _attach(o, tan)
