"""``ember.cuda.amp``: PyTorch's deprecated CUDA spellings of ``ember.amp``.

``autocast(...)`` is ``ember.amp.autocast("cuda", ...)``, ``GradScaler(...)`` is
``ember.amp.GradScaler("cuda", ...)`` and ``custom_fwd`` / ``custom_bwd`` are ``ember.amp``'s with
``device_type="cuda"``; each emits PyTorch's FutureWarning. Where no CUDA device is available
(ember's default build, or a machine without a GPU) the autocast and the scaler disable themselves
with PyTorch's UserWarning, as a CPU-only PyTorch's do.
"""

from __future__ import annotations

from ember.cuda.amp.autocast_mode import autocast, custom_bwd, custom_fwd
from ember.cuda.amp.common import amp_definitely_not_available
from ember.cuda.amp.grad_scaler import GradScaler

__all__ = ["amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd", "GradScaler"]
