"""Kullback-Leibler divergences: ``kl_divergence(p, q)`` and the ``register_kl`` registry.

A rule is registered for a pair of distribution classes; a call dispatches on the most specific
registered pair matching the argument types (its classes are superclasses of the arguments'),
and warns when two equally specific rules would disagree. The rules themselves live in
``_kl_rules`` (closed forms between common families).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .distribution import Distribution

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY: dict[tuple[type, type], Callable[..., Any]] = {}
_KL_MEMOIZE: dict[tuple[type, type], Any] = {}


def register_kl(type_p: type, type_q: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator registering ``fn(p, q)`` as the KL divergence ``KL(p || q)`` for ``p`` an
    instance of ``type_p`` and ``q`` of ``type_q`` (or of subclasses of them).

    Example::

        >>> @register_kl(Normal, Normal)
        ... def kl_normal_normal(p, q):
        ...     ...  # doctest: +SKIP
    """
    if not isinstance(type_p, type) or not issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) or not issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun: Callable[..., Any]) -> Callable[..., Any]:
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun

    return decorator


def _more_specific(a: tuple[type, type], b: tuple[type, type]) -> bool:
    """Lexicographic specificity: ``a`` beats ``b`` on the first class where they differ."""
    for x, y in zip(a, b):
        if x is y:
            continue
        return issubclass(x, y)
    return False


def _most_specific(pairs: list[tuple[type, type]]) -> tuple[type, type]:
    best = pairs[0]
    for pair in pairs[1:]:
        if _more_specific(pair, best):
            best = pair
    return best


def _dispatch_kl(type_p: type, type_q: type) -> Any:
    matches = [(p, q) for p, q in _KL_REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return NotImplemented
    left_p, left_q = _most_specific(matches)
    right_q, right_p = _most_specific([(q, p) for p, q in matches])
    left_fun, right_fun = _KL_REGISTRY[left_p, left_q], _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please register_kl("
                      f"{left_p.__name__}, {right_q.__name__})", RuntimeWarning, stacklevel=3)
    return left_fun


def kl_divergence(p: Distribution, q: Distribution) -> Any:
    """The Kullback-Leibler divergence ``KL(p || q) = E_p[log p(x) - log q(x)]``, one value per
    batch entry.

    Raises ``NotImplementedError`` when no rule is registered for the pair of types.

    Example::

        >>> kl_divergence(Normal(ember.tensor(0.0), ember.tensor(1.0)), Normal(ember.tensor(1.0), ember.tensor(1.0)))
        tensor(0.5000)
    """
    key = (type(p), type(q))
    try:
        fun = _KL_MEMOIZE[key]
    except KeyError:
        fun = _dispatch_kl(*key)
        _KL_MEMOIZE[key] = fun
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
                                  f"{q.__class__.__name__}")
    return fun(p, q)
