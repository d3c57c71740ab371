"""Operator-level profiler (mirrors :mod:`torch.profiler`).

``profile`` records every hooked operator, autograd node and ``record_function`` range via
ember's core profiler hook; results are summarised with ``key_averages().table()`` or exported
as a Chrome trace.
"""

from __future__ import annotations

from ._events import EventList, FunctionEvent, FunctionEventAvg, Interval
from ._record import record_function
from .profiler import (
    ProfilerAction,
    ProfilerActivity,
    _KinetoProfile,  # noqa: F401 - torch.profiler exposes it too
    profile,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)

__all__: list[str] = [
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "Interval",
    "ProfilerAction",
    "ProfilerActivity",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]
