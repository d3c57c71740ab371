"""Embedding and ranking losses (poisson_nll, triplet_margin, margin_ranking, cosine_embedding,
hinge_embedding), composed from core ops as aten's.

The ``*_op`` functions are aten's (``torch.triplet_margin_loss``: a string reduction, no checks of
torch.nn.functional's own); top-level ``ember.triplet_margin_loss`` and ``margin_ranking_loss`` call them.
"""

from __future__ import annotations

import math
from typing import Any

import ember
from ember import Tensor
from ember._argcheck import checked
from ember._autocast_policy import autocast_op
from ember.nn._functional.distance import pairwise_distance
from ember.nn._functional.loss import _reduce, _reduction


def _checked_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    reduction = _reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


@autocast_op("fp32")
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of counts ``target`` under Poisson distributions with rates
    ``exp(input)`` (``log_input=True``) or ``input``.

    Args:
        input (Tensor): the predicted log-rates (or rates).
        target (Tensor): the observed counts.
        log_input (bool): ``input`` holds log-rates.
        full (bool): add the Stirling term of ``log(target!)``.
        size_average, reduce: deprecated spellings of ``reduction``.
        eps (float): added to the rate before its log when ``log_input`` is False.
        reduction (str): ``"mean"`` (the default) or ``"sum"`` of the per-element losses, or
            ``"none"`` to return them all.
    """
    reduction = _checked_reduction(size_average, reduce, reduction)
    return _poisson_nll_loss_op(input, target, log_input, full, eps, reduction)


def _poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                      reduction: str) -> Tensor:
    loss = ember.exp(input) - target * input if log_input else input - target * ember.log(input + eps)
    if full:
        # Stirling's approximation of log(target!), only where target > 1
        stirling = target * ember.log(target) - target + 0.5 * ember.log(2 * math.pi * target)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


# aten's ops: torch.nn.functional's value checks run first, then its parser's TypeErrors (ember._argcheck)
_poisson_nll_loss_op = checked(_poisson_nll_loss, "poisson_nll_loss")


def _triplet_margin_loss_op(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float, p: float,
                            eps: float, swap: bool, reduction: str) -> Tensor:
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D "
                           "inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = ember.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp(min=0), reduction)


triplet_margin_loss_op = checked(_triplet_margin_loss_op, "triplet_margin_loss")


@autocast_op("fp32")
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """``max(d(anchor, positive) - d(anchor, negative) + margin, 0)`` with ``d`` the ``p``-norm
    distance: the positive should be closer to the anchor than the negative, by ``margin``.

    Args:
        anchor (Tensor): ``(N, D)`` or ``(D,)`` embeddings.
        positive (Tensor): embeddings of the same class.
        negative (Tensor): embeddings of another class.
        margin (float): the required gap.
        p (float): the norm's order.
        eps (float): added to the differences.
        swap (bool): use the smaller of ``d(anchor, negative)`` and ``d(positive, negative)``.
        size_average, reduce: deprecated spellings of ``reduction``.
        reduction (str): ``"mean"`` (the default) or ``"sum"`` of the per-element losses, or
            ``"none"`` to return them all.
    """
    reduction = _checked_reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return triplet_margin_loss_op(anchor, positive, negative, margin, p, eps, swap, reduction)


def margin_ranking_loss_op(input1: Tensor, input2: Tensor, target: Tensor, margin: float,
                           reduction: str) -> Tensor:
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0), reduction)


@autocast_op("fp32")
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average: Any = None,
                        reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``: ``target`` (1 or -1) says which input should
    be larger, by at least ``margin``.

    Args:
        input1 (Tensor): the first scores.
        input2 (Tensor): the second scores.
        target (Tensor): 1 or -1 per pair.
        margin (float): the required gap.
        size_average, reduce: deprecated spellings of ``reduction``.
        reduction (str): ``"mean"`` (the default) or ``"sum"`` of the per-element losses, or
            ``"none"`` to return them all.
    """
    reduction = _checked_reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return margin_ranking_loss_op(input1, input2, target, margin, reduction)


@autocast_op("fp32")
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``input`` where ``target`` is 1 and ``max(0, margin - input)`` where it is -1; ``input`` is
    usually a distance between two embeddings.

    Args:
        input (Tensor): the distances.
        target (Tensor): 1 or -1 per element.
        margin (float): the distance dissimilar pairs should exceed.
        size_average, reduce: deprecated spellings of ``reduction``.
        reduction (str): ``"mean"`` (the default) or ``"sum"`` of the per-element losses, or
            ``"none"`` to return them all.
    """
    reduction = _checked_reduction(size_average, reduce, reduction)
    zeros = ember.zeros_like(input)
    # x where the target is not -1, plus max(0, margin - x) where it is not 1. aten's `margin - self`
    # is empty_like(self).fill_(margin).sub_(self): the margin takes the input's dtype (checked,
    # truncated for integers), so an integer input stays integral and its mean fails as aten's.
    margin_clamp = ember.empty_like(input).fill_(margin).sub_(input).clamp_min_(0)
    loss = ember.where(target != 1, margin_clamp, zeros) + ember.where(target != -1, input, zeros)
    return _reduce(loss, reduction)


_EPSILON = 1e-12  # aten's guard on the squared magnitudes


@autocast_op("fp32")
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``1 - cos(input1, input2)`` for pairs labelled 1, ``max(0, cos(input1, input2) - margin)`` for
    pairs labelled -1.

    Args:
        input1 (Tensor): ``(N, D)`` or ``(D,)`` embeddings.
        input2 (Tensor): embeddings of the same shape.
        target (Tensor): 1 or -1 per pair.
        margin (float): the similarity below which dissimilar pairs cost nothing.
        size_average, reduce: deprecated spellings of ``reduction``.
        reduction (str): ``"mean"`` (the default) or ``"sum"`` of the per-element losses, or
            ``"none"`` to return them all.
    """
    reduction = _checked_reduction(size_average, reduce, reduction)
    d = target.dim()
    if d not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.dim() != d + 1 or input2.dim() != d + 1:
        raise RuntimeError(f"{d}D target tensor expects {d + 1}D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    mag1 = (input1 * input1).sum(d) + _EPSILON
    mag2 = (input2 * input2).sum(d) + _EPSILON
    cos = (input1 * input2).sum(d) / (mag1 * mag2).sqrt()
    zeros = ember.zeros_like(cos)
    loss = ember.where(target == 1, 1 - cos, zeros) + ember.where(target == -1, (cos - margin).clamp(min=0), zeros)
    return _reduce(loss, reduction)
