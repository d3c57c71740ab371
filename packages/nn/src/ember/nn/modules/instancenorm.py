"""``torch.nn.modules.instancenorm``: ember keeps the instance-norm layers in ``normalization.py``
and the lazy ones in ``lazy.py``; this path re-exports them."""

from __future__ import annotations

# (``import X as X``: re-exported names, as PyTorch's module has them)
from ember.nn.modules.lazy import LazyInstanceNorm1d as LazyInstanceNorm1d
from ember.nn.modules.lazy import LazyInstanceNorm2d as LazyInstanceNorm2d
from ember.nn.modules.lazy import LazyInstanceNorm3d as LazyInstanceNorm3d
from ember.nn.modules.lazy import _LazyNormBase as _LazyNormBase
from ember.nn.modules.normalization import InstanceNorm1d as InstanceNorm1d
from ember.nn.modules.normalization import InstanceNorm2d as InstanceNorm2d
from ember.nn.modules.normalization import InstanceNorm3d as InstanceNorm3d
from ember.nn.modules.normalization import _InstanceNorm as _InstanceNorm
from ember.nn.modules.normalization import _NormBase as _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]

