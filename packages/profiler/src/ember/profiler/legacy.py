"""Legacy `autograd.profiler` API (core's `ember.autograd.profiler` re-exports this module)."""

from __future__ import annotations

from typing import Any
from warnings import warn

from ember._lib import _C

from ._events import EventList, FunctionEvent, FunctionEventAvg, build_events
from ._modules import ModuleRanges
from ._record import record_function
from ._step_tracker import KinetoStepTracker

__all__ = [
    "EventList", "FunctionEvent", "FunctionEventAvg", "KinetoStepTracker", "emit_itt", "emit_nvtx", "profile",
    "record_function",
]


class profile:
    """Context manager recording ops into ``function_events`` (mirrors torch.autograd.profiler.profile)."""

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device: str | None = None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = False,
        use_cpu: bool = True,
        experimental_config: Any = None,
        acc_events: bool = False,
        custom_trace_id_callback: Any = None,
        post_processing_timeout_s: float | None = None,
        activity_filters: Any = None,
    ) -> None:
        self.enabled = enabled
        if not enabled:
            return
        self.use_cuda = use_cuda
        if use_cuda:
            warn("The attribute `use_cuda` will be deprecated soon, please use ``use_device = 'cuda'`` instead.",
                 FutureWarning, stacklevel=2)
            warn("CUDA is not available, disabling CUDA profiling", stacklevel=2)
            self.use_cuda = False
        if use_device is not None and use_device != "cpu":
            warn(f"{use_device} is not available, disabling {use_device} profiling", stacklevel=2)
        self.use_device: str | None = None
        self.function_events: EventList | None = None
        self.entered = False
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.record_shapes |= self.with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self._module_ranges: ModuleRanges | None = None
        self.use_cpu = use_cpu
        self.acc_events = acc_events
        if not self.use_cpu:
            raise AssertionError("Device-only events supported only with Kineto (use_kineto=True)")

    def __enter__(self) -> profile:
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        from . import _execution_trace

        _execution_trace.yield_session()  # an execution trace observer recording alone hands over
        if _C._profiler_active():
            raise RuntimeError("Profiler is already enabled on this thread (only one profiler can run at a time)")
        self.entered = True
        et = _execution_trace.wants_inputs()  # a running observer reads this session's records
        _C._profiler_start(self.record_shapes or et, self.profile_memory, self.with_stack, self.with_flops or et)
        if self.with_modules:
            self._module_ranges = ModuleRanges()
            self._module_ranges.install()
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> bool:
        if not self.enabled:
            return False
        if self._module_ranges is not None:
            self._module_ranges.remove()
            self._module_ranges = None
        raw = _C._profiler_stop()
        from . import _execution_trace

        _execution_trace.deliver(raw)
        events = build_events(raw, profile_memory=self.profile_memory, with_flops=self.with_flops,
                              keep_shapes=self.record_shapes)
        if self.acc_events and self.function_events is not None:
            events = EventList(
                list(self.function_events) + list(events),
                profile_memory=self.profile_memory,
                with_flops=self.with_flops,
            )
        self.function_events = events
        self.entered = False
        return False

    def __repr__(self) -> str:
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return repr(self.function_events)

    def __str__(self) -> str:
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return str(self.function_events)

    def _ensure_function_events(self) -> EventList:
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def table(
        self,
        sort_by: str | None = None,
        row_limit: int = 100,
        max_src_column_width: int = 75,
        max_name_column_width: int = 55,
        max_shapes_column_width: int = 80,
        header: str | None = None,
        top_level_events_only: bool = False,
    ) -> str:
        return self._ensure_function_events().table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width, max_shapes_column_width=max_shapes_column_width,
            header=header, top_level_events_only=top_level_events_only,
        )

    def export_chrome_trace(self, path: str, metadata: dict[str, Any] | None = None,
                            use_python_export: bool = False) -> None:
        from ._chrome import export_chrome_trace

        export_chrome_trace(self._ensure_function_events(), path, metadata=metadata)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        self._ensure_function_events().export_stacks(path, metric)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        return self._ensure_function_events().key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name
        )

    def total_average(self) -> FunctionEventAvg:
        return self._ensure_function_events().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self._ensure_function_events().self_cpu_time_total


class emit_nvtx:
    """NVTX ranges for nvprof; needs CUDA, which this build lacks."""

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes

    def __enter__(self) -> emit_nvtx:
        if self.enabled:
            raise RuntimeError("emit_nvtx requires CUDA, but this ember build has no CUDA support")
        return self

    def __exit__(self, *args: Any) -> bool:
        return False


class emit_itt:
    """Marks every operator as an ITT range for Intel VTune while active (mirrors
    ``torch.autograd.profiler.emit_itt``).

    ember has no ITT library (``ember.profiler.itt.is_available()`` is False), so the ranges go
    nowhere: entering and leaving cost nothing, as torch's calls do when VTune is not attached.
    The object is single-use like torch's: entering it a second time raises RuntimeError.
    """

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes

    def __enter__(self) -> emit_itt:
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("ITT annotation context manager is not reentrant")
        # torch never clears this flag on exit, so an emit_itt object cannot be entered twice.
        self.entered = True
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> bool:
        return False
