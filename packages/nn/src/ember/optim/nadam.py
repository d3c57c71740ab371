"""NAdam (Adam with Nesterov momentum and momentum decay)."""

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

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """Adam with Nesterov momentum, with a momentum schedule set by ``momentum_decay``.

    Args:
        params (iterable): the parameters to optimize, or dicts defining parameter groups with
            their own options.
        lr (float): the learning rate.
        betas (tuple of float): the decay rates of the moment estimates.
        eps (float): added to the denominator for numerical stability.
        weight_decay (float): L2 penalty added to the gradient.
        momentum_decay (float): how fast the momentum schedule approaches ``betas[0]``.
        decoupled_weight_decay (bool): apply the weight decay as AdamW does.
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, capturable, differentiable, fused: accepted for compatibility; ember's update is
            one fused loop per parameter group whatever they say.
    """

    def __init__(self, params: Any, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check_common(lr, eps, betas, weight_decay)
        _check(momentum_decay >= 0.0, f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._run_closure(closure)
        with self._step_grad_mode():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                lr, wd, psi = group["lr"], group["weight_decay"], group["momentum_decay"]
                for p in _params_with_grad(group):
                    state = self.state[p]
                    if not state:
                        state["step"] = _step_tensor()
                        # a float32 0-d tensor, like PyTorch, so the running product rounds the same way
                        state["mu_product"] = ember.ones((), dtype=ember.float32)
                        state["exp_avg"] = ember.zeros_like(p)
                        state["exp_avg_sq"] = ember.zeros_like(p)
                    _check_capturable(group, "params, mu_products and state_steps",
                                      "params, mu_products, and state_steps")
                    g = p.grad if not group["maximize"] else -p.grad
                    state["step"] += 1
                    step = float(state["step"].item())
                    bias2 = 1 - beta2**step
                    if wd != 0:
                        if group["decoupled_weight_decay"]:
                            p.mul_(1 - lr * wd)
                        else:
                            g = g.add(p, alpha=wd)
                    mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * psi)))
                    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * psi)))
                    state["mu_product"] *= mu
                    mu_product = float(state["mu_product"].item())
                    g, param = _real(g), _real(p)
                    exp_avg, exp_avg_sq = _real(state["exp_avg"]), _real(state["exp_avg_sq"])
                    exp_avg.lerp_(g, 1 - beta1)
                    exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2)
                    denom = exp_avg_sq.div(bias2).sqrt()
                    if group["differentiable"]:
                        # torch's recorded form: the float32 mu_product tensor in the coefficients,
                        # which scale the operands (addcdiv's value is not recorded)
                        denom = denom.add(group["eps"])
                        mu_t = state["mu_product"]
                        param.addcdiv_(g * (-lr * (1.0 - mu) / (1.0 - mu_t)), denom)
                        param.addcdiv_(exp_avg * (-lr * mu_next / (1.0 - mu_t * mu_next)), denom)
                        continue
                    denom.add_(group["eps"])
                    param.addcdiv_(g, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product))
                    param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product * mu_next))
        return loss
