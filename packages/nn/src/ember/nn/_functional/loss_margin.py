"""Margin and likelihood losses composed from core ops as aten/torch.nn.functional compose them:
soft_margin_loss, multilabel_soft_margin_loss, multi_margin_loss, multilabel_margin_loss,
gaussian_nll_loss and triplet_margin_with_distance_loss. Parameters PyTorch's Python functions take
untyped (a float target, a truthy flag) are annotated Any, so ember._argcheck leaves them alone."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ember
from ember import Tensor
from ember.nn._functional.distance import pairwise_distance
from ember.nn._functional.loss import _reduce
from ember.nn._functional.loss_embedding_ranking import _checked_reduction

_FLOAT32_MAX = 3.4028234663852886e38


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """mean(log(1 + exp(-target * input)))."""
    reduction = _checked_reduction(size_average, reduce, reduction)
    shape = ember.broadcast_shapes(input.shape, target.shape)
    if tuple(shape) != tuple(input.shape):  # aten writes into an input-shaped result
        raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the broadcast shape {list(shape)}")
    if not input.is_floating_point() and not input.is_complex():  # aten's result has input's dtype; log1p(exp) is Float
        raise RuntimeError(f"result type Float can't be cast to the desired output type {_NAMES[input.dtype]}")
    # aten's steps, each stored in input's dtype: (-input) * target (in the promoted type, rounded
    # once), then exp_ and log1p_ (no softplus threshold: a huge margin overflows to inf there too)
    return _reduce(ember.log1p(ember.exp((-input * target).to(input.dtype))), reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Any, weight: Any = None,
                                size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Per-class binary cross-entropy with logits, averaged over the classes (the last dim)."""
    reduction = _checked_reduction(size_average, reduce, reduction)
    logsig = ember.nn.functional.logsigmoid
    loss = -(target * logsig(input) + (1 - target) * logsig(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(dim=input.dim() - 1) / input.shape[-1]
    return _reduce(loss, reduction)


_KERNELS = {"multi_margin_loss": "multi_margin_loss_cpu_kernel",
            "multilabel_margin_loss": "multilabel_margin_loss_forward_out_frame"}
_NAMES = {ember.float16: "Half", ember.bfloat16: "BFloat16", ember.int64: "Long", ember.int32: "Int",
          ember.int16: "Short", ember.int8: "Char", ember.uint8: "Byte", ember.bool: "Bool"}


def _float_kernel(input: Tensor, name: str) -> None:
    if input.dtype not in (ember.float32, ember.float64):  # aten's kernels: float and double only
        raise NotImplementedError(f'"{_KERNELS[name]}" not implemented for \'{_NAMES[input.dtype]}\'')


def _long_target(target: Tensor) -> None:
    """aten's kernels read the target as int64 data, after their float dispatch."""
    if target.dtype != ember.int64:
        name = {ember.float32: "Float", ember.float64: "Double"}.get(target.dtype) or _NAMES[target.dtype]
        raise RuntimeError(f"expected scalar type Long but found {name}")


def _class_target(input: Tensor, target: Tensor, name: str) -> tuple[Tensor, Tensor]:
    """input as (N, C) and target as (N,) for the class-index margin losses (1-d input: one sample)."""
    if input.dim() > 2:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    x = input.reshape(1, -1) if input.dim() <= 1 else input
    if x.shape[1] == 0:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    return x, target


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss: sum over j != y of max(0, margin - x[y] + x[j])**p / C per sample."""
    reduction = _checked_reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    if weight is not None and weight.requires_grad and ember.is_grad_enabled():
        raise RuntimeError("The function 'multi_margin_loss' is not differentiable with respect to argument "
                           "'weight'. This input cannot have requires_grad True.")
    x, _ = _class_target(input, target, "multi_margin_loss")
    n, c = x.shape
    if target.dim() > 1 or target.numel() != n:  # aten: at most 1-d, one class per sample (an empty batch too)
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{n}], but got {list(target.shape)}. "
                           f"Input has shape {list(input.shape)}.")
    y = target.reshape(-1)
    _float_kernel(input, "multi_margin_loss")
    _long_target(y)
    if x.numel() and x.dtype == ember.float32 and math.isfinite(margin) and abs(margin) > _FLOAT32_MAX:
        # aten's kernel reads margin as its float type (checked) before it checks the targets (seed 3019)
        raise RuntimeError("value cannot be converted to type float without overflow")
    if n and not y.is_meta and (bool((y < 0).any()) or bool((y >= c).any())):  # a meta target: nothing to read
        raise RuntimeError("target out of range")
    xy = x.gather(1, y.reshape(-1, 1))
    z = margin - xy + x
    z = ember.where(z > 0, z, ember.zeros_like(z))  # aten adds only z > 0: NaN terms drop out
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight[y].reshape(-1, 1)
    not_target = ember.arange(c, device=x.device).reshape(1, -1) != y.reshape(-1, 1)
    loss = ember.where(not_target, z, ember.zeros_like(z)).sum(1) / c
    if input.dim() <= 1 and reduction == "none":
        loss = loss.reshape(target.shape) if target.dim() == 0 else loss
    return _reduce(loss, reduction)


def _as_int64(v: Any) -> int:
    """c10's checked Scalar -> int64_t conversion of a tensor's item()."""
    if isinstance(v, float):
        if math.isnan(v):
            return -2**63
        if not -2.0**63 <= v < 2.0**63:
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return int(v)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                           reduction: str = "mean") -> Tensor:
    """Multi-label hinge loss: target lists each sample's classes, ended by the first -1."""
    reduction = _checked_reduction(size_average, reduce, reduction)
    x, _ = _class_target(input, target, "multilabel_margin_loss")
    n, c = x.shape
    t = target.reshape(n, -1) if input.dim() <= 1 else target
    if tuple(t.shape) != (n, c):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    # aten checks the whole target's min and max (past a -1 too) before its float-only dispatch, each read
    # as an int64 (a float target truncated toward 0; inf overflows, NaN reads as int64's minimum)
    if t.numel() and not t.is_meta and (_as_int64(t.min().item()) < -1 or _as_int64(t.max().item()) >= c):
        raise RuntimeError("argument #2 'target' is out of range")
    _float_kernel(input, "multilabel_margin_loss")
    _long_target(t)
    valid = ember.cumprod((t != -1).to(ember.int64), 1).to(ember.bool)  # the classes before the first -1
    idx = ember.where(valid, t, ember.zeros_like(t))
    # class j is a target of row i when some valid idx[i, k] == j (a comparison, not one_hot, whose range check
    # would read the values: a meta target has none)
    classes = ember.arange(c, device=idx.device)
    is_target = ((idx.unsqueeze(-1) == classes) & valid.unsqueeze(-1)).any(1)  # (N, C)
    xy = x.gather(1, idx)  # (N, C_t)
    pair = 1 - xy.unsqueeze(2) + x.unsqueeze(1)  # (N, C_t, C)
    mask = valid.unsqueeze(2) & ~is_target.unsqueeze(1) & (pair > 0)  # aten adds only z > 0: NaN drops out
    loss = ember.where(mask, pair, ember.zeros_like(pair)).sum((1, 2)) / c
    if input.dim() <= 1:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def gaussian_nll_loss(input: Tensor, target: Any, var: Any, full: Any = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """Gaussian negative log likelihood: 0.5 * (log(var) + (input - target)**2 / var) (+ const if full)."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ember.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)  # homoscedastic: one variance per sample
        elif input.dim() == var.dim() and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1:
            pass  # a size-1 dim broadcasts
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    # clamped for stability; the gradient passes as if unclamped. torch clamps a clone in place under
    # no_grad, so an integer var with a float eps is its in-place cast error (not a float result), and
    # an infinite var stays inf (adding the clamp's change, inf - inf, would make it NaN)
    var = var.clone()
    with ember.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (ember.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
                                      margin: float = 1.0, swap: Any = False, reduction: str = "mean") -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with any distance function."""
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater than 0, got {margin} "
                         "instead")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D "
                           "inputs")
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = ember.minimum(d_neg, dist(positive, negative))
    loss = (margin + d_pos - d_neg).clamp(min=0)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _reduce(loss, reduction)
