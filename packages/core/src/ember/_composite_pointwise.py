"""Pointwise functions PyTorch has beside the generated ones (gcd, lcm, ldexp, frexp, nextafter,
float_power, sinc, sgn, positive, nan_to_num, isin) and small statistics (dist, renorm, cov, corrcoef,
histogram), composed from core ops: no per-element Python, autograd through the pieces."""

from __future__ import annotations

import math
from typing import Any

import ember
from ember._dtype_names import legacy_name
from ember._lib import _C
from ember._out import cast, exact_with, takes_out
from ember._tensor import Tensor

__all__ = ["corrcoef", "cov", "dist", "float_power", "frexp", "gcd", "histogram", "isin", "lcm",
           "ldexp", "nan_to_num", "nextafter", "positive", "renorm", "sgn", "sinc"]

_FLOAT_OF = {ember.float16: ember.float32, ember.bfloat16: ember.float32}


def _floating(x: Tensor) -> Tensor:
    return x if x.is_floating_point() or x.is_complex() else x.to(ember.get_default_dtype())


# ------------------------------------------------------------------------------------------
# integer and exponent functions
# ------------------------------------------------------------------------------------------

def _integral_pair(name: str, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    dtype = ember.result_type(a, b)
    if dtype.is_floating_point or dtype.is_complex or dtype == ember.bool:
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'{legacy_name(dtype)}\'')
    a, b = ember.broadcast_tensors(a.to(dtype), b.to(dtype))
    return a, b


@takes_out(cast)
def gcd(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The elementwise greatest common divisor (non-negative; gcd(0, 0) == 0), by vectorised Euclid."""
    a, b = _integral_pair("gcd", input, other)
    a, b = a.abs(), b.abs()
    while bool((b != 0).any()):
        nz = b != 0
        a, b = ember.where(nz, b, a), ember.where(nz, ember.remainder(a, ember.where(nz, b, ember.ones_like(b))),
                                                  b)
    return a


@takes_out(cast)
def lcm(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The elementwise least common multiple (non-negative; 0 when either is 0)."""
    a, b = _integral_pair("lcm", input, other)
    g = gcd(a, b)
    safe = ember.where(g == 0, ember.ones_like(g), g)
    return ember.where(g == 0, ember.zeros_like(g), (a // safe * b).abs())


def _ldexp_dtype(r: Any, o: Any) -> None:
    if not _C.can_cast(r, o):  # (a wider float out trips an internal assert in aten; ember writes it)
        raise RuntimeError(f"ldexp can't be cast to the desired output type {legacy_name(o)}")


@takes_out(_ldexp_dtype, grad="ldexp")
def ldexp(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """input * 2**other."""
    return ember.mul(input, ember.pow(2.0, other))


_FREXP = _C._return_type("frexp", ["mantissa", "exponent"])
_HISTOGRAM = _C._return_type("histogram", ["hist", "bin_edges"])


@takes_out([exact_with("torch.frexp() expects mantissa to have dtype {want_meta} but got {got_meta}"),
            exact_with("torch.frexp() expects exponent to have int dtype but got {got_meta}")], grad="frexp")
def frexp(input: Tensor, *, out: Any = None) -> Any:
    """``(mantissa, exponent)`` with ``input == mantissa * 2**exponent`` and ``0.5 <= |mantissa| < 1``
    (int32 exponent)."""
    if not input.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    with ember.no_grad():
        x = input.detach().to(ember.float64)
        finite = ember.isfinite(x) & (x != 0)
        ax = ember.where(finite, x.abs(), ember.ones_like(x))
        e = ember.floor(ember.log2(ax)) + 1
        half = ember.floor(e / 2)  # 2**-e in two factors: 2**1074 would overflow
        m = ax * ember.pow(2.0, -half) * ember.pow(2.0, half - e)
        e = ember.where(m >= 1, e + 1, ember.where(m < 0.5, e - 1, e))
        e = ember.where(finite, e, ember.zeros_like(e))
        half = ember.floor(e / 2)
        scale_a, scale_b = ember.pow(2.0, -half).to(input.dtype), ember.pow(2.0, half - e).to(input.dtype)
        exponent = e.to(ember.int32)
    # the mantissa is input scaled by an exact power of two, so its gradient is grad * 2**-exponent
    mantissa = input * scale_a * scale_b
    return _FREXP((mantissa, exponent))


_BITS = {ember.float64: ember.int64, ember.float32: ember.int32, ember.float16: ember.int16,
         ember.bfloat16: ember.int16}


@takes_out(cast, grad="nextafter")
def nextafter(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The next representable value after input towards other (in input's floating dtype)."""
    dtype = ember.result_type(input, other)
    if dtype not in _BITS:
        raise NotImplementedError(f'"nextafter_cpu" not implemented for \'{_pretty(dtype)}\'')
    x, y = ember.broadcast_tensors(input.detach().to(dtype), other.detach().to(dtype))
    x, y = x.contiguous(), y.contiguous()
    bits = x.view(_BITS[dtype])
    away = (y > x) == (x > 0)  # moving away from zero is +1 on the magnitude's bits
    stepped = ember.where(away, bits + 1, bits - 1).view(dtype)
    tiny = ember.ones_like(bits).view(dtype)  # the smallest subnormal
    result = ember.where(x == 0, ember.copysign(tiny, y), stepped)
    result = ember.where(x == y, y, result)
    result = ember.where(x.isnan() | y.isnan(), ember.full_like(x, math.nan), result)
    return result


@takes_out(exact_with("the output given to float_power has dtype {got} but the operation's result requires "
                      "dtype {want}"), grad="pow")
def float_power(input: Any, exponent: Any, *, out: Tensor | None = None) -> Tensor:
    """input ** exponent computed in float64 (complex128 when either is complex)."""
    cplx = any(isinstance(v, complex) or (isinstance(v, Tensor) and v.is_complex()) for v in (input, exponent))
    wide = ember.complex128 if cplx else ember.float64
    cast = complex if cplx else float
    base = input.to(wide) if isinstance(input, Tensor) else cast(input)
    exp = exponent.to(wide) if isinstance(exponent, Tensor) else cast(exponent)
    return ember.pow(base, exp)


_pretty = legacy_name  # the name the composite modules import


@takes_out(cast, grad="sinc")
def sinc(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """sin(pi x) / (pi x), 1 at 0 (its gradient there is 0)."""
    x = _floating(input)
    zero = x == 0
    px = ember.where(zero, ember.ones_like(x), x) * math.pi
    return ember.where(zero, ember.ones_like(x), ember.sin(px) / px)


@takes_out(exact_with("Found dtype {got} but expected {want}"), grad="sgn")
def sgn(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``sign`` for real tensors; ``x / |x|`` for complex ones (0 where ``x`` is 0)."""
    if input.dtype == ember.complex32:  # aten divides in complex<float> and rounds: complex64's result, rounded
        if input.requires_grad and ember.is_grad_enabled():
            return _complex_half_sgn().apply(input)
        return sgn(input.to(ember.complex64)).to(ember.complex32)
    if input.is_complex():
        mag = ember.abs(input)
        zero = mag == 0
        # divided by 1 where |x| is 0, so the gradient there is 0 (aten's sgn_backward), not 0/0's NaN
        safe = ember.where(zero, ember.ones_like(mag), mag)
        return ember.where(zero, ember.zeros_like(input), input / safe)
    return ember.sign(input)


_SGN32: Any = None


def _complex_half_sgn() -> Any:
    """complex32's sgn as an autograd Function (made on first use: ember.autograd imports after this
    module): aten's backward divides in complex32, which has no division kernel."""
    global _SGN32
    if _SGN32 is None:

        class ComplexHalfSgn(ember.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Tensor) -> Tensor:
                return sgn(x.to(ember.complex64)).to(ember.complex32)

            @staticmethod
            def backward(ctx: Any, grad: Tensor) -> Tensor:
                raise NotImplementedError("\"div_cpu\" not implemented for 'ComplexHalf'")

        _SGN32 = ComplexHalfSgn
    return _SGN32


def positive(input: Tensor) -> Tensor:
    """input itself (the unary +); a bool tensor is refused as PyTorch does."""
    if input.dtype == ember.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@takes_out(exact_with("nan_to_num: dtype of out: {got} should be same as input: {want}"), grad="nan_to_num")
def nan_to_num(input: Tensor, nan: float | None = 0.0, posinf: float | None = None,
               neginf: float | None = None, *, out: Tensor | None = None) -> Tensor:
    """NaN, +inf and -inf replaced by nan, posinf and neginf (default: the dtype's largest finite values)."""
    if input.is_complex():  # the real and imaginary parts each, as aten
        parts = [nan_to_num(p, nan, posinf, neginf) for p in (input.real, input.imag)]
        return ember.complex(*parts)
    if not input.is_floating_point():
        return input.clone()
    info = ember.finfo(input.dtype)
    nan = 0.0 if nan is None else nan
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    x = input
    result = ember.where(x.isnan(), ember.full_like(x, nan),
                         ember.where(x == math.inf, ember.full_like(x, posinf),
                                     ember.where(x == -math.inf, ember.full_like(x, neginf), x)))
    return result


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """A bool tensor shaped as elements: whether each is in test_elements (by sorting and binary search)."""
    kinds = tuple("Tensor" if isinstance(a, Tensor) else "Number" if isinstance(a, (int, float, bool)) else
                  type(a).__name__ for a in (elements, test_elements))
    if kinds not in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number")):
        raise TypeError(f"isin() received an invalid combination of arguments - got ({', '.join(kinds)}), but "
                        "expected one of:\n * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, "
                        "bool invert = False, Tensor out = None)\n * (Number element, Tensor test_elements, *, bool "
                        "assume_unique = False, bool invert = False, Tensor out = None)\n * (Tensor elements, Number "
                        "test_element, *, bool assume_unique = False, bool invert = False, Tensor out = None)\n")
    e = elements if isinstance(elements, Tensor) else ember.tensor(elements)
    t = test_elements if isinstance(test_elements, Tensor) else ember.tensor(test_elements)
    dtype = ember.result_type(elements, test_elements)
    e, t = e.detach().to(dtype), t.detach().to(dtype).reshape(-1)
    if t.is_floating_point():
        t = t[~t.isnan()]  # NaN is in nothing; left in, it would break the binary search
    if t.numel() == 0:
        found = ember.zeros(e.shape, dtype=ember.bool)
    else:
        s = t.sort().values
        pos = ember.searchsorted(s, e.contiguous()).clamp(max=s.numel() - 1)
        found = s[pos] == e
    return ~found if invert else found


# ------------------------------------------------------------------------------------------
# small statistics
# ------------------------------------------------------------------------------------------

def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The p-norm of input - other."""
    if not (input.is_floating_point() or input.is_complex()) or not (other.is_floating_point() or other.is_complex()):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_pretty(ember.result_type(input, other))}")
    return ember.linalg.vector_norm(input - other, p)


@takes_out(grad="renorm")
def renorm(input: Tensor, p: float, dim: int, maxnorm: float, *, out: Tensor | None = None) -> Tensor:
    """Each slice along dim scaled down to p-norm maxnorm where its norm is larger."""
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError("renorm: expected a floating point or complex input")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    dim = dim % input.dim()
    others = [d for d in range(input.dim()) if d != dim]
    norms = ember.linalg.vector_norm(input, p, dim=others, keepdim=True)
    factor = ember.where(norms > maxnorm, maxnorm / (norms + 1e-7), ember.ones_like(norms))
    return input * factor


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables in input's rows (observations in columns), numpy.cov's rule."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    n = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.dim() > 1:
            raise RuntimeError(f"cov(): expected fweights to have one or fewer dimensions but got fweights with "
                               f"{fweights.dim()} dimensions")
        if fweights.is_floating_point():
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                               f"{_pretty(fweights.dtype)} dtype")
        if fweights.numel() != n:
            raise RuntimeError(f"cov(): expected fweights to have the same numel as there are observations in the "
                               f"input but got {fweights.numel()} != {n}")
        if bool((fweights < 0).any()):
            raise RuntimeError(f"cov(): fweights cannot be negative but got {fweights.min().item()}")
        w = fweights
    if aweights is not None:
        if aweights.dim() > 1:
            raise RuntimeError(f"cov(): expected aweights to have one or fewer dimensions but got aweights with "
                               f"{aweights.dim()} dimensions")
        if not aweights.is_floating_point():
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                               f"{_pretty(aweights.dtype)} dtype")
        if aweights.numel() != n:
            raise RuntimeError(f"cov(): expected aweights to have the same numel as there are observations in the "
                               f"input but got {aweights.numel()} != {n}")
        if bool((aweights < 0).any()):
            raise RuntimeError(f"cov(): aweights cannot be negative but got {aweights.min().item()}")
        w = aweights if w is None else w * aweights
    xf = _floating(x)
    if w is None:  # a complex input's weights and normaliser stay real (aten's)
        w_sum = ember.tensor(float(n), dtype=xf.real.dtype if xf.is_complex() else xf.dtype)
        avg = xf.mean(1, keepdim=True)
    else:
        w_sum = w.sum()
        avg = (xf * w).sum(1, keepdim=True) / w_sum
    if w is None:
        norm_factor = w_sum - correction
    elif correction == 0:
        norm_factor = w_sum
    elif aweights is None:
        norm_factor = w_sum - correction
    else:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    norm_factor = ember.where(norm_factor <= 0, ember.zeros_like(norm_factor), norm_factor) \
        if isinstance(norm_factor, Tensor) else norm_factor
    centered = xf - avg
    weighted = centered if w is None else centered * w
    c = weighted @ (centered.mH if centered.is_complex() else centered.T) / norm_factor
    return c.squeeze() if input.dim() < 2 or x.shape[0] == 1 else c


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of input's rows (clipped to [-1, 1])."""
    if input.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    stddev = (d.real if d.is_complex() else d).sqrt()
    c = c / stddev.unsqueeze(1)
    c = c / stddev.unsqueeze(0)
    if c.is_complex():  # each part clipped (aten's)
        return ember.complex(c.real.clamp(-1, 1), c.imag.clamp(-1, 1))
    return c.clamp(-1, 1)


# aten's histogram out= checks, one per output
_HIST_DTYPE = ("torch.histogram: input tensor and hist tensor should have the same dtype, but got input {want_meta} "
               "and hist {got_meta}")
_EDGES_DTYPE = ("torch.histogram: input tensor and bin_edges tensor should have the same dtype, but got input "
                "{want_meta} and bin_edges {got_meta} for dimension 0")


@takes_out([exact_with(_HIST_DTYPE), exact_with(_EDGES_DTYPE)])
def histogram(input: Tensor, bins: Any = 100, *, range: Any = None, weight: Tensor | None = None,
              density: bool = False, out: Any = None) -> Any:
    """(hist, bin_edges): counts (or weights' sums) of input in bins equal-width bins or between given edges."""
    if not input.is_floating_point():
        raise NotImplementedError(f'"histogramdd" not implemented for \'{_pretty(input.dtype)}\'')
    x = input.detach().reshape(-1)
    if isinstance(bins, Tensor):
        if bins.dim() != 1:
            raise RuntimeError(f"torch.histogram: bins tensor should have one dimension, but got {bins.dim()} "
                               "dimensions")
        if bins.dtype != input.dtype:
            raise RuntimeError(f"torch.histogram: input tensor and bins tensors should have the same dtype, but "
                               f"got input {_pretty(input.dtype)} and bins {_pretty(bins.dtype)}")
        edges = bins.detach().clone()
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif x.numel():
            lo, hi = x.min().item(), x.max().item()
        else:
            lo, hi = 0.0, 0.0
        if lo > hi:
            raise RuntimeError(f"torch.histogram(): min should not exceed max, but got min {lo} max {hi} for "
                               "dimension 0")
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogram(): range of [{lo}, {hi}] is not finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = ember.linspace(lo, hi, bins + 1, dtype=input.dtype, device=input.device)
    nbins = edges.numel() - 1
    pos = ember.searchsorted(edges, x, right=True) - 1
    pos = ember.where(x == edges[-1], ember.full_like(pos, nbins - 1), pos)
    inside = (pos >= 0) & (pos < nbins) & (x >= edges[0]) & (x <= edges[-1])
    w = ember.ones_like(x) if weight is None else weight.detach().reshape(-1).to(x.dtype)
    hist = ember.zeros(max(nbins, 0), dtype=x.dtype, device=x.device)
    hist = hist.index_add(0, pos.clamp(0, max(nbins - 1, 0))[inside], w[inside])
    if density:
        hist = hist / (hist.sum() * (edges[1:] - edges[:-1]))
    return _HISTOGRAM((hist, edges))
