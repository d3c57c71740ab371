"""Intel ITT (Instrumentation and Tracing Technology) annotations for VTune (mirrors
``torch.profiler.itt``).

ember ships no ITT library, so ``is_available()`` is False and the annotation calls do nothing:
code written for VTune runs unchanged, as torch's calls cost nothing when no collector is
attached.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["is_available", "range_push", "range_pop", "mark", "range"]


def is_available() -> bool:
    """Whether ITT annotations reach a collector: False, ember has no ITT support."""
    return False


def range_push(msg: str) -> None:
    """Open a nested range named ``msg`` (no effect without ITT)."""
    return None


def range_pop() -> None:
    """Close the innermost range opened by ``range_push`` (no effect without ITT)."""
    return None


def mark(msg: str) -> None:
    """Record an instantaneous event named ``msg`` (no effect without ITT)."""
    return None


@contextmanager
def range(msg: str, *args: Any, **kwargs: Any) -> Iterator[None]:  # noqa: A001 - torch's name
    """A ``with`` block as one ITT range, named ``msg.format(*args, **kwargs)``."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
