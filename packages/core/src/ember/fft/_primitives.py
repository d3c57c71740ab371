"""The differentiable FFT primitives: aten's _fft_r2c / _fft_c2c / _fft_c2r with PyTorch's
derivatives (FunctionsManual.cpp's fft_r2c_backward / fft_c2r_backward; c2c's adjoint is the
transform the other way with the same normalization). Each backward is written with these
primitives again, so double backward works too."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ember
from ember.autograd.function import Function
from ember.fft import _backend


def _needs_grad(x: ember.Tensor) -> bool:
    return x.requires_grad and ember.is_grad_enabled()


def fft_r2c(x: ember.Tensor, dims: Sequence[int], normalization: int, onesided: bool) -> ember.Tensor:
    """aten::_fft_r2c (``dims`` non-negative)."""
    if _needs_grad(x):
        return _R2C.apply(x, tuple(dims), normalization, onesided)
    return _backend.r2c(x, dims, normalization, onesided)


def fft_c2c(x: ember.Tensor, dims: Sequence[int], normalization: int, forward: bool) -> ember.Tensor:
    """aten::_fft_c2c (``dims`` non-negative)."""
    if _needs_grad(x):
        return _C2C.apply(x, tuple(dims), normalization, forward)
    return _backend.c2c(x, dims, normalization, forward)


def fft_c2r(x: ember.Tensor, dims: Sequence[int], normalization: int, last_dim_size: int) -> ember.Tensor:
    """aten::_fft_c2r (``dims`` non-negative)."""
    if _needs_grad(x):
        return _C2R.apply(x, tuple(dims), normalization, last_dim_size)
    return _backend.c2r(x, dims, normalization, last_dim_size)


def r2c_backward(grad: ember.Tensor, dims: tuple[int, ...], normalization: int, onesided: bool,
                 last_dim_size: int) -> ember.Tensor:
    """A onesided r2c is a c2c of the zero-imaginary signal with half its outputs dropped: its
    adjoint zero-fills that half, runs the inverse c2c and keeps the real part."""
    if onesided:
        last = dims[-1]
        missing = last_dim_size - grad.shape[last]
        if missing > 0:
            pad = [0] * (2 * grad.dim())
            pad[2 * (grad.dim() - 1 - last) + 1] = missing
            grad = ember.constant_pad_nd(grad, pad)
    return ember.real(fft_c2c(grad, dims, normalization, False))


def c2r_backward(grad: ember.Tensor, dims: tuple[int, ...], normalization: int) -> ember.Tensor:
    """A c2r completes the half-spectrum by Hermitian symmetry, then runs the inverse c2c: its
    adjoint is a onesided r2c whose entries that stand for two (1 .. n - n // 2 - 1) count twice."""
    gi = fft_r2c(grad, dims, normalization, True)
    last = dims[-1]
    double = grad.shape[last] - gi.shape[last]
    if double > 0:
        weight = ember.ones(gi.shape[last], dtype=grad.dtype, device=grad.device)
        weight[1:1 + double] = 2
        gi = gi * weight.reshape([-1] + [1] * (gi.dim() - 1 - last))
    return gi


class _R2C(Function):
    @staticmethod
    def forward(ctx: Any, x: ember.Tensor, dims: tuple[int, ...], normalization: int, onesided: bool) -> Any:
        ctx.args = (dims, normalization, onesided, x.shape[dims[-1]])
        return _backend.r2c(x, dims, normalization, onesided)

    @staticmethod
    def backward(ctx: Any, grad: ember.Tensor) -> Any:
        dims, normalization, onesided, n = ctx.args
        return r2c_backward(grad, dims, normalization, onesided, n), None, None, None


class _C2C(Function):
    @staticmethod
    def forward(ctx: Any, x: ember.Tensor, dims: tuple[int, ...], normalization: int, forward: bool) -> Any:
        ctx.args = (dims, normalization, forward)
        return _backend.c2c(x, dims, normalization, forward)

    @staticmethod
    def backward(ctx: Any, grad: ember.Tensor) -> Any:
        dims, normalization, forward = ctx.args
        return fft_c2c(grad, dims, normalization, not forward), None, None, None


class _C2R(Function):
    @staticmethod
    def forward(ctx: Any, x: ember.Tensor, dims: tuple[int, ...], normalization: int, last_dim_size: int) -> Any:
        ctx.args = (dims, normalization)
        return _backend.c2r(x, dims, normalization, last_dim_size)

    @staticmethod
    def backward(ctx: Any, grad: ember.Tensor) -> Any:
        dims, normalization = ctx.args
        return c2r_backward(grad, dims, normalization), None, None, None


# grad_fn named as PyTorch's nodes
for _cls, _name in ((_R2C, "FftR2CBackward0"), (_C2C, "FftC2CBackward0"), (_C2R, "FftC2RBackward0")):
    _cls._backward_cls.__name__ = _cls._backward_cls.__qualname__ = _name
