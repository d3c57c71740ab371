"""``SyncBatchNorm``: batch normalisation whose batch statistics cover every rank of a group.

Forward all-gathers each rank's per-channel (mean, biased var, count) and combines them exactly
(the parallel variance formula); backward all-reduces the two per-channel sums the input
gradient needs. Weight and bias gradients stay local: DDP averages them like any other.
"""

from __future__ import annotations

from typing import Any

import ember
from ember.nn.modules.normalization import _BatchNorm

from .. import collectives as C
from ..process_group import is_initialized


def _dims(x: Any) -> list[int]:
    return [0] + list(range(2, x.dim()))


def _shape(x: Any) -> list[int]:
    return [1, -1] + [1] * (x.dim() - 2)


class _SyncBN(ember.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: Any, weight: Any, bias: Any, running_mean: Any, running_var: Any,
                eps: float, momentum: float, group: Any) -> Any:
        dims, shape = _dims(x), _shape(x)
        xf = x.float() if x.dtype in (ember.float16, ember.bfloat16) else x
        n_local = xf.numel() // max(xf.shape[1], 1)
        mean_l = xf.mean(dims) if n_local else ember.zeros(xf.shape[1], dtype=xf.dtype)
        var_l = xf.var(dims, unbiased=False) if n_local else ember.zeros(xf.shape[1], dtype=xf.dtype)
        stats = ember.cat([mean_l, var_l, ember.tensor([float(n_local)], dtype=xf.dtype)])
        world = C._member(group).size()
        gathered = [ember.empty_like(stats) for _ in range(world)]
        C.all_gather(gathered, stats, group=group)
        c = xf.shape[1]
        means = ember.stack([g[:c] for g in gathered])
        vars_ = ember.stack([g[c:2 * c] for g in gathered])
        counts = ember.stack([g[2 * c:] for g in gathered])  # (world, 1)
        total = counts.sum()
        if total.item() <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {list(x.shape)}")
        mean = (means * counts).sum(0) / total
        var = ((vars_ + (means - mean) ** 2) * counts).sum(0) / total
        invstd = ember.rsqrt(var + eps)
        if running_mean is not None:
            with ember.no_grad():
                running_mean.mul_(1 - momentum).add_(mean.to(running_mean.dtype) * momentum)
                unbiased = var * (total / (total - 1))
                running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype) * momentum)
        xhat = (xf - mean.view(shape)) * invstd.view(shape)
        y = xhat
        if weight is not None:
            y = y * weight.float().view(shape) if weight.dtype != xf.dtype else y * weight.view(shape)
        if bias is not None:
            y = y + (bias.float() if bias.dtype != xf.dtype else bias).view(shape)
        ctx.save_for_backward(xhat, invstd, weight)
        ctx.group, ctx.total, ctx.has_bias, ctx.in_dtype = group, total, bias is not None, x.dtype
        return y.to(x.dtype)

    @staticmethod
    def backward(ctx: Any, dy: Any) -> Any:
        xhat, invstd, weight = ctx.saved_tensors
        dims, shape = _dims(xhat), _shape(xhat)
        dyf = dy.to(xhat.dtype)
        sum_dy = dyf.sum(dims)
        sum_dy_xhat = (dyf * xhat).sum(dims)
        grad_w = sum_dy_xhat.to(weight.dtype) if weight is not None else None
        grad_b = sum_dy.to(weight.dtype if weight is not None else dy.dtype) if ctx.has_bias else None
        both = ember.cat([sum_dy, sum_dy_xhat])
        C.all_reduce(both, group=ctx.group)
        c = sum_dy.numel()
        mean_dy = (both[:c] / ctx.total).view(shape)
        mean_dy_xhat = (both[c:] / ctx.total).view(shape)
        scale = invstd.view(shape) * (weight.to(xhat.dtype).view(shape) if weight is not None else 1.0)
        dx = (dyf - mean_dy - xhat * mean_dy_xhat) * scale
        return dx.to(ctx.in_dtype), grad_w, grad_b, None, None, None, None, None


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over N-D input whose training statistics span ``process_group``."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, process_group: Any = None,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input: Any) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input: Any) -> Any:
        self._check_input_dim(input)
        if input.shape[1] != self.num_features:
            raise ValueError(f"SyncBatchNorm: expected {self.num_features} channels, got input "
                             f"of shape {list(input.shape)}")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            factor = 1.0 / float(self.num_batches_tracked.item()) if self.momentum is None \
                else self.momentum
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        group = self.process_group
        synced = use_batch and self.training and is_initialized() and \
            C._member(group) is not None and C._member(group).size() > 1
        if not synced:  # eval, or one process: plain batch norm
            return super().forward(input)
        track = self.track_running_stats
        return _SyncBN.apply(input, self.weight, self.bias,
                             self.running_mean if track else None,
                             self.running_var if track else None, self.eps, factor, group)

    @classmethod
    def convert_sync_batchnorm(cls, module: Any, process_group: Any = None) -> Any:
        """``module`` with every BatchNorm*d replaced by a SyncBatchNorm holding the same
        parameters and buffers (recursively)."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm) and \
                type(module).__name__.startswith("BatchNorm"):
            out = cls(module.num_features, module.eps, module.momentum, module.affine,
                      module.track_running_stats, process_group)
            if module.affine:
                with ember.no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
