"""Operator-level profiler (mirrors :mod:`torch.profiler`).

``profile`` records every hooked operator, autograd node and ``record_function`` range via
ember's core profiler hook; results are summarised with ``key_averages().table()`` or exported
as a Chrome trace. ``ExecutionTraceObserver`` writes a Chakra execution trace of the same ops,
``itt`` holds the (inert) Intel VTune annotations and ``KinetoStepTracker`` the global step count.
"""

from __future__ import annotations

from . import itt
from ._events import EventList, FunctionEvent, FunctionEventAvg, Interval
from ._execution_trace import ExecutionTraceObserver
from ._names import DeviceType, RecordScope, _supported_activities, is_fbcode, kineto_available  # noqa: F401
from ._record import record_function
from ._step_tracker import (
    KinetoStepTracker,
    _optimizer_post_hook,  # noqa: F401 - torch.profiler exposes it too
    install_optimizer_hook,
    register_optimizer_step_post_hook,
)
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
    "DeviceType",
    "EventList",
    "ExecutionTraceObserver",
    "FunctionEvent",
    "FunctionEventAvg",
    "Interval",
    "KinetoStepTracker",
    "ProfilerAction",
    "ProfilerActivity",
    "RecordScope",
    "is_fbcode",
    "itt",
    "kineto_available",
    "profile",
    "record_function",
    "register_optimizer_step_post_hook",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]

install_optimizer_hook()
del install_optimizer_hook
