"""Conv1d/2d/3d and ConvTranspose1d/2d/3d (parameters, init and repr as in PyTorch)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ember
from ember import Tensor
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.modules.utils import _pair as _pair
from ember.nn.modules.utils import _reverse_repeat_tuple as _reverse_repeat_tuple
from ember.nn.modules.utils import _single as _single
from ember.nn.modules.utils import _triple as _triple
from ember.nn.parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}
_PADDING_STRINGS = {"same", "valid"}


def _ntuple(v: Any, n: int) -> tuple:
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,) * n


class _ConvNd(Module):
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]
    _nsp = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any, padding: Any,
                 dilation: Any, transposed: bool, output_padding: Any, groups: int, bias: bool, padding_mode: str,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        n = self._nsp
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        kernel_size, stride, dilation = _ntuple(kernel_size, n), _ntuple(stride, n), _ntuple(dilation, n)
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _ntuple(padding, n)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's argument for the non-zero padding modes: last dim first, (left, right) each
        if isinstance(padding, str):
            rev: list[int] = [0, 0] * n
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(n - 1, -1, -1), strict=True):
                    total = d * (k - 1)
                    rev[2 * i] = total // 2
                    rev[2 * i + 1] = total - total // 2
            self._reversed_padding_repeated_twice = rev
        else:
            self._reversed_padding_repeated_twice = tuple(p for p in reversed(padding) for _ in range(2))
        shape = ((in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups))
        self.weight = Parameter(ember.empty(shape + tuple(kernel_size), dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(ember.empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # kaiming_uniform_(a=√5): U(−1/√fan_in, 1/√fan_in), PyTorch's default for conv weights
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        n = self._nsp
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _Conv(_ConvNd):
    _fn: Any = None

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, False, 0, groups, bias,
                         padding_mode, device, dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        fn = type(self)._fn
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return fn(padded, weight, bias, self.stride, (0,) * self._nsp, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-D convolution over (N, C, L) or (C, L) inputs."""

    _nsp = 1
    _fn = staticmethod(F.conv1d)


class Conv2d(_Conv):
    """2-D convolution over (N, C, H, W) or (C, H, W) inputs."""

    _nsp = 2
    _fn = staticmethod(F.conv2d)


class Conv3d(_Conv):
    """3-D convolution over (N, C, D, H, W) or (C, D, H, W) inputs."""

    _nsp = 3
    _fn = staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvNd):
    _fn: Any = None

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, True, output_padding,
                         groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input: Tensor, output_size: Sequence[int] | None, stride: Sequence[int],
                        padding: Sequence[int], kernel_size: Sequence[int], num_spatial_dims: int,
                        dilation: Sequence[int] | None = None) -> tuple:
        """The output_padding that makes the result ``output_size`` (PyTorch's rule and messages)."""
        if output_size is None:
            return tuple(self.output_padding)
        non_spatial = 2 if input.dim() == num_spatial_dims + 2 else 1
        size = list(output_size)
        if len(size) == non_spatial + num_spatial_dims:
            size = size[non_spatial:]
        if len(size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {non_spatial + num_spatial_dims} elements "
                             f"(got {len(output_size)})")
        dilation = dilation if dilation is not None else (1,) * num_spatial_dims
        mins, maxs = [], []
        for d in range(num_spatial_dims):
            lo = ((input.size(d + non_spatial) - 1) * stride[d] - 2 * padding[d]
                  + dilation[d] * (kernel_size[d] - 1) + 1)
            mins.append(lo)
            maxs.append(lo + stride[d] - 1)
        for d in range(num_spatial_dims):
            if not mins[d] <= size[d] <= maxs[d]:
                raise ValueError(f"requested an output size of {size}, but valid sizes range from {mins} to {maxs} "
                                 f"(for an input of {list(input.shape)[non_spatial:]})")
        return tuple(size[d] - mins[d] for d in range(num_spatial_dims))

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        op = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, self._nsp,
                                  self.dilation)
        return type(self)._fn(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                              self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution (the gradient of Conv1d with respect to its input)."""

    _nsp = 1
    _fn = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution."""

    _nsp = 2
    _fn = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution."""

    _nsp = 3
    _fn = staticmethod(F.conv_transpose3d)


# PyTorch's conv.py also holds the lazy convolutions; ember's modules holding them import this file, so they are
# found on first use
_LAZY = {
    "LazyConv1d": "lazy", "LazyConv2d": "lazy", "LazyConv3d": "lazy", "LazyConvTranspose1d": "lazy",
    "LazyConvTranspose2d": "lazy", "LazyConvTranspose3d": "lazy", "LazyModuleMixin": "lazy", "_LazyConvXdMixin":
    "lazy"
}
__all__ += [n for n in _LAZY if not n.startswith("_") and n != "LazyModuleMixin" and n != "PairwiseDistance"]


def __getattr__(name: str) -> Any:
    """The classes listed in ``_LAZY``, imported from their ember file on first use."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"ember.nn.modules.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
