"""The ``probs``/``logits`` parametrisation shared by the Bernoulli-like and categorical
distributions: exactly one of the two is given and stored, the other is computed on demand."""

from __future__ import annotations

from numbers import Number
from typing import Any

import ember

from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__: list[str] = []


def _check_probs_or_logits(probs: Any, logits: Any) -> None:
    """Raise unless exactly one of ``probs`` and ``logits`` is given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def _lazy_logits_and_probs(logits_doc: str, probs_doc: str, is_binary: bool = True) -> tuple[Any, Any]:
    """The lazy ``logits`` and ``probs`` properties, each computed from the other, with the given
    docstrings; ``is_binary`` picks log-odds (else normalised log-probabilities)."""

    def logits(self: Any) -> Any:
        return probs_to_logits(self.probs, is_binary=is_binary)

    def probs(self: Any) -> Any:
        return logits_to_probs(self.logits, is_binary=is_binary)

    logits.__doc__, probs.__doc__ = logits_doc, probs_doc
    return lazy_property(logits), lazy_property(probs)


class _ProbsOrLogits:
    """Mixin for a distribution given by exactly one of ``probs`` or ``logits``, optionally
    broadcast with a ``total_count``; the given one is also kept as ``_param``."""

    _param: Any

    def _set_probs_or_logits(self, probs: Any, logits: Any, total_count: Any = None) -> ember.Size:
        """Check and store the given parameter (and ``total_count``, cast to its dtype) and return
        the batch shape: empty for a plain number, else the broadcast shape."""
        _check_probs_or_logits(probs, logits)
        name, value = ("probs", probs) if probs is not None else ("logits", logits)
        if total_count is None:
            (param,) = broadcast_all(value)
            batch_shape = ember.Size() if isinstance(value, Number) else param.size()
        else:
            count, param = broadcast_all(total_count, value)
            self.total_count = count.type_as(param)
            batch_shape = param.size()
        setattr(self, name, param)
        self._param = param
        return batch_shape

    def _expand_probs_or_logits(self, cls: type, batch_shape: Any, _instance: Any = None, params: tuple[str, ...] = (),
                                shared: tuple[str, ...] = (), param_shape: Any = None) -> Any:
        """``Distribution._expand_params`` over ``params`` plus whichever of ``probs`` and
        ``logits`` are set, keeping ``_param`` (the logits when both are)."""
        new = self._expand_params(cls, batch_shape, _instance, (*params, "probs", "logits"),  # type: ignore[attr-defined]
                                  shared, param_shape)
        new._param = new.logits if "logits" in new.__dict__ else new.probs
        return new


class _ParamTensor:
    """Mixin for a distribution whose parameter tensor is ``_param``: its shape and ``_new``."""

    _param: Any

    def _new(self, *args: Any, **kwargs: Any) -> Any:
        return self._param.new(*args, **kwargs)

    @property
    def param_shape(self) -> ember.Size:
        """The shape of the parameter tensor."""
        return self._param.size()
