"""TensorBoard logging.

This package will provide :class:`SummaryWriter` (scalars, histograms,
images, graphs), mirroring :mod:`torch.utils.tensorboard`. It needs the
optional ``tensorboard`` extra: ``pip install ember-profiler[tensorboard]``.
"""

from __future__ import annotations

__all__: list[str] = []
