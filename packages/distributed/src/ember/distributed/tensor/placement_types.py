"""Placements: how a DTensor's global value lies on one mesh dim.

``Shard(dim)``: split along ``dim`` with torch.chunk's rule (leading ranks get ceil(size / n),
trailing ones may hold less or nothing); ``Replicate()``: every rank holds the whole value;
``Partial(op)``: every rank holds a term, the value is their reduction. Two private kinds
follow PyTorch's: ``_NormPartial(p)`` (each rank holds the p-norm of its part; the value is the
p-norm of those) and ``_StridedShard(dim, sf)`` (the dim cut into ``sf`` equal blocks, each block
split over the mesh dim; a rank holds its piece of every block, in order) -- what a flatten of a
dim sharded behind a leading dim looks like.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Partial", "Placement", "Replicate", "Shard", "_NormPartial", "_StridedShard"]


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


class _NormPartial(Partial):
    """Each rank holds the ``norm_type``-norm of its part of the reduced elements: the value is
    (sum of the terms' p-th powers)^(1/p). (inf/-inf norms are Partial(max/min), the 0-"norm" a
    Partial(sum) of counts, as in PyTorch.)"""

    def __init__(self, norm_type: int | float = 2) -> None:
        super().__init__("sum")
        self.norm_type = norm_type

    def pre_reduce(self, t: Any) -> Any:
        return t ** self.norm_type

    def post_reduce(self, t: Any) -> Any:
        return t ** (1.0 / self.norm_type)

    def partition(self, t: Any, n: int) -> Any:
        """A replicated value split into ``n`` terms whose norm combine gives it back."""
        return t / (n ** (1.0 / self.norm_type))

    def __eq__(self, other: object) -> bool:
        return type(other) is _NormPartial and other.norm_type == self.norm_type

    def __hash__(self) -> int:
        return 1 + hash(self.norm_type)

    def __repr__(self) -> str:
        return f"_NormPartial({self.norm_type})"

    def __str__(self) -> str:
        return f"_NormP({self.norm_type})"


# Set once any _StridedShard exists: until then the rules skip looking for one (a hot path).
STRIDED_SEEN = [False]


class _StridedShard(Placement):
    """``dim`` seen as ``split_factor`` equal blocks, each split over the mesh dim by torch.chunk's
    rule; a rank holds its piece of every block, block after block. Not a ``Shard`` subclass
    here on purpose: rules that do not know it see it replicated first (see ``_strided``)."""

    def __init__(self, dim: int, *, split_factor: int = 1, sf: int | None = None) -> None:
        self.dim = int(dim)
        self.split_factor = int(sf if sf is not None else split_factor)
        STRIDED_SEEN[0] = True

    def is_shard(self, dim: int | None = None) -> bool:
        return dim is None or dim == self.dim

    def __eq__(self, other: object) -> bool:
        return (type(other) is _StridedShard and other.dim == self.dim
                and other.split_factor == self.split_factor)

    def __hash__(self) -> int:
        return hash((self.dim, self.split_factor))

    def __repr__(self) -> str:
        return f"_StridedShard(dim={self.dim}, sf={self.split_factor})"

    def __str__(self) -> str:
        return f"_S({self.dim}, {self.split_factor})"
