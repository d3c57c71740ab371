"""``ember.Size``: the tuple subclass returned by ``Tensor.shape`` and ``Tensor.size()``."""

from __future__ import annotations

from typing import Any, SupportsIndex


class Size(tuple):
    """Sizes of a tensor's dimensions: a tuple of ints that prints like PyTorch's."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size({list(self)!r})"

    def __getitem__(self, index: Any) -> Any:  # type: ignore[override]
        r = tuple.__getitem__(self, index)
        return Size(r) if isinstance(index, slice) else r

    def __add__(self, other: Any) -> Any:  # type: ignore[override]
        if isinstance(other, tuple):
            return Size(tuple.__add__(self, other))
        return NotImplemented

    def __radd__(self, other: Any) -> Any:
        if isinstance(other, tuple):
            return Size(tuple.__add__(other, self))
        return NotImplemented

    def __mul__(self, n: SupportsIndex) -> Size:  # type: ignore[override]
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def numel(self) -> int:
        """The number of elements a tensor of this size holds."""
        n = 1
        for s in self:
            n *= s
        return n

    def __reduce__(self) -> tuple[Any, ...]:
        return (Size, (tuple(self),))
