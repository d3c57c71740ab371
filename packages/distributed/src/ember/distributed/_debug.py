"""TORCH_DISTRIBUTED_DEBUG: with DETAIL, every collective first compares a fingerprint (op,
shapes, dtypes, sequence number) across the group, so ranks that call different collectives
get PyTorch's "Detected mismatch between collectives" error instead of a hang or garbage."""

from __future__ import annotations

import enum
import os
from typing import Any

import ember

_WIDTH = 512  # bytes of fingerprint text exchanged (longer ones are cut)


class DebugLevel(enum.Enum):
    """How much the distributed package checks and logs: OFF, INFO or DETAIL."""

    OFF = 0
    INFO = 1
    DETAIL = 2


_level: list[DebugLevel] = []  # set_debug_level's choice; empty: read the environment


def _from_env() -> DebugLevel:
    name = os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF").upper()
    if name not in DebugLevel.__members__:
        raise ValueError(f"The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO or DETAIL, "
                         f"got {name!r}")
    return DebugLevel[name]


def get_debug_level() -> DebugLevel:
    """The debug level: the one ``set_debug_level`` chose, else the TORCH_DISTRIBUTED_DEBUG
    variable's (OFF, INFO or DETAIL)."""
    return _level[0] if _level else _from_env()


def set_debug_level(level: DebugLevel) -> None:
    """Sets the debug level of the distributed package (groups made afterwards check their
    collectives when it is DETAIL).

    Args:
        level (DebugLevel): OFF, INFO or DETAIL.
    """
    if not isinstance(level, DebugLevel):
        raise TypeError(f"set_debug_level(): incompatible function arguments; expected a "
                        f"DebugLevel, got {type(level).__name__}")
    _level[:] = [level]


def set_debug_level_from_env() -> None:
    """Sets the debug level of the distributed package from the ``TORCH_DISTRIBUTED_DEBUG``
    environment variable (read now)."""
    _level[:] = [_from_env()]


def _dtype_name(t: Any) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
            "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}.get(str(t.dtype).replace("torch.", ""), str(t.dtype))


def check_collective(pg: Any, op: str, tensors: list[Any]) -> None:
    """With DETAIL: the same collective on every rank of ``pg``, or RuntimeError naming both."""
    if not getattr(pg, "_debug_detail", False):  # read once, at the group's creation
        return
    comm = pg._mpi()
    pg._seq = getattr(pg, "_seq", 0) + 1
    shapes = [list(t.shape) for t in tensors]
    text = (f"CollectiveFingerPrint(SequenceNumber={pg._seq}, OpType={op}, "
            f"TensorShape={shapes[0] if len(shapes) == 1 else shapes}, "
            f"TensorDtypes={', '.join(_dtype_name(t) for t in tensors)}, TensorDeviceTypes=cpu)")
    raw = text.encode()[:_WIDTH].ljust(_WIDTH, b"\0")
    mine = ember.tensor(list(raw), dtype=ember.uint8)
    everyone = ember.empty(comm.size() * _WIDTH, dtype=ember.uint8)
    comm.allgather_into(everyone, mine).wait()
    rows = bytes(everyone.tolist())
    me = comm.rank()
    for r in range(comm.size()):
        theirs = rows[r * _WIDTH:(r + 1) * _WIDTH].rstrip(b"\0").decode(errors="replace")
        if theirs != text:
            raise RuntimeError(f"Detected mismatch between collectives on ranks. Rank {me} is "
                               f"running collective: {text}, but Rank {r} is running "
                               f"collective: {theirs}.")
