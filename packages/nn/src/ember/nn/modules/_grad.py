"""Resetting gradients, shared by Module.zero_grad and Optimizer.zero_grad."""

from __future__ import annotations

from collections.abc import Iterable

from ember import Tensor


def zero_grads(params: Iterable[Tensor], set_to_none: bool = True) -> None:
    """Drop each parameter's ``.grad`` (``set_to_none``) or zero it in place, detached."""
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
            continue
        g = p.grad
        if g.grad_fn is not None:
            g.detach_()
        else:
            g.requires_grad_(False)
        g.zero_()
