"""RAdam (Adam with a variance-rectified adaptive learning rate)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
from ember.optim.optimizer import Optimizer, _check_capturable, _check_common, _params_with_grad, _real, _step_tensor

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """Rectified Adam: plain momentum steps while the variance estimate is unreliable (the first
    steps), adaptive steps with a variance rectification term afterwards.

    Args:
        params (iterable): the parameters to optimize, or dicts defining parameter groups with
            their own options.
        lr (float): the learning rate.
        betas (tuple of float): the decay rates of the moment estimates.
        eps (float): added to the denominator for numerical stability.
        weight_decay (float): L2 penalty added to the gradient.
        decoupled_weight_decay (bool): apply the weight decay as AdamW does.
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, capturable, differentiable, fused: accepted for compatibility; ember's update is
            one fused loop per parameter group whatever they say.
    """

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        _check_common(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._run_closure(closure)
        with self._step_grad_mode():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                lr, wd = group["lr"], group["weight_decay"]
                for p in _params_with_grad(group):
                    state = self.state[p]
                    if not state:
                        state["step"] = _step_tensor()
                        state["exp_avg"] = ember.zeros_like(p)
                        state["exp_avg_sq"] = ember.zeros_like(p)
                    _check_capturable(group)
                    g = p.grad if not group["maximize"] else -p.grad
                    state["step"] += 1
                    step = float(state["step"].item())
                    if wd != 0:
                        if group["decoupled_weight_decay"]:
                            p.mul_(1 - lr * wd)
                        else:
                            g = g.add(p, alpha=wd)
                    g, param = _real(g), _real(p)
                    exp_avg, exp_avg_sq = _real(state["exp_avg"]), _real(state["exp_avg_sq"])
                    exp_avg.lerp_(g, 1 - beta1)
                    exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2)
                    bias1 = 1 - beta1**step
                    bias2 = 1 - beta2**step
                    corrected = exp_avg / bias1
                    rho_inf = 2 / (1 - beta2) - 1
                    rho_t = rho_inf - 2 * step * (beta2**step) / bias2
                    if rho_t > 5.0:
                        # rectification term: variance of the adaptive lr is tractable from here on
                        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                        adaptive = (bias2**0.5) / exp_avg_sq.sqrt().add_(group["eps"])
                        param.add_(corrected * lr * adaptive * rect, alpha=-1.0)
                    else:
                        param.add_(corrected * lr, alpha=-1.0)
        return loss
