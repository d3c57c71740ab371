"""Adafactor: Adam-like second-moment scaling with a factored (row x column) estimate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
from ember import Tensor
from ember.optim.optimizer import Optimizer, _check, _params_with_grad, _restore_state, _scalar, _step_tensor

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Adafactor: the squared gradients' running average of a matrix (over its last two
    dimensions) is kept as a row vector and a column vector whose outer product estimates it,
    so the state costs ``O(n + m)`` instead of ``O(n * m)``; vectors keep a full average.
    The relative step size is ``min(lr, 1 / sqrt(step))``, scaled by the parameter's RMS, and
    updates whose RMS exceeds ``d`` are clipped.

    Args:
        params (iterable): the parameters to optimize, or dicts defining parameter groups with
            their own options.
        lr (float): the maximum relative step size, also the coefficient of the decoupled weight
            decay.
        beta2_decay (float): the exponent of the step in the second-moment decay rate
            ``1 - step ** beta2_decay``.
        eps (tuple): ``(epsilon1, epsilon2)``: epsilon1 bounds the variance estimate from below
            (None: the machine epsilon of the parameter's dtype); epsilon2 bounds the parameter
            RMS used to scale the step.
        d (float): the clipping threshold of the update's RMS.
        weight_decay (float): the decoupled weight decay coefficient.
        foreach: accepted for compatibility; ember's update is one loop per parameter group.
        maximize (bool): maximize the objective instead of minimizing it.
    """

    def __init__(self, params: Any, lr: float | Tensor = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0, weight_decay: float = 0.0, *,
                 foreach: bool | None = None, maximize: bool = False) -> None:
        _check(not (isinstance(lr, Tensor) and lr.numel() != 1), "Tensor lr must be 1-element")
        _check(0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}")
        _check(0.0 >= beta2_decay, f"beta2_decay should be <= 0 but is: {beta2_decay}")
        _check(eps[0] is None or 0.0 <= eps[0], f"epsilon1 should be >= 0 but is: {eps[0]}")
        _check(0.0 <= eps[1], f"epsilon2 should be >= 0 but is: {eps[1]}")
        _check(1.0 <= d, f"Clipping threshold d should be >= 1 but is: {d}")
        _check(0.0 <= weight_decay, f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        _restore_state(self, ("foreach",))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Performs one Adafactor step on every parameter with a gradient.

        Args:
            closure: optional; reevaluates the model and returns the loss.

        Returns:
            The closure's loss, or None without a closure.
        """
        loss = self._run_closure(closure)
        with self._step_grad_mode():
            for group in self.param_groups:
                params = list(_params_with_grad(group))
                for p in params:
                    if p.is_complex():
                        raise RuntimeError("Adafactor does not support complex parameters")
                    if p.grad.is_sparse:
                        raise RuntimeError("Adafactor does not support sparse gradients")
                    state = self.state[p]
                    if not state:
                        state["step"] = _step_tensor()
                        if p.grad.dim() > 1:
                            # the row (last dim reduced) and column (second-last reduced) factors
                            shape = list(p.grad.shape)
                            state["row_var"] = p.grad.new_zeros(shape[:-1] + [1])
                            state["col_var"] = p.grad.new_zeros(shape[:-2] + [1, shape[-1]])
                        else:
                            state["variance"] = ember.zeros_like(p.grad)
                self._update(group, params)
        return loss

    def _update(self, group: dict[str, Any], params: list[Tensor]) -> None:
        lr = _scalar(group["lr"])
        beta2_decay, d, wd = group["beta2_decay"], group["d"], group["weight_decay"]
        eps1, eps2 = group["eps"]
        for p in params:
            state = self.state[p]
            g = p.grad if not group["maximize"] else -p.grad
            if eps1 is None:  # as torch: the first parameter's dtype decides for the whole group
                eps1 = ember.finfo(p.dtype).eps
            state["step"] += 1
            step = float(state["step"].item())
            one_minus_beta2 = step**beta2_decay
            rho = min(lr, 1 / (step**0.5))
            alpha = max(eps2, float(p.norm(2).item()) / (p.numel() ** 0.5)) * rho
            if wd != 0:
                p.mul_(1 - lr * wd)
            if g.dim() > 1:
                row_var, col_var = state["row_var"], state["col_var"]
                row_var.lerp_(ember.norm(g, dim=-1, keepdim=True).square_().div_(g.size(-1)), one_minus_beta2)
                col_var.lerp_(ember.norm(g, dim=-2, keepdim=True).square_().div_(g.size(-2)), one_minus_beta2)
                var_estimate = row_var @ col_var
                var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
            else:
                variance = state["variance"]
                variance.lerp_(g * g, one_minus_beta2)
                var_estimate = variance.clone()
            update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()  # eps1 squared: the root restores it
            update.mul_(g)
            denom = max(1.0, float(update.norm(2).item()) / ((update.numel() ** 0.5) * d))
            p.add_(update, alpha=-alpha / denom)
