"""``interpolate`` / ``upsample`` of ``ember.nn.functional`` over the ``ember._nn`` upsample kernels.

Output sizes follow PyTorch: an explicit ``size`` wins; otherwise each spatial size is
``int(in * scale)`` and the scale itself reaches the kernel (so source indices use the given
scale, not out/in) unless ``recompute_scale_factor`` asks for sizes only.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence
from typing import Any

import ember
from ember import Tensor, _nn
from ember.nn._functional.pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

_NEAREST = {"nearest": ("upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d"),
            "nearest-exact": ("_upsample_nearest_exact1d", "_upsample_nearest_exact2d", "_upsample_nearest_exact3d")}
# mode -> (input rank, kernel)
_INTERP = {"linear": (3, "upsample_linear1d"), "bilinear": (4, "upsample_bilinear2d"),
           "bicubic": (4, "upsample_bicubic2d"), "trilinear": (5, "upsample_trilinear3d")}
_RANK_WORD = {3: "3D", 4: "4D", 5: "5D"}


def _is_integer(x: Any) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool) or (
        isinstance(x, Tensor) and not x.is_floating_point() and x.dim() == 0)


def _sizes(input: Tensor, size: Any, scale_factor: Any, dim: int) -> tuple[list | None, list | None]:
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor "
                    "in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}")
            return [int(s) for s in size], None
        return [int(size)] * dim, None
    if scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                    "(s1, s2, ...,sK) format.")
            return None, [float(s) for s in scale_factor]
        return None, [float(scale_factor)] * dim
    raise ValueError("either size or scale_factor should be defined")


def _scaled_size(n: int, scale: float) -> int:
    """aten's upsample output size from a scale: the double n * scale, checked-converted to int64 (truncating;
    NaN, inf and beyond int64 are c10's overflow error, not Python's)."""
    v = n * scale
    if not -(2.0**63) <= v <= 2.0**63:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    if v == 2.0**63:  # passes the check, then wraps to int64's minimum
        raise RuntimeError("IntArrayRef contains an int that cannot be represented as a SymInt: -9223372036854775808")
    return int(v)


def _aa_filter(mode: str, x: float) -> float:
    # PIL's kernels: the triangle for bilinear, Keys' cubic with a = -0.5 for bicubic
    x = abs(x)
    if mode == "bilinear":
        return max(0.0, 1.0 - x)
    a = -0.5
    if x < 1.0:
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    if x < 2.0:
        return (((x - 5.0) * x + 8.0) * x - 4.0) * a
    return 0.0


def _aa_weights(mode: str, n_in: int, n_out: int, scale: float) -> list[list[float]]:
    """The (n_out, n_in) resampling matrix of one axis: the filter widened by the downscale factor
    (a low-pass), centred at ``scale * (i + 0.5)``, each row normalised to sum 1."""
    stretch = max(scale, 1.0)
    support = (1.0 if mode == "bilinear" else 2.0) * stretch
    rows = []
    for i in range(n_out):
        center = scale * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), n_in)
        ws = [_aa_filter(mode, (j - center + 0.5) / stretch) for j in range(lo, hi)]
        total = sum(ws)
        row = [0.0] * n_in
        for j, w in zip(range(lo, hi), ws):
            row[j] = w / total if total != 0.0 else 0.0
        rows.append(row)
    return rows


def _antialias_resize(input: Tensor, mode: str, output_size: list | None, scales: list | None,
                      align_corners: bool) -> Tensor:
    """Antialiased bilinear/bicubic resize of (N, C, H, W) as two separable matmuls (so autograd
    comes for free); the per-axis scale is out/in, 1/scale_factor, or (in-1)/(out-1) for align_corners."""
    if input.dtype == ember.uint8:
        raise NotImplementedError("interpolate: antialias=True on uint8 input is not supported by ember yet")
    if input.dtype not in (ember.float32, ember.float64):
        name = {ember.float16: "Half", ember.bfloat16: "BFloat16"}.get(input.dtype, str(input.dtype))
        raise NotImplementedError(f'"compute_index_ranges_weights" not implemented for \'{name}\'')
    in_h, in_w = input.shape[2], input.shape[3]
    out = output_size if output_size is not None else [
        _scaled_size(input.shape[i + 2], scales[i]) for i in range(2)]  # type: ignore[index]
    if in_h <= 0 or in_w <= 0 or out[0] <= 0 or out[1] <= 0:
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input (H: {in_h}, W: {in_w}) "
                           f"output (H: {out[0]}, W: {out[1]})")
    mats = []
    for ax, (n_in, n_out) in enumerate(((in_h, out[0]), (in_w, out[1]))):
        if align_corners:
            scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        elif scales is not None:
            scale = 1.0 / scales[ax]
        else:
            scale = n_in / n_out
        mats.append(ember.tensor(_aa_weights(mode, n_in, n_out, scale), dtype=input.dtype, device=input.device))
    result = mats[0].matmul(input).matmul(mats[1].t())
    if input.dim() == 4 and input.is_contiguous(memory_format=ember.channels_last) and not input.is_contiguous():
        result = result.contiguous(memory_format=ember.channels_last)
    return result


def interpolate(input: Tensor, size: int | Sequence[int] | None = None,
                scale_factor: float | Sequence[float] | None = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resizes the spatial dimensions of ``(N, C, *)`` input to ``size`` or by ``scale_factor``.

    Args:
        input (Tensor): 3-D, 4-D or 5-D batch.
        size (int or sequence of int, optional): the output spatial size.
        scale_factor (float or sequence of float, optional): the multiplier of each spatial size.
        mode (str): ``"nearest"``, ``"nearest-exact"``, ``"linear"``, ``"bilinear"``,
            ``"bicubic"``, ``"trilinear"`` or ``"area"``.
        align_corners (bool, optional): for the linear modes, map the corner pixels' centres onto
            each other instead of the corners' edges.
        recompute_scale_factor (bool, optional): compute the output size from ``scale_factor``
            and use it to derive the actual scale.
        antialias (bool): low-pass filter before downsampling (bilinear and bicubic).

    Example::

        >>> F.interpolate(ember.tensor([[[1.0, 2.0]]]), scale_factor=2)
        tensor([[[1., 1., 2., 2.]]])
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    output_size, scales = _sizes(input, size, scale_factor, dim)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True  # area pooling needs sizes
    if recompute_scale_factor and scales is not None:
        output_size = [math.floor(float(input.shape[i + 2] * scales[i])) for i in range(dim)]
        scales = None
    if antialias:
        if not (mode in ("bilinear", "bicubic") and input.dim() == 4):
            raise ValueError("Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D "
                             "tensor as input")
        return _antialias_resize(input, mode, output_size, scales, bool(align_corners))
    scale_args = scales if scales is not None else [None] * dim

    def sizes() -> list:
        # from the scales only once an op is chosen: aten's op computes them (a bad mode's error first)
        if output_size is not None:
            return output_size
        assert scales is not None
        return [_scaled_size(input.shape[i + 2], scales[i]) for i in range(dim)]

    if mode == "lanczos" and input.dim() in (3, 4, 5):
        raise NotImplementedError("interpolate: mode 'lanczos' is not supported by ember yet")
    if mode in _NEAREST and input.dim() in (3, 4, 5):
        return getattr(_nn, _NEAREST[mode][dim - 1])(input, sizes(), *scale_args)
    if mode == "area" and input.dim() in (3, 4, 5):
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[dim - 1](input, sizes())
    if mode in _INTERP and input.dim() == _INTERP[mode][0]:
        if not isinstance(align_corners, bool):  # the op's parser, before it computes any size
            raise TypeError(f"{_INTERP[mode][1]}(): argument 'align_corners' must be bool, not "
                            f"{type(align_corners).__name__}")
        return getattr(_nn, _INTERP[mode][1])(input, sizes(), align_corners, *scale_args)
    if mode in _INTERP and input.dim() in (3, 4, 5):
        need = _INTERP[mode][0]
        raise NotImplementedError(f"Got {_RANK_WORD[input.dim()]} input, but {mode} mode needs "
                                  f"{_RANK_WORD[need]} input")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the modes: nearest | "
        f"linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})")


def upsample(input: Tensor, size: int | Sequence[int] | None = None,
             scale_factor: float | Sequence[float] | None = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """Deprecated spelling of ``interpolate`` (same arguments and result).

    Args:
        input (Tensor): 3-D, 4-D or 5-D batch.
        size (int or sequence of int, optional): the output spatial size.
        scale_factor (float or sequence of float, optional): the multiplier of each spatial size.
        mode (str): the interpolation mode.
        align_corners (bool, optional): see ``interpolate``.
    """
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: int | Sequence[int] | None = None,
                     scale_factor: float | Sequence[float] | None = None) -> Tensor:
    """Deprecated: ``interpolate(input, size, scale_factor, mode="nearest")``.

    Args:
        input (Tensor): 3-D, 4-D or 5-D batch.
        size (int or sequence of int, optional): the output size.
        scale_factor (float or sequence of float, optional): the multiplier of each spatial size.
    """
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: int | Sequence[int] | None = None,
                      scale_factor: float | Sequence[float] | None = None) -> Tensor:
    """Deprecated: ``interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)``.

    Args:
        input (Tensor): ``(N, C, H, W)``.
        size (int or sequence of int, optional): the output size.
        scale_factor (float or sequence of float, optional): the multiplier of each spatial size.
    """
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
