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
        raise NotImplementedError("interpolate: antialias=True is not supported by ember yet")
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
