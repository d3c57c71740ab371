"""``ReduceOp``: the reductions of all_reduce/reduce/reduce_scatter, as torch.distributed names
them (``ReduceOp.SUM`` ... ``ReduceOp.PREMUL_SUM``, the last made with a factor)."""

from __future__ import annotations

import enum
import warnings
from typing import Any


class RedOpType(enum.Enum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name}: {self.value}>"


class ReduceOp:
    """A reduction: ``ReduceOp.SUM`` etc. (the enum members), or ``ReduceOp(member)``."""

    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM
    UNUSED = RedOpType.UNUSED

    def __init__(self, op: RedOpType | ReduceOp = RedOpType.SUM) -> None:
        if isinstance(op, ReduceOp):
            op = op.op
        if not isinstance(op, RedOpType):
            raise TypeError(f"ReduceOp(): expected a ReduceOp.RedOpType, got {type(op).__name__}")
        self.op = op
        self.factor: Any = None

    @property
    def name(self) -> str:
        return self.op.name

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ReduceOp):
            return self.op == other.op
        return self.op == other

    def __hash__(self) -> int:
        return hash(self.op)

    def __repr__(self) -> str:
        return f"ReduceOp.{self.op.name}"


def as_reduce_op(op: Any, fn: str) -> ReduceOp:
    if isinstance(op, ReduceOp):
        return op
    if isinstance(op, RedOpType):
        if op is RedOpType.PREMUL_SUM:
            raise ValueError(f"{fn}: ReduceOp.PREMUL_SUM needs a factor: use "
                             "ember.distributed._make_nccl_premul_sum(factor)")
        if op is RedOpType.UNUSED:
            raise ValueError(f"{fn}: ReduceOp.UNUSED is not a reduction")
        return ReduceOp(op)
    raise TypeError(f"{fn}(): argument 'op' must be ReduceOp, not {type(op).__name__}")


def _make_nccl_premul_sum(factor: Any) -> ReduceOp:
    """PREMUL_SUM: every rank's input multiplied by ``factor`` (a number or a 0-d/1-element
    tensor), then summed."""
    op = ReduceOp(RedOpType.PREMUL_SUM)
    op.factor = factor
    return op


def premul_factor(op: ReduceOp) -> Any:
    f = op.factor
    if hasattr(f, "item"):
        return f.item()
    return f


class reduce_op:  # noqa: N801 - torch's deprecated spelling
    """Deprecated alias of ReduceOp's members (torch.distributed.reduce_op)."""

    def __getattribute__(self, name: str) -> Any:
        warnings.warn("torch.distributed.reduce_op is deprecated, please use "
                      "torch.distributed.ReduceOp instead", FutureWarning, stacklevel=2)
        return getattr(ReduceOp, name)


reduce_op = reduce_op()  # type: ignore[misc,assignment]
