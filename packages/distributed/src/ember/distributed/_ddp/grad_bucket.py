"""``GradBucket``: what a DDP communication hook receives (torch.distributed.GradBucket)."""

from __future__ import annotations

from typing import Any


class GradBucket:
    """One bucket: its flat gradient buffer, the per-parameter views and parameters."""

    def __init__(self, index: int, buffer: Any, gradients: list[Any], parameters: list[Any],
                 is_last: bool) -> None:
        self._index, self._buffer = index, buffer
        self._gradients, self._parameters, self._is_last = gradients, parameters, is_last

    def index(self) -> int:
        return self._index

    def buffer(self) -> Any:
        return self._buffer

    def gradients(self) -> list[Any]:
        return list(self._gradients)

    def parameters(self) -> list[Any]:
        return list(self._parameters)

    def is_last(self) -> bool:
        return self._is_last

    def set_buffer(self, buffer: Any) -> None:
        self._buffer.copy_(buffer.reshape(-1))
