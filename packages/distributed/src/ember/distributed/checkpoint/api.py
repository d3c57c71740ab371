"""``CheckpointException``: what ``save``/``load`` raise when any rank failed; it carries
every failing rank's exception and traceback so one message tells the whole story."""

from __future__ import annotations

import traceback as tb
from typing import Any

__all__ = ["CheckpointException"]

WRAPPED_EXCEPTION = tuple[BaseException, tb.StackSummary]


def _wrap_exception(exc: BaseException) -> WRAPPED_EXCEPTION:
    return (exc, tb.extract_tb(exc.__traceback__))


def _is_wrapped_exception(obj: Any) -> bool:
    return (isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], BaseException)
            and isinstance(obj[1], tb.StackSummary))


class CheckpointException(BaseException):
    """Raised when a checkpoint save or load failed on one or more ranks.

    A ``BaseException`` (as in PyTorch), so ``except Exception`` does not swallow it."""

    def __init__(self, msg: str, failures: dict[int, WRAPPED_EXCEPTION]) -> None:
        super().__init__(msg, failures)
        self._failures = failures

    @property
    def failures(self) -> dict[int, WRAPPED_EXCEPTION]:
        """``{rank: (exception, traceback summary)}`` of the ranks that failed."""
        return self._failures

    def __str__(self) -> str:
        out = f"CheckpointException ranks:{self._failures.keys()}\n"
        for rank, (exc, trace) in self._failures.items():
            out += f"Traceback (most recent call last): (RANK {rank})\n"
            if trace is not None:
                out += "".join(tb.format_list(trace))
            out += "".join(tb.format_exception_only(type(exc), exc))
        return out
