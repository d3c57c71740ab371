"""The categorical distribution with one-hot encoded values."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from ._delegate import _delegated_property
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """Categorical distribution whose values are one-hot vectors of length ``K`` instead of
    indices; parametrised like :class:`Categorical` by ``probs`` or ``logits``.

    Example::

        >>> OneHotCategorical(probs=ember.tensor([0.0, 1.0])).sample()
        tensor([0., 1.])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> OneHotCategorical:
        return self._expand_params(OneHotCategorical, batch_shape, _instance, ("_categorical",))

    def _new(self, *args: Any, **kwargs: Any) -> Any:
        return self._categorical._new(*args, **kwargs)

    @property
    def _param(self) -> Any:
        return self._categorical._param

    probs = _delegated_property("_categorical", "probs", "Probabilities of the categories.")

    logits = _delegated_property("_categorical", "logits", "Normalised log-probabilities of the categories.")

    @property
    def mean(self) -> Any:
        return self._categorical.probs

    @property
    def mode(self) -> Any:
        probs = self._categorical.probs
        return _one_hot(probs.argmax(dim=-1), probs.shape[-1], probs.dtype)

    @property
    def variance(self) -> Any:
        return self._categorical.probs * (1 - self._categorical.probs)

    param_shape = _delegated_property("_categorical", "param_shape", "The shape of the parameter tensor.")

    def sample(self, sample_shape: Any = ()) -> Any:
        probs = self._categorical.probs
        index = self._categorical.sample(ember.Size(sample_shape))
        return _one_hot(index, self._categorical._num_events, probs.dtype)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self) -> Any:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Any:
        n = self.event_shape[0]
        values = ember.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values


def _one_hot(index: Any, n: int, dtype: Any) -> Any:
    return ember.eye(n, dtype=dtype, device=index.device)[index]


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """:class:`OneHotCategorical` with a straight-through gradient estimator: ``rsample`` returns
    the one-hot draw in the forward pass but passes gradients to the probabilities as if the
    draw were ``probs``."""

    has_rsample = True

    def rsample(self, sample_shape: Any = ()) -> Any:
        draws = self.sample(sample_shape)
        probs = self._categorical.probs
        return draws + (probs - probs.detach())
