"""Relaxed (Concrete / Gumbel-softmax) one-hot categorical distributions."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from ._delegate import _delegated_property
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """The elementwise log of a :class:`RelaxedOneHotCategorical` draw (the ExpConcrete law):
    ``log_softmax((logits + G) / temperature)`` with independent standard Gumbel noise ``G``.

    Example::

        >>> ExpRelaxedCategorical(ember.tensor(0.5), probs=ember.tensor([0.2, 0.8])).event_shape
        torch.Size([2])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ExpRelaxedCategorical:
        return self._expand_params(ExpRelaxedCategorical, batch_shape, _instance, ("_categorical",),
                                   shared=("temperature",))

    def _new(self, *args: Any, **kwargs: Any) -> Any:
        return self._categorical._new(*args, **kwargs)

    param_shape = _delegated_property("_categorical", "param_shape", "The shape of the parameter tensor.")

    logits = _delegated_property("_categorical", "logits", "Normalised log-probabilities of the categories.")

    probs = _delegated_property("_categorical", "probs", "Probabilities of the categories.")

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        u = clamp_probs(ember.rand(tuple(shape), dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -((-(u.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value: Any) -> Any:
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        t = ember.as_tensor(self.temperature, dtype=value.dtype)
        log_scale = ember.full_like(t, float(k)).lgamma() + t.log() * (k - 1)
        score = self.logits - value * t
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """Relaxed one-hot categorical (Concrete / Gumbel-softmax) distribution on the simplex: a
    reparameterisable approximation of :class:`OneHotCategorical` that sharpens as
    ``temperature`` goes to zero.

    Example::

        >>> RelaxedOneHotCategorical(ember.tensor(0.5), probs=ember.tensor([0.2, 0.8])).sample().shape
        torch.Size([2])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedOneHotCategorical:
        return self._expand_subclass(RelaxedOneHotCategorical, batch_shape, _instance)

    temperature = _delegated_property("base_dist", "temperature", "The relaxation temperature.")

    logits = _delegated_property("base_dist", "logits", "Normalised log-probabilities of the categories.")

    probs = _delegated_property("base_dist", "probs", "Probabilities of the categories.")
