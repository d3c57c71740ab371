"""Adadelta."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
from ember.optim.optimizer import (
    Optimizer,
    _check,
    _check_capturable,
    _check_common,
    _params_with_grad,
    _real,
    _step_tensor,
)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta: steps from running averages of squared gradients and squared updates, so the
    effective step size needs no tuning (``lr`` only scales it).

    Args:
        params (iterable): the parameters to optimize, or dicts defining parameter groups with
            their own options.
        lr (float): the learning rate.
        rho (float): the decay rate of the running averages.
        eps (float): added for numerical stability.
        weight_decay (float): L2 penalty added to the gradient.
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, capturable, differentiable, fused: accepted for compatibility; ember's update is
            one fused loop per parameter group whatever they say.
    """

    def __init__(self, params: Any, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach: bool | None = None, *, capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_common(lr, eps, None, weight_decay)
        _check(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, capturable=capturable,
                        foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._run_closure(closure)
        with self._step_grad_mode():
            for group in self.param_groups:
                rho, eps = group["rho"], group["eps"]
                for p in _params_with_grad(group):
                    state = self.state[p]
                    if not state:
                        state["step"] = _step_tensor()
                        state["square_avg"] = ember.zeros_like(p)
                        state["acc_delta"] = ember.zeros_like(p)
                    _check_capturable(group, xla=(False, False))
                    state["step"] += 1
                    g = p.grad if not group["maximize"] else -p.grad
                    if group["weight_decay"] != 0:
                        g = g.add(p, alpha=group["weight_decay"])
                    g, param = _real(g), _real(p)
                    square_avg, acc_delta = _real(state["square_avg"]), _real(state["acc_delta"])
                    square_avg.mul_(rho).addcmul_(g, g, value=1 - rho)
                    std = square_avg.add(eps).sqrt_()
                    delta = acc_delta.add(eps).sqrt_().div_(std).mul_(g)
                    acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                    param.add_(delta, alpha=-group["lr"])
        return loss
