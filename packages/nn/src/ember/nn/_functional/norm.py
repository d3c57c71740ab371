"""Layer and batch normalization, composed from mean/var (biased variance for normalizing)."""

from __future__ import annotations

from collections.abc import Sequence

import ember
from ember import Tensor


def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    shape = tuple(normalized_shape) if not isinstance(normalized_shape, int) else (normalized_shape,)
    k = len(shape)
    if tuple(input.shape[input.dim() - k:]) != shape or input.dim() < k:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*, "
                           f"{', '.join(str(s) for s in shape)}], but got input of size{input.shape}")
    dims = tuple(range(input.dim() - k, input.dim()))
    mean = input.mean(dims, keepdim=True)
    centered = input - mean
    var = (centered * centered).mean(dims, keepdim=True)
    out = centered * ember.rsqrt(var + eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float | None = 0.1, eps: float = 1e-5) -> Tensor:
    if input.dim() < 2:
        raise ValueError(f"Expected 2D or more input (got {input.dim()}D input)")
    c = input.shape[1]
    if training:
        per_channel = input.numel() // c
        if per_channel <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
    dims = (0,) + tuple(range(2, input.dim()))
    shape = [1] * input.dim()
    shape[1] = c
    if training or running_mean is None:
        mean = input.mean(dims, keepdim=True)
        centered = input - mean
        var = (centered * centered).mean(dims, keepdim=True)
        if training and running_mean is not None and running_var is not None:
            n = input.numel() // c
            m = 0.0 if momentum is None else momentum
            with ember.no_grad():
                running_mean.mul_(1 - m).add_(mean.reshape(c).detach() * m)
                # the running variance uses the unbiased estimate, as PyTorch
                running_var.mul_(1 - m).add_(var.reshape(c).detach() * (m * n / (n - 1)))
    else:
        if running_mean.numel() != c:
            raise RuntimeError(f"running_mean should contain {c} elements not {running_mean.numel()}")
        mean = running_mean.reshape(shape)
        var = running_var.reshape(shape)
        centered = input - mean
    out = centered * ember.rsqrt(var + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out
