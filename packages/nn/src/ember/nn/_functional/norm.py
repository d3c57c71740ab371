"""Normalization functionals: layer / batch / group norm run fused core kernels; instance norm
is the top-level op (batch norm over (1, N*C, *)); rms and local response norm are composed from core ops."""

from __future__ import annotations

from collections.abc import Sequence

import ember
from ember import Tensor
from ember._toplevel_nn import batch_norm_empty
from ember.nn._functional._checks import float_kernel, parse_int64


def _shape_list(normalized_shape: int | Sequence[int]) -> list[int]:
    return [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)


def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Layer normalization: normalizes ``input`` over its trailing ``normalized_shape`` dimensions
    to zero mean and unit variance, then applies the elementwise ``weight`` and ``bias``.

    Args:
        input (Tensor): ``(*, *normalized_shape)``.
        normalized_shape (sequence of int): the trailing dimensions to normalize over.
        weight (Tensor, optional): scales of shape ``normalized_shape``.
        bias (Tensor, optional): shifts of shape ``normalized_shape``.
        eps (float): added to the variance.

    Example::

        >>> F.layer_norm(ember.tensor([[1.0, 3.0]]), [2], eps=0.0)
        tensor([[-1.,  1.]])
    """
    return ember.layer_norm(input, _shape_list(normalized_shape), weight, bias, eps)


def _verify_batch_size(size: Sequence[int]) -> None:
    n = size[0]
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float | None = 0.1, eps: float = 1e-5) -> Tensor:
    """Batch normalization: normalizes every channel (dimension 1) of ``input`` to zero mean and unit
    variance, then scales by ``weight`` and shifts by ``bias``. When ``training``, the statistics
    come from the batch and update ``running_mean``/``running_var`` by ``momentum``; otherwise the
    running statistics are used.

    Args:
        input (Tensor): ``(N, C, *)``.
        running_mean (Tensor, optional): ``(C,)`` running means.
        running_var (Tensor, optional): ``(C,)`` running variances.
        weight (Tensor, optional): ``(C,)`` scales.
        bias (Tensor, optional): ``(C,)`` shifts.
        training (bool): use (and update with) the batch statistics.
        momentum (float, optional): the running statistics' update rate (None: a cumulative average).
        eps (float): added to the variance.

    Example::

        >>> F.batch_norm(ember.tensor([[1.0], [3.0]]), None, None, training=True)
        tensor([[-1.0000],
                [ 1.0000]])
    """
    if training:
        _verify_batch_size(input.shape)
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if not isinstance(training, bool):  # ember.batch_norm's parser would say so; the empty path skips it
        raise TypeError(f"batch_norm(): argument 'training' (position 6) must be bool, not {type(training).__name__}")
    if input.numel() == 0:
        return batch_norm_empty(input, weight, bias)
    m = 0.0 if momentum is None else momentum
    return ember.batch_norm(input, weight, bias, running_mean, running_var, training, m, eps, False)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Group normalization: splits the channels into ``num_groups`` groups and normalizes every
    ``(sample, group)`` to zero mean and unit variance, then applies the per-channel
    ``weight`` and ``bias``. Independent of the batch size.

    Args:
        input (Tensor): ``(N, C, *)``, with ``C`` divisible by ``num_groups``.
        num_groups (int): the number of groups.
        weight (Tensor, optional): ``(C,)`` scales.
        bias (Tensor, optional): ``(C,)`` shifts.
        eps (float): added to the variance.
    """
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    # torch.nn.functional's own check, before the kernel's divisibility rule (num_groups=0 divides by zero)
    _verify_batch_size([input.shape[0] * input.shape[1] // num_groups, num_groups, *input.shape[2:]])
    return ember.group_norm(input, num_groups, weight, bias, eps)


def _verify_spatial_size(size: Sequence[int]) -> None:
    n = 1
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Instance normalization: normalizes every ``(sample, channel)`` map of ``input`` over its
    spatial dimensions, then applies the per-channel ``weight`` and ``bias``.

    Args:
        input (Tensor): ``(N, C, *)``.
        running_mean (Tensor, optional): ``(C,)`` running means, updated when given.
        running_var (Tensor, optional): ``(C,)`` running variances, updated when given.
        weight (Tensor, optional): ``(C,)`` scales.
        bias (Tensor, optional): ``(C,)`` shifts.
        use_input_stats (bool): use the statistics of the input (True) or the running ones.
        momentum (float): the running statistics' update rate.
        eps (float): added to the variance.
    """
    if use_input_stats:
        _verify_spatial_size(input.shape)
    return ember.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                               False)


def rms_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """x / sqrt(mean(x^2) + eps) (* weight), computed in float32 for float16/bfloat16 and rounded once,
    as PyTorch (whose default eps is then float32's machine epsilon)."""
    parse_int64(normalized_shape, "rms_norm", "normalized_shape")
    shape = _shape_list(normalized_shape)
    k = len(shape)
    if weight is not None and list(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {shape}")
    if input.dim() < k:  # torch.rms_norm's own check, between aten's weight and input-shape checks
        raise ValueError(f"Input tensor must have at least {k} dimensions, but got {input.dim()}")
    if list(input.shape[input.dim() - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={shape}, expected input with shape [*"
                           f"{', '.join(str(s) for s in shape)}], but got input of size{input.shape}")
    float_kernel(input, "rms_norm", (ember.complex64, ember.complex128))  # complex: x * x, as aten's pow(2)
    x = input.float() if input.dtype in (ember.float16, ember.bfloat16) else input
    if eps is None:  # finfo(x.dtype).eps
        eps = 2.220446049250313e-16 if x.dtype in (ember.float64, ember.complex128) else 1.1920928955078125e-07
    dims = tuple(range(input.dim() - k, input.dim()))
    out = x * ember.rsqrt((x * x).mean(dims, keepdim=True) + eps)
    if weight is not None:
        out = out * weight
    return out.to(input.dtype)  # aten's type_as(input): a float64 weight does not promote the result


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """Local response normalization: divides every element by
    ``(k + alpha / size * sum of squares over the size neighbouring channels) ** beta``.

    Args:
        input (Tensor): ``(N, C, *)``.
        size (int): how many neighbouring channels to sum over.
        alpha (float): the multiplier of the sum.
        beta (float): the exponent.
        k (float): the additive constant.
    """
    # torch.nn.functional's composite, op for op: an average pool over the zero-padded channel window (so
    # integer inputs get aten's integer pooling, or its dtype errors)
    from ember.nn._functional.padding import pad
    from ember.nn._functional.pooling import avg_pool2d, avg_pool3d

    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} "
                         "dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.shape
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


