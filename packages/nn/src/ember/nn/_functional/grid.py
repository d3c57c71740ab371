"""affine_grid: the sampling grid of a batch of affine transforms (aten's affine_grid_generator, composed:
a base grid of normalised coordinates times theta)."""

from __future__ import annotations

import warnings
from typing import Any

import ember
from ember import Tensor


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """(N, H, W, 2) (or (N, D, H, W, 3)) grid of the points theta maps the output pixels to."""
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since "
                      "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
                      "documentation of grid_sample for details.", stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {ember.Size(size)}. "
                             f"Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {ember.Size(size)}. "
                             f"Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {ember.Size(size)}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {ember.Size(size)}")
    for i, s in enumerate(size):  # affine_grid_generator's int[] parser comes next in PyTorch
        if not -(2**63) <= s < 2**63:
            raise TypeError(f"affine_grid_generator(): argument 'size' failed to unpack the object at pos {i + 1} "
                            'with error "Overflow when unpacking long long"')
    if not isinstance(align_corners, bool):  # its parser's bool argument, after the size list
        raise TypeError("affine_grid_generator(): argument 'align_corners' (position 3) must be bool, not "
                        f"{type(align_corners).__name__}")
    return ember.affine_grid_generator(theta, size, align_corners)


GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=None) -> Tensor

    Samples ``input`` (``(N, C, H, W)`` or ``(N, C, D, H, W)``) at the points of ``grid``
    (``(N, H_out, W_out, 2)`` or ``(N, D_out, H_out, W_out, 3)``), given in normalised
    coordinates: x first, ``-1`` the left (top, front) edge of the input and ``1`` the right one.
    Each output pixel interpolates the input around its grid point; the result is differentiable
    in both ``input`` and ``grid`` (spatial transformers, optical-flow warping).

    Args:
        input: the images or volumes to sample.
        grid: the sampling points, in ``input``'s dtype.
        mode: ``'bilinear'`` (trilinear for 5-d input), ``'nearest'`` or ``'bicubic'`` (4-d only).
        padding_mode: what points outside the input read: ``'zeros'``, ``'border'`` (the nearest
            edge pixel) or ``'reflection'`` (the input mirrored at its edges).
        align_corners: True: ``-1`` and ``1`` are the centres of the corner pixels; False (the
            default, with a warning when left as None): their outer edges.

    Returns:
        Tensor: ``(N, C, H_out, W_out)`` (or ``(N, C, D_out, H_out, W_out)``).

    Example::

        >>> x = ember.arange(4.).view(1, 1, 2, 2)
        >>> ember.nn.functional.grid_sample(x, ember.zeros(1, 1, 1, 2), align_corners=False)
        tensor([[[[1.5000]]]])
    """
    if mode not in GRID_SAMPLE_INTERPOLATION_MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in GRID_SAMPLE_PADDING_MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since "
                      "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
                      "documentation of grid_sample for details.", stacklevel=2)
        align_corners = False
    return ember.grid_sampler(input, grid, GRID_SAMPLE_INTERPOLATION_MODES[mode],
                              GRID_SAMPLE_PADDING_MODES[padding_mode], align_corners)
