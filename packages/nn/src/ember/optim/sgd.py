"""SGD with momentum, dampening, Nesterov, weight decay and maximize."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
from ember.optim._foreach_step import (
    check_fused_flags,
    fused_dtype_check,
    fused_sgd_step,
    sgd_step,
    use_foreach,
    use_fused,
)
from ember.optim.optimizer import Optimizer, _check, _check_common, _params_with_grad

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with momentum (heavy-ball or Nesterov): each step
    subtracts ``lr`` times the gradient (or its momentum buffer) from every parameter.

    Args:
        params (iterable): the parameters to optimize, or dicts defining parameter groups with
            their own options.
        lr (float): the learning rate.
        momentum (float): the momentum factor (0: plain SGD).
        dampening (float): scales down the gradient added to the momentum buffer.
        weight_decay (float): L2 penalty added to the gradient.
        nesterov (bool): use Nesterov momentum.
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, differentiable, fused: fused=True runs one fused kernel per parameter group
            (also the default with momentum, weight decay or maximize); the default plain step
            is torch's per-parameter loop (one add_ each).

    Example::

        >>> w = nn.Parameter(ember.tensor([1.0]))
        >>> opt = ember.optim.SGD([w], lr=0.1)
        >>> (w * 2).sum().backward()
        >>> opt.step()
        >>> w
        Parameter containing:
        tensor([0.8000], requires_grad=True)
    """

    def __init__(self, params: Any, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False, fused: bool | None = None) -> None:
        _check_common(lr)
        _check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        check_fused_flags(fused, foreach, differentiable)
        self._need_device_dtype_check_for_fused = bool(fused)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._run_closure(closure)
        with self._step_grad_mode():
            for group in self.param_groups:
                lr, mu, wd = group["lr"], group["momentum"], group["weight_decay"]
                params = list(_params_with_grad(group))
                if group.get("fused") and params and getattr(self, "_need_device_dtype_check_for_fused", True):
                    # as torch: only the first parameter with a gradient, once
                    fused_dtype_check(params[0])
                    self._need_device_dtype_check_for_fused = False
                # torch's default on CPU is its per-parameter loop: ember runs it too for the plain
                # step (one add_ per parameter either way); with momentum, weight decay or maximize
                # its fused kernel does the loop's passes in one
                if group.get("fused"):
                    for p in params:
                        if p.is_complex():  # past the one-time dtype check: torch's kernel refuses it
                            kind = "ComplexFloat" if p.dtype == ember.complex64 else "ComplexDouble"
                            raise NotImplementedError(f'"fused_sgd_kernel" not implemented for \'{kind}\'')
                plain = mu == 0 and wd == 0 and not group["maximize"]
                default = group.get("fused") is None and group.get("foreach") is None
                if params and not (plain and default) and use_fused(group, params + [p.grad for p in params]):
                    fused_sgd_step(params, self.state, group)
                    continue
                if params and not (plain and default) and use_foreach(group):
                    sgd_step(params, self.state, group)
                    continue
                for p in params:
                    g = p.grad if not group["maximize"] else -p.grad
                    if wd != 0:
                        g = g.add(p, alpha=wd)
                    if mu != 0:
                        state = self.state[p]
                        buf = state.get("momentum_buffer")
                        if buf is None:
                            buf = g.clone().detach()
                            state["momentum_buffer"] = buf
                        else:
                            buf.mul_(mu).add_(g, alpha=1 - group["dampening"])
                        g = g.add(buf, alpha=mu) if group["nesterov"] else buf
                    p.add_(g, alpha=-lr)
        return loss
