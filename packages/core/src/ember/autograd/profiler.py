"""Legacy autograd profiler API (``torch.autograd.profiler``); implemented by ember-profiler."""

from __future__ import annotations

try:
    from ember.profiler import DeviceType, kineto_available
    from ember.profiler.legacy import (
        EventList,
        FunctionEvent,
        FunctionEventAvg,
        KinetoStepTracker,
        emit_itt,
        emit_nvtx,
        profile,
        record_function,
    )
except ModuleNotFoundError as e:
    if e.name is None or not e.name.startswith("ember.profiler"):
        raise
    raise ImportError("ember.autograd.profiler is provided by the ember-profiler distribution: "
                      "pip install ember-profiler") from e

__all__ = ["DeviceType", "EventList", "FunctionEvent", "FunctionEventAvg", "KinetoStepTracker", "emit_itt", "emit_nvtx",
           "kineto_available", "profile", "record_function"]
