"""Adam and AdamW (AdamW = Adam with decoupled weight decay)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
from ember import Tensor
from ember.optim._foreach_step import (
    adam_step,
    check_fused_flags,
    fused_adam_step,
    fused_dtype_check,
    use_foreach,
    use_fused,
)
from ember.optim.optimizer import (
    Optimizer,
    _check,
    _check_capturable,
    _check_common,
    _params_with_grad,
    _real,
    _step_tensor,
)

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam: per-parameter steps scaled by running estimates of the gradient's first and second
    moments (with bias correction), which adapts the step size to each coordinate.

    Args:
        params (iterable): the parameters to optimize, or dicts defining parameter groups with
            their own options.
        lr (float): the learning rate.
        betas (tuple of float): the decay rates of the first- and second-moment estimates.
        eps (float): added to the denominator for numerical stability.
        weight_decay (float): L2 penalty added to the gradient.
        amsgrad (bool): use the maximum of the past second moments (AMSGrad).
        decoupled_weight_decay (bool): apply the weight decay as AdamW does.
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, capturable, differentiable, fused: accepted for compatibility; ember's update is
            one fused loop per parameter group whatever they say.
    """

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
            _check(lr.numel() == 1, "Tensor lr must be 1-element")
        _check_common(lr, eps, betas, weight_decay)  # type: ignore[arg-type]
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        check_fused_flags(fused, foreach, differentiable)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", False)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._run_closure(closure)
        with self._step_grad_mode():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
                params = list(_params_with_grad(group))
                for p in params:
                    state = self.state[p]
                    if not state:
                        if group["fused"]:
                            fused_dtype_check(p)
                        state["step"] = _step_tensor()
                        state["exp_avg"] = ember.zeros_like(p)
                        state["exp_avg_sq"] = ember.zeros_like(p)
                        if group["amsgrad"]:
                            state["max_exp_avg_sq"] = ember.zeros_like(p)
                if params and not group["fused"]:
                    _check_capturable(group)
                if params and use_fused(group, params + [p.grad for p in params]):
                    fused_adam_step(params, [self.state[p] for p in params], group)
                    continue
                # complex parameters: the loop below on their real views (foreach's arithmetic too)
                if params and use_foreach(group) and not any(p.is_complex() for p in params):
                    adam_step(params, [self.state[p] for p in params], group)
                    continue
                for p in params:
                    state = self.state[p]
                    g = p.grad if not group["maximize"] else -p.grad
                    state["step"] += 1
                    if wd != 0:
                        if group["decoupled_weight_decay"]:
                            p.mul_(1 - lr * wd)
                        else:
                            g = g.add(p, alpha=wd)
                    g, param = _real(g), _real(p)
                    exp_avg, exp_avg_sq = _real(state["exp_avg"]), _real(state["exp_avg_sq"])
                    exp_avg.lerp_(g, 1 - beta1)
                    exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2)
                    if group["differentiable"]:
                        _recorded_adam_update(param, exp_avg, exp_avg_sq, state, group)
                        continue
                    step = float(state["step"].item())
                    bias1 = 1 - beta1**step
                    bias2_sqrt = (1 - beta2**step) ** 0.5
                    if group["amsgrad"]:
                        max_sq = _real(state["max_exp_avg_sq"])
                        max_sq.copy_(ember.maximum(max_sq, exp_avg_sq))
                        denom = (max_sq.sqrt() / bias2_sqrt).add_(eps)
                    else:
                        denom = (exp_avg_sq.sqrt() / bias2_sqrt).add_(eps)
                    param.addcdiv_(exp_avg, denom, value=-(lr / bias1))
        return loss


def _recorded_adam_update(param: Tensor, exp_avg: Tensor, exp_avg_sq: Tensor, state: dict[str, Any],
                          group: dict[str, Any]) -> None:
    """The update as torch's differentiable Adam records it: the bias corrections from the float32
    step tensor, and copies of the moments the recorded ops would otherwise see overwritten."""
    beta1, beta2 = group["betas"]
    step = state["step"]
    neg_size = -(group["lr"] / (1 - beta1**step))
    bias2_sqrt = (1 - beta2**step).sqrt()
    second = exp_avg_sq
    if group["amsgrad"]:
        max_sq = _real(state["max_exp_avg_sq"])
        max_sq.copy_(ember.maximum(max_sq.clone(), exp_avg_sq))
        second = max_sq
    denom = (second.sqrt() / (bias2_sqrt * neg_size)).add_(group["eps"] / neg_size)
    param.addcdiv_(exp_avg.clone(), denom)


class AdamW(Adam):
    """Adam with decoupled weight decay: the parameters shrink by ``lr * weight_decay`` directly
    rather than through the gradient, which regularizes independently of the adaptive scaling.

    Args:
        params (iterable): the parameters to optimize, or dicts defining parameter groups with
            their own options.
        lr (float): the learning rate.
        betas (tuple of float): the decay rates of the first- and second-moment estimates.
        eps (float): added to the denominator for numerical stability.
        weight_decay (float): the decoupled decay rate.
        amsgrad (bool): use the maximum of the past second moments (AMSGrad).
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, capturable, differentiable, fused: accepted for compatibility; ember's update is
            one fused loop per parameter group whatever they say.
    """

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
