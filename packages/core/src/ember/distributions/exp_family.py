"""``ExponentialFamily``: distributions with density ``h(x) exp(<t(x), theta> - F(theta))``."""

from __future__ import annotations

from typing import Any

import ember

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of exponential-family distributions.

    A subclass describes itself by its natural parameters ``theta`` (``_natural_params``), its
    log-normaliser ``F`` (``_log_normalizer``) and the expected log carrier measure
    ``E[log h(x)]`` (``_mean_carrier_measure``). From these the entropy follows by automatic
    differentiation, ``H = F(theta) - <theta, grad F(theta)> - E[log h(x)]``, and so does the
    Bregman-divergence form of the KL divergence between two members of the same family.
    """

    @property
    def _natural_params(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Any) -> Any:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> Any:
        raise NotImplementedError

    def entropy(self) -> Any:
        """The entropy, computed from the log-normaliser and its gradient."""
        result = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        with ember.enable_grad():
            lognorm = self._log_normalizer(*params)
            grads = ember.autograd.grad(lognorm.sum(), params, create_graph=True)
        result = result + lognorm
        for p, g in zip(params, grads):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
