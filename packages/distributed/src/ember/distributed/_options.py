"""The ``*Options`` structs of c10d's ProcessGroup API: plain attribute holders with PyTorch's
fields and defaults (a timeout of -1 ms means "the group's timeout")."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from .reduce_op import ReduceOp

_UNSET = timedelta(milliseconds=-1)  # c10d's kUnsetTimeout


class _Options:
    """Common fields: ``timeout`` (unset: the group's) and ``asyncOp``."""

    def __init__(self) -> None:
        self.timeout: timedelta = _UNSET
        self.asyncOp: bool = True

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in sorted(vars(self).items()))
        return f"{type(self).__name__}({fields})"


class AllreduceOptions(_Options):
    """Options of ``ProcessGroup.allreduce``: ``reduceOp`` (SUM), ``timeout``, ``asyncOp``."""

    def __init__(self) -> None:
        super().__init__()
        self.reduceOp: Any = ReduceOp(ReduceOp.SUM)


class AllreduceCoalescedOptions(AllreduceOptions):
    """Options of ``ProcessGroup.allreduce_coalesced``: as ``AllreduceOptions``."""


class ReduceOptions(_Options):
    """Options of ``ProcessGroup.reduce``: ``reduceOp`` (SUM), ``rootRank`` and ``rootTensor``
    (0), ``timeout``, ``asyncOp``."""

    def __init__(self) -> None:
        super().__init__()
        self.reduceOp: Any = ReduceOp(ReduceOp.SUM)
        self.rootRank: int = 0
        self.rootTensor: int = 0


class BroadcastOptions(_Options):
    """Options of ``ProcessGroup.broadcast``: ``rootRank`` and ``rootTensor`` (0), ``timeout``,
    ``asyncOp``."""

    def __init__(self) -> None:
        super().__init__()
        self.rootRank: int = 0
        self.rootTensor: int = 0


class GatherOptions(_Options):
    """Options of ``ProcessGroup.gather``: ``rootRank`` (0), ``timeout``, ``asyncOp``."""

    def __init__(self) -> None:
        super().__init__()
        self.rootRank: int = 0


class ScatterOptions(_Options):
    """Options of ``ProcessGroup.scatter``: ``rootRank`` (0), ``timeout``, ``asyncOp``."""

    def __init__(self) -> None:
        super().__init__()
        self.rootRank: int = 0


class ReduceScatterOptions(_Options):
    """Options of ``ProcessGroup.reduce_scatter``: ``reduceOp`` (SUM), ``timeout``, ``asyncOp``."""

    def __init__(self) -> None:
        super().__init__()
        self.reduceOp: Any = ReduceOp(ReduceOp.SUM)


class AllToAllOptions(_Options):
    """Options of ``ProcessGroup.alltoall``: ``timeout``, ``asyncOp``."""


class BarrierOptions(_Options):
    """Options of ``ProcessGroup.barrier``: ``device_ids`` ([]), ``device`` (None), ``timeout``,
    ``asyncOp``."""

    def __init__(self) -> None:
        super().__init__()
        self.device_ids: list[int] = []
        self.device: Any = None


__all__ = ["AllToAllOptions", "AllreduceCoalescedOptions", "AllreduceOptions", "BarrierOptions",
           "BroadcastOptions", "GatherOptions", "ReduceOptions", "ReduceScatterOptions",
           "ScatterOptions"]
