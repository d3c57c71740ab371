"""torch.index_reduce: reduce rows of ``source`` into ``input`` at ``index`` along ``dim``
(prod / mean / amax / amin), composed on scatter_reduce with the index broadcast over the other
dims -- so its values, integer ``mean`` (floor division) and gradients are scatter_reduce's."""

from __future__ import annotations

import warnings

import ember
from ember._tensor import Tensor

__all__ = ["index_reduce"]

_REDUCES = ("prod", "mean", "amax", "amin")
_NAMES = {ember.float16: "Half", ember.bfloat16: "BFloat16", ember.float32: "Float", ember.float64: "Double",
          ember.int64: "Long", ember.int32: "Int", ember.int16: "Short", ember.int8: "Char", ember.uint8: "Byte",
          ember.bool: "Bool"}
_warned = False


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """index_reduce(input, dim, index, source, reduce, *, include_self=True) -> Tensor

    A copy of ``input`` where, for each ``i``, the slice ``index[i]`` along ``dim`` is combined
    with the slice ``i`` of ``source`` by ``reduce``: ``'prod'``, ``'mean'``, ``'amax'`` or
    ``'amin'``. Repeated indices combine all their slices; with ``include_self=False`` the indexed
    slices of ``input`` take no part (slices not indexed are kept).

    Args:
        input (Tensor): the tensor reduced into.
        dim (int): the dimension ``index`` runs along.
        index (Tensor): 1-d int64 / int32 positions in ``input``, one per slice of ``source``.
        source (Tensor): the values, ``input``'s shape except ``index.numel()`` along ``dim``.
        reduce (str): ``'prod'``, ``'mean'`` (floor division for integers), ``'amax'`` or ``'amin'``.
        include_self (bool): whether the indexed slices of ``input`` join the reduction.

    Returns:
        Tensor: the reduced tensor, ``input``'s shape and dtype.

    Example::

        >>> x = ember.ones(3, 2)
        >>> ember.index_reduce(x, 0, ember.tensor([0, 0]), ember.tensor([[2., 3.], [4., 5.]]), 'prod')
        tensor([[ 8., 15.],
                [ 1.,  1.],
                [ 1.,  1.]])
    """
    global _warned
    if not _warned:
        _warned = True
        warnings.warn("index_reduce() is in beta and the API may change at any time.", UserWarning, stacklevel=2)
    if reduce not in _REDUCES:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = dim + input.dim() if dim < 0 else dim
    if not (-max(input.dim(), 1) <= dim < max(input.dim(), 1)):
        lo, hi = -max(input.dim(), 1), max(input.dim(), 1) - 1
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    if index.dim() > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
                         f"{_NAMES.get(index.dtype, index.dtype)} and size: {list(index.shape)}")
    if index.dtype not in (ember.int64, ember.int32):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{_NAMES.get(index.dtype, index.dtype)}")
    if input.dtype != source.dtype:
        raise RuntimeError(f"index_reduce_(): self ({_NAMES.get(input.dtype)}) and source "
                           f"({_NAMES.get(source.dtype)}) must have the same scalar type")
    src_d = source.shape[d] if source.dim() > 0 else 1
    if index.numel() != src_d:
        raise RuntimeError(f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
                           f"source.size(dim): ({src_d}), for dim: {dim}")
    s_rest = [s for i, s in enumerate(source.shape) if i != d]
    x_rest = [s for i, s in enumerate(input.shape) if i != d]
    if source.dim() != input.dim() or s_rest != x_rest:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}")
    size = input.shape[d] if input.dim() > 0 else 1
    idx = index.reshape(-1).long()
    if idx.numel() and bool(((idx < 0) | (idx >= size)).any()):  # no wrapping of negative indices
        raise IndexError("index out of range in self")
    if input.is_complex():  # aten's CPU kernels: the exclusion's initial fill and max / min take no complex
        name = "ComplexFloat" if input.dtype == ember.complex64 else "ComplexDouble"
        kernel = ("index_reduce_func_exclude_input_init" if not include_self else
                  {"amax": "maximum_cpu", "amin": "minimum_cpu"}.get(reduce))
        if kernel is not None:
            raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')
    if input.dim() == 0:
        return ember.scatter_reduce(input, 0, idx.reshape(()), source, reduce, include_self=include_self)
    shape = [1] * input.dim()
    shape[d] = idx.numel()
    full = idx.reshape(shape).expand(source.shape)
    return ember.scatter_reduce(input, d, full, source, reduce, include_self=include_self)
