"""SparseAdam: Adam restricted to the coordinates present in a sparse gradient.

ember has no sparse-layout tensors (``nn.Embedding(sparse=True)`` raises), so its gradients are
always dense and ``SparseAdam.step`` raises as torch does for a dense gradient. The masked update
itself is ``_sparse_adam_update``, written on (indices, values) pairs with dense tensor ops so
that it is ready for sparse gradients (and tested against torch's sparse ones).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ember
from ember import Tensor
from ember.optim.optimizer import Optimizer, _check, _scalar

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """SparseAdam: a masked Adam for dense parameters with sparse-layout gradients: only the
    moments and the parameter entries at the gradient's materialized indices are updated.

    ember has no sparse-layout tensors, so every gradient ember produces is dense and ``step``
    raises ``RuntimeError`` for it, as torch does; use :class:`ember.optim.Adam` instead.

    Args:
        params (iterable): the parameters to optimize, or dicts defining parameter groups with
            their own options.
        lr (float): the learning rate (must be positive).
        betas (tuple of float): the decay rates of the first- and second-moment estimates.
        eps (float): added to the denominator for numerical stability (must be positive).
        maximize (bool): maximize the objective instead of minimizing it.
    """

    def __init__(self, params: Any, lr: float | Tensor = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, maximize: bool = False) -> None:
        _check(not (isinstance(lr, Tensor) and lr.numel() != 1), "Tensor lr must be 1-element")
        _check(0.0 < lr, f"Invalid learning rate: {lr}")
        _check(0.0 < eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        defaults = dict(lr=lr, betas=betas, eps=eps, maximize=maximize)
        super().__init__(params, defaults)
        sparse_params, complex_params = [], []
        for index, group in enumerate(self.param_groups):
            for d_index, p in enumerate(group["params"]):
                if p.is_sparse:
                    sparse_params.append([index, d_index])
                if p.is_complex():
                    complex_params.append([index, d_index])
        _check(not sparse_params,
               f"Sparse params at indices {sparse_params}: SparseAdam requires dense parameter tensors")
        _check(not complex_params,
               f"Complex params at indices {complex_params}: SparseAdam does not support complex parameters")

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Performs one SparseAdam step on every parameter with a (sparse) gradient.

        Args:
            closure: optional; reevaluates the model and returns the loss.

        Returns:
            The closure's loss, or None without a closure.

        Raises:
            RuntimeError: for a dense gradient (every gradient ember computes).
        """
        loss = self._run_closure(closure)
        with ember.no_grad():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                lr = _scalar(group["lr"])
                pending = []
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if not p.grad.is_sparse:
                        raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
                    state = self.state[p]
                    if not state:
                        state["step"] = 0  # torch keeps a python int here
                        state["exp_avg"] = ember.zeros_like(p)
                        state["exp_avg_sq"] = ember.zeros_like(p)
                    state["step"] += 1
                    pending.append(p)
                for p in pending:
                    grad = p.grad if not group["maximize"] else -p.grad
                    grad = grad.coalesce()  # the update is non-linear: one value per index
                    state = self.state[p]
                    _sparse_adam_update(p, state["exp_avg"], state["exp_avg_sq"], grad._indices(), grad._values(),
                                        state["step"], lr=lr, beta1=beta1, beta2=beta2, eps=group["eps"])
        return loss


def _sparse_adam_update(param: Tensor, exp_avg: Tensor, exp_avg_sq: Tensor, indices: Tensor, values: Tensor,
                        step: int, *, lr: float, beta1: float, beta2: float, eps: float) -> None:
    """One masked Adam update at the coalesced (unique) ``indices`` (``sparse_dim x nnz``) with
    gradient ``values`` (``nnz x dense dims``); every other entry is left alone."""
    if values.numel() == 0:
        return
    idx = tuple(indices[i] for i in range(indices.size(0)))
    old_exp_avg = exp_avg[idx]
    exp_avg_delta = values.sub(old_exp_avg).mul_(1 - beta1)  # old += (1 - b) * (new - old)
    exp_avg.index_put_(idx, exp_avg_delta, accumulate=True)
    old_exp_avg_sq = exp_avg_sq[idx]
    exp_avg_sq_delta = values.pow(2).sub_(old_exp_avg_sq).mul_(1 - beta2)
    exp_avg_sq.index_put_(idx, exp_avg_sq_delta, accumulate=True)
    numer = exp_avg_delta.add_(old_exp_avg)
    denom = exp_avg_sq_delta.add_(old_exp_avg_sq).sqrt_().add_(eps)
    step_size = lr * math.sqrt(1 - beta2**step) / (1 - beta1**step)
    param.index_put_(idx, -step_size * numer.div_(denom), accumulate=True)
