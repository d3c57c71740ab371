"""LayerNorm, BatchNorm1d/2d/3d and GroupNorm (fused core kernels), InstanceNorm1d/2d/3d, RMSNorm and
LocalResponseNorm."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import ember
from ember import Tensor
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["LayerNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d",
           "InstanceNorm3d", "RMSNorm", "LocalResponseNorm"]


class LayerNorm(Module):
    """Layer normalization (the module form of ``F.layer_norm``): normalizes over the trailing
    ``normalized_shape`` dimensions of every sample, then applies a learned elementwise affine map.

    Args:
        normalized_shape (int or sequence of int): the trailing dimensions to normalize over.
        eps (float): added to the variance.
        elementwise_affine (bool): learn ``weight`` (and ``bias``).
        bias (bool): learn a ``bias`` too.

    Example::

        >>> nn.LayerNorm(2)(ember.tensor([[1.0, 3.0]]))
        tensor([[-1.0000,  1.0000]], grad_fn=<NativeLayerNormBackward0>)
    """

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ember.ones(self.normalized_shape, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(ember.zeros(self.normalized_shape, dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        """Re-initializes the learned parameters with the layer's default initialization (as at construction)."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class _NormBase(Module):
    """The state batch and instance normalization share (as PyTorch's ``_NormBase``): the affine
    ``weight`` / ``bias`` and the running statistics, their reset and state-dict upgrade."""

    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(ember.ones(num_features, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(ember.zeros(num_features, dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", ember.zeros(num_features, dtype=dtype, device=device))
            self.register_buffer("running_var", ember.ones(num_features, dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", ember.tensor(0, dtype=ember.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def _load_from_state_dict(self, state_dict: Any, prefix: str, local_metadata: dict[str, Any], strict: bool,
                              missing_keys: list[str], unexpected_keys: list[str], error_msgs: list[str]) -> None:
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            # checkpoints from before num_batches_tracked existed keep the module's own count (a zero
            # one where the module has no count to read: on meta)
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                own = self.num_batches_tracked
                state_dict[key] = (own if own is not None and not own.is_meta
                                   else ember.tensor(0, dtype=ember.int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    """Batch normalization over the channel dim (the base of ``BatchNorm1d/2d/3d``)."""

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            factor = 1.0 / float(self.num_batches_tracked.item()) if self.momentum is None else self.momentum
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None, self.running_var if track else None,
                            self.weight, self.bias, use_batch, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalization of ``(N, C)`` or ``(N, C, L)`` input: every channel is normalized with the batch's mean and
    variance in training (which also update running estimates) and with the running estimates
    in eval mode, then scaled and shifted by learned per-channel parameters.

    Args:
        num_features (int): the number of channels ``C``.
        eps (float): added to the variance.
        momentum (float, optional): the running estimates' update rate (None: a cumulative average).
        affine (bool): learn ``weight`` and ``bias``.
        track_running_stats (bool): keep running estimates (else batch statistics are always used).
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization of ``(N, C, H, W)`` input: every channel is normalized with the batch's mean and
    variance in training (which also update running estimates) and with the running estimates
    in eval mode, then scaled and shifted by learned per-channel parameters.

    Args:
        num_features (int): the number of channels ``C``.
        eps (float): added to the variance.
        momentum (float, optional): the running estimates' update rate (None: a cumulative average).
        affine (bool): learn ``weight`` and ``bias``.
        track_running_stats (bool): keep running estimates (else batch statistics are always used).

    Example::

        >>> bn = nn.BatchNorm2d(3)
        >>> bn(ember.randn(4, 3, 2, 2)).shape
        torch.Size([4, 3, 2, 2])
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalization of ``(N, C, D, H, W)`` input: every channel is normalized with the batch's mean and
    variance in training (which also update running estimates) and with the running estimates
    in eval mode, then scaled and shifted by learned per-channel parameters.

    Args:
        num_features (int): the number of channels ``C``.
        eps (float): added to the variance.
        momentum (float, optional): the running estimates' update rate (None: a cumulative average).
        affine (bool): learn ``weight`` and ``bias``.
        track_running_stats (bool): keep running estimates (else batch statistics are always used).
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class GroupNorm(Module):
    """Group normalization (the module form of ``F.group_norm``): the channels are split into
    ``num_groups`` groups and every ``(sample, group)`` is normalized, independently of the batch.

    Args:
        num_groups (int): the number of groups (it must divide ``num_channels``).
        num_channels (int): the number of channels ``C``.
        eps (float): added to the variance.
        affine (bool): learn per-channel ``weight`` and ``bias``.
        bias (bool): with ``affine``, also learn the ``bias`` (``False``: a scale only).
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(ember.ones(num_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("weight", None)
        if affine and bias:
            self.bias = Parameter(ember.zeros(num_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        """Re-initializes the learned parameters with the layer's default initialization (as at construction)."""
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class _InstanceNorm(_NormBase):
    _dims = 3  # batched input rank

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (self._dims - 1, self._dims):
            raise ValueError(f"expected {self._dims - 1}D or {self._dims}D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - (self._dims - 1)
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        unbatched = input.dim() == self._dims - 1
        x = input.unsqueeze(0) if unbatched else input
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats, self.momentum if self.momentum is not None
                              else 0.0, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization (the module form of ``F.instance_norm``): every ``(sample, channel)``
    map of a 3-D batch is normalized over its own spatial positions.

    Args:
        num_features (int): the number of channels ``C``.
        eps (float): added to the variance.
        momentum (float): the running estimates' update rate.
        affine (bool): learn per-channel ``weight`` and ``bias``.
        track_running_stats (bool): keep running estimates and use them in eval mode.
    """

    _dims = 3


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization (the module form of ``F.instance_norm``): every ``(sample, channel)``
    map of a 4-D batch is normalized over its own spatial positions.

    Args:
        num_features (int): the number of channels ``C``.
        eps (float): added to the variance.
        momentum (float): the running estimates' update rate.
        affine (bool): learn per-channel ``weight`` and ``bias``.
        track_running_stats (bool): keep running estimates and use them in eval mode.
    """

    _dims = 4


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization (the module form of ``F.instance_norm``): every ``(sample, channel)``
    map of a 5-D batch is normalized over its own spatial positions.

    Args:
        num_features (int): the number of channels ``C``.
        eps (float): added to the variance.
        momentum (float): the running estimates' update rate.
        affine (bool): learn per-channel ``weight`` and ``bias``.
        track_running_stats (bool): keep running estimates and use them in eval mode.
    """

    _dims = 5


class RMSNorm(Module):
    """Root-mean-square normalization (the module form of ``F.rms_norm``): divides by the root mean
    square over the trailing ``normalized_shape`` dimensions, then scales by a learned weight.

    Args:
        normalized_shape (int or sequence of int): the trailing dimensions to normalize over.
        eps (float, optional): added to the mean square (the dtype's machine epsilon if None).
        elementwise_affine (bool): learn ``weight``.
    """

    def __init__(self, normalized_shape: int | Sequence[int], eps: float | None = None,
                 elementwise_affine: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ember.ones(self.normalized_shape, dtype=dtype, device=device))
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self) -> None:
        """Re-initializes the learned parameters with the layer's default initialization (as at construction)."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    """Local response normalization across neighbouring channels (the module form of
    ``F.local_response_norm``).

    Args:
        size (int): how many neighbouring channels to sum over.
        alpha (float): the multiplier of the sum of squares.
        beta (float): the exponent.
        k (float): the additive constant.
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


# PyTorch's normalization.py also holds CrossMapLRN2d; ember's modules holding them import this file, so they are
# found on first use
_LAZY = {
    "CrossMapLRN2d": "cross_map_lrn"
}
__all__ += [n for n in _LAZY if not n.startswith("_") and n != "LazyModuleMixin" and n != "PairwiseDistance"]


def __getattr__(name: str) -> Any:
    """The classes listed in ``_LAZY``, imported from their ember file on first use."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"ember.nn.modules.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
