"""Batched row gathering: ``[t[indices] for t in tensors]`` for a list of int indices.

The DataLoader uses it for ``TensorDataset`` when the batch sampler yields index lists and
the default collate is in use: one gather per tensor replaces ``batch_size`` indexing
calls plus a stack. Inside a worker all the gathered tensors share one new shared-memory
segment, so the batch reaches the main process as a single file descriptor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ember

np: Any = None  # NumPy, imported on first use (False when it is not installed)


def _numpy() -> Any:
    global np
    if np is None:
        try:
            import numpy
        except ImportError:  # pragma: no cover - exercised only without numpy
            np = False
        else:
            np = numpy
    return np

# dtypes NumPy can view without conversion.
_NUMPY_DTYPES = {ember.bool, ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64,
                 ember.float16, ember.float32, ember.float64}


def _outputs(specs: list[tuple[tuple[int, ...], Any]]) -> list[Any]:
    from ember.utils.data._worker import get_worker_info

    if get_worker_info() is not None:
        from ember.multiprocessing._shared_memory import empty_shared_many

        return empty_shared_many(specs)
    return [ember.empty(shape, dtype=dtype) for shape, dtype in specs]


def gather_rows(tensors: Sequence[Any], indices: Sequence[Any]) -> list[Any] | None:
    """``[stack([t[i] for i in indices]) for t in tensors]``, or None when the fast path
    does not apply (non-int indices, an index out of range, autograd, a dtype NumPy
    cannot view): the caller then takes the general path, which also raises the right
    error for a bad index."""
    if not tensors or not (np or _numpy()):
        return None
    n = tensors[0].shape[0] if tensors[0].dim() else 0
    for t in tensors:
        if t.dtype not in _NUMPY_DTYPES or t.requires_grad or t.dim() == 0 or t.shape[0] != n:
            return None
    idx = np.asarray(indices)
    if idx.dtype.kind not in "iu" or idx.ndim != 1:
        return None
    if len(idx) and (idx.max() >= n or idx.min() < -n):
        return None
    outs = _outputs([((len(idx), *t.shape[1:]), t.dtype) for t in tensors])
    for t, out in zip(tensors, outs, strict=True):
        # Bounds are checked above, so "wrap" only maps negative indices (and avoids the
        # temporary buffer that mode="raise" uses with out=).
        np.take(t.numpy(), idx, axis=0, out=out.numpy(), mode="wrap")
    return outs
