"""``ember.utils.deterministic.fill_uninitialized_memory`` (as PyTorch's, default True)."""

from __future__ import annotations

import sys
import types

from ember import _flags


class _DeterministicModule(types.ModuleType):
    @property
    def fill_uninitialized_memory(self) -> bool:
        """Whether empty-family tensors are filled (NaN / integer max) while deterministic mode is on."""
        return _flags._state["fill"]

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, value: bool) -> None:
        _flags.set_fill_uninitialized_memory(value)


sys.modules[__name__].__class__ = _DeterministicModule
