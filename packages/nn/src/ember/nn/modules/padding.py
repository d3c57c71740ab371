"""Padding layers: Zero / Constant / Reflection / Replication / Circular, 1d to 3d."""

from __future__ import annotations

from typing import Any

from ember import Tensor
from ember.nn import functional as F
from ember.nn.modules.module import Module
from ember.nn.modules.utils import _ntuple as _ntuple
from ember.nn.modules.utils import _pair as _pair
from ember.nn.modules.utils import _quadruple as _quadruple

__all__ = ["ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


def _expand(padding: Any, n: int) -> tuple:
    """An int pads every side; a tuple is (left, right, top, bottom, front, back)."""
    return tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * (2 * n)


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]
    _n = 1

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__()
        self.padding = _expand(padding, self._n)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dimension with a constant."""

    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dimensions with a constant."""

    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dimensions with a constant."""

    _n = 3


class ZeroPad1d(ConstantPad1d):
    """Pads the last dimension with zeros."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last two dimensions with zeros."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pads the last three dimensions with zeros."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ModePadNd(Module):
    __constants__ = ["padding"]
    _n = 1
    _mode = "reflect"

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _expand(padding, self._n)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


def _mode_pad(name: str, n: int, mode: str, doc: str) -> type:
    return type(name, (_ModePadNd,), {"_n": n, "_mode": mode, "__doc__": doc, "__module__": __name__})


ReflectionPad1d = _mode_pad("ReflectionPad1d", 1, "reflect", "Pads the last dimension with its reflection.")
ReflectionPad2d = _mode_pad("ReflectionPad2d", 2, "reflect", "Pads the last two dimensions with their reflection.")
ReflectionPad3d = _mode_pad("ReflectionPad3d", 3, "reflect", "Pads the last three dimensions with their reflection.")
ReplicationPad1d = _mode_pad("ReplicationPad1d", 1, "replicate", "Pads the last dimension with its edge values.")
ReplicationPad2d = _mode_pad("ReplicationPad2d", 2, "replicate", "Pads the last two dimensions with edge values.")
ReplicationPad3d = _mode_pad("ReplicationPad3d", 3, "replicate", "Pads the last three dimensions with edge values.")
CircularPad1d = _mode_pad("CircularPad1d", 1, "circular", "Pads the last dimension by wrapping around.")
CircularPad2d = _mode_pad("CircularPad2d", 2, "circular", "Pads the last two dimensions by wrapping around.")
CircularPad3d = _mode_pad("CircularPad3d", 3, "circular", "Pads the last three dimensions by wrapping around.")
