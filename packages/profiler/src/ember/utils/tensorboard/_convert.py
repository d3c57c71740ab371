"""Turning user inputs (ember tensors, NumPy arrays, Python numbers) into NumPy arrays, and
laying images out the way TensorBoard's image plugin expects (HWC, uint8)."""

from __future__ import annotations

from typing import Any

import numpy as np


def make_np(x: Any) -> np.ndarray:
    """An ndarray view/copy of `x`: an ember tensor, an ndarray, a NumPy scalar or a Python number."""
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, (bool, int, float, np.generic)):
        return np.array([x])
    if isinstance(x, str):
        raise NotImplementedError("Strings are not supported; use add_text for text")
    numpy = getattr(x, "numpy", None)
    if callable(numpy) and hasattr(x, "detach"):
        # Tensors that require grad cannot be converted directly; logging never needs the graph.
        return x.detach().cpu().numpy()
    raise NotImplementedError(f"Got {type(x).__name__}, but numpy array or ember tensor are expected.")


def make_grid(images: np.ndarray, ncols: int = 8) -> np.ndarray:
    """Tile an N1HW / N3HW batch into one 3HW image, `ncols` images per row."""
    if images.ndim == 4 and images.shape[1] == 1:
        images = np.concatenate([images, images, images], 1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, _, h, w = images.shape
    ncols = min(n, ncols)
    nrows = -(-n // ncols)
    canvas = np.zeros((3, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        y, x = divmod(i, ncols)
        canvas[:, y * h : (y + 1) * h, x * w : (x + 1) * w] = images[i]
    return canvas


def convert_to_HWC(tensor: np.ndarray, input_format: str) -> np.ndarray:  # noqa: N802 (torch's name)
    """Reorder an image (or a batch, tiled by make_grid) given in `input_format` to HWC with 3+ channels."""
    if len(set(input_format)) != len(input_format):
        raise AssertionError(
            f"You can not use the same dimension shorthand twice. input_format: {input_format}"
        )
    if tensor.ndim != len(input_format):
        raise AssertionError(
            f"size of input tensor and input format are different. tensor shape: {tensor.shape}, "
            f"input_format: {input_format}"
        )
    fmt = input_format.upper()
    if len(fmt) == 4:
        nchw = tensor.transpose([fmt.find(c) for c in "NCHW"])
        return make_grid(nchw).transpose(1, 2, 0)
    if len(fmt) == 3:
        hwc = tensor.transpose([fmt.find(c) for c in "HWC"])
        if hwc.shape[2] == 1:
            hwc = np.concatenate([hwc, hwc, hwc], 2)
        return hwc
    if len(fmt) == 2:
        hw = tensor.transpose([fmt.find(c) for c in "HW"])
        return np.stack([hw, hw, hw], 2)
    raise AssertionError(f"input_format must have 2, 3 or 4 dimensions, got {input_format!r}")


def figure_to_image(figures: Any, close: bool = True) -> np.ndarray:
    """Render a matplotlib figure (or a list of them) to a CHW (NCHW) uint8 array."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def render(figure: Any) -> np.ndarray:
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        rgba = np.asarray(canvas.buffer_rgba(), dtype=np.uint8)
        chw = np.moveaxis(rgba[:, :, :3], 2, 0).copy()
        if close:
            plt.close(figure)
        return chw

    if isinstance(figures, list):
        return np.stack([render(f) for f in figures])
    return render(figures)
