"""Argument handling of the torch.fft transforms, as aten's SpectralOps.cpp and PyTorch's
argument parser do it: type errors, dim wrapping, dtype promotion, ``s``/``dim`` canonical
forms, zero-padding or trimming to the requested sizes, ``norm`` strings, ``out=``."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import ember
from ember import Tensor, _out
from ember._dtype_names import legacy_name
from ember._lib import _C

aten_name = legacy_name  # aten's c10 names of the dtypes, as its messages print them


def tensor(fn: str, v: Any) -> Tensor:
    if not isinstance(v, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(v).__name__}")
    return v


def _index(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    try:
        return operator.index(v)  # ints, NumPy ints, 0-d integer tensors
    except TypeError:
        return None


def opt_int(fn: str, name: str, v: Any) -> int | None:
    if v is None:
        return None
    i = _index(v)
    if i is None:
        raise TypeError(f"{fn}(): argument '{name}' must be int, not {type(v).__name__}")
    return i


def int_(fn: str, name: str, v: Any) -> int:
    i = _index(v)
    if i is None:
        raise TypeError(f"{fn}(): argument '{name}' must be int, not {type(v).__name__}")
    return i


def int_list(fn: str, name: str, v: Any, optional: bool = True) -> tuple[int, ...] | None:
    """An ``int[1]?`` argument: None (when optional), one int, or a sequence of ints."""
    if v is None and optional:
        return None
    if isinstance(v, (list, tuple)):
        items = [_index(e) for e in v]
        if all(i is not None for i in items):
            return tuple(items)  # type: ignore[arg-type]
    elif v is not None:
        single = _index(v)
        if single is not None:
            return (single,)
    return _bad_list(fn, name, v)


def _bad_list(fn: str, name: str, v: Any) -> Any:
    raise TypeError(f"{fn}(): argument '{name}' must be tuple of ints, not {type(v).__name__}")


def norm_arg(fn: str, v: Any) -> str | None:
    if v is not None and not isinstance(v, str):
        raise TypeError(f"{fn}(): argument 'norm' must be str, not {type(v).__name__}")
    return v


def norm_mode(norm: str | None, forward: bool) -> int:
    """aten's norm_from_string: 0 none, 1 by sqrt(n), 2 by n."""
    if norm is None or norm == "backward":
        return 0 if forward else 2
    if norm == "forward":
        return 2 if forward else 0
    if norm == "ortho":
        return 1
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def wrap_dim(d: int, ndim: int) -> int:
    """maybe_wrap_dim without wrap_scalar: a 0-d tensor has no dim to transform."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -ndim <= d < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
    return d % ndim


def promote(x: Tensor, require_complex: bool) -> Tensor:
    """promote_tensor_fft: integers and bool to the default float dtype; float32/float64 only on
    the CPU (float16 and bfloat16 are CUDA's); complex when required."""
    dt = x.dtype
    if dt == _C.complex32:  # pocketfft / MKL have no half-precision transforms on the CPU
        raise RuntimeError("MKL FFT doesn't support tensors of type: Half")
    if dt.is_complex:
        return x
    if not dt.is_floating_point:
        dt = ember.get_default_dtype()
    if dt not in (_C.float32, _C.float64):
        raise RuntimeError(f"Unsupported dtype {aten_name(dt)}")
    if require_complex:
        real = x if dt == x.dtype else x.to(dt)
        if real.requires_grad and ember.is_grad_enabled():
            # ember's ToCopyBackward0 casts the complex gradient back with a warning where
            # PyTorch's takes its real part quietly: complex()'s backward is real()
            return ember.complex(real, ember.zeros_like(real))
        dt = _C.complex64 if dt == _C.float32 else _C.complex128
    return x if dt == x.dtype else x.to(dt)


def resize(x: Tensor, dims: Sequence[int], sizes: Sequence[int]) -> Tensor:
    """resize_fft_input: trim each of ``dims`` to its size, or zero-pad it at the end."""
    pad = [0] * (2 * x.dim())
    must_pad = False
    for d, n in zip(dims, sizes, strict=True):
        if n == -1:
            continue
        have = x.shape[d]
        if have < n:
            must_pad = True
            pad[2 * (x.dim() - 1 - d) + 1] = n - have
        elif have > n:
            x = x.narrow(d, 0, n)
    return ember.constant_pad_nd(x, pad) if must_pad else x


def shape_and_dims(x: Tensor, s: tuple[int, ...] | None, dim: tuple[int, ...] | None) -> tuple[list[int], list[int]]:
    """canonicalize_fft_shape_and_dim_args: the sizes and (wrapped, unique) dims to transform."""
    ndim = x.dim()
    dims: list[int] = []
    if dim is not None:
        dims = [wrap_dim(d, ndim) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
        if dim is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [x.shape[d] if n == -1 else n for n, d in zip(s, dims, strict=True)]
    elif dim is None:
        dims = list(range(ndim))
        shape = list(x.shape)
    else:
        shape = [x.shape[d] for d in dims]
    for n in shape:
        if n <= 0:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return shape, dims


def check_out(fn: str, out: Tensor | None, complex_out: bool) -> None:
    if out is None:
        return
    if not isinstance(out, Tensor):
        raise TypeError(f"{fn}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if complex_out and not out.dtype.is_complex:
        raise RuntimeError(f"{fn} expects a complex output tensor, but got {aten_name(out.dtype)}")
    if not complex_out and not out.dtype.is_floating_point:
        raise RuntimeError(f"{fn} expects a floating point output tensor, but got {aten_name(out.dtype)}")


def check_out_grad(primitive: str, x: Tensor, out: Tensor | None) -> None:
    if out is not None and ember.is_grad_enabled() and (x.requires_grad or out.requires_grad):
        raise RuntimeError(f"{primitive}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")


def write_out(result: Tensor, out: Tensor | None) -> Tensor:
    """``out=``: resized to the result's shape (aten's resize_output) and written (cast to its dtype, as
    aten's copy_; the transforms checked out's dtype before)."""
    return _out.write(result, out, _out.cast)
