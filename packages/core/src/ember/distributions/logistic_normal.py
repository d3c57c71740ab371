"""The logistic-normal distribution on the simplex."""

from __future__ import annotations

from typing import Any

from . import constraints
from ._delegate import _delegated_property
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """Distribution on the ``K``-simplex of ``StickBreakingTransform()(X)`` for ``K - 1``
    independent normals ``X`` with means ``loc`` and standard deviations ``scale``.

    Example::

        >>> LogisticNormal(ember.zeros(2), ember.ones(2)).event_shape
        torch.Size([3])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogisticNormal:
        return self._expand_subclass(LogisticNormal, batch_shape, _instance)

    loc = _delegated_property("base_dist.base_dist", "loc", "Means of the underlying normals.")

    scale = _delegated_property("base_dist.base_dist", "scale", "Standard deviations of the underlying normals.")
