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
        """The bucket's position (0 is the first bucket to be reduced)."""
        return self._index

    def buffer(self) -> Any:
        """The flat 1-d tensor holding the bucket's gradients, end to end."""
        return self._buffer

    def gradients(self) -> list[Any]:
        """The gradient of each parameter of the bucket (views into ``buffer()``)."""
        return list(self._gradients)

    def parameters(self) -> list[Any]:
        """The parameters whose gradients the bucket holds, in bucket order."""
        return list(self._parameters)

    def is_last(self) -> bool:
        """Whether this is the last bucket of the iteration to be reduced."""
        return self._is_last

    def set_buffer(self, buffer: Any) -> None:
        """Replaces the bucket's contents with ``buffer`` (same number of elements)."""
        self._buffer.copy_(buffer.reshape(-1))
