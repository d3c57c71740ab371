"""The categorical distribution over ``{0, ..., K - 1}``."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from ._probs_logits import _check_probs_or_logits, _lazy_logits_and_probs, _ParamTensor, _ProbsOrLogits
from .distribution import Distribution

__all__ = ["Categorical"]


class Categorical(_ProbsOrLogits, _ParamTensor, Distribution):
    """Categorical distribution over the indices ``0`` to ``K-1`` of the last dimension of ``probs``
    (nonnegative, normalised here to sum to one) or ``logits`` (unnormalised log-probabilities).
    The leading dimensions are batch dimensions.

    Example::

        >>> Categorical(probs=ember.tensor([0.1, 0.9])).log_prob(ember.tensor(1))
        tensor(-0.1054)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        _check_probs_or_logits(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else ember.Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Categorical:
        param_shape = ember.Size(batch_shape) + ember.Size((self._num_events,))
        return self._expand_probs_or_logits(Categorical, batch_shape, _instance, shared=("_num_events",),
                                            param_shape=param_shape)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        return constraints.integer_interval(0, self._num_events - 1)

    logits, probs = _lazy_logits_and_probs("Normalised log-probabilities of the categories.",
                                           "Probabilities of the categories.", is_binary=False)

    @property
    def param_shape(self) -> ember.Size:
        """The shape of the parameter tensor (batch shape plus the number of categories)."""
        return self._param.size()

    @property
    def mean(self) -> Any:
        return ember.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype, device=self.probs.device)

    @property
    def mode(self) -> Any:
        return self.probs.argmax(dim=-1)

    @property
    def variance(self) -> Any:
        return ember.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype, device=self.probs.device)

    def sample(self, sample_shape: Any = ()) -> Any:
        sample_shape = ember.Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        draws = ember.multinomial(probs_2d, max(sample_shape.numel(), 1), True).T
        return draws.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = ember.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self) -> Any:
        logits = ember.clamp(self.logits, min=ember.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Any:
        values = ember.arange(self._num_events, dtype=ember.long, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
