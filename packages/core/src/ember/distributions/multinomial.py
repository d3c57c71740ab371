"""The multinomial distribution."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from ._delegate import _delegated_property
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Multinomial distribution: category counts of ``total_count`` independent draws from a
    :class:`Categorical` with ``probs`` (or ``logits``). ``total_count`` is a single integer;
    :meth:`log_prob` accepts any total.

    Example::

        >>> Multinomial(4, probs=ember.tensor([0.5, 0.5])).mean
        tensor([2., 2.])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}

    @property
    def mean(self) -> Any:
        return self.probs * self.total_count

    @property
    def variance(self) -> Any:
        return self.total_count * self.probs * (1 - self.probs)

    def __init__(self, total_count: int = 1, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Multinomial:
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = ember.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = Binomial(total_count=self.total_count, probs=new._categorical.probs)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Any:
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> Any:
        return constraints.multinomial(self.total_count)

    logits = _delegated_property("_categorical", "logits", "Normalised log-probabilities of the categories.")

    probs = _delegated_property("_categorical", "probs", "Probabilities of the categories.")

    param_shape = _delegated_property("_categorical", "param_shape", "The shape of the parameter tensor.")

    def sample(self, sample_shape: Any = ()) -> Any:
        sample_shape = ember.Size(sample_shape)
        draws = self._categorical.sample(ember.Size((self.total_count,)) + sample_shape)
        draws = draws.movedim(0, -1)  # sample + batch + (total_count,)
        counts = ember.zeros(tuple(self._extended_shape(sample_shape)), dtype=draws.dtype, device=draws.device)
        counts.scatter_add_(-1, draws, ember.ones_like(draws))
        return counts.type_as(self.probs)

    def entropy(self) -> Any:
        n = ember.tensor(float(self.total_count), dtype=self.probs.dtype)
        term1 = n * self._categorical.entropy() - ember.lgamma(n + 1)
        counts = self._binomial.enumerate_support(expand=False)[1:]
        weights = ember.lgamma(counts + 1)
        term2 = (self._binomial.log_prob(counts).exp() * weights).sum([0, -1])
        return term1 + term2

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = ember.lgamma(value.sum(-1) + 1)
        log_factorial_xs = ember.lgamma(value + 1).sum(-1)
        logits = ember.where((value == 0) & (logits == float("-inf")), ember.zeros_like(logits), logits)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)
