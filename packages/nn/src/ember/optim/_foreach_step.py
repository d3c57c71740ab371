"""Multi-tensor (foreach) update steps for SGD and Adam/AdamW.

Each function performs the same arithmetic, in the same order, as the optimizer's
per-parameter loop, but every line is one ``ember._foreach_*`` call over the whole
parameter list (a C++ loop) instead of one Python call per parameter. Results are
bit-identical to the per-parameter path, so it is used whenever ``foreach`` is not False.
"""

from __future__ import annotations

from typing import Any

import ember
from ember import Tensor


def use_foreach(group: dict[str, Any]) -> bool:
    # The differentiable path must record every op on the graph one tensor at a time.
    return group.get("foreach") is not False and not group.get("differentiable", False)


def _grads(params: list[Tensor], maximize: bool) -> list[Tensor]:
    grads = [p.grad for p in params]
    return ember._foreach_neg(grads) if maximize else grads


def sgd_step(params: list[Tensor], state: Any, group: dict[str, Any]) -> None:
    # `state` is the optimizer's state mapping: touched only with momentum (as torch does).
    lr, mu, wd = group["lr"], group["momentum"], group["weight_decay"]
    grads = _grads(params, group["maximize"])
    if wd != 0:
        grads = list(ember._foreach_add(grads, params, alpha=wd))
    if mu != 0:
        bufs: list[Tensor] = []
        existing: list[Tensor] = []
        existing_grads: list[Tensor] = []
        for g, p in zip(grads, params):
            buf = state[p].get("momentum_buffer")
            if buf is None:  # the first step seeds the buffer with the gradient itself
                buf = g.clone().detach()
                state[p]["momentum_buffer"] = buf
            else:
                existing.append(buf)
                existing_grads.append(g)
            bufs.append(buf)
        if existing:
            ember._foreach_mul_(existing, mu)
            ember._foreach_add_(existing, existing_grads, alpha=1 - group["dampening"])
        grads = list(ember._foreach_add(grads, bufs, alpha=mu)) if group["nesterov"] else bufs
    ember._foreach_add_(params, grads, alpha=-lr)


def adam_step(params: list[Tensor], states: list[dict[str, Any]], group: dict[str, Any]) -> None:
    beta1, beta2 = group["betas"]
    lr, wd, eps, amsgrad = group["lr"], group["weight_decay"], group["eps"], group["amsgrad"]
    grads = _grads(params, group["maximize"])
    ember._foreach_add_([s["step"] for s in states], 1)
    if wd != 0:
        if group["decoupled_weight_decay"]:
            ember._foreach_mul_(params, 1 - lr * wd)
        else:
            grads = list(ember._foreach_add(grads, params, alpha=wd))
    exp_avgs = [s["exp_avg"] for s in states]
    exp_avg_sqs = [s["exp_avg_sq"] for s in states]
    ember._foreach_lerp_(exp_avgs, grads, 1 - beta1)
    ember._foreach_mul_(exp_avg_sqs, beta2)
    ember._foreach_addcmul_(exp_avg_sqs, grads, grads, 1 - beta2)
    if amsgrad:
        second = [s["max_exp_avg_sq"] for s in states]
        ember._foreach_maximum_(second, exp_avg_sqs)
    else:
        second = exp_avg_sqs
    # Bias corrections are per step count; parameters that started together share one
    # count, so this is usually a single group.
    by_step: dict[float, list[int]] = {}
    for i, s in enumerate(states):
        by_step.setdefault(float(s["step"].item()), []).append(i)
    for step, idx in by_step.items():
        bias1 = 1 - beta1**step
        bias2_sqrt = (1 - beta2**step) ** 0.5
        denom = ember._foreach_sqrt([second[i] for i in idx])
        ember._foreach_div_(denom, bias2_sqrt)
        ember._foreach_add_(denom, eps)
        ember._foreach_addcdiv_([params[i] for i in idx], [exp_avgs[i] for i in idx], denom, -(lr / bias1))
