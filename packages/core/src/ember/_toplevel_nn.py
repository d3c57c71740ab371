"""The nn ops PyTorch also exposes at top level (torch.max_pool2d, torch.native_layer_norm, ...), with
aten's signatures rather than torch.nn.functional's: strides default to ``()``, losses take an int
reduction (the dropout family: _toplevel_dropout.py).

Ops whose kernels are core ops (pooling, the norms, channel shuffle, rrelu) are built here from
``ember._C``. Ops that ember composes in Python in ember-nn forward to it at call time, so ``import ember``
stays light and a core-only install names the distribution to install.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import ember
from ember._argcheck import no_internal_overlap, parse_int64
from ember._lib import _C
from ember._siblings import import_sibling
from ember._tensor import Tensor

__all__ = ["adaptive_avg_pool1d", "adaptive_max_pool1d", "avg_pool1d", "celu", "celu_", "channel_shuffle", "conv_tbc",
           "embedding_bag", "instance_norm", "max_pool1d", "max_pool1d_with_indices", "max_pool2d",
           "max_pool3d", "native_batch_norm", "native_channel_shuffle", "native_group_norm", "native_layer_norm",
           "prelu", "relu_", "rms_norm", "rrelu", "rrelu_", "selu", "selu_", "threshold", "threshold_"]

IntOrSeq = int | Sequence[int]

# ------------------------------------------------------------------------------------------
# forwarding to ember-nn
# ------------------------------------------------------------------------------------------


def _nn(op: str, module: str = "ember.nn.functional") -> ModuleType:
    """``module`` of ember-nn, imported on first use; a core-only install is told what to install."""
    try:
        import_sibling("ember.nn")
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(f"ember.{op} is composed in ember.nn.functional: {e}", name="ember.nn") from None
    return importlib.import_module(module)


_REDUCTIONS = {1: "mean", 2: "sum"}  # aten's enum: 0 none, 1 mean, 2 sum; any other value reduces nothing
# The schemas default reduction to Mean, but PyTorch's Python binding cannot parse that default
# ("at::Reduction::Mean") and uses 0: an omitted reduction reduces nothing. That behaviour is the spec.
_NO_REDUCTION = 0


def _reduction(reduction: int) -> str:
    return _REDUCTIONS.get(reduction, "none")


def _reduce(loss: Tensor, reduction: int) -> Tensor:
    r = _reduction(reduction)
    return loss.mean() if r == "mean" else loss.sum() if r == "sum" else loss


# ------------------------------------------------------------------------------------------
# pooling: the 1-d forms run the 2-d kernels on a height-1 view (the index arithmetic is the same)
# ------------------------------------------------------------------------------------------


def _kernel(name: str) -> Any:
    # the generated torch._C._nn bindings (ops/nn_pool.yaml); looked up here so ember._nn stays unloaded
    return getattr(_C, "__nn_" + name)


def _stride(stride: Any) -> Any:
    return [] if stride is None else stride  # [] (and None, as F passes it) means "the kernel size"


def _ints(v: Any) -> tuple:
    return tuple(v) if isinstance(v, (list, tuple)) else (v,)


def _check_rank_1d(input: Tensor, name: str) -> None:
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {name})")


def _one(v: Any, name: str, what: str) -> int:
    t = _ints(v)
    if len(t) != 1:
        raise RuntimeError(f"{name}() argument '{what}' should contain one int (got {len(t)})")
    return int(t[0])


def _pool1d_args(kernel_size: Any, stride: Any, padding: Any, dilation: Any, name: str) -> tuple[int, ...]:
    k, p = _one(kernel_size, name, "kernel_size"), _one(padding, name, "padding")
    s = k if _ints(_stride(stride)) == () else _one(stride, name, "stride")
    return k, s, p, _one(dilation, name, "dilation")


def max_pool1d_with_indices(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq = (), padding: IntOrSeq = 0,
                            dilation: IntOrSeq = 1, ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    """Max pooling over the last dimension of a ``(C, L)`` or ``(N, C, L)`` tensor, also returning
    where each maximum was found.

    Args:
        input (Tensor): the signal, 2-D or 3-D.
        kernel_size (int or tuple): the window length.
        stride (int or tuple): the step between windows; empty (the default) means ``kernel_size``.
        padding (int or tuple): implicit ``-inf`` padding added on both ends.
        dilation (int or tuple): the spacing between the elements of a window.
        ceil_mode (bool): round the output length up instead of down.

    Returns:
        tuple[Tensor, Tensor]: the maxima and their int64 positions along the last dimension.

    Example::

        >>> out, idx = ember.max_pool1d_with_indices(ember.tensor([[1., 5., 2., 4.]]), 2)
        >>> out, idx
        (tensor([[5., 4.]]), tensor([[1, 3]]))
    """
    _check_rank_1d(input, "max_pool1d")
    k, s, p, d = _pool1d_args(kernel_size, stride, padding, dilation, "max_pool1d")
    out, idx = _kernel("max_pool2d_with_indices")(input.unsqueeze(-2), [1, k], [1, s], [0, p], [1, d], ceil_mode)
    return out.squeeze(-2), idx.squeeze(-2)


def _check_max_pool1d(input: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any) -> None:
    """torch.max_pool1d's own checks (it has a separate CPU kernel with its own messages)."""
    if input.dim() not in (2, 3):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(input.shape)}")
    args = {"kernel_size": _ints(kernel_size), "stride": _ints(_stride(stride)), "padding": _ints(padding),
            "dilation": _ints(dilation)}
    for what, v in args.items():
        if len(v) != 1 and not (what == "stride" and len(v) == 0):
            raise RuntimeError(f"max_pool1d() {what} must be an int, list of ints or tuple of ints of size 1 but got "
                               f"size {len(v)}")
    k, p, d = args["kernel_size"][0], args["padding"][0], args["dilation"][0]
    s = args["stride"][0] if args["stride"] else k
    for what, v in (("kernel_size", k), ("stride", s), ("dilation", d)):
        if v <= 0:
            raise RuntimeError(f"max_pool1d() {what} must be greater than zero, but got {v}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={p} and "
                           f"kernel_size={k}")


def max_pool1d(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq = (), padding: IntOrSeq = 0,
               dilation: IntOrSeq = 1, ceil_mode: bool = False) -> Tensor:
    """Max pooling over the last dimension of a ``(C, L)`` or ``(N, C, L)`` tensor (the functional
    form of ``ember.nn.MaxPool1d``, with aten's argument order).

    Args:
        input (Tensor): the signal, 2-D or 3-D.
        kernel_size (int or tuple): the window length.
        stride (int or tuple): the step between windows; empty (the default) means ``kernel_size``.
        padding (int or tuple): implicit ``-inf`` padding on both ends, at most half the window.
        dilation (int or tuple): the spacing between the elements of a window.
        ceil_mode (bool): round the output length up instead of down.

    Returns:
        Tensor: the maximum of each window.

    Example::

        >>> ember.max_pool1d(ember.tensor([[1., 5., 2., 4., 3.]]), 2, stride=1)
        tensor([[5., 5., 4., 4.]])
    """
    _check_max_pool1d(input, kernel_size, stride, padding, dilation)
    return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]


def max_pool2d(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq = (), padding: IntOrSeq = 0,
               dilation: IntOrSeq = 1, ceil_mode: bool = False) -> Tensor:
    """Max pooling over the last two dimensions of a ``(C, H, W)`` or ``(N, C, H, W)`` tensor.

    Args:
        input (Tensor): the image batch.
        kernel_size (int or tuple): the window height and width.
        stride (int or tuple): the step between windows; empty (the default) means ``kernel_size``.
        padding (int or tuple): implicit ``-inf`` padding on each side.
        dilation (int or tuple): the spacing between the elements of a window.
        ceil_mode (bool): round the output size up instead of down.

    Returns:
        Tensor: the maximum of each window.

    Example::

        >>> x = ember.arange(16.).reshape(1, 4, 4)
        >>> ember.max_pool2d(x, 2)
        tensor([[[ 5.,  7.],
                 [13., 15.]]])
    """
    return _kernel("max_pool2d_with_indices")(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)[0]


def max_pool3d(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq = (), padding: IntOrSeq = 0,
               dilation: IntOrSeq = 1, ceil_mode: bool = False) -> Tensor:
    """Max pooling over the last three dimensions of a ``(C, D, H, W)`` or ``(N, C, D, H, W)`` tensor.

    Args:
        input (Tensor): the volume batch.
        kernel_size (int or tuple): the window depth, height and width.
        stride (int or tuple): the step between windows; empty (the default) means ``kernel_size``.
        padding (int or tuple): implicit ``-inf`` padding on each side.
        dilation (int or tuple): the spacing between the elements of a window.
        ceil_mode (bool): round the output size up instead of down.

    Returns:
        Tensor: the maximum of each window.

    Example::

        >>> ember.max_pool3d(ember.arange(8.).reshape(1, 2, 2, 2), 2)
        tensor([[[[7.]]]])
    """
    return _kernel("max_pool3d_with_indices")(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)[0]


def avg_pool1d(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq = (), padding: IntOrSeq = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """Average pooling over the last dimension of a ``(C, L)`` or ``(N, C, L)`` tensor.

    Args:
        input (Tensor): the signal, 2-D or 3-D.
        kernel_size (int or tuple): the window length.
        stride (int or tuple): the step between windows; empty (the default) means ``kernel_size``.
        padding (int or tuple): implicit zero padding on both ends.
        ceil_mode (bool): round the output length up instead of down.
        count_include_pad (bool): whether padded zeros count in each window's divisor.

    Returns:
        Tensor: the mean of each window.

    Example::

        >>> ember.avg_pool1d(ember.tensor([[1., 3., 5., 7.]]), 2)
        tensor([[2., 6.]])
    """
    _check_rank_1d(input, "avg_pool1d")
    k, s, p, _ = _pool1d_args(kernel_size, stride, padding, 1, "avg_pool1d")
    out = _kernel("avg_pool2d")(input.unsqueeze(-2), [1, k], [1, s], [0, p], ceil_mode, count_include_pad)
    return out.squeeze(-2)


def adaptive_avg_pool1d(input: Tensor, output_size: IntOrSeq) -> Tensor:
    """Average pooling of a ``(C, L)`` or ``(N, C, L)`` tensor into ``output_size`` windows along the
    last dimension; the window bounds are chosen so that they cover the input evenly.

    Args:
        input (Tensor): the signal, 2-D or 3-D.
        output_size (int or tuple): the length of the result.

    Returns:
        Tensor: the mean of each window.

    Example::

        >>> ember.adaptive_avg_pool1d(ember.tensor([[1., 2., 3., 4., 5., 6.]]), 3)
        tensor([[1.5000, 3.5000, 5.5000]])
    """
    _check_rank_1d(input, "adaptive_avg_pool1d")
    size = _one(output_size, "adaptive_avg_pool1d", "output_size")
    return _kernel("adaptive_avg_pool2d")(input.unsqueeze(-2), [1, size]).squeeze(-2)


def adaptive_max_pool1d(input: Tensor, output_size: IntOrSeq) -> tuple[Tensor, Tensor]:
    """Max pooling of a ``(C, L)`` or ``(N, C, L)`` tensor into ``output_size`` windows along the
    last dimension, returning the maxima and their positions.

    Args:
        input (Tensor): the signal, 2-D or 3-D.
        output_size (int or tuple): the length of the result.

    Returns:
        tuple[Tensor, Tensor]: the maxima and their int64 positions along the last dimension.

    Example::

        >>> ember.adaptive_max_pool1d(ember.tensor([[1., 4., 3., 2.]]), 2)
        (tensor([[4., 3.]]), tensor([[1, 2]]))
    """
    _check_rank_1d(input, "adaptive_max_pool1d")
    size = _one(output_size, "adaptive_max_pool1d", "output_size")
    out, idx = _kernel("adaptive_max_pool2d")(input.unsqueeze(-2), [1, size])
    return out.squeeze(-2), idx.squeeze(-2)


# ------------------------------------------------------------------------------------------
# normalization: the fused core kernels, plus the saved statistics the native_* forms return
# ------------------------------------------------------------------------------------------


def batch_norm_empty(input: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    """aten's batch norm of an empty input, before any check of the other arguments: a copy, times weight[0] plus
    bias[0] to keep the autograd graph (so an empty or 0-d affine parameter is select()'s IndexError)."""
    out = input.clone()
    if weight is not None:
        out = out * weight[0]
    if bias is not None:
        out = out + bias[0]
    return out


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                  running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    """Batch norm over ``(1, N*C, *)``: every (sample, channel) pair is its own channel."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    n, c = input.shape[0], input.shape[1]

    def rep(t: Tensor | None) -> Tensor | None:
        return None if t is None else t.repeat(n)

    rm, rv = rep(running_mean), rep(running_var)
    x = input.contiguous().reshape(1, n * c, *input.shape[2:])  # aten: input.contiguous().view(...)
    if x.numel() == 0:
        return batch_norm_empty(x, rep(weight), rep(bias)).reshape(input.shape)
    out = ember.batch_norm(x, rep(weight), rep(bias), rm, rv, use_input_stats, momentum, eps, False)
    with ember.no_grad():  # fold the per-sample running statistics back into the per-channel ones
        for running, rep_stats in ((running_mean, rm), (running_var, rv)):
            if running is not None and rep_stats is not None:
                running.copy_(rep_stats.reshape(n, c).mean(0))
    return out.reshape(input.shape)


def _stats(x: Tensor, dims: tuple[int, ...], eps: float, keepdim: bool) -> tuple[Tensor, Tensor]:
    """Mean and 1/sqrt(biased var + eps) over ``dims``, computed in float32 for half types."""
    xs = x.float() if x.dtype in (ember.float16, ember.bfloat16) else x
    mean = xs.mean(dims, keepdim=keepdim)
    rstd = ember.rsqrt(xs.var(dims, unbiased=False, keepdim=keepdim) + eps)
    return mean.to(x.dtype), rstd.to(x.dtype)


def native_layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None,
                      bias: Tensor | None, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """(out, mean, rstd); mean and rstd keep the normalized dims as 1s and carry no gradient, as in PyTorch."""
    shape = list(normalized_shape)
    out = ember.layer_norm(input, shape, weight, bias, eps)  # checks the shapes
    with ember.no_grad():
        mean, rstd = _stats(input, tuple(range(input.dim() - len(shape), input.dim())), eps, True)
    return out, mean, rstd


def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                      running_var: Tensor | None, training: bool, momentum: float, eps: float) -> tuple[Tensor, ...]:
    """(out, save_mean, save_invstd): the batch statistics when training, empty tensors otherwise."""
    if training and input.dtype.is_floating_point:  # else aten's dtype error (the kernel's, below) first
        with ember.no_grad():  # before the kernel updates the running statistics; aten's InvStd: 0 for var = eps = 0
            mean, invstd = _stats(input, (0, *range(2, input.dim())), eps, False)
            invstd = invstd.masked_fill(invstd.isinf(), 0.0) if eps == 0 else invstd
    else:
        mean = invstd = ember.empty(0, dtype=input.dtype, device=input.device)
    out = ember.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)
    return out, mean, invstd


def native_group_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, N: int, C: int, HxW: int,
                      group: int, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """(out, mean, rstd) with mean and rstd of shape (N, group); all three are differentiable, as in PyTorch."""
    out = ember.group_norm(input.reshape(N, C, HxW), group, weight, bias, eps).reshape(input.shape)
    mean, rstd = _stats(input.reshape(N, group, -1), (-1,), eps, False)
    return out, mean, rstd


def rms_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """Root-mean-square normalization: divides ``input`` by the root of the mean of its squares over
    the trailing ``normalized_shape`` dimensions (plus ``eps``), then scales by ``weight``.
    Composed in ember-nn (needs that package installed).

    Args:
        input (Tensor): the tensor to normalize.
        normalized_shape (sequence of int): the trailing dimensions the statistic is taken over.
        weight (Tensor, optional): an elementwise scale of shape ``normalized_shape``.
        eps (float, optional): added under the root; None means the dtype's machine epsilon.

    Returns:
        Tensor: the normalized tensor, of ``input``'s shape.

    Example::

        >>> ember.rms_norm(ember.tensor([[3., 4.]]), [2], eps=0.0)
        tensor([[0.8485, 1.1314]])
    """
    return _nn("rms_norm").rms_norm(input, normalized_shape, weight, eps)


# ------------------------------------------------------------------------------------------
# embedding_bag: the bags come from ember-nn; the bookkeeping tensors are aten's CPU ones
# ------------------------------------------------------------------------------------------

_BAG_MODES = ("sum", "mean", "max")


def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool = False,
                  mode: int = 0, sparse: bool = False, per_sample_weights: Tensor | None = None,
                  include_last_offset: bool = False,
                  padding_idx: int | None = None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(output, offset2bag, bag_size, max_indices), as aten's CPU kernel fills them."""
    if mode not in (0, 1, 2):
        raise RuntimeError(f"embedding_bag: mode must be 0 (sum), 1 (mean) or 2 (max), but got {mode}")
    if padding_idx is not None and padding_idx < 0:
        padding_idx = None  # aten: a negative padding_idx means none
    out = _nn("embedding_bag").embedding_bag(indices, weight, offsets, None, 2, scale_grad_by_freq,
                                             _BAG_MODES[mode], sparse, per_sample_weights, include_last_offset,
                                             padding_idx)
    needs_grad = weight.requires_grad and ember.is_grad_enabled()
    with ember.no_grad():
        aux = _bag_bookkeeping(weight, indices.reshape(-1), offsets, mode, include_last_offset, padding_idx,
                               needs_grad)
    return (out, *aux)


def _bag_bookkeeping(weight: Tensor, indices: Tensor, offsets: Tensor, mode: int, include_last_offset: bool,
                     padding_idx: int | None, needs_grad: bool) -> tuple[Tensor, Tensor, Tensor]:
    n_offsets = offsets.numel()
    n_bags = n_offsets - 1 if include_last_offset else n_offsets
    pad = -1 if padding_idx is None else padding_idx
    # aten's fast float sum path fills neither offset2bag nor the bag sizes
    fast_sum = mode == 0 and pad < 0 and weight.dtype in (ember.float32, ember.float16, ember.bfloat16)
    if fast_sum:
        offset2bag = ember.empty(0, dtype=ember.int64, device=indices.device)
    else:  # bag of each index (indices past the last offset join the last bag, as aten counts them)
        positions = ember.arange(indices.numel(), device=indices.device)
        offset2bag = ember.searchsorted(offsets[:n_bags].contiguous(), positions, right=True) - 1
    if mode == 0:  # sizes unused: zeros, one per offset unless the weight will need a backward
        zeros = ember.zeros(n_bags if needs_grad else n_offsets, dtype=ember.int64, device=indices.device)
        return offset2bag, zeros, zeros.clone()
    keep = indices != pad
    bag_size = ember.zeros(n_bags, dtype=ember.int64, device=indices.device).index_add(
        0, offset2bag[keep], ember.ones(int(keep.sum()), dtype=ember.int64, device=indices.device))
    if mode == 1:
        return offset2bag, bag_size, bag_size.clone()
    rows = weight[indices]
    max_indices = ember.zeros(n_bags, weight.shape[1], dtype=ember.int64, device=indices.device)
    for b in range(n_bags):
        sel = (offset2bag == b) & keep
        if bool(sel.any()):
            max_indices[b] = indices[sel][rows[sel].argmax(0)]  # the weight row holding each column's max
    return offset2bag, bag_size, max_indices


# ------------------------------------------------------------------------------------------
# activations
# ------------------------------------------------------------------------------------------


def relu_(input: Tensor) -> Tensor:
    """Replaces the negative entries of ``input`` with zero, in place.

    Args:
        input (Tensor): the tensor to modify.

    Returns:
        Tensor: ``input`` itself.

    Example::

        >>> x = ember.tensor([-1.0, 2.0])
        >>> ember.relu_(x)
        tensor([0., 2.])
    """
    return input.relu_()


def _inplace(input: Tensor, result_of_clone: Tensor) -> Tensor:
    # the op ran on input.clone(): its saved tensors are not the tensor copy_ overwrites, so backward works
    return input.copy_(result_of_clone)


def _not_implemented_for_int(input: Tensor, kernel: str, half: bool = True) -> None:
    # half=False: a kernel dispatched over float, double and bfloat16 only (not float16)
    if not input.is_floating_point() or (not half and input.dtype == ember.float16):
        name = input.type().split(".")[-1].replace("Tensor", "")
        raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          generator: Any = None) -> Tensor:
    """Leaky relu whose negative slope is drawn from U(lower, upper) per element when training (their mean
    otherwise); as PyTorch, the slope also applies at x == 0, so the gradient there is the slope."""
    for what, v in (("lower", lower), ("upper", upper)):  # rrelu's own check; rrelu_ has none
        if not math.isfinite(v):
            raise RuntimeError(f"rrelu: {what} bound must be finite, got {float(v)}")
    return _rrelu(input, lower, upper, training, generator)


def _rrelu(input: Tensor, lower: float, upper: float, training: bool, generator: Any) -> Tensor:
    if not lower <= upper:  # NaN fails too
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return _kernel("leaky_relu")(input, (lower + upper) / 2)  # aten's eval rrelu is leaky_relu
    _not_implemented_for_int(input, "rrelu_with_noise_out_cpu", half=False)
    if input.is_meta:  # no values to draw slopes for
        return ember.empty_like(input)
    # As PyTorch's kernel: one float64 uniform u per element <= 0 (NaN draws none), in logical order, so
    # a seeded run samples the same slopes: lo + u * (hi - lo) in double, with the bounds first rounded
    # to the opmath type (float32, float64 for double input); the product is rounded once from opmath.
    # Other elements keep slope 1.
    drawn = input.detach() <= 0
    opmath = ember.float64 if input.dtype == ember.float64 else ember.float32
    lo, hi = (ember.tensor(v, dtype=opmath).item() for v in (lower, upper))
    u = ember.rand(int(drawn.sum().item()), dtype=ember.float64, generator=generator).to(input.device)
    slope = ember.ones(tuple(input.shape), dtype=opmath, device=input.device)
    slope[drawn] = (u * (hi - lo) + lo).to(opmath)
    x = input.to(opmath)
    return ember.where(x > 0, x, x * slope).to(input.dtype)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator: Any = None) -> Tensor:
    """In-place form of ``ember.rrelu``: negative entries of ``input`` are multiplied by a slope drawn
    uniformly from ``[lower, upper]`` when ``training``, by the mean of the bounds otherwise.

    Args:
        input (Tensor): the floating-point tensor to modify.
        lower (float): the smallest slope.
        upper (float): the largest slope.
        training (bool): draw a random slope per element (True) or use the mean slope (False).
        generator (Generator, optional): the random number generator to draw from.

    Returns:
        Tensor: ``input`` itself.

    Example::

        >>> ember.rrelu_(ember.tensor([-2.0, 3.0]), 0.25, 0.75)
        tensor([-1.,  3.])
    """
    no_internal_overlap(input)  # aten checks the written-to tensor before the bounds and the dtype
    return _inplace(input, _rrelu(input.clone(), lower, upper, training, generator))


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """Parametric ReLU: keeps positive entries and multiplies negative ones by ``weight``, one slope
    per channel (dimension 1) or a single shared one. Composed in ember-nn.

    Args:
        input (Tensor): the activations.
        weight (Tensor): the slopes, with one element or one per channel.

    Returns:
        Tensor: the activated tensor.

    Example::

        >>> ember.prelu(ember.tensor([-2.0, 1.0]), ember.tensor([0.5]))
        tensor([-1.,  1.])
    """
    return _nn("prelu").prelu(input, weight)


# selu's constants (aten's SELU_ALPHA / SELU_SCALE): its fixed point of zero mean and unit variance
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor) -> Tensor:
    """Scaled exponential linear unit, ``scale * (max(0, x) + min(0, alpha * (exp(x) - 1)))`` with
    the fixed constants that keep unit variance (alpha about 1.6733, scale about 1.0507).

    Args:
        input (Tensor): the activations.

    Returns:
        Tensor: the activated tensor.

    Example::

        >>> ember.selu(ember.tensor([0.0, 1.0]))
        tensor([0.0000, 1.0507])
    """
    return _kernel("elu")(input, _SELU_ALPHA, _SELU_SCALE)  # aten's selu is elu (EluBackward0)


def selu_(input: Tensor) -> Tensor:
    """In-place form of ``ember.selu``.

    Args:
        input (Tensor): the floating-point tensor to modify.

    Returns:
        Tensor: ``input`` itself.

    Example::

        >>> ember.selu_(ember.tensor([0.0, 1.0]))
        tensor([0.0000, 1.0507])
    """
    return _kernel("elu_")(input, _SELU_ALPHA, _SELU_SCALE)  # EluBackward1: backward from the result


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """Continuously differentiable exponential linear unit:
    ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Args:
        input (Tensor): the activations.
        alpha (float): the saturation value of the negative part (must not be zero).

    Returns:
        Tensor: the activated tensor.

    Example::

        >>> ember.celu(ember.tensor([-1.0, 2.0]), alpha=1.0)
        tensor([-0.6321,  2.0000])
    """
    return _kernel("celu")(input, alpha)  # elu(alpha, 1, 1 / alpha) with CeluBackward0


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place form of ``ember.celu``.

    Args:
        input (Tensor): the floating-point tensor to modify.
        alpha (float): the saturation value of the negative part.

    Returns:
        Tensor: ``input`` itself.

    Example::

        >>> ember.celu_(ember.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])
    """
    return _kernel("celu_")(input, alpha)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """Replaces every entry of ``input`` that is not greater than ``threshold`` with ``value``.

    Args:
        input (Tensor): the tensor to threshold.
        threshold (float): entries at or below it are replaced.
        value (float): the replacement.

    Returns:
        Tensor: a new tensor.

    Example::

        >>> ember.threshold(ember.tensor([0.5, 1.0, 2.0]), 1.0, -1.0)
        tensor([-1., -1.,  2.])
    """
    return _kernel("threshold")(input, threshold, value)  # the core kernel (ops/nn_activation.yaml)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In-place form of ``ember.threshold``.

    Args:
        input (Tensor): the tensor to modify.
        threshold (float): entries at or below it are replaced.
        value (float): the replacement.

    Returns:
        Tensor: ``input`` itself.

    Example::

        >>> ember.threshold_(ember.tensor([0.5, 2.0]), 1.0, 0.0)
        tensor([0., 2.])
    """
    return _inplace(input, _kernel("threshold")(input.clone(), threshold, value))


def as_aten_allocates(input: Tensor, out: Tensor) -> Tensor:
    """``out`` as aten's kernels allocate their results: in ``input``'s suggested memory format, with
    exactly its strides, and never an alias of ``input`` (a reshape that happened to be a view)."""
    fmt = _C._suggest_memory_format(input)
    aliased = out._is_view() and (out._base is input or out._base is input._base)
    if not aliased and tuple(out.stride()) == _C._memory_format_strides(out.shape, fmt):
        return out
    return out.clone(memory_format=fmt)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``(N, C, *) -> (N, g, C/g, *)``, swap the group dims, then back to ``(N, C, *)``."""
    parse_int64(groups, "channel_shuffle", "groups")
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c = input.shape[0], input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    if input.numel() == 0:  # aten: an alias, no reshape into groups (whose strides may overflow)
        return input.view(input.shape)
    rest = tuple(input.shape[2:])
    return as_aten_allocates(input, input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(input.shape))


native_channel_shuffle = channel_shuffle


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """conv_tbc(input, weight, bias, pad=0) -> Tensor

    A 1-d convolution in time-batch-channel layout (fairseq's): ``input`` is ``(T, B, C_in)``,
    ``weight`` ``(K, C_in, C_out)``, ``bias`` ``(C_out,)``; ``pad`` zeros are added at both ends of
    the time axis. Computed as aten's: one ``addmm_`` per tap onto the bias.

    Args:
        input (Tensor): the sequence, ``(time, batch, in_channels)``.
        weight (Tensor): the filters, ``(kernel_width, in_channels, out_channels)``.
        bias (Tensor): one value per output channel.
        pad (int): zeros added before and after the sequence.

    Returns ``(T + 2 * pad - K + 1, B, C_out)``.

    Example::

        >>> ember.conv_tbc(ember.ones(5, 2, 3), ember.ones(2, 3, 4), ember.zeros(4)).shape
        torch.Size([4, 2, 4])
    """
    if isinstance(pad, int) and not -(2**63) <= pad < 2**63:
        raise ValueError("Overflow when unpacking long long")  # its parser's int64, before aten's checks
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    # aten's loop, in its int types (int64 wraps, shifts are int): addmm_ per tap (its dtype errors; no 0 * inf)
    def wrap(v: int, bits: int = 64) -> int:
        return (v + 2 ** (bits - 1)) % 2**bits - 2 ** (bits - 1)
    k, t_len, batch = weight.shape[0], input.shape[0], input.shape[1]
    o_len = wrap(t_len - k + 1 + pad * 2)
    span = wrap(o_len - t_len + k - 1)
    real_pad = -(-span // 2) if span < 0 else span // 2  # C's division truncates towards zero
    out = ember.empty((o_len, batch, weight.shape[2]), dtype=input.dtype, device=input.device).copy_(
        bias.expand(o_len, batch, -1))
    for i in range(k):
        i_shift, o_shift = max(0, wrap(i - real_pad, 32)), max(0, wrap(real_pad - i, 32))
        t = wrap(min(wrap(t_len + real_pad - i), o_len) - o_shift)
        if t > 0:
            rows = input.narrow(0, i_shift, t).view(t * batch, input.shape[2])
            out.narrow(0, o_shift, t).view(t * batch, weight.shape[2]).addmm_(rows, weight[i])
    return out
