"""record_function: a user-labelled range, usable as a context manager or a decorator."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from ember._lib import _C

F = TypeVar("F", bound=Callable[..., Any])


class record_function:
    """Label a block of code; its ops appear as children of a row named ``name``.

    Costs two cheap C calls when no profiler is running.
    """

    def __init__(self, name: str, args: str | None = None) -> None:
        if not isinstance(name, str):
            raise TypeError(f"record_function(): name must be a str, got {type(name).__name__}")
        self.name = name
        self.args = args
        self._opened = False

    def __enter__(self) -> record_function:
        # Only ranges opened inside a session are closed, so a session starting or stopping
        # mid-range never unbalances the core's range stack.
        self._opened = _C._profiler_active()
        if self._opened:
            _C._record_function_enter(self.name)
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        if self._opened:
            self._opened = False
            if _C._profiler_active():
                _C._record_function_exit()

    def __call__(self, fn: F) -> F:
        name, args = self.name, self.args

        @functools.wraps(fn)
        def wrapper(*a: Any, **kw: Any) -> Any:
            with record_function(name, args):
                return fn(*a, **kw)

        return wrapper  # type: ignore[return-value]
