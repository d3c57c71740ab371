"""Worker error reporting: ``@record`` writes a worker's exception to ``TORCHELASTIC_ERROR_FILE``;
the launcher reads it back into a :class:`ChildFailedError` summary.

The error file has torch's JSON layout, so either launcher can read either side's files.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import socket
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

__all__ = ["ChildFailedError", "ProcessFailure", "record"]

_R = TypeVar("_R")
_NOT_AVAILABLE = "<N/A>"
_NO_TRACEBACK = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"


def _signal_name(exitcode: int) -> str:
    try:
        return signal.Signals(-exitcode).name
    except ValueError:
        return "<Unknown>"


@dataclass
class ProcessFailure:
    """One failed worker: its exit code (negative: killed by that signal) and error file."""

    local_rank: int
    pid: int
    exitcode: int
    error_file: str
    error_file_data: dict = field(init=False, default_factory=dict)
    message: str = field(init=False, default="")
    timestamp: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.timestamp = int(time.time())
        if self.error_file and os.path.isfile(self.error_file):
            try:
                with open(self.error_file) as f:
                    self.error_file_data = json.load(f)
                msg = self.error_file_data["message"]
                if isinstance(msg, str):
                    self.message = msg
                else:
                    self.message = msg["extraInfo"]["py_callstack"]
                    self.timestamp = int(msg["extraInfo"]["timestamp"])
            except (OSError, ValueError, KeyError, TypeError):
                self.message = f"unreadable error file {self.error_file}"
        elif self.exitcode < 0:
            self.message = f"Signal {-self.exitcode} ({_signal_name(self.exitcode)}) received by PID {self.pid}"
        else:
            self.message = _NO_TRACEBACK

    def signal_name(self) -> str:
        return _signal_name(self.exitcode) if self.exitcode < 0 else _NOT_AVAILABLE

    def timestamp_isoformat(self) -> str:
        return datetime.fromtimestamp(self.timestamp).isoformat(sep="_", timespec="seconds")


class ChildFailedError(Exception):
    """Raised by the launcher when workers fail; ``failures`` maps global rank → failure.

    ``str()`` is the launcher's summary: the first observed failure is the root cause.
    """

    def __init__(self, name: str, failures: dict[int, ProcessFailure]) -> None:
        self.name = name
        self.failures = failures
        if not failures:
            raise AssertionError("ChildFailedError needs at least one failure")
        super().__init__(self.format_msg())

    def get_first_failure(self) -> tuple[int, ProcessFailure]:
        rank = min(self.failures, key=lambda r: self.failures[r].timestamp)
        return rank, self.failures[rank]

    def format_msg(self, boarder_delim: str = "=", section_delim: str = "-") -> str:
        width = 60
        root_rank, root = self.get_first_failure()
        others = [
            self._format(i, r, f)
            for i, (r, f) in enumerate(((r, f) for r, f in self.failures.items() if r != root_rank), start=1)
        ]
        return "\n".join(
            [
                "",
                boarder_delim * width,
                f"{self.name} FAILED",
                section_delim * width,
                "Failures:",
                *(others or ["  <NO_OTHER_FAILURES>"]),
                section_delim * width,
                "Root Cause (first observed failure):",
                self._format(0, root_rank, root),
                boarder_delim * width,
            ]
        )

    @staticmethod
    def _format(idx: int, rank: int, f: ProcessFailure) -> str:
        sig = f"  ({f.signal_name()})" if f.exitcode < 0 else ""
        # Continuation lines indented under the field, as torch's summary shows them.
        lines = f.message.rstrip("\n").split("\n")
        tb = "\n".join([lines[0], *("  " + line for line in lines[1:])])
        return (
            f"[{idx}]:\n"
            f"  time      : {f.timestamp_isoformat()}\n"
            f"  host      : {socket.getfqdn()}\n"
            f"  rank      : {rank} (local_rank: {f.local_rank})\n"
            f"  exitcode  : {f.exitcode} (pid: {f.pid}){sig}\n"
            f"  error_file: {f.error_file if f.error_file_data else _NOT_AVAILABLE}\n"
            f"  traceback : {tb}"
        )


def _write_error_file(exc: BaseException) -> None:
    path = os.environ.get("TORCHELASTIC_ERROR_FILE")
    if not path:  # not under a launcher: nothing reads the file
        return
    data = {
        "message": {
            "message": f"{type(exc).__name__}: {exc}",
            "extraInfo": {
                "py_callstack": "".join(traceback.format_exception(exc)),
                "timestamp": str(int(time.time())),
            },
        }
    }
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        json.dump(data, f)


def record(fn: Callable[..., _R], error_handler: Any = None) -> Callable[..., _R | None]:
    """Decorates a worker's entry function: an exception it raises is written (message,
    traceback, time) to ``TORCHELASTIC_ERROR_FILE`` and re-raised, so the launcher can name
    it in its failure summary. ``SystemExit(0)`` counts as success."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> _R | None:
        try:
            return fn(*args, **kwargs)
        except SystemExit as e:
            if e.code in (0, None):
                return None
            raise
        except ChildFailedError as e:
            # A launcher inside a recorded function: pass its root cause's file up as ours.
            _, root = e.get_first_failure()
            path = os.environ.get("TORCHELASTIC_ERROR_FILE")
            if path and root.error_file_data:
                with open(path, "w") as f:
                    json.dump(root.error_file_data, f)
            raise
        except Exception as e:  # as torch: KeyboardInterrupt and friends are not recorded
            _write_error_file(e)
            raise

    return wrapper
