"""Fractional max pooling (Graham, 2014): windows of a fixed size at pseudo-random, increasing
starts, one sequence per plane drawn from ``_random_samples`` by PyTorch's rule, so the same
samples pick the same windows as PyTorch. The window maxima are found with tensor ops (a gather
of every window, an argmax) and the result is a gather of the input at their flat indices: its
gradient scatter-adds into the input as PyTorch's backward does."""

from __future__ import annotations

from typing import Any

import ember
from ember import Tensor

_AXES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _ints(v: Any, n: int, what: str, name: str) -> list[int]:
    v = [v] * n if isinstance(v, int) else list(v)
    if any(isinstance(x, int) and not -(2**63) <= x < 2**63 for x in v):
        raise ValueError("Overflow when unpacking long long")  # PyTorch's parser, before any check
    if len(v) == 1:
        v = v * n
    if len(v) != n:
        tail = "Ints" if n == 2 else "three Ints"
        raise RuntimeError(f"{name}: {what} must either be a single Int or tuple of {tail}")
    return [int(x) for x in v]


def _intervals(samples: Tensor, size: int, out: int, pool: int) -> Tensor:
    """(planes, out) window starts from one sample per plane, in the samples' dtype as aten's
    generate_intervals computes them (``int((i + u) * alpha) - int(u * alpha)``, the last at size - pool)."""
    planes, dev = samples.shape[0], samples.device
    if out == 0:
        return ember.zeros(planes, 0, dtype=ember.int64, device=dev)
    if out == 1:
        return ember.full((planes, 1), size - pool, dtype=ember.int64, device=dev)
    dt = samples.dtype
    alpha = ember.tensor(float(size - pool), dtype=dt) / ember.tensor(float(out - 1), dtype=dt)  # 0-d: numbers
    i = ember.arange(out, dtype=dt, device=dev)
    u = samples.unsqueeze(1)
    seq = ((i + u) * alpha).trunc().long() - (u * alpha).trunc().long()
    seq[:, -1] = size - pool
    return seq


def _fractional_max_pool(input: Tensor, n: int, kernel_size: Any, output_size: Any,
                         samples: Tensor) -> tuple[Tensor, Tensor]:
    name = f"fractional_max_pool{n}d"
    meta = name if n == 2 else name + "_out"
    _ints(output_size, n, "output_size", name)  # the parser reads both lists before any check
    k = _ints(kernel_size, n, "kernel_size", name)
    out = _ints(output_size, n, "output_size", name)
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{meta}(): Expected {n + 1}D or {n + 2}D tensor, but got: {list(input.shape)}")
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"{meta}(): Expected input to have non-zero size for non-batch dimensions, but got"
                               f"{list(input.shape)} with dimension {d} being empty.")
    batched = input.dim() == n + 2
    x = input if batched else input.unsqueeze(0)
    nb, ch, sizes = x.shape[0], x.shape[1], list(x.shape[2:])
    for axis, o, kk, s in zip(_AXES[n], out, k, sizes):
        # aten has no lower bound: an empty window gives -inf at an index outside the plane, and a
        # kernel near -2**31 hangs it (torch_known_wrong fractional-max-pool-nonpositive-kernel)
        if kk <= 0:
            raise RuntimeError(f"{meta}(): kernel_size must be greater than zero, but got pool {axis} {kk}")
        # aten's 3-d check is strict (o + k - 1 < s): windows that exactly fit are refused there too
        if o + kk - 1 > s or (n == 3 and o + kk - 1 == s):
            raise RuntimeError(f"{meta}(): pool {axis} {kk} too large relative to input {axis} {s}")
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    if samples.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got {samples.shape[2]}.")
    if samples.shape[1] != ch:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[0] < nb:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if min(out) < 0:
        shape = list(input.shape[:-n]) + out
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: {shape}")
    planes = nb * ch
    lead = list(input.shape[:-n])
    if planes == 0 or _prod(out) == 0:  # aten returns before its float-only dispatch
        return (ember.empty(lead + out, dtype=input.dtype, device=input.device),
                ember.empty(lead + out, dtype=ember.int64, device=input.device))
    if not input.is_floating_point():
        raise NotImplementedError(f'"{name}_out_frame" not implemented for \'{_dtype_name(input.dtype)}\'')
    u = samples[:nb].reshape(planes, n).detach()
    # aten: sample 0 drives the width (2-d) or the time dim (3-d)
    order = [1, 0] if n == 2 else [0, 1, 2]
    starts = [_intervals(u[:, order[d]].contiguous(), sizes[d], out[d], k[d]) for d in range(n)]
    # flat index (within the plane) of every window element: (planes, *out, *k)
    strides = [1] * n
    for d in range(n - 2, -1, -1):
        strides[d] = strides[d + 1] * sizes[d + 1]
    idx = ember.zeros([planes] + [1] * (2 * n), dtype=ember.int64, device=input.device)
    for d in range(n):
        pos = starts[d].unsqueeze(-1) + ember.arange(k[d], device=input.device)  # (planes, out_d, k_d)
        shape = [planes] + [1] * (2 * n)
        shape[1 + d], shape[1 + n + d] = out[d], k[d]
        idx = idx + (pos * strides[d]).reshape(shape)
    flat = x.reshape(planes, -1)
    kk = _prod(k)
    win = idx.reshape(planes, _prod(out), kk)
    with ember.no_grad():
        cand = flat.gather(1, win.reshape(planes, -1)).reshape(planes, _prod(out), kk)
        best = _argmax_nan_last(cand)
    ind = win.gather(2, best.unsqueeze(-1)).squeeze(-1)
    vals = flat.gather(1, ind)
    return vals.reshape(lead + out), ind.reshape(lead + out)


def _argmax_nan_last(cand: Tensor) -> Tensor:
    """Index of each row's maximum, the first of equal maxima (aten's ``v > max`` scan); a NaN wins,
    the last NaN of the row (aten's ``|| isnan(v)`` keeps replacing it)."""
    best = cand.argmax(-1)
    if cand.is_meta:  # no values, so no NaN to look for: the shape is all a meta result has
        return best
    nan = cand.isnan()
    if bool(nan.any()):
        k = cand.shape[-1]
        last = (k - 1) - nan.flip(-1).long().argmax(-1)
        best = ember.where(nan.any(-1), last, best)
    return best


def _prod(v: list[int]) -> int:
    r = 1
    for x in v:
        r *= x
    return r


def _dtype_name(dt: Any) -> str:
    return {ember.int64: "Long", ember.int32: "Int", ember.int16: "Short", ember.int8: "Char",
            ember.uint8: "Byte", ember.bool: "Bool"}.get(dt, str(dt))


def _samples(input: Tensor, n: int, random_samples: Tensor | None) -> Tensor:
    if random_samples is not None:
        return random_samples
    if not input.is_floating_point():
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{_dtype_name(input.dtype)}'")
    nb = 1 if input.dim() == n + 1 else input.shape[0]
    return ember.rand(nb, input.size(-n - 1), n, dtype=input.dtype, device=input.device)


def _output_size(input: Tensor, n: int, output_size: Any, output_ratio: Any) -> Any:
    name = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        return output_size
    ratio = [output_ratio] * n if isinstance(output_ratio, (int, float)) else list(output_ratio)
    if len(ratio) > n:
        raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
    if len(ratio) == 1:
        ratio = ratio * n
    return [int(input.shape[-n + d] * ratio[d]) for d in range(n)]


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """Fractional max pooling of 2-d planes, returning the maxima and their indices.

    Fractional max pooling over ``(N, C, H, W)`` (or ``(C, H, W)``) input: windows of
    ``kernel_size`` at pseudo-random increasing positions, one random sequence per plane, so the
    output size need not divide the input size. Returns the maxima and their flat indices within
    each ``H x W`` plane.

    Args:
        input: the images.
        kernel_size: the window size (one int or ``(kH, kW)``).
        output_size: the output ``(oH, oW)``; or give ``output_ratio``.
        output_ratio: the output size as a fraction of the input size, in ``(0, 1)``.
        return_indices: unused here (both are returned); kept for PyTorch's signature.
        _random_samples: ``(N, C, 2)`` samples in ``[0, 1)`` that place the windows (drawn when None).

    Returns:
        (Tensor, Tensor): the pooled values and their int64 indices.

    Example::

        >>> x = ember.arange(16.).view(1, 1, 4, 4)
        >>> u = ember.tensor([[[0.9, 0.1]]])
        >>> ember.nn.functional.fractional_max_pool2d_with_indices(x, 2, output_size=2, _random_samples=u)[1]
        tensor([[[[ 5,  7],
                  [13, 15]]]])
    """
    size = _output_size(input, 2, output_size, output_ratio)
    return _fractional_max_pool(input, 2, kernel_size, size, _samples(input, 2, _random_samples))


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """Fractional max pooling of 3-d volumes, returning the maxima and their indices.

    Fractional max pooling over ``(N, C, T, H, W)`` (or ``(C, T, H, W)``) input: windows of
    ``kernel_size`` at pseudo-random increasing positions, one random sequence per plane. Returns
    the maxima and their flat indices within each ``T x H x W`` volume.

    Args:
        input: the volumes.
        kernel_size: the window size (one int or ``(kT, kH, kW)``).
        output_size: the output ``(oT, oH, oW)``; or give ``output_ratio``.
        output_ratio: the output size as a fraction of the input size, in ``(0, 1)``.
        return_indices: unused here (both are returned); kept for PyTorch's signature.
        _random_samples: ``(N, C, 3)`` samples in ``[0, 1)`` that place the windows (drawn when None).

    Returns:
        (Tensor, Tensor): the pooled values and their int64 indices.

    Example::

        >>> x = ember.arange(8.).view(1, 1, 2, 2, 2)
        >>> ember.nn.functional.fractional_max_pool3d_with_indices(x, 1, output_size=1)[0].shape
        torch.Size([1, 1, 1, 1, 1])
    """
    size = _output_size(input, 3, output_size, output_ratio)
    return _fractional_max_pool(input, 3, kernel_size, size, _samples(input, 3, _random_samples))


def fractional_max_pool2d(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                          return_indices: bool = False, _random_samples: Tensor | None = None) -> Any:
    """Fractional max pooling of 2-d planes (the maxima, and their indices on request).

    Fractional max pooling over ``(N, C, H, W)`` input (see
    ``fractional_max_pool2d_with_indices``): the pooled values, and their indices too when
    ``return_indices``.

    Args:
        input: the images.
        kernel_size: the window size (one int or ``(kH, kW)``).
        output_size: the output ``(oH, oW)``; or give ``output_ratio``.
        output_ratio: the output size as a fraction of the input size.
        return_indices: also return the flat indices of the maxima.
        _random_samples: ``(N, C, 2)`` samples that place the windows (drawn when None).

    Returns:
        Tensor, or (Tensor, Tensor) with ``return_indices``.

    Example::

        >>> ember.nn.functional.fractional_max_pool2d(ember.ones(1, 1, 5, 5), 2, output_ratio=0.5).shape
        torch.Size([1, 1, 2, 2])
    """
    r = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                           _random_samples)
    return r if return_indices else r[0]


def fractional_max_pool3d(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                          return_indices: bool = False, _random_samples: Tensor | None = None) -> Any:
    """Fractional max pooling of 3-d volumes (the maxima, and their indices on request).

    Fractional max pooling over ``(N, C, T, H, W)`` input (see
    ``fractional_max_pool3d_with_indices``): the pooled values, and their indices too when
    ``return_indices``.

    Args:
        input: the volumes.
        kernel_size: the window size (one int or ``(kT, kH, kW)``).
        output_size: the output ``(oT, oH, oW)``; or give ``output_ratio``.
        output_ratio: the output size as a fraction of the input size.
        return_indices: also return the flat indices of the maxima.
        _random_samples: ``(N, C, 3)`` samples that place the windows (drawn when None).

    Returns:
        Tensor, or (Tensor, Tensor) with ``return_indices``.

    Example::

        >>> ember.nn.functional.fractional_max_pool3d(ember.ones(1, 1, 4, 4, 4), 2, output_size=2).shape
        torch.Size([1, 1, 2, 2, 2])
    """
    r = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                           _random_samples)
    return r if return_indices else r[0]
