"""The batch-norm statistics functions SyncBatchNorm is built from: per-process statistics
(batch_norm_stats), their merge across processes (batch_norm_gather_stats[_with_counts]), the
normalization (batch_norm_elemt), the backward's reductions and element-wise step
(batch_norm_backward_reduce / _elemt), and batch_norm_update_stats.

PyTorch runs all but batch_norm_update_stats on CUDA only; ember gives them their CUDA
definitions on the CPU, composed from its reductions: statistics of a float16/bfloat16 input
are float32 (the accumulation type), the merge is Chan's parallel-variance formula, and
``invstd`` is ``1 / sqrt(biased_var + eps)``. The channel dim is dim 1."""

from __future__ import annotations

from typing import Any

import ember
from ember._out import write
from ember._tensor import Tensor

__all__ = ["batch_norm_backward_elemt", "batch_norm_backward_reduce", "batch_norm_elemt", "batch_norm_gather_stats",
           "batch_norm_gather_stats_with_counts", "batch_norm_stats", "batch_norm_update_stats"]

_LOW = (ember.float16, ember.bfloat16)


def _acc(dtype: Any) -> Any:
    return ember.float32 if dtype in _LOW else dtype


def _dims(input: Tensor, name: str) -> list[int]:
    if input.dim() < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(input.dim(), 1)}, "
                         f"{max(input.dim(), 1) - 1}], but got 1)")
    if not input.is_floating_point():
        raise NotImplementedError(f'"{name}" not implemented for \'{_type_name(input.dtype)}\'')
    if input.numel() == 0:
        raise RuntimeError(f"input tensor must have at least one element, but got input_sizes = {list(input.shape)}")
    return [0, *range(2, input.dim())]


def _type_name(dtype: Any) -> str:
    from ember._composite_pointwise import _pretty

    return _pretty(dtype)


def _per_channel(t: Tensor, input: Tensor) -> Tensor:
    """A per-channel vector shaped to broadcast against input (channels on dim 1)."""
    return t.reshape([1, -1] + [1] * (input.dim() - 2))


def batch_norm_stats(input: Tensor, eps: float) -> tuple[Tensor, Tensor]:
    """batch_norm_stats(input, eps) -> tuple

    The mean and inverse standard deviation ``1 / sqrt(var + eps)`` (biased variance) of each
    channel (dim 1) of ``input`` over every other dim: one process's share of SyncBatchNorm's
    statistics.

    Args:
        input (Tensor): a floating-point tensor of at least 2 dims.
        eps (float): added to the variance.

    Returns:
        tuple: ``(mean, invstd)``, 1-d of size ``input.size(1)``, float32 for float16 / bfloat16 input.

    Example::

        >>> mean, invstd = ember.batch_norm_stats(ember.tensor([[1., 2.], [3., 6.]]), 0.0)
        >>> mean, invstd
        (tensor([2., 4.]), tensor([1.0000, 0.5000]))
    """
    dims = _dims(input, "batch_norm_stats")
    var, mean = ember.var_mean(input.to(_acc(input.dtype)), dims, correction=0)
    return mean, (var + eps).rsqrt()


def batch_norm_elemt(input: Tensor, weight: Tensor | None, bias: Tensor | None, mean: Tensor, invstd: Tensor,
                     eps: float, *, out: Tensor | None = None) -> Tensor:
    """batch_norm_elemt(input, weight, bias, mean, invstd, eps, *, out=None) -> Tensor

    Normalizes ``input`` with given per-channel statistics: ``(input - mean) * invstd * weight
    + bias`` (``eps`` is already inside ``invstd``).

    Args:
        input (Tensor): the tensor normalized, channels on dim 1.
        weight (Tensor, optional): the per-channel scale (1 when None).
        bias (Tensor, optional): the per-channel shift (0 when None).
        mean (Tensor): the per-channel mean.
        invstd (Tensor): the per-channel inverse standard deviation.
        eps (float): unused (kept for PyTorch's signature).
        out (Tensor, optional): the output tensor.

    Returns:
        Tensor: the normalized tensor, input's dtype and shape.

    Example::

        >>> x = ember.tensor([[1., 2.], [3., 6.]])
        >>> ember.batch_norm_elemt(x, None, None, ember.tensor([2., 4.]), ember.tensor([1., .5]), 0.0)
        tensor([[-1., -1.],
                [ 1.,  1.]])
    """
    acc = _acc(input.dtype)
    scale = invstd.to(acc) if weight is None else invstd.to(acc) * weight.to(acc)
    shift = -mean.to(acc) * scale if bias is None else bias.to(acc) - mean.to(acc) * scale
    y = ember.addcmul(_per_channel(shift, input), input.to(acc), _per_channel(scale, input)).to(input.dtype)
    return write(y, out)


def batch_norm_gather_stats_with_counts(input: Tensor, mean: Tensor, invstd: Tensor, running_mean: Tensor | None,
                                        running_var: Tensor | None, momentum: float, eps: float,
                                        counts: Tensor) -> tuple[Tensor, Tensor]:
    """batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps, counts) -> tuple

    Merges per-process statistics (rows of ``mean`` and ``invstd``, from ``batch_norm_stats``,
    over ``counts`` elements each) into the global mean and inverse standard deviation, and
    updates the running statistics in place with momentum (the running variance unbiased).

    Args:
        input (Tensor): the local input (only its dtype matters).
        mean (Tensor): ``(world_size, C)`` per-process means.
        invstd (Tensor): ``(world_size, C)`` per-process inverse standard deviations.
        running_mean (Tensor, optional): updated in place.
        running_var (Tensor, optional): updated in place.
        momentum (float): the weight of the new statistics in the running ones.
        eps (float): the epsilon inside ``invstd``.
        counts (Tensor): ``(world_size,)`` element counts per channel of each process.

    Returns:
        tuple: ``(mean, invstd)`` of the whole batch, 1-d of size C.

    Example::

        >>> m, s = ember.batch_norm_gather_stats_with_counts(
        ...     ember.empty(0), ember.tensor([[0.], [2.]]), ember.tensor([[1.], [1.]]), None, None, 0.1, 0.0,
        ...     ember.tensor([1., 1.]))
        >>> m, s
        (tensor([1.]), tensor([0.7071]))
    """  # noqa: E501  (the signature line autodoc reads must be one line)
    acc = ember.float64 if mean.dtype == ember.float64 else ember.float32
    m, s = mean.to(acc), invstd.to(acc)
    c = counts.to(acc).reshape(-1, 1)
    n = c.sum(0)
    avg = (c * m).sum(0) / n
    var_local = 1.0 / (s * s) - eps  # each process's biased variance
    var_n = (c * (var_local + (m - avg) ** 2)).sum(0)  # the sum of squared deviations, as Chan's merge gives
    out_mean, out_invstd = avg.to(mean.dtype), (var_n / n + eps).rsqrt().to(mean.dtype)
    with ember.no_grad():
        if running_mean is not None:
            running_mean.copy_((1 - momentum) * running_mean.to(acc) + momentum * avg)
        if running_var is not None:
            running_var.copy_((1 - momentum) * running_var.to(acc) + momentum * (var_n / (n - 1)))
    return out_mean, out_invstd


def batch_norm_gather_stats(input: Tensor, mean: Tensor, invstd: Tensor, running_mean: Tensor | None,
                            running_var: Tensor | None, momentum: float, eps: float,
                            count: int) -> tuple[Tensor, Tensor]:
    """batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps, count) -> tuple

    ``batch_norm_gather_stats_with_counts`` with every process holding ``count`` elements.

    Args:
        input (Tensor): the local input (only its dtype matters).
        mean (Tensor): ``(world_size, C)`` per-process means.
        invstd (Tensor): ``(world_size, C)`` per-process inverse standard deviations.
        running_mean (Tensor, optional): updated in place.
        running_var (Tensor, optional): updated in place.
        momentum (float): the weight of the new statistics in the running ones.
        eps (float): the epsilon inside ``invstd``.
        count (int): the element count per channel of each process.

    Returns:
        tuple: ``(mean, invstd)`` of the whole batch.

    Example::

        >>> ember.batch_norm_gather_stats(ember.empty(0), ember.tensor([[0.], [2.]]), ember.tensor([[1.], [1.]]),
        ...                               None, None, 0.1, 0.0, 1)
        (tensor([1.]), tensor([0.7071]))
    """
    counts = ember.full((mean.shape[0],), count, dtype=mean.dtype, device=mean.device)
    return batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps, counts)


def batch_norm_backward_reduce(grad_out: Tensor, input: Tensor, mean: Tensor, invstd: Tensor,
                               weight: Tensor | None, input_g: bool, weight_g: bool,
                               bias_g: bool) -> tuple[Any, Any, Any, Any]:
    """batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g, bias_g) -> tuple

    The per-channel reductions of batch norm's backward: ``sum_dy = sum(grad_out)`` and
    ``sum_dy_xmu = sum(grad_out * (input - mean))`` (when ``input_g``), ``grad_weight =
    sum_dy_xmu * invstd`` (when ``weight_g``) and ``grad_bias = sum_dy`` (when ``bias_g``);
    the outputs not asked for are None.

    Args:
        grad_out (Tensor): the gradient of the output.
        input (Tensor): the forward's input.
        mean (Tensor): the per-channel mean used forward.
        invstd (Tensor): the per-channel inverse standard deviation used forward.
        weight (Tensor, optional): the per-channel scale (its dtype is the gradients').
        input_g (bool): whether to compute ``sum_dy`` and ``sum_dy_xmu``.
        weight_g (bool): whether to compute ``grad_weight``.
        bias_g (bool): whether to compute ``grad_bias``.

    Returns:
        tuple: ``(sum_dy, sum_dy_xmu, grad_weight, grad_bias)``.

    Example::

        >>> x = ember.tensor([[1., 2.], [3., 6.]])
        >>> ember.batch_norm_backward_reduce(ember.ones(2, 2), x, ember.tensor([2., 4.]), ember.tensor([1., .5]),
        ...                                  None, True, False, True)
        (tensor([2., 2.]), tensor([0., 0.]), None, tensor([2., 2.]))
    """
    dims = _dims(input, "batch_norm_backward_reduce")
    acc = _acc(mean.dtype)
    dy = grad_out.to(acc)
    sum_dy = dy.sum(dims)
    sum_dy_xmu = (dy * (input.to(acc) - _per_channel(mean.to(acc), input))).sum(dims)
    wdtype = weight.dtype if weight is not None else mean.dtype
    grad_weight = (sum_dy_xmu * invstd.to(acc)).to(wdtype) if weight_g else None
    grad_bias = sum_dy.to(wdtype) if bias_g else None
    if not input_g:
        return None, None, grad_weight, grad_bias
    return sum_dy.to(mean.dtype), sum_dy_xmu.to(mean.dtype), grad_weight, grad_bias


def batch_norm_backward_elemt(grad_out: Tensor, input: Tensor, mean: Tensor, invstd: Tensor, weight: Tensor | None,
                              sum_dy: Tensor, sum_dy_xmu: Tensor, count: Tensor) -> Tensor:
    """batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu, count) -> Tensor

    Batch norm's input gradient from the reductions of ``batch_norm_backward_reduce`` summed
    over every process, with ``N = count.sum()`` elements per channel in all:
    ``(grad_out - sum_dy / N - (input - mean) * invstd**2 * sum_dy_xmu / N) * invstd * weight``.

    Args:
        grad_out (Tensor): the gradient of the output.
        input (Tensor): the forward's input.
        mean (Tensor): the per-channel mean used forward.
        invstd (Tensor): the per-channel inverse standard deviation used forward.
        weight (Tensor, optional): the per-channel scale (1 when None).
        sum_dy (Tensor): the all-reduced ``sum_dy``.
        sum_dy_xmu (Tensor): the all-reduced ``sum_dy_xmu``.
        count (Tensor): the element counts per channel of every process.

    Returns:
        Tensor: the gradient of ``input``, its dtype and shape.

    Example::

        >>> x = ember.tensor([[1., 2.], [3., 6.]])
        >>> ember.batch_norm_backward_elemt(ember.ones(2, 2), x, ember.tensor([2., 4.]), ember.tensor([1., .5]), None,
        ...                                 ember.tensor([2., 2.]), ember.tensor([0., 0.]), ember.tensor([2]))
        tensor([[0., 0.],
                [0., 0.]])
    """
    acc = _acc(mean.dtype)
    norm = 1.0 / count.to(acc).sum()
    m, s = _per_channel(mean.to(acc), input), _per_channel(invstd.to(acc), input)
    mean_dy = _per_channel(sum_dy.to(acc), input) * norm
    mean_dy_xmu = _per_channel(sum_dy_xmu.to(acc), input) * norm
    scale = s if weight is None else s * _per_channel(weight.to(acc), input)
    g = (grad_out.to(acc) - mean_dy - (input.to(acc) - m) * (s * s) * mean_dy_xmu) * scale
    return g.to(input.dtype)


def batch_norm_update_stats(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
                            momentum: float) -> tuple[Tensor, Tensor]:
    """batch_norm_update_stats(input, running_mean, running_var, momentum) -> tuple

    The per-channel mean and biased variance of ``input`` (channels on dim 1), with the running
    statistics updated in place: ``running = (1 - momentum) * running + momentum * new``, the
    running variance taking the unbiased variance.

    Args:
        input (Tensor): a floating-point tensor of at least 2 dims.
        running_mean (Tensor, optional): updated in place.
        running_var (Tensor, optional): updated in place.
        momentum (float): the weight of the new statistics.

    Returns:
        tuple: ``(mean, var)``, in the running statistics' dtype when given, else input's.

    Example::

        >>> rm, rv = ember.zeros(2), ember.ones(2)
        >>> ember.batch_norm_update_stats(ember.tensor([[1., 2.], [3., 6.]]), rm, rv, 0.5)
        (tensor([2., 4.]), tensor([1., 4.]))
        >>> rm, rv
        (tensor([1., 2.]), tensor([1.5000, 4.5000]))
    """
    dims = _dims(input, "batch_norm_update_stats_cpu")
    for name, r in (("running_mean", running_mean), ("running_var", running_var)):
        if r is not None and r.numel() != input.shape[1]:
            raise RuntimeError(f"batch_norm_update_stats: {name} should contain {input.shape[1]} elements not "
                               f"{r.numel()}")
    stats = running_mean if running_mean is not None else running_var
    out_dtype = stats.dtype if stats is not None else input.dtype
    acc = ember.float64 if input.dtype == ember.float64 else ember.float32
    var, mean = ember.var_mean(input.to(acc), dims, correction=0)
    n = input.numel() // input.shape[1]
    with ember.no_grad():
        if running_mean is not None:
            running_mean.copy_((1 - momentum) * running_mean.to(acc) + momentum * mean)
        if running_var is not None:
            unbiased = var * n / (n - 1) if n > 1 else ember.full_like(var, float("nan"))
            running_var.copy_((1 - momentum) * running_var.to(acc) + momentum * unbiased)
    return mean.to(out_dtype), var.to(out_dtype)

