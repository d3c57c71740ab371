"""torch.hash_tensor: the xor of the elements' 64-bit patterns (floats widened to float64,
integers and bool to int64), reduced over ``dim``, as a uint64 tensor: the arguments checked
here, the reduction in one C++ pass (ReduceKind::XorSum)."""

from __future__ import annotations

from typing import Any

import ember
from ember._lib import _C
from ember._tensor import Tensor

__all__ = ["hash_tensor"]

# aten's xor_sum kernel: no complex and no uint16/32/64 (its dispatch message names the dtype)
_NO_KERNEL = {ember.complex64: "ComplexFloat", ember.complex128: "ComplexDouble", ember.uint16: "UInt16",
              ember.uint32: "UInt32", ember.uint64: "UInt64"}


def _dims(fn: str, dim: Any, ndim: int) -> tuple[int, ...]:
    """The reduced dims, wrapped and checked as aten's reductions do (None / [] mean all)."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int) and not isinstance(dim, bool):
        dim = (dim,)
    if not isinstance(dim, (tuple, list, ember.Size)) or not all(
            isinstance(d, int) and not isinstance(d, bool) for d in dim):
        raise TypeError(f"{fn}(): argument 'dim' (position 2) must be tuple of ints, not {type(dim).__name__}")
    if len(dim) == 0:
        return tuple(range(ndim))
    n = max(ndim, 1)
    out: list[int] = []
    for d in dim:
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        w = d % n
        if w in out:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return tuple(d for d in out if d < ndim)


def hash_tensor(input: Tensor, dim: Any = None, *, keepdim: bool = False, mode: int = 0,
                out: Tensor | None = None) -> Tensor:
    """hash_tensor(input, dim=None, *, keepdim=False, mode=0, out=None) -> Tensor

    A hash of the elements of ``input`` (of each slice along ``dim`` if given): with ``mode=0``
    (the only mode) the xor of their bit patterns after widening floats to float64 and integers
    and bool to int64, read as uint64.

    Args:
        input (Tensor): the tensor hashed (no complex or uint16/32/64 dtype, as in PyTorch).
        dim (int or tuple of ints, optional): the dimension(s) reduced; ``None`` (or ``[]``) reduces all.
        keepdim (bool): whether the reduced dims stay as size 1.
        mode (int): the hash; only 0 (xor reduction) exists.

    Returns:
        Tensor: a uint64 tensor, ``input``'s shape less the reduced dims.

    Example::

        >>> ember.hash_tensor(ember.tensor([1, -1, 5]))
        tensor(18446744073709551611, dtype=torch.uint64)
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"hash_tensor(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not isinstance(mode, int) or isinstance(mode, bool):
        raise TypeError(f"hash_tensor(): argument 'mode' must be int, not {type(mode).__name__}")
    dims = _dims("hash_tensor", dim, input.dim())
    if input.numel() == 0:
        if dim is None or (not isinstance(dim, int) and len(dim) == 0):
            raise RuntimeError("hash_tensor: Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        for d in dims:
            if input.shape[d] == 0:
                raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero size.")
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    if input.dtype in _NO_KERNEL and input.numel() > 0:
        raise NotImplementedError(f"\"xor_sum_cpu\" not implemented for '{_NO_KERNEL[input.dtype]}'")
    # one C++ pass: the xor of the bits as float64 / int64, over the reduced dims (an empty input
    # has an empty result: any dtype stands in, complex included)
    x = input.detach() if input.numel() else ember.empty(input.shape, dtype=ember.int64, device=input.device)
    result = _C._xor_sum(x, dims, keepdim).view(ember.uint64)
    if out is None:
        return result
    if out.dtype != ember.uint64:
        names = {ember.int64: "Long", ember.int32: "Int", ember.float32: "Float", ember.float64: "Double"}
        raise RuntimeError(f"Expected result to be of dtype uint64, but got {names.get(out.dtype, out.dtype)}")
    if tuple(out.shape) != tuple(result.shape):
        out.resize_(result.shape)
    return out.copy_(result)
