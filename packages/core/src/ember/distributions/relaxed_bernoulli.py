"""Relaxed (Concrete) Bernoulli distributions."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from ._delegate import _delegated_property
from ._probs_logits import _lazy_logits_and_probs, _ParamTensor, _ProbsOrLogits
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(_ProbsOrLogits, _ParamTensor, Distribution):
    """The logit of a :class:`RelaxedBernoulli` draw: a logistic distribution with location
    ``logits / temperature`` and scale ``1 / temperature``. Parametrised by ``temperature`` and
    one of ``probs`` or ``logits``.

    Example::

        >>> LogitRelaxedBernoulli(ember.tensor(0.5), probs=ember.tensor([0.3])).batch_shape
        torch.Size([1])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        self.temperature = temperature
        batch_shape = self._set_probs_or_logits(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogitRelaxedBernoulli:
        return self._expand_probs_or_logits(LogitRelaxedBernoulli, batch_shape, _instance, shared=("temperature",))

    logits, probs = _lazy_logits_and_probs("Log-odds of the underlying Bernoulli.",
                                           "Probability of the underlying Bernoulli.")

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(ember.rand(tuple(shape), dtype=probs.dtype, device=probs.device))
        return (u.log() - ember.log1p(-u) + probs.log() - ember.log1p(-probs)) / self.temperature

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        log_t = self.temperature.log() if isinstance(self.temperature, ember.Tensor) else ember.log(
            ember.tensor(float(self.temperature), dtype=logits.dtype))
        return log_t + diff - 2 * ember.log1p(diff.exp())


class RelaxedBernoulli(TransformedDistribution):
    """Relaxed (Concrete) Bernoulli distribution on (0, 1): a differentiable approximation of a
    Bernoulli, reparameterisable, that approaches it as ``temperature`` goes to zero. It is the
    sigmoid of a ``LogitRelaxedBernoulli``.

    Example::

        >>> RelaxedBernoulli(ember.tensor(0.5), probs=ember.tensor([0.3])).has_rsample
        True
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedBernoulli:
        return self._expand_subclass(RelaxedBernoulli, batch_shape, _instance)

    temperature = _delegated_property("base_dist", "temperature", "The relaxation temperature.")

    logits = _delegated_property("base_dist", "logits", "Log-odds of the underlying Bernoulli.")

    probs = _delegated_property("base_dist", "probs", "Probability of the underlying Bernoulli.")
