"""The ``Distribution`` base class: shapes, argument validation and the shared interface."""

from __future__ import annotations

import warnings
from numbers import Number
from typing import Any

import ember

from . import constraints
from .utils import broadcast_all, lazy_property

__all__ = ["Distribution"]


def _fmt_param(value: Any) -> str:
    """How ``repr`` shows one parameter: its value when it has a single element, else its size."""
    return f"{value}" if value.numel() == 1 else f"{value.size()}"


class Distribution:
    """Base class of probability distributions.

    A distribution has a ``batch_shape`` (independent, differently parametrised copies) and an
    ``event_shape`` (the shape of one draw); a sample of ``sample_shape`` has shape
    ``sample_shape + batch_shape + event_shape``. When ``validate_args`` is on (the default, see
    :meth:`set_default_validate_args`) the constructor checks the parameters against
    ``arg_constraints`` and the scoring methods check values against ``support``.
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for every distribution created afterwards without
        an explicit ``validate_args``."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Any = (), event_shape: Any = (),
                 validate_args: Any = None) -> None:
        self._batch_shape = ember.Size(batch_shape)
        self._event_shape = ember.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                              "`arg_constraints = {}` or initialize the distribution with `validate_args=False` "
                              "to turn off validation.", stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if self._is_unset_lazy(param):
                    continue
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(f"Expected parameter {param} ({type(value).__name__} of shape "
                                     f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                                     f"{constraint!r}, but found invalid values:\n{value}")
        super().__init__()

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """A new distribution of the same kind with its batch dimensions broadcast to
        ``batch_shape``; the parameters are expanded views, not copies."""
        raise NotImplementedError

    @property
    def batch_shape(self) -> ember.Size:
        """The shape over which the parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> ember.Size:
        """The shape of a single draw."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        """Parameter name -> the constraint it must satisfy."""
        raise NotImplementedError

    @property
    def support(self) -> Any:
        """The constraint describing where the distribution puts its mass."""
        raise NotImplementedError

    @property
    def mean(self) -> Any:
        """The mean of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mean")

    @property
    def mode(self) -> Any:
        """The mode (most likely value) of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Any:
        """The variance of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement variance")

    @property
    def stddev(self) -> Any:
        """Standard deviation, the square root of the variance."""
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = ()) -> Any:
        """Draw a sample of shape ``sample_shape + batch_shape + event_shape`` without tracking
        gradients."""
        with ember.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """Draw a reparameterised sample: gradients flow from it back to the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Any:
        """Deprecated spelling of ``sample((n,))``."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=2)
        return self.sample(ember.Size((n,)))

    def log_prob(self, value: Any) -> Any:
        """The log of the density (or mass function) evaluated at ``value``."""
        raise NotImplementedError

    def cdf(self, value: Any) -> Any:
        """The cumulative distribution function evaluated at ``value``."""
        raise NotImplementedError

    def icdf(self, value: Any) -> Any:
        """The inverse of the cumulative distribution function, evaluated at probabilities ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Any:
        """All values of a discrete support, along a new leading dimension.

        With ``expand=False`` the values have singleton batch dimensions (shape
        ``(n,) + (1,) * len(batch_shape) + event_shape``); otherwise they are expanded to the
        full batch shape.
        """
        raise NotImplementedError

    def entropy(self) -> Any:
        """The differential (or Shannon) entropy, one value per batch entry."""
        raise NotImplementedError

    def perplexity(self) -> Any:
        """The exponential of the entropy."""
        return ember.exp(self.entropy())

    def _extended_shape(self, sample_shape: Any = ()) -> ember.Size:
        if not isinstance(sample_shape, ember.Size):
            sample_shape = ember.Size(sample_shape)
        return ember.Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value: Any) -> None:
        if not isinstance(value, ember.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        start = len(value.size()) - len(self._event_shape)
        if tuple(value.size()[start:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {value.size()} vs "
                             f"{self._event_shape}.")
        actual = value.size()
        expected = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample validation. Please "
                          "initialize the distribution with `validate_args=False` to turn off validation.",
                          stacklevel=2)
            return
        if not bool(support.check(value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support!r}) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def _is_unset_lazy(self, name: str) -> bool:
        """Whether ``name`` is a lazy property not computed (nor given) yet on this instance."""
        return name not in self.__dict__ and isinstance(getattr(type(self), name, None), lazy_property)

    def _set_broadcast_params(self, **params: Any) -> ember.Size:
        """Store ``params`` as attributes, broadcast to one shape (numbers become tensors), and
        return the batch shape they give: empty when every one is a plain number."""
        values = broadcast_all(*params.values())
        for name, value in zip(params, values):
            setattr(self, name, value)
        return ember.Size() if all(isinstance(v, Number) for v in params.values()) else values[0].size()

    def _expand_params(self, cls: type, batch_shape: Any, _instance: Any = None, params: tuple[str, ...] = (),
                       shared: tuple[str, ...] = (), param_shape: Any = None) -> Any:
        """The common body of ``expand`` for a ``cls`` that defines it: a new instance (or
        ``_instance``) with batch shape ``batch_shape`` and this one's event shape, whose ``params``
        (tensors or distributions) are this one's expanded to ``param_shape`` (default
        ``batch_shape``; lazy ones only once computed) and whose ``shared`` attributes are this
        one's, as they are."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = ember.Size(batch_shape)
        param_shape = batch_shape if param_shape is None else param_shape
        for name in shared:
            setattr(new, name, getattr(self, name))
        for name in params:
            if not self._is_unset_lazy(name):
                setattr(new, name, getattr(self, name).expand(param_shape))
        super(cls, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{p}: {_fmt_param(self.__dict__[p])}" for p in names)
        return f"{self.__class__.__name__}({args})"
