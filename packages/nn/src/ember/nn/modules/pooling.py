"""Pooling layers: max, average, adaptive, power-average (LP) and max-unpooling, 1-d to 3-d.

Attributes and ``repr`` match PyTorch's (e.g. AvgPool1d / MaxUnpool store tuples, the others
keep the arguments as given); the work is done by ``ember.nn.functional``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ember import Tensor
from ember.nn import functional as F
from ember.nn.modules.module import Module
from ember.nn.modules.utils import _pair as _pair
from ember.nn.modules.utils import _single as _single
from ember.nn.modules.utils import _triple as _triple

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
           "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "LPPool1d", "LPPool2d", "LPPool3d", "FractionalMaxPool2d",
           "FractionalMaxPool3d"]


def _ntuple(v: Any, n: int) -> tuple:
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """Max pooling over the last dimension of a ``(N, C, L)`` batch (or an unbatched input); the
    module form of ``F.max_pool1d``.

    Args:
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        padding (int or tuple): implicit padding on every side.
        dilation (int or tuple): the spacing between the elements of a window.
        return_indices (bool): also return where each maximum was (for ``MaxUnpool``).
        ceil_mode (bool): round the output size up instead of down.
    """

    def forward(self, input: Tensor) -> Any:
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """Max pooling over the last 2 dimensions of a ``(N, C, H, W)`` batch (or an unbatched input);
    the module form of ``F.max_pool2d``.

    Args:
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        padding (int or tuple): implicit padding on every side.
        dilation (int or tuple): the spacing between the elements of a window.
        return_indices (bool): also return where each maximum was (for ``MaxUnpool``).
        ceil_mode (bool): round the output size up instead of down.

    Example::

        >>> nn.MaxPool2d(2)(ember.ones(1, 1, 4, 4)).shape
        torch.Size([1, 1, 2, 2])
    """

    def forward(self, input: Tensor) -> Any:
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool3d(_MaxPoolNd):
    """Max pooling over the last 3 dimensions of a ``(N, C, D, H, W)`` batch (or an unbatched
    input); the module form of ``F.max_pool3d``.

    Args:
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        padding (int or tuple): implicit padding on every side.
        dilation (int or tuple): the spacing between the elements of a window.
        return_indices (bool): also return where each maximum was (for ``MaxUnpool``).
        ceil_mode (bool): round the output size up instead of down.
    """

    def forward(self, input: Tensor) -> Any:
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolWithDivisor(_AvgPoolNd):
    """AvgPool2d's and AvgPool3d's settings (1d has no divisor_override)."""

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"]

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override


class AvgPool1d(_AvgPoolNd):
    """Average pooling over the last dimension of a ``(N, C, L)`` batch (or an unbatched input);
    the module form of ``F.avg_pool1d``.

    Args:
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        padding (int or tuple): implicit padding on every side.
        ceil_mode (bool): round the output size up instead of down.
        count_include_pad (bool): whether padded zeros count in each window's divisor.
    """

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(_AvgPoolWithDivisor):
    """Average pooling over the last 2 dimensions of a ``(N, C, H, W)`` batch (or an unbatched
    input); the module form of ``F.avg_pool2d``.

    Args:
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        padding (int or tuple): implicit padding on every side.
        ceil_mode (bool): round the output size up instead of down.
        count_include_pad (bool): whether padded zeros count in each window's divisor.
        divisor_override (int, optional): divide every window's sum by this instead.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AvgPool3d(_AvgPoolWithDivisor):
    """Average pooling over the last 3 dimensions of a ``(N, C, D, H, W)`` batch (or an unbatched
    input); the module form of ``F.avg_pool3d``.

    Args:
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        padding (int or tuple): implicit padding on every side.
        ceil_mode (bool): round the output size up instead of down.
        count_include_pad (bool): whether padded zeros count in each window's divisor.
        divisor_override (int, optional): divide every window's sum by this instead.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ["output_size"]

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling of the last dimension to a fixed ``output_size`` whatever the input size
    (the module form of ``F.adaptive_avg_pool1d``).

    Args:
        output_size (int or tuple): the size of the pooled dimensions (None keeps one).
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling of the last 2 dimensions to a fixed ``output_size`` whatever the input size
    (the module form of ``F.adaptive_avg_pool2d``).

    Args:
        output_size (int or tuple): the size of the pooled dimensions (None keeps one).

    Example::

        >>> nn.AdaptiveAvgPool2d(1)(ember.ones(2, 3, 5, 7)).shape
        torch.Size([2, 3, 1, 1])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling of the last 3 dimensions to a fixed ``output_size`` whatever the input size
    (the module form of ``F.adaptive_avg_pool3d``).

    Args:
        output_size (int or tuple): the size of the pooled dimensions (None keeps one).
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling of the last dimension to a fixed ``output_size`` whatever the input size (the
    module form of ``F.adaptive_max_pool1d``).

    Args:
        output_size (int or tuple): the size of the pooled dimensions (None keeps one).
        return_indices (bool): also return where each maximum was.
    """

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling of the last 2 dimensions to a fixed ``output_size`` whatever the input size (the
    module form of ``F.adaptive_max_pool2d``).

    Args:
        output_size (int or tuple): the size of the pooled dimensions (None keeps one).
        return_indices (bool): also return where each maximum was.
    """

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling of the last 3 dimensions to a fixed ``output_size`` whatever the input size (the
    module form of ``F.adaptive_max_pool3d``).

    Args:
        output_size (int or tuple): the size of the pooled dimensions (None keeps one).
        return_indices (bool): also return where each maximum was.
    """

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    _n = 1

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, self._n)
        self.stride = _ntuple(stride if stride is not None else kernel_size, self._n)
        self.padding = _ntuple(padding, self._n)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool1d`` (the module form of ``F.max_unpool1d``): puts each
    value back at the position recorded for it and fills the rest with zeros; call it with the
    values and the indices ``MaxPool1d(return_indices=True)`` returned.

    Args:
        kernel_size (int or tuple): the pooling window size.
        stride (int or tuple, optional): the pooling step (``kernel_size`` if None).
        padding (int or tuple): the pooling padding.
    """

    _n = 1

    def forward(self, input: Tensor, indices: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool2d`` (the module form of ``F.max_unpool2d``): puts each
    value back at the position recorded for it and fills the rest with zeros; call it with the
    values and the indices ``MaxPool2d(return_indices=True)`` returned.

    Args:
        kernel_size (int or tuple): the pooling window size.
        stride (int or tuple, optional): the pooling step (``kernel_size`` if None).
        padding (int or tuple): the pooling padding.
    """

    _n = 2

    def forward(self, input: Tensor, indices: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool3d`` (the module form of ``F.max_unpool3d``): puts each
    value back at the position recorded for it and fills the rest with zeros; call it with the
    values and the indices ``MaxPool3d(return_indices=True)`` returned.

    Args:
        kernel_size (int or tuple): the pooling window size.
        stride (int or tuple, optional): the pooling step (``kernel_size`` if None).
        padding (int or tuple): the pooling padding.
    """

    _n = 3

    def forward(self, input: Tensor, indices: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """Power-average pooling (the module form of ``F.lp_pool1d``): every window gives
    ``(sum of x ** norm_type) ** (1 / norm_type)``.

    Args:
        norm_type (float): the power.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        ceil_mode (bool): round the output size up instead of down.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """Power-average pooling (the module form of ``F.lp_pool2d``): every window gives
    ``(sum of x ** norm_type) ** (1 / norm_type)``.

    Args:
        norm_type (float): the power.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        ceil_mode (bool): round the output size up instead of down.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool3d(_LPPoolNd):
    """Power-average pooling (the module form of ``F.lp_pool3d``): every window gives
    ``(sum of x ** norm_type) ** (1 / norm_type)``.

    Args:
        norm_type (float): the power.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        ceil_mode (bool): round the output size up instead of down.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class _FractionalMaxPoolNd(Module):
    _n = 2

    def __init__(self, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                 return_indices: bool = False, _random_samples: Tensor | None = None) -> None:
        super().__init__()
        n, name = self._n, type(self).__name__
        self.kernel_size = _ntuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, n) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        fn = F.fractional_max_pool2d if self._n == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                  _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling over ``(N, C, H, W)`` input: windows of ``kernel_size`` at
    pseudo-random positions, so the output can be any size below the input's (the module form
    of ``F.fractional_max_pool2d``).

    Args:
        kernel_size (int or tuple): the window size.
        output_size (int or tuple, optional): the output size; or give ``output_ratio``.
        output_ratio (float or tuple, optional): the output size as a fraction in ``(0, 1)``.
        return_indices (bool): also return where each maximum was.
        _random_samples (Tensor, optional): fixed ``(N, C, 2)`` samples placing the windows.

    Example::

        >>> nn.FractionalMaxPool2d(2, output_size=3)(ember.ones(1, 1, 5, 5)).shape
        torch.Size([1, 1, 3, 3])
    """

    _n = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling over ``(N, C, T, H, W)`` input (the module form of
    ``F.fractional_max_pool3d``).

    Args:
        kernel_size (int or tuple): the window size.
        output_size (int or tuple, optional): the output size; or give ``output_ratio``.
        output_ratio (float or tuple, optional): the output size as a fraction in ``(0, 1)``.
        return_indices (bool): also return where each maximum was.
        _random_samples (Tensor, optional): fixed ``(N, C, 3)`` samples placing the windows.

    Example::

        >>> nn.FractionalMaxPool3d(2, output_ratio=0.5)(ember.ones(1, 1, 4, 4, 4)).shape
        torch.Size([1, 1, 2, 2, 2])
    """

    _n = 3
