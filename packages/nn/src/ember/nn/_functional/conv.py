"""Convolutions (``ember.conv*d`` are the core ops), ``unfold`` / ``fold`` (im2col / col2im) and
pixel (un)shuffle. unfold gathers every kernel position through one flat index (``index_select``;
positions in the zero padding masked to 0, the padded input never made); fold scatters back through
its index (``index_add``), so each is the other's derivative."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ember
from ember import Tensor
from ember.nn._functional._checks import float_kernel, parse_int64

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "unfold", "fold",
           "pixel_shuffle", "pixel_unshuffle"]

conv1d = ember.conv1d
conv2d = ember.conv2d
conv3d = ember.conv3d
conv_transpose1d = ember.conv_transpose1d
conv_transpose2d = ember.conv_transpose2d
conv_transpose3d = ember.conv_transpose3d
pixel_shuffle = ember.pixel_shuffle
pixel_unshuffle = ember.pixel_unshuffle

_Size = int | Sequence[int]
_IM2COL_ALSO = (ember.bool, ember.complex64, ember.complex128)  # im2col/col2im dispatch: float, complex, bool


def _pairs(op: str, **args: _Size) -> list[tuple[int, int]]:
    """torch.nn.functional's _pair (an int twice, a sequence as it is), then im2col / col2im's parser (ints
    beyond int64) and their own check that each argument has two entries, in the op's argument order."""
    pairs = {k: (v, v) if isinstance(v, int) else tuple(v) for k, v in args.items()}
    for k, v in pairs.items():
        parse_int64(v, op, k)
    for k, v in pairs.items():
        if len(v) != 2:
            raise RuntimeError(f"It is expected {k} equals to 2, but got size {len(v)}")
    return [tuple(int(x) for x in v) for v in pairs.values()]


def _check_args(kernel: tuple, dilation: tuple, padding: tuple, stride: tuple, im2col: bool) -> None:
    # aten's im2col checks kernel, dilation, padding, stride; col2im kernel, stride, dilation, padding
    def positive(name: str, short: str, v: tuple) -> None:
        if not all(x > 0 for x in v):
            raise RuntimeError(f"{name} should be greater than zero, but got {short}_height: {v[0]} "
                               f"{short}_width: {v[1]}")

    def pad() -> None:
        if any(p < 0 for p in padding):
            raise RuntimeError(f"padding should be non-negative, but got pad_height: {padding[0]} "
                               f"pad_width: {padding[1]}")
    positive("kernel size", "kernel", kernel)
    if im2col:
        positive("dilation", "dilation", dilation)
        pad()
        positive("stride", "stride", stride)
    else:
        positive("stride", "stride", stride)
        positive("dilation", "dilation", dilation)
        pad()


def _blocks(size: tuple, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple) -> tuple[int, int]:
    return tuple((size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in (0, 1))


def _flat_index(padded: tuple, blocks: tuple, kernel: tuple, dilation: tuple, stride: tuple, device: Any) -> Tensor:
    """Flat positions in the padded (Hp, Wp) plane, ordered (kernel i, kernel j, block row, block col), on device."""
    def span(n: int, step: int) -> Tensor:
        return ember.arange(n, device=device) * step

    rows = span(blocks[0], stride[0]).unsqueeze(0) + span(kernel[0], dilation[0]).unsqueeze(1)
    cols = span(blocks[1], stride[1]).unsqueeze(0) + span(kernel[1], dilation[1]).unsqueeze(1)
    idx = rows[:, None, :, None] * padded[1] + cols[None, :, None, :]
    return idx.reshape(-1)


def unfold(input: Tensor, kernel_size: _Size, dilation: _Size = 1, padding: _Size = 0, stride: _Size = 1) -> Tensor:
    """Sliding blocks of a (N, C, H, W) or (C, H, W) input as columns: (N, C*kh*kw, L)."""
    k, d, p, s = _pairs("im2col", kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    _check_args(k, d, p, s, True)
    # aten's im2col_shape_check reads size(1), then size(2) only when size(1) != 0 (an IndexError
    # for a missing dim, its rank error for an empty one)
    asked = 1 if input.dim() < 2 or input.shape[1] != 0 else None
    if input.dim() == 2 and asked is not None:
        asked = 2
    if asked is not None and input.dim() <= asked:
        rank = max(input.dim(), 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {asked})")
    valid = input.shape[1] != 0 and input.shape[2] != 0 if input.dim() >= 3 else False
    if not ((input.dim() == 3 and input.shape[0] != 0 and valid)
            or (input.dim() == 4 and valid and input.shape[3] != 0)):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    n, c, h, w = x.shape
    blocks = _blocks((h, w), k, d, p, s)
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size={k}, dilation={d}, padding={p}, "
                           f"calculated shape of the array of sliding blocks as {blocks}, but its components must "
                           f"be at least one.")
    if blocks[0] * blocks[1] >= 2**63:  # aten sizes its output before the dtype dispatch (known-wrong
        raise RuntimeError("Stride calculation overflowed")  # unfold-block-count-wraps: no such shape)
    float_kernel(input, "im2col_out_cpu", _IM2COL_ALSO)
    if n == 0:  # no batch: the padded input (whose strides may pass int64) is never made
        cols = ember.empty((0, c * k[0] * k[1], blocks[0] * blocks[1]), dtype=input.dtype, device=input.device)
        return cols.squeeze(0) if unbatched else cols
    shape = (n, c * k[0] * k[1], blocks[0] * blocks[1])
    if math.prod(shape) * x.element_size() > 2**31:  # aten allocates its output first: a size past memory is
        ember.empty(shape, dtype=x.dtype, device=x.device)  # the allocator's error, before any index is built
    if p == (0, 0):
        idx = _flat_index((h, w), blocks, k, d, s, x.device)
        cols = x.reshape(n, c, h * w).index_select(2, idx).reshape(n, c * k[0] * k[1], blocks[0] * blocks[1])
        return cols.squeeze(0) if unbatched else cols
    # Read in the unpadded plane, positions in the padding masked to 0: the padded input (as large as the
    # padding, 2**31 rows for a padding near int32's limit, seed 6203) is never made.
    def taps(i: int) -> Tensor:  # (kernel, blocks) rows (i = 0) or columns (i = 1) of the unpadded plane
        return ((ember.arange(blocks[i], device=x.device) * s[i] - p[i]).unsqueeze(0)
                + (ember.arange(k[i], device=x.device) * d[i]).unsqueeze(1))
    rows, cols_ = taps(0), taps(1)
    inside = (((rows >= 0) & (rows < h))[:, None, :, None] & ((cols_ >= 0) & (cols_ < w))[None, :, None, :])
    idx = rows.clamp(0, h - 1)[:, None, :, None] * w + cols_.clamp(0, w - 1)[None, :, None, :]
    taken = x.reshape(n, c, h * w).index_select(2, idx.reshape(-1)).reshape(n, c, k[0] * k[1], -1)
    zero = ember.zeros((), dtype=x.dtype, device=x.device)
    cols = ember.where(inside.reshape(k[0] * k[1], -1), taken, zero)
    cols = cols.reshape(n, c * k[0] * k[1], blocks[0] * blocks[1])
    return cols.squeeze(0) if unbatched else cols


def fold(input: Tensor, output_size: _Size, kernel_size: _Size, dilation: _Size = 1, padding: _Size = 0,
         stride: _Size = 1) -> Tensor:
    """Sums columns (N, C*kh*kw, L) back into an (N, C, H, W) image: the adjoint of ``unfold``."""
    out, k, d, p, s = _pairs("col2im", output_size=output_size, kernel_size=kernel_size, dilation=dilation,
                             padding=padding, stride=stride)
    _check_args(k, d, p, s, False)
    if input.dim() not in (2, 3) or any(sz == 0 for sz in input.shape[1:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                           f"non-zero dimensions for input, but got: {list(input.shape)}")
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    n, ck, length = x.shape
    if ck % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={ck} and kernel_size={k}.")
    blocks = _blocks(out, k, d, p, s)
    if blocks[0] * blocks[1] != length or blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(f"Given output_size={out}, kernel_size={k}, dilation={d}, padding={p}, stride={s}, "
                           f"expected size of input's dimension 2 to match the calculated number of sliding blocks "
                           f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)={length}.")
    float_kernel(input, "col2im_out_cpu", _IM2COL_ALSO)
    c = ck // (k[0] * k[1])
    hp, wp = out[0] + 2 * p[0], out[1] + 2 * p[1]
    idx = _flat_index((hp, wp), blocks, k, d, s, x.device)
    img = ember.zeros(n, c, hp * wp, dtype=x.dtype, device=x.device)
    img = img.index_add(2, idx, x.reshape(n, c, ck // c * length))
    img = img.reshape(n, c, hp, wp)
    if p != (0, 0):
        img = ember.constant_pad_nd(img, [-p[1], -p[1], -p[0], -p[0]])
    return img.squeeze(0) if unbatched else img
