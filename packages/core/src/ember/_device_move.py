"""Tensor.to(device) / .cuda() / .cpu() across devices: the copy (ops/core/device_copy.cpp) as an
autograd function whose backward moves the gradient back to the input's device."""

from __future__ import annotations

from typing import Any

from ember._lib import _C
from ember.autograd.function import Function


class _ToCopy(Function):
    @staticmethod
    def forward(ctx: Any, x: Any, device: Any, non_blocking: bool) -> Any:
        ctx.source = x.device
        return _C._to_device(x, device, non_blocking)

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        return _C._to_device(grad, ctx.source), None, None


def same_device(t: Any, device: Any) -> bool:
    """t is on `device` ("cuda" without an index: on any CUDA device, as the current one is)."""
    d = t.device
    return d.type == device.type and (device.index is None or d.index == device.index)


def to_device(t: Any, device: Any, non_blocking: bool = False) -> Any:
    """t on `device`; non_blocking: queued on the current stream where the host side is pinned
    (a move to the host then lands in pinned memory)."""
    # (a build without CUDA raises its error from the device allocator, as for any CUDA tensor)
    if t.requires_grad and _C.is_grad_enabled():
        return _ToCopy.apply(t, device, bool(non_blocking))
    return _C._to_device(t, device, bool(non_blocking))
