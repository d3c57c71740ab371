"""Multi-tensor (foreach) and fused update steps for SGD and Adam/AdamW.

The foreach functions perform the same arithmetic, in the same order, as the optimizer's
per-parameter loop, but every line is one ``ember._foreach_*`` call over the whole
parameter list (a C++ loop) instead of one Python call per parameter: bit-identical results.
The fused functions call ``ember._fused_adam_`` / ``_fused_sgd_``: the whole update of a
parameter in one pass over its memory (same float operations; within 1e-6 relative of the
per-parameter path). Defaults: fused when eligible (foreach and fused both None, or
fused=True), foreach ops for foreach=True, the per-parameter loop for foreach=False.
"""

from __future__ import annotations

from typing import Any

import ember
from ember import Tensor


def check_fused_flags(fused: bool | None, foreach: bool | None, differentiable: bool) -> None:
    """torch's constructor checks for fused=True."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def fused_dtype_check(p: Tensor) -> None:
    """fused=True takes floating-point parameters only (torch's message, with its device list)."""
    if not p.is_floating_point():
        raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of supported devices: "
                           "['mps', 'cuda', 'xpu', 'hpu', 'cpu', 'mtia', 'privateuseone'] but "
                           f"{p.dtype} and {p.device.type}")


def use_foreach(group: dict[str, Any]) -> bool:
    # The differentiable path must record every op on the graph one tensor at a time; a tensor lr
    # keeps torch's default per-parameter loop (its float32 step-size rounding) unless foreach=True.
    if group.get("differentiable", False) or group.get("foreach") is False:
        return False
    return group.get("foreach") is True or not isinstance(group["lr"], Tensor)


def _scale_(tensors: list[Tensor], factor: float, group: dict[str, Any]) -> None:
    """tensors *= factor, rounded as the path ember stands in for: torch's foreach ops read the number
    rounded to a half dtype (aten's in-place foreach mul), its default per-parameter loop
    (Tensor.mul_) keeps it in op-math, as the one-number-per-tensor form does."""
    if group.get("foreach") is True:
        ember._foreach_mul_(tensors, factor)
    else:
        ember._foreach_mul_(tensors, [factor] * len(tensors))


def use_fused(group: dict[str, Any], tensors: list[Tensor]) -> bool:
    """Fused kernels take contiguous float32/float64 tensors of one dtype per parameter."""
    if group.get("differentiable", False) or group.get("fused") is False:
        return False
    if group.get("fused") is not True and (group.get("foreach") is not None or isinstance(group["lr"], Tensor)):
        # torch's default on CPU is its per-parameter loop, which rounds a tensor lr's step size in
        # float32: only the loop follows that
        return False
    return all(t.dtype in (ember.float32, ember.float64) and t.is_contiguous() for t in tensors)


def fused_adam_step(params: list[Tensor], states: list[dict[str, Any]], group: dict[str, Any]) -> None:
    beta1, beta2 = group["betas"]
    steps = [s["step"] for s in states]
    ember._foreach_add_(steps, 1)
    op = ember._fused_adamw_ if group["decoupled_weight_decay"] else ember._fused_adam_
    op(params, [p.grad for p in params], [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states],
       [s["max_exp_avg_sq"] for s in states] if group["amsgrad"] else [], steps, lr=float(group["lr"]),
       beta1=beta1, beta2=beta2, weight_decay=group["weight_decay"], eps=group["eps"], amsgrad=group["amsgrad"],
       maximize=group["maximize"])


def fused_sgd_step(params: list[Tensor], state: Any, group: dict[str, Any]) -> None:
    mu = group["momentum"]
    bufs: list[Tensor] = []
    first = False
    if mu != 0:
        missing = [state[p].get("momentum_buffer") is None for p in params]
        if any(missing) and not all(missing):  # a mix of new and old buffers: take the foreach path
            sgd_step(params, state, group)
            return
        first = all(missing)
        for p in params:
            if first:
                state[p]["momentum_buffer"] = ember.empty_like(p)
            bufs.append(state[p]["momentum_buffer"])
    ember._fused_sgd_(params, [p.grad for p in params], bufs, weight_decay=group["weight_decay"], momentum=mu,
                      lr=float(group["lr"]), dampening=group["dampening"], nesterov=group["nesterov"],
                      maximize=group["maximize"], is_first_step=first)


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
        for g, p in zip(grads, params, strict=False):
            buf = state[p].get("momentum_buffer")
            if buf is None:  # the first step seeds the buffer with the gradient itself
                buf = g.clone().detach()
                state[p]["momentum_buffer"] = buf
            else:
                existing.append(buf)
                existing_grads.append(g)
            bufs.append(buf)
        if existing:
            _scale_(existing, mu, group)
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
            _scale_(params, 1 - lr * wd, group)
        else:
            grads = list(ember._foreach_add(grads, params, alpha=wd))
    exp_avgs = [s["exp_avg"] for s in states]
    exp_avg_sqs = [s["exp_avg_sq"] for s in states]
    ember._foreach_lerp_(exp_avgs, grads, 1 - beta1)
    _scale_(exp_avg_sqs, beta2, group)
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
