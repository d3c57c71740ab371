"""Transforms: invertible (or at least computable) maps between constrained spaces, with the log
absolute determinant of their Jacobian, used by ``TransformedDistribution`` and by the constraint
registries. This file holds the base class, composition, inversion and the elementwise maps; the
vector, matrix and shape transforms live in ``_transforms_structured``.
"""

from __future__ import annotations

import functools
import math
import operator
import weakref
from numbers import Number
from typing import Any

import ember

from . import constraints
from .utils import _sum_rightmost

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
           "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftplusTransform",
           "TanhTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "Transform",
           "identity_transform"]


def _softplus(x: Any) -> Any:
    """log(1 + exp(x)), computed without overflow."""
    a = x.abs()
    return (x + a) / 2 + ember.log1p(ember.exp(-a))


class Transform:
    """Base class of transforms ``y = f(x)``.

    A subclass implements ``_call`` (and ``_inverse`` when it can be inverted) and, when it is
    a bijection, ``log_abs_det_jacobian``. ``domain`` and ``codomain`` are the constraints of
    inputs and outputs, ``bijective`` says whether the map is invertible and ``sign`` (for
    monotone elementwise maps) whether it increases. With ``cache_size=1`` the latest pair
    ``(x, y)`` is remembered, so inverting an output just computed gives back its input object.
    """

    bijective = False
    domain: constraints.Constraint = constraints.real
    codomain: constraints.Constraint = constraints.real

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y: tuple[Any, Any] = (None, None)
        self._inv: Any = None
        super().__init__()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_inv"] = None
        return state

    @property
    def event_dim(self) -> int:
        """The event dimension of domain and codomain, when they agree."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> Transform:
        """The inverse transform (``inv(f)(f(x)) == x``)."""
        inv = None if self._inv is None else self._inv()
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = weakref.ref(inv)
        return inv

    @property
    def sign(self) -> Any:
        """Whether this monotone elementwise transform increases (+1) or decreases (-1)."""
        raise NotImplementedError

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with the given cache size (itself when it already has it)."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x: Any) -> Any:
        """Apply the transform to ``x``."""
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = (x, y)
        return y

    def _inv_call(self, y: Any) -> Any:
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = (x, y)
        return x

    def _call(self, x: Any) -> Any:
        raise NotImplementedError

    def _inverse(self, y: Any) -> Any:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """``log |dy/dx|`` at the pair ``(x, y = f(x))``, summed over the event dimensions."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"

    def forward_shape(self, shape: Any) -> Any:
        """The shape of ``f(x)`` for an input of shape ``shape``."""
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of the inverse image of an output of shape ``shape``."""
        return shape


class _InverseTransform(Transform):
    """The inverse of a transform, evaluated through that transform's ``_inverse``."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self) -> Any:  # type: ignore[override]
        return self._inv.codomain

    @property
    def codomain(self) -> Any:  # type: ignore[override]
        return self._inv.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self._inv.bijective

    @property
    def sign(self) -> Any:
        return self._inv.sign

    @property
    def inv(self) -> Transform:
        return self._inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The inverse of the forward transform with the given cache size."""
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._inv!r})"

    def __call__(self, x: Any) -> Any:
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """Minus the forward transform's log-determinant at ``(y, x)``."""
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape: Any) -> Any:
        """The forward transform's inverse shape."""
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        """The forward transform's forward shape."""
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """Apply several transforms one after another (``parts[0]`` first).

    The event dimension of the composition is the largest one any part needs; log-determinants
    of parts with smaller event dimensions are summed over the extra dimensions.
    """

    def __init__(self, parts: list[Transform], cache_size: int = 0) -> None:
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> Any:
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim = max(event_dim + part.domain.event_dim - part.codomain.event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> Any:
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim = max(event_dim + part.codomain.event_dim - part.domain.event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(p.bijective for p in self.parts)

    @property
    def sign(self) -> Any:
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self) -> Transform:
        inv = None if self._inv is None else self._inv()
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = weakref.ref(inv)
            inv._inv = weakref.ref(self)
        return inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        """A composition of the parts, each with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x: Any) -> Any:
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """The sum of the parts' log-determinants along the chain of intermediate values."""
        if not self.parts:
            return ember.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(_sum_rightmost(part.log_abs_det_jacobian(a, b), event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape: Any) -> Any:
        """The shape after every part's forward shape."""
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        """The shape after every part's inverse shape, last part first."""
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self) -> str:
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{self.__class__.__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """Treat ``reinterpreted_batch_ndims`` right-most batch dimensions of another transform as
    event dimensions: the log-determinant is summed over them."""

    def __init__(self, base_transform: Transform, reinterpreted_batch_ndims: int, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same reinterpretation around the base transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> Any:
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> Any:
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self.base_transform.bijective

    @property
    def sign(self) -> Any:
        return self.base_transform.sign

    def _call(self, x: Any) -> Any:
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y: Any) -> Any:
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """The base log-determinant summed over the reinterpreted dimensions."""
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape: Any) -> Any:
        """The base transform's forward shape."""
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        """The base transform's inverse shape."""
        return self.base_transform.inverse_shape(shape)


class ExpTransform(Transform):
    """``y = exp(x)``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        return x.exp()

    def _inverse(self, y: Any) -> Any:
        return y.log()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """``x`` (the derivative of exp is exp)."""
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive reals."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        if not isinstance(exponent, ember.Tensor):
            exponent = ember.tensor(float(exponent))
        self.exponent = exponent

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same power with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self) -> Any:
        return self.exponent.sign()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all())

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        return x.pow(self.exponent)

    def _inverse(self, y: Any) -> Any:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """``log |exponent * y / x|``."""
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape: Any) -> Any:
        """The input shape broadcast with the exponent's shape."""
        return ember.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    def inverse_shape(self, shape: Any) -> Any:
        """The output shape broadcast with the exponent's shape."""
        return ember.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))


def _clipped_sigmoid(x: Any) -> Any:
    info = ember.finfo(x.dtype)
    return ember.clamp(ember.sigmoid(x), min=info.tiny, max=1.0 - info.eps)


class SigmoidTransform(Transform):
    """``y = 1 / (1 + exp(-x))``, kept strictly inside (0, 1)."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        return _clipped_sigmoid(x)

    def _inverse(self, y: Any) -> Any:
        info = ember.finfo(y.dtype)
        y = y.clamp(min=info.tiny, max=1.0 - info.eps)
        return y.log() - ember.log1p(-y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """``log sigmoid(x) + log sigmoid(-x)``."""
        return -_softplus(-x) - _softplus(x)


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftplusTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        return _softplus(x)

    def _inverse(self, y: Any) -> Any:
        return ember.log(-ember.expm1(-y)) + y

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """``log sigmoid(x)``."""
        return -_softplus(-x)


class TanhTransform(Transform):
    """``y = tanh(x)``."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        return x.tanh()

    def _inverse(self, y: Any) -> Any:
        return ember.atanh(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """``log(1 - tanh(x)^2)``, written stably as ``2 (log 2 - x - softplus(-2x))``."""
        return 2.0 * (math.log(2.0) - x - _softplus(-2.0 * x))


class AbsTransform(Transform):
    """``y = |x|`` (not injective: the inverse returns the nonnegative preimage)."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        return x.abs()

    def _inverse(self, y: Any) -> Any:
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``, elementwise; with ``event_dim > 0`` the log-determinant is summed
    over that many right-most dimensions."""

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same map with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> Any:
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> Any:
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real, self.event_dim)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, Number) and isinstance(b, Number):
                if a != b:
                    return False
            elif not bool((ember.as_tensor(a) == ember.as_tensor(b)).all()):
                return False
        return True

    __hash__ = object.__hash__

    @property
    def sign(self) -> Any:
        if isinstance(self.scale, Number):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x: Any) -> Any:
        return self.loc + self.scale * x

    def _inverse(self, y: Any) -> Any:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """``log |scale|``, broadcast to the batch shape of ``x``."""
        shape = x.shape
        if isinstance(self.scale, Number):
            result = ember.full_like(x, math.log(abs(self.scale)))
        else:
            result = ember.abs(self.scale).log()
        if self.event_dim:
            result = result.reshape(tuple(result.shape[:result.dim() - self.event_dim]) + (-1,)).sum(-1)
            shape = shape[:len(shape) - self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape: Any) -> Any:
        """The input shape broadcast with the shapes of ``loc`` and ``scale``."""
        return ember.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))

    def inverse_shape(self, shape: Any) -> Any:
        """The output shape broadcast with the shapes of ``loc`` and ``scale``."""
        return ember.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))


from ._transforms_structured import (  # noqa: E402  (they build on the classes above)
    CatTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    ReshapeTransform,
    SoftmaxTransform,
    StackTransform,
    StickBreakingTransform,
)
