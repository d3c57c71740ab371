"""Adagrad (state is created for every parameter at construction, as PyTorch)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
from ember.optim._foreach_step import fused_dtype_check
from ember.optim.optimizer import Optimizer, _check, _check_common, _params_with_grad, _real

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad: every coordinate's step is divided by the root of the sum of its past squared
    gradients, so often-updated coordinates slow down.

    Args:
        params (iterable): the parameters to optimize, or dicts defining parameter groups with
            their own options.
        lr (float): the learning rate.
        lr_decay (float): decays the learning rate with the step count.
        weight_decay (float): L2 penalty added to the gradient.
        initial_accumulator_value (float): the starting value of the sums of squares.
        eps (float): added to the denominator for numerical stability.
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, capturable, differentiable, fused: accepted for compatibility; ember's update is
            one fused loop per parameter group whatever they say.
    """

    def __init__(self, params: Any, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        _check_common(lr, None, None, weight_decay)
        _check(lr_decay >= 0.0, f"Invalid lr_decay value: {lr_decay}")
        _check(initial_accumulator_value >= 0.0,
               f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = ember.tensor(0.0, dtype=ember.float32)
                init = group["initial_accumulator_value"]
                # complex: both parts of every coordinate start from the value (torch's real view)
                state["sum"] = ember.full_like(p, complex(init, init) if p.is_complex() else init)
        self._need_device_dtype_check_for_fused = bool(fused)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._run_closure(closure)
        with self._step_grad_mode():
            for group in self.param_groups:
                for p in _params_with_grad(group):
                    if group.get("fused") and getattr(self, "_need_device_dtype_check_for_fused", True):
                        fused_dtype_check(p)  # as torch: the first parameter with a gradient, once
                        self._need_device_dtype_check_for_fused = False
                    state = self.state[p]
                    state["step"] += 1
                    step = float(state["step"].item())
                    g = p.grad if not group["maximize"] else -p.grad
                    if group["weight_decay"] != 0:
                        g = g.add(p, alpha=group["weight_decay"])
                    clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
                    g, param, state_sum = _real(g), _real(p), _real(state["sum"])
                    state_sum.addcmul_(g, g, value=1)
                    # differentiable: out of place, the recorded sqrt keeps its result
                    std = state_sum.sqrt()
                    std = std + group["eps"] if group["differentiable"] else std.add_(group["eps"])
                    param.addcdiv_(g, std, value=-clr)
        return loss
