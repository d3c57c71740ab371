"""The Bernoulli distribution."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from ._probs_logits import _lazy_logits_and_probs, _ParamTensor, _ProbsOrLogits
from .exp_family import ExponentialFamily
from .utils import _bce_with_logits, _softplus, broadcast_all

__all__ = ["Bernoulli"]


class Bernoulli(_ProbsOrLogits, _ParamTensor, ExponentialFamily):
    """Bernoulli distribution: 1 with probability ``probs`` and 0 otherwise.

    Give exactly one of ``probs`` (in [0, 1]) or ``logits`` (log-odds); the other is computed on
    demand.

    Example::

        >>> Bernoulli(probs=ember.tensor(0.25)).mean
        tensor(0.2500)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        batch_shape = self._set_probs_or_logits(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Bernoulli:
        return self._expand_probs_or_logits(Bernoulli, batch_shape, _instance)

    @property
    def mean(self) -> Any:
        return self.probs

    @property
    def mode(self) -> Any:
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return ember.where(self.probs == 0.5, ember.full_like(mode, float("nan")), mode)

    @property
    def variance(self) -> Any:
        return self.probs * (1 - self.probs)

    logits, probs = _lazy_logits_and_probs("Log-odds of a 1.", "Probability of a 1.")

    def sample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember.bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_bce_with_logits(logits, value)

    def entropy(self) -> Any:
        return _bce_with_logits(self.logits, self.probs)

    def enumerate_support(self, expand: bool = True) -> Any:
        values = ember.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self) -> tuple[Any]:
        return (ember.logit(self.probs),)

    def _log_normalizer(self, x: Any) -> Any:
        return _softplus(x)
