"""RMSprop (optionally centered, with momentum)."""

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

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop: every coordinate's step is divided by the root of a running average of its squared
    gradients.

    Args:
        params (iterable): the parameters to optimize, or dicts defining parameter groups with
            their own options.
        lr (float): the learning rate.
        alpha (float): the decay rate of the running average.
        eps (float): added to the denominator for numerical stability.
        weight_decay (float): L2 penalty added to the gradient.
        momentum (float): the momentum factor.
        centered (bool): normalize by the estimated variance (subtracting the mean gradient's square).
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, capturable, differentiable, fused: accepted for compatibility; ember's update is
            one fused loop per parameter group whatever they say.
    """

    def __init__(self, params: Any, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check_common(lr, eps, None, weight_decay)
        _check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        _check(alpha >= 0.0, f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._run_closure(closure)
        with self._step_grad_mode():
            for group in self.param_groups:
                lr, alpha, eps, mu = group["lr"], group["alpha"], group["eps"], group["momentum"]
                for p in _params_with_grad(group):
                    state = self.state[p]
                    if not state:
                        state["step"] = _step_tensor()
                        state["square_avg"] = ember.zeros_like(p)
                        if mu > 0:
                            state["momentum_buffer"] = ember.zeros_like(p)
                        if group["centered"]:
                            state["grad_avg"] = ember.zeros_like(p)
                    _check_capturable(group, xla=(True, True))
                    g = p.grad if not group["maximize"] else -p.grad
                    state["step"] += 1
                    if group["weight_decay"] != 0:
                        g = g.add(p, alpha=group["weight_decay"])
                    g, param, square_avg = _real(g), _real(p), _real(state["square_avg"])
                    square_avg.mul_(alpha).addcmul_(g, g, value=1 - alpha)
                    if group["centered"]:
                        grad_avg = _real(state["grad_avg"])
                        grad_avg.lerp_(g, 1 - alpha)
                        avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
                    else:
                        avg = square_avg.sqrt()
                    avg = avg.add(eps) if group["differentiable"] else avg.add_(eps)
                    if mu > 0:
                        buf = _real(state["momentum_buffer"])
                        buf.mul_(mu).addcdiv_(g, avg)
                        param.add_(buf, alpha=-lr)
                    else:
                        param.addcdiv_(g, avg, value=-lr)
        return loss
