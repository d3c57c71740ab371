"""embedding (fused core kernel) and embedding_bag (composed: gather rows, then reduce per bag)."""

from __future__ import annotations

import warnings

import ember
from ember import Tensor


def _padding(weight: Tensor, padding_idx: int | None) -> int:
    if padding_idx is None:
        return -1
    # weight.size(0) is read only for a nonzero index (a 0-d weight then fails in the kernel)
    if padding_idx > 0:
        assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
    elif padding_idx < 0:
        assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
        padding_idx = weight.size(0) + padding_idx
    return padding_idx


def _renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    """Rows of ``weight`` used by ``input`` whose norm exceeds max_norm are scaled down in place."""
    if weight.is_meta:  # a meta table has no rows to rescale (PyTorch's meta kernel does nothing either)
        return
    with ember.no_grad():
        ember.embedding_renorm_(weight, input, max_norm, norm_type)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Looks up the rows of ``weight`` at the indices in ``input``.

    Args:
        input (Tensor): integer indices of any shape.
        weight (Tensor): ``(num_embeddings, dim)`` table.
        padding_idx (int, optional): an index whose row gets no gradient.
        max_norm (float, optional): rows looked up are renormalized in place to at most this norm.
        norm_type (float): the norm's order for ``max_norm``.
        scale_grad_by_freq (bool): divide each row's gradient by its index's count in the batch.
        sparse (bool): accepted for compatibility (the gradient is dense).

    Returns:
        Tensor: ``(*input.shape, dim)``.

    Example::

        >>> F.embedding(ember.tensor([2, 0]), ember.tensor([[1.0], [2.0], [3.0]]))
        tensor([[3.],
                [1.]])
    """
    pad = _padding(weight, padding_idx)
    if max_norm is not None:
        _renorm_(weight, input.contiguous(), max_norm, norm_type)
    return ember.embedding(weight, input, pad, scale_grad_by_freq, sparse)


def _check_bag_input(input: Tensor, offsets: Tensor | None) -> None:
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")


def _bags(input: Tensor, offsets: Tensor | None, include_last_offset: bool) -> tuple[Tensor, Tensor, int]:
    """Flat indices, the bag id of each, and the number of bags."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type Tensor")
        b, length = input.shape
        return input.reshape(-1), ember.arange(b, device=input.device).repeat_interleave(length), b
    if input.dim() != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    starts = [int(v) for v in offsets.tolist()]
    n = input.numel()
    if include_last_offset and not starts:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    if starts and starts[0] != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {starts[0]}")
    if starts and starts[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length ({n}), but got offsets[-1] of "
                           f"{starts[-1]}")
    if any(not 0 <= v <= n for v in starts):  # aten reads the bag sizes through index_select
        raise IndexError("index out of range in self")
    if any(a > b for a, b in zip(starts, starts[1:])):
        raise RuntimeError("Expected i < index_size to be true, but got false.  (Could this error message be "
                           "improved?  If so, please report an enhancement request to PyTorch.)")
    ends = starts[1:] + ([] if include_last_offset or not starts else [n])  # no offsets: no bags
    if include_last_offset:
        starts = starts[:-1]
    counts = [max(e - s, 0) for s, e in zip(starts, ends, strict=True)]
    dev = input.device
    bag = ember.arange(len(counts), device=dev).repeat_interleave(ember.tensor(counts, dtype=ember.int64, device=dev))
    # with include_last_offset, indices past the last offset belong to no bag
    return input[: sum(counts)], bag, len(counts)


def _meta_bags(input: Tensor, weight: Tensor, offsets: Tensor | None, include_last_offset: bool,
               sparse: bool) -> Tensor:
    """A meta table: the bags' values cannot be read, so the result is only its shape, one row per
    bag (the rows of a 2-D input, else one per offset), still connected to ``weight`` for autograd."""
    if input.dim() == 2:
        nbags = input.shape[0]
    else:
        assert offsets is not None  # _check_bag_input refused a 1-D input without offsets
        nbags = offsets.shape[0] - (1 if include_last_offset else 0)
        if nbags < 1 and include_last_offset:
            raise RuntimeError("include_last_offset: numBags should be at least 1")
    rows = ember.zeros(nbags, dtype=ember.int64, device=weight.device)
    return ember.embedding(weight, rows, -1, False, sparse)


def _running_max(rows: Tensor) -> Tensor:
    """aten's max bag: the first row, replaced where a later row compares greater (a NaN is kept only first)."""
    cur = rows[0]
    for r in rows[1:]:
        cur = ember.where(r > cur, r, cur)
    return cur


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean",
                  sparse: bool = False, per_sample_weights: Tensor | None = None,
                  include_last_offset: bool = False, padding_idx: int | None = None) -> Tensor:
    """Sums, averages or takes the maximum of the embedding rows of each bag of indices without
    building the intermediate ``(*, dim)`` tensor: bags are the rows of a 2-D ``input``, or the
    slices of a 1-D ``input`` starting at ``offsets``.

    Args:
        input (Tensor): indices, ``(B, n)`` or 1-D with ``offsets``.
        weight (Tensor): ``(num_embeddings, dim)`` table.
        offsets (Tensor, optional): the start of every bag in a 1-D ``input``.
        max_norm (float, optional): rows looked up are renormalized in place to at most this norm.
        norm_type (float): the norm's order for ``max_norm``.
        scale_grad_by_freq (bool): divide each row's gradient by its index's count.
        mode (str): ``"sum"``, ``"mean"`` or ``"max"``.
        sparse (bool): accepted for compatibility (the gradient is dense).
        per_sample_weights (Tensor, optional): a weight per index (``mode="sum"`` only).
        include_last_offset (bool): ``offsets`` has one more entry, the end of the last bag.
        padding_idx (int, optional): an index that is left out of its bag.

    Returns:
        Tensor: ``(B, dim)``.
    """
    # torch.nn.functional's checks in its order, then aten's (index dtypes, then the offsets' values)
    if weight.dtype == ember.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(per_sample_weights.shape) != tuple(input.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not None, "
                         f"then it must have the same shape as the input ({tuple(input.shape)})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    _check_bag_input(input, offsets)
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    elif mode not in ("sum", "mean"):
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _renorm_(weight, input.reshape(-1), max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                  "on GitHub.")
    # aten's embedding_bag checks padding_idx (a RuntimeError, not F.embedding's assert) before its kernel
    n_rows = weight.shape[0]
    if padding_idx is not None and not -n_rows <= padding_idx < n_rows:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, -{n_rows} through {n_rows - 1}, "
                           f"but got {padding_idx}")
    # aten promotes indices and offsets to their common type, then checks that (as 'indices')
    common = input.dtype if offsets is None else ember.result_type(input, offsets)
    if common not in (ember.int64, ember.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {ember.empty(0, dtype=common).type()} instead (while checking "
                           "arguments for embedding_bag)")
    input = input.to(common)
    if weight.dtype not in (ember.float16, ember.bfloat16, ember.float32, ember.float64):
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the following scalar types: "
                           f"Half, BFloat16, Float, Double; but got {weight.type()} instead (while checking "
                           "arguments for embedding_bag)")
    if weight.is_meta:
        return _meta_bags(input, weight, offsets, include_last_offset, sparse)
    flat, bag, nbags = _bags(input, offsets, include_last_offset)
    bad = (flat < 0) | (flat >= weight.shape[0])
    if bool(bad.any()):  # aten's index_select_add, after the offsets' checks
        i = int(bad.to(ember.uint8).argmax().item())
        raise RuntimeError(f"Index {i} of input takes value {int(flat[i].item())} which is not in the valid range "
                           f"[0, {weight.shape[0]})")
    pad = _padding(weight, padding_idx)
    rows = ember.embedding(weight, flat, pad, scale_grad_by_freq, sparse)
    keep = (flat != pad).to(weight.dtype).unsqueeze(1)
    if per_sample_weights is not None:
        w = per_sample_weights.reshape(-1, 1)
        rows = rows.float() * w.float() if rows.dtype in (ember.float16, ember.bfloat16) else rows * w
    dim = weight.shape[1]
    if mode == "max":
        out = []
        for b in range(nbags):
            sel = (bag == b) & (flat != pad)
            none = ember.zeros(dim, dtype=weight.dtype, device=weight.device)
            out.append(_running_max(rows[sel]) if bool(sel.any()) else none)
        return ember.stack(out) if out else ember.zeros(0, dim, dtype=weight.dtype, device=weight.device)
    # float16/bfloat16 bags accumulate in float32 and round once, as PyTorch's kernel does
    acc = ember.float32 if weight.dtype in (ember.float16, ember.bfloat16) else weight.dtype
    dev = weight.device
    total = ember.zeros(nbags, dim, dtype=acc, device=dev).index_add(0, bag, rows.to(acc) * keep.to(acc))
    if mode == "mean":
        total = total / ember.zeros(nbags, 1, dtype=acc, device=dev).index_add(0, bag, keep.to(acc)).clamp(min=1)
    return total.to(weight.dtype)
