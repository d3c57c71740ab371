"""gumbel_softmax: a differentiable categorical sample (the Gumbel-softmax relaxation), with the
straight-through one-hot form."""

from __future__ import annotations

import warnings

import ember
from ember import Tensor


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1) -> Tensor

    A differentiable sample of a categorical distribution (the Gumbel-softmax, or Concrete,
    relaxation): ``softmax((logits + g) / tau)`` along ``dim`` with ``g`` standard Gumbel noise.
    With ``hard`` the result is the one-hot of that sample's maximum in the forward pass and the
    soft sample's gradient in the backward pass (the straight-through estimator).

    Args:
        logits (Tensor): unnormalised log-probabilities.
        tau (float): the temperature; small values give nearly one-hot samples.
        hard (bool): return one-hot vectors (with the soft sample's gradient).
        eps (float): unused (deprecated, warns when changed).
        dim (int): the category dimension.

    Returns:
        Tensor: a sample of ``logits``' shape, each slice along ``dim`` summing to 1.

    Example::

        >>> y = ember.nn.functional.gumbel_softmax(ember.zeros(2, 4), tau=0.5, hard=True)
        >>> y.sum(-1)
        tensor([1., 1.])
    """
    if not isinstance(logits, Tensor):
        raise TypeError(f"gumbel_softmax(): argument 'logits' must be Tensor, not {type(logits).__name__}")
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -ember.empty_like(logits, memory_format=ember.contiguous_format).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = ember.zeros_like(logits, memory_format=ember.contiguous_format).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
