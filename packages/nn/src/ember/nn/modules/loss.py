"""Loss modules: wrappers over ``ember.nn.functional``; weights are stored as buffers."""

from __future__ import annotations

from typing import Any

from ember import Tensor
from ember.nn import functional as F
from ember.nn._functional.loss import legacy_get_string
from ember.nn.modules.module import Module

__all__ = ["L1Loss", "MSELoss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss",
           "CrossEntropyLoss", "KLDivLoss"]


class _Loss(Module):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = legacy_get_string(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.weight: Tensor | None


class L1Loss(_Loss):
    """Mean absolute error between the prediction and the target (the module form of
    ``F.l1_loss``); called as ``loss(input, target)``.

    Args:
        reduction (str): ``"mean"`` (the default), ``"sum"`` or ``"none"`` (every element's loss).
        size_average, reduce: deprecated spellings of ``reduction``.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """Mean squared error between the prediction and the target (the module form of
    ``F.mse_loss``); called as ``loss(input, target)``.

    Args:
        reduction (str): ``"mean"`` (the default), ``"sum"`` or ``"none"`` (every element's loss).
        size_average, reduce: deprecated spellings of ``reduction``.

    Example::

        >>> nn.MSELoss()(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 4.0]))
        tensor(2.)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Quadratic below ``beta``, linear above (the module form of ``F.smooth_l1_loss``); called as
    ``loss(input, target)``.

    Args:
        reduction (str): ``"mean"`` (the default), ``"sum"`` or ``"none"`` (every element's loss).
        size_average, reduce: deprecated spellings of ``reduction``.
        beta (float): where the loss turns from quadratic to linear.
    """

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Huber loss, quadratic up to ``delta`` and linear beyond (the module form of ``F.huber_loss``);
    called as ``loss(input, target)``.

    Args:
        reduction (str): ``"mean"`` (the default), ``"sum"`` or ``"none"``.
        delta (float): where the loss turns from quadratic to linear.
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy between predicted probabilities and targets in ``[0, 1]`` (the module
    form of ``F.binary_cross_entropy``); called as ``loss(probs, target)``.

    Args:
        weight (Tensor, optional): a per-element rescaling.
        reduction (str): ``"mean"`` (the default), ``"sum"`` or ``"none"`` (every element's loss).
        size_average, reduce: deprecated spellings of ``reduction``.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of ``sigmoid(logits)``, computed stably from the logits (the module
    form of ``F.binary_cross_entropy_with_logits``); called as ``loss(logits, target)``.

    Args:
        weight (Tensor, optional): a per-element rescaling.
        reduction (str): ``"mean"`` (the default), ``"sum"`` or ``"none"`` (every element's loss).
        size_average, reduce: deprecated spellings of ``reduction``.
        pos_weight (Tensor, optional): the weight of the positive term, per class.
    """

    def __init__(self, weight: Tensor | None = None, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean", pos_weight: Tensor | None = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of class indices under log-probabilities (the module form of
    ``F.nll_loss``); called as ``loss(log_probs, target)`` with classes on dimension 1.

    Args:
        weight (Tensor, optional): ``(C,)`` per-class weights.
        ignore_index (int): a target value that contributes nothing.
        reduction (str): ``"mean"`` (the default), ``"sum"`` or ``"none"`` (every element's loss).
        size_average, reduce: deprecated spellings of ``reduction``.
    """

    def __init__(self, weight: Tensor | None = None, size_average: Any = None, ignore_index: int = -100,
                 reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross-entropy of raw scores (logits) against class indices or class probabilities: log-softmax
    then negative log-likelihood (the module form of ``F.cross_entropy``); called as
    ``loss(logits, target)`` with classes on dimension 1.

    Args:
        weight (Tensor, optional): ``(C,)`` per-class weights.
        ignore_index (int): a target index that contributes nothing.
        reduction (str): ``"mean"`` (the default), ``"sum"`` or ``"none"`` (every element's loss).
        size_average, reduce: deprecated spellings of ``reduction``.
        label_smoothing (float): mixes this much of the uniform distribution into the targets.

    Example::

        >>> nn.CrossEntropyLoss()(ember.tensor([[0.0, 0.0]]), ember.tensor([1]))
        tensor(0.6931)
    """

    def __init__(self, weight: Tensor | None = None, size_average: Any = None, ignore_index: int = -100,
                 reduce: Any = None, reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of the target from log-probabilities (the module form of
    ``F.kl_div``); called as ``loss(log_probs, target)``.

    Args:
        reduction (str): ``"mean"``, ``"batchmean"`` (the true mean per sample), ``"sum"`` or ``"none"``.
        size_average, reduce: deprecated spellings of ``reduction``.
        log_target (bool): the target holds log-probabilities.
    """

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
