"""torch.histogramdd: the D-dimensional histogram of the points in the rows of an (..., D)
tensor, per dim bin edges given or spaced evenly over a range, composed on searchsorted and
index_add (the bucket rule of ember.histogram, per dim)."""

from __future__ import annotations

import builtins
import math
from typing import Any

import ember
from ember._lib import _C
from ember._tensor import Tensor

__all__ = ["histogramdd"]

_PRETTY = {ember.float16: "c10::Half", ember.bfloat16: "c10::BFloat16", ember.float32: "float",
           ember.float64: "double"}
_NAMES = {ember.int64: "Long", ember.int32: "Int", ember.int16: "Short", ember.int8: "Char", ember.uint8: "Byte",
          ember.bool: "Bool"}


def _edges(x: Tensor, d: int, bins: Any, rng: Any, dtype: Any) -> Tensor:
    if isinstance(bins, Tensor):
        if bins.dtype != dtype:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
                               f"input with dtype {_PRETTY.get(dtype)} and bins for dimension {d} with dtype "
                               f"{_PRETTY.get(bins.dtype, bins.dtype)}")
        return bins.detach().clone()
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension {d}")
    if rng is not None:
        lo, hi = float(rng[2 * d]), float(rng[2 * d + 1])
    elif x.numel():
        lo, hi = x.min().item(), x.max().item()
    else:
        lo, hi = 0.0, 1.0
    if lo > hi:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {_fmt(lo)} max {_fmt(hi)} for "
                           f"dimension {d}")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{_fmt(lo)}, {_fmt(hi)}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return ember.linspace(lo, hi, bins + 1, dtype=dtype, device=x.device)


def _fmt(v: float) -> str:
    return str(int(v)) if math.isfinite(v) and v == int(v) else str(v)


def histogramdd(input: Tensor, bins: Any, *, range: Any = None, weight: Tensor | None = None,
                density: bool = False) -> Any:
    """histogramdd(input, bins, *, range=None, weight=None, density=False) -> (Tensor, Tensor[])

    The multi-dimensional histogram of ``input``'s rows: the innermost dimension ``D`` holds the
    coordinates of a point, the others list the points. Each dim gets its own bin edges, given as
    tensors or spaced evenly over ``range`` (the data's extent by default); a point on a last edge
    counts in the last bin, points outside every range are dropped.

    Args:
        input (Tensor): floating-point points, shape ``(..., D)``.
        bins (int, list of int, or list of Tensor): the bin count of every dim, per dim, or the
            increasing edges per dim.
        range (sequence of float, optional): ``[min_0, max_0, min_1, max_1, ...]``.
        weight (Tensor, optional): one weight per point (``input``'s shape less the last dim).
        density (bool): divide by the total and the bin volumes, so the histogram integrates to one.

    Returns:
        (Tensor, tuple of Tensor): ``hist`` of shape ``(bins_0, ..., bins_{D-1})`` and the bin
        edges of each dim.

    Example::

        >>> h = ember.histogramdd(ember.tensor([[0., 0.], [1., 1.], [1., 0.]]), bins=2)
        >>> h.hist
        tensor([[1., 0.],
                [1., 1.]])
    """
    if not input.is_floating_point():
        raise NotImplementedError(f'"histogramdd" not implemented for \'{_NAMES.get(input.dtype, input.dtype)}\'')
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    D = input.shape[-1]
    if isinstance(bins, int):
        bins = [bins] * D
    bins = list(bins)
    if len(bins) != D:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    if range is not None and len(range) != 2 * D:
        raise RuntimeError(f"torch.histogramdd: for a {D}-dimensional histogram range should have {2 * D} elements, "
                           f"but got {len(range)}")
    pts = input.detach().reshape(-1, D)
    if weight is not None and list(weight.shape) != list(input.shape[:-1]):
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                           f"input tensor excluding its innermost dimension, but got input with shape "
                           f"{list(input.shape)} and weight with shape {list(weight.shape)}")
    edges = [_edges(pts[:, d], d, bins[d], range, input.dtype) for d in builtins.range(D)]
    counts = [e.numel() - 1 for e in edges]
    dev = input.device
    lin = ember.zeros(pts.shape[0], dtype=ember.int64, device=dev)
    inside = ember.ones(pts.shape[0], dtype=ember.bool, device=dev)
    for d, e in enumerate(edges):
        n, x = counts[d], pts[:, d]
        pos = ember.searchsorted(e, x.contiguous(), right=True) - 1
        pos = ember.where(x == e[-1], ember.full_like(pos, n - 1), pos)
        inside = inside & (pos >= 0) & (pos < n) & (x >= e[0]) & (x <= e[-1])
        lin = lin * max(n, 1) + pos.clamp(0, max(n - 1, 0))
    total = 1
    for n in counts:
        total *= max(n, 0)
    if weight is None:
        w = ember.ones(pts.shape[0], dtype=input.dtype, device=dev)
    else:
        w = weight.detach().reshape(-1).to(input.dtype)
    hist = ember.zeros(total, dtype=input.dtype, device=dev).index_add(0, lin[inside], w[inside]).reshape(counts)
    if density:
        hist = hist / hist.sum()
        for d, e in enumerate(edges):
            shape = [1] * D
            shape[d] = counts[d]
            hist = hist / (e[1:] - e[:-1]).reshape(shape)
    return _C._return_type("histogramdd", ["hist", "bin_edges"])((hist, tuple(edges)))

