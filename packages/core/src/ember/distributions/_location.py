"""The mixin of the distributions whose mean and mode are both their ``loc``."""

from __future__ import annotations

from typing import Any

__all__: list[str] = []


class _MeanModeAtLoc:
    """Mixin for a distribution symmetric and unimodal about ``loc``: its mean and mode."""

    loc: Any

    @property
    def mean(self) -> Any:
        return self.loc

    @property
    def mode(self) -> Any:
        return self.loc
