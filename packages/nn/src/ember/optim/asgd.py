"""ASGD: averaged stochastic gradient descent (Polyak–Juditsky averaging)."""

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

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged SGD: plain SGD steps with a decaying step size ``eta``, plus a running average
    ``ax`` of the iterates that starts averaging after ``t0`` steps.

    Args:
        params (iterable): the parameters to optimize, or dicts defining parameter groups with
            their own options.
        lr (float): the learning rate (the initial ``eta``).
        lambd (float): the decay term, both of the parameters and of ``eta``.
        alpha (float): the power of the ``eta`` schedule ``lr / (1 + lambd * lr * step) ** alpha``.
        t0 (float): the step after which the iterates are averaged.
        weight_decay (float): L2 penalty added to the gradient.
        foreach (bool or None): True follows torch's multi-tensor arithmetic (the decay folded into
            the gradient, ``eta`` computed in float32), which rounds differently from the default
            per-parameter one; None and False use the latter (torch's choice on CPU).
        maximize (bool): maximize the objective instead of minimizing it.
        capturable, differentiable: accepted for compatibility.
    """

    def __init__(self, params: Any, lr: float | Tensor = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check(not (isinstance(lr, Tensor) and lr.numel() != 1), "Tensor lr must be 1-element")
        _check_common(lr, None, None, weight_decay)  # type: ignore[arg-type]
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        _restore_state(self, ("foreach", "maximize", "differentiable", "capturable"), ("step", "eta", "mu"))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Performs one ASGD step on every parameter with a gradient.

        Args:
            closure: optional; reevaluates the model and returns the loss.

        Returns:
            The closure's loss, or None without a closure.
        """
        loss = self._run_closure(closure)
        with self._step_grad_mode():
            for group in self.param_groups:
                lr, lambd, alpha, t0 = _scalar(group["lr"]), group["lambd"], group["alpha"], group["t0"]
                wd = group["weight_decay"]
                params = list(_params_with_grad(group))
                for p in params:
                    if p.grad.is_sparse:
                        raise RuntimeError("ASGD does not support sparse gradients")
                    state = self.state[p]
                    if not state:
                        state["step"] = _step_tensor()
                        state["eta"] = ember.tensor(lr, dtype=ember.float32)
                        state["mu"] = ember.ones((), dtype=ember.float32)
                        state["ax"] = ember.zeros_like(p)
                if params:
                    _check_capturable(group, "params, mus, etas, and state_steps")
                if group["foreach"]:
                    self._multi_tensor_update(group, params)
                    continue
                for p in params:
                    state = self.state[p]
                    g = p.grad if not group["maximize"] else -p.grad
                    mu, ax, eta = state["mu"], state["ax"], state["eta"]
                    state["step"] += 1
                    if wd != 0:
                        g = g.add(p, alpha=wd)
                    eta_value = float(eta.item())
                    p.mul_(1 - lambd * eta_value)  # decay
                    p.add_(g, alpha=-eta_value)
                    if float(mu.item()) != 1:  # averaging: ax += mu * (p - ax)
                        ax.add_(p.sub(ax).mul_(mu))
                    else:
                        ax.copy_(p)
                    step = float(state["step"].item())
                    # a tensor lr makes torch's schedule a float32 tensor expression: same rounding here
                    eta.copy_(ember.as_tensor(group["lr"] / ((1 + lambd * group["lr"] * step) ** alpha)))
                    mu.fill_(1 / max(1, step - t0))
        return loss

    def _multi_tensor_update(self, group: dict[str, Any], params: list[Tensor]) -> None:
        # torch's foreach=True arithmetic, one parameter at a time (the ops are elementwise):
        # p -= eta * (g + wd * p + lambd * p); ax += mu * (p - ax); eta from the float32 step.
        lr, lambd, alpha, t0 = _scalar(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        wd = group["weight_decay"]
        for p in params:
            state = self.state[p]
            g = p.grad if not group["maximize"] else -p.grad
            state["step"] += 1
            if wd != 0:
                g = g.add(p, alpha=wd)
            g = g.add(p, alpha=lambd)
            p.addcmul_(g, state["eta"], value=-1)
            state["ax"].addcmul_(p.sub(state["ax"]), state["mu"])
        for p in params:
            step = self.state[p]["step"]
            self.state[p]["eta"].copy_(lr / ((1 + lambd * lr * step) ** alpha))
            self.state[p]["mu"].fill_(1 / max(1, float(step.item()) - t0))
