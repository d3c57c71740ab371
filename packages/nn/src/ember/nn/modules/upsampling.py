"""Upsample and its fixed-mode shorthands (UpsamplingNearest2d, UpsamplingBilinear2d)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ember import Tensor
from ember.nn import functional as F
from ember.nn.modules.module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


class Upsample(Module):
    """Resizes the spatial dimensions of a batch to ``size`` or by ``scale_factor`` (the module form
    of ``F.interpolate``).

    Args:
        size (int or sequence of int, optional): the output spatial size.
        scale_factor (float or sequence of float, optional): the multiplier of each spatial size.
        mode (str): ``"nearest"``, ``"linear"``, ``"bilinear"``, ``"bicubic"`` or ``"trilinear"``.
        align_corners (bool, optional): for the linear modes, align the corner pixels' centres.
        recompute_scale_factor (bool, optional): derive the scale from the computed output size.
    """

    __constants__ = ["size", "scale_factor", "mode", "align_corners", "name", "recompute_scale_factor"]

    def __init__(self, size: int | Sequence[int] | None = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool | None = None, recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        # Scales are kept as floats (their repr is "2.0"), as PyTorch does.
        if isinstance(scale_factor, tuple):
            self.scale_factor: Any = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        info = (f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None
                else f"size={self.size!r}")
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of ``(N, C, H, W)`` input (an older spelling of
    ``Upsample(mode="nearest")``).

    Args:
        size (int or sequence of int, optional): the output size.
        scale_factor (float or sequence of float, optional): the multiplier of each spatial size.
    """

    def __init__(self, size: int | Sequence[int] | None = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling of ``(N, C, H, W)`` input with ``align_corners=True`` (an older spelling
    of ``Upsample(mode="bilinear", align_corners=True)``).

    Args:
        size (int or sequence of int, optional): the output size.
        scale_factor (float or sequence of float, optional): the multiplier of each spatial size.
    """

    def __init__(self, size: int | Sequence[int] | None = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
