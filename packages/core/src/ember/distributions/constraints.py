"""Constraints: the sets a distribution's parameters and values must lie in.

Each constraint is an object with a ``check(value)`` method returning a boolean tensor (one entry
per event), plus ``is_discrete`` and ``event_dim`` (how many right-most dimensions form one event).
They drive argument validation and, through :mod:`ember.distributions.constraint_registry`, the
choice of transform from unconstrained space.
"""

from __future__ import annotations

from typing import Any

import ember

__all__ = ["Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property", "greater_than",
           "greater_than_eq", "independent", "integer_interval", "interval", "half_open_interval", "is_dependent",
           "less_than", "lower_cholesky", "lower_triangular", "MixtureSameFamilyConstraint", "multinomial",
           "nonnegative", "nonnegative_integer", "one_hot", "positive", "positive_semidefinite",
           "positive_definite", "positive_integer", "real", "real_vector", "simplex", "square", "stack",
           "symmetric", "unit_interval"]


class Constraint:
    """Base class of constraints: a region of values, tested elementwise over events by ``check``.

    ``is_discrete`` says whether the region is a discrete set and ``event_dim`` how many right-most
    dimensions form a single event (the result of ``check`` drops them).
    """

    is_discrete = False
    event_dim = 0

    def check(self, value: Any) -> Any:
        """A boolean tensor of shape ``value.shape[:value.dim() - event_dim]``: whether each event
        of ``value`` satisfies the constraint."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__.lstrip("_") + "()"


class _Dependent(Constraint):
    """Placeholder for a constraint that depends on other parameters (it cannot be checked)."""

    def __init__(self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented) -> None:
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented) -> _Dependent:
        """A dependent constraint with the given static ``is_discrete`` and ``event_dim``."""
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x: Any) -> Any:
        """Always raises: a dependent constraint has no fixed region to test against."""
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    """Whether ``constraint`` is a dependent constraint (one whose region depends on other
    parameters, so argument validation skips it)."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property that, read on the class, acts as a dependent constraint; read on an instance it
    computes the actual constraint. Used for supports that depend on parameters."""

    def __init__(self, fn: Any = None, *, is_discrete: Any = NotImplemented,
                 event_dim: Any = NotImplemented) -> None:
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn: Any) -> _DependentProperty:  # type: ignore[override]
        """Decorate ``fn``, keeping this object's static ``is_discrete`` and ``event_dim``."""
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


def _check_constraint(base_constraint: Any) -> None:
    """Raise unless ``base_constraint`` is a :class:`Constraint`."""
    if not isinstance(base_constraint, Constraint):
        raise TypeError(f"Expected a Constraint, got {type(base_constraint).__name__}")


class _WrappedConstraint(Constraint):
    """Base of the constraints built on a ``base_constraint``: discrete when it is."""

    base_constraint: Constraint

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete


class _IndependentConstraint(_WrappedConstraint):
    """Reinterpret some right-most batch dimensions of a constraint as event dimensions: an event
    is valid when all its entries are."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        _check_constraint(base_constraint)
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise ValueError(f"reinterpreted_batch_ndims must be a nonnegative int, got {reinterpreted_batch_ndims}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: Any) -> Any:
        """Check the base constraint, then require it on every entry of each event."""
        result = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if result.dim() < n:
            raise ValueError(f"Expected value.dim() >= {self.base_constraint.event_dim + n} but got {value.dim()}")
        if n == 0:
            return result
        return result.reshape(tuple(result.shape[:result.dim() - n]) + (-1,)).all(-1)

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class MixtureSameFamilyConstraint(_WrappedConstraint):
    """The support of a mixture: the support of its component distribution."""

    def __init__(self, base_constraint: Constraint) -> None:
        _check_constraint(base_constraint)
        self.base_constraint = base_constraint
        super().__init__()

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim

    def check(self, value: Any) -> Any:
        """Check a mixture sample against the component support (same for every component)."""
        return self.base_constraint.check(value)

    def __repr__(self) -> str:
        return f"MixtureSameFamilyConstraint({self.base_constraint!r})"


class _Bounded(Constraint):
    """Base of the constraints given by bounds (attributes named in ``_bound_names``), which
    their ``repr`` shows."""

    _bound_names: tuple[str, ...] = ()

    def __repr__(self) -> str:
        bounds = ", ".join(f"{name}={getattr(self, name)}" for name in self._bound_names)
        return f"{type(self).__name__.lstrip('_')}({bounds})"


class _LowerBounded(_Bounded):
    """Base of the constraints given by a ``lower_bound`` alone."""

    _bound_names = ("lower_bound",)

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound
        super().__init__()


class _UpperBounded(_Bounded):
    """Base of the constraints given by an ``upper_bound`` alone."""

    _bound_names = ("upper_bound",)

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound
        super().__init__()


class _IntervalBounded(_Bounded):
    """Base of the constraints given by a ``lower_bound`` and an ``upper_bound``."""

    _bound_names = ("lower_bound", "upper_bound")

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()


class _Boolean(Constraint):
    """The set {0, 1}."""

    is_discrete = True

    def check(self, value: Any) -> Any:
        """Whether each entry is 0 or 1."""
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    """One-hot vectors: entries 0 or 1 summing to 1 along the last dimension."""

    is_discrete = True
    event_dim = 1

    def check(self, value: Any) -> Any:
        """Whether each vector is one-hot."""
        binary = ((value == 0) | (value == 1)).all(-1)
        return binary & (value.sum(-1) == 1)


class _IntegerInterval(_IntervalBounded):
    """Integers in ``[lower_bound, upper_bound]``."""

    is_discrete = True

    def check(self, value: Any) -> Any:
        """Whether each entry is an integer within the bounds."""
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)


class _IntegerLessThan(_UpperBounded):
    """Integers no greater than ``upper_bound``."""

    is_discrete = True

    def check(self, value: Any) -> Any:
        """Whether each entry is an integer at most the bound."""
        return (value % 1 == 0) & (value <= self.upper_bound)


class _IntegerGreaterThan(_LowerBounded):
    """Integers no less than ``lower_bound``."""

    is_discrete = True

    def check(self, value: Any) -> Any:
        """Whether each entry is an integer at least the bound."""
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Real(Constraint):
    """The extended real line; only NaN fails."""

    def check(self, value: Any) -> Any:
        """Whether each entry is not NaN."""
        return value == value


class _GreaterThan(_LowerBounded):
    """Reals strictly above ``lower_bound``."""

    def check(self, value: Any) -> Any:
        """Whether each entry exceeds the bound."""
        return self.lower_bound < value


class _GreaterThanEq(_LowerBounded):
    """Reals at or above ``lower_bound``."""

    def check(self, value: Any) -> Any:
        """Whether each entry is at least the bound."""
        return self.lower_bound <= value


class _LessThan(_UpperBounded):
    """Reals strictly below ``upper_bound``."""

    def check(self, value: Any) -> Any:
        """Whether each entry is below the bound."""
        return value < self.upper_bound


class _Interval(_IntervalBounded):
    """The closed interval ``[lower_bound, upper_bound]``."""

    def check(self, value: Any) -> Any:
        """Whether each entry lies in the closed interval."""
        return (self.lower_bound <= value) & (value <= self.upper_bound)


class _HalfOpenInterval(_IntervalBounded):
    """The interval ``[lower_bound, upper_bound)``."""

    def check(self, value: Any) -> Any:
        """Whether each entry lies in the half-open interval."""
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(Constraint):
    """Nonnegative vectors summing to one along the last dimension."""

    event_dim = 1

    def check(self, value: Any) -> Any:
        """Whether each vector is nonnegative with unit sum (to 1e-6)."""
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Nonnegative integer count vectors whose total is at most ``upper_bound``."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, x: Any) -> Any:
        """Whether each count vector is nonnegative with total within the bound."""
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


class _LowerTriangular(Constraint):
    """Lower-triangular square matrices."""

    event_dim = 2

    def check(self, value: Any) -> Any:
        """Whether each matrix is zero above the diagonal."""
        return (value.tril() == value).flatten(-2).all(-1)


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal (Cholesky factors)."""

    event_dim = 2

    def check(self, value: Any) -> Any:
        """Whether each matrix is lower triangular with a positive diagonal."""
        tri = (value.tril() == value).flatten(-2).all(-1)
        return tri & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower Cholesky factors with unit-norm rows."""

    event_dim = 2

    def check(self, value: Any) -> Any:
        """Whether each matrix is a Cholesky factor whose rows have unit Euclidean norm."""
        tol = ember.finfo(value.dtype).eps * value.shape[-1] * 10
        norms = ember.linalg.norm(value.detach(), dim=-1)
        unit = ((norms - 1.0).abs() <= tol).all(-1)
        return _LowerCholesky().check(value) & unit


class _Square(Constraint):
    """Square matrices."""

    event_dim = 2

    def check(self, value: Any) -> Any:
        """True for every matrix when the last two sizes agree, else False."""
        return ember.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1], dtype=ember.bool,
                          device=value.device)


class _Symmetric(_Square):
    """Symmetric matrices (to an absolute tolerance of 1e-6)."""

    def check(self, value: Any) -> Any:
        """Whether each matrix is square and equal to its transpose."""
        square = super().check(value)
        if not bool(square.all()):
            return square
        return ember.isclose(value, value.mT, atol=1e-6).all(-1).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric positive semidefinite matrices."""

    def check(self, value: Any) -> Any:
        """Whether each matrix is symmetric with nonnegative eigenvalues."""
        sym = super().check(value)
        if not bool(sym.all()):
            return sym
        return (ember.linalg.eigvalsh(value) >= 0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric positive definite matrices."""

    def check(self, value: Any) -> Any:
        """Whether each matrix is symmetric and has a Cholesky factorisation."""
        sym = super().check(value)
        if not bool(sym.all()):
            return sym
        return ember.linalg.cholesky_ex(value).info == 0


class _PerPart(Constraint):
    """A sequence of constraints ``cseq``, each on its own part of dimension ``dim``: discrete if
    any part is."""

    def __init__(self, cseq: Any, dim: int = 0) -> None:
        self.cseq = list(cseq)
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)


class _Cat(_PerPart):
    """Different constraints on consecutive slices of one dimension (see ``ember.cat``)."""

    def __init__(self, cseq: Any, dim: int = 0, lengths: Any = None) -> None:
        super().__init__(cseq, dim)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise ValueError("cseq and lengths must have the same length")

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(c.event_dim for c in self.cseq)

    def check(self, value: Any) -> Any:
        """Check each slice against its constraint and concatenate the results."""
        parts, start = [], 0
        for c, n in zip(self.cseq, self.lengths):
            parts.append(c.check(value.narrow(self.dim, start, n)))
            start += n
        return ember.cat(parts, self.dim)


class _Stack(_PerPart):
    """Different constraints on the entries of one dimension (see ``ember.stack``)."""

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value: Any) -> Any:
        """Check each entry along ``dim`` against its constraint and stack the results."""
        n = value.shape[self.dim]
        return ember.stack([self.cseq[i].check(value.select(self.dim, i)) for i in range(n)], self.dim)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
