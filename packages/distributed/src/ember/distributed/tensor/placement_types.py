"""Placements: how a DTensor's global value lies on one mesh dim.

``Shard(dim)``: split along ``dim`` with torch.chunk's rule (leading ranks get ceil(size / n),
trailing ones may hold less or nothing); ``Replicate()``: every rank holds the whole value;
``Partial(op)``: every rank holds a term, the value is their reduction.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Partial", "Placement", "Replicate", "Shard"]


class Placement:
    """Base of the placement types."""

    def is_shard(self, dim: int | None = None) -> bool:
        return False

    def is_replicate(self) -> bool:
        return False

    def is_partial(self, reduce_op: str | None = None) -> bool:
        return False


class Shard(Placement):
    def __init__(self, dim: int) -> None:
        self.dim = int(dim)

    def is_shard(self, dim: int | None = None) -> bool:
        return dim is None or dim == self.dim

    def __eq__(self, other: object) -> bool:
        return type(other) is Shard and other.dim == self.dim

    def __hash__(self) -> int:
        return hash(("Shard", self.dim))

    def __repr__(self) -> str:
        return f"Shard(dim={self.dim})"

    def __str__(self) -> str:
        return f"S({self.dim})"


class Replicate(Placement):
    def is_replicate(self) -> bool:
        return True

    def __eq__(self, other: object) -> bool:
        return type(other) is Replicate

    def __hash__(self) -> int:
        return -2  # the same for every Replicate(), as torch's

    def __repr__(self) -> str:
        return "Replicate()"

    def __str__(self) -> str:
        return "R"


_REDUCE_OPS = ("sum", "avg", "max", "min", "product")


class Partial(Placement):
    def __init__(self, reduce_op: str = "sum") -> None:
        if reduce_op not in _REDUCE_OPS:
            raise ValueError(f"Partial: unknown reduce_op {reduce_op!r} (expected one of "
                             f"{list(_REDUCE_OPS)})")
        self.reduce_op = reduce_op

    def is_partial(self, reduce_op: str | None = None) -> bool:
        return reduce_op is None or reduce_op == self.reduce_op

    def __eq__(self, other: object) -> bool:
        return type(other) is Partial and other.reduce_op == self.reduce_op

    def __hash__(self) -> int:
        return hash(("Partial", self.reduce_op))

    def __repr__(self) -> str:
        return f"Partial({self.reduce_op})"

    def __str__(self) -> str:
        return f"P({self.reduce_op})"

    def _c10d_op(self) -> Any:
        from ..reduce_op import ReduceOp

        return {"sum": ReduceOp.SUM, "avg": ReduceOp.AVG, "max": ReduceOp.MAX,
                "min": ReduceOp.MIN, "product": ReduceOp.PRODUCT}[self.reduce_op]
