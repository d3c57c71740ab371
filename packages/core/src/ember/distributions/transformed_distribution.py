"""Distributions obtained by pushing a base distribution through transforms."""

from __future__ import annotations

from typing import Any

import ember

from . import constraints
from .distribution import Distribution
from .independent import Independent
from .transforms import ComposeTransform, Transform
from .utils import _sum_rightmost

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """The distribution of ``x`` drawn from ``base_distribution`` and passed through the transforms in order.

    The density follows from the change of variables formula: ``log p(y) = log p_base(x) -
    sum_i log|det J_i|`` along the chain of inverses. When the transforms need more event
    dimensions than the base has, base batch dimensions are reinterpreted as event dimensions.
    ``cdf``/``icdf`` work for monotone univariate transforms.

    Example::

        >>> d = TransformedDistribution(Normal(ember.tensor(0.0), ember.tensor(1.0)),
        ...                             [transforms.ExpTransform()])
        >>> d.log_prob(ember.tensor(1.0))
        tensor(-0.9189)
    """

    arg_constraints: dict[str, Any] = {}

    def __init__(self, base_distribution: Distribution, transforms: Any, validate_args: Any = None) -> None:
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least {transform.domain.event_dim}, "
                             f"but got {base_shape}.")
        forward_shape = transform.forward_shape(base_shape)
        expanded = transform.inverse_shape(forward_shape)
        if tuple(base_shape) != tuple(expanded):
            base_distribution = base_distribution.expand(expanded[:len(expanded) - base_event_dim])
        extra = transform.domain.event_dim - base_event_dim
        if extra > 0:
            base_distribution = Independent(base_distribution, extra)
        self.base_dist = base_distribution
        change = transform.codomain.event_dim - transform.domain.event_dim
        event_dim = max(transform.codomain.event_dim, base_event_dim + change)
        shape = tuple(forward_shape)
        super().__init__(shape[:len(shape) - event_dim], shape[len(shape) - event_dim:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> TransformedDistribution:
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = ember.Size(batch_shape)
        shape = batch_shape + self.event_shape
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        base_batch = shape[:len(shape) - len(self.base_dist.event_shape)]
        new.base_dist = self.base_dist.expand(base_batch)
        new.transforms = self.transforms
        super(TransformedDistribution, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _expand_subclass(self, cls: type, batch_shape: Any, _instance: Any = None,
                         params: tuple[str, ...] = ()) -> Any:
        """The ``expand`` of a subclass ``cls`` that defines it: a new ``cls`` (or ``_instance``)
        with its own ``params`` expanded to ``batch_shape``, then expanded as the base class does."""
        new = self._get_checked_instance(cls, _instance)
        for name in params:
            setattr(new, name, getattr(self, name).expand(batch_shape))
        return super(cls, self).expand(batch_shape, _instance=new)

    @constraints.dependent_property(is_discrete=False)
    def support(self) -> Any:
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) - support.event_dim)
        return support

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    def sample(self, sample_shape: Any = ()) -> Any:
        with ember.no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape: Any = ()) -> Any:
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob: Any = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(t.log_abs_det_jacobian(x, y), event_dim - t.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value: Any) -> Any:
        sign: Any = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value: Any) -> Any:
        for t in self.transforms[::-1]:
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value: Any) -> Any:
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for t in self.transforms:
            value = t(value)
        return value
