"""``assert_close``: PyTorch's comparison rules, tolerances and failure messages.

Inputs are walked as PyTorch does: mappings by key, sequences by index (strings excluded),
then leaves compared as None, booleans, Python numbers, or tensors (NumPy arrays count as
tensors when both sides are arrays).
"""

from __future__ import annotations

import collections.abc as cabc
import numbers
from collections.abc import Callable
from typing import Any

import ember
from ember._lib import _C

# Default (rtol, atol) per dtype; exact comparison for everything not listed (integers, bool).
_TOLERANCES = {
    _C.float16: (1e-3, 1e-5),
    _C.bfloat16: (1.6e-2, 1e-5),
    _C.float32: (1.3e-6, 1e-5),
    _C.float64: (1e-7, 1e-7),
    _C.complex32: (1e-3, 1e-5),
    _C.complex64: (1.3e-6, 1e-5),
    _C.complex128: (1e-7, 1e-7),
}


class _Mismatch(Exception):
    """A failed comparison: the exception type PyTorch raises and its message."""

    def __init__(self, kind: type, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def _fail(message: str) -> _Mismatch:
    return _Mismatch(AssertionError, message)


def _tolerances(*dtypes: Any, rtol: float | None, atol: float | None) -> tuple[float, float]:
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise _Mismatch(ValueError, f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                                    f"{missing}.")
    if rtol is not None:
        return rtol, atol  # type: ignore[return-value]
    pairs = [_TOLERANCES.get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _diff_line(kind: str, diff: Any, index: Any, tol: float, exact: bool) -> str:
    line = (f"{kind.title()} difference: {diff}" if index is None
            else f"Greatest {kind} difference: {diff} at index {index}")
    return line if exact else f"{line} (up to {tol} allowed)"


def _mismatch_message(what: str, extra: str, abs_diff: Any, abs_idx: Any, rel_diff: Any, rel_idx: Any,
                      rtol: float, atol: float) -> str:
    exact = rtol == 0 and atol == 0
    lines = [f"{what} are not {'equal' if exact else 'close'}!", "", extra,
             _diff_line("absolute", abs_diff, abs_idx, atol, exact),
             _diff_line("relative", rel_diff, rel_idx, rtol, exact)]
    return "\n".join(lines)


def _scalar_message(actual: Any, expected: Any, rtol: float, atol: float) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, rel_diff, None,
                             rtol, atol)


def _is_close_number(a: Any, e: Any, rtol: float, atol: float, equal_nan: bool) -> bool:
    if a == e:
        return True
    if isinstance(a, complex) or isinstance(e, complex):
        if equal_nan and (a != a) and (e != e):
            return True
        return abs(a - e) <= atol + rtol * abs(e)
    if a != a or e != e:
        return equal_nan and a != a and e != e
    if abs(a) == float("inf") or abs(e) == float("inf"):
        return False
    return abs(a - e) <= atol + rtol * abs(e)


def _compare_numbers(actual: Any, expected: Any, opts: dict) -> None:
    if opts["check_dtype"] and type(actual) is not type(expected):
        raise _fail(f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    dtypes = [{int: _C.int64, float: _C.float64, complex: _C.float64}[_number_kind(x)] for x in (actual, expected)]
    rtol, atol = _tolerances(*dtypes, rtol=opts["rtol"], atol=opts["atol"])
    if not _is_close_number(actual, expected, rtol, atol, opts["equal_nan"]):
        raise _fail(_scalar_message(actual, expected, rtol, atol))


def _number_kind(x: Any) -> type:
    if isinstance(x, numbers.Integral):
        return int
    if isinstance(x, numbers.Real):
        return float
    return complex


def _unravel(flat: int, shape: tuple) -> tuple:
    index = []
    for size in reversed(shape):
        index.append(flat % size)
        flat //= size
    return tuple(reversed(index))


def _check_attributes(actual: Any, expected: Any, opts: dict) -> None:
    def differ(attr: str, a: Any, e: Any) -> _Mismatch:
        return _fail(f"The values for attribute '{attr}' do not match: {a} != {e}.")

    if actual.shape != expected.shape:
        raise differ("shape", actual.shape, expected.shape)
    if opts["check_device"] and actual.device != expected.device:
        raise differ("device", actual.device, expected.device)
    if opts["check_dtype"] and actual.dtype != expected.dtype:
        raise differ("dtype", actual.dtype, expected.dtype)
    if opts["check_layout"] and actual.layout != expected.layout:
        raise differ("layout", actual.layout, expected.layout)
    if opts["check_stride"] and actual.stride() != expected.stride():
        raise differ("stride()", actual.stride(), expected.stride())


def _compare_tensors(actual: Any, expected: Any, opts: dict) -> None:
    _check_attributes(actual, expected, opts)
    actual, expected = actual.detach(), expected.detach()
    rtol, atol = _tolerances(actual.dtype, expected.dtype, rtol=opts["rtol"], atol=opts["atol"])
    if actual.dtype != expected.dtype:
        common = ember.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    if actual.numel() == 0:
        return
    matches = ember.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=opts["equal_nan"])
    if bool(matches.all()):
        return
    if actual.dim() == 0:
        raise _fail(_scalar_message(actual.item(), expected.item(), rtol, atol))
    a, e, m = actual.flatten(), expected.flatten(), matches.flatten()
    if not (a.is_floating_point() or a.is_complex()):  # integer differences must not wrap
        a, e = a.to(_C.int64), e.to(_C.int64)
    abs_diff = (a - e).abs()
    abs_diff[m] = 0
    rel_diff = abs_diff / e.abs()
    rel_diff[m] = 0
    max_abs, abs_at = ember.max(abs_diff, 0)
    max_rel, rel_at = ember.max(rel_diff, 0)
    n, bad = m.numel(), m.numel() - int(m.sum())
    extra = f"Mismatched elements: {bad} / {n} ({bad / n:.1%})"
    shape = tuple(actual.shape)
    raise _fail(_mismatch_message("Tensor-likes", extra, max_abs.item(), _unravel(int(abs_at), shape),
                                  max_rel.item(), _unravel(int(rel_at), shape), rtol, atol))


def _is_number(x: Any) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, bool)


def _is_numpy_bool(x: Any) -> bool:
    return type(x).__module__ == "numpy" and type(x).__name__ == "bool"


def _compare_leaves(actual: Any, expected: Any, opts: dict) -> None:
    if actual is None or expected is None:
        if not (actual is None and expected is None):
            raise _fail(f"None mismatch: {actual} is not {expected}")
        return
    if isinstance(actual, (bool,)) or _is_numpy_bool(actual):
        if isinstance(expected, bool) or _is_numpy_bool(expected):
            if bool(actual) != bool(expected):
                raise _fail(f"Booleans mismatch: {actual} is not {expected}")
            return
    elif _is_number(actual) and _is_number(expected):
        # NumPy scalars compare as the Python numbers they hold
        _compare_numbers(*(x.item() if type(x).__module__ == "numpy" else x for x in (actual, expected)), opts)
        return
    tensor_like = _tensor_pair(actual, expected, opts["allow_subclasses"])
    if tensor_like is None:
        raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type {_type_repr(actual)} and "
                                   f"{_type_repr(expected)}.")
    _compare_tensors(*tensor_like, opts)


def _type_repr(x: Any) -> str:
    """The class as PyTorch names it (ember.Tensor is ``torch.Tensor`` in messages, like its dtypes)."""
    return "<class 'torch.Tensor'>" if type(x) is ember.Tensor else repr(type(x))


def _tensor_pair(actual: Any, expected: Any, allow_subclasses: bool) -> tuple | None:
    def numpy_array(x: Any) -> bool:
        return type(x).__module__ == "numpy" and type(x).__name__ == "ndarray"

    if numpy_array(actual) and numpy_array(expected):
        return ember.as_tensor(actual), ember.as_tensor(expected)
    if not (isinstance(actual, ember.Tensor) and isinstance(expected, ember.Tensor)):
        return None
    if not allow_subclasses and type(actual) is not type(expected):
        return None
    return actual, expected


def _is_sequence(x: Any) -> bool:
    return isinstance(x, cabc.Sequence) and not isinstance(x, str)


def _walk(actual: Any, expected: Any, opts: dict, path: tuple) -> None:
    """Compare pairs depth-first; a failure carries the path of the item it occurred for."""
    try:
        if _is_sequence(actual) and _is_sequence(expected) and not isinstance(actual, ember.Tensor):
            if len(actual) != len(expected):
                raise _fail(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        elif isinstance(actual, cabc.Mapping) and isinstance(expected, cabc.Mapping):
            if set(actual) != set(expected):
                missing = sorted(set(expected) - set(actual), key=repr)
                extra = sorted(set(actual) - set(expected), key=repr)
                raise _fail(f"The keys of the mappings do not match:\nMissing keys in the actual mapping: {missing}"
                            f"\nAdditional keys in the actual mapping: {extra}")
        else:
            _compare_leaves(actual, expected, opts)
            return
    except _Mismatch as m:
        m.path = path  # type: ignore[attr-defined]
        raise
    if isinstance(actual, cabc.Mapping):
        for key in actual:
            _walk(actual[key], expected[key], opts, (*path, key))
    else:
        for i, (a, e) in enumerate(zip(actual, expected)):
            _walk(a, e, opts, (*path, i))


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close (as ``torch.testing.assert_close``)."""
    opts = {"allow_subclasses": allow_subclasses, "rtol": rtol, "atol": atol, "equal_nan": equal_nan,
            "check_device": check_device, "check_dtype": check_dtype, "check_layout": check_layout,
            "check_stride": check_stride}
    try:
        _walk(actual, expected, opts, ())
    except _Mismatch as m:
        message = m.message
        if m.kind is AssertionError:
            if callable(msg):
                message = msg(message)
            elif msg is not None:
                message = msg
            elif getattr(m, "path", ()):
                message += "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in m.path)
        raise m.kind(message) from None
