"""Top-level names of issue 22's special-function slice: mvlgamma, the window functions, the
math constants, torch.range/trapz/fill, is_same_size/is_signed/isreal, the function forms of the
in-place ops (torch.abs_(x) is x.abs_()) and the matching Tensor methods (polygamma, mvlgamma,
is_nonzero, fill_diagonal_, ...). Composites of existing ops: autograd comes with them."""

from __future__ import annotations

import math
import warnings
from typing import Any

import ember
from ember._out import cast, write
from ember._tensor import Tensor

e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
newaxis = None


def _check_tensor(name: str, value: Any, arg: str = "input", pos: int = 1) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(value).__name__}")


def mvlgamma(input: Tensor, p: int, *, out: Tensor | None = None) -> Tensor:
    """Multivariate log-gamma of dimension p: sum_j lgamma(x - j/2) + p (p-1)/4 log(pi)."""
    _check_tensor("mvlgamma", input)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = input if input.is_floating_point() or input.is_complex() else input.to(ember.get_default_dtype())
    shifts = ember.arange(p, dtype=x.dtype, device=x.device) * -0.5
    terms = ember.lgamma(x.unsqueeze(-1) + shifts).sum(-1)
    const = p * (p - 1) / 4 * math.log(math.pi)
    return terms + const if out is None else ember.add(terms, const, out=out)


# ---- window functions: computed in float64 from the defining formula, then cast ----

def _window(name: str, window_length: int, periodic: bool, dtype: Any, requires_grad: bool | None, fn: Any,
            device: Any = None) -> Tensor:
    dtype = dtype or ember.get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if window_length <= 1:
        w = ember.ones(window_length, dtype=dtype, device="cpu")
    else:  # made on the host, then moved to the device asked for (or the default one)
        n = window_length + 1 if periodic else window_length  # periodic: one longer, last dropped
        k = ember.arange(n, dtype=ember.float64, device="cpu")
        w = fn(k, n - 1)[:window_length].to(dtype)
    from ember._runtime import to_factory_device

    w = to_factory_device(w, device)
    return w.requires_grad_(requires_grad) if requires_grad else w


def _cosine_sum(coeffs: tuple) -> Any:
    def fn(k: Tensor, m: int) -> Tensor:
        out = ember.full_like(k, coeffs[0])
        for j, c in enumerate(coeffs[1:], start=1):
            out = out + c * ember.cos(k * (2 * math.pi * j / m))
        return out

    return fn


def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
                device: Any = None, pin_memory: bool = False, requires_grad: bool | None = False) -> Tensor:
    """The Hann window ``0.5 - 0.5 cos(2 pi n / (N - 1))``."""
    return _window("hann_window", window_length, periodic, dtype, requires_grad, _cosine_sum((0.5, -0.5)), device)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: bool = False,
                   requires_grad: bool | None = False) -> Tensor:
    """The generalised Hamming window ``alpha - beta cos(2 pi n / (N - 1))``."""
    return _window("hamming_window", window_length, periodic, dtype, requires_grad, _cosine_sum((alpha, -beta)),
                   device)


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
                    device: Any = None, pin_memory: bool = False, requires_grad: bool | None = False) -> Tensor:
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``."""
    return _window("blackman_window", window_length, periodic, dtype, requires_grad,
                   _cosine_sum((0.42, -0.5, 0.08)), device)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
                    device: Any = None, pin_memory: bool = False, requires_grad: bool | None = False) -> Tensor:
    """The triangular window ``1 - |2n / (N - 1) - 1|``."""
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad,
                   lambda k, m: 1 - ember.abs(k * (2.0 / m) - 1), device)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype: Any = None,
                  layout: Any = None, device: Any = None, pin_memory: bool = False,
                  requires_grad: bool | None = False) -> Tensor:
    """The Kaiser window ``I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta)``."""
    def fn(k: Tensor, m: int) -> Tensor:
        r = k * (2.0 / m) - 1
        return ember.i0(beta * ember.sqrt(ember.clamp(1 - r * r, min=0))) / ember.i0(
            ember.tensor(float(beta), dtype=k.dtype, device=k.device))

    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, fn, device)


# ---- small top-level functions ----

def range(start: Any, end: Any, step: Any = 1, *, out: Tensor | None = None, dtype: Any = None,
          layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Deprecated inclusive range [start, end] (PyTorch's torch.range): default dtype unless given."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    start, end, step = (float(v) for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0 and end != start:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = int(math.floor((end - start) / step)) + 1
    dtype = dtype or (out.dtype if out is not None else ember.get_default_dtype())  # aten: out's dtype by default
    result = (ember.arange(n, dtype=ember.float64, device=device) * step + start).to(dtype)
    if out is not None:  # a factory: resized silently, as aten's resize_
        return write(result, out, cast, grad="aten::range", warn=False)
    return result.requires_grad_(requires_grad) if requires_grad else result


def trapz(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """Old name of trapezoid."""
    if x is not None:
        return ember.trapezoid(y, x, dim=dim)
    return ember.trapezoid(y, dx=1.0 if dx is None else dx, dim=dim)


def fill(input: Tensor, value: Any) -> Tensor:
    """A copy of input with every element set to value (a number or a 0-d tensor)."""
    _check_tensor("fill", input)
    return input.clone().fill_(value)


def is_same_size(input: Tensor, other: Tensor) -> bool:
    """True when the two tensors have the same shape."""
    _check_tensor("is_same_size", input)
    _check_tensor("is_same_size", other, "other", 2)
    return bool(input.shape == other.shape)


def is_signed(input: Tensor) -> bool:
    """True for a signed dtype (every float and int8/16/32/64, not uint8 or bool)."""
    _check_tensor("is_signed", input)
    return input.dtype not in (ember.uint8, ember.bool)


def isreal(input: Tensor) -> Tensor:
    """Elementwise "has zero imaginary part": all True for a real dtype."""
    _check_tensor("isreal", input)
    if input.is_complex():
        return input.imag == 0
    return ember.ones_like(input, dtype=ember.bool)


# ---- torch.<op>_ : the in-place method as a function ----

# (only those whose Tensor method ember has are exported: see toplevel())
INPLACE_FUNCTIONS = (
    "abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_",
    "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_",
    "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fix_", "floor_",
    "frac_", "i0_", "index_put_", "log10_", "log1p_", "log2_", "log_", "neg_", "negative_", "rad2deg_",
    "reciprocal_", "resize_as_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinh_", "sqrt_", "square_", "tan_",
    "tanh_", "trunc_", "xlogy_",
)


def _inplace_function(name: str) -> Any:
    def fn(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        _check_tensor(name, input)
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Tensor.{name} as a function."
    return fn


def toplevel() -> dict:
    """The names this module adds to ember (those whose Tensor method ember has)."""
    names = {n: globals()[n] for n in __all__}
    names.update({n: _inplace_function(n) for n in INPLACE_FUNCTIONS if hasattr(Tensor, n)})
    return names


# ---- Tensor methods ----

def _polygamma(self: Tensor, n: int) -> Tensor:
    """ember.polygamma(n, self)."""
    return ember.polygamma(n, self)


def _polygamma_(self: Tensor, n: int) -> Tensor:
    """In-place ember.polygamma(n, self)."""
    return self.copy_(ember.polygamma(n, self))


def _mvlgamma_(self: Tensor, p: int) -> Tensor:
    """In-place ember.mvlgamma(self, p)."""
    return self.copy_(mvlgamma(self, p))


def _is_nonzero(self: Tensor) -> bool:
    """True if the single element of self is non-zero; RuntimeError for other sizes."""
    if self.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if self.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())


def _fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Sets the main diagonal (all indices equal) to fill_value; a tall 2-d matrix restarts it
    below the square part when wrap is True."""
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    rows, cols = self.shape[0], self.shape[1]
    if self.dim() > 2:
        if any(s != rows for s in self.shape):
            raise RuntimeError("all dimensions of input must be of equal length")
        idx = ember.arange(rows)
        self[(idx,) * self.dim()] = fill_value
        return self
    # 2-d: the flat positions 0, cols + 1, 2 (cols + 1), ... (past the square part only with wrap)
    end = rows * cols if wrap else min(rows, cols) * cols
    flat = ember.arange(0, end, cols + 1)
    if flat.numel():
        self[flat // cols, flat % cols] = fill_value
    return self


def install() -> None:
    """Attach the Tensor methods."""
    for name, fn in {"polygamma": _polygamma, "polygamma_": _polygamma_, "mvlgamma": mvlgamma,
                     "mvlgamma_": _mvlgamma_, "is_nonzero": _is_nonzero,
                     "fill_diagonal_": _fill_diagonal_, "is_same_size": is_same_size, "isreal": isreal}.items():
        setattr(Tensor, name, fn)


__all__ = ["bartlett_window", "blackman_window", "e", "fill", "hamming_window", "hann_window", "inf", "is_same_size",
           "is_signed", "isreal", "kaiser_window", "mvlgamma", "nan", "newaxis", "pi", "range", "trapz"]
