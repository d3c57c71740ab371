"""Adamax (Adam with the infinity norm)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
from ember.optim.optimizer import Optimizer, _check_capturable, _check_common, _params_with_grad, _real, _step_tensor

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax: Adam with the infinity norm, its second-moment estimate being an exponentially
    weighted maximum of the gradients' magnitudes.

    Args:
        params (iterable): the parameters to optimize, or dicts defining parameter groups with
            their own options.
        lr (float): the learning rate.
        betas (tuple of float): the decay rates of the first moment and of the maximum.
        eps (float): added to the denominator for numerical stability.
        weight_decay (float): L2 penalty added to the gradient.
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, capturable, differentiable, fused: accepted for compatibility; ember's update is
            one fused loop per parameter group whatever they say.
    """

    def __init__(self, params: Any, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_common(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._run_closure(closure)
        with self._step_grad_mode():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for p in _params_with_grad(group):
                    state = self.state[p]
                    if not state:
                        state["step"] = _step_tensor()
                        state["exp_avg"] = ember.zeros_like(p)
                        state["exp_inf"] = ember.zeros_like(p)
                    _check_capturable(group)
                    g = p.grad if not group["maximize"] else -p.grad
                    state["step"] += 1
                    if group["weight_decay"] != 0:
                        g = g.add(p, alpha=group["weight_decay"])
                    g, param = _real(g), _real(p)
                    exp_avg, exp_inf = _real(state["exp_avg"]), _real(state["exp_inf"])
                    exp_avg.lerp_(g, 1 - beta1)
                    decayed, bound = exp_inf.mul_(beta2), g.abs().add_(group["eps"])
                    if group["differentiable"]:  # (maximum would save exp_inf, which copy_ then overwrites)
                        exp_inf.copy_(ember.amax(ember.stack([decayed, bound]), 0))
                    else:
                        exp_inf.copy_(ember.maximum(decayed, bound))
                    clr = group["lr"] / (1 - beta1 ** float(state["step"].item()))
                    param.addcdiv_(exp_avg, exp_inf, value=-clr)
        return loss
