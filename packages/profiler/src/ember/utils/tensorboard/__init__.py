"""TensorBoard logging for ember: :class:`SummaryWriter`, mirroring ``torch.utils.tensorboard``.

Event files are written with the ``tensorboard`` package's writer and protos (no TensorFlow),
installed by the optional extra: ``pip install ember-profiler[tensorboard]``.
"""

from __future__ import annotations

try:
    import tensorboard  # noqa: F401
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "ember.utils.tensorboard needs the `tensorboard` package: pip install ember-profiler[tensorboard] "
        "(or pip install tensorboard)"
    ) from e

from .writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
