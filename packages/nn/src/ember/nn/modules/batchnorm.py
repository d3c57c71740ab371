"""``torch.nn.modules.batchnorm``: ember keeps the normalization layers in ``normalization.py`` and
the lazy ones in ``lazy.py``; this path re-exports them (``from torch.nn.modules.batchnorm import
_BatchNorm`` is a common way to find every batch-norm layer)."""

from __future__ import annotations

from typing import Any

# (``import X as X``: re-exported names, as PyTorch's module has them)
from ember.nn.modules.lazy import LazyBatchNorm1d as LazyBatchNorm1d
from ember.nn.modules.lazy import LazyBatchNorm2d as LazyBatchNorm2d
from ember.nn.modules.lazy import LazyBatchNorm3d as LazyBatchNorm3d
from ember.nn.modules.lazy import LazyModuleMixin as LazyModuleMixin
from ember.nn.modules.lazy import _LazyNormBase as _LazyNormBase
from ember.nn.modules.module import Module as Module
from ember.nn.modules.normalization import BatchNorm1d as BatchNorm1d
from ember.nn.modules.normalization import BatchNorm2d as BatchNorm2d
from ember.nn.modules.normalization import BatchNorm3d as BatchNorm3d
from ember.nn.modules.normalization import _BatchNorm as _BatchNorm
from ember.nn.modules.normalization import _NormBase as _NormBase

__all__ = ["BatchNorm1d", "LazyBatchNorm1d", "BatchNorm2d", "LazyBatchNorm2d", "BatchNorm3d", "LazyBatchNorm3d"]
__all__ += ["SyncBatchNorm"]  # noqa: F822  (found by __getattr__ below)



def __getattr__(name: str) -> Any:
    # SyncBatchNorm needs ember-distributed (ember.nn finds it there)
    if name == "SyncBatchNorm":
        import ember.nn

        return ember.nn.SyncBatchNorm
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
