"""Gradient clipping: by global norm (``clip_grad_norm_``) or by value (``clip_grad_value_``)."""

from __future__ import annotations

from collections.abc import Iterable

import ember
from ember import Tensor


def _tensors(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The norm of the per-tensor norms (max |x| for inf)."""
    ts = [t for t in _tensors(tensors) if t is not None]
    norm_type = float(norm_type)
    if not ts:
        return ember.tensor(0.0)
    with ember.no_grad():
        norms = [ember.linalg.vector_norm(t, norm_type) for t in ts]
        stacked = ember.tensor([float(n.item()) for n in norms], dtype=ts[0].dtype) if len(norms) > 1 else norms[0]
        total = ember.linalg.vector_norm(stacked, norm_type)
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
    coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
    with ember.no_grad():
        for g in grads:
            g.mul_(coef.to(g.dtype))


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Clip the gradients' global norm to ``max_norm`` in place; returns the norm before clipping."""
    params = _tensors(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient to [−clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    with ember.no_grad():
        for p in _tensors(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
