"""PyTorch 2.13's own known wrong answers: the one list the fuzz properties consult.

PyTorch is the oracle everywhere else.  Where its answer is wrong -- or it kills the process --
an entry here says when it applies, computes the right answer another way (without running
the faulty call), and why that answer is right.  The properties then check ember's result
against ``correct(...)`` instead of PyTorch's: ember is held to the right value, not skipped.

``applies(name, args, kwargs)`` sees the PyTorch twins of the call's inputs (built, never
passed to the faulty op).  Add an entry only with a reproduction of PyTorch's answer in
``torch_says`` and the reason the corrected value is right in ``why``.

Gradients are not fuzzed; the one CPU-dependent gradient oracle known (det at a singular
matrix: the cofactor matrix on Intel, zeros on AMD Zen 4) is test_grad_parity.EXACT_GRADS.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

INT_MIN_BY_MINUS_ONE_CRASHES = (torch.int32, torch.int64)  # x86 idiv traps; narrower ints promote


@dataclass(frozen=True)
class KnownWrong:
    id: str
    torch_says: str
    why: str
    applies: Callable[[str, tuple, dict], bool]
    correct: Callable[[str, tuple, dict], Any]
    # a TensorIterator op: its out= and in-place forms write correct's value as aten's iterator does
    iterator: bool = False


_LEGACY = {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half", torch.bfloat16: "BFloat16",
           torch.int64: "Long", torch.int32: "Int", torch.int16: "Short", torch.int8: "Char", torch.uint8: "Byte",
           torch.bool: "Bool", torch.complex64: "ComplexFloat", torch.complex128: "ComplexDouble"}


def corrected(entry: KnownWrong, variant: str | None, name: str, args: tuple, kwargs: dict) -> Any:
    """``entry.correct``'s answer for a call of ``variant`` ("out", "inplace", or None for the others).

    For an iterator entry the written tensor (out=, or self of an in-place call) meets aten's
    iterator checks: its internal overlap before anything runs, then the result's cast into it
    (and, in place, its shape); it then holds the corrected value and is the result."""
    written = {"inplace": args[0] if args else None, "out": kwargs.get("out")}.get(variant or "")
    if not entry.iterator or not isinstance(written, torch.Tensor):
        return entry.correct(name, args, kwargs)
    if torch._debug_has_internal_overlap(written) == 1:
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")
    value = entry.correct(name, args, kwargs)
    if not torch.can_cast(value.dtype, written.dtype):
        raise RuntimeError(f"result type {_LEGACY[value.dtype]} can't be cast to the desired output type "
                           f"{_LEGACY[written.dtype]}")
    if variant == "inplace" and value.shape != written.shape:
        raise RuntimeError(f"output with shape {list(written.shape)} doesn't match the broadcast shape "
                           f"{list(value.shape)}")
    if variant == "out" and value.shape != written.shape:
        written.resize_(value.shape)
    return written.copy_(value)


def _arg(args: tuple, kwargs: dict, i: int, name: str, default: Any = None) -> Any:
    return args[i] if len(args) > i else kwargs.get(name, default)


# --- gelu(+inf) ------------------------------------------------------------------------------

def _gelu_inf_applies(name: str, args: tuple, kwargs: dict) -> bool:
    x = _arg(args, kwargs, 0, "input")
    approximate = _arg(args, kwargs, 1, "approximate", "none")
    return (name == "gelu" and approximate == "none" and isinstance(x, torch.Tensor)
            and x.dtype in (torch.float32, torch.bfloat16, torch.float16)
            and bool(torch.isposinf(x).any()))


def _gelu_inf_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x = _arg(args, kwargs, 0, "input")
    # float64 takes PyTorch's scalar-exact path; +inf -> inf there, as erf(inf) = 1.
    y = torch.nn.functional.gelu(x.double()).to(x.dtype)
    return torch.where(torch.isposinf(x), x, y)


# --- airy_ai's float32 kernel at large negative x ----------------------------------------------

def _airy_applies(name: str, args: tuple, kwargs: dict) -> bool:
    x = _arg(args, kwargs, 0, "input")
    # float32 inputs, and integers (computed in float32)
    return (name in ("airy_ai", "special_airy_ai") and isinstance(x, torch.Tensor)
            and x.dtype not in (torch.float64, torch.float16, torch.bfloat16) and not x.is_complex()
            and x.dtype != torch.bool and bool((x < -100).any()))


def _airy_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x = _arg(args, kwargs, 0, "input")
    return torch.special.airy_ai(x.double()).to(torch.float32)  # corrected() casts it into an out=


# --- the orthogonal polynomials at a NaN x ----------------------------------------------------

_POLYNOMIALS = {f"{p}{k}" for p in ("chebyshev_polynomial_", "shifted_chebyshev_polynomial_") for k in "tuvw"} | {
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"}


def _poly_nan_mask(args: tuple, kwargs: dict) -> Any:
    x, n = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "n")
    if isinstance(x, float):  # a Python NaN: a wrapped number, as in both libraries
        x = torch.tensor(x, dtype=torch.float64)
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        return None
    n = torch.as_tensor(n, dtype=torch.float64)
    # a degree of 1 or more in int64's range: a real polynomial of x (a negative, NaN or
    # out-of-range degree is 0 in both libraries)
    try:
        return torch.isnan(x) & (n >= 1) & (n < 2.0**63)
    except RuntimeError:  # shapes that do not broadcast: torch's own error stands
        return None


def _poly_nan_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in _POLYNOMIALS:
        return False
    m = _poly_nan_mask(args, kwargs)
    return m is not None and bool(m.any())


def _poly_nan_correct(name: str, args: tuple, kwargs: dict) -> Any:
    r = getattr(torch.special, name)(*args, **kwargs)
    return torch.where(_poly_nan_mask(args, kwargs), torch.tensor(float("nan"), dtype=r.dtype), r)


# --- arange's int64 size arithmetic overflows ------------------------------------------------

_INT64 = (-2**63, 2**63 - 1)


def _arange_parts(args: tuple, kwargs: dict) -> tuple | None:
    """(start, end, step as aten's int64 accumulator reads them, the result dtype) of an integer
    arange, or None."""
    nums = [a for a in args if isinstance(a, (int, float)) and not isinstance(a, bool)]
    if len(nums) != len(args) or not 2 <= len(nums) <= 3:
        return None
    start, end, step = (nums + [1])[:3]
    out, dtype = kwargs.get("out"), kwargs.get("dtype")
    if isinstance(out, torch.Tensor):
        dt = out.dtype
    elif dtype is not None:
        dt = dtype
    else:
        dt = torch.int64 if all(isinstance(v, int) for v in (start, end, step)) else torch.get_default_dtype()
    if dt != torch.int64:  # aten's int64 kernel alone sizes in int64 (int32 and narrower: in double)
        return None
    if any(isinstance(v, float) and not math.isfinite(v) for v in (start, end, step)):
        return None
    xs = [int(v) for v in (start, end, step)]  # Scalar.to<int64_t>: truncation
    if any(not _INT64[0] <= v <= _INT64[1] for v in xs) or xs[2] == 0:
        return None
    return (*xs, dt)


def _arange_overflow_applies(name: str, args: tuple, kwargs: dict) -> bool:
    """The calls arange-int64-span-wraps leaves: out=, another integer dtype, a float bound or step."""
    parts = _arange_parts(args, kwargs) if name == "arange" else None
    if parts is None or _arange_span_applies(name, args, kwargs):
        return False
    start, end, step, _ = parts
    if (step > 0 and end < start) or (step < 0 and end > start):
        return False  # the bounds' sign check comes first
    sgn = 1 if step > 0 else -1
    return not _INT64[0] <= end - start + step - sgn <= _INT64[1]


def _arange_overflow_correct(name: str, args: tuple, kwargs: dict) -> Any:
    start, end, step, dt = _arange_parts(args, kwargs)
    sgn = 1 if step > 0 else -1
    a = end - start + step - sgn
    n = abs(a) // abs(step)  # aten's trunc division, here without the wrap
    if n * 8 > 2**31:  # past the fuzz worker's address space, as arange-int64-span-wraps says
        raise RuntimeError(f"arange of {n} elements: more memory than the fuzz worker has")
    # start + step * i in int64 (wrapping as aten's accumulator does), then cast to the result type
    value = (torch.arange(n, dtype=torch.int64) * step + start).to(dt)
    out = kwargs.get("out")
    if isinstance(out, torch.Tensor):
        out.resize_(value.shape)
        return out.copy_(value)
    return value


# --- the shifted Chebyshev polynomials at a tiny x and a huge degree ----------------------------

_SHIFTED = {f"shifted_chebyshev_polynomial_{k}" for k in "tuvw"}


def _shifted_slow_mask(args: tuple, kwargs: dict) -> Any:
    """Where x is not 0 but 2x - 1 rounds to -1 in x's type: PyTorch's recurrence runs n times."""
    x = _arg(args, kwargs, 0, "input")
    if isinstance(x, float):
        x = torch.tensor(x, dtype=torch.float64)
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        return None
    ct = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xc = x.to(ct)
    return (xc != 0) & (xc + xc - 1 == -1)


def _shifted_slow_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in _SHIFTED:
        return False
    n = torch.as_tensor(_arg(args, kwargs, 1, "n"))
    m = _shifted_slow_mask(args, kwargs)
    return m is not None and bool(m.any()) and bool(((n > 2.0**20) & (n < 2.0**63)).any())


def _shifted_slow_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x = _arg(args, kwargs, 0, "input")
    wrapped = isinstance(x, float)
    xt = torch.tensor(x, dtype=torch.float64) if wrapped else x
    x0 = torch.where(_shifted_slow_mask(args, kwargs), torch.zeros((), dtype=xt.dtype), xt)
    x0 = float(x0) if wrapped else x0
    args2 = (x0, *args[1:]) if args else args
    kwargs2 = {**kwargs, "input": x0} if not args else kwargs
    return _poly_nan_correct(name, args2, kwargs2)  # a NaN x stays NaN (special-polynomial-nan-x)


# --- Laguerre / Legendre at a huge degree ----------------------------------------------------

def _poly_huge_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in ("laguerre_polynomial_l", "legendre_polynomial_p"):
        return False
    x, n = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "n")
    try:
        if torch.result_type(x, n) in (torch.float16, torch.bfloat16):
            return False  # NotImplementedError first, in both libraries
        n = torch.as_tensor(n).to(torch.float64)
        torch.broadcast_shapes(torch.as_tensor(x).shape, n.shape)
    except (RuntimeError, TypeError):  # torch's own error stands
        return False
    return bool(((n > 2.0**20) & (n < 2.0**63)).any())


def _poly_huge_correct(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError(f"{name}: the degree n is too large")


# --- ldl_solve's pivots: a 2x2 block cut off, or an integer dtype other than int32 ---------------

_INT_DTYPES = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)


def _ldl_parts(args: tuple, kwargs: dict) -> tuple | None:
    LD, piv = _arg(args, kwargs, 0, "LD"), _arg(args, kwargs, 1, "pivots")
    if not (isinstance(LD, torch.Tensor) and isinstance(piv, torch.Tensor) and piv.dim() >= 1 and LD.dim() >= 2):
        return None
    if piv.dtype not in _INT_DTYPES or tuple(piv.shape) != tuple(LD.shape[:-1]) or piv.numel() == 0:
        return None  # PyTorch's own checks first
    return LD, piv


def _ldl_cut_block(piv: Any) -> bool:
    n = piv.shape[-1]
    for row in piv.reshape(-1, n).tolist():
        if any(v == 0 or abs(v) > n for v in row):
            return False  # PyTorch's own errors
        k = 0
        while k < n:
            if row[k] < 0:
                if k + 1 >= n or row[k + 1] >= 0:
                    return True
                k += 1
            k += 1
    return False


def _ldl_pivots_applies(name: str, args: tuple, kwargs: dict) -> bool:
    parts = _ldl_parts(args, kwargs) if name in ("ldl_solve", "linalg_ldl_solve") else None
    return parts is not None and (parts[1].dtype != torch.int32 or _ldl_cut_block(parts[1]))


def _ldl_pivots_correct(name: str, args: tuple, kwargs: dict) -> Any:
    LD, piv = _ldl_parts(args, kwargs)
    if _ldl_cut_block(piv):
        raise RuntimeError("ldl_solve: a 2x2 pivot block the pivots do not complete")
    B = _arg(args, kwargs, 2, "B")
    return torch.linalg.ldl_solve(LD, piv.to(torch.int32), B, **{k: v for k, v in kwargs.items()
                                                                   if k not in ("LD", "pivots", "B")})


# --- trunc division of the minimum int by -1 -------------------------------------------------

def _int_min_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name != "div" or _arg(args, kwargs, 2, "rounding_mode") != "trunc":
        return False
    a, b = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "other")
    if not isinstance(a, torch.Tensor) or a.dtype not in INT_MIN_BY_MINUS_ONE_CRASHES:
        return False
    if isinstance(b, torch.Tensor):
        if b.dtype.is_floating_point or b.dtype == torch.bool or b.numel() == 0:
            return False
        try:
            a_, b_ = torch.broadcast_tensors(a, b)
        except RuntimeError:
            return False
        return bool(((a_ == torch.iinfo(a.dtype).min) & (b_ == -1)).any())
    return (isinstance(b, int) and not isinstance(b, bool) and b == -1
            and bool((a == torch.iinfo(a.dtype).min).any()))


def _int_min_correct(name: str, args: tuple, kwargs: dict) -> Any:
    a, b = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "other")
    # Floor division does not trap and gives INT_MIN / -1 = 2**63 wrapped to INT_MIN (the
    # two's-complement result neg and mul by -1 give too); trunc differs from floor by one
    # where the quotient is negative and inexact.
    bt = b if isinstance(b, torch.Tensor) else torch.tensor(b, dtype=a.dtype)
    q = torch.div(a, bt, rounding_mode="floor")
    inexact = torch.remainder(a, bt) != 0
    negative = (a < 0) ^ (bt < 0)
    return torch.where(negative & inexact, q + 1, q)


# --- median / nanmedian over an expanded (stride-0) dim --------------------------------------

def _median_applies(name: str, args: tuple, kwargs: dict) -> bool:
    x = _arg(args, kwargs, 0, "input")
    return (name in ("median", "nanmedian") and isinstance(x, torch.Tensor) and x.numel() > 1
            and _arg(args, kwargs, 1, "dim") is not None
            and any(s == 0 and n > 1 for s, n in zip(x.stride(), x.shape, strict=True)))


def _median_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x = _arg(args, kwargs, 0, "input")
    rest = {k: v for k, v in kwargs.items() if k != "input"}
    return getattr(torch, name)(x.contiguous(), *args[1:], **rest)


# --- nanmedian(dim) of an all-NaN slice ------------------------------------------------------

def _nanmedian_nan_parts(args: tuple, kwargs: dict) -> tuple:
    x = _arg(args, kwargs, 0, "input")
    dim = _arg(args, kwargs, 1, "dim")
    keepdim = _arg(args, kwargs, 2, "keepdim", False)
    return x, dim, keepdim


def _nanmedian_nan_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name != "nanmedian":
        return False
    x, dim, keepdim = _nanmedian_nan_parts(args, kwargs)
    if not (isinstance(x, torch.Tensor) and isinstance(dim, int) and not isinstance(dim, bool)
            and isinstance(keepdim, bool) and x.dtype.is_floating_point and x.dim() > 0):
        return False
    nan = torch.isnan(x)
    return x.shape[dim] > 1 and bool(nan.all(dim).any())


def _nanmedian_nan_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x, dim, keepdim = _nanmedian_nan_parts(args, kwargs)
    out = kwargs.get("out")
    # with out=, PyTorch's own call checks and resizes the out tensors; its indices are then fixed
    res = torch.nanmedian(x.contiguous(), dim, keepdim, **({} if out is None else {"out": out}))
    all_nan = torch.isnan(x).all(dim, keepdim=keepdim)
    indices = torch.where(all_nan, torch.zeros_like(res.indices), res.indices)
    if out is not None:
        return torch.return_types.nanmedian((res.values, res.indices.copy_(indices)))
    return torch.return_types.nanmedian((res.values, indices))


# --- polygamma(n >= 2, +-inf) ---------------------------------------------------------------

def _polygamma_parts(args: tuple, kwargs: dict) -> tuple:
    """(n, x) for torch.polygamma(n, x) and x.polygamma(n) alike."""
    n = next(a for a in list(args) + [kwargs.get("n")] if isinstance(a, int))
    x = next(a for a in list(args) + [kwargs.get("input")] if isinstance(a, torch.Tensor))
    return n, x


def _polygamma_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name != "polygamma":
        return False
    n, x = _polygamma_parts(args, kwargs)
    out = kwargs.get("out")
    return (n >= 2 and x.dtype.is_floating_point and bool(torch.isinf(x).any())
            and (out is None or out.dtype.is_floating_point))


def _polygamma_correct(name: str, args: tuple, kwargs: dict) -> Any:
    n, x = _polygamma_parts(args, kwargs)
    y = torch.polygamma(n, torch.where(torch.isinf(x), 1.0, x))
    zero = torch.full_like(y, -0.0 if n % 2 == 0 else 0.0)
    return torch.where(torch.isposinf(x), zero, torch.where(torch.isneginf(x), math.nan, y))


# --- polygamma(1, a negative integer) ---------------------------------------------------------

def _negative_integer(x: torch.Tensor) -> torch.Tensor:
    return torch.isfinite(x) & (x < 0) & (x == torch.floor(x))


def _trigamma_pole_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name != "polygamma":
        return False
    n, x = _polygamma_parts(args, kwargs)
    out = kwargs.get("out")
    # integer inputs too: they are computed in the default float dtype, with the same formula
    return (n == 1 and x.dtype != torch.bool and not x.is_complex()
            and (out is None or out.dtype.is_floating_point) and bool(_negative_integer(x).any()))


def _trigamma_pole_correct(name: str, args: tuple, kwargs: dict) -> Any:
    _, x = _polygamma_parts(args, kwargs)
    return torch.where(_negative_integer(x), math.inf, torch.polygamma(1, x))


# --- hardtanh_backward at a NaN input ----------------------------------------------------------

def _hardtanh_nan_bound(args: tuple, kwargs: dict) -> bool:
    bounds = (_arg(args, kwargs, 2, "min_val"), _arg(args, kwargs, 3, "max_val"))
    return any(isinstance(b, float) and math.isnan(b) for b in bounds)


def _hardtanh_bw_applies(name: str, args: tuple, kwargs: dict) -> bool:
    g, x = _arg(args, kwargs, 0, "grad_output"), _arg(args, kwargs, 1, "self")
    # an integer input meets the NaN bound in float too (the result is the gradient's float type)
    return (name == "hardtanh_backward" and isinstance(g, torch.Tensor) and isinstance(x, torch.Tensor)
            and (g.dtype.is_floating_point or x.dtype.is_floating_point)
            and not (x.dtype.is_complex or g.dtype.is_complex) and torch.bool not in (x.dtype, g.dtype)
            and (_hardtanh_nan_bound(args, kwargs) or (x.dtype.is_floating_point and bool(torch.isnan(x).any()))))


def _hardtanh_bw_correct(name: str, args: tuple, kwargs: dict) -> Any:
    g, x = _arg(args, kwargs, 0, "grad_output"), _arg(args, kwargs, 1, "self")
    y = torch.ops.aten.hardtanh_backward(*args, **kwargs)
    if _hardtanh_nan_bound(args, kwargs):
        return torch.zeros_like(y)
    return torch.where(torch.isnan(x), torch.zeros_like(y), y)


# --- hardshrink_backward / softshrink_backward at a NaN input or lambd ------------------------

def _shrink_bw_applies(name: str, args: tuple, kwargs: dict) -> bool:
    g = _arg(args, kwargs, 0, "grad_out" if name == "hardshrink_backward" else "grad_output")
    x, lambd = _arg(args, kwargs, 1, "self"), _arg(args, kwargs, 2, "lambd")
    return (name in ("hardshrink_backward", "softshrink_backward") and isinstance(g, torch.Tensor)
            and isinstance(x, torch.Tensor) and x.dtype.is_floating_point and g.dtype.is_floating_point
            and ((isinstance(lambd, float) and math.isnan(lambd)) or bool(torch.isnan(x).any())))


def _shrink_bw_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x, lambd = _arg(args, kwargs, 1, "self"), _arg(args, kwargs, 2, "lambd")
    y = getattr(torch.ops.aten, name)(*args, **kwargs)
    if isinstance(lambd, float) and math.isnan(lambd):
        return torch.zeros_like(y)
    return torch.where(torch.isnan(x), torch.zeros_like(y), y)


# --- smooth_l1_loss_backward / huber_loss_backward: scalar tail vs vector loop ---------------

_ZONE_BACKWARDS = {"smooth_l1_loss_backward": "beta", "huber_loss_backward": "delta"}


def _zone_bw_parts(name: str, args: tuple, kwargs: dict) -> tuple | None:
    """(grad_output, self, target, reduction, param, common dtype) of a call the kernel runs."""
    if name not in _ZONE_BACKWARDS:
        return None
    g, x, y = (_arg(args, kwargs, i, n) for i, n in enumerate(("grad_output", "self", "target")))
    red, p = _arg(args, kwargs, 3, "reduction"), _arg(args, kwargs, 4, _ZONE_BACKWARDS[name])
    if not all(isinstance(t, torch.Tensor) for t in (g, x, y)) or not isinstance(p, (int, float)):
        return None
    if type(red) is not int or not -2**63 <= red < 2**63:  # aten's schema takes an int64 reduction
        return None
    torch.broadcast_shapes(g.shape, x.shape, y.shape)
    if name == "huber_loss_backward":
        if not (x.dtype == y.dtype == g.dtype and x.dtype.is_floating_point):
            return None
        return g, x, y, red, p, x.dtype
    rt = (x.to("meta") + y.to("meta") + g.to("meta")).dtype  # the three operands' common dtype
    if rt == torch.bool or rt.is_complex or not torch.can_cast(rt, x.dtype):
        return None
    return g, x, y, red, p, rt


def _held_param(name: str, p: float, dtype: torch.dtype) -> float:
    """beta / delta as the vector loop holds them: huber's in a half type, others in float32 below
    float64 (the scalar tail compares and divides by the double)."""
    if dtype == torch.float64 or not dtype.is_floating_point:
        return p
    held = dtype if name == "huber_loss_backward" and dtype in (torch.float16, torch.bfloat16) else torch.float32
    return float(torch.tensor(p, dtype=torch.float64).to(held))


def _zone_bw_applies(name: str, args: tuple, kwargs: dict) -> bool:
    parts = _zone_bw_parts(name, args, kwargs)
    if parts is None:
        return False
    p, rt = parts[4], parts[5]
    held = _held_param(name, p, rt)
    # the held value overflows or underflows where the tail's double does not
    changes_class = math.isinf(held) != math.isinf(p) or (held == 0) != (p == 0)
    return (p < 0 or not rt.is_floating_point or changes_class
            or (held != p and name == "huber_loss_backward" and rt in (torch.float16, torch.bfloat16)))


def _zone_bw_correct(name: str, args: tuple, kwargs: dict) -> Any:
    g, x, y, red, p, rt = _zone_bw_parts(name, args, kwargs)
    norm = (1.0 / x.numel() if x.numel() else math.inf) if red == 1 else 1.0
    p = _held_param(name, p, rt)
    if name == "huber_loss_backward" and rt in (torch.float16, torch.bfloat16):  # step by step in the type
        ph, nh = (torch.tensor(v, dtype=torch.float64).to(rt) for v in (p, norm))
        d = x - y
        slope = torch.where(d.abs() >= ph, torch.where(d > 0, ph, -ph), d)
        return (nh * slope * g).expand(torch.broadcast_shapes(g.shape, x.shape, y.shape))
    if rt.is_floating_point:  # the vector loop's slopes, in float64
        d = x.double() - y.double()
        sign = torch.where(d > 0, 1.0, -1.0)
        if name == "huber_loss_backward":
            slope = torch.where(d.abs() >= p, sign * p, d)
        else:
            slope = torch.where(d.abs() >= p, sign, d / p)
        return (norm * slope * g.double()).to(x.dtype).expand(torch.broadcast_shapes(g.shape, x.shape, y.shape))
    if math.isinf(norm):  # the mean of no elements: aten's checked conversion of 1 / 0
        raise RuntimeError(f"value cannot be converted to type {rt} without overflow")
    b = torch.tensor(p, dtype=torch.float64).to(rt)  # aten's scalar_t(beta), in integer arithmetic
    if int(b) == 0:
        raise RuntimeError("smooth_l1_loss_backward(): beta truncates to 0 and the slope would divide by zero")
    d = x.to(rt) - y.to(rt)
    one = torch.ones((), dtype=rt)
    slope = torch.where(d.abs() >= b, torch.where(d > 0, one, -one), torch.div(d, b, rounding_mode="trunc"))
    return (torch.tensor(norm, dtype=torch.float64).to(rt) * slope * g.to(rt)).to(x.dtype)


# --- floating remainder where a / b overflows ---------------------------------------------

def _remainder_parts(args: tuple, kwargs: dict, with_out: bool = False) -> tuple | None:
    a, b = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "other")
    if not any(isinstance(x, torch.Tensor) for x in (a, b)) or (kwargs.get("out") is not None and not with_out):
        return None
    rt = torch.result_type(a, b)
    if not rt.is_floating_point:
        return None
    ct = torch.float32 if rt in (torch.float16, torch.bfloat16) else rt  # aten's op-math type
    ta, tb = (torch.as_tensor(x, dtype=rt).to(ct) for x in (a, b))
    return ta, tb, rt


def _remainder_applies(name: str, args: tuple, kwargs: dict) -> bool:
    parts = _remainder_parts(args, kwargs, with_out=True) if name == "remainder" else None
    if parts is None:
        return False
    ta, tb, _ = parts
    finite = torch.isfinite(ta) & torch.isfinite(tb) & (tb != 0)
    return bool((torch.isinf(ta / tb) & finite).any())


def _fmod_applies(name: str, args: tuple, kwargs: dict) -> bool:
    parts = _remainder_parts(args, kwargs, with_out=True) if name == "fmod" else None
    if parts is None:
        return False
    ta, tb, _ = parts
    finite = torch.isfinite(ta) & torch.isfinite(tb) & (tb != 0)
    return bool((torch.isinf(ta / tb) & finite).any())


def _remainder_correct(name: str, args: tuple, kwargs: dict) -> Any:
    ta, tb, rt = _remainder_parts(args, kwargs, with_out=True)
    ta, tb = torch.broadcast_tensors(ta, tb)

    def fmod(x: float, y: float) -> float:  # torch.fmod has the same vector formula: Python's
        if math.isnan(x) or math.isnan(y) or math.isinf(x) or y == 0:
            return math.nan
        return math.fmod(x, y)

    m = torch.tensor([fmod(x, y) for x, y in zip(ta.double().flatten().tolist(),
                                                  tb.double().flatten().tolist(), strict=True)],
                     dtype=torch.float64).reshape(ta.shape).to(ta.dtype)  # exact: fmod is
    if name == "fmod":
        return m.to(rt)
    return torch.where((m != 0) & ((tb < 0) != (m < 0)), m + tb, m).to(rt)


# --- 2-d / 3-d pooling backward with a gradient of another batch size ----------------------

POOL_BACKWARD = {"avg_pool3d_backward": 5, "_adaptive_avg_pool3d_backward": 5,
                 "avg_pool2d_backward": 4, "_adaptive_avg_pool2d_backward": 4}  # batched rank


def _avg_pool3d_backward_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in POOL_BACKWARD or len(args) < 2:
        return False
    grad, x = args[0], args[1]
    nd = POOL_BACKWARD[name]  # an unbatched input's leading dim is its channels
    if not (isinstance(grad, torch.Tensor) and isinstance(x, torch.Tensor) and grad.dim() == x.dim()
            and x.dim() in (nd - 1, nd)):
        return False
    if "adaptive" in name and (not x.dtype.is_floating_point or grad.dtype != x.dtype):
        return False  # their dtype dispatch and the gradient's dtype check fail first, before any read (seed 8419)
    lead = x.dim() - (nd - 2)  # the dims before the pooled ones (the adaptive ops never check them)
    return grad.shape[0] != x.shape[0] or ("adaptive" in name and grad.shape[:lead] != x.shape[:lead])


def _avg_pool3d_backward_correct(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError(f"{name}: grad_output has batch size {args[0].shape[0]}, "
                       f"the input {args[1].shape[0]}")


# --- std_mean / var_mean of a slice holding an infinity -------------------------------------

def _std_mean_applies(name: str, args: tuple, kwargs: dict) -> bool:
    x = _arg(args, kwargs, 0, "input")
    return (name in ("std_mean", "var_mean") and isinstance(x, torch.Tensor)
            and x.dtype.is_floating_point and bool(torch.isinf(x).any()))


def _std_mean_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x = _arg(args, kwargs, 0, "input")
    spread = getattr(torch, name.split("_")[0])(*args, **kwargs)  # torch.std / torch.var
    if len(args) > 1 and isinstance(args[1], bool):  # (input, unbiased): every dim
        dim, keepdim = None, False
    else:
        dim = _arg(args, kwargs, 1, "dim")
        keepdim = _arg(args, kwargs, 3, "keepdim", False)
    return spread, torch.mean(x, dim=dim, keepdim=keepdim)


# --- convolution with inf / NaN weights: oneDNN's answer differs from aten's native kernels ---

CONV_DIMS = {"conv1d": 1, "conv2d": 2, "conv3d": 3, "conv_transpose1d": 1, "conv_transpose2d": 2,
             "conv_transpose3d": 3, "convolution": 0}


def _conv_parts(name: str, args: tuple, kwargs: dict) -> tuple:
    """(input, weight, stride, padding, dilation, transposed) of any convolution's call."""
    x, w = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "weight")
    if name == "convolution":
        return (x, w, _arg(args, kwargs, 3, "stride"), _arg(args, kwargs, 4, "padding"),
                _arg(args, kwargs, 5, "dilation"), bool(_arg(args, kwargs, 6, "transposed")))
    if name.startswith("conv_transpose"):
        return (x, w, _arg(args, kwargs, 3, "stride", 1), _arg(args, kwargs, 4, "padding", 0),
                _arg(args, kwargs, 7, "dilation", 1), True)
    return (x, w, _arg(args, kwargs, 3, "stride", 1), _arg(args, kwargs, 4, "padding", 0),
            _arg(args, kwargs, 5, "dilation", 1), False)


def _conv_nonfinite_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in CONV_DIMS:
        return False
    x, w, _, padding, _, transposed = _conv_parts(name, args, kwargs)
    padded = transposed or (padding != "valid" and any(
        p != 0 for p in (padding if isinstance(padding, (tuple, list)) else [padding])))
    bias = _arg(args, kwargs, 2, "bias")
    return (isinstance(x, torch.Tensor) and isinstance(w, torch.Tensor) and x.dtype.is_floating_point
            and w.dtype == x.dtype and x.dim() in (w.dim() - 1, w.dim()) and padded
            and (bias is None or bias.dtype == x.dtype)  # oneDNN alone rejects a bias of another dtype
            and not bool(torch.isfinite(w).all()))


def _conv_nonfinite_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x = _arg(args, kwargs, 0, "input")
    half = x.dtype in (torch.float16, torch.bfloat16)

    def up(a: Any) -> Any:  # aten's half-type kernels add in the half type: inf + ... + -inf by partial sums
        return a.float() if half and isinstance(a, torch.Tensor) and a.dtype == x.dtype else a
    try:
        with torch.backends.mkldnn.flags(enabled=False):  # aten's own kernels
            res = getattr(torch, name)(*map(up, args), **{k: up(v) for k, v in kwargs.items()})
    except RuntimeError:
        # aten's native paths check sizes their own way (an empty transposed output, a stride past int32
        # read as int32): PyTorch's own answer to the call, an error or a result without the weights' say
        return getattr(torch, name)(*args, **kwargs)
    return res.to(x.dtype) if half else res


# --- convolution with a stride or dilation past int32 -------------------------------------------

def _conv_huge_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in CONV_DIMS:
        return False
    x, w, stride, padding, dilation, transposed = _conv_parts(name, args, kwargs)
    if name == "convolution" and not isinstance(_arg(args, kwargs, 6, "transposed"), bool):
        return False  # the parser's TypeError comes first
    if transposed or isinstance(padding, str) or not (isinstance(x, torch.Tensor) and isinstance(w, torch.Tensor)
                                                      and x.dim() in (w.dim() - 1, w.dim())):
        return False
    lists = [a if isinstance(a, (tuple, list)) else [a] for a in (stride, padding, dilation)]
    # every int argument, in lists too (convolution's output_padding): past int64 PyTorch's parser refuses first
    flat = [u for v in list(args) + list(kwargs.values()) for u in (v if isinstance(v, (tuple, list)) else [v])]
    ints = [v for v in flat if isinstance(v, int)] + [v for a in lists for v in a]
    return (all(len(a) in (1, w.dim() - 2) for a in lists) and all(-2**63 <= v < 2**63 for v in ints)
            and any(v >= 2**31 for a in (lists[0], lists[2]) for v in a))


def _conv_huge_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x, w, stride, padding, dilation, _ = _conv_parts(name, args, kwargs)
    n = w.dim() - 2

    def per_dim(v: Any) -> list:
        return list(v) * (n if len(v) == 1 else 1) if isinstance(v, (tuple, list)) else [v] * n
    sizes = [x.shape[x.dim() - n + i] + 2 * p for i, p in enumerate(per_dim(padding))]
    spans = [d * (k - 1) + 1 for d, k in zip(per_dim(dilation), w.shape[2:], strict=True)]
    if any(s > size for s, size in zip(spans, sizes, strict=True)):
        raise RuntimeError("Kernel size can't be greater than actual input size")
    # a stride past the padded size leaves one output position: any such stride gives it
    clamped = [min(s, size) for s, size in zip(per_dim(stride), sizes, strict=True)]
    args, kwargs = list(args), dict(kwargs)
    if len(args) > 3:
        args[3] = clamped
    else:
        kwargs["stride"] = clamped
    return getattr(torch, name)(*args, **kwargs)


# --- transposed convolution whose arguments or output size pass int32 -----------------------------

_INT32 = 2**31


def _conv_t_parts(name: str, args: tuple, kwargs: dict) -> tuple | None:
    """(x, w, bias, stride, padding, output_padding, groups, dilation) per spatial dim, or None."""
    x, w, _, _, _, transposed = _conv_parts(name, args, kwargs)
    if name not in CONV_DIMS or not transposed or not (isinstance(x, torch.Tensor) and isinstance(w, torch.Tensor)):
        return None
    if name == "convolution":
        op, groups = _arg(args, kwargs, 7, "output_padding"), _arg(args, kwargs, 8, "groups")
    else:
        op, groups = _arg(args, kwargs, 5, "output_padding", 0), _arg(args, kwargs, 6, "groups", 1)
    n = w.dim() - 2
    stride, padding, dilation = (_conv_parts(name, args, kwargs)[i] for i in (2, 3, 4))

    def per_dim(v: Any) -> list | None:
        v = list(v) if isinstance(v, (tuple, list)) else [v]
        if not all(isinstance(u, int) and not isinstance(u, bool) and -2**63 <= u < 2**63 for u in v):
            return None
        return v * n if len(v) == 1 else v if len(v) == n else None
    lists = [per_dim(v) for v in (stride, padding, op, dilation)]
    if n < 1 or any(v is None for v in lists) or not isinstance(groups, int) or x.dim() not in (n + 1, n + 2):
        return None
    if not -2**63 <= groups < 2**63:  # the parser's overflow error comes first
        return None
    bias = _arg(args, kwargs, 2, "bias")
    # floating or integer calls of one dtype: mixed dtypes meet the dtype checks, whose order is the
    # kernel's
    if not ((x.dtype.is_floating_point or x.dtype in _CONV_T_INTS) and w.dtype == x.dtype
            and (bias is None or (isinstance(bias, torch.Tensor) and bias.dtype == x.dtype))):
        return None
    if name == "convolution" and not isinstance(_arg(args, kwargs, 6, "transposed"), bool):
        return None
    return (x, w, bias, *lists, groups)


_CONV_T_INTS = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)
_LEGACY_INT_NAMES = {torch.int32: "Int", torch.int16: "Short", torch.int8: "Char", torch.uint8: "Byte"}


def _unstridable(shape: list) -> bool:
    """No int64 contiguous strides for this shape (torch.empty's 'Stride calculation overflowed')."""
    stride = 1
    for size in reversed(shape[1:]):
        stride *= max(size, 1)
    return stride >= 2**63


def _wrap32(v: int) -> int:
    return (v + _INT32) % (2 * _INT32) - _INT32


def _conv_t_sizes(x: Any, w: Any, stride: list, padding: list, op: list, dilation: list, wrap: bool) -> list:
    f = _wrap32 if wrap else (lambda v: v)
    n = w.dim() - 2
    return [f(f(f(f(x.shape[x.dim() - n + i] - 1) * f(stride[i])) - 2 * f(padding[i]))
              + f(f(dilation[i]) * (w.shape[2 + i] - 1) + 1) + f(op[i])) for i in range(n)]


def _conv_t_int32_applies(name: str, args: tuple, kwargs: dict) -> bool:
    parts = _conv_t_parts(name, args, kwargs)
    if parts is None:
        return False
    x, w, _, stride, padding, op, dilation, _ = parts
    big = any(not -_INT32 <= v < _INT32 for v in stride + padding + op + dilation)
    return big or _conv_t_sizes(x, w, stride, padding, op, dilation, True) != _conv_t_sizes(
        x, w, stride, padding, op, dilation, False)


def _conv_t_int32_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x, w, bias, stride, padding, op, dilation, groups = _conv_t_parts(name, args, kwargs)
    n = w.dim() - 2
    out = _conv_t_sizes(x, w, stride, padding, op, dilation, False)
    full = [x.shape[0] if x.dim() == n + 2 else 1, w.shape[1] * groups, *out]
    if all(o >= 1 for o in out) and _unstridable(full):  # PyTorch's empty batch gives wrapped strides
        raise RuntimeError("Stride calculation overflowed")
    try:  # oneDNN's path (float32, bfloat16) computes in int64: its answer is right
        return getattr(torch, name)(*args, **kwargs)
    except RuntimeError:
        pass
    if any(v <= 0 for v in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(v < 0 for v in padding):
        raise RuntimeError("negative padding is not supported")
    if any(v < 0 for v in op):
        raise RuntimeError("negative output_padding is not supported")
    if any(v <= 0 for v in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if any(o >= s and o >= d for o, s, d in zip(op, stride, dilation, strict=True)):
        raise RuntimeError("output padding must be smaller than either stride or dilation")
    if any(o < 1 for o in out):
        raise RuntimeError("Output size is too small")
    batched = x.dim() == n + 2
    # the sums in float64, or exactly in int64 for an integer convolution
    acc = torch.int64 if x.dtype in _CONV_T_INTS else torch.float64
    xb = (x if batched else x.unsqueeze(0)).to(acc)
    N, cin = xb.shape[:2]
    cout = w.shape[1] * groups
    if x.dtype in _LEGACY_INT_NAMES:
        # no kernel for this dtype, but its output is allocated before the dispatch (a structured
        # kernel's): past the fuzz worker's address space that allocation is the error
        if math.prod(out) * N * cout * x.element_size() > 2**31:
            raise RuntimeError(f"can't allocate memory for an output of {N} x {cout} x {out} elements")
        raise NotImplementedError(f'"slow_conv_transpose{3 if n == 3 else 2}d_out_cpu" not implemented for '
                                  f"'{_LEGACY_INT_NAMES[x.dtype]}'")
    if math.prod(out) * N * cout > 2**27:
        raise RuntimeError(f"can't allocate memory for an output of {N} x {cout} x {out} elements")
    res = torch.zeros(N, groups, cout // groups, *out, dtype=acc)
    xg = xb.reshape(N, groups, cin // groups, *xb.shape[2:])
    wg = w.to(acc).reshape(groups, cin // groups, w.shape[1], *w.shape[2:])
    for taps in itertools.product(*(range(k) for k in w.shape[2:])):
        # input position i lands at i * stride - padding + tap * dilation, where that is inside the output
        sel_in, sel_out = [], []
        for d in range(n):
            pos = [(i, i * stride[d] - padding[d] + taps[d] * dilation[d]) for i in range(xb.shape[2 + d])]
            pos = [(i, o) for i, o in pos if 0 <= o < out[d]]
            sel_in.append(torch.tensor([i for i, _ in pos], dtype=torch.long))
            sel_out.append(torch.tensor([o for _, o in pos], dtype=torch.long))
        if any(t.numel() == 0 for t in sel_in):
            continue
        xs = xg[(..., *torch.meshgrid(*sel_in, indexing="ij"))]  # (N, groups, cin/g, *sel)
        contrib = torch.einsum("ngc...,gco->ngo...", xs, wg[(..., *taps)])
        res[(..., *torch.meshgrid(*sel_out, indexing="ij"))] += contrib
    res = res.reshape(N, cout, *out)
    if bias is not None:
        res = res + bias.to(acc).reshape(-1, *[1] * n)
    res = res.to(x.dtype)
    return res if batched else res.squeeze(0)


# --- convolution without input channels ---------------------------------------------------------

def _conv_no_channels_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in CONV_DIMS:
        return False
    x, w, _, _, _, transposed = _conv_parts(name, args, kwargs)
    return (not transposed and isinstance(x, torch.Tensor) and isinstance(w, torch.Tensor)
            and x.dim() in (w.dim() - 1, w.dim()) and x.shape[x.dim() - w.dim() + 1] == 0)


def _conv_no_channels_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x, w = _conv_parts(name, args, kwargs)[:2]
    r = getattr(torch, name)(*args, **kwargs)  # its checks, dtype and spatial size are right
    ch = x.dim() - w.dim() + 1
    shape = list(r.shape)
    shape[ch] = w.shape[0]
    out = torch.zeros(shape, dtype=r.dtype)
    bias = _arg(args, kwargs, 2, "bias")
    if bias is not None:
        out += bias.reshape([-1] + [1] * (len(shape) - ch - 1))
    return out


# --- max pooling whose dilated kernel overflows int ----------------------------------------------

MAX_POOLS = {f"max_pool{n}d{s}": n for n in (2, 3) for s in ("", "_with_indices")}


def _pool_arg(v: Any, n: int) -> list:
    v = list(v) if isinstance(v, (tuple, list)) else [v]
    return v * n if len(v) == 1 else v


def _pool_overflow_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in MAX_POOLS:
        return False
    n = MAX_POOLS[name]
    x = _arg(args, kwargs, 0, "input")
    k = _pool_arg(_arg(args, kwargs, 1, "kernel_size"), n)
    d = _pool_arg(_arg(args, kwargs, 4, "dilation", 1), n)
    flags = (_arg(args, kwargs, 5, "ceil_mode", False), _arg(args, kwargs, 6, "return_indices", False))
    ints = [v for a in (_arg(args, kwargs, 2, "stride", []), _arg(args, kwargs, 3, "padding", 0))
            for v in (a if isinstance(a, (tuple, list)) else [a])]
    if not all(isinstance(v, int) and -2**63 <= v < 2**63 for v in ints if v is not None):
        return False  # past int64: the parser's TypeError first (seed 8419's rerun)
    return (all(isinstance(f, bool) for f in flags)  # a wrong-typed flag is the parser's TypeError first
            # any dtype: the output size is checked before the dtype (bool and complex raise there too)
            and isinstance(x, torch.Tensor) and x.dim() in (n + 1, n + 2)
            and all(s > 0 for s in x.shape[1:]) and len(k) == len(d) == n
            and all(isinstance(v, int) and 0 < v < 2**31 for v in k + d)
            and any((a - 1) * b + 1 >= 2**31 for a, b in zip(k, d, strict=True)))


def _pool_overflow_correct(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError(f"{name}: the dilated kernel ((kernel_size - 1) * dilation + 1) exceeds the input: "
                       "Output size is too small")


# --- nll_loss_backward, reduction 'none', writing at an unchecked target ------------------------

def _nll_backward_targets(args: tuple, kwargs: dict) -> Any:
    """The out-of-range targets of a reduction-'none' nll_loss_backward on a 2-d input (the path
    without a bounds check), or None where the call does not take it."""
    names = ("grad_output", "self", "target", "weight", "reduction", "ignore_index", "total_weight")
    g, x, t, w, red, ignore, tw = (_arg(args, kwargs, i, n) for i, n in enumerate(names))
    if not (isinstance(x, torch.Tensor) and isinstance(t, torch.Tensor) and red == 0 and x.dim() == 2
            and t.dim() == 1 and t.dtype == torch.int64 and isinstance(ignore, int) and -2**63 <= ignore < 2**63):
        return None
    bad = (t != ignore) & ((t < 0) | (t >= x.shape[1]))
    return bad if bool(bad.any()) else None


def _nll_backward_applies(name: str, args: tuple, kwargs: dict) -> bool:
    return name == "nll_loss_backward" and _nll_backward_targets(args, kwargs) is not None


def _nll_backward_correct(name: str, args: tuple, kwargs: dict) -> Any:
    bad = _nll_backward_targets(args, kwargs)
    t = _arg(args, kwargs, 2, "target")
    ignore = _arg(args, kwargs, 5, "ignore_index")
    # PyTorch's own checks first, on the call with the bad targets ignored (no write out of bounds)
    safe = torch.where(bad, torch.tensor(ignore, dtype=t.dtype), t)
    torch.ops.aten.nll_loss_backward(*args[:2], safe, *args[3:], **kwargs)
    raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")


# --- fused CPU attention with inconsistent query / key / value shapes -------------------------

def _sdpa_shapes_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name == "_scaled_dot_product_flash_attention_for_cpu_backward":
        return _sdpa_backward_shapes_applies(args, kwargs)
    if name != "_scaled_dot_product_flash_attention_for_cpu":
        return False
    q, k, v = (_arg(args, kwargs, i, n) for i, n in enumerate(("query", "key", "value")))
    # of mixed dtypes too (an integer key or value): torch's crash (SIGFPE for a value of no keys) comes
    # before its dtype error
    if not (all(isinstance(t, torch.Tensor) and t.dim() == 4 for t in (q, k, v)) and q.dtype.is_floating_point):
        return False
    return q.shape[3] == v.shape[3] == k.shape[3] and (
        k.shape[:2] != q.shape[:2] or v.shape[:2] != q.shape[:2] or k.shape[2] != v.shape[2])


def _sdpa_backward_shapes_applies(args: tuple, kwargs: dict) -> bool:
    names = ("grad_out", "query", "key", "value", "out", "logsumexp")
    g, q, k, v, o, lse = (_arg(args, kwargs, i, n) for i, n in enumerate(names))
    mask = _arg(args, kwargs, 8, "attn_mask")
    if not all(isinstance(t, torch.Tensor) for t in (g, q, k, v, o, lse)) or (
            mask is not None and not (isinstance(mask, torch.Tensor)
                                      and (mask.dtype == torch.bool or mask.dtype.is_floating_point))):
        return False  # a mask neither bool nor float is the kernel's dtype error first (a float64 one it reads)
    # a gradient of 3 or 5+ dims PyTorch reads with 4-d indexing too (below 3 its size(2) is the IndexError)
    # so is an out of 3 dims (torch: a crash for out (0, 0, 0) beside a 4-d query)
    if not (q.dtype.is_floating_point and all(t.dim() == 4 and t.dtype == q.dtype for t in (q, k, v))
            and g.dim() >= 3 and g.dtype == q.dtype and o.dim() >= 3 and o.dtype == q.dtype):
        return False
    opmath = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    # a logsumexp of 4+ dims is read as 3-d too (below 3 its transpose is the IndexError)
    if lse.dim() < 3 or lse.dtype != opmath or not q.shape[3] == v.shape[3] == k.shape[3]:
        return False
    want = (*q.shape[:3], v.shape[3])
    return (k.shape[:2] != q.shape[:2] or v.shape[:2] != q.shape[:2] or k.shape[2] != v.shape[2]
            or g.shape != want or o.shape != want or lse.shape != q.shape[:3])


def _sdpa_mask_view(q: Any, v: Any, mask: Any) -> None:
    """The kernel's first step, before any read: a mask with elements viewed as 4-d and expanded
    over the query rows and keys (reshape_attn_mask_to_4d), whose errors are PyTorch's."""
    if isinstance(mask, torch.Tensor) and mask.numel():
        s0 = q.shape[0] if mask.dim() == 4 and mask.shape[0] == q.shape[0] else 1
        s1 = q.shape[1] if mask.dim() == 4 and mask.shape[1] == q.shape[1] else 1
        mask.view(s0, s1, mask.shape[-2], mask.shape[-1]).expand(s0, s1, q.shape[2], v.shape[2])


def _sdpa_forward_mask_checks(q: Any, mask: Any) -> None:
    """The fused forward's own mask checks, before its kernel reads anything: dtype, then rank."""
    if isinstance(mask, torch.Tensor):
        if mask.dtype not in (torch.bool, q.dtype):
            raise RuntimeError("scaled_dot_product_attention_flash_attention: Attention mask is the same data type "
                               "as query")
        if mask.dim() not in (2, 4):
            raise RuntimeError("scaled_dot_product_attention_flash_attention: Attention mask dim in {2, 4}")


def _sdpa_shapes_correct(name: str, args: tuple, kwargs: dict) -> Any:
    first = 0 if name == SDPA_FLASH[0] else 1
    q, v = _arg(args, kwargs, first, "query"), _arg(args, kwargs, first + 2, "value")
    if not first:
        _sdpa_forward_mask_checks(q, kwargs.get("attn_mask"))
    _sdpa_mask_view(q, v, _arg(args, kwargs, 8, "attn_mask") if first else kwargs.get("attn_mask"))
    raise RuntimeError(f"{name}: query, key and value must agree in batch size, heads and key length")


# --- fused CPU attention with no heads -------------------------------------------------------

def _sdpa_no_heads_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in SDPA_FLASH:
        return False
    first = 0 if name == SDPA_FLASH[0] else 1
    q, k, v = (_arg(args, kwargs, first + i, n) for i, n in enumerate(("query", "key", "value")))
    if not all(isinstance(t, torch.Tensor) and t.dim() == 4 and t.dtype.is_floating_point for t in (q, k, v)):
        return False
    if first == 1 and not q.dtype == k.dtype == v.dtype:
        return False
    # shapes the kernel would accept but for the head count (an inconsistent call is its own entry or error)
    if not (q.shape[:2] == k.shape[:2] == v.shape[:2] and k.shape[2] == v.shape[2]
            and q.shape[3] == k.shape[3] == v.shape[3] and q.dtype.is_floating_point):
        return False
    if first == 0:  # the forward divides by the query length too
        return q.shape[1] == 0 or q.shape[2] == 0
    if q.shape[1] != 0:
        return False
    g, o, lse = (_arg(args, kwargs, i, n) for i, n in ((0, "grad_out"), (4, "out"), (5, "logsumexp")))
    return (all(isinstance(t, torch.Tensor) for t in (g, o, lse)) and g.shape == o.shape == q.shape
            and lse.shape == q.shape[:3] and g.dtype == o.dtype == q.dtype)


def _sdpa_no_heads_correct(name: str, args: tuple, kwargs: dict) -> Any:
    # the kernel's first step, before it divides: a mask with elements is viewed as 4-d and
    # expanded over the query rows and keys (reshape_attn_mask_to_4d), whose errors are PyTorch's
    first = 0 if name == SDPA_FLASH[0] else 1
    q, k, v = (_arg(args, kwargs, first + i, n) for i, n in enumerate(("query", "key", "value")))
    if not first and _arg(args, kwargs, 3, "dropout_p", 0.0) != 0:  # the forward's first check, before it divides
        raise RuntimeError("scaled_dot_product_attention_flash_attention: Currently do not support dropout > 0")
    if not first:
        _sdpa_forward_mask_checks(q, kwargs.get("attn_mask"))
    _sdpa_mask_view(q, v, _arg(args, kwargs, 8, "attn_mask") if first else kwargs.get("attn_mask"))
    other = next((t.dtype for t in (k, v) if t.dtype != q.dtype), None)
    if other is not None:  # the kernel's dtype check, as it raises for a query with rows
        raise RuntimeError(f"expected scalar type {_LEGACY[q.dtype]} but found {_LEGACY[other]}")

    # PyTorch's meta function: its checks and its outputs' shapes and dtypes, without the kernel
    def meta(a: Any) -> Any:
        return a.to("meta") if isinstance(a, torch.Tensor) else a
    out = getattr(torch.ops.aten, name)(*map(meta, args), **{k: meta(v) for k, v in kwargs.items()})
    return tuple(torch.zeros(t.shape, dtype=t.dtype) for t in out)


# --- fused CPU attention reading a strided head dim as contiguous ----------------------------

SDPA_FLASH = ("_scaled_dot_product_flash_attention_for_cpu",
              "_scaled_dot_product_flash_attention_for_cpu_backward")


def _sdpa_stride_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in SDPA_FLASH:
        return False
    ts = [a for a in args if isinstance(a, torch.Tensor)]
    # correct() runs torch's kernel in this process: never on an empty batch, head or sequence,
    # where that kernel divides by zero (SIGFPE) -- the worker runs (and survives) those calls
    return (len(ts) >= 3 and all(t.dim() == 4 and t.dtype.is_floating_point for t in ts[:3])
            and all(n > 0 for t in ts[:3] for n in t.shape[:3])
            and any(t.dim() == 4 and t.size(3) > 1 and t.stride(3) != 1 for t in ts))


def _sdpa_stride_correct(name: str, args: tuple, kwargs: dict) -> Any:
    dense = tuple(a.contiguous() if isinstance(a, torch.Tensor) else a for a in args)
    if _sdpa_nan_applies(name, dense, kwargs):  # the contiguous call meets sdpa-flash-nan-row
        return _sdpa_nan_correct(name, dense, kwargs)
    return getattr(torch.ops.aten, name)(*dense, **kwargs)


# --- adaptive average pooling backward for an empty input ---------------------------------

ADAPTIVE_BACKWARD = {"_adaptive_avg_pool2d_backward": 2, "_adaptive_avg_pool3d_backward": 3}


def _adaptive_empty_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in ADAPTIVE_BACKWARD or len(args) < 2:
        return False
    grad, x = args[0], args[1]
    n = ADAPTIVE_BACKWARD[name]
    # a floating input: any other is the dtype dispatch's NotImplementedError first, an empty one too (seed 8419)
    return (isinstance(grad, torch.Tensor) and isinstance(x, torch.Tensor) and grad.dtype == x.dtype
            and x.dtype.is_floating_point
            and grad.dim() == x.dim() and x.dim() in (n + 1, n + 2) and x.numel() == 0
            and all(s > 0 for s in grad.shape[1:]) and 0 in x.shape[-n:])


def _adaptive_empty_correct(name: str, args: tuple, kwargs: dict) -> Any:
    return torch.zeros_like(args[1], memory_format=torch.contiguous_format)


# --- pixel_unshuffle of an empty input ------------------------------------------------------

def _unshuffle_empty_applies(name: str, args: tuple, kwargs: dict) -> bool:
    x = _arg(args, kwargs, 0, "input", _arg(args, kwargs, 0, "self"))
    return name == "pixel_unshuffle" and isinstance(x, torch.Tensor) and x.numel() == 0


def _unshuffle_empty_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x = _arg(args, kwargs, 0, "input", _arg(args, kwargs, 0, "self"))
    r = _arg(args, kwargs, 1, "downscale_factor")
    torch.nn.functional.pixel_unshuffle(x, r)  # the CPU kernel's checks (its errors), safe to run
    shape = torch.nn.functional.pixel_unshuffle(x.to("meta"), r).shape  # PyTorch's own shape function
    return torch.empty(shape, dtype=x.dtype)


# --- unfold with a padding whose padded size overflows int64 ---------------------------------

def _unfold_pad_applies(name: str, args: tuple, kwargs: dict) -> bool:
    x = _arg(args, kwargs, 0, "input")
    pad = _arg(args, kwargs, 3, "padding", 0)
    pad = tuple(pad) if isinstance(pad, (list, tuple)) else (pad, pad)
    if name != "unfold" or not isinstance(x, torch.Tensor) or x.dim() not in (3, 4) or len(pad) != 2:
        return False
    if len(args) == 4 and not kwargs:  # Tensor.unfold(dim, size, step): a view, no padding
        return False
    # every int argument within int64: else the parser's TypeError first (seed 6203: a kernel_size of 2**63)
    ints = [q for v in list(args[1:]) + list(kwargs.values()) for q in (v if isinstance(v, (list, tuple)) else [v])
            if isinstance(q, int)]
    fits = all(isinstance(q, int) for q in pad) and all(-2**63 <= q < 2**63 for q in ints)
    return fits and any(x.shape[-2 + i] + 2 * q > 2**63 - 1 for i, q in enumerate(pad))


def _unfold_pad_correct(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError("unfold: the padded input size overflows int64")


# --- fused optimizer steps on inconsistent tensor lists ------------------------------------

FUSED_LISTS = {"_fused_adam_": 6, "_fused_adamw_": 6, "_fused_sgd_": 3}  # leading Tensor[] args


def _fused_parses(kwargs: dict) -> bool:
    """PyTorch's argument parser takes the call (else it rejects it before the kernel runs)."""
    flags = ("amsgrad", "maximize", "nesterov", "is_first_step")
    return not (any(not isinstance(v, bool) for k, v in kwargs.items() if k in flags) or any(
        isinstance(v, bool) or not isinstance(v, (int, float))
        for k, v in kwargs.items() if k not in flags and k not in ("grad_scale", "found_inf")))


def _fused_applies(name: str, args: tuple, kwargs: dict) -> bool:
    """True unless every list is as long as the parameter list (or empty, for the optional
    ones) and every per-parameter tensor has its parameter's shape and dtype (state steps:
    one element each)."""
    if name not in FUSED_LISTS or not _fused_parses(kwargs):
        return False
    lists = list(args[:FUSED_LISTS[name]])
    if len(lists) < FUSED_LISTS[name] or not all(isinstance(x, (list, tuple)) for x in lists):
        return True
    params = lists[0]
    steps = lists[5] if name != "_fused_sgd_" else []
    per_param = lists[1:5] if name != "_fused_sgd_" else lists[1:]
    for lst in per_param + [steps]:
        if len(lst) not in (len(params), 0) or (lst is lists[1] and len(lst) != len(params)):
            return True
    for i, p in enumerate(params):
        if not p.dtype.is_floating_point:
            return True
        for lst in per_param:
            if lst and (lst[i].shape != p.shape or lst[i].dtype != p.dtype):
                return True
        if steps and (steps[i].numel() != 1 or not steps[i].dtype.is_floating_point):
            return True
    return False


def _fused_correct(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError(f"{name}: the tensor lists must match the parameters in length, shape "
                       "and dtype")


# --- fused optimizer steps on non-contiguous tensors ----------------------------------------

def _fused_tensors(name: str, args: tuple) -> list:
    """Every per-parameter tensor of a fused step (parameters, gradients, states)."""
    n = FUSED_LISTS[name] - (1 if name != "_fused_sgd_" else 0)  # the state steps are read only
    return [t for lst in args[:n] for t in lst]


def _fused_layout_applies(name: str, args: tuple, kwargs: dict) -> bool:
    return (name in FUSED_LISTS and _fused_parses(kwargs) and not _fused_applies(name, args, kwargs)
            and any(not t.is_contiguous() for t in _fused_tensors(name, args)))


def _fused_layout_correct(name: str, args: tuple, kwargs: dict) -> Any:
    # The step is elementwise: it is the same step on contiguous copies, written back. A tensor the
    # step writes that aliases itself (expanded) has no single answer: the in-place overlap error.
    grads_written = kwargs.get("grad_scale") is not None  # unscaled in place
    written = [t for t in _fused_tensors(name, args)
               if grads_written or not any(t is g for g in args[1])]
    if any(torch._debug_has_internal_overlap(t) == 1 for t in written):
        raise RuntimeError(f"{name}: unsupported operation: more than one element of the "
                           "written-to tensor refers to a single memory location")
    n = FUSED_LISTS[name]
    dense = [[t.contiguous() for t in lst] for lst in args[:n]]
    res = getattr(torch, name)(*dense, *args[n:], **kwargs)
    for lst, dlst in zip(args[:n], dense, strict=True):
        for t, d in zip(lst, dlst, strict=True):
            if d is not t and any(t is w for w in written):
                t.copy_(d)
    return res


# --- gelu_backward with a gradient to broadcast ---------------------------------------------

def _gelu_bw_parts(args: tuple, kwargs: dict) -> tuple:
    return (_arg(args, kwargs, 0, "grad_output"), _arg(args, kwargs, 1, "self"),
            _arg(args, kwargs, 2, "approximate", "none"))


def _gelu_bw_applies(name: str, args: tuple, kwargs: dict) -> bool:
    g, x, approximate = _gelu_bw_parts(args, kwargs)
    if name != "gelu_backward" or approximate not in ("none", "tanh") or not (
            isinstance(g, torch.Tensor) and isinstance(x, torch.Tensor)):
        return False
    # int8 / uint8 gradients take the same oneDNN path (other integer types its dtype error)
    if not (x.dtype.is_floating_point and (g.dtype.is_floating_point or g.dtype in (torch.int8, torch.uint8))):
        return False
    shape = torch.broadcast_shapes(g.shape, x.shape)
    rt = torch.result_type(g, x)  # a 0-d gradient does not promote self's dtype
    broadcast = (approximate == "none" and tuple(shape) != tuple(g.shape) and math.prod(shape) > 0
                 and rt != torch.float64)
    # a self to broadcast on the oneDNN path (contiguous, 2+ elements): its reorder error, or a
    # crash when the broadcast shape is empty
    one_dnn = (approximate == "none" and x.dtype != torch.float64 and x.is_contiguous() and x.numel() > 1
               and tuple(shape) != tuple(x.shape))
    return broadcast or one_dnn or g.dtype != x.dtype


def _gelu_bw_exact(g: Any, x: Any, rt: Any, approximate: str) -> Any:
    """gelu_backward in ``rt`` (both broadcast and cast to it) by aten's own formula, oneDNN disabled:
    dy * (Phi(x) + x phi(x)) in the op-math type, so an infinite gradient meets the float derivative:
    +-inf where it is nonzero, NaN where it underflows to 0 (below x = -14.1 in float32), as aten's
    kernel gives in every dtype but where oneDNN flushes it (gelu-backward-onednn-flush)."""
    shape = torch.broadcast_shapes(g.shape, x.shape)
    g, x = g.expand(shape).to(rt), x.expand(shape).to(rt)
    with torch.backends.mkldnn.flags(enabled=False):
        return torch.ops.aten.gelu_backward(g.contiguous(), x.contiguous(), approximate=approximate)


def _gelu_bw_correct(name: str, args: tuple, kwargs: dict) -> Any:
    g, x, approximate = _gelu_bw_parts(args, kwargs)
    shape = torch.broadcast_shapes(g.shape, x.shape)
    rt = torch.result_type(g, x)  # a 0-d gradient does not promote self's dtype
    if math.prod(shape) == 0:
        return torch.empty(shape, dtype=rt)
    return _gelu_bw_exact(g, x, rt, approximate)


def _gelu_bw_flush_applies(name: str, args: tuple, kwargs: dict) -> bool:
    g, x, approximate = _gelu_bw_parts(args, kwargs)
    # oneDNN's path: float32 / bfloat16, and float16 on CPUs with AVX512-FP16 (elsewhere float16 takes
    # aten's formula, which is the corrected value anyway); float64 always takes aten's formula
    return (name == "gelu_backward" and approximate == "none" and isinstance(g, torch.Tensor)
            and isinstance(x, torch.Tensor) and x.dtype in (torch.float32, torch.bfloat16, torch.float16)
            and g.dtype == x.dtype
            and tuple(torch.broadcast_shapes(g.shape, x.shape)) == tuple(x.shape)
            and not bool(torch.isfinite(g).all()))


def _gelu_bw_flush_correct(name: str, args: tuple, kwargs: dict) -> Any:
    g, x, approximate = _gelu_bw_parts(args, kwargs)
    return _gelu_bw_exact(g, x, x.dtype, approximate)


# --- layer_norm of rows whose squares overflow --------------------------------------------------

def _ln_parts(args: tuple, kwargs: dict) -> tuple:
    return (_arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "normalized_shape"), _arg(args, kwargs, 2, "weight"),
            _arg(args, kwargs, 3, "bias"), _arg(args, kwargs, 4, "eps", 1e-5))


def _ln_rows(x: Any, shape: Any) -> Any:
    """x as float64 rows of the normalized size, with the mask of rows whose sum of squares overflows x's
    op-math type (float32 below float64): PyTorch's moments of those are inf or NaN."""
    rows = x.detach().double().reshape(-1, math.prod(shape))
    big = torch.where(torch.isfinite(rows), rows, 0.0).abs().amax(1) if rows.numel() else rows.sum(1)
    scale = torch.ldexp(torch.ones_like(big), torch.frexp(big).exponent)  # a power of two past every |x|
    top = torch.finfo(torch.float64 if x.dtype == torch.float64 else torch.float32).max
    # sum(x^2) > top, as (sum((x / scale)^2) * scale) * scale without overflow
    over = ((rows / scale[:, None]) ** 2).sum(1) * scale > top / scale
    return rows, over & torch.isfinite(rows).all(1), scale


def _ln_overflow_applies(name: str, args: tuple, kwargs: dict) -> bool:
    x, shape, w, b, eps = _ln_parts(args, kwargs)
    if name != "layer_norm" or not isinstance(x, torch.Tensor) or x.dtype not in (torch.float32, torch.float64,
                                                                                  torch.bfloat16):
        return False
    shape = [shape] if isinstance(shape, int) else list(shape)
    if not shape or x.dim() < len(shape) or list(x.shape[x.dim() - len(shape):]) != shape or x.numel() == 0:
        return False
    if not all(t is None or (isinstance(t, torch.Tensor) and list(t.shape) == shape and t.dtype == x.dtype)
               for t in (w, b)) or not isinstance(eps, float):
        return False
    return bool(_ln_rows(x, shape)[1].any())


def _ln_overflow_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x, shape, w, b, eps = _ln_parts(args, kwargs)
    shape = [shape] if isinstance(shape, int) else list(shape)
    rows, over, scale = _ln_rows(x, shape)
    s = torch.where(over, scale, 1.0)[:, None]  # the other rows exactly as computed unscaled
    xs = rows / s
    mean = xs.mean(1, keepdim=True)
    var = ((xs - mean) ** 2).mean(1, keepdim=True)
    dev = xs - mean  # a constant row: all 0 (var + eps / s^2 may underflow to 0 there)
    y = torch.where(dev == 0, 0.0, dev / torch.sqrt(var + eps / s / s)).reshape(x.shape)
    if w is not None:
        y = y * w.double()
    if b is not None:
        y = y + b.double()
    return y.to(x.dtype)


# --- attention whose keys and values differ in length ------------------------------------------

def _sdpa_kv_len_applies(name: str, args: tuple, kwargs: dict) -> bool:
    q, k, v = (_arg(args, kwargs, i, n) for i, n in enumerate(("query", "key", "value")))
    # the fused kernel's shapes (4-d, one batch and head count, one head size) but for the key lengths
    return (name == "scaled_dot_product_attention" and all(isinstance(t, torch.Tensor) and t.dim() == 4
                                                          for t in (q, k, v))
            and q.shape[:2] == k.shape[:2] == v.shape[:2] and q.shape[3] == k.shape[3] == v.shape[3]
            and k.shape[2] != v.shape[2] and k.shape[2] > 0 and v.shape[2] > 0)


def _sdpa_kv_len_correct(name: str, args: tuple, kwargs: dict) -> Any:
    from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: PLC0415 - only this entry needs it

    with sdpa_kernel(SDPBackend.MATH):  # softmax(q k^T) @ v: its matmul refuses the key length
        return torch.nn.functional.scaled_dot_product_attention(*args, **kwargs)


# --- embedding_bag without bags -------------------------------------------------------------

def _bag_max_empty_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name != "embedding_bag" or _arg(args, kwargs, 6, "mode", "mean") not in ("sum", "mean", "max"):
        return False
    x, w, off = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "weight"), _arg(args, kwargs, 2, "offsets")
    return (isinstance(x, torch.Tensor) and x.dim() == 1 and isinstance(off, torch.Tensor)
            and off.dim() == 1 and off.numel() == 0
            and torch.result_type(x, off) in (torch.int64, torch.int32)  # aten's index type
            and isinstance(w, torch.Tensor) and w.dim() == 2 and w.dtype.is_floating_point
            and not _arg(args, kwargs, 9, "include_last_offset", False)
            and _arg(args, kwargs, 8, "per_sample_weights") is None
            and _arg(args, kwargs, 3, "max_norm") is None)


def _bag_max_empty_correct(name: str, args: tuple, kwargs: dict) -> Any:
    w = _arg(args, kwargs, 1, "weight")
    # no offsets: no bags, as modes 'sum' and 'mean' answer
    return torch.zeros(0, w.shape[1], dtype=w.dtype)


# --- an int64 bound of exactly 2**63 ------------------------------------------------------------

_INT_BOUND_OPS = {"hardtanh": (1, "min_val", 2, "max_val"), "hardtanh_": (1, "min_val", 2, "max_val"),
                  "threshold": (1, "threshold", 2, "value"), "threshold_": (1, "threshold", 2, "value")}


def _int_bound_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in _INT_BOUND_OPS:
        return False
    x = _arg(args, kwargs, 0, "input")
    if not isinstance(x, torch.Tensor) or x.dtype != torch.int64:
        return False
    i, a, j, b = _INT_BOUND_OPS[name]
    lo, hi = _arg(args, kwargs, i, a, -1.0), _arg(args, kwargs, j, b, 1.0)
    vals = [v for v in (lo, hi) if isinstance(v, float)]
    if name == "hardtanh" and lo > hi:
        return False  # F.hardtanh's own ValueError comes first (hardtanh_ is the aten op: no such check)
    # torch compares with int64's max converted to double (2**63 itself passes), then casts: UB, -2**63
    return any(v == 2.0**63 for v in vals) and all(-(2.0**63) <= v <= 2.0**63 for v in vals)


def _int_bound_correct(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError("value cannot be converted to type int64_t without overflow")


# --- lp_pool with an exponent (p or 1 / p) float32 rounds to zero ----------------------------

LP_POOL = {"lp_pool1d": 1, "lp_pool2d": 2, "lp_pool3d": 3}


def _f32(v: float) -> float:
    return torch.tensor(v, dtype=torch.float64).float().item()


def _lp_tiny_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in LP_POOL:
        return False
    x, p = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "norm_type")
    # integer inputs too: x ** p promotes them to float32
    return (isinstance(x, torch.Tensor) and (x.dtype == torch.float32 or not (x.is_floating_point() or x.is_complex()))
            and isinstance(p, (int, float)) and not isinstance(p, bool) and p != 0 and not math.isinf(p)  # inf: max pooling, no pow
            and (_f32(float(p)) == 0 or _f32(1.0 / p) == 0))


def _lp_tiny_correct(name: str, args: tuple, kwargs: dict) -> Any:
    # both pows with the float32 exponent (as the vector loop reads it), each computed in float64
    # and rounded once: x ** p, the window average, then the window sum to the power 1 / p
    x, p = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "norm_type")
    k = _arg(args, kwargs, 2, "kernel_size")
    stride = _arg(args, kwargs, 3, "stride")
    ceil_mode = _arg(args, kwargs, 4, "ceil_mode", False)
    n = LP_POOL[name]
    window = math.prod(k if isinstance(k, (tuple, list)) else [k] * (1 if n == 1 else n))
    avg = getattr(torch.nn.functional, f"avg_pool{n}d")
    out = avg(x.double().pow(_f32(float(p))).float(), k, stride, 0, ceil_mode)
    out = (torch.sign(out) * torch.relu(torch.abs(out))).mul(window)
    return out.double().pow(_f32(1.0 / p)).float()


def _lrn_tiny_applies(name: str, args: tuple, kwargs: dict) -> bool:
    x, beta = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 3, "beta", 0.75)
    return (name == "local_response_norm" and isinstance(x, torch.Tensor) and x.dtype == torch.float32
            and isinstance(beta, (int, float)) and not isinstance(beta, bool) and beta != 0
            and torch.tensor(float(beta), dtype=torch.float32).item() == 0)


def _lrn_tiny_correct(name: str, args: tuple, kwargs: dict) -> Any:
    # the divisor to the float32 power (0) is 1 everywhere: PyTorch's own answer for beta = 0
    names = ("input", "size", "alpha", "beta", "k")
    full = {n: _arg(args, kwargs, i, n) for i, n in enumerate(names) if len(args) > i or n in kwargs}
    full["beta"] = 0.0
    return torch.nn.functional.local_response_norm(**full)


# --- batch norm updating running statistics whose channels share memory --------------------

def _bn_running(name: str, args: tuple, kwargs: dict) -> tuple | None:
    """(running_mean, running_var, training) of a batch_norm call (F's or torch's argument order)."""
    if name == "batch_norm" and len(args) >= 9 and not kwargs:  # torch.batch_norm(input, w, b, rm, rv, training, ...)
        return args[3], args[4], args[5]
    if name == "batch_norm":
        return (_arg(args, kwargs, 1, "running_mean"), _arg(args, kwargs, 2, "running_var"),
                _arg(args, kwargs, 5, "training", False))
    return None


def _overlaps(t: Any) -> bool:
    return isinstance(t, torch.Tensor) and any(st == 0 and n > 1 for st, n in zip(t.stride(), t.shape))


def _bn_shared_stats_applies(name: str, args: tuple, kwargs: dict) -> bool:
    parts = _bn_running(name, args, kwargs)
    return parts is not None and parts[2] is True and (_overlaps(parts[0]) or _overlaps(parts[1]))


def _bn_shared_stats_correct(name: str, args: tuple, kwargs: dict) -> Any:
    # the output in training mode uses the batch statistics only: PyTorch's on private copies
    args = tuple(a.clone() if _overlaps(a) else a for a in args)
    kwargs = {k: v.clone() if _overlaps(v) else v for k, v in kwargs.items()}
    fn = torch.batch_norm if len(args) >= 9 and not kwargs else torch.nn.functional.batch_norm
    return fn(*args, **kwargs)


# --- max_pool1d with a kernel beyond int32 ----------------------------------------------------

def _pool1d_huge_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name == "lp_pool1d":  # norm_type +-inf: max_pool1d of |x| (no padding or dilation)
        p = _arg(args, kwargs, 1, "norm_type")
        if not (isinstance(p, float) and abs(p) == math.inf):
            return False
        stride = _arg(args, kwargs, 3, "stride")
        return _pool1d_huge_applies("max_pool1d", (_arg(args, kwargs, 0, "input"), _arg(args, kwargs, 2, "kernel_size"),
                                                   stride, 0, 1, _arg(args, kwargs, 4, "ceil_mode", False)), {})
    if name not in ("max_pool1d", "max_pool1d_with_indices"):
        return False
    x, k = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "kernel_size")
    k = k[0] if isinstance(k, (tuple, list)) and len(k) == 1 else k
    pad = _arg(args, kwargs, 3, "padding", 0)
    pad = pad[0] if isinstance(pad, (tuple, list)) and len(pad) == 1 else pad
    dil = _arg(args, kwargs, 4, "dilation", 1)
    dil = dil[0] if isinstance(dil, (tuple, list)) and len(dil) == 1 else dil
    if not (isinstance(x, torch.Tensor) and x.dim() in (2, 3) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in (k, pad, dil))
            and isinstance(_arg(args, kwargs, 5, "ceil_mode", False), bool)):
        return False
    # the window (past int32: torch's arithmetic wraps or hangs) covers no position of the padded
    # input: PyTorch's own answer is its size error
    return (1 <= k < 2**63 and 1 <= dil < 2**63 and dil * (k - 1) >= 2**31 and 0 <= pad
            and x.shape[-1] + 2 * pad - dil * (k - 1) - 1 < 0)


def _pool1d_huge_correct(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError(f"{name}() Invalid computed output size (kernel_size beyond the padded input)")


# --- interpolate of an empty input to a huge output size -------------------------------------

def _nn_op(name: str) -> Any:
    """The op as the fuzz calls it in PyTorch: torch._C._nn's (its argument parser), else aten's."""
    return getattr(torch._C._nn, name, None) or getattr(torch.ops.aten, name)


# the deprecated functionals: F.interpolate with a fixed mode and align_corners
_UPSAMPLE_FUNCTIONALS = {"upsample_nearest": ("nearest", None), "upsample_bilinear": ("bilinear", True)}


def _upsample_parts(name: str, args: tuple, kwargs: dict) -> tuple | None:
    """(input, output shape) of F.interpolate or an aten upsample op (forward) called with sizes
    or scale factors; None when the call is not one of them or its sizes are odd."""
    x = _arg(args, kwargs, 0, "input")
    # only the batch may be empty: aten's CPU kernels refuse other empty dims
    if not isinstance(x, torch.Tensor) or x.dim() < 3 or min(x.shape[1:]) == 0:
        return None
    n = x.dim() - 2
    if name in _UPSAMPLE_FUNCTIONALS:  # F.upsample_nearest / upsample_bilinear: interpolate's arguments
        if len(args) > 3 or set(kwargs) - {"input", "size", "scale_factor"}:
            return None
        mode, align = _UPSAMPLE_FUNCTIONALS[name]
        args, kwargs = tuple(args[:3]), {**kwargs, "mode": mode, "align_corners": align}
        name = "interpolate"
    if name in ("interpolate", "upsample"):
        mode, align = _arg(args, kwargs, 3, "mode", "nearest"), _arg(args, kwargs, 4, "align_corners")
        rank = {"nearest": x.dim(), "nearest-exact": x.dim(), "linear": 3, "bilinear": 4, "bicubic": 4,
                "trilinear": 5}.get(mode)
        if rank != x.dim() or align not in ((None,) if "nearest" in mode else (None, True, False)):
            return None  # F.interpolate's own argument errors
        size, factor = _arg(args, kwargs, 1, "size"), _arg(args, kwargs, 2, "scale_factor")
        if size is not None:
            out = [size] * n if isinstance(size, int) else list(size)
        elif factor is not None:
            fs = [factor] * n if isinstance(factor, (int, float)) else list(factor)
            out = [math.floor(float(i) * float(f)) for i, f in zip(x.shape[2:], fs)]
        else:
            return None
    elif (name.startswith("upsample_") or name.startswith("_upsample_")) and not name.endswith("_backward"):
        size = _arg(args, kwargs, 1, "output_size")
        # the arguments PyTorch's parser checks before the kernel: sizes, align_corners, scales
        if size is None or ("nearest" not in name and not isinstance(_arg(args, kwargs, 2, "align_corners"), bool)):
            return None
        first = 2 if "nearest" in name else 3
        if not all(v is None or isinstance(v, float) for v in list(args[first:]) + [
                v for k, v in kwargs.items() if k.startswith("scales")]):
            return None
        out = list(size)
    else:
        return None
    if len(out) != n or not all(isinstance(v, int) and not isinstance(v, bool) and 0 < v < 2**63 for v in out):
        return None
    return x, list(x.shape[:2]) + out


def _upsample_empty_applies(name: str, args: tuple, kwargs: dict) -> bool:
    parts = _upsample_parts(name, args, kwargs)
    if parts is None or parts[0].numel() != 0 or parts[0].dtype == torch.uint8 or parts[0].is_complex():
        return False
    # torch precomputes per-output-position index tables (8 bytes each) even for no elements
    return math.prod(parts[1][2:]) >= 2**26


def _upsample_empty_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x, shape = _upsample_parts(name, args, kwargs)
    if math.prod(shape[1:]) >= 2**63:  # the output's strides, before any table
        raise RuntimeError("Stride calculation overflowed")
    if not x.is_floating_point():  # the dtype dispatch PyTorch reaches once its tables fit in memory
        raise NotImplementedError(f"upsample not implemented for '{x.dtype}'")
    return torch.empty(shape, dtype=x.dtype)


# --- upsample index rules: an overflowing 1 / scale, and the nearest backward's shortcut --------

_UPSAMPLE_SCALE_NAMES = {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h", "scales_w")}


def _upsample_scales(name: str, args: tuple, kwargs: dict) -> tuple | None:
    """(first scale's position, scale names, input spatial sizes, output spatial sizes) of an aten
    upsample op or its backward."""
    base = name[:-len("_backward")] if name.endswith("_backward") else name
    if not (base.startswith("upsample_") or base.startswith("_upsample_")) or base[-2:] not in ("1d", "2d", "3d"):
        return None
    n = int(base[-2])
    backward = base != name
    first = (2 if "nearest" in base else 3) + (1 if backward else 0)
    out = list(_arg(args, kwargs, 1, "output_size"))
    if backward:
        ins = list(_arg(args, kwargs, 2, "input_size"))[2:]
    else:
        x = _arg(args, kwargs, 0, "input")
        ins = list(x.shape[2:]) if isinstance(x, torch.Tensor) else None
    if ins is None or len(ins) != n or len(out) != n:
        return None
    return first, _UPSAMPLE_SCALE_NAMES[n], ins, out


def _scale_list(parts: tuple, args: tuple, kwargs: dict) -> list:
    first, names, _, _ = parts
    return [_arg(args, kwargs, first + i, nm) for i, nm in enumerate(names)]


def _with_scales(parts: tuple, args: tuple, kwargs: dict, scales: list) -> tuple:
    first, names, _, _ = parts
    args, kwargs = list(args), dict(kwargs)
    for i, (nm, v) in enumerate(zip(names, scales)):
        if len(args) > first + i:
            args[first + i] = v
        else:
            kwargs[nm] = v
    return tuple(args), kwargs


def _tiny_scale(v: Any) -> bool:
    # 1 / v past 2**63 (or inf): the source index is cast to int64 out of range in aten
    return isinstance(v, float) and 0 < v < 1e-20


def _upsample_overflow_applies(name: str, args: tuple, kwargs: dict) -> bool:
    parts = _upsample_scales(name, args, kwargs)
    # invalid sizes are torch's own size error, whatever the scales
    return parts is not None and min(parts[2], default=1) > 0 and any(
        _tiny_scale(v) for v in _scale_list(parts, args, kwargs))


def _upsample_overflow_correct(name: str, args: tuple, kwargs: dict) -> Any:
    # a finite scale with the same taps as an infinite source index: 1 / s = 2 * in + 2 puts every
    # source position past the last input (index in - 1, fraction 1) and output 0 of nearest at 0
    parts = _upsample_scales(name, args, kwargs)
    scales = [1.0 / (2 * n + 2) if _tiny_scale(v) else v
              for v, n in zip(_scale_list(parts, args, kwargs), parts[2])]
    a, kw = _with_scales(parts, args, kwargs, scales)
    return _nn_op(name)(*a, **kw)


def _u8_rgb_point_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in ("upsample_bilinear2d", "upsample_bicubic2d"):
        return False
    x, out = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "output_size")
    ac = _arg(args, kwargs, 2, "align_corners")
    return (isinstance(x, torch.Tensor) and x.dtype == torch.uint8 and x.dim() == 4 and x.shape[0] > 0
            and x.shape[1] == 3 and min(x.shape[2:]) > 0 and tuple(x.shape[2:]) != (1, 1)
            and isinstance(out, (tuple, list)) and list(out) == [1, 1] and isinstance(ac, bool))


def _u8_rgb_point_correct(name: str, args: tuple, kwargs: dict) -> Any:
    # channels are interpolated independently: PyTorch's own answer with a fourth (zero) channel
    x = _arg(args, kwargs, 0, "input")
    x4 = torch.cat([x, torch.zeros_like(x[:, :1])], 1)
    a, kw = list(args), dict(kwargs)
    if a:
        a[0] = x4
    else:
        kw["input"] = x4
    return _nn_op(name)(*a, **kw)[:, :3].contiguous()


def _nearest_shortcut_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in ("upsample_nearest1d_backward", "upsample_nearest3d_backward"):
        return False
    parts = _upsample_scales(name, args, kwargs)
    g = _arg(args, kwargs, 0, "grad_output")
    if parts is None or not isinstance(g, torch.Tensor) or not g.dtype.is_floating_point:
        return False
    _, _, ins, out = parts
    full_in = list(_arg(args, kwargs, 2, "input_size"))
    if list(g.shape) != full_in[:2] + out or min(ins + out) <= 0:
        return False
    return any(isinstance(v, float) and v > 0 and not _tiny_scale(v) and o in (i, 2 * i)
               for v, i, o in zip(_scale_list(parts, args, kwargs), ins, out))


def _nearest_shortcut_correct(name: str, args: tuple, kwargs: dict) -> Any:
    # the adjoint of PyTorch's own forward (which applies the scale): the forward run on each
    # input's flat index (exact in float64) says which input every output reads, and the
    # gradient sums into that input. (autograd through the forward would call the faulty backward.)
    parts = _upsample_scales(name, args, kwargs)
    g = _arg(args, kwargs, 0, "grad_output")
    full_in = list(_arg(args, kwargs, 2, "input_size"))
    plane = math.prod(full_in[2:])
    x = torch.arange(float(plane), dtype=torch.float64).reshape([1, 1] + full_in[2:])
    fwd = _nn_op(name[:-len("_backward")])
    src = fwd(x, list(_arg(args, kwargs, 1, "output_size")), *_scale_list(parts, args, kwargs)).long().flatten()
    flat = g.detach().double().reshape(full_in[0] * full_in[1], -1)
    gx = torch.zeros(flat.shape[0], plane, dtype=torch.float64).index_add_(1, src, flat)
    return gx.reshape(full_in).to(g.dtype)


# --- F.unfold whose block count passes int64 -----------------------------------------------

def _pair(v: Any) -> list | None:
    v = [v, v] if isinstance(v, int) and not isinstance(v, bool) else list(v) if isinstance(v, (tuple, list)) else None
    return v if v is not None and len(v) == 2 and all(isinstance(i, int) and not isinstance(i, bool) for i in v) else None


def _unfold_blocks_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name != "unfold" or (len(args) == 4 and not kwargs):  # Tensor.unfold(dim, size, step): a view
        return False
    x = _arg(args, kwargs, 0, "input")
    k, d, p, st = (_pair(_arg(args, kwargs, i, n, dflt)) for i, n, dflt in
                   ((1, "kernel_size", None), (2, "dilation", 1), (3, "padding", 0), (4, "stride", 1)))
    if not (isinstance(x, torch.Tensor) and x.dim() in (3, 4) and None not in (k, d, p, st)):
        return False
    if not (all(v > 0 for v in k + d + st) and all(0 <= v < 2**63 for v in k + d + p + st)):
        return False  # aten's own argument errors
    outs = [(x.shape[-2 + i] + 2 * p[i] - (d[i] * (k[i] - 1) + 1)) // st[i] + 1 for i in range(2)]
    return min(outs) > 0 and outs[0] * outs[1] >= 2**63


def _unfold_blocks_correct(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError("Stride calculation overflowed")


# --- reductions writing into an out= whose elements share memory ----------------------------

OVERLAP_REDUCTIONS = ("sum", "prod", "nansum", "amax", "amin")


def _reduce_overlap_applies(name: str, args: tuple, kwargs: dict) -> bool:
    out = kwargs.get("out")
    if name not in OVERLAP_REDUCTIONS or not isinstance(out, torch.Tensor) or not _overlaps(out):
        return False
    try:  # PyTorch's answer into an out= of its own: its errors first; a resized out= shares nothing
        fresh = torch.empty(out.shape, dtype=out.dtype)
        with warnings.catch_warnings():  # the resize warning of an out= of another shape
            warnings.simplefilter("ignore")
            getattr(torch, name)(*args, **{**kwargs, "out": fresh})
    except Exception:  # noqa: BLE001 - PyTorch's own error: its answer stands
        return False
    return tuple(fresh.shape) == tuple(out.shape)


def _reduce_overlap_correct(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a single "
                       "memory location. Please clone() the tensor before performing the operation.")


# --- F.unfold whose block count passes int32 (not int64) -------------------------------------

def _unfold_blocks32_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name != "unfold" or (len(args) == 4 and not kwargs):  # Tensor.unfold(dim, size, step): a view
        return False
    x = _arg(args, kwargs, 0, "input")
    k, d, p, st = (_pair(_arg(args, kwargs, i, n, dflt)) for i, n, dflt in
                   ((1, "kernel_size", None), (2, "dilation", 1), (3, "padding", 0), (4, "stride", 1)))
    if not (isinstance(x, torch.Tensor) and x.dim() in (3, 4) and x.numel() and None not in (k, d, p, st)):
        return False
    if not (all(v > 0 for v in k + d + st) and all(0 <= v < 2**31 for v in k + d + st)
            and all(0 <= v < 2**62 for v in p)):  # (a padding of 2**31 too, seed 4417's rerun)
        return False  # aten's own argument errors, or the int64 entries
    sizes = [x.shape[-2 + i] + 2 * p[i] for i in range(2)]
    outs = [(sizes[i] - (d[i] * (k[i] - 1) + 1)) // st[i] + 1 for i in range(2)]
    return (min(outs) > 0 and outs[0] * outs[1] < 2**63
            and any(v >= 2**31 for v in sizes + outs + [d[i] * (k[i] - 1) + 1 for i in range(2)]))


def _unfold_blocks32_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x = _arg(args, kwargs, 0, "input")
    torch.nn.functional.unfold(torch.zeros(1, 1, 1, 1, dtype=x.dtype), 1)  # PyTorch's dtype error, if any
    raise RuntimeError("unfold: the array of sliding blocks is too large to allocate")


# --- F.unfold / F.fold whose dilated kernel extent passes int64 ------------------------------

def _im2col_extent_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in ("unfold", "fold") or (name == "unfold" and len(args) == 4 and not kwargs):
        return False  # Tensor.unfold(dim, size, step): a view
    first = 1 if name == "unfold" else 2  # fold's output_size comes before kernel_size
    x = _arg(args, kwargs, 0, "input")
    k, d, p, st = (_pair(_arg(args, kwargs, first + i, n, dflt)) for i, n, dflt in
                   ((0, "kernel_size", None), (1, "dilation", 1), (2, "padding", 0), (3, "stride", 1)))
    if not (isinstance(x, torch.Tensor) and None not in (k, d, p, st)):
        return False
    if not (all(v > 0 for v in k + d + st) and all(0 <= v < 2**63 for v in k + d + p + st)):
        return False  # aten's own argument errors
    if name == "unfold":  # the input checks before the block count: PyTorch's own errors
        if not (x.dim() in (3, 4) and all(n > 0 for n in x.shape[-3:]) and (x.dim() == 3 or x.shape[1] > 0)):
            return False
        if any(x.shape[-2 + i] + 2 * p[i] > 2**63 - 1 for i in range(2)):
            return False  # unfold-padding-overflow
    else:
        out = _pair(_arg(args, kwargs, 1, "output_size"))
        if out is None or not (x.dim() in (2, 3) and all(n > 0 for n in x.shape[-2:])
                               and x.shape[-2] % (k[0] * k[1]) == 0):
            return False
    return any(d[i] * (k[i] - 1) + 1 > 2**63 - 1 for i in range(2))


def _im2col_extent_correct(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError(f"{name}: the dilated kernel is larger than any input (its extent passes int64): "
                       "no sliding blocks")


# --- group_norm of an input without channels into very many groups -------------------------

def _group_norm_many_applies(name: str, args: tuple, kwargs: dict) -> bool:
    x, g = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "num_groups")
    return (name == "group_norm" and isinstance(x, torch.Tensor) and x.dim() >= 2 and x.shape[0] > 0
            and x.shape[1] == 0 and x.dtype.is_floating_point and isinstance(g, int) and not isinstance(g, bool)
            and 2**20 <= g < 2**63)


def _group_norm_many_correct(name: str, args: tuple, kwargs: dict) -> Any:
    # no channels: every group is empty, so the group count changes nothing but the work
    a, kw = list(args), dict(kwargs)
    if len(a) > 1:
        a[1] = 1
    else:
        kw["num_groups"] = 1
    return torch.group_norm(*a, **kw)


# --- ctc_loss with a target label outside log_probs' classes ---------------------------------

def _ctc_label_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name != "ctc_loss":
        return False
    lp, tg = _arg(args, kwargs, 0, "log_probs"), _arg(args, kwargs, 1, "targets")
    il, tl = _arg(args, kwargs, 2, "input_lengths"), _arg(args, kwargs, 3, "target_lengths")
    if not (isinstance(lp, torch.Tensor) and lp.dim() == 3 and lp.dtype in (torch.float32, torch.float64)
            and isinstance(tg, torch.Tensor) and not tg.dtype.is_complex and 1 <= tg.dim() <= 2):
        return False
    lens = tl.reshape(-1).tolist() if isinstance(tl, torch.Tensor) else list(tl)
    ins = il.reshape(-1).tolist() if isinstance(il, torch.Tensor) else list(il)
    steps, batch, classes = lp.shape
    blank = _arg(args, kwargs, 4, "blank", 0)
    if not (isinstance(blank, int) and _arg(args, kwargs, 5, "reduction", "mean") in ("mean", "sum", "none")
            and isinstance(_arg(args, kwargs, 6, "zero_infinity", False), bool)):
        return False  # the argument checks come first
    if not (len(lens) == len(ins) == batch and 0 <= blank < classes
            and all(0 <= n <= steps for n in ins) and all(n >= 0 for n in lens)):
        return False  # PyTorch's own argument errors come first
    if tg.dim() == 1:
        if tg.numel() != sum(lens):
            return False
        used = tg.tolist()
    else:
        if tg.shape[0] != batch or any(n > tg.shape[1] for n in lens):
            return False
        used = [v for row, n in zip(tg.tolist(), lens) for v in row[:n]]
    # float labels truncate, as aten's cast does; a NaN or infinite one is out of range
    return any(not (math.isfinite(v) and 0 <= int(v) < classes) for v in used)


def _ctc_label_correct(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError("ctc_loss(): target out of the label range of log_probs")


# --- igamma / igammac: float32 kernel, and Q at a tiny shape parameter -------------------------

_IGAMMA = {"igamma": "igamma", "igamma_": "igamma", "special_gammainc": "igamma",
           "igammac": "igammac", "igammac_": "igammac", "special_gammaincc": "igammac"}


def _igamma_parts(args: tuple, kwargs: dict) -> tuple:
    """(a, x, a and x broadcast in float64); raises (so no entry applies) unless both are tensors
    whose promoted dtype and broadcast shape are a's: the in-place call (same name, same arguments)
    then gives the function's answer too."""
    a, x = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "other")
    if not (isinstance(a, torch.Tensor) and isinstance(x, torch.Tensor)) or torch.result_type(a, x) != a.dtype:
        raise TypeError("not covered")
    if torch.broadcast_shapes(a.shape, x.shape) != a.shape:
        raise TypeError("not covered")
    return a, x, *torch.broadcast_tensors(a.double(), x.double())


def _igammac_tiny_mask(ad: torch.Tensor, xd: torch.Tensor) -> torch.Tensor:
    return (ad > 0) & (ad < 1e-6) & (xd > 0) & (xd <= 1.1)


def _igamma_float_applies(name: str, args: tuple, kwargs: dict) -> bool:
    a, x = _igamma_parts(args, kwargs)[:2]
    return name in _IGAMMA and torch.result_type(a, x) in (torch.float32, torch.float16, torch.bfloat16)


def _igammac_tiny_applies(name: str, args: tuple, kwargs: dict) -> bool:
    a, x, ad, xd = _igamma_parts(args, kwargs)
    return (_IGAMMA.get(name) == "igammac" and (a.is_floating_point() or x.is_floating_point())
            and bool(_igammac_tiny_mask(ad, xd).any()))


def _igamma_correct(name: str, args: tuple, kwargs: dict) -> Any:
    import mpmath

    a, x, ad, xd = _igamma_parts(args, kwargs)
    res = getattr(torch, _IGAMMA[name])(ad, xd)  # PyTorch's float64 kernel, right to ~1e-9
    if _IGAMMA[name] == "igammac":
        with mpmath.workdps(40):
            for i in _igammac_tiny_mask(ad, xd).nonzero().tolist():
                q = mpmath.gammainc(ad[tuple(i)].item(), xd[tuple(i)].item(), mpmath.inf, regularized=True)
                res[tuple(i)] = float(q)
    return res.to(torch.result_type(a, x))  # corrected() casts it into an out= or in-place self


# --- grid_sampler with an unknown mode number ----------------------------------------------------

def _grid_mode_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in ("grid_sampler", "grid_sampler_2d", "grid_sampler_3d"):
        return False
    mode = _arg(args, kwargs, 2, "interpolation_mode")
    pad = _arg(args, kwargs, 3, "padding_mode")
    x, g = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "grid")
    if not (isinstance(x, torch.Tensor) and isinstance(g, torch.Tensor) and x.dim() and g.dim()):
        return False
    if not (isinstance(_arg(args, kwargs, 4, "align_corners"), bool) and type(mode) is int and type(pad) is int):
        return False  # the argument parser's TypeError comes first
    if not (-(2**63) <= mode < 2**63 and -(2**63) <= pad < 2**63):
        return False  # and its overflow error
    return not (0 <= int(mode) <= 2 and 0 <= int(pad) <= 2)


def _grid_mode_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x, g = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "grid")
    mode, pad = int(_arg(args, kwargs, 2, "interpolation_mode")), int(_arg(args, kwargs, 3, "padding_mode"))
    valid_mode, valid_pad = 0 <= mode <= 2, 0 <= pad <= 2
    op = {"grid_sampler_2d": torch.grid_sampler_2d, "grid_sampler_3d": torch.grid_sampler_3d}.get(
        name, torch.grid_sampler)
    # PyTorch's own checks (shapes, bicubic 5-d, dtypes) come first: raise what it raises there
    r = op(x, g, mode if valid_mode else 0, pad if valid_pad else 0, False)
    if r.numel() == 0:  # no kernel runs: PyTorch's empty result is right
        return r
    raise RuntimeError(f"grid_sampler(): unknown {'interpolation_mode' if not valid_mode else 'padding_mode'}")


# --- modified Bessel K at the smallest subnormal ---------------------------------------------

_BESSEL_K = {"modified_bessel_k0": 0, "scaled_modified_bessel_k0": 0,
             "modified_bessel_k1": 1, "scaled_modified_bessel_k1": 1}


def _bessel_k_base(name: str) -> str:
    return name[len("special_"):] if name.startswith("special_") else name


def _bessel_k_tiny_mask(x: Any) -> Any:
    if not isinstance(x, torch.Tensor) or x.dtype not in (torch.float32, torch.float64):
        return None
    return x == math.ldexp(1.0, -149 if x.dtype == torch.float32 else -1074)


def _bessel_k_tiny_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if _bessel_k_base(name) not in _BESSEL_K:
        return False
    m = _bessel_k_tiny_mask(_arg(args, kwargs, 0, "input"))
    return m is not None and bool(m.any())


def _bessel_k_tiny_correct(name: str, args: tuple, kwargs: dict) -> Any:
    base = _bessel_k_base(name)
    x, out = _arg(args, kwargs, 0, "input"), kwargs.get("out")
    r = getattr(torch.special, base)(x)
    # K_0(z) = -ln(z/2) - gamma and K_1(z) = 1/z to double precision this close to 0 (the next
    # terms are z^2 ln z smaller), and e^z = 1 there
    if _BESSEL_K[base] == 0:
        z = x.double().clamp_min(math.ldexp(1.0, -1074))
        v = -(torch.log(z) - math.log(2.0) + 0.57721566490153286061)
    else:
        v = torch.full_like(x, math.inf, dtype=torch.float64)
    r = torch.where(_bessel_k_tiny_mask(x), v.to(r.dtype), r)
    return r if out is None else r.to(out.dtype)


# --- layer_norm of a half-type row of equal values ---------------------------------------------

def _layer_norm_parts(args: tuple, kwargs: dict) -> tuple | None:
    x, shape = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "normalized_shape")
    w, b = _arg(args, kwargs, 2, "weight"), _arg(args, kwargs, 3, "bias")
    if not (isinstance(x, torch.Tensor) and x.dtype in (torch.float16, torch.bfloat16)):
        return None
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    k = len(shape)
    if not shape or x.dim() < k or tuple(x.shape[x.dim() - k:]) != shape or x.numel() == 0:
        return None
    params = [p for p in (w, b) if p is not None]
    if any(not isinstance(p, torch.Tensor) or tuple(p.shape) != shape for p in params):
        return None  # PyTorch's own shape error stands
    if params and {p.dtype for p in params} not in ({x.dtype}, {torch.float32}):
        return None  # and its dtype error
    return x, shape, w, b


def _layer_norm_const_applies(name: str, args: tuple, kwargs: dict) -> bool:
    parts = _layer_norm_parts(args, kwargs) if name == "layer_norm" else None
    if parts is None:
        return False
    x, shape = parts[0], parts[1]
    rows = x.float().reshape(-1, math.prod(shape))
    return bool(((rows == rows[:, :1]).all(1) & rows[:, 0].isfinite()).any())


def _layer_norm_const_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x, shape, w, b = _layer_norm_parts(args, kwargs)
    eps = _arg(args, kwargs, 4, "eps", 1e-5)
    d = [None if p is None else p.double() for p in (w, b)]
    return torch.nn.functional.layer_norm(x.double(), shape, d[0], d[1], eps).to(x.dtype)


# --- grid_sample of a half-type input ----------------------------------------------------------

_GRID_SAMPLERS = ("grid_sampler", "grid_sampler_2d", "grid_sampler_3d", "grid_sample")


def _grid_half_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in _GRID_SAMPLERS:
        return False
    x, g = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "grid")
    return (isinstance(x, torch.Tensor) and isinstance(g, torch.Tensor) and x.dtype == g.dtype
            and x.dtype in (torch.float16, torch.bfloat16) and x.numel() > 0 and g.numel() > 0)


def _grid_half_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x = _arg(args, kwargs, 0, "input")
    wide = [a.double() if isinstance(a, torch.Tensor) else a for a in args]
    kw = {k: v.double() if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}
    f = torch.nn.functional.grid_sample if name == "grid_sample" else getattr(torch, name)
    return f(*wide, **kw).to(x.dtype)


# --- var / std over all of a tensor of equal values, past the degrees of freedom ------------------

def _var_all_equal_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in ("var", "std") or kwargs.get("out") is not None:
        return False
    x = _arg(args, kwargs, 0, "input")
    dim = _arg(args, kwargs, 1, "dim")
    # the unbiased overloads: std(x, unbiased) and std(x, dim, unbiased) (False: correction 0)
    unbiased = dim if isinstance(dim, bool) else _arg(args, kwargs, 2, "unbiased")
    dim = None if isinstance(dim, bool) else dim
    if not (isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel() > 0 and x.dim() > 0):
        return False
    if dim not in (None, ()):  # a reduction over every dim longer than 1 is one over all
        dims = {d % x.dim() for d in ([dim] if isinstance(dim, int) else dim)}
        if any(n > 1 and i not in dims for i, n in enumerate(x.shape)):
            return False
    corr = kwargs.get("correction", 0 if unbiased is False else 1)
    if not isinstance(corr, (int, float)) or isinstance(corr, bool) or x.numel() - corr > 0:
        return False
    v = x.flatten()
    return bool(torch.isfinite(v).all() and (v == v[0]).all())


def _var_all_equal_correct(name: str, args: tuple, kwargs: dict) -> Any:
    return getattr(torch, name)(*args, **kwargs).fill_(math.nan)


# --- fractional_max_pool with a kernel size below 1 ------------------------------------------------

_FRACTIONAL = {"fractional_max_pool2d": 2, "fractional_max_pool2d_with_indices": 2,
               "fractional_max_pool3d": 3, "fractional_max_pool3d_with_indices": 3}


def _int_list(v: Any, n: int) -> list | None:
    """An int-or-ints argument as aten's parser reads it (None where the parser refuses it)."""
    v = [v] * n if isinstance(v, int) else list(v)
    if not all(type(i) is int and -(2**63) <= i < 2**63 for i in v) or len(v) not in (1, n):
        return None
    return v * n if len(v) == 1 else v


def _fractional_kernel_applies(name: str, args: tuple, kwargs: dict) -> bool:
    n = _FRACTIONAL.get(name)
    x = _arg(args, kwargs, 0, "input")
    if n is None or not isinstance(x, torch.Tensor) or x.dim() not in (n + 1, n + 2):
        return False
    k = _int_list(_arg(args, kwargs, 1, "kernel_size"), n)
    size, ratio = _arg(args, kwargs, 2, "output_size"), _arg(args, kwargs, 3, "output_ratio")
    samples = kwargs.get("_random_samples", args[5] if len(args) > 5 else None)
    if size is None and ratio is None or size is not None and _int_list(size, n) is None:
        return False  # the functional's ValueError or the parser's error comes first
    out = _int_list(size, n) if size is not None else None
    # aten's "pool too large" test, output + kernel - 1 <= input, wraps past int64 and passes too
    huge = out is not None and k is not None and any(o + kk - 1 >= 2**63 for o, kk in zip(out, k))
    return k is not None and (min(k) <= 0 or huge) and (samples is not None or x.is_floating_point())


def _fractional_kernel_correct(name: str, args: tuple, kwargs: dict) -> Any:
    # every check that precedes it (the input's dims, a zero-size dim) raises a RuntimeError too
    raise RuntimeError(f"{name}(): kernel_size must be greater than zero and fit the input")


# --- polygamma of an order past int32 ----------------------------------------------------------

def _polygamma_huge_order_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name != "polygamma":
        return False
    n, x = _polygamma_parts(args, kwargs)
    out = kwargs.get("out")
    return (2**31 - 1 <= n < 2**63 and not x.is_complex()
            and (out is None or out.dtype.is_floating_point))


def _polygamma_huge_order_correct(name: str, args: tuple, kwargs: dict) -> Any:
    n, x = _polygamma_parts(args, kwargs)
    dt = x.dtype if x.dtype.is_floating_point else torch.get_default_dtype()
    v = x.double()
    s, sign = float(n) + 1.0, (1.0 if n % 2 else -1.0)
    # x > 0: n! zeta(n + 1, x) in logs, the terms (x + k)^-s relative to the first and the tail
    # past k = 64 as the integral of t^-s from x + 64.5 (exact enough where the terms vary slowly)
    xp = torch.where(v > 0, v, 1.0)
    lx = xp.log()
    acc = torch.ones_like(v)
    for k in range(1, 65):
        acc += torch.exp(-s * (torch.log(xp + k) - lx))
    acc += torch.exp(s * lx + (1.0 - s) * torch.log(xp + 64.5) - math.log(s - 1.0))
    pos = sign * torch.exp(math.lgamma(s) - s * lx + acc.log())
    # below 0: a pole (inf with the sign) at each integer, else inf with the sign of the nearest term
    d = v - torch.where(v < 0, -torch.floor(-v + 0.5), torch.floor(v + 0.5))  # round half away from 0
    neg = torch.full_like(v, math.inf) if n % 2 else torch.where(d < 0, math.inf, -math.inf)
    neg = torch.where(v == torch.floor(v), sign * math.inf, neg)
    r = torch.where(v > 0, pos, neg)
    r = torch.where(torch.isposinf(v), -0.0 if sign < 0 else 0.0, r)
    r = torch.where(torch.isnan(v) | torch.isneginf(v), math.nan, r)
    return r.to(dt)


# --- multi_margin_loss / multilabel_margin_loss of an empty batch ------------------------------

def _margin_empty_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in ("multi_margin_loss", "multilabel_margin_loss"):
        return False
    x, t = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "target")
    if len(args) > 2 or set(kwargs) - {"input", "target", "p", "margin", "reduction"}:
        return False  # weights and the legacy size_average / reduce flags: not covered
    if kwargs.get("p", 1) not in (1, 2) or not (isinstance(x, torch.Tensor) and isinstance(t, torch.Tensor)):
        return False
    # reduction='none' is an empty result, right but for a target that is not int64 (its error below)
    if kwargs.get("reduction", "mean") not in ("mean", "sum") and t.dtype == torch.int64:
        return False
    want = (0,) if name == "multi_margin_loss" else (0, x.shape[-1] if x.dim() else 0)
    return (x.dim() == 2 and x.shape[0] == 0 and x.shape[1] > 0 and not x.is_complex() and not t.is_complex()
            and tuple(t.shape) == want)


def _margin_empty_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x, t = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "target")
    if x.dtype not in (torch.float32, torch.float64):  # no kernel: PyTorch's error for any other batch
        raise NotImplementedError(f'"{name}_cpu_kernel" not implemented for \'{_LEGACY[x.dtype]}\'')
    if t.dtype != torch.int64:  # the kernel reads int64 targets: its error for any other batch
        raise RuntimeError(f"expected scalar type Long but found {_LEGACY[t.dtype]}")
    return torch.tensor(math.nan if kwargs.get("reduction", "mean") == "mean" else 0.0, dtype=x.dtype)


# --- scaled_dot_product_attention with an empty value ------------------------------------------

def _sdpa_empty_value_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name != "scaled_dot_product_attention":
        return False
    q, k, v = (_arg(args, kwargs, i, n) for i, n in enumerate(("query", "key", "value")))
    if not all(isinstance(a, torch.Tensor) and a.dim() >= 2 and a.dtype.is_floating_point for a in (q, k, v)):
        return False
    return (v.numel() == 0 and q.numel() > 0 and v.shape[-1] > 0
            and not (bool(torch.isfinite(q).all()) and bool(torch.isfinite(k).all())))


def _sdpa_empty_value_correct(name: str, args: tuple, kwargs: dict) -> Any:
    # PyTorch's own call with the non-finite query and key values replaced: its checks, and its
    # zeros (the weighted sum of no values) for every finite input
    args = tuple(torch.nan_to_num(a, 0.0, 0.0, 0.0) if i < 2 and isinstance(a, torch.Tensor) else a
                 for i, a in enumerate(args))
    kwargs = {k: torch.nan_to_num(a, 0.0, 0.0, 0.0) if k in ("query", "key") else a for k, a in kwargs.items()}
    return torch.nn.functional.scaled_dot_product_attention(*args, **kwargs)


# --- index_put with a 0-d mask ---------------------------------------------------------------

def _index_put_0d_mask_parts(args: tuple, kwargs: dict) -> tuple:
    return (_arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "indices"), _arg(args, kwargs, 2, "values"),
            _arg(args, kwargs, 3, "accumulate", False))


def _index_put_0d_mask_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name != "index_put":
        return False
    x, idx, v, acc = _index_put_0d_mask_parts(args, kwargs)
    if not (isinstance(x, torch.Tensor) and x.dim() > 0 and isinstance(v, torch.Tensor)
            and isinstance(idx, (tuple, list)) and idx and isinstance(acc, bool)):
        return False
    first = idx[0]
    if not (isinstance(first, torch.Tensor) and first.dim() == 0 and first.dtype in (torch.bool, torch.uint8)):
        return False
    # one mask among Nones and a one-element value is aten's masked_fill_ path, which is sound
    masked_fill = not acc and v.numel() == 1 and all(t is None for t in idx[1:])
    return not masked_fill


def _index_put_0d_mask_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x, idx, v, acc = _index_put_0d_mask_parts(args, kwargs)
    # as x[mask] = v does it: the 0-d mask indexes a new leading dim of size 1
    return torch.index_put(x.unsqueeze(0), (idx[0].reshape(1), *idx[1:]), v, acc)[0]


# --- gelu_backward of an integer gradient beside a float16 self --------------------------------

def _gelu_bw_int_half_applies(name: str, args: tuple, kwargs: dict) -> bool:
    g, x, approximate = _gelu_bw_parts(args, kwargs)
    if name != "gelu_backward" or approximate != "none" or not (
            isinstance(g, torch.Tensor) and isinstance(x, torch.Tensor)):
        return False
    if x.dtype != torch.float16 or g.dtype not in (torch.int16, torch.int32, torch.int64, torch.bool):
        return False
    try:
        torch.broadcast_shapes(g.shape, x.shape)
    except RuntimeError:
        return False
    return x.is_contiguous() and x.numel() > 1


def _gelu_bw_int_half_correct(name: str, args: tuple, kwargs: dict) -> Any:
    g, x, _ = _gelu_bw_parts(args, kwargs)
    shape = torch.broadcast_shapes(g.shape, x.shape)
    rt = torch.result_type(g, x)
    return torch.ops.aten.gelu_backward(g.expand(shape).double(), x.expand(shape).double()).to(rt)




# --- the fused CPU attention's rows of NaN scores ----------------------------------------------

def _sdpa_nan_parts(name: str, args: tuple, kwargs: dict) -> tuple | None:
    """(q, k, mask, is_causal, scale) of a call that runs PyTorch's fused CPU kernel, else None."""
    if name == "_scaled_dot_product_flash_attention_for_cpu":
        q, k, v = args[:3]
        causal, mask, scale = _arg(args, kwargs, 4, "is_causal", False), kwargs.get("attn_mask"), kwargs.get("scale")
        if isinstance(mask, torch.Tensor) and mask.numel() == 0:
            mask = None  # the fused kernel ignores a mask without elements, whatever its shape
    elif name == "scaled_dot_product_attention":
        q, k, v = (_arg(args, kwargs, i, n) for i, n in enumerate(("query", "key", "value")))
        mask, dropout = _arg(args, kwargs, 3, "attn_mask"), _arg(args, kwargs, 4, "dropout_p", 0.0)
        causal, scale = _arg(args, kwargs, 5, "is_causal", False), _arg(args, kwargs, 6, "scale")
        gqa = _arg(args, kwargs, 7, "enable_gqa", False)
        if torch._fused_sdp_choice(q, k, v, mask, dropout, causal, scale=scale, enable_gqa=gqa) != 1:
            return None  # the math path, whose NaNs propagate
    else:
        return None
    if not all(isinstance(t, torch.Tensor) and t.dim() == 4 and t.dtype.is_floating_point for t in (q, k, v)):
        return None
    causal = False if causal is None else causal  # the parser reads None as the default
    if q.numel() == 0 or k.numel() == 0 or v.numel() == 0 or not isinstance(causal, bool):
        return None
    return q, k, mask, causal, scale


def _sdpa_nan_rows(parts: tuple) -> Any:
    """The rows whose every score is NaN or -inf, one at least NaN: the scores the kernel reads (Q K^T
    * scale, plus the mask, a bool one as 0 / -inf; -inf past the causal diagonal), in float64."""
    q, k, mask, causal, scale = parts
    s = torch.matmul(q.double(), k.double().transpose(-2, -1)) * (1 / math.sqrt(q.shape[-1]) if scale is None
                                                                  else scale)
    if isinstance(mask, torch.Tensor):
        s = s + (torch.zeros(mask.shape, dtype=torch.float64).masked_fill(~mask, -math.inf)
                 if mask.dtype == torch.bool else mask.double())
    if causal:
        s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool).triu(1), -math.inf)
    return (s.isnan() | (s == -math.inf)).all(-1) & s.isnan().any(-1)


def _sdpa_nan_applies(name: str, args: tuple, kwargs: dict) -> bool:
    parts = _sdpa_nan_parts(name, args, kwargs)
    return parts is not None and bool(_sdpa_nan_rows(parts).any())


def _sdpa_nan_correct(name: str, args: tuple, kwargs: dict) -> Any:
    bad = _sdpa_nan_rows(_sdpa_nan_parts(name, args, kwargs))
    if name == "scaled_dot_product_attention":
        out = torch.nn.functional.scaled_dot_product_attention(*args, **kwargs)
        return out.masked_fill(bad.unsqueeze(-1), math.nan)
    out, lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(*args, **kwargs)[:2]
    return out.masked_fill(bad.unsqueeze(-1), math.nan), lse.masked_fill(bad, math.nan)

# --- tensor_split / chunk into more pieces than memory holds -----------------------------------

_PIECE_BYTES = 256  # a view and its Python object, at the least (ember's check_piece_count)


def _piece_count(name: str, args: tuple, kwargs: dict) -> int | None:
    """The number of pieces of tensor_split(x, sections) or of chunk(x, chunks) along an empty dim."""
    x, n, dim = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "sections" if name == "tensor_split" else
                                                       "chunks"), _arg(args, kwargs, 2, "dim", 0)
    if name not in ("tensor_split", "chunk") or not isinstance(x, torch.Tensor) or x.dim() == 0:
        return None
    # (past int64 the argument parser's own ValueError comes first)
    if not (isinstance(n, int) and not isinstance(n, bool) and 0 < n < 2**63 and isinstance(dim, int)):
        return None
    if not -x.dim() <= dim < x.dim() or (name == "chunk" and x.shape[dim] != 0):
        return None
    return n


def _many_pieces_applies(name: str, args: tuple, kwargs: dict) -> bool:
    import os
    import resource

    n = _piece_count(name, args, kwargs)
    memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit != resource.RLIM_INFINITY:  # the fuzz worker's address-space limit
        memory = min(memory, limit)
    return n is not None and n * _PIECE_BYTES > memory


def _many_pieces_correct(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError(f"{name}: {_piece_count(name, args, kwargs)} pieces need more memory than this machine has")


# --- linalg.eigvals of a matrix holding inf or NaN --------------------------------------------

_EIG_DTYPES = (torch.float32, torch.float64, torch.complex64, torch.complex128)


def _eigvals_nonfinite_applies(name: str, args: tuple, kwargs: dict) -> bool:
    a = _arg(args, kwargs, 0, "A")
    # past PyTorch's own checks (a square matrix of a dtype its kernel has), LAPACK's turn
    return (name == "eigvals" and isinstance(a, torch.Tensor) and a.dtype in _EIG_DTYPES and a.dim() >= 2
            and a.shape[-1] == a.shape[-2] and a.numel() > 0 and not bool(torch.isfinite(a).all()))


def _eigvals_nonfinite_correct(name: str, args: tuple, kwargs: dict) -> Any:
    a = _arg(args, kwargs, 0, "A")
    good = torch.isfinite(a).flatten(-2).all(-1)
    ct = a.dtype if a.is_complex() else (torch.complex64 if a.dtype == torch.float32 else torch.complex128)
    out = torch.full(a.shape[:-1], complex(math.nan, math.nan), dtype=ct)
    if bool(good.any()):  # only the finite matrices reach PyTorch's LAPACK
        out[good] = torch.linalg.eigvals(a[good])
    return out



# --- addmm / baddbmm with an alpha that overflows an operand ----------------------------------

def _scaled_gemm_operands(name: str, args: tuple, kwargs: dict) -> tuple | None:
    """(input, first, second, beta, alpha) of an addmm / baddbmm call, or None for another op."""
    if name not in ("addmm", "baddbmm"):
        return None
    second = ("mat1", "mat2") if name == "addmm" else ("batch1", "batch2")
    return (_arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, second[0]), _arg(args, kwargs, 2, second[1]),
            kwargs.get("beta", 1), kwargs.get("alpha", 1))


def _gemm_alpha_folded_applies(name: str, args: tuple, kwargs: dict) -> bool:
    ops = _scaled_gemm_operands(name, args, kwargs)
    if ops is None:
        return False
    inp, a, b, _beta, alpha = ops
    if not (isinstance(inp, torch.Tensor) and isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        return False
    if not (inp.dtype == a.dtype == b.dtype and a.dtype in (torch.float32, torch.float64)):
        return False
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or math.isnan(alpha):
        return False
    if a.dim() != (2 if name == "addmm" else 3) or b.dim() != a.dim() or a.shape[-1] == 0 or a.numel() == 0:
        return False
    if name == "baddbmm" and a.shape[1] * a.shape[2] * b.shape[2] < 400:
        return False  # aten's small-problem kernel scales the product (alpha * sum), as the formula
    # alpha times an operand's entry overflows the dtype: where MKL folds alpha into an operand
    # the product reads inf there
    big = max(float(torch.nan_to_num(t.abs(), nan=0.0, posinf=0.0).max()) if t.numel() else 0.0 for t in (a, b))
    return math.isinf(alpha) or abs(alpha) * big > torch.finfo(a.dtype).max


def _gemm_alpha_folded_correct(name: str, args: tuple, kwargs: dict) -> Any:
    inp, a, b, beta, alpha = _scaled_gemm_operands(name, args, kwargs)
    op = torch.addmm if name == "addmm" else torch.baddbmm
    prod = op(inp, a, b, beta=0, alpha=1)  # PyTorch's own checks, and the product alone
    out = kwargs.get("out")
    if isinstance(out, torch.Tensor) and out.dtype != prod.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {prod.dtype}, but got {out.dtype} instead")
    scaled = prod * alpha
    return scaled if beta == 0 else inp.expand(prod.shape) * beta + scaled



# --- int64 arange whose span overflows int64 ---------------------------------------------------

def _arange_int_parts(name: str, args: tuple, kwargs: dict) -> tuple | None:
    """(start, end, step) of an int64 arange of Python ints, else None."""
    if name != "arange" or "out" in kwargs or kwargs.get("dtype", torch.int64) != torch.int64:
        return None
    if not 1 <= len(args) <= 3:  # a fourth positional argument is the binding's TypeError (seed 3018)
        return None
    start, end, step = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (start, end, step)):
        return None
    if step == 0 or (step > 0) != (end >= start) or end == start:  # aten's checks, on the given values
        return None
    if any(isinstance(v, float) for v in (start, end, step)):
        if kwargs.get("dtype") != torch.int64 or not all(math.isfinite(v) for v in (start, end, step)):
            return None
        # c10's checked conversion truncates; 2.0**63 passes (its max compared as a double) as INT64_MIN
        start, end, step = (-2**63 if int(v) == 2**63 else int(v) for v in (start, end, step))
    if not all(isinstance(v, int) and not isinstance(v, bool) and -2**63 <= v < 2**63 for v in (start, end, step)):
        return None
    if step == 0:
        return None
    return start, end, step


def _wrap64(v: int) -> int:
    return (v + 2**63) % 2**64 - 2**63


def _arange_span_applies(name: str, args: tuple, kwargs: dict) -> bool:
    parts = _arange_int_parts(name, args, kwargs)
    if parts is None:
        return False
    start, end, step = parts
    sgn = 1 if step > 0 else -1
    exact = end - start + step - sgn
    return _wrap64(exact) != exact  # aten's int64 length arithmetic wraps


def _arange_span_correct(name: str, args: tuple, kwargs: dict) -> Any:
    start, end, step = _arange_int_parts(name, args, kwargs)
    n = -((start - end) // step)  # ceil((end - start) / step), exactly
    if n > 2**63 - 1:
        raise RuntimeError("invalid size, possible overflow?")
    if n * 8 > 2**31:  # past the fuzz worker's address space (3 GiB) with the other library's share
        raise RuntimeError(f"arange of {n} elements: more memory than the fuzz worker has")
    # start + i * step in int64's wrapping arithmetic: every element is in range, so exact
    return torch.arange(n, dtype=torch.int64) * step + start


# --- nll_loss's per-sample error names a Byte target as a character -----------------------------

_NLL_NAMES = {"nll_loss": 6, "cross_entropy": 6, "nll_loss_forward": 3}  # name -> reduction's position


def _nll_byte_target_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name not in _NLL_NAMES:
        return False
    x, t = _arg(args, kwargs, 0, "input" if name != "nll_loss_forward" else "self"), _arg(args, kwargs, 1, "target")
    if not (isinstance(x, torch.Tensor) and isinstance(t, torch.Tensor) and x.dim() == 2 and t.dtype == torch.uint8
            and x.is_floating_point() and t.dim() == 1 and t.numel()):
        return False
    reduction = _arg(args, kwargs, _NLL_NAMES[name], "reduction", "mean" if name != "nll_loss_forward" else 1)
    if name != "nll_loss_forward":
        size_average, reduce = _arg(args, kwargs, 3, "size_average"), _arg(args, kwargs, 5, "reduce")
        if size_average is not None or reduce is not None:
            reduction = "none" if reduce is False else "mean"
    if reduction not in ("none", 0):
        return False
    ignore = _arg(args, kwargs, 4, "ignore_index", -100)
    bad = (t.long() >= 128) & (t.long() >= x.shape[1]) & (t.long() != ignore)
    return bool(bad.any())


def _nll_byte_target_correct(name: str, args: tuple, kwargs: dict) -> Any:
    # the same call with the target as int64: PyTorch's own IndexError, its value written as a number
    args = (args[0], args[1].long(), *args[2:]) if len(args) > 1 else args
    kwargs = {k: v.long() if k == "target" else v for k, v in kwargs.items()}
    if name == "nll_loss_forward":
        return torch.ops.aten.nll_loss_forward(*args, **kwargs)
    return getattr(torch.nn.functional, name)(*args, **kwargs)


# --- adaptive pooling to an empty output through huge output sizes -------------------------------

_ADAPTIVE_POOLS = {f"adaptive_{k}_pool{d}d{s}": d for k in ("avg", "max") for d in (2, 3)
                   for s in ("", "_with_indices")}


def _adaptive_zero_out_sizes(name: str, args: tuple, kwargs: dict) -> list | None:
    """The output sizes of an adaptive pooling call that are all >= 0 with a 0 among them, else None."""
    n = _ADAPTIVE_POOLS.get(name)
    x, size = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "output_size")
    if n is None or not isinstance(x, torch.Tensor) or x.dim() not in (n + 1, n + 2):
        return None
    size = [size] * n if isinstance(size, int) else list(size) if isinstance(size, (list, tuple)) else None
    if size is None or len(size) != n:
        return None
    size = [x.shape[x.dim() - n + i] if v is None else v for i, v in enumerate(size)]
    if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**63 for v in size) or 0 not in size:
        return None  # past int64: the parser's TypeError first (seed 7307)
    if 0 in x.shape[1:]:
        return None  # the kernels' own empty-input errors come first
    return size


def _adaptive_zero_out_applies(name: str, args: tuple, kwargs: dict) -> bool:
    size = _adaptive_zero_out_sizes(name, args, kwargs)
    if size is None or not args[0].is_floating_point():
        return False
    n = len(size)
    prod, wrapped = 1, False
    for v in list(args[0].shape[:-n]) + size:  # c10's numel: a sticky uint64 overflow, raised at once
        prod *= v
        wrapped = wrapped or prod >= 2**64
        prod %= 2**64
    work = math.prod(args[0].shape[:-n]) * math.prod(v for v in size if v)
    return not wrapped and work >= 2**24


def _adaptive_zero_out_correct(name: str, args: tuple, kwargs: dict) -> Any:
    size = _adaptive_zero_out_sizes(name, args, kwargs)
    small = [min(v, 2) for v in size]  # the same checks and path (no size of 1 everywhere: not the mean)
    args2 = (args[0], small, *args[2:]) if len(args) > 1 else args
    kwargs2 = {**kwargs, "output_size": small} if "output_size" in kwargs else kwargs
    functional = "_with_indices" in name or "return_indices" in kwargs or len(args) > 2 or "input" in kwargs
    fn = getattr(torch.nn.functional if functional else torch._C._nn, name)
    r = fn(*args2, **kwargs2)
    shape = list(args[0].shape[:-len(size)]) + size
    if isinstance(r, tuple):
        return tuple(torch.empty(shape, dtype=t.dtype) for t in r)
    return torch.empty(shape, dtype=r.dtype)


# --- circular padding past what a negative pad leaves -------------------------------------------

def _circular_parts(name: str, args: tuple, kwargs: dict) -> tuple | None:
    """(input, pads) of a circular F.pad that aten's own checks pass, else None."""
    x, pad = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "pad")
    if name != "pad" or _arg(args, kwargs, 2, "mode", "constant") != "circular" or _arg(args, kwargs, 3, "value"):
        return None
    if not (isinstance(x, torch.Tensor) and isinstance(pad, (list, tuple)) and len(pad) in (2, 4, 6)
            and all(isinstance(p, int) and not isinstance(p, bool) for p in pad)):
        return None
    k = len(pad) // 2
    if x.dim() not in (k + 1, k + 2) or x.numel() == 0:
        return None
    sizes = [x.shape[x.dim() - 1 - i] for i in range(k)]  # the pads' dims, from the last
    if any(pad[2 * i] > n or pad[2 * i + 1] > n or n + pad[2 * i] + pad[2 * i + 1] < 0 for i, n in enumerate(sizes)):
        return None
    return x, list(pad)


def _circular_crop_applies(name: str, args: tuple, kwargs: dict) -> bool:
    parts = _circular_parts(name, args, kwargs)
    if parts is None:
        return False
    x, pad = parts
    k = len(pad) // 2
    sizes = [x.shape[x.dim() - 1 - i] for i in range(k)]
    if any(n + pad[2 * i] + pad[2 * i + 1] == 0 for i, n in enumerate(sizes)):
        return False  # an empty result: nothing read
    # a pad wraps more than what the other side's crop leaves (nothing left included)
    cores = [n + min(pad[2 * i], 0) + min(pad[2 * i + 1], 0) for i, n in enumerate(sizes)]
    return any(pad[2 * i] > c or pad[2 * i + 1] > c or c <= 0 for i, c in enumerate(cores))


def _circular_crop_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x, pad = _circular_parts(name, args, kwargs)
    for i in range(len(pad) // 2):
        d = x.dim() - 1 - i
        n, before, after = x.shape[d], pad[2 * i], pad[2 * i + 1]
        start, stop = max(0, -before), n - max(0, -after)
        if stop <= start:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        j = torch.arange(n + before + after)
        x = x.index_select(d, start + torch.remainder(j - max(before, 0), stop - start))
    return x


# --- dilated convolution with a padding past int32 ----------------------------------------------

def _conv_pad_huge_bytes(name: str, args: tuple, kwargs: dict) -> int | None:
    """The bytes of the exact output of a plain (groups 1, not transposed) dilated convolution whose padding
    is past int32, else None."""
    if name not in CONV_DIMS or name.startswith("conv_transpose"):
        return None
    x, w, stride, padding, dilation, transposed = _conv_parts(name, args, kwargs)
    groups = _arg(args, kwargs, 8 if name == "convolution" else 6, "groups", 1)
    bias = _arg(args, kwargs, 2, "bias")
    if transposed or groups != 1 or isinstance(padding, str) or not (
            isinstance(x, torch.Tensor) and isinstance(w, torch.Tensor) and x.dtype == w.dtype
            and not x.is_complex() and x.dtype != torch.bool and w.dim() >= 3 and x.dim() == w.dim()
            and x.shape[1] == w.shape[1] and x.numel() and w.numel()):
        return None
    if bias is not None and not (isinstance(bias, torch.Tensor) and bias.dtype == x.dtype
                                 and tuple(bias.shape) == (w.shape[0],)):
        return None
    n = w.dim() - 2
    per = [list(v) * (n if len(v) == 1 else 1) if isinstance(v, (tuple, list)) else [v] * n
           for v in (stride, padding, dilation)]
    if not all(len(v) == n and all(isinstance(u, int) and not isinstance(u, bool) for u in v) for v in per):
        return None
    s, p, d = per
    if not (all(0 < u < 2**31 for u in s + d) and all(0 <= u < 2**63 for u in p)):
        return None
    # aten's dilated kernel (any dilation above 1) sizes the padded input in int32
    if not (any(u > 1 for u in d) and any(x.shape[2 + i] + 2 * p[i] >= 2**31 for i in range(n))):
        return None
    out = [(x.shape[2 + i] + 2 * p[i] - d[i] * (w.shape[2 + i] - 1) - 1) // s[i] + 1 for i in range(n)]
    return x.shape[0] * w.shape[0] * math.prod(out) * x.element_size()


def _conv_pad_huge_applies(name: str, args: tuple, kwargs: dict) -> bool:
    nbytes = _conv_pad_huge_bytes(name, args, kwargs)
    return nbytes is not None and nbytes > 2**31


def _conv_pad_huge_correct(name: str, args: tuple, kwargs: dict) -> Any:
    nbytes = _conv_pad_huge_bytes(name, args, kwargs)
    raise RuntimeError(f"DefaultCPUAllocator: can't allocate memory: you tried to allocate {nbytes} bytes "
                       "(more than the fuzz worker has)")


# --- diag_embed of an empty input at a huge offset ------------------------------------------------

def _diag_embed_parts(name: str, args: tuple, kwargs: dict) -> tuple | None:
    """(input, offset, dim1, dim2, the result's shape) of an empty input's diag_embed whose diagonal's storage
    offset, offset * stride in int64, wraps negative; else None."""
    x = _arg(args, kwargs, 0, "input")
    offset, d1, d2 = (_arg(args, kwargs, i, n, v) for i, n, v in ((1, "offset", 0), (2, "dim1", -2), (3, "dim2", -1)))
    if name != "diag_embed" or "out" in kwargs or not isinstance(x, torch.Tensor) or x.numel() != 0 or x.dim() == 0:
        return None
    if not all(isinstance(v, int) and not isinstance(v, bool) and -2**63 <= v < 2**63 for v in (offset, d1, d2)):
        return None
    nd = x.dim() + 1
    if not (-nd <= d1 < nd and -nd <= d2 < nd) or d1 % nd == d2 % nd:
        return None  # PyTorch's own dim errors
    d1, d2 = d1 % nd, d2 % nd
    n = x.shape[-1] + abs(offset)
    if n >= 2**63:
        return None
    rest = iter(x.shape[:-1])
    shape = [n if d in (d1, d2) else next(rest) for d in range(nd)]
    strides, acc = [0] * nd, 1
    for d in reversed(range(nd)):
        if acc >= 2**63:
            return None  # the allocation's own stride error
        strides[d] = acc
        acc *= max(shape[d], 1)
    at = (abs(offset) * strides[d2 if offset >= 0 else d1]) % 2**64
    return (x, offset, d1, d2, shape) if at >= 2**63 else None


def _diag_embed_offset_applies(name: str, args: tuple, kwargs: dict) -> bool:
    return _diag_embed_parts(name, args, kwargs) is not None


def _diag_embed_offset_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x, _, d1, d2, shape = _diag_embed_parts(name, args, kwargs)
    r = torch.diag_embed(x, 0, d1, d2)  # the same checks at offset 0
    return torch.empty(shape, dtype=r.dtype)


# --- randperm into an out= whose elements share memory ---------------------------------------------

def _randperm_overlap_applies(name: str, args: tuple, kwargs: dict) -> bool:
    out, n = kwargs.get("out"), _arg(args, kwargs, 0, "n")
    if name != "randperm" or not isinstance(out, torch.Tensor) or not isinstance(n, int) or isinstance(n, bool):
        return False
    if len(args) > 1 or not set(kwargs) <= {"n", "out", "dtype", "generator", "layout", "device", "pin_memory",
                                            "requires_grad"}:
        return False  # the parser's TypeError first (seed 8419: randperm(2, 0, out=...))
    dtype = kwargs.get("dtype")
    if out.dtype == torch.bool or out.is_complex():
        return False  # the kernel's dtype error first (seed 8419's rerun)
    return ((dtype is None or dtype == out.dtype) and 0 <= n == out.numel()  # kept, not resized
            and torch._debug_has_internal_overlap(out) == 1)


def _randperm_overlap_correct(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a single "
                       "memory location. Please clone() the tensor before performing the operation.")


# --- replicate padding whose padded size passes int64 ---------------------------------------------

def _int64_pads(x: Any, pad: Any) -> bool:
    """A tensor and 1 to 3 pairs of int64 pads (what aten's pad ops parse)."""
    return (isinstance(x, torch.Tensor) and isinstance(pad, (list, tuple)) and len(pad) in (2, 4, 6)
            and all(isinstance(p, int) and not isinstance(p, bool) and -2**63 <= p < 2**63 for p in pad))


def _f_pad_parts(name: str, args: tuple, kwargs: dict, mode: str) -> tuple | None:
    """(input, pad) of an F.pad call in ``mode`` with no value; None for any other call."""
    if name != "pad" or _arg(args, kwargs, 2, "mode", "constant") != mode or _arg(args, kwargs, 3, "value"):
        return None
    return _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "pad")


def _pad_overflow_applies(name: str, args: tuple, kwargs: dict) -> bool:
    if name in ("replication_pad1d", "replication_pad2d", "replication_pad3d"):  # F.pad's op itself
        x, pad = _arg(args, kwargs, 0, "self"), _arg(args, kwargs, 1, "padding")
        if not isinstance(pad, (list, tuple)) or len(pad) != 2 * int(name[-2]):
            return False
    else:
        parts = _f_pad_parts(name, args, kwargs, "replicate")
        if parts is None:
            return False
        x, pad = parts
    if not _int64_pads(x, pad):
        return False
    k = len(pad) // 2
    if x.dim() not in (k + 1, k + 2) or any(s == 0 for s in x.shape[x.dim() - k - 1:]):
        return False  # aten's own rank and empty-dim errors
    return any(x.shape[x.dim() - 1 - i] + pad[2 * i] + pad[2 * i + 1] >= 2**63 for i in range(k))


def _pad_overflow_correct(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError("pad: the padded size overflows int64")


def _pad_circular_wrap_applies(name: str, args: tuple, kwargs: dict) -> bool:
    """F.pad circular where aten's checks pass (every pad within its dim, each int64 sum >= 0) only because a
    padded size below -2**63 wraps around int64 to a size >= 0."""
    parts = _f_pad_parts(name, args, kwargs, "circular")
    if parts is None or not _int64_pads(*parts) or parts[0].dim() not in (len(parts[1]) // 2 + 1, len(parts[1]) // 2 + 2):
        return False
    x, pad = parts
    k = len(pad) // 2
    dims = [(x.shape[x.dim() - 1 - i], pad[2 * i], pad[2 * i + 1]) for i in range(k)]
    if any(b > n or a > n for n, b, a in dims):
        return False
    wrapped = [(n + b + a + 2**63) % 2**64 - 2**63 for n, b, a in dims]
    return all(w >= 0 for w in wrapped) and any(n + b + a < 0 for n, b, a in dims)


def _pad_circular_wrap_correct(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError("Negative padding value is resulting in an empty dimension")


# --- replication padding to an empty output with a huge padded dim -------------------------------

def _replicate_empty_parts(name: str, args: tuple, kwargs: dict) -> tuple | None:
    """(input, output shape, padded dims) of a replication pad (the op, or F.pad's replicate mode) the
    forward takes, with an empty output."""
    if name in ("replication_pad1d", "replication_pad2d", "replication_pad3d"):
        x, pad, k = _arg(args, kwargs, 0, "self"), _arg(args, kwargs, 1, "padding"), int(name[-2])
    elif name == "pad" and _arg(args, kwargs, 2, "mode", "constant") == "replicate" and not _arg(args, kwargs, 3, "value"):
        x, pad = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "pad")
        k = len(pad) // 2 if isinstance(pad, (list, tuple)) else 0
    else:
        return None
    if not isinstance(x, torch.Tensor) or not isinstance(pad, (list, tuple)) or len(pad) != 2 * k or k not in (1, 2, 3):
        return None
    if not all(isinstance(p, int) and not isinstance(p, bool) and -2**62 <= p < 2**62 for p in pad):
        return None
    if x.dim() not in (k + 1, k + 2) or any(n == 0 for n in x.shape[x.dim() - k - 1:]):
        return None
    shape = list(x.shape)
    for i in range(k):
        shape[x.dim() - 1 - i] += pad[2 * i] + pad[2 * i + 1]
    return (x, shape, k) if all(0 <= n < 2**62 for n in shape) and 0 in shape else None


def _replicate_empty_applies(name: str, args: tuple, kwargs: dict) -> bool:
    parts = _replicate_empty_parts(name, args, kwargs)
    return parts is not None and math.prod(n for n in parts[1] if n) >= 2**26


def _replicate_empty_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x, shape, k = _replicate_empty_parts(name, args, kwargs)
    if x.dtype in (torch.bool, torch.uint16, torch.uint32, torch.uint64, torch.complex32):
        raise NotImplementedError(f'"replication_pad{k}d" not implemented for {x.dtype}')
    return torch.empty(shape, dtype=x.dtype)


# --- reflection / replication padding backward with a grad_output of other leading sizes ----------

_PAD_BACKWARDS = {f"{m}_pad{k}d_backward": k for m in ("reflection", "replication") for k in (1, 2, 3)}


def _pad_backward_parts(name: str, args: tuple, kwargs: dict, family: str = "") -> tuple | None:
    """(k, grad_output, self, padding) of a reflection / replication backward call (of `family`, when
    given) with tensors and a pad list, else None."""
    k = _PAD_BACKWARDS.get(name)
    g, x = _arg(args, kwargs, 0, "grad_output"), _arg(args, kwargs, 1, "self")
    pad = _arg(args, kwargs, 2, "padding")
    if k is None or not name.startswith(family) or not isinstance(g, torch.Tensor) or not isinstance(x, torch.Tensor):
        return None
    return (k, g, x, pad) if isinstance(pad, (list, tuple)) else None


def _pad_backward_leading_applies(name: str, args: tuple, kwargs: dict) -> bool:
    """grad_output of at least self's rank whose shape is not the forward's output shape, for a self and
    pads the forward takes: aten checks the padded sizes only and reads the rest as if they fit."""
    parts = _pad_backward_parts(name, args, kwargs)
    if parts is None:
        return False
    k, g, x, pad = parts
    if len(pad) < 2 * k or x.dim() not in (k + 1, k + 2) or g.dim() < x.dim():
        return False
    if not all(isinstance(p, int) and -2**31 <= p < 2**31 for p in pad):
        return False
    want = list(x.shape)
    for i in range(k):
        want[x.dim() - 1 - i] += pad[2 * i] + pad[2 * i + 1]
    return tuple(g.shape) != tuple(want)


def _pad_backward_leading_correct(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError(f"{name}: grad_output's batch or channel sizes differ from self's")


def _pad_backward_rank_applies(name: str, args: tuple, kwargs: dict) -> bool:
    """A backward call whose self has more dims than the op takes (aten reads it as unbatched)."""
    parts = _pad_backward_parts(name, args, kwargs)
    if parts is None or name == "replication_pad3d_backward" or len(parts[3]) < 2 * parts[0]:
        return False
    k, g, x, _ = parts
    return x.dim() > k + 2 and g.dim() > k and (k < 3 or g.dim() == x.dim())


def _pad_backward_short_pads_applies(name: str, args: tuple, kwargs: dict) -> bool:
    """reflection backward with fewer than 2k pads (aten reads past the list)."""
    parts = _pad_backward_parts(name, args, kwargs, "reflection")
    return parts is not None and len(parts[3]) < 2 * parts[0]


def _pad_backward_reflect_past_applies(name: str, args: tuple, kwargs: dict) -> bool:
    """reflection backward with a pad not below its dim's size (aten's backward does not check it)."""
    parts = _pad_backward_parts(name, args, kwargs, "reflection")
    if parts is None:
        return False
    k, g, x, pad = parts
    if x.dim() not in (k + 1, k + 2) or g.dim() != x.dim() or len(pad) < 2 * k:
        return False
    if not all(isinstance(p, int) for p in pad):
        return False
    return any(max(pad[2 * i], pad[2 * i + 1]) >= x.shape[x.dim() - 1 - i] for i in range(k))


def _pad_backward_int32_applies(name: str, args: tuple, kwargs: dict) -> bool:
    """replication_pad backward with a pad past int32 (its kernel sums the sizes in int)."""
    parts = _pad_backward_parts(name, args, kwargs, "replication")
    if parts is None:
        return False
    k, g, x, pad = parts
    if g.dim() < x.dim() or x.dim() not in (k + 1, k + 2):
        return False
    return len(pad) == 2 * k and any(not -2**31 <= p < 2**31 for p in pad)


# --- 3-d max pooling indices of an all -inf window in channels-last memory ---------------------------

def _max_pool3d_cl_input(name: str, args: tuple, kwargs: dict) -> Any:
    x = _arg(args, kwargs, 0, "input", _arg(args, kwargs, 0, "self"))
    wants_indices = name == "max_pool3d_with_indices" or (name == "max_pool3d" and kwargs.get("return_indices"))
    if not wants_indices or not isinstance(x, torch.Tensor) or x.dim() != 5 or not x.is_floating_point():
        return None
    if x.is_contiguous() or not x.is_contiguous(memory_format=torch.channels_last_3d):
        return None
    return x if bool(torch.isneginf(x).any()) else None


def _max_pool3d_cl_applies(name: str, args: tuple, kwargs: dict) -> bool:
    return _max_pool3d_cl_input(name, args, kwargs) is not None


def _max_pool3d_cl_correct(name: str, args: tuple, kwargs: dict) -> Any:
    x = _max_pool3d_cl_input(name, args, kwargs).contiguous()  # the contiguous kernel: the same windows
    functional = "return_indices" in kwargs or "input" in kwargs or name == "max_pool3d"
    args = (x, *args[1:]) if args else args
    kwargs = {k: (x if k in ("input", "self") else v) for k, v in kwargs.items()}
    return getattr(torch.nn.functional if functional else torch._C._nn, name)(*args, **kwargs)


KNOWN_WRONG = [
    KnownWrong(
        "sdpa-key-value-lengths",
        torch_says="F.scaled_dot_product_attention(q, k, v) with q, k of shape (2, 3, 4, 8) and v (2, 3, 5, 8) "
                   "returns a (2, 3, 4, 8) result (fused CPU kernel: it takes the key count from value and reads "
                   "past key's end, so two calls differ); with k (2, 3, 5, 8), v (2, 3, 4, 8) it drops the last key; "
                   "is_causal=True likewise. Its math backend raises 'Expected size for first two dimensions of "
                   "batch2 tensor to be: [6, 4] but got: [6, 5]'",
        why="attention is softmax(q k^T / sqrt(E)) v: each key weighs the value of its position, so key "
            "(..., S, E) and value (..., S, Ev) must agree in S (PyTorch's documentation); there is no result "
            "for other lengths, and the fused kernel's is read from memory past the tensor",
        applies=_sdpa_kv_len_applies, correct=_sdpa_kv_len_correct),
    KnownWrong(
        "conv-transpose-int32-geometry",
        torch_says="F.conv_transpose2d(torch.ones(1, 3, 4, 4), torch.ones(3, 2, 3, 3), stride=2, padding=2**31 - 1, "
                   "output_padding=1, dilation=2**31) raises 'dilation should be greater than zero, but got "
                   "dilation_height: -2147483648'; torch.convolution(int32 x (2, 3, 4, 3), ..., dilation=[1, 2**31 - 1], "
                   "transposed=True) 'Calculated output size per channel: (8 x -2147483646). Output size is too "
                   "small': slow_conv_transpose2d/3d's shape check takes its sizes as int, truncating and wrapping",
        why="the arguments are valid int64 sizes (PyTorch's signature) and the output size (i - 1) s - 2 p + d (k - 1) "
            "+ op + 1 is 10 and 2147483650 there: the first is a result, computed here tap by tap; the second "
            "is an int32 convolution, which the slow kernel does not implement (NotImplementedError), and "
            "too large to allocate in float. oneDNN's path (int64 geometry) gives PyTorch's own answer. An "
            "integer convolution is sized the same way: int64's result is computed exactly; int32/16/8 and "
            "uint8 have no kernel, but their output is allocated before the dispatch, so one too large "
            "to allocate is that error",
        applies=_conv_t_int32_applies, correct=_conv_t_int32_correct),
    KnownWrong(
        "igammac-tiny-a",
        torch_says="torch.igammac(torch.tensor([1e-30, 1e-10]).double(), torch.tensor([1.1, 0.5]).double()) -> "
                   "[7.63e-31, 5.5977354705e-11] (for a < 1e-6 and x <= 1.1: its small-x series rounds "
                   "lgamma(1 + a) to 0, losing the Euler-gamma term of size a; float32 likewise)",
        why="mpmath.gammainc(a, x, inf, regularized=True) at 40 digits: 1.8599e-31 and 5.5977359481e-11 "
            "(Q(a, x) ~ a E1(x) for a -> 0); ember's lgamma1p keeps the term",
        applies=_igammac_tiny_applies, correct=_igamma_correct, iterator=True),
    KnownWrong(
        "igamma-float32",
        torch_says="torch.igamma(torch.tensor([7626612.5]), torch.tensor([7620600.0])) -> 0.014714051 "
                   "(float32 kernel: computed in float, up to 5e-4 relative off at large a near x and for "
                   "igammac at a ~ 1e-4; float16 / bfloat16 are computed by the same float code)",
        why="PyTorch's own float64 kernel gives 0.0147176847 (mpmath agrees); the right float32 answer "
            "is that value rounded, which ember's double-precision kernel returns",
        applies=_igamma_float_applies, correct=_igamma_correct, iterator=True),
    KnownWrong(
        "gelu-inf",
        torch_says="F.gelu(torch.full((16,), inf)) -> nan (float32, bfloat16, and float16 on "
                   "CPUs with AVX512-FP16 such as Emerald Rapids: the vectorised erf path "
                   "computes inf * 0.5 * (1 + erf(inf)) as inf * (1 - 1) somewhere)",
        why="gelu(x) = x * Phi(x) and Phi(inf) = 1, so gelu(inf) = inf -- PyTorch's own float64 "
            "and scalar paths say so too, and its float16 path on CPUs without AVX512-FP16",
        applies=_gelu_inf_applies, correct=_gelu_inf_correct),
    KnownWrong(
        "airy-ai-float32-phase",
        torch_says="torch.special.airy_ai(torch.tensor([-1e4, -3e5, -2.0**31])) -> [0.02465, "
                   "-0.01073, 1.08e-4] (float32 kernel: the oscillation's phase is lost past "
                   "x ~ -100, relative errors 1e-3 at -1000 and any sign at -1e9)",
        why="Ai(-1e4) = 0.027057, Ai(-3e5) = -0.016389, Ai(-2^31) = -0.0022576 (mpmath; PyTorch's "
            "own float64 kernel agrees): the float32 result is the float64 one rounded",
        applies=_airy_applies, correct=_airy_correct, iterator=True),
    KnownWrong(
        "special-polynomial-huge-degree",
        torch_says="torch.special.legendre_polynomial_p(torch.tensor([0.3]), 2**31 - 1) runs its "
                   "three-term recurrence 2**31 times (minutes per element; laguerre_polynomial_l "
                   "too): inside (-1, 1) the values stay bounded, so nothing ends the loop early",
        why="a hang is never an answer: ember raises a RuntimeError naming the degree for any "
            "degree in (2**20, 2**63) (a degree beyond int64 is 0 without a loop, as in PyTorch)",
        applies=_poly_huge_applies, correct=_poly_huge_correct),
    KnownWrong(
        "ldl-solve-pivots",
        torch_says="torch.linalg.ldl_solve(LD, torch.tensor([1, 2, -3], dtype=torch.int32), B) -> "
                   "[nan, 0, nan] (a negative last pivot starts a 2x2 block past the matrix, which "
                   "LAPACK's sytrs reads and swaps outside B); pivots of another integer dtype "
                   "(int8, int64) reach LAPACK as if they were int32: SIGABRT",
        why="pivots that are not ldl_factor's raise a RuntimeError naming the pivot, as PyTorch "
            "does for a pivot of 0 or past n; other integer dtypes are read as their values",
        applies=_ldl_pivots_applies, correct=_ldl_pivots_correct),
    KnownWrong(
        "arange-int64-size-overflow",
        torch_says="torch.arange(0, 2**63 - 1, 2.0**53, out=torch.zeros(0, dtype=torch.int64)) -> RuntimeError: "
                   "invalid size, possible overflow? (seed 3018); arange(-2**63, 2**63 - 1, 2**62, out=int64) -> an "
                   "empty tensor: aten sizes an int64 arange as (end - start + step - 1) / step in int64, whose "
                   "sum wraps",
        why="the range holds ceil((2**63 - 1) / 2**53) = 1024 values 0, 2**53, ..., 1023 * 2**53, all "
            "in int64: the count computed without the wrap, the values as aten's kernel writes them",
        applies=_arange_overflow_applies, correct=_arange_overflow_correct),
    KnownWrong(
        "shifted-chebyshev-tiny-x-huge-degree",
        torch_says="torch.special.shifted_chebyshev_polynomial_v(torch.tensor([1e-45], dtype=torch.float64), "
                   "2**31 - 1) takes 6 s per element (seeds 3015, 3017: the fuzz worker's 5 s timeout; T, U "
                   "and W alike): 2x - 1 rounds to -1, so neither the x == 0 case nor the |2x - 1| < 1 "
                   "closed form applies and the recurrence runs n times on values that never turn NaN",
        why="with 2x - 1 exactly -1 every step of the recurrence is the one at x = 0, whose value "
            "PyTorch returns without the loop (V: -(2n + 1) for odd n): the entry computes that, "
            "as ember's kernel does",
        applies=_shifted_slow_applies, correct=_shifted_slow_correct),
    KnownWrong(
        "special-polynomial-nan-x",
        torch_says="torch.special.chebyshev_polynomial_u(torch.tensor([nan]), 3) -> -2.74e35 "
                   "(shifted_chebyshev_polynomial_u(nan, 4.0) -> 6.5e-319, laguerre / legendre "
                   "-> 0.0; chebyshev U and W, the shifted T, U and W, Laguerre and Legendre): "
                   "a finite value that changes from call to call",
        why="a polynomial of degree 1 or more evaluated at NaN is NaN, as PyTorch's own "
            "chebyshev_polynomial_t, hermite and shifted V kernels answer",
        applies=_poly_nan_applies, correct=_poly_nan_correct),
    KnownWrong(
        "div-trunc-int-min-by-minus-one",
        torch_says="torch.div(torch.tensor([-2**63]), -1, rounding_mode='trunc') kills the "
                   "process with SIGFPE (int32 too: x86 idiv traps on INT_MIN / -1)",
        why="the quotient 2**63 does not fit and wraps to -2**63, as floor mode, neg and mul "
            "by -1 give in PyTorch; a library call must never kill the process",
        applies=_int_min_applies, correct=_int_min_correct, iterator=True),
    KnownWrong(
        "nanmedian-all-nan-index",
        torch_says="torch.full((1, 4), nan).nanmedian(1).indices -> [2] (length 3: [0], 6: [3], "
                   "9: [7]): std::nth_element run with a comparator that is no strict weak order "
                   "once two NaNs meet (isnan(b) makes a < b and b < a both true), which is "
                   "undefined behaviour",
        why="every element of an all-NaN slice is its NaN median, so the index must not come "
            "from undefined behaviour: the first NaN's, 0, as torch.median gives for a slice "
            "holding NaN; the values (and other slices) are PyTorch's for the contiguous input",
        applies=_nanmedian_nan_applies, correct=_nanmedian_nan_correct),
    KnownWrong(
        "median-expanded-dim",
        torch_says="torch.tensor([3., 1, 2]).expand(4, 3).median(0) -> values [1, 4.6e-41, "
                   "4.6e-41] (reads memory outside the stride-0 dim); nanmedian the same",
        why="the median of a column of four equal values is that value: the result must not "
            "depend on the layout, so it is PyTorch's answer for the contiguous copy",
        applies=_median_applies, correct=_median_correct),
    KnownWrong(
        "polygamma-order-past-int32",
        torch_says="torch.polygamma(2**31 - 1, torch.tensor([0.5, 2.0])) -> [nan, nan]; "
                   "torch.polygamma(2**32 + 1, x) equals torch.polygamma(1, x): its kernel takes the "
                   "order as a C int, so n wraps past int32 and n + 1 overflows at 2**31 - 1 (zeta of a "
                   "negative order is NaN)",
        why="psi^(n)(x) = (-1)^(n+1) n! zeta(n+1, x): for x > 0 that is inf where n! / x^(n+1) "
            "overflows and +-0 where the sum underflows (computed here in logs), at a non-positive "
            "integer the pole's inf, between the poles below 0 inf with the sign of the nearest term",
        applies=_polygamma_huge_order_applies, correct=_polygamma_huge_order_correct, iterator=True),
    KnownWrong(
        "polygamma-inf",
        torch_says="torch.polygamma(2, torch.tensor([inf, -inf])) -> [nan, -inf] (n >= 2; "
                   "n = 1 gives [0, nan])",
        why="psi^(n)(x) = (-1)^(n+1) n! sum_k 1/(x+k)^(n+1) -> 0 as x -> +inf (with the sign "
            "of (-1)^(n+1)), as PyTorch's own n = 1 says; towards -inf it passes a pole at every "
            "non-positive integer and has no limit: NaN",
        applies=_polygamma_applies, correct=_polygamma_correct, iterator=True),
    KnownWrong(
        "trigamma-pole",
        torch_says="torch.polygamma(1, torch.tensor([-1.0, -65504.0])) -> [1.29e15, 3.2e5] "
                   "(float32; 6.6e32 in float64): its reflection formula divides by "
                   "sin(pi x)^2, which is not 0 in floating point at a negative integer",
        why="trigamma(x) = sum_k 1/(x+k)^2 has a double pole at every non-positive integer, "
            "+inf from both sides (as PyTorch's own polygamma(1, 0) = inf and its n >= 2 "
            "poles say); the other elements keep PyTorch's values",
        applies=_trigamma_pole_applies, correct=_trigamma_pole_correct, iterator=True),
    KnownWrong(
        "hardtanh-backward-nan",
        torch_says="torch.ops.aten.hardtanh_backward(torch.ones(12), torch.full((12,), nan), -1., 1.)"
                   " -> 0 for the first 8 elements (its vector loop) and 1 for the last 4 (its "
                   "scalar tail): the answer depends on the element's position and the CPU",
        why="one answer for every element: the vector loop's 0 (a NaN input is not inside "
            "(min, max)), which is what ember gives everywhere (nn's test_activation_ieee); the "
            "same for a NaN min_val or max_val (torch: 0 in the vector loop, the gradient in the "
            "scalar tail where x passes the other bound): (min, max) then holds no value",
        applies=_hardtanh_bw_applies, correct=_hardtanh_bw_correct),
    KnownWrong(
        "shrink-backward-nan",
        torch_says="torch.ops.aten.hardshrink_backward(torch.ones(20), torch.full((20,), nan), 0.5) -> 0 in its "
                   "vector loop and the gradient in its scalar tail (softshrink_backward alike): the answer "
                   "depends on the element's position and the CPU",
        why="one answer for every element: the vector loop's 0 (a NaN input is outside no band of "
            "(-lambd, lambd) it can test), which ember gives everywhere; a NaN lambd likewise gives 0",
        applies=_shrink_bw_applies, correct=_shrink_bw_correct),
    KnownWrong(
        "remainder-quotient-overflow",
        torch_says="torch.remainder(torch.tensor([1.0] * 8, dtype=torch.float64), 5e-324) -> NaN "
                   "in its vector loop (a - b * floor(a / b) with a / b = inf), 0 in its scalar "
                   "tail (fmod): the answer depends on the element's position",
        why="a mod b is exact and finite for finite a and nonzero b: fmod(a, b), moved into "
            "b's sign -- PyTorch's own scalar path, and Python's math.fmod",
        applies=_remainder_applies, correct=_remainder_correct, iterator=True),
    KnownWrong(
        "fmod-quotient-overflow",
        torch_says="torch.fmod(torch.tensor(5), torch.full((16,), 1e-45)) -> NaN in its (Sleef) vector "
                   "loop where a / b overflows to inf, 0 in its scalar tail: the answer depends on the "
                   "element's position",
        why="fmod(a, b) is exact and finite for finite a and nonzero b -- PyTorch's own scalar path, "
            "C's fmod and Python's math.fmod",
        applies=_fmod_applies, correct=_remainder_correct, iterator=True),
    KnownWrong(
        "pool-backward-batch-mismatch",
        torch_says="torch.ops.aten.avg_pool3d_backward(torch.ones(0, 2, 3, 3, 4), "
                   "torch.ones(1, 2, 5, 6, 7), [3], [2], [1], False, True, None) and "
                   "torch.ops.aten._adaptive_avg_pool3d_backward(torch.ones(0, 2, 2, 3, 4), "
                   "torch.ones(1, 2, 5, 6, 7)) kill the process (SIGSEGV); with a larger batch "
                   "they read past the gradient (the 2-d ones too: avg_pool2d_backward("
                   "torch.ones(3, 3, 4, 5), torch.ones(2, 3, 7, 9), [3], [2], [1], False, True, "
                   "None) hangs or returns garbage, a batch of 0 gives zeros): the batch size of "
                   "grad_output is never checked",
        why="a gradient for another batch than the input's has no meaning; PyTorch checks every "
            "other dim and raises RuntimeError for those, so that is the answer",
        applies=_avg_pool3d_backward_applies, correct=_avg_pool3d_backward_correct),
    KnownWrong(
        "std-mean-of-infinity",
        torch_says="torch.std_mean(torch.tensor([inf, 1., 2.])) -> (nan, nan): its Welford "
                   "pass updates the mean by (x - mean) / n, which is inf - inf once an "
                   "infinity is in (an infinity in the last place gives inf); var_mean the same",
        why="the mean of values holding +inf (and no -inf or NaN) is +inf, as torch.mean says; "
            "the spread part is torch.std / torch.var's own answer",
        applies=_std_mean_applies, correct=_std_mean_correct),
    KnownWrong(
        "conv-nonfinite-weight-onednn",
        torch_says="torch.conv2d(x, w, padding='same', dilation=2) with x of shape (2, 2, 6, 5) and "
                   "w of shape (3, 2, 2, 2) holding nan / inf gives +-inf at border outputs: its "
                   "oneDNN path never multiplies the padding, while its native path (x of shape (1, "
                   "1, 3, 3)) gives NaN there, as zero padding means. Transposed the other way round: "
                   "torch.conv_transpose1d(torch.ones(2, 2, 3), w, stride=2, output_padding=1) with an "
                   "inf in w gives NaN at the last output, which no input reaches (oneDNN multiplies "
                   "zeros in), while batch 1 (the native GEMM + col2im) gives 0 there",
        why="zero padding is input 0 at the padded taps, so 0 * inf and 0 * NaN are NaN (IEEE); a "
            "transposed convolution sums the products of actual inputs, and an output no input "
            "reaches has none: aten's native kernels (oneDNN disabled) compute exactly that -- for half "
            "types in float32, rounded once (aten's float16 col2vol adds partial sums in float16: one that "
            "overflows to +inf before a -inf product makes NaN where the sum is -inf, seed 3011). Where the "
            "native path's own size checks refuse the call (an empty transposed output, a stride past int32 "
            "read as int32) PyTorch's own outcome stands",
        applies=_conv_nonfinite_applies, correct=_conv_nonfinite_correct),
    KnownWrong(
        "conv-stride-dilation-past-int32",
        torch_says="torch.conv3d(torch.randn(1, 2, 4, 4, 4), torch.randn(3, 2, 2, 2, 2), stride=2**62) "
                   "prints oneMKL parameter errors and returns ~1e-16 garbage (stride 4 is right); "
                   "torch.conv1d(torch.randn(1, 2, 5), torch.randn(3, 2, 3), dilation=2**62) returns a "
                   "(1, 3, 5) result: the kernel span 2**63 + 1 wraps negative and passes the size check",
        why="a stride past the padded input leaves one output position, the same for any such "
            "stride; a kernel span past the padded input is PyTorch's own 'Kernel size can't be "
            "greater than actual input size' RuntimeError",
        applies=_conv_huge_applies, correct=_conv_huge_correct),
    KnownWrong(
        "conv-zero-input-channels",
        torch_says="F.conv1d(torch.ones(1, 0, 5), torch.ones(2, 0, 3), padding=1) has shape (1, 0, 5) "
                   "(its empty backend gives the output the input's 0 channels)",
        why="the weight has 2 output channels, so the output has 2, each an empty sum over input "
            "channels (0) plus its bias: zeros of shape (1, 2, 5)",
        applies=_conv_no_channels_applies, correct=_conv_no_channels_correct),
    KnownWrong(
        "max-pool-dilated-kernel-int-overflow",
        torch_says="F.max_pool3d(torch.randn(1, 2, 4, 4, 4), kernel_size=2147483647, stride=2, padding=1, "
                   "dilation=4) returns a (1, 2, 7, 7, 7) tensor of -inf with indices such as 65 and 71 "
                   "(outside the 64-element planes); max_pool2d likewise: (kernel_size - 1) * dilation "
                   "wraps in int32 (to -8 here), so the window looks small",
        why="the dilated window spans 8589934585 elements, far more than the input's padded size 6: "
            "the output size is negative, PyTorch's own 'Output size is too small' RuntimeError for "
            "any window that does not wrap",
        applies=_pool_overflow_applies, correct=_pool_overflow_correct),
    KnownWrong(
        "nll-loss-backward-none-unchecked-target",
        torch_says="torch.ops.aten.nll_loss_backward(torch.ones(4), torch.ones(4, 0, dtype=torch.float64), "
                   "torch.tensor([0, 3, 1, -100]), None, 0, -100, torch.tensor(0.)) kills the process "
                   "(SIGSEGV); with a target of -100 and ignore_index 0 on a (3, 4) input it writes "
                   "grad_input[0][-100], outside the tensor, and returns: reduction 'none' on a 2-d input "
                   "is the one path of its kernel without the target bounds check",
        why="a target outside [0, C) other than ignore_index names no class; every other path of "
            "PyTorch's nll_loss_backward (and its forward) raises IndexError 'Target t is out of "
            "bounds.' for it, after its shape checks",
        applies=_nll_backward_applies, correct=_nll_backward_correct),
    KnownWrong(
        "sdpa-flash-inconsistent-shapes",
        torch_says="torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(torch.ones(2, 3, 70, 4,"
                   " dtype=torch.float64), torch.ones(2, 3, 70, 4, dtype=torch.float64), torch.ones(2, 1,"
                   " 0, 4, dtype=torch.float64), 0.0, True) kills the process (SIGSEGV): only the head"
                   " sizes of query, key and value are checked; the backward reads grad_out, out and"
                   " logsumexp by the query's shape too (a grad_out of batch 0 for a query of batch 2"
                   " kills it; a 3-d grad_out of the query's last three sizes is read past its end);"
                   " so does a grad_out of batch 0 beside a float64 attn_mask of a float32 query (fuzz seed"
                   " 2812: the backward takes a mask of any float dtype);"
                   " a float32 query with float64 key (2, 3, 6, 4) and value (2, 3, 0, 4): SIGFPE, where"
                   " consistent shapes of mixed dtypes raise 'expected scalar type Float but found Double'",
        why="attention of queries over keys and values of other batches, heads or lengths is "
            "undefined; PyTorch raises RuntimeError for its other shape errors (the head sizes), "
            "so that is the answer",
        applies=_sdpa_shapes_applies, correct=_sdpa_shapes_correct),
    KnownWrong(
        "sdpa-flash-no-heads",
        torch_says="torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, q, q, 0.0, True) with q = "
                   "torch.randn(2, 0, 5, 4, dtype=torch.float64) kills the process (SIGFPE), as its backward "
                   "does for such a query (grad_out, out and logsumexp of the same shapes), and the forward "
                   "for a query of length 0 (q: (2, 3, 0, 4), k and v: (2, 3, 6, 4)): the kernels split "
                   "their work by the head count (the forward by the query blocks), dividing by zero",
        why="with no heads there is nothing to attend: the outputs are empty, of the shapes and dtypes "
            "PyTorch's own meta function gives (after its checks), which ember returns",
        applies=_sdpa_no_heads_applies, correct=_sdpa_no_heads_correct),
    KnownWrong(
        "sdpa-flash-strided-head-dim",
        torch_says="f = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu; q = "
                   "torch.randn(2, 3, 5, 8, dtype=torch.float64)[..., ::2]; f(q, k, v, 0.0, True)[0] "
                   "differs from f(q.contiguous(), k, v, 0.0, True)[0] by up to 1.7 (k, v: randn(2, "
                   "3, 6, 4)): the kernel walks the head dim as if its stride were 1",
        why="attention depends on the values, not on the layout; the answer is PyTorch's for "
            "contiguous copies of the tensors",
        applies=_sdpa_stride_applies, correct=_sdpa_stride_correct),
    KnownWrong(
        "adaptive-avg-pool-backward-empty-input",
        torch_says="torch.ops.aten._adaptive_avg_pool2d_backward(torch.ones(2, 3, 3, 4), "
                   "torch.ones(2, 3, 0, 9)) kills the process (its window arithmetic divides by the "
                   "input's empty size)",
        why="pooling an input without elements has no inputs to send a gradient to: the "
            "gradient is the input's (empty) shape of zeros, as the forward's empty result says",
        applies=_adaptive_empty_applies, correct=_adaptive_empty_correct),
    KnownWrong(
        "pixel-unshuffle-empty-shape",
        torch_says="F.pixel_unshuffle(torch.empty(0, 2, 4, 6), 2).shape is (0, 2, 4, 6): the CPU "
                   "kernel returns a clone of an empty input, while the same call on the meta "
                   "device (PyTorch's shape function) gives (0, 8, 2, 3)",
        why="pixel_unshuffle maps (*, C, H, W) to (*, C*r*r, H/r, W/r) whatever the batch holds, as "
            "PyTorch documents and its own meta kernel computes; pixel_shuffle's empty case keeps "
            "that contract",
        applies=_unshuffle_empty_applies, correct=_unshuffle_empty_correct),
    KnownWrong(
        "unfold-padding-overflow",
        torch_says="F.unfold(torch.ones(2, 3, 2, 5), (2, 1), padding=2**62) returns a (2, 6, 5) tensor "
                   "of uninitialised memory: im2col's output size (h + 2 * padding - ...) wraps in int64",
        why="the padded input has more than 2**63 - 1 rows, so there is no such array of blocks: "
            "an error (RuntimeError, as PyTorch's for every other impossible size), not a result",
        applies=_unfold_pad_applies, correct=_unfold_pad_correct),
    KnownWrong(
        "fused-optimizer-inconsistent-lists",
        torch_says="torch._fused_adam_/_fused_adamw_/_fused_sgd_ with lists of different "
                   "lengths, or a gradient / state of another shape or dtype than its "
                   "parameter, read out of bounds and kill the process (SIGSEGV)",
        why="the step is undefined for such lists; PyTorch's own foreach ops and optimizers "
            "reject them with a RuntimeError, which is what ember must raise",
        applies=_fused_applies, correct=_fused_correct),
    KnownWrong(
        "fused-optimizer-non-contiguous",
        torch_says="torch._fused_adam_/_fused_adamw_/_fused_sgd_ walk each tensor's memory as if it "
                   "were contiguous: a transposed gradient beside a contiguous parameter pairs "
                   "the wrong elements, a sliced one reads and writes past the view",
        why="the optimizer step is elementwise, so the layout cannot change it: the right answer "
            "is the step on contiguous copies, written back (what torch.optim's foreach path "
            "computes)",
        applies=_fused_layout_applies, correct=_fused_layout_correct),
    KnownWrong(
        "gelu-backward-broadcast-or-mixed",
        torch_says="torch.ops.aten.gelu_backward(torch.tensor(2.), torch.randn(3, 4)) raises (as a "
                   "self of shape (4,) beside a (3, 4) gradient, int8 and uint8 gradients too; a "
                   "(0, 1) gradient beside a (12,) self kills the process) "
                   "'could not create a primitive descriptor for the reorder primitive' (its "
                   "oneDNN path, float32 / half types, approximate='none'; float64 broadcasts); "
                   "with a float32 gradient and a float16 self the float32 result holds float16 "
                   "values (gelu_backward(1, -3.0) = -0.0119476318359375, float32 says -0.0119456)",
        why="gelu_backward is elementwise over the broadcast shape in the promoted dtype, as its "
            "float64 path, its broadcasting of self and its result dtype say: both operands "
            "broadcast and promoted first give the answer",
        applies=_gelu_bw_applies, correct=_gelu_bw_correct),
    KnownWrong(
        "embedding-bag-no-offsets",
        torch_says="F.embedding_bag(torch.tensor([0, 1]), torch.ones(5, 4), torch.zeros(0, "
                   "dtype=torch.long), mode='max') kills the process (SIGSEGV), as 'mean' does "
                   "with a non-contiguous weight",
        why="offsets with no entries make no bags; PyTorch's 'sum' and 'mean' modes (contiguous "
            "weight) return the empty (0, embedding_dim) result, and that is every mode's answer",
        applies=_bag_max_empty_applies, correct=_bag_max_empty_correct),
    KnownWrong(
        "lp-pool-exponent-rounds-to-zero",
        torch_says="F.lp_pool1d(torch.zeros(1, 1, 40), 5e-324, 2) is [inf] * 16 + [0] * 4: float32 "
                   "pow reads the exponent as float32 (0, so x ** p = 1) in its vector loop but as the "
                   "double 5e-324 (0 ** p = 0) in its scalar tail (the last 8 of 40 elements), so the "
                   "result depends on where an element falls; with p = 1e300 the same holds for the "
                   "final pow by 1 / p = 1e-300 (torch.zeros(100).pow(1e-300) is 1 then 0 at the end)",
        why="one pow, one answer for every element: the float32 exponent as the vector loop "
            "uses it (0 for 5e-324 and 1e-300, inf for 1e300), for both of lp_pool's pows",
        applies=_lp_tiny_applies, correct=_lp_tiny_correct),
    KnownWrong(
        "local-response-norm-exponent-rounds-to-zero",
        torch_says="F.local_response_norm(torch.ones(1, 1, 1), 3, alpha=inf, beta=5e-324) is [[[0.]]]: "
                   "the divisor (inf) to the power beta, in the float32 pow's scalar tail, reads beta as "
                   "the double 5e-324 (inf ** beta = inf); its vector loop reads it as float32 (0), 1",
        why="the same pow as lp_pool's: the float32 exponent (0) for every element, so the divisor is "
            "1 and the result is the input -- PyTorch's own answer for beta = 0",
        applies=_lrn_tiny_applies, correct=_lrn_tiny_correct),
    KnownWrong(
        "batch-norm-shared-running-stats",
        torch_says="rm = torch.zeros(1).expand(3); F.batch_norm(torch.arange(12.).reshape(4, 3), rm, "
                   "torch.ones(1).expand(3), training=True) leaves rm at 1.5095 on one thread, 1.4815 on "
                   "two, 1.4805 on four: the channels' updates of the one shared element race between "
                   "threads",
        why="the update of a running statistic whose channels share memory has no single answer in "
            "PyTorch; ember applies the channels' updates in order (rm = 1.5095 above), and the "
            "result itself does not depend on the running statistics in training",
        applies=_bn_shared_stats_applies, correct=_bn_shared_stats_correct),
    KnownWrong(
        "max-pool1d-kernel-past-int32",
        torch_says="F.max_pool1d(torch.ones(2, 3, 8), kernel_size=2**53, stride=2, padding=1) hangs (2**35 "
                   "too; 2**63 - 1 kills the process), where kernel_size=2**31 raises RuntimeError "
                   "'max_pool1d() Invalid computed output size: 0'",
        why="a window longer than the padded input has no output position whatever its size: the "
            "RuntimeError PyTorch gives for 2**31",
        applies=_pool1d_huge_applies, correct=_pool1d_huge_correct),
    KnownWrong(
        "int64-bound-two-to-the-63",
        torch_says="F.hardtanh(torch.arange(3), -1.0, 2.0**63) -> [-2**63, -2**63, -2**63] and "
                   "F.threshold(torch.arange(3) - 1, 0.5, 2.0**63) writes -2**63: the bound passes "
                   "c10's range check (int64's max as a double is 2**63) and its cast wraps",
        why="2**63 is not an int64, so the bound cannot be converted: c10's own overflow error "
            "(as for any bound past it), not a clamp to the most negative int",
        applies=_int_bound_applies, correct=_int_bound_correct, iterator=True),
    KnownWrong(
        "upsample-empty-input-index-tables",
        torch_says="F.interpolate(torch.empty(0, 2, 5), size=2**31 - 1, mode='nearest-exact') raises "
                   "'DefaultCPUAllocator: can't allocate memory: you tried to allocate 17179869176 "
                   "bytes': it builds a table of source indices for every output position before "
                   "looking at the batch, which holds no element",
        why="the result has no elements: an empty tensor of the output shape (for an integer input "
            "the dtype error), what PyTorch gives itself wherever that table fits in memory (its "
            "error depends on the machine's memory)",
        applies=_upsample_empty_applies, correct=_upsample_empty_correct),
    KnownWrong(
        "ctc-loss-label-out-of-range",
        torch_says="F.ctc_loss(torch.zeros(6, 2, 1), torch.tensor([[1, 2, 3], [1, 1, 2]]), [6, 5], "
                   "[3, 2]) returns -1.4155: a label past the C = 1 classes indexes log_probs out of "
                   "bounds (undefined behaviour; the value is whatever memory lies there)",
        why="a label must name one of log_probs' classes; a read out of bounds is no answer, so "
            "ember raises the RuntimeError naming the label and log_probs' shape",
        applies=_ctc_label_applies, correct=_ctc_label_correct),
    KnownWrong(
        "upsample-scale-overflow",
        torch_says="torch.ops.aten.upsample_bicubic2d(x, (8, 10), False, 2.0, 5e-324) with x holding inf: "
                   "1 / 5e-324 = inf makes every source index inf, and aten casts floor(inf) to int64 "
                   "(undefined behaviour: INT64_MIN on x86, so the taps land on input 0 there and on the "
                   "last input on ARM); nearest's 0 * inf = NaN cast the same way",
        why="an index past the input is the last input (the clamp aten applies to every finite "
            "index), as a finite scale that large gives in PyTorch itself; ember casts no "
            "out-of-range float",
        applies=_upsample_overflow_applies, correct=_upsample_overflow_correct),
    KnownWrong(
        "im2col-dilated-extent-wraps",
        torch_says="F.unfold(torch.ones(2, 3, 5, 5), (2, 2), dilation=2**63 - 1) returns a (2, 12, 36) tensor of "
                   "uninitialised memory (fuzz seed 2812): the extent dilation * (kernel - 1) + 1 wraps to -2**63 "
                   "in int64, so 6 blocks a dim fit; F.fold(torch.ones(2, 12, 36), (5, 5), (2, 2), "
                   "dilation=2**63 - 1) returns zeros the same way",
        why="a kernel spanning more than 2**63 - 1 positions fits in no input, so there is no block: "
            "PyTorch's own answer for an extent past the input (dilation=2**31: 'calculated shape of the "
            "array of sliding blocks ... must be at least one', a RuntimeError)",
        applies=_im2col_extent_applies, correct=_im2col_extent_correct),
    KnownWrong(
        "reduction-out-internal-overlap",
        torch_says="torch.prod(torch.arange(1, 13).reshape(3, 4), 0, out=torch.zeros(1).expand(4)) returns "
                   "[479001600.] * 4 (12!, the product of all 12 elements, not of each column: the four "
                   "outputs accumulate into one element); sum, nansum, amax, amin the same, while mean and "
                   "the elementwise ops refuse such an out= (fuzz seed 9731)",
        why="an out= whose elements share memory cannot hold a result of distinct elements: PyTorch's "
            "own answer for every other op writing it, the internal-overlap RuntimeError",
        applies=_reduce_overlap_applies, correct=_reduce_overlap_correct),
    KnownWrong(
        "unfold-block-count-wraps-int32",
        torch_says="F.unfold(torch.ones(2, 3, 5, 5, dtype=torch.int64), (2, 2), dilation=2**31 - 1, "
                   "padding=2**31 - 1) raises 'calculated shape of the array of sliding blocks as "
                   "(-2147483644, -2147483644), but its components must be at least one' (fuzz seed 9731): "
                   "2**31 + 4 blocks a dim, wrapped in int32",
        why="there are 2**31 + 4 positive block positions a dim, so the shape check passes: what follows is "
            "PyTorch's own next error, the kernel's dtype error (integer input), else a size too large "
            "to allocate (a RuntimeError, as PyTorch's allocator raises)",
        applies=_unfold_blocks32_applies, correct=_unfold_blocks32_correct),
    KnownWrong(
        "unfold-block-count-wraps",
        torch_says="F.unfold(torch.zeros(0, 3, 5, 5), (2, 2), padding=2**31 - 1) returns a tensor of shape "
                   "(0, 12, 17179869188): 4294967298 ** 2 blocks, wrapped modulo 2**64",
        why="the block count is past int64, so no tensor has that shape: the size error (a batch "
            "with elements gets PyTorch's own allocation error)",
        applies=_unfold_blocks_applies, correct=_unfold_blocks_correct),
    KnownWrong(
        "group-norm-many-empty-groups",
        torch_says="torch.nn.functional.group_norm(torch.ones(1, 0), 2**31 - 1) runs for minutes (about 90 "
                   "ns per group, and 16 GB of per-group statistics) before it returns an empty tensor",
        why="an input without channels has only empty groups: the result is the empty tensor PyTorch "
            "returns for one group (its checks included), which ember returns at once",
        applies=_group_norm_many_applies, correct=_group_norm_many_correct),
    KnownWrong(
        "upsample-uint8-rgb-to-one-pixel",
        torch_says="torch._C._nn.upsample_bilinear2d(torch.zeros(1, 3, 4, 5, dtype=torch.uint8), (1, 1), True) "
                   "raises 'num_channels == unpacked_output.size(0) INTERNAL ASSERT FAILED ... please report "
                   "a bug to PyTorch' (its AVX uint8 kernel: 3 channels into a 1x1 output); bicubic too",
        why="an internal assert is PyTorch's bug, not an argument error; each channel is interpolated "
            "on its own, so PyTorch's answer with a fourth channel added, less that channel, is the value",
        applies=_u8_rgb_point_applies, correct=_u8_rgb_point_correct),
    KnownWrong(
        "upsample-nearest-backward-shortcut",
        torch_says="torch.ops.aten.upsample_nearest1d_backward(torch.arange(4.).reshape(1, 1, 4), [4], "
                   "[1, 1, 4], 2.0) -> [0, 1, 2, 3], while its forward upsample_nearest1d(x, [4], 2.0) "
                   "picks inputs [0, 0, 1, 1]: the backward copies (out == in) or halves (out == 2 * in) "
                   "whatever the scale, the 1-d and 3-d forwards apply the scale",
        why="a gradient is the adjoint of its forward: each output's gradient goes to the input "
            "PyTorch's own forward read it from (autograd through that forward would call this "
            "same backward), which ember's backward gives",
        applies=_nearest_shortcut_applies, correct=_nearest_shortcut_correct),
    KnownWrong(
        "grid-sampler-unknown-mode",
        torch_says="torch.grid_sampler_2d(torch.randn(1, 2, 3, 3), torch.zeros(1, 2, 2, 2), 5, 0, False) "
                   "returns uninitialised memory (values like 2.9e-39, 2.3e+11): aten casts the int to its "
                   "mode enum and no kernel branch matches",
        why="an argument outside the enum has no meaning; ember raises PyTorch's RuntimeError type "
            "(after PyTorch's shape checks) rather than return garbage",
        applies=_grid_mode_applies, correct=_grid_mode_correct),
    KnownWrong(
        "bessel-k-smallest-subnormal",
        torch_says="torch.special.modified_bessel_k1(torch.tensor([1e-45])) is nan (inf in float32: "
                   "K_1(z) = 1/z = 7.1e44), scaled_modified_bessel_k0(torch.tensor([1e-45])) is inf (103.39, "
                   "as modified_bessel_k0 says); at 5e-324 in float64 K_1 and its scaled form are nan, K_0 "
                   "and its scaled form inf (744.556): only at the dtype's smallest subnormal",
        why="K_0(z) = -ln(z/2) - gamma and K_1(z) = 1/z to double precision for z that small (the "
            "next series terms are z^2 ln z smaller) and e^z = 1 there; PyTorch's own answers at "
            "the next subnormals agree",
        applies=_bessel_k_tiny_applies, correct=_bessel_k_tiny_correct),
    KnownWrong(
        "layer-norm-half-equal-row",
        torch_says="torch.layer_norm(torch.full((1, 8), 0.7, dtype=torch.float16), [8]) is -7.39e-06 "
                   "everywhere (bfloat16 -9.5e-07): the half-type kernel writes y = x * rstd + (-mean * rstd) "
                   "in float32, whose two rounded products do not cancel; float32 and float64 give 0",
        why="a row of equal values equals its mean, so (x - mean) * rstd is exactly 0 (then times "
            "weight plus bias): the float64 layer_norm rounded to the input's dtype, which ember's "
            "(x - mean) * rstd gives",
        applies=_layer_norm_const_applies, correct=_layer_norm_const_correct),
    KnownWrong(
        "grid-sampler-half-arithmetic",
        torch_says="torch.grid_sampler_3d(x, g, 0, 0, False) with float16 x, g: 0.0461 where the float64 "
                   "answer is 0.0467 (float32's rounded: 0.0467): the half-type kernels round every "
                   "coordinate, weight and product to the half type (the 2-d ones too; errors of many "
                   "ulps, not one)",
        why="grid sampling is a weighted sum of input values; computed in float64 and rounded once "
            "to the input's dtype it is the correctly rounded answer, which ember's float32 "
            "arithmetic gives to an ulp",
        applies=_grid_half_applies, correct=_grid_half_correct),
    KnownWrong(
        "var-all-equal-values",
        torch_says="torch.var(torch.tensor([0.34597599506378174]).expand(7), correction=7) is inf (for "
                   "about half of random values): its reduction over all elements leaves a rounding "
                   "residue in the sum of (x - mean)^2, where its reduction along one dim of several "
                   "gives nan",
        why="equal values have deviations of exactly 0, so past the degrees of freedom the variance is "
            "0 / 0 = NaN, as PyTorch's own reduction along a dim says",
        applies=_var_all_equal_applies, correct=_var_all_equal_correct),
    KnownWrong(
        "fractional-max-pool-nonpositive-kernel",
        torch_says="F.fractional_max_pool2d(torch.arange(36.).reshape(1, 1, 6, 6), 0, output_size=2, "
                   "_random_samples=torch.full((1, 1, 2), 0.5), return_indices=True) -> values all -inf, "
                   "indices [[0, 6], [36, 42]] (36 and 42 lie outside the 6 x 6 plane); a kernel of "
                   "-2**31 + 1 never returns, -2**31 fails an internal assert: aten has no lower bound; "
                   "a kernel of 2**63 - 1 passes its size check (output + kernel - 1 wraps past int64)",
        why="a window of no element has no maximum and no index: the kernel size must be at least 1, "
            "so ember raises a RuntimeError naming it (after aten's input checks); a kernel larger than "
            "the input is aten's own 'too large' error, whatever the wrap",
        applies=_fractional_kernel_applies, correct=_fractional_kernel_correct),
    KnownWrong(
        "margin-loss-empty-batch",
        torch_says="F.multi_margin_loss(torch.zeros(0, 4), torch.zeros(0, dtype=torch.long)) returns "
                   "2.0922e-07, then -1.0581e+36 on the next call (reduction 'sum' too; "
                   "multilabel_margin_loss likewise; an int64 input returns garbage of its dtype): the "
                   "reduction reads a buffer it never wrote",
        why="a sum over no samples is 0 and their mean 0 / 0 = NaN, as PyTorch's other losses and "
            "torch.mean of an empty tensor give; a dtype without a kernel is PyTorch's own "
            "NotImplementedError for any other batch, a target that is not int64 its 'expected scalar "
            "type Long' RuntimeError (PyTorch skips both checks for an empty batch, any reduction)",
        applies=_margin_empty_applies, correct=_margin_empty_correct),
    KnownWrong(
        "sdpa-empty-value-nonfinite",
        torch_says="F.scaled_dot_product_attention(q, k, torch.randn(0, 3, 4, 8)) with q, k = "
                   "torch.randn(2, 3, 4, 8) is zeros, but NaN everywhere (all 192 elements) once one "
                   "element of q (or k) is NaN or inf; a value of shape (2, 3, 0, 8) the same",
        why="a NaN in one batch's query cannot reach another batch's output; the weighted sum of "
            "no values is 0, PyTorch's own answer for finite inputs",
        applies=_sdpa_empty_value_applies, correct=_sdpa_empty_value_correct),
    KnownWrong(
        "index-put-0d-mask",
        torch_says="torch.index_put(torch.zeros(2, 3), (torch.tensor(True),), torch.tensor([5., 6, 7])) "
                   "raises 'ntensor >= 3 INTERNAL ASSERT FAILED' (a 0-d uint8 mask, and accumulate=True "
                   "with any value, the same), while x[torch.tensor(True)] = torch.tensor([5., 6, 7]) "
                   "sets both rows",
        why="a 0-d mask indexes a new leading dim of size 1 (True) or 0 (False), as indexing and "
            "setitem with it do; index_put is setitem's op, so its answer is setitem's",
        applies=_index_put_0d_mask_applies, correct=_index_put_0d_mask_correct),
    KnownWrong(
        "gelu-backward-onednn-flush",
        torch_says="torch.ops.aten.gelu_backward(torch.full((2,), inf), torch.tensor([-9.9, -12.0])) is [nan, nan] "
                   "(float32 and bfloat16, contiguous: oneDNN's eltwise_gelu_erf backward returns a derivative of "
                   "exactly 0 from x = -6.152 down, where float32's is -2.06e-21 at -9.9 and -2.58e-31 at -12); "
                   "with oneDNN disabled, or in float16 on a CPU without AVX512-FP16 (aten's formula), the same "
                   "call is [-inf, -inf]; with AVX512-FP16 float16 is flushed as well",
        why="d gelu / dx = Phi(x) + x phi(x) is nonzero and representable in float32 down to x = -14.1 "
            "(float64 reference: -2.0604e-21 at -9.9), and inf times a nonzero finite number is +-inf (IEEE); "
            "below -14.1 the float32 derivative underflows to 0 and inf * 0 is NaN, as PyTorch gives there too. "
            "The value here: aten's own formula (oneDNN disabled), which ember's kernel follows term by term",
        applies=_gelu_bw_flush_applies, correct=_gelu_bw_flush_correct),
    KnownWrong(
        "layer-norm-overflow",
        torch_says="F.layer_norm(torch.tensor([[1e300, -1e300, 1e300]], dtype=torch.float64), (3,)) is all NaN "
                   "(its rstd NaN), so is a constant row of 1e300 or [1e160, -1e160, 1, 1]; [1e154, -1e154, 1, 1] "
                   "gives 0 (rstd 0). float32 likewise from |x| ~ 1e19 ([1e20] * 4: NaN; [1e20, -1e20, 1e20, -3e19]: "
                   "0): the row's moments square x in the op-math type and overflow",
        why="(x - mean) / sqrt(var + eps) is scale-free: the first row is [0.7071, -1.4142, 0.7071] (var "
            "8.9e599 is past float64, 1 / sqrt(var) = 1.06e-300 is not), a constant row 0; computed here on the "
            "row scaled by a power of two (exact), ember's kernel recomputes such a row the same way",
        applies=_ln_overflow_applies, correct=_ln_overflow_correct),
    KnownWrong(
        "gelu-backward-int-grad-half-self",
        torch_says="torch.ops.aten.gelu_backward(torch.tensor([1, 2, 3]), torch.tensor([0.5, -1., 2.], "
                   "dtype=torch.float16)) is [0.8677, -0.1666, 3.2559] on a CPU without AVX512-FP16 "
                   "(AMD Zen 4/5, Cascade Lake) and raises 'itensor_view_from_dense expects "
                   "float/bfloat16/half/int8/fp8 tensor input' on one with it (Sapphire/Emerald "
                   "Rapids): its oneDNN path takes float16 only there and cannot view an integer gradient",
        why="the answer must not depend on the CPU; gelu_backward is elementwise in the promoted dtype, "
            "as PyTorch's own path without oneDNN computes it",
        applies=_gelu_bw_int_half_applies, correct=_gelu_bw_int_half_correct),
    KnownWrong(
        "sdpa-flash-nan-row",
        torch_says="q = torch.randn(1, 1, 3, 4); q[0, 0, 1, 2] = nan; F.scaled_dot_product_attention(q, k, v) with "
                   "k, v of 5 keys gives row 1 as zeros (and logsumexp 0), the math path NaN: the fused kernel's "
                   "row max skips NaN in its scalar tail (std::max) and propagates it in its vector part, so a "
                   "row of only NaN and -inf scores is 'fully masked' (zeros) below 8 float keys, NaN from there",
        why="a NaN operand propagates: a row that reads a NaN score is NaN (its logsumexp too), as PyTorch's "
            "math path, its vector path and every row with a finite score besides give; the key length must "
            "not decide it",
        applies=_sdpa_nan_applies, correct=_sdpa_nan_correct),
    KnownWrong(
        "split-more-pieces-than-memory",
        torch_says="torch.tensor_split(torch.ones(3), 2**31) (and torch.chunk(torch.zeros(0), 2**31)) first "
                   "allocates a vector of 2**31 tensors: 'std::bad_alloc' at once, or after it has paged for "
                   "seconds to minutes, or the process is killed, as the machine's free memory decides "
                   "(2**24 pieces: 13 s, then bad_alloc under an 8 GB limit); past 2**60, 'cannot create "
                   "std::vector larger than max_size()'",
        why="a result of more pieces than the process's memory can hold is an out-of-memory RuntimeError "
            "whatever the free memory; ember raises it at once, before any piece is made (a slow failure "
            "is a hang to the fuzz worker's timeout, which made the property flaky)",
        applies=_many_pieces_applies, correct=_many_pieces_correct),
    KnownWrong(
        "gemm-alpha-folded",
        torch_says="torch.addmm(torch.zeros(3, 3), torch.eye(3), torch.eye(3), alpha=inf) is all NaN (float32 / "
                   "float64, MKL): MKL folds alpha into an operand before the products, so the diagonal sums "
                   "inf * 1 + (inf * 0) * 0 = NaN; the same call in float16 / bfloat16, baddbmm's small-problem "
                   "kernel, and a 3x3 mat2 stored transposed give inf on the diagonal. A huge finite alpha "
                   "likewise: addmm(zeros(1, 1), [[1e10, 0]], [[1e-10], [0]], alpha=1e30) is inf, not 1e30",
        why="addmm is beta * input + alpha * (mat1 @ mat2) (PyTorch's documentation): alpha scales the "
            "product, whose diagonal here is 1, so inf, as PyTorch's own half-type and small-baddbmm paths "
            "compute it; which operand MKL scales and when is its blocking's choice (layout and size decide)",
        applies=_gemm_alpha_folded_applies, correct=_gemm_alpha_folded_correct, iterator=True),
    KnownWrong(
        "arange-int64-span-wraps",
        torch_says="torch.arange(-10, 2**63 - 1, 2**62) is empty and torch.arange(1, -2**63, -2**53) raises "
                   "'invalid size, possible overflow?': aten computes the int64 length as (end - start + step - "
                   "sign) / step in int64, whose span wraps",
        why="the ranges hold 3 and 1025 int64 values (-10, 2**62 - 10, 2**63 - 10; 1, 1 - 2**53, ...), each "
            "representable: the length is ceil((end - start) / step) of the exact span, which ember computes "
            "in 128 bits",
        applies=_arange_span_applies, correct=_arange_span_correct),
    KnownWrong(
        "eigvals-nonfinite",
        torch_says="torch.linalg.eigvals(torch.tensor([[nan, nan], [1.0, 0.0]])) (float32; [[nan, nan], [nan, nan]] "
                   "and most matrices with a NaN row too) kills the process with SIGSEGV after MKL's 'Parameter 3 "
                   "was incorrect on entry to SGEBAL'; a float32 2x2 matrix of edge values never returned (fuzz "
                   "seed 3004); others give NaN eigenvalues, nan+0j or nan+nanj as MKL's scaling and QR fall",
        why="a matrix with an inf or NaN entry has no eigenvalues to compute: PyTorch's own linalg.eig refuses it "
            "('input tensor should not contain infs or NaNs'), and eigvals' answer is NaN (nan+nanj, as MKL "
            "gives where it returns); ember gives that per matrix without calling LAPACK, and computes the "
            "batch's finite matrices as usual",
        applies=_eigvals_nonfinite_applies, correct=_eigvals_nonfinite_correct),
    KnownWrong(
        "nll-loss-byte-target-as-char",
        torch_says="F.nll_loss(torch.ones(3, 2), torch.tensor([1, 5, 200], dtype=torch.uint8), reduction='none') "
                   "raises UnicodeDecodeError ('utf-8' codec can't decode byte 0xc8): the per-sample kernel writes "
                   "the Byte target into its IndexError message as a character ('Target \\x05 is out of bounds.' "
                   "for 5); cross_entropy, label smoothing or not, and aten.nll_loss_forward with reduction 0 the "
                   "same; the reduced losses write 'Target 200 is out of bounds.'",
        why="a target outside [0, C) is PyTorch's IndexError naming it as a number, as its reduced losses and "
            "an int64 target give; the message is text, not the target's raw byte",
        applies=_nll_byte_target_applies, correct=_nll_byte_target_correct),
    KnownWrong(
        "adaptive-pool-empty-output-loops",
        torch_says="torch._C._nn.adaptive_avg_pool3d(torch.ones(2, 5, 6, 7), (2**32, 2, 0)) returns its empty "
                   "[2, 4294967296, 2, 0] result after 4.5 s (adaptive_max_pool3d with (2**30, 2, 0): 24 s, "
                   "adaptive_max_pool2d with (2**62, 0): never): the kernels loop over the output's leading dims "
                   "though a later one is 0 and nothing is written",
        why="an output with a dim of size 0 has no element to compute: the empty tensor of the output's "
            "shape and dtype, after the same checks (PyTorch's own answer once its loops end)",
        applies=_adaptive_zero_out_applies, correct=_adaptive_zero_out_correct),
    KnownWrong(
        "pad-circular-wrap-past-crop",
        torch_says="F.pad(torch.arange(1., 6).reshape(1, 1, 5), (4, -2), mode='circular') is [[[3.07e-41, 1, 2, 3, "
                   "1, 2, 3]]] and changes from call to call: aten checks the pads against the uncropped size 5, so "
                   "the left pad of 4 wraps the 3 elements the -2 leaves, and its first element is read from output "
                   "memory not yet written; a right pad past the crop copies the output into itself: (-2, 4) gives "
                   "[3, 4, 5, 3, 4, 5, 3] for a (4, 2, 5) input but raises 'some elements of the input tensor and the "
                   "written-to tensor refer to a single memory location' for a (1, 5) one; (-5, 1) crops to nothing "
                   "and still returns one value",
        why="circular padding repeats the (cropped) input periodically, as PyTorch's own right-side wrap past the "
            "crop gives where its overlap check lets it: the left side is the same period, [3, 1, 2, 3, 1, 2, 3], "
            "and the input's layout cannot decide between a value and an error; a dim cropped to nothing has no "
            "period to repeat, PyTorch's 'wrapping around more than once' RuntimeError",
        applies=_circular_crop_applies, correct=_circular_crop_correct),
    KnownWrong(
        "conv-dilated-padding-wraps-int32",
        torch_says="torch.conv2d(torch.ones(1, 2, 5, 6), torch.ones(3, 2, 3, 2), None, (1, 2), (0, 2**32), (2, 1)) "
                   "is zeros of shape (1, 3, 1, 3) (with a bias of ones: ones); (0, 2**31 + 5) raises 'calculated "
                   "output size 1 -2147483640 is too small', (0, 2**31 - 1) with stride 1 gives zeros of shape "
                   "(1, 3, 1, 3) again: the dilated kernel (any dilation above 1) reads the padding and the padded "
                   "size as int32, which wrap, and its values are not even the unpadded convolution's (12 each); "
                   "bfloat16 and an undilated call compute the true size (an allocation failure)",
        why="zero padding of 2**32 on each side makes the output 2**32 positions wide (51 GB here): more memory "
            "than the machine has, the allocator's RuntimeError PyTorch itself raises for the same padding "
            "without dilation",
        applies=_conv_pad_huge_applies, correct=_conv_pad_huge_correct),
    KnownWrong(
        "diag-embed-empty-offset-wraps",
        torch_says="torch.diag_embed(torch.ones(0, 3), 2**62, 2, 0) raises 'Tensor: invalid storage offset "
                   "-4611686018427387904' while 2**61 (and -2**62) return the empty result: the diagonal's storage "
                   "offset, offset * stride = 2**62 * (2**62 + 3), wraps in int64 to a negative number",
        why="the result is empty (the input's 0 rows): no element is written, so no offset is read, and its shape "
            "[2**62 + 3, 0, 2**62 + 3] is PyTorch's own for the offsets whose product does not wrap",
        applies=_diag_embed_offset_applies, correct=_diag_embed_offset_correct),
    KnownWrong(
        "randperm-out-internal-overlap",
        torch_says="torch.randperm(5, out=torch.zeros(1).expand(5)) returns tensor([4., 4., 4., 4., 4.]): the five "
                   "elements are one memory location, each write overwrites the last, and the result is no "
                   "permutation (torch.arange(5., out=torch.zeros(1).expand(5)) refuses the same out=)",
        why="a permutation of 5 needs 5 distinct elements; an out= whose elements share memory cannot hold one, "
            "PyTorch's own internal-overlap RuntimeError for such an out= (arange's, the iterator ops')",
        applies=_randperm_overlap_applies, correct=_randperm_overlap_correct),
    KnownWrong(
        "pad-replicate-size-wraps",
        torch_says="F.pad(torch.arange(24.).reshape(1, 2, 3, 4), (1, 1, 2**63 - 1, 2**63 - 1), mode='replicate') "
                   "returns a (1, 2, 1, 6) tensor holding input row 0: the padded height 3 + 2 * (2**63 - 1) wraps in "
                   "int64 to 1 (with pads of 2**62: 'Trying to create tensor with negative dimension'); "
                   "torch._C._nn.replication_pad2d, F.pad's op, the same",
        why="the padded dim has 2**64 + 1 elements, more than an int64 size can count: no such tensor exists, so "
            "the call is a RuntimeError whatever the wrapped size comes out as",
        applies=_pad_overflow_applies, correct=_pad_overflow_correct),
    KnownWrong(
        "pad-circular-size-wraps",
        torch_says="F.pad(torch.ones(1, 2, 3), (-2**63, -2**63), mode='circular') returns a (1, 2, 3) tensor: the "
                   "padded width 3 - 2**64 wraps in int64 to 3, so aten's 'Negative padding value is resulting in an "
                   "empty dimension' check passes",
        why="the padded width is 3 - 2**64, below zero: the call is aten's own negative-padding RuntimeError, "
            "whatever the wrapped int64 sum comes out as",
        applies=_pad_circular_wrap_applies, correct=_pad_circular_wrap_correct),
    KnownWrong(
        "pad-backward-leading-sizes",
        torch_says="torch.ops.aten.reflection_pad1d_backward(torch.ones(0, 8), torch.ones(3, 5), [1, 2]) returns a "
                   "(3, 5) tensor: the kernels check grad_output's padded sizes only (replication_pad3d its channels "
                   "too) and read its other dims as if they were self's, past its end where they are smaller",
        why="grad_output must be the forward's output shape: one of other batch or channel sizes has no gradient "
            "for some of self's elements (or more than it), so the call is a RuntimeError, never a read past it",
        applies=_pad_backward_leading_applies, correct=_pad_backward_leading_correct),
    KnownWrong(
        "replication-pad-empty-huge",
        torch_says="torch._C._nn.replication_pad3d(torch.ones(3, 3, 4, 1), [-3, 2, 2, 1, 1, 2**31 - 1]) does not "
                   "return for minutes: the output (3, 2**31 + 3, 7, 0) has no elements, but the kernel walks its "
                   "2**31 planes of depth",
        why="an output with no elements is complete as allocated: ember returns the (3, 2**31 + 3, 7, 0) tensor "
            "at once",
        applies=_replicate_empty_applies, correct=_replicate_empty_correct),
    KnownWrong(
        "pad-backward-reflect-past-dim",
        torch_says="torch.ops.aten.reflection_pad3d_backward(torch.ones(2, 3, 4, 3, 6), torch.ones(2, 3, 3, 4, 2), "
                   "[2, 2, 1, -2, 0, 1]) crashes the process: a width pad of 2 on a width of 2 mirrors past the "
                   "input, and the backward kernel writes there",
        why="the forward refuses that pad ('Argument #4: Padding size should be less than the corresponding input "
            "dimension'), so the backward raises the same RuntimeError",
        applies=_pad_backward_reflect_past_applies, correct=_pad_backward_leading_correct),
    KnownWrong(
        "pad-backward-rank",
        torch_says="torch.ops.aten.replication_pad1d_backward(torch.ones(3, 8), torch.ones(0, 4, 0, 0), [2, 2]) "
                   "returns a (0, 4, 0, 0) tensor: a self of more dims than the forward takes is read as an "
                   "unbatched input, its width at dim 1",
        why="the forward refuses that self ('Expected 2D or 3D (batch mode) tensor ...'), so there is no gradient "
            "for it: the same RuntimeError",
        applies=_pad_backward_rank_applies, correct=_pad_backward_leading_correct),
    KnownWrong(
        "pad-backward-short-padding",
        torch_says="torch.ops.aten.reflection_pad2d_backward(g, torch.ones(3, 4, 5), [1, 2, 2]) reads a fourth pad "
                   "past the end of the list (whatever that memory holds)",
        why="the op takes 2k pads, as its forward says ('padding size is expected to be 4, but got: 3'): a "
            "RuntimeError",
        applies=_pad_backward_short_pads_applies, correct=_pad_backward_leading_correct),
    KnownWrong(
        "pad-backward-int32-sizes",
        torch_says="torch.ops.aten.replication_pad2d_backward(torch.ones(2, 3, 3, 6), torch.ones(2, 3, 2, 5), "
                   "[-1, 2, 1, 2**32]) returns a (2, 3, 2, 5) tensor: the kernel adds the height 2 + 1 + 2**32 in "
                   "int32, where it wraps to 3, the grad_output's height",
        why="the forward's height is 2**32 + 3, so a grad_output of height 3 is not its gradient: a RuntimeError",
        applies=_pad_backward_int32_applies, correct=_pad_backward_leading_correct),
    KnownWrong(
        "max-pool3d-channels-last-neginf-index",
        torch_says="F.max_pool3d_with_indices(torch.full((1, 2, 4, 4, 4), -inf).contiguous(memory_format="
                   "torch.channels_last_3d), 2, 2, return_indices=True)[1][0, 0] is [0, 2, 8, 10, 0, 2, 8, 10], the "
                   "contiguous input's [0, 2, 8, 10, 32, 34, 40, 42]: the channels-last kernel's index of a window "
                   "whose maximum is -inf (no element above its starting -inf) leaves out the depth term",
        why="the index names the maximum's position in its (D, H, W) plane: a window at depth 2 starts at element "
            "32 of the 4 x 4 x 4 plane, as PyTorch's contiguous kernel and its 2-d kernels (either layout) give",
        applies=_max_pool3d_cl_applies, correct=_max_pool3d_cl_correct),
    KnownWrong(
        "loss-backward-scalar-tail",
        torch_says="torch.ops.aten.smooth_l1_loss_backward(torch.tensor(2.), torch.tensor([-3., 0, 1, 4]), "
                   "torch.zeros(4), 1, -1.0) -> [-0.5, -0.5, -0.5, 0.5] from its scalar tail (x <= -beta first), "
                   "where its vector loop gives sign(x) * 0.5 (huber_loss_backward alike at a negative delta); for "
                   "integer operands the tail computes norm * x * g / beta and the loop norm * (x / beta) * g, and "
                   "a beta that truncates to 0 kills the process (SIGFPE in the loop's x / beta); the loop holds "
                   "beta in float32 (huber's delta in a half type) where the tail compares the double, so a value "
                   "that overflows or underflows there (1e300, 5e-324) splits the answers too",
        why="one answer for every element, the vector loop's (what every element of a long tensor but the last "
            "few gets): |x| >= beta picks sign(x) (times delta for huber), else x / beta (x for huber); an "
            "integer beta of 0 is refused with a RuntimeError rather than a crash",
        applies=_zone_bw_applies, correct=_zone_bw_correct),
]


def lookup(name: str, args: tuple, kwargs: dict) -> KnownWrong | None:
    """The entry that covers this call (name = the op or functional's name), if any."""
    for entry in KNOWN_WRONG:
        try:
            if entry.applies(name, args, kwargs):
                return entry
        except Exception:  # noqa: BLE001 - odd arguments: the entry does not apply
            continue
    return None


