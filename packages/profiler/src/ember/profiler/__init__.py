"""Operator-level profiler.

This package will provide :class:`profile`, ``record_function``,
``ProfilerActivity`` and the summary tables (``key_averages``), reading the
per-op records that ember's core emits, mirroring :mod:`torch.profiler`.
"""

from __future__ import annotations

__all__: list[str] = []
