"""The three FFT primitives of aten (_fft_r2c, _fft_c2c, _fft_c2r) on the ducc0 library.

ducc0 is pocketfft's successor by the same author (NumPy 2 and PyTorch ship pocketfft): native
float32 and float64 transforms over any strides and axes, written straight into the output
(``out=``), the GIL released while it runs (run on ember's threads: _threaded.py). Chosen by
measured speed and size (one thread, ms; torch 2.13's MKL in the same run): rfft 2^20 float32 ducc0
3.0, scipy.fft 4.4, numpy.fft 6.1, torch 10.5; irfft 2.9 / 3.8 / 3.4 / 10.8; fft2 1024^2 complex64
4.6 / 4.8 / 21.4 / 5.2. The ducc0 wheel is 15 MB (44 MB installed), scipy's 35 MB (143 MB); both
need numpy, which numpy.fft would need alone but it has no threads and computes fft2 axis by axis
through copies. ember hands its buffers over without a copy, as NumPy views of the tensors' memory,
and imports ducc0 on the first transform, so ``import ember`` stays fast.

``normalization`` is aten's fft_norm_mode, which is also ducc0's ``inorm``: 0 none, 1 divide
by sqrt(n), 2 divide by n, n the number of points of the transformed (real-side) signal.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import ember
from ember._lib import _C
from ember.fft import _threaded

_lib: Any = None


def library() -> Any:
    """``ducc0.fft``, imported on first use."""
    global _lib
    if _lib is None:
        try:
            _lib = _threaded.import_single_threaded()
        except ImportError as e:
            raise ImportError("ember.fft's transforms need the 'ducc0' package (a dependency of ember-core), "
                              "which is not installed: pip install ducc0") from e
    return _lib


def _view(t: ember.Tensor) -> Any:
    """A NumPy array over ``t``'s memory (no copy, through DLPack: 1.5 us where ``__array__``'s
    interface dict costs 3.5); a lazily conjugated or negated tensor is resolved first."""
    import numpy as np  # noqa: PLC0415  (ducc0 has imported it already)

    if t.is_conj() or t.is_neg():
        t = t.resolve_conj().resolve_neg()
    return np.from_dlpack(t.detach())


_COMPLEX = {_C.float32: _C.complex64, _C.float64: _C.complex128}
_REAL = {_C.complex64: _C.float32, _C.complex128: _C.float64}


def _empty(x: ember.Tensor, shape: list[int], dtype: Any, dims: Sequence[int], last_fixed: bool) -> ember.Tensor:
    """The result, laid out as aten's _exec_fft lays it: the other dims outermost (in ``x``'s stride
    order), then the transformed ones (in stride order; r2c and c2r keep their halved dim last)."""
    strides = x.stride()
    order = sorted(dims[:-1] if last_fixed else dims, key=lambda d: -strides[d])
    if last_fixed:
        order.append(dims[-1])
    batch = sorted((d for d in range(x.dim()) if d not in dims), key=lambda d: -strides[d])
    perm = batch + order
    if perm == sorted(perm):
        return ember.empty(shape, dtype=dtype)
    inverse = sorted(range(len(perm)), key=perm.__getitem__)
    return ember.empty([shape[d] for d in perm], dtype=dtype).permute(inverse)


def _recorded(name: str) -> Any:
    """The primitive as the aten op ``name`` in the profiler (its allocation inside, as aten's)."""
    def deco(fn: Any) -> Any:
        @functools.wraps(fn)
        def op(x: ember.Tensor, *args: Any) -> ember.Tensor:
            on_gpu = x.device.type == "cuda"
            if x.device.type != "cpu" and not on_gpu:  # a meta tensor: no memory to transform
                raise NotImplementedError(
                    f"Could not run '{name}' with arguments from the '{x.device.type.upper()}' backend. This could be "
                    f"because the operator doesn't exist for this backend. '{name}' is only available for these "
                    f"backends: [CPU, CUDA]. (ember: the FFTs run on the host's ducc0; issue 24)")
            _C._record_op_enter(name, x)
            try:
                # ducc0 reads host memory: a GPU tensor is transformed there and its result (in the
                # layout aten's _exec_fft gives) copied back, synchronizing as PyTorch's CUDA linalg.eig does
                return fn(x.cpu(), *args).to(x.device) if on_gpu else fn(x, *args)
            finally:
                _C._record_function_exit()

        return op

    return deco


@_recorded("aten::_fft_r2c")
def r2c(x: ember.Tensor, dims: Sequence[int], normalization: int, onesided: bool) -> ember.Tensor:
    """aten::_fft_r2c: the forward transform of a real float32/float64 tensor over ``dims``
    (non-negative); the last of them keeps ``n // 2 + 1`` points when ``onesided``, else the
    redundant half is filled in by Hermitian symmetry."""
    last = dims[-1]
    n = x.shape[last]
    shape = list(x.shape)
    if onesided:
        shape[last] = n // 2 + 1
    out = _empty(x, shape, _COMPLEX[x.dtype], dims, last_fixed=True)
    if out.numel() == 0:
        return out
    half = out if onesided else out.narrow(last, 0, n // 2 + 1)
    _threaded.r2c(library(), _view(x), _view(half), dims, normalization, ember.get_num_threads())
    if not onesided and n > 2:
        # X[n - k] = conj(X[k]) for a real signal (a single transformed dim here, as aten's callers)
        rest = n - (n // 2 + 1)
        out.narrow(last, n // 2 + 1, rest).copy_(out.narrow(last, 1, rest).flip(last).conj_physical())
    return out


@_recorded("aten::_fft_c2c")
def c2c(x: ember.Tensor, dims: Sequence[int], normalization: int, forward: bool) -> ember.Tensor:
    """aten::_fft_c2c: the complex transform over ``dims``, forward (``exp(-2 pi i jk / n)``) or
    backward."""
    out = _empty(x, list(x.shape), x.dtype, dims, last_fixed=False)
    if out.numel() == 0 or not dims:
        return out.copy_(x) if not dims else out
    _threaded.c2c(library(), _view(x), _view(out), dims, forward, normalization, ember.get_num_threads())
    return out


@_recorded("aten::_fft_c2r")
def c2r(x: ember.Tensor, dims: Sequence[int], normalization: int, last_dim_size: int) -> ember.Tensor:
    """aten::_fft_c2r: the backward transform of the Hermitian half-spectrum ``x`` (its last dim
    holds ``last_dim_size // 2 + 1`` points) to a real signal of ``last_dim_size`` points there."""
    last = dims[-1]
    shape = list(x.shape)
    shape[last] = last_dim_size
    out = _empty(x, shape, _REAL[x.dtype], dims, last_fixed=True)
    if out.numel() == 0:
        return out
    _threaded.c2r(library(), _view(x), _view(out), dims, last_dim_size, normalization, ember.get_num_threads())
    return out
