"""Loss modules: wrappers over ``ember.nn.functional``; weights are stored as buffers."""

from __future__ import annotations

import math
from typing import Any

from ember import Tensor
from ember.nn import functional as F
from ember.nn._functional.loss import legacy_get_string
from ember.nn.modules.linear import Linear
from ember.nn.modules.linear_cross_entropy_options import LinearCrossEntropyOptions
from ember.nn.modules.module import Module

__all__ = ["L1Loss", "MSELoss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss",
           "CrossEntropyLoss", "KLDivLoss", "LinearCrossEntropyLoss"]


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


class LinearCrossEntropyLoss(_WeightedLoss):
    """Cross entropy of a built-in linear layer's logits against ``target`` (the module form of
    ``F.linear_cross_entropy``): ``self.linear`` holds the ``(C * prod(out_features), in_features)``
    weight, reshaped to ``(C, *out_features, in_features)`` on each call.

    Args:
        in_features (int): size of each input sample.
        num_classes (int): the number of classes ``C``.
        out_features (tuple of int): ``(d_1, ..., d_K)`` for a K-dimensional loss; default ``()``.
        bias (bool): whether the linear layer adds a learnable bias. Default: ``False``.
        device, dtype: of the linear layer's parameters.
        reduction (str): ``"mean"`` (the default), ``"sum"`` or ``"none"``.
        weight (Tensor, optional): ``(C,)`` per-class weights.
        ignore_index (int, optional): a class index that contributes nothing; ``None``: -100.
        label_smoothing (float): in [0, 1], mixes this much of the uniform distribution in.
        options (LinearCrossEntropyOptions, optional): chunk the batch (see the functional).

    Example::

        >>> loss = nn.LinearCrossEntropyLoss(3, 4)
        >>> loss(ember.ones(2, 3), ember.tensor([0, 3])).shape
        torch.Size([])
    """

    def __init__(self, in_features: int, num_classes: int, *, out_features: tuple[int, ...] = (), bias: bool = False,
                 device: Any = None, dtype: Any = None, reduction: str = "mean", weight: Tensor | None = None,
                 ignore_index: int | None = None, label_smoothing: float = 0.0,
                 options: LinearCrossEntropyOptions | None = None) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight=weight, size_average=None, reduce=None, reduction=reduction)
        self.num_classes, self.out_features = num_classes, out_features
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias, device=device,
                             dtype=dtype)
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        w = self.linear.weight.reshape((self.num_classes, *self.out_features, self.linear.in_features))
        b = self.linear.bias.reshape((self.num_classes, *self.out_features)) if self.linear.bias is not None else None
        return F.linear_cross_entropy(input, w, target, linear_bias=b, weight=self.weight, reduction=self.reduction,
                                      ignore_index=self.ignore_index, label_smoothing=self.label_smoothing,
                                      options=self.options)

    def extra_repr(self) -> str:
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")


# PyTorch's loss.py also holds the margin, ranking and CTC losses; ember's files holding them import
# this one, so they are found on first use
_LAZY = {
    "PoissonNLLLoss": "loss_margin", "GaussianNLLLoss": "loss_margin", "HingeEmbeddingLoss": "loss_margin",
    "MultiLabelMarginLoss": "loss_margin", "SoftMarginLoss": "loss_margin", "MultiLabelSoftMarginLoss":
    "loss_margin", "CosineEmbeddingLoss": "loss_margin", "MarginRankingLoss": "loss_margin", "MultiMarginLoss":
    "loss_margin", "TripletMarginLoss": "loss_margin", "TripletMarginWithDistanceLoss": "loss_margin", "CTCLoss":
    "loss_margin", "NLLLoss2d": "deprecated", "PairwiseDistance": "distance"
}
__all__ += [n for n in _LAZY if not n.startswith("_") and n != "LazyModuleMixin" and n != "PairwiseDistance"]


def __getattr__(name: str) -> Any:
    """The classes listed in ``_LAZY``, imported from their ember file on first use."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"ember.nn.modules.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
