"""Muon: momentum SGD whose update matrix is orthogonalized by Newton–Schulz iterations."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ember
from ember import Tensor
from ember.optim.optimizer import Optimizer, _check, _params_with_grad, _scalar

__all__ = ["Muon"]

# Keller Jordan's constants (https://kellerjordan.github.io/posts/muon/), as torch.optim.Muon.
EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _zeropower_via_newtonschulz(grad: Tensor, ns_coefficients: tuple[float, float, float], ns_steps: int,
                                eps: float) -> Tensor:
    """Approximately orthogonalizes ``grad`` (``U S V^T`` -> about ``U V^T``) with ``ns_steps``
    quintic Newton–Schulz iterations computed in bfloat16, as torch does; returns bfloat16."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = grad.size(0) > grad.size(1)
    x = grad.bfloat16()
    if tall:  # iterate on the wide orientation: the Gram matrix is the smaller one
        x = x.T
    x.div_(x.norm().clamp(min=eps))  # spectral norm <= Frobenius norm <= 1
    for _ in range(ns_steps):
        gram = x @ x.T
        poly = ember.addmm(gram, gram, gram, beta=b, alpha=c)  # b * G + c * G @ G
        x = ember.addmm(x, poly, x, beta=a)  # a * X + (b * G + c * G^2) @ X
    return x.T if tall else x


def _adjust_lr(lr: float, adjust_lr_fn: str | None, shape: Any) -> float:
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """Muon: SGD with (Nesterov) momentum whose update, a matrix, is replaced by an approximately
    orthogonal one of the same row and column spaces (Newton–Schulz iterations in bfloat16), with
    decoupled weight decay. Only for 2-D parameters (the hidden layers' weights); optimize biases,
    embeddings and other parameters with e.g. :class:`ember.optim.AdamW`.

    Args:
        params (iterable): the 2-D parameters to optimize, or dicts defining parameter groups with
            their own options.
        lr (float): the learning rate.
        weight_decay (float): the decoupled weight decay (the parameter shrinks by
            ``lr * weight_decay`` each step).
        momentum (float): the momentum factor.
        nesterov (bool): use Nesterov momentum.
        ns_coefficients (tuple of float): the coefficients ``(a, b, c)`` of the Newton–Schulz
            polynomial.
        eps (float): lower bound of the norm the update is divided by before the iterations.
        ns_steps (int): the number of Newton–Schulz iterations (less than 100).
        adjust_lr_fn (str or None): how the learning rate is scaled by the matrix shape ``(A, B)``:
            ``"original"`` (the default for None) scales by ``sqrt(max(1, A / B))``;
            ``"match_rms_adamw"`` by ``0.2 * sqrt(max(A, B))``.
    """

    def __init__(self, params: Any, lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                 nesterov: bool = True, ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
                 eps: float = EPS, ns_steps: int = DEFAULT_NS_STEPS, adjust_lr_fn: str | None = None) -> None:
        _check(not (isinstance(lr, Tensor) and lr.numel() != 1), "Tensor lr must be 1-element")
        _check(0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}")
        _check(0.0 <= momentum, f"momentum should be >= 0 but is: {momentum}")
        _check(0.0 <= weight_decay, f"weight decay should be >= 0 but is: {weight_decay}")
        _check(adjust_lr_fn is None or adjust_lr_fn in ("original", "match_rms_adamw"),
               f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps, adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                _check(p.ndim == 2,
                       f"Muon only supports 2D parameters whereas we found a parameter with size: {p.size()}")

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Performs one Muon step on every parameter with a gradient.

        Args:
            closure: optional; reevaluates the model and returns the loss.

        Returns:
            The closure's loss, or None without a closure.
        """
        loss = self._run_closure(closure)
        with self._step_grad_mode():
            for group in self.param_groups:
                lr = _scalar(group["lr"])
                wd, mu = group["weight_decay"], group["momentum"]
                params = list(_params_with_grad(group))
                for p in params:
                    if p.is_complex():
                        raise RuntimeError("Muon does not support complex parameters")
                    if p.grad.is_sparse:
                        raise RuntimeError("Muon does not support sparse gradients")
                    if "momentum_buffer" not in self.state[p]:
                        self.state[p]["momentum_buffer"] = ember.zeros_like(p.grad)
                for p in params:
                    g = p.grad
                    if g.ndim != 2:
                        raise ValueError("Param gradient must be a 2D matrix")
                    buf = self.state[p]["momentum_buffer"]
                    buf.lerp_(g, 1 - mu)
                    update = g.lerp(buf, mu) if group["nesterov"] else buf
                    update = _zeropower_via_newtonschulz(update, group["ns_coefficients"], group["ns_steps"],
                                                         group["eps"])
                    p.mul_(1 - lr * wd)
                    p.add_(update, alpha=-_adjust_lr(lr, group["adjust_lr_fn"], p.shape))
        return loss
