"""Pooling functions of ``ember.nn.functional`` (max, average, adaptive, power-average, unpooling).

2-d and 3-d pooling call the C++ kernels in ``ember._nn`` (PyTorch's ``torch._C._nn`` ops); the
1-d forms run the 2-d kernels on a height-1 view, as the index arithmetic is the same.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ember
from ember import Tensor, _nn
from ember.nn._functional._checks import float_kernel, parse_int64

IntOrSeq = int | Sequence[int]


def _tuple(v: Any, n: int) -> tuple:
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,) * n


def _stride(stride: IntOrSeq | None) -> Any:
    # None (and an empty sequence) means "the kernel size"; the kernels take [] for that.
    return [] if stride is None else stride


def _check_rank_1d(input: Tensor, name: str) -> None:
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {name})")


def _one(v: Any, name: str, what: str) -> int:
    parse_int64(v, name, what)
    t = _tuple(v, 1)
    if len(t) != 1:
        if name == "max_pool1d":
            raise RuntimeError(f"{name}() {what} must be an int, list of ints or tuple of ints of size 1 "
                               f"but got size {len(t)}")
        raise RuntimeError(f"{name}() argument '{what}' should contain one int (got {len(t)})")
    return int(t[0])


# ------------------------------------------------------------------------------------------
# max pooling
# ------------------------------------------------------------------------------------------

def max_pool1d_with_indices(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None = None,
                            padding: IntOrSeq = 0, dilation: IntOrSeq = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """Max pooling returning the maxima and their positions,
    over the last dimension of a ``(N, C, L)`` or ``(C, L)`` tensor.

    Args:
        input (Tensor): the input batch.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        padding (int or tuple): implicit padding on every side.
        dilation (int or tuple): the spacing between the elements of a window.
        return_indices (bool): also return the flat position of every maximum (for ``max_unpool``).
        ceil_mode (bool): round the output size up instead of down.
    """
    # torch.max_pool1d's parser reads every number before the kernel checks the rank
    for what, v in (("kernel_size", kernel_size), ("stride", stride), ("padding", padding), ("dilation", dilation)):
        if v is not None:
            parse_int64(v, "max_pool1d", what)
    if input.dim() not in (2, 3):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(input.shape)}")
    k = _one(kernel_size, "max_pool1d", "kernel_size")
    s = k if stride is None or _tuple(stride, 1) == () else _one(stride, "max_pool1d", "stride")
    p = _one(padding, "max_pool1d", "padding")
    d = _one(dilation, "max_pool1d", "dilation")
    out, idx = _nn.max_pool2d_with_indices(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode)
    return out.squeeze(-2), idx.squeeze(-2)


def max_pool2d_with_indices(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None = None,
                            padding: IntOrSeq = 0, dilation: IntOrSeq = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """Max pooling returning the maxima and their positions,
    over the last 2 dimensions of a ``(N, C, H, W)`` or ``(C, H, W)`` tensor.

    Args:
        input (Tensor): the input batch.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        padding (int or tuple): implicit padding on every side.
        dilation (int or tuple): the spacing between the elements of a window.
        return_indices (bool): also return the flat position of every maximum (for ``max_unpool``).
        ceil_mode (bool): round the output size up instead of down.
    """
    return _nn.max_pool2d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d_with_indices(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None = None,
                            padding: IntOrSeq = 0, dilation: IntOrSeq = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """Max pooling returning the maxima and their positions,
    over the last 3 dimensions of a ``(N, C, D, H, W)`` or ``(C, D, H, W)`` tensor.

    Args:
        input (Tensor): the input batch.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        padding (int or tuple): implicit padding on every side.
        dilation (int or tuple): the spacing between the elements of a window.
        return_indices (bool): also return the flat position of every maximum (for ``max_unpool``).
        ceil_mode (bool): round the output size up instead of down.
    """
    return _nn.max_pool3d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def _max_pool1d_stride(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None, padding: IntOrSeq,
                       dilation: IntOrSeq, ceil_mode: bool) -> IntOrSeq | None:
    """aten's max_pool1d without indices (check_max_pool1d, then its own kernel): int64 arguments,
    where the 2-d kernel takes C ints. Returns the stride to give that kernel -- a stride past
    int32 whose single window is all the output becomes the input span, the same one window."""
    k, p, d = (_one(v, "max_pool1d", w) for v, w in ((kernel_size, "kernel_size"), (padding, "padding"),
                                                      (dilation, "dilation")))
    s = k if stride is None or _tuple(stride, 1) == () else _one(stride, "max_pool1d", "stride")
    shape = list(input.shape)
    for bad, text in ((k <= 0, f"kernel_size must be greater than zero, but got {k}"),
                      (s <= 0, f"stride must be greater than zero, but got {s}"),
                      (p < 0, f"padding must be non-negative, but got {p}"),
                      (p > k // 2, f"padding should be at most half of kernel size, but got padding={p} and "
                                   f"kernel_size={k}"),
                      (d <= 0, f"dilation must be greater than zero, but got {d}")):
        if bad:
            raise RuntimeError(f"max_pool1d() {text}")
    n = shape[-1]
    out = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    float_kernel(input, "max_pool1d_impl")  # its kernel: float types only, empty input or not
    return max(n + 2 * p, 1) if s > 2**31 - 1 and out == 1 else stride


def max_pool1d(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None = None, padding: IntOrSeq = 0,
               dilation: IntOrSeq = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """Max pooling over the last dimension of a ``(N, C, L)`` or ``(C, L)`` tensor.

    Args:
        input (Tensor): the input batch.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        padding (int or tuple): implicit padding on every side.
        dilation (int or tuple): the spacing between the elements of a window.
        return_indices (bool): also return the flat position of every maximum (for ``max_unpool``).
        ceil_mode (bool): round the output size up instead of down.

    Example::

        >>> F.max_pool1d(ember.tensor([[[1.0, 3.0, 2.0, 5.0]]]), 2)
        tensor([[[3., 5.]]])
    """
    if not return_indices and not (input.requires_grad and ember.is_grad_enabled()):
        for what, v in (("kernel_size", kernel_size), ("stride", stride), ("padding", padding),
                        ("dilation", dilation)):
            if v is not None:
                parse_int64(v, "max_pool1d", what)
        if input.dim() not in (2, 3) or 0 in list(input.shape)[-2:]:
            raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
                               f"for input, but got:{list(input.shape)}")
        stride = _max_pool1d_stride(input, kernel_size, stride, padding, dilation, ceil_mode)
    out, idx = max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def max_pool2d(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None = None, padding: IntOrSeq = 0,
               dilation: IntOrSeq = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """Max pooling over the last 2 dimensions of a ``(N, C, H, W)`` or ``(C, H, W)`` tensor.

    Args:
        input (Tensor): the input batch.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        padding (int or tuple): implicit padding on every side.
        dilation (int or tuple): the spacing between the elements of a window.
        return_indices (bool): also return the flat position of every maximum (for ``max_unpool``).
        ceil_mode (bool): round the output size up instead of down.

    Example::

        >>> F.max_pool2d(ember.arange(16.0).reshape(1, 1, 4, 4), 2)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """
    out, idx = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def max_pool3d(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None = None, padding: IntOrSeq = 0,
               dilation: IntOrSeq = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """Max pooling over the last 3 dimensions of a ``(N, C, D, H, W)`` or ``(C, D, H, W)`` tensor.

    Args:
        input (Tensor): the input batch.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        padding (int or tuple): implicit padding on every side.
        dilation (int or tuple): the spacing between the elements of a window.
        return_indices (bool): also return the flat position of every maximum (for ``max_unpool``).
        ceil_mode (bool): round the output size up instead of down.
    """
    out, idx = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


# ------------------------------------------------------------------------------------------
# average pooling
# ------------------------------------------------------------------------------------------

def avg_pool1d(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None = None, padding: IntOrSeq = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """Average pooling over the last dimension of a ``(N, C, L)`` or ``(C, L)`` tensor.

    Args:
        input (Tensor): the input batch.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        padding (int or tuple): implicit padding on every side.
        count_include_pad (bool): whether padded zeros count in each window's divisor.
        ceil_mode (bool): round the output size up instead of down.

    Example::

        >>> F.avg_pool1d(ember.tensor([[[1.0, 3.0, 5.0, 7.0]]]), 2)
        tensor([[[2., 6.]]])
    """
    for what, v in (("kernel_size", kernel_size), ("stride", stride), ("padding", padding)):
        if v is not None:
            parse_int64(v, "avg_pool1d", what)
    _check_rank_1d(input, "avg_pool1d")
    k = _one(kernel_size, "avg_pool1d", "kernel_size")
    s = k if stride is None or _tuple(stride, 1) == () else _one(stride, "avg_pool1d", "stride")
    p = _one(padding, "avg_pool1d", "padding")
    out = _nn.avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad)
    return out.squeeze(-2)


def avg_pool2d(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None = None, padding: IntOrSeq = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """Average pooling over the last 2 dimensions of a ``(N, C, H, W)`` or ``(C, H, W)`` tensor.

    Args:
        input (Tensor): the input batch.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        padding (int or tuple): implicit padding on every side.
        count_include_pad (bool): whether padded zeros count in each window's divisor.
        divisor_override (int, optional): divide every window's sum by this instead.
        ceil_mode (bool): round the output size up instead of down.
    """
    return _nn.avg_pool2d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                          divisor_override)


def avg_pool3d(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None = None, padding: IntOrSeq = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """Average pooling over the last 3 dimensions of a ``(N, C, D, H, W)`` or ``(C, D, H, W)`` tensor.

    Args:
        input (Tensor): the input batch.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        padding (int or tuple): implicit padding on every side.
        count_include_pad (bool): whether padded zeros count in each window's divisor.
        divisor_override (int, optional): divide every window's sum by this instead.
        ceil_mode (bool): round the output size up instead of down.
    """
    return _nn.avg_pool3d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                          divisor_override)


def _lp_pool(input: Tensor, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool, n: int,
             window: int) -> Tensor:
    """torch.nn.functional's lp_pool: ±inf norms are max pools of |x|, others the avg pool of x^p scaled back."""
    avg, mx = ((avg_pool1d, max_pool1d), (avg_pool2d, max_pool2d), (avg_pool3d, max_pool3d))[n - 1]

    def flag_checked() -> None:  # the pool's parser: a wrong-typed flag before its int arguments' overflow
        if not isinstance(ceil_mode, bool):
            raise TypeError(f"avg_pool{n}d(): argument 'ceil_mode' (position 5) must be bool, not "
                            f"{type(ceil_mode).__name__}")

    if isinstance(norm_type, (int, float)) and math.isinf(norm_type):
        magnitude = input.abs()  # |x| first: a bool input is abs's dtype error before the pool's parser
        flag_checked()
        if norm_type > 0:
            return mx(magnitude, kernel_size, stride, 0, 1, ceil_mode)
        return -mx(-magnitude, kernel_size, stride, 0, 1, ceil_mode)
    powered = input.pow(norm_type)
    flag_checked()
    out = avg(powered, kernel_size, stride, 0, ceil_mode)
    # sign * relu(|x|) keeps the gradient of a zero window finite, as PyTorch does.
    return (ember.sign(out) * ember.relu(ember.abs(out))).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: IntOrSeq | None = None,
              ceil_mode: bool = False) -> Tensor:
    """Power-average pooling over the last dimension: every window gives
    ``(sum of x ** norm_type) ** (1 / norm_type)`` (``norm_type=1`` is sum pooling; a large one
    approaches max pooling).

    Args:
        input (Tensor): the input batch.
        norm_type (float): the power.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        ceil_mode (bool): round the output size up instead of down.
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1,
                    kernel_size if isinstance(kernel_size, int) else math.prod(kernel_size))


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: IntOrSeq, stride: IntOrSeq | None = None,
              ceil_mode: bool = False) -> Tensor:
    """Power-average pooling over the last 2 dimensions: every window gives
    ``(sum of x ** norm_type) ** (1 / norm_type)`` (``norm_type=1`` is sum pooling; a large one
    approaches max pooling).

    Args:
        input (Tensor): the input batch.
        norm_type (float): the power.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        ceil_mode (bool): round the output size up instead of down.
    """
    kh, kw = _tuple(kernel_size, 2)
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2, kh * kw)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: IntOrSeq, stride: IntOrSeq | None = None,
              ceil_mode: bool = False) -> Tensor:
    """Power-average pooling over the last 3 dimensions: every window gives
    ``(sum of x ** norm_type) ** (1 / norm_type)`` (``norm_type=1`` is sum pooling; a large one
    approaches max pooling).

    Args:
        input (Tensor): the input batch.
        norm_type (float): the power.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows (``kernel_size`` if None).
        ceil_mode (bool): round the output size up instead of down.
    """
    kd, kh, kw = _tuple(kernel_size, 3)
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3, kd * kh * kw)


# ------------------------------------------------------------------------------------------
# adaptive pooling
# ------------------------------------------------------------------------------------------

def _output_size(output_size: Any, input: Tensor, n: int) -> Any:
    """torch.nn.functional's _list_with_default: an int goes to the kernel as it is (its parser's errors, a
    ValueError beyond int64), a sequence's None entries take the input's trailing sizes."""
    if isinstance(output_size, int):
        return output_size
    sizes = list(output_size)
    if input.dim() <= len(sizes):
        raise ValueError(f"Input dimension should be at least {len(sizes) + 1}")
    lead = input.dim() - len(sizes)
    return [int(input.shape[lead + i]) if v is None else v for i, v in enumerate(sizes)]


def adaptive_avg_pool1d(input: Tensor, output_size: IntOrSeq) -> Tensor:
    """Average pooling of the last dimension into windows chosen so that the result has
    ``output_size``, whatever the input size (the windows cover the input evenly).

    Args:
        input (Tensor): the input batch.
        output_size (int or tuple): the size of the result's pooled dimensions (None keeps one).
    """
    parse_int64(output_size, "adaptive_avg_pool1d", "output_size")  # the parser's overflow error first
    _check_rank_1d(input, "adaptive_avg_pool1d")
    size = _one(output_size, "adaptive_avg_pool1d", "output_size")
    return _nn.adaptive_avg_pool2d(input.unsqueeze(-2), [1, size]).squeeze(-2)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling of the last 2 dimensions into windows chosen so that the result has
    ``output_size``, whatever the input size (the windows cover the input evenly).

    Args:
        input (Tensor): the input batch.
        output_size (int or tuple): the size of the result's pooled dimensions (None keeps one).

    Example::

        >>> F.adaptive_avg_pool2d(ember.ones(1, 3, 7, 5), 1).shape
        torch.Size([1, 3, 1, 1])
    """
    return _nn.adaptive_avg_pool2d(input, _output_size(output_size, input, 2))


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling of the last 3 dimensions into windows chosen so that the result has
    ``output_size``, whatever the input size (the windows cover the input evenly).

    Args:
        input (Tensor): the input batch.
        output_size (int or tuple): the size of the result's pooled dimensions (None keeps one).
    """
    return _nn.adaptive_avg_pool3d(input, _output_size(output_size, input, 3))


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: IntOrSeq,
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """Max pooling, returning the maxima and their positions,
    of the last dimension into windows chosen so that the result has
    ``output_size``, whatever the input size (the windows cover the input evenly).

    Args:
        input (Tensor): the input batch.
        output_size (int or tuple): the size of the result's pooled dimensions (None keeps one).
        return_indices (bool): also return the flat position of every maximum (for ``max_unpool``).
    """
    parse_int64(output_size, "adaptive_max_pool1d", "output_size")  # the parser's overflow error first
    _check_rank_1d(input, "adaptive_max_pool1d")
    size = _one(output_size, "adaptive_max_pool1d", "output_size")
    out, idx = _nn.adaptive_max_pool2d(input.unsqueeze(-2), [1, size])
    return out.squeeze(-2), idx.squeeze(-2)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """Max pooling, returning the maxima and their positions,
    of the last 2 dimensions into windows chosen so that the result has
    ``output_size``, whatever the input size (the windows cover the input evenly).

    Args:
        input (Tensor): the input batch.
        output_size (int or tuple): the size of the result's pooled dimensions (None keeps one).
        return_indices (bool): also return the flat position of every maximum (for ``max_unpool``).
    """
    return _nn.adaptive_max_pool2d(input, _output_size(output_size, input, 2))


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """Max pooling, returning the maxima and their positions,
    of the last 3 dimensions into windows chosen so that the result has
    ``output_size``, whatever the input size (the windows cover the input evenly).

    Args:
        input (Tensor): the input batch.
        output_size (int or tuple): the size of the result's pooled dimensions (None keeps one).
        return_indices (bool): also return the flat position of every maximum (for ``max_unpool``).
    """
    return _nn.adaptive_max_pool3d(input, _output_size(output_size, input, 3))


def adaptive_max_pool1d(input: Tensor, output_size: IntOrSeq, return_indices: bool = False) -> Any:
    """Max pooling of the last dimension into windows chosen so that the result has
    ``output_size``, whatever the input size (the windows cover the input evenly).

    Args:
        input (Tensor): the input batch.
        output_size (int or tuple): the size of the result's pooled dimensions (None keeps one).
        return_indices (bool): also return the flat position of every maximum (for ``max_unpool``).
    """
    out, idx = adaptive_max_pool1d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling of the last 2 dimensions into windows chosen so that the result has
    ``output_size``, whatever the input size (the windows cover the input evenly).

    Args:
        input (Tensor): the input batch.
        output_size (int or tuple): the size of the result's pooled dimensions (None keeps one).
        return_indices (bool): also return the flat position of every maximum (for ``max_unpool``).
    """
    out, idx = adaptive_max_pool2d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling of the last 3 dimensions into windows chosen so that the result has
    ``output_size``, whatever the input size (the windows cover the input evenly).

    Args:
        input (Tensor): the input batch.
        output_size (int or tuple): the size of the result's pooled dimensions (None keeps one).
        return_indices (bool): also return the flat position of every maximum (for ``max_unpool``).
    """
    out, idx = adaptive_max_pool3d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


# ------------------------------------------------------------------------------------------
# unpooling
# ------------------------------------------------------------------------------------------

def _unpool_output_size(input: Tensor, kernel_size: tuple, stride: tuple, padding: tuple,
                        output_size: Any) -> list:
    n = len(kernel_size)
    shape = list(input.shape)
    default = [(shape[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]  # IndexError
    sizes = default if output_size is None else _checked_output_size(output_size, default, stride, n)
    for d in range(n):  # torch.nn.functional's _check_unpool_output_size
        if sizes[d] < 0:
            raise ValueError(f"max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={sizes[d]}")
    return [int(s) for s in sizes]


def _checked_output_size(output_size: Any, default: list, stride: tuple, n: int) -> list:
    sizes = list(_tuple(output_size, n))
    if len(sizes) == n + 2:
        sizes = sizes[2:]
    if len(sizes) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, "
                         f"but it has a length of '{len(sizes)}'")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < sizes[d] < hi:
            raise ValueError(f'invalid output_size "{sizes}" (dim {d} must be between {lo} and {hi})')
    return sizes


def _unpool_args(n: int, kernel_size: Any, stride: Any, padding: Any) -> tuple[tuple, tuple, tuple]:
    k = _tuple(kernel_size, n)
    s = _tuple(stride, n) if stride is not None else k
    return k, s, _tuple(padding, n)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None = None,
                 padding: IntOrSeq = 0, output_size: Sequence[int] | None = None) -> Tensor:
    """The partial inverse of ``max_pool1d``: puts every value of ``input`` back at the position
    ``indices`` recorded for it and fills the rest with zeros.

    Args:
        input (Tensor): the pooled values.
        indices (Tensor): the positions returned by ``max_pool1d(..., return_indices=True)``.
        kernel_size (int or tuple): the pooling window size.
        stride (int or tuple, optional): the pooling step (``kernel_size`` if None).
        padding (int or tuple): the pooling padding.
        output_size (sequence of int, optional): the exact output size, where several are possible.
    """
    k, s, p = _unpool_args(1, kernel_size, stride, padding)
    size = _unpool_output_size(input, k, s, p, output_size)
    return _nn.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), size + [1]).squeeze(-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None = None,
                 padding: IntOrSeq = 0, output_size: Sequence[int] | None = None) -> Tensor:
    """The partial inverse of ``max_pool2d``: puts every value of ``input`` back at the position
    ``indices`` recorded for it and fills the rest with zeros.

    Args:
        input (Tensor): the pooled values.
        indices (Tensor): the positions returned by ``max_pool2d(..., return_indices=True)``.
        kernel_size (int or tuple): the pooling window size.
        stride (int or tuple, optional): the pooling step (``kernel_size`` if None).
        padding (int or tuple): the pooling padding.
        output_size (sequence of int, optional): the exact output size, where several are possible.
    """
    k, s, p = _unpool_args(2, kernel_size, stride, padding)
    return _nn.max_unpool2d(input, indices, _unpool_output_size(input, k, s, p, output_size))


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None = None,
                 padding: IntOrSeq = 0, output_size: Sequence[int] | None = None) -> Tensor:
    """The partial inverse of ``max_pool3d``: puts every value of ``input`` back at the position
    ``indices`` recorded for it and fills the rest with zeros.

    Args:
        input (Tensor): the pooled values.
        indices (Tensor): the positions returned by ``max_pool3d(..., return_indices=True)``.
        kernel_size (int or tuple): the pooling window size.
        stride (int or tuple, optional): the pooling step (``kernel_size`` if None).
        padding (int or tuple): the pooling padding.
        output_size (sequence of int, optional): the exact output size, where several are possible.
    """
    k, s, p = _unpool_args(3, kernel_size, stride, padding)
    return _nn.max_unpool3d(input, indices, _unpool_output_size(input, k, s, p, output_size), list(s), list(p))
