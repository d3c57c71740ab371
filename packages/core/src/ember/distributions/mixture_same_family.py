"""Mixtures whose components all belong to one batched family."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """Mixture of ``K`` components drawn from one batched distribution: the right-most batch
    dimension of ``component_distribution`` (of size ``K``) indexes the components and
    ``mixture_distribution`` (a :class:`Categorical` over ``K``) weighs them.

    Example::

        >>> mix = Categorical(probs=ember.tensor([0.5, 0.5]))
        >>> comp = Normal(ember.tensor([-1.0, 1.0]), ember.tensor([1.0, 1.0]))
        >>> MixtureSameFamily(mix, comp).mean
        tensor(0.)
    """

    arg_constraints: dict[str, Any] = {}
    has_rsample = False

    def __init__(self, mixture_distribution: Categorical, component_distribution: Distribution,
                 validate_args: Any = None) -> None:
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution need to be an instance of torch.distributions.Distribution")
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for a, b in zip(reversed(mdbs), reversed(cdbs)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not compatible with "
                                 f"`component_distribution.batch_shape`({cdbs})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(cdbs, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MixtureSameFamily:
        batch_shape = ember.Size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        super(MixtureSameFamily, new).__init__(batch_shape, new._component_distribution.event_shape,
                                               validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self) -> Any:
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self) -> Categorical:
        """The categorical distribution over components."""
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        """The batched component distribution."""
        return self._component_distribution

    def _weights(self) -> Any:
        probs = self._mixture_distribution.probs
        return probs.reshape(tuple(probs.shape) + (1,) * self._event_ndims)

    def _pad(self, x: Any) -> Any:
        return x.unsqueeze(-1 - self._event_ndims)

    @property
    def mean(self) -> Any:
        return (self._weights() * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> Any:
        w = self._weights()
        dim = -1 - self._event_ndims
        within = (w * self._component_distribution.variance).sum(dim)
        between = (w * (self._component_distribution.mean - self._pad(self.mean)).pow(2)).sum(dim)
        return within + between

    def cdf(self, x: Any) -> Any:
        cdf_x = self._component_distribution.cdf(self._pad(x))
        return (cdf_x * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x: Any) -> Any:
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self._component_distribution.log_prob(self._pad(x))
        log_mix = ember.log_softmax(self._mixture_distribution.logits, dim=-1)
        return ember.logsumexp(log_prob_x + log_mix, dim=-1)

    def sample(self, sample_shape: Any = ()) -> Any:
        with ember.no_grad():
            sample_shape = ember.Size(sample_shape)
            gather_dim = len(sample_shape) + len(self.batch_shape)
            index = self._mixture_distribution.sample(sample_shape)
            index = index.expand(tuple(sample_shape) + tuple(self.batch_shape))
            draws = self._component_distribution.sample(sample_shape)
            index = index.reshape(tuple(index.shape) + (1,) * (self._event_ndims + 1))
            index = index.expand(tuple(index.shape[:gather_dim]) + (1,) + tuple(self.event_shape))
            return ember.gather(draws, gather_dim, index).squeeze(gather_dim)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(\n  {self.mixture_distribution},\n  "
                f"{self.component_distribution})")
