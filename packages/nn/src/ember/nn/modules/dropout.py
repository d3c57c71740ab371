"""Dropout: zero elements with probability p in training; identity in eval."""

from __future__ import annotations

from ember import Tensor
from ember.nn import functional as F
from ember.nn.modules.module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """The base of the dropout layers (as PyTorch's): holds ``p`` and ``inplace`` and checks ``p``.

    The layers are siblings, not subclasses of :class:`Dropout`, so ``isinstance(m, nn.Dropout)`` is
    False for ``Dropout2d`` as in PyTorch; ``isinstance(m, _DropoutNd)`` finds them all.
    """

    __constants__ = ["p", "inplace"]

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        """``p`` and ``inplace``, as the layer's repr shows them."""
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Dropout (the module form of ``F.dropout``): in training mode every element is zeroed with
    probability ``p`` and the kept ones are scaled by ``1 / (1 - p)``; in eval mode it passes the
    input through.

    Args:
        p (float): the probability of zeroing an element.
        inplace (bool): write the result into the input.

    Example::

        >>> nn.Dropout(0.5).eval()(ember.ones(2))
        tensor([1., 1.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of (N, C, L) or (C, L) inputs."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of (N, C, H, W) or (C, H, W) inputs."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) inputs."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps SELU's self-normalizing mean and variance."""

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels."""

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
