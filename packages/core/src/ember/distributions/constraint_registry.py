"""Registries from constraints to transforms.

``biject_to(c)`` returns a bijective transform from unconstrained space onto the region of
constraint ``c`` (usable for densities: it has a log-determinant); ``transform_to(c)`` returns a
transform onto the region that need not be bijective (for optimisation, e.g. a softmax onto the
simplex). Register more with ``biject_to.register(constraint_type_or_instance, factory)``.
"""

from __future__ import annotations

from numbers import Number
from typing import Any

from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """A mapping from constraint types to factories building a transform for a constraint
    instance. Calling the registry with a constraint applies the factory registered for its type."""

    def __init__(self) -> None:
        self._registry: dict[type, Any] = {}
        super().__init__()

    def register(self, constraint: Any, factory: Any = None) -> Any:
        """Register ``factory(constraint) -> Transform`` for a constraint class (or the class of a
        constraint instance); without ``factory`` this is a decorator."""
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, constraints.Constraint):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint: Any) -> transforms.Transform:
        """The transform registered for ``constraint``'s type, built for this instance."""
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


@biject_to.register(constraints.real)
@transform_to.register(constraints.real)
def _to_real(constraint: Any) -> Any:
    return transforms.identity_transform


@biject_to.register(constraints.independent)
def _biject_to_independent(constraint: Any) -> Any:
    return transforms.IndependentTransform(biject_to(constraint.base_constraint), constraint.reinterpreted_batch_ndims)


@transform_to.register(constraints.independent)
def _transform_to_independent(constraint: Any) -> Any:
    base = transform_to(constraint.base_constraint)
    return transforms.IndependentTransform(base, constraint.reinterpreted_batch_ndims)


@biject_to.register(constraints.positive)
@biject_to.register(constraints.nonnegative)
@transform_to.register(constraints.positive)
@transform_to.register(constraints.nonnegative)
def _to_positive(constraint: Any) -> Any:
    return transforms.ExpTransform()


@biject_to.register(constraints.greater_than)
@biject_to.register(constraints.greater_than_eq)
@transform_to.register(constraints.greater_than)
@transform_to.register(constraints.greater_than_eq)
def _to_greater_than(constraint: Any) -> Any:
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


@biject_to.register(constraints.less_than)
@transform_to.register(constraints.less_than)
def _to_less_than(constraint: Any) -> Any:
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


@biject_to.register(constraints.interval)
@biject_to.register(constraints.half_open_interval)
@transform_to.register(constraints.interval)
@transform_to.register(constraints.half_open_interval)
def _to_interval(constraint: Any) -> Any:
    low, high = constraint.lower_bound, constraint.upper_bound
    if isinstance(low, Number) and low == 0 and isinstance(high, Number) and high == 1:
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(), transforms.AffineTransform(low, high - low)])


@biject_to.register(constraints.simplex)
def _biject_to_simplex(constraint: Any) -> Any:
    return transforms.StickBreakingTransform()


@transform_to.register(constraints.simplex)
def _transform_to_simplex(constraint: Any) -> Any:
    return transforms.SoftmaxTransform()


@transform_to.register(constraints.lower_cholesky)
def _transform_to_lower_cholesky(constraint: Any) -> Any:
    return transforms.LowerCholeskyTransform()


@transform_to.register(constraints.positive_definite)
@transform_to.register(constraints.positive_semidefinite)
def _transform_to_positive_definite(constraint: Any) -> Any:
    return transforms.PositiveDefiniteTransform()


@biject_to.register(constraints.corr_cholesky)
@transform_to.register(constraints.corr_cholesky)
def _to_corr_cholesky(constraint: Any) -> Any:
    return transforms.CorrCholeskyTransform()


@biject_to.register(constraints.cat)
def _biject_to_cat(constraint: Any) -> Any:
    return transforms.CatTransform([biject_to(c) for c in constraint.cseq], constraint.dim, constraint.lengths)


@transform_to.register(constraints.cat)
def _transform_to_cat(constraint: Any) -> Any:
    return transforms.CatTransform([transform_to(c) for c in constraint.cseq], constraint.dim, constraint.lengths)


@biject_to.register(constraints.stack)
def _biject_to_stack(constraint: Any) -> Any:
    return transforms.StackTransform([biject_to(c) for c in constraint.cseq], constraint.dim)


@transform_to.register(constraints.stack)
def _transform_to_stack(constraint: Any) -> Any:
    return transforms.StackTransform([transform_to(c) for c in constraint.cseq], constraint.dim)
