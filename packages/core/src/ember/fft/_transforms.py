"""torch.fft's transforms: fft, ifft, rfft, irfft, hfft, ihfft and their 2-d and n-d forms,
written as aten's SpectralOps.cpp writes them over the three primitives (_fft_r2c, _fft_c2c,
_fft_c2r), with its checks in its order, so the errors, dtypes and gradients are PyTorch's."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import ember
from ember import Tensor
from ember._autocast_policy import autocast_op
from ember._lib import _C
from ember.fft import _args as a
from ember.fft._primitives import fft_c2c, fft_c2r, fft_r2c

_Dims = int | Sequence[int] | None


def _maybe_out(prim: str, x: Tensor, out: Tensor | None, compute: Any) -> Tensor:
    a.check_out_grad(prim, x, out)
    return a.write_out(compute(), out)


# ---- one dimension ----

def _c2c(fn: str, x: Tensor, n: int | None, dim: int, norm: str | None, forward: bool,
         out: Tensor | None) -> Tensor:
    d = a.wrap_dim(dim, x.dim())
    size = n if n is not None else x.shape[d]
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    if n is not None:
        x = a.resize(x, [d], [n])
    mode = a.norm_mode(norm, forward)
    a.check_out(fn, out, complex_out=True)
    a.promote(x, require_complex=True)  # complex32: no half-precision transform on the CPU
    return _maybe_out("_fft_c2c", x, out, lambda: fft_c2c(x, [d], mode, forward))


def _r2c(fn: str, x: Tensor, n: int | None, dim: int, norm: str | None, forward: bool, onesided: bool,
         out: Tensor | None) -> Tensor:
    if x.dtype.is_complex:
        raise RuntimeError(f"{fn} expects a real input tensor, but got {a.aten_name(x.dtype)}")
    a.check_out(fn, out, complex_out=True)
    x = a.promote(x, require_complex=False)
    d = a.wrap_dim(dim, x.dim())
    size = n if n is not None else x.shape[d]
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    if n is not None:
        x = a.resize(x, [d], [n])
    mode = a.norm_mode(norm, forward)
    if forward:
        return _maybe_out("_fft_r2c", x, out, lambda: fft_r2c(x, [d], mode, onesided))
    # the inverse direction is the conjugate of the forward transform of a real signal
    if out is not None:
        return _maybe_out("conj_physical", x, out, lambda: ember.conj_physical(fft_r2c(x, [d], mode, onesided)))
    return fft_r2c(x, [d], mode, onesided).conj()


def _c2r(fn: str, x: Tensor, n: int | None, dim: int, norm: str | None, forward: bool,
         out: Tensor | None) -> Tensor:
    a.check_out(fn, out, complex_out=False)
    x = a.promote(x, require_complex=True)
    d = a.wrap_dim(dim, x.dim())
    size = n if n is not None else 2 * (x.shape[d] - 1)
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    if n is not None:
        x = a.resize(x, [d], [n // 2 + 1])
    mode = a.norm_mode(norm, forward)
    if forward:  # hfft: the backward c2r of the conjugate
        x = x.conj()
    return _maybe_out("_fft_c2r", x, out, lambda: fft_c2r(x, [d], mode, size))


def _one_d(fn: str, input: Any, n: Any, dim: Any, norm: Any) -> tuple[Tensor, int | None, int, str | None]:
    return (a.tensor(fn, input), a.opt_int(fn, "n", n), a.int_(fn, "dim", dim), a.norm_arg(fn, norm))


def fft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
        out: Tensor | None = None) -> Tensor:
    x, n, dim, norm = _one_d("fft_fft", input, n, dim, norm)
    if x.dtype.is_complex:
        return _c2c("fft", x, n, dim, norm, True, out)
    return _r2c("fft", x, n, dim, norm, True, False, out)


def ifft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    x, n, dim, norm = _one_d("fft_ifft", input, n, dim, norm)
    if x.dtype.is_complex:
        return _c2c("ifft", x, n, dim, norm, False, out)
    return _r2c("ifft", x, n, dim, norm, False, False, out)


def rfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    x, n, dim, norm = _one_d("fft_rfft", input, n, dim, norm)
    return _r2c("rfft", x, n, dim, norm, True, True, out)


def irfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    x, n, dim, norm = _one_d("fft_irfft", input, n, dim, norm)
    return _c2r("irfft", x, n, dim, norm, False, out)


def hfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    x, n, dim, norm = _one_d("fft_hfft", input, n, dim, norm)
    return _c2r("hfft", x, n, dim, norm, True, out)


def ihfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    x, n, dim, norm = _one_d("fft_ihfft", input, n, dim, norm)
    return _r2c("ihfft", x, n, dim, norm, False, True, out)


# ---- n dimensions ----

def _n_d(fn: str, input: Any, s: Any, dim: Any, norm: Any, dim_optional: bool = True
         ) -> tuple[Tensor, tuple[int, ...] | None, tuple[int, ...] | None, str | None]:
    return (a.tensor(fn, input), a.int_list(fn, "s", s), a.int_list(fn, "dim", dim, dim_optional),
            a.norm_arg(fn, norm))


def _fftn_c2c(x: Tensor, s: tuple[int, ...] | None, dim: tuple[int, ...] | None, norm: str | None,
              forward: bool, out: Tensor | None) -> Tensor:
    shape, dims = a.shape_and_dims(x, s, dim)
    x = a.promote(x, require_complex=True)
    x = a.resize(x, dims, shape)
    mode = a.norm_mode(norm, forward)
    a.check_out("fftn", out, complex_out=True)
    return _maybe_out("_fft_c2c", x, out, lambda: fft_c2c(x, dims, mode, forward))


def _c2r_shape(fn: str, x: Tensor, s: tuple[int, ...] | None, dim: tuple[int, ...] | None
               ) -> tuple[list[int], list[int], int]:
    """canonicalize_fft_c2r_shape_and_dim_args: the half-spectrum sizes, the dims and the real
    output length of the last dim."""
    shape, dims = a.shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError(f"{fn} must transform at least one axis")
    last = 2 * (x.shape[dims[-1]] - 1) if s is None or s[-1] == -1 else shape[-1]
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    shape[-1] = last // 2 + 1
    return shape, dims, last


def _rfftn(x: Tensor, s: tuple[int, ...] | None, dim: tuple[int, ...] | None, norm: str | None,
           out: Tensor | None) -> Tensor:
    if x.dtype.is_complex:
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got {a.aten_name(x.dtype)}")
    shape, dims = a.shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = a.resize(a.promote(x, require_complex=False), dims, shape)
    mode = a.norm_mode(norm, True)
    a.check_out("rfftn", out, complex_out=True)
    return _maybe_out("_fft_r2c", x, out, lambda: fft_r2c(x, dims, mode, True))


def _irfftn(x: Tensor, s: tuple[int, ...] | None, dim: tuple[int, ...] | None, norm: str | None,
            out: Tensor | None) -> Tensor:
    shape, dims, last = _c2r_shape("irfftn", x, s, dim)
    x = a.resize(a.promote(x, require_complex=True), dims, shape)
    mode = a.norm_mode(norm, False)
    a.check_out("irfftn", out, complex_out=False)
    return _maybe_out("_fft_c2r", x, out, lambda: fft_c2r(x, dims, mode, last))


def _hfftn(x: Tensor, s: tuple[int, ...] | None, dim: tuple[int, ...] | None, norm: str | None,
           out: Tensor | None) -> Tensor:
    shape, dims, last = _c2r_shape("hfftn", x, s, dim)
    x = a.resize(a.promote(x, require_complex=True), dims, shape)
    mode = a.norm_mode(norm, True)
    if len(dims) > 1:
        x = fft_c2c(x, dims[:-1], mode, True)
    x = x.conj()
    a.check_out("hfftn", out, complex_out=False)
    return _maybe_out("_fft_c2r", x, out, lambda: fft_c2r(x, dims[-1:], mode, last))


def _ihfftn(x: Tensor, s: tuple[int, ...] | None, dim: tuple[int, ...] | None, norm: str | None,
            out: Tensor | None) -> Tensor:
    if x.dtype.is_complex:
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {a.aten_name(x.dtype)}")
    shape, dims = a.shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    x = a.resize(a.promote(x, require_complex=False), dims, shape)
    mode = a.norm_mode(norm, False)
    a.check_out("ihfftn", out, complex_out=True)
    if len(dims) == 1:
        if out is not None:
            return _maybe_out("conj_physical", x, out, lambda: ember.conj_physical(fft_r2c(x, dims, mode, True)))
        return fft_r2c(x, dims, mode, True).conj()
    half = ember.conj_physical(fft_r2c(x, dims[-1:], mode, True))
    return _maybe_out("_fft_c2c", half, out, lambda: fft_c2c(half, dims[:-1], mode, False))


def fftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    x, s, dim, norm = _n_d("fft_fftn", input, s, dim, norm)
    return _fftn_c2c(x, s, dim, norm, True, out)


def ifftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    x, s, dim, norm = _n_d("fft_ifftn", input, s, dim, norm)
    return _fftn_c2c(x, s, dim, norm, False, out)


def rfftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    x, s, dim, norm = _n_d("fft_rfftn", input, s, dim, norm)
    return _rfftn(x, s, dim, norm, out)


def irfftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: str | None = None, *,
           out: Tensor | None = None) -> Tensor:
    x, s, dim, norm = _n_d("fft_irfftn", input, s, dim, norm)
    return _irfftn(x, s, dim, norm, out)


def hfftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    x, s, dim, norm = _n_d("fft_hfftn", input, s, dim, norm)
    return _hfftn(x, s, dim, norm, out)


def ihfftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: str | None = None, *,
           out: Tensor | None = None) -> Tensor:
    x, s, dim, norm = _n_d("fft_ihfftn", input, s, dim, norm)
    return _ihfftn(x, s, dim, norm, out)


def fft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    x, s, dim, norm = _n_d("fft_fft2", input, s, dim, norm, dim_optional=False)
    return _fftn_c2c(x, s, dim, norm, True, out)


def ifft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    x, s, dim, norm = _n_d("fft_ifft2", input, s, dim, norm, dim_optional=False)
    return _fftn_c2c(x, s, dim, norm, False, out)


def rfft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    x, s, dim, norm = _n_d("fft_rfft2", input, s, dim, norm, dim_optional=False)
    return _rfftn(x, s, dim, norm, out)


def irfft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None, *,
           out: Tensor | None = None) -> Tensor:
    x, s, dim, norm = _n_d("fft_irfft2", input, s, dim, norm, dim_optional=False)
    return _irfftn(x, s, dim, norm, out)


def hfft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    x, s, dim, norm = _n_d("fft_hfft2", input, s, dim, norm, dim_optional=False)
    return _hfftn(x, s, dim, norm, out)


def ihfft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None, *,
           out: Tensor | None = None) -> Tensor:
    x, s, dim, norm = _n_d("fft_ihfft2", input, s, dim, norm, dim_optional=False)
    return _ihfftn(x, s, dim, norm, out)


_TRANSFORMS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn",
               "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2")


def _recorded(name: str, fn: Any) -> Any:
    """``fn`` as the aten op ``fft_<name>`` in the profiler, around its primitives' events."""
    event = f"aten::fft_{name}"

    @functools.wraps(fn)
    def op(input: Any, *args: Any, **kwargs: Any) -> Any:
        if not _C._profiler_active() or not isinstance(input, Tensor):
            return fn(input, *args, **kwargs)
        _C._record_op_enter(event, input)
        try:
            return fn(input, *args, **kwargs)
        finally:
            _C._record_function_exit()

    return op


# CPU autocast runs the transforms in float32 (they are on PyTorch's fp32 list)
for _name in _TRANSFORMS:
    globals()[_name] = autocast_op("fp32", cuda=None)(_recorded(_name, globals()[_name]))  # CPU list only
