"""Gradient clipping: by global norm (``clip_grad_norm_``) or by value (``clip_grad_value_``)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable

import ember
from ember import Tensor


def _tensors(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def _is_dtensor(t: Tensor) -> bool:
    return hasattr(t, "device_mesh") and hasattr(t, "placements") and hasattr(t, "to_local")


def _local(t: Tensor) -> Tensor:
    """The piece of ``t`` this process holds (a DTensor's local shard, all of a plain tensor)."""
    if not _is_dtensor(t):
        return t
    if any(p.is_partial() for p in t.placements):  # pending sums: settle them first
        from ember.distributed.tensor import Replicate

        t = t.redistribute(t.device_mesh, [Replicate() if p.is_partial() else p for p in t.placements])
    return t.to_local()


def _local_norm(t: Tensor, norm_type: float) -> Tensor:
    local = _local(t)
    if local.numel() == 0 and _is_dtensor(t) and norm_type in (float("inf"), float("-inf")):
        # an empty trailing shard: the identity of the MAX (norms are >= 0) or MIN reduction
        return ember.tensor(0.0 if norm_type > 0 else norm_type, dtype=local.dtype)
    return ember.linalg.vector_norm(local, norm_type)


def _reduce_dtensor_norms(ts: list[Tensor], norms: list[Tensor], norm_type: float) -> object:
    """Turn the local norms of sharded (DTensor) gradients into their global norms in place:
    one all-reduce per mesh dimension of the norms' p-th powers (MAX/MIN for +-inf, SUM of
    counts for 0) over the ranks holding different shards, as torch's DTensor norm does.
    Returns the mesh of the DTensors (None without any)."""
    import math

    groups: dict[tuple, list[int]] = {}
    for i, t in enumerate(ts):
        if _is_dtensor(t):
            dims = tuple(d for d, p in enumerate(t.placements) if p.is_shard())
            groups.setdefault((id(t.device_mesh), dims), []).append(i)
    if not groups:
        return None
    import ember.distributed as dist

    if math.isinf(norm_type):
        op = dist.ReduceOp.MAX if norm_type > 0 else dist.ReduceOp.MIN
    else:
        op = dist.ReduceOp.SUM
    for (_, dims), idx in groups.items():
        mesh = ts[idx[0]].device_mesh
        vals = ember.stack([norms[i].double() for i in idx])
        if op == dist.ReduceOp.SUM and norm_type != 0:
            vals = vals ** norm_type
        for d in dims:
            dist.all_reduce(vals, op=op, group=mesh.get_group(d))
        if op == dist.ReduceOp.SUM and norm_type != 0:
            vals = vals ** (1.0 / norm_type)
        for k, i in enumerate(idx):
            norms[i] = vals[k].to(norms[i].dtype)
    return ts[next(iter(groups.values()))[0]].device_mesh


def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The norm of the per-tensor norms (``max |x|`` for inf)."""
    ts = [t for t in _tensors(tensors) if t is not None]
    norm_type = float(norm_type)
    if not ts:
        return ember.tensor(0.0)
    with ember.no_grad():
        norms = [_local_norm(t, norm_type) for t in ts]
        mesh = _reduce_dtensor_norms(ts, norms, norm_type)
        if len(norms) > 1:
            # the per-tensor norms keep their own dtypes and are promoted together, as PyTorch's stack:
            # bf16 and fp32 gradients give an fp32 total (not the first gradient's dtype)
            dtype = norms[0].dtype
            for n in norms[1:]:
                dtype = ember.promote_types(dtype, n.dtype)
            stacked = ember.stack([n.to(device=norms[0].device, dtype=dtype) for n in norms])
        else:
            stacked = norms[0]
        total = ember.linalg.vector_norm(stacked, norm_type)
        if mesh is not None:  # a DTensor, as torch's total norm of DTensor gradients is
            from ember.distributed.tensor import DTensor, Replicate

            total = DTensor.from_local(total, mesh, [Replicate()] * mesh.ndim, run_check=False)
    if error_if_nonfinite and not bool(ember.isfinite(total).item()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scale the grads in place by min(1, max_norm / (total_norm + 1e-6))."""
    grads = [p.grad for p in _tensors(parameters) if p.grad is not None]
    if not grads:
        return
    if _is_dtensor(total_norm):
        total_norm = _local(total_norm)
    coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
    with ember.no_grad():
        for g in grads:  # scaling is linear: a DTensor's local piece scales in place
            (g.to_local() if _is_dtensor(g) else g).mul_(coef.to(g.dtype))


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Clip the gradients' global norm to ``max_norm`` in place; returns the norm before clipping."""
    params = _tensors(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


_CLIP_GRAD_NORM_DEPRECATED = ("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                              "`torch.nn.utils.clip_grad_norm_`.")


def clip_grad_norm(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Clip the gradient norm of an iterable of parameters (warns a ``FutureWarning``).

    .. warning::
        This function is deprecated in favor of ``ember.nn.utils.clip_grad_norm_``, which it calls.
    """
    warnings.warn(_CLIP_GRAD_NORM_DEPRECATED, FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


clip_grad_norm.__deprecated__ = _CLIP_GRAD_NORM_DEPRECATED  # type: ignore[attr-defined]  # as typing's @deprecated


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient to [−clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    with ember.no_grad():
        for p in _tensors(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
