"""Rprop: resilient backpropagation (sign-based steps with per-coordinate adaptive sizes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
from ember import Tensor
from ember.optim.optimizer import (
    Optimizer,
    _check,
    _check_capturable,
    _check_common,
    _params_with_grad,
    _restore_state,
    _scalar,
    _step_tensor,
)

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop: every coordinate moves by its own step size in the direction opposite to its
    gradient's sign; the size grows by ``etaplus`` while the sign holds and shrinks by
    ``etaminus`` when it flips (that coordinate then skips the step).

    Args:
        params (iterable): the parameters to optimize, or dicts defining parameter groups with
            their own options.
        lr (float): the learning rate (the initial step size of every coordinate).
        etas (tuple of float): ``(etaminus, etaplus)``, the factors that shrink and grow the step
            sizes.
        step_sizes (tuple of float): the minimal and maximal allowed step sizes.
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, capturable, differentiable: accepted for compatibility; ember's update is one
            loop per parameter group whatever they say.
    """

    def __init__(self, params: Any, lr: float | Tensor = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check(not (isinstance(lr, Tensor) and lr.numel() != 1), "Tensor lr must be 1-element")
        _check_common(lr)  # type: ignore[arg-type]
        _check(0.0 < etas[0] < 1.0 < etas[1], f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        _restore_state(self, ("foreach", "maximize", "differentiable", "capturable"))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Performs one Rprop step on every parameter with a gradient.

        Args:
            closure: optional; reevaluates the model and returns the loss.

        Returns:
            The closure's loss, or None without a closure.
        """
        loss = self._run_closure(closure)
        with self._step_grad_mode():
            for group in self.param_groups:
                etaminus, etaplus = group["etas"]
                size_min, size_max = group["step_sizes"]
                lr = _scalar(group["lr"])
                for p in _params_with_grad(group):
                    if p.grad.is_sparse:
                        raise RuntimeError("Rprop does not support sparse gradients")
                    state = self.state[p]
                    if not state:
                        state["step"] = _step_tensor()
                        state["prev"] = ember.zeros_like(p)
                        state["step_size"] = ember.full_like(p.grad, complex(lr, lr) if p.is_complex() else lr)
                    _check_capturable(group, xla=(True, True))
                    g = p.grad if not group["maximize"] else -p.grad
                    prev, step_size, param = state["prev"], state["step_size"], p
                    state["step"] += 1
                    if p.is_complex():  # real and imaginary parts are independent coordinates
                        g, prev = ember.view_as_real(g), ember.view_as_real(prev)
                        param, step_size = ember.view_as_real(p), ember.view_as_real(step_size)
                    # differentiable: mul saves prev, which copy_ overwrites below
                    factor = g.mul(prev.clone() if group["differentiable"] else prev).sign()
                    factor[factor.gt(0)] = etaplus
                    factor[factor.lt(0)] = etaminus
                    factor[factor.eq(0)] = 1
                    step_size.mul_(factor).clamp_(size_min, size_max)
                    g = g.clone()
                    g[factor.eq(etaminus)] = 0  # a sign flip: no step, and forget the gradient
                    param.addcmul_(g.sign(), step_size, value=-1)
                    prev.copy_(g)
        return loss
