"""with_stack's Python tracer: one span per Python (and builtin) function call while a session runs,
written to traces as PyTorch's `python_function` events. Only the thread that started the
session is traced (sys.setprofile is per thread)."""

from __future__ import annotations

import sys
from typing import Any

from ember._lib import _C

from ._events import _short_path

# Builtins that open or close a profiler range part-way through a Python function.
_RANGE_CALLS = {_C._record_op_enter, _C._record_function_enter, _C._record_function_exit}


class PythonTracer:
    """Records (name, start_ns, end_ns, id, parent_id) per call between start() and stop()."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, int, int, int, int | None]] = []
        self._open: list[tuple[str, int, int, int | None]] = []
        self._next_id = 1
        self._prev: Any = None
        self._names: dict[Any, str] = {}

    def _name(self, frame: Any, event: str, arg: Any) -> str:
        key = arg if event == "c_call" else frame.f_code
        name = self._names.get(key)
        if name is None:
            if event == "c_call":
                name = repr(arg)  # "<built-in function isinstance>", as PyTorch names them
            else:
                code = frame.f_code
                name = f"{_short_path(code.co_filename)}({code.co_firstlineno}): {code.co_name}"
            self._names[key] = name
        return name

    def _profile(self, frame: Any, event: str, arg: Any) -> None:
        now = _C._profiler_now_ns()
        if event.startswith("c_") and arg in _RANGE_CALLS:
            return  # the range they open or close is the event (a span around them would not nest)
        if event in ("call", "c_call"):
            parent = self._open[-1][2] if self._open else None
            self._open.append((self._name(frame, event, arg), now, self._next_id, parent))
            self._next_id += 1
        elif self._open:  # return, c_return, c_exception
            name, start, ident, parent = self._open.pop()
            self.spans.append((name, start, now, ident, parent))

    def start(self) -> None:
        self._prev = sys.getprofile()
        sys.setprofile(self._profile)

    def stop(self) -> None:
        sys.setprofile(self._prev)
        now = _C._profiler_now_ns()
        while self._open:  # calls still running when the session ends (the caller's frames)
            name, start, ident, parent = self._open.pop()
            self.spans.append((name, start, now, ident, parent))
        self.spans.sort(key=lambda s: s[1])
