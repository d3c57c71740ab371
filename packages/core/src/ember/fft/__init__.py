"""ember.fft: torch.fft's discrete Fourier transforms and their helpers.

The transforms (fft, rfft, hfft, their inverses and their 2-d/n-d forms) are in _transforms.py,
over the ducc0 library (_backend.py, imported on the first transform) with PyTorch's gradients
(_primitives.py); fftfreq/rfftfreq/fftshift/ifftshift are here.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import ember
from ember import Tensor
from ember.fft._docs import attach as _attach_docs
from ember.fft._transforms import (
    fft,
    fft2,
    fftn,
    hfft,
    hfft2,
    hfftn,
    ifft,
    ifft2,
    ifftn,
    ihfft,
    ihfft2,
    ihfftn,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftn,
)

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "hfft2", "hfftn", "ifft", "ifft2", "ifftn",
           "ifftshift", "ihfft", "ihfft2", "ihfftn", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]
_attach_docs(globals())


def _int_arg(fn: str, v: Any, name: str, pos: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        try:
            if isinstance(v, bool):
                raise TypeError
            return operator.index(v)  # 0-d integer tensors and numpy ints, as PyTorch's parser
        except TypeError:
            raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be int, not "
                            f"{type(v).__name__}") from None
    return v


def _float_arg(fn: str, v: Any, name: str) -> float:
    if isinstance(v, (int, float)) and not isinstance(v, bool) or isinstance(v, Tensor) and v.dim() == 0:
        return float(v)
    raise TypeError(f"{fn}(): argument '{name}' must be float, not {type(v).__name__}")


def _frequencies(fn: str, n: int, d: float, out: Tensor | None, dtype: ember.dtype | None, device: Any,
                 requires_grad: bool, full: bool) -> Tensor:
    # aten: fftfreq allocates n elements (a negative n is the empty() error); rfftfreq arranges
    # n / 2 + 1 of them, with C++'s truncating division
    count = n if full else int(n / 2) + 1
    dt = out.dtype if out is not None else dtype if dtype is not None else ember.get_default_dtype()
    if not dt.is_floating_point and not getattr(dt, "is_complex", False):
        raise RuntimeError(f"{fn.removeprefix('fft_')} requires a floating point or complex dtype")
    fresh = out is None
    if fresh:
        out = ember.empty(count if full else max(count, 0), dtype=dt, device=device)
    result = ember.arange(count, out=out)
    if full:  # aten: the upper half counts up from -(n / 2), in place on a slice
        ember.arange(-int(n / 2), 0, 1, out=result[(n + 1) // 2:])
    # aten multiplies by the reciprocal, rounded to the result's dtype (n * d == 0: inf, nan at 0)
    scale = 1.0 / (n * d) if n * d != 0 else math.copysign(math.inf, n * d)
    # (out of place for a result of its own: a fresh tensor at version 0, as aten's)
    result = result * ember.tensor(scale, dtype=dt) if fresh else result.mul_(ember.tensor(scale, dtype=dt))
    return result.requires_grad_() if requires_grad else result


def fftfreq(n: int, d: float = 1.0, *, out: Tensor | None = None, dtype: ember.dtype | None = None,
            layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    r"""fftfreq(n, d=1.0, *, out=None, dtype=None, layout=torch.strided, device=None, requires_grad=False) -> Tensor

    The Discrete Fourier Transform sample frequencies for a signal of size ``n``: with the
    sample spacing ``d``, ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)``.

    Args:
        n (int): the FFT length.
        d (float, optional): the sampling length scale (the inverse of the sampling rate).
            Default: 1.0.

    Keyword args:
        out (Tensor, optional): the output tensor.
        dtype (:class:`ember.dtype`, optional): a floating point dtype; default: the default dtype.
        layout (:class:`ember.layout`, optional): only ``ember.strided``.
        device (:class:`ember.device`, optional): the device of the result.
        requires_grad (bool, optional): whether autograd records operations on the result.

    Example::

        >>> ember.fft.fftfreq(5)
        tensor([ 0.0000,  0.2000,  0.4000, -0.4000, -0.2000])
    """
    n = _int_arg("fft_fftfreq", n, "n", 1)
    return _frequencies("fft_fftfreq", n, _float_arg("fft_fftfreq", d, "d"), out, dtype, device, requires_grad,
                        full=True)


def rfftfreq(n: int, d: float = 1.0, *, out: Tensor | None = None, dtype: ember.dtype | None = None,
             layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    r"""rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=torch.strided, device=None, requires_grad=False) -> Tensor

    The sample frequencies of :func:`ember.fft.rfft` for a signal of size ``n``: the
    non-negative half of :func:`fftfreq`, ``[0, 1, ..., n // 2] / (d * n)``.

    Args:
        n (int): the real FFT length.
        d (float, optional): the sampling length scale. Default: 1.0.

    Keyword args:
        out (Tensor, optional): the output tensor.
        dtype (:class:`ember.dtype`, optional): a floating point dtype; default: the default dtype.
        layout (:class:`ember.layout`, optional): only ``ember.strided``.
        device (:class:`ember.device`, optional): the device of the result.
        requires_grad (bool, optional): whether autograd records operations on the result.

    Example::

        >>> ember.fft.rfftfreq(5)
        tensor([0.0000, 0.2000, 0.4000])
    """
    n = _int_arg("fft_rfftfreq", n, "n", 1)
    return _frequencies("fft_rfftfreq", n, _float_arg("fft_rfftfreq", d, "d"), out, dtype, device, requires_grad,
                        full=False)


def _shift(fn: str, input: Tensor, dim: int | Sequence[int] | None, inverse: bool) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if dim is None:
        dims = list(range(input.dim()))
    elif isinstance(dim, (list, tuple)):
        dims = list(dim)
    else:
        dims = [dim]
    ndim = input.dim()
    for i, d in enumerate(dims):  # aten's maybe_wrap_dim on each, before the roll
        lo, hi = -max(ndim, 1), max(ndim, 1) - 1
        if not lo <= d <= hi:
            raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
        dims[i] = d % max(ndim, 1)
    shifts = [(input.shape[d] + 1) // 2 if inverse else input.shape[d] // 2 for d in dims] if ndim else [0] * len(dims)
    return ember.roll(input, shifts, dims)


def fftshift(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    r"""fftshift(input, dim=None) -> Tensor

    Reorders n-dimensional FFT data, as given by :func:`fftfreq`, to have negative frequency
    terms first: a roll by ``input.shape[d] // 2`` along each of the dims.

    Args:
        input (Tensor): the tensor in FFT order.
        dim (int, Tuple[int], optional): the dimensions to rearrange; default: all of them.

    Example::

        >>> ember.fft.fftshift(ember.fft.fftfreq(5))
        tensor([-0.4000, -0.2000,  0.0000,  0.2000,  0.4000])
    """
    return _shift("fft_fftshift", input, dim, inverse=False)


def ifftshift(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    r"""ifftshift(input, dim=None) -> Tensor

    The inverse of :func:`fftshift`: a roll by ``(input.shape[d] + 1) // 2`` along each of the dims.

    Args:
        input (Tensor): the tensor in FFT order.
        dim (int, Tuple[int], optional): the dimensions to rearrange; default: all of them.

    Example::

        >>> ember.fft.ifftshift(ember.fft.fftshift(ember.fft.fftfreq(5)))
        tensor([ 0.0000,  0.2000,  0.4000, -0.4000, -0.2000])
    """
    return _shift("fft_ifftshift", input, dim, inverse=True)

# __torch_function__ for the Python-level functions above (ember/_torch_function.py)
from ember._torch_function import make_dispatchable as _make_dispatchable  # noqa: E402

_make_dispatchable(globals())
