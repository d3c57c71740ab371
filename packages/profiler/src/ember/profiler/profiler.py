"""torch.profiler-compatible `profile`, `schedule` and trace handlers."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from enum import Enum
from functools import partial
from typing import Any
from warnings import warn

from ember._lib import _C

from ._events import EventList, FunctionEvent, build_events
from ._modules import ModuleRanges
from ._record import record_function
from ._step_tracker import KinetoStepTracker, daemon_steps

__all__ = [
    "ProfilerAction",
    "ProfilerActivity",
    "profile",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]

PROFILER_STEP_NAME = "ProfilerStep"


class ProfilerActivity(Enum):
    """Kinds of activity the profiler can record; only CPU exists in ember."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


def supported_activities() -> set[ProfilerActivity]:
    """The activities this profiler can record: ``ProfilerActivity.CPU`` (ember has no GPU)."""
    return {ProfilerActivity.CPU}


class ProfilerAction(Enum):
    """What the profiler does at a given step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def schedule(
    *, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0, skip_first_wait: int = 0
) -> Callable[[int], ProfilerAction]:
    """Return a step -> ProfilerAction function cycling wait / warmup / active steps."""

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait  # pretend the first wait already happened
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    return schedule_fn


def _default_schedule_fn(_: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(
    dir_name: str, worker_name: str | None = None, use_gzip: bool = False, use_python_export: bool = False
) -> Callable[[Any], None]:
    """Return an on_trace_ready handler writing `<dir>/<worker>.<ns>.pt.trace.json[.gz]`."""

    def handler_fn(prof: Any) -> None:
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            import socket

            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name), use_python_export=use_python_export)

    return handler_fn


class _KinetoProfile:
    """Start/stop a core profiling session and keep the last delivered trace."""

    def __init__(
        self,
        *,
        activities: Iterable[ProfilerActivity] | None = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config: Any = None,
        execution_trace_observer: Any = None,
        acc_events: bool = False,
        custom_trace_id_callback: Callable[[], str] | None = None,
        post_processing_timeout_s: float | None = None,
    ) -> None:
        self.activities = set(activities) if activities else supported_activities()
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        self.execution_trace_observer = execution_trace_observer
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.post_processing_timeout_s = post_processing_timeout_s
        self.preset_metadata: dict[str, str] = {}
        self._events: EventList | None = None
        self._trace_events: list[FunctionEvent] = []  # every range, twins events() merges included
        self._recording = False
        self._module_ranges: ModuleRanges | None = None
        self._mem_start: Any = None
        self._mem_timeline: list[tuple[int, int, int, int]] | None = None
        self._window_start_us = 0.0
        self._py_tracer: Any = None
        self._python_spans: list[tuple[str, int, int, int, int | None]] = []
        self._window_us: tuple[float, float] | None = None

    def prepare_trace(self) -> None:
        pass  # the core needs no warm-up; WARMUP steps simply record nothing

    def start_trace(self) -> None:
        if self.execution_trace_observer:
            self.execution_trace_observer.start()
        from . import _execution_trace

        _execution_trace.yield_session()  # an observer recording on its own hands over the hook
        if _C._profiler_active():
            raise RuntimeError("Profiler is already enabled on this thread (only one profiler can run at a time)")
        self._mem_start = None
        if self._memory_timeline_on():
            from ._memory_timeline import Snapshot

            # Tensors alive before profiling (parameters, inputs...) are only visible now.
            self._mem_start = Snapshot(all_tensors=True)
        # FLOP estimates need the shapes (and scalar arguments) of every op.
        dist_info = _distributed_info()
        if dist_info:
            import json

            self.add_metadata_json("distributedInfo", json.dumps(dist_info))
        # A running execution trace observer reads this session's records: it needs shapes and
        # concrete arguments even when the profile itself does not keep them.
        et = _execution_trace.wants_inputs()
        _C._profiler_start(
            self.record_shapes or self.with_flops or et, self.profile_memory, self.with_stack, self.with_flops or et
        )
        self._window_start_us = _C._profiler_now_ns() / 1000.0
        self._python_spans = []
        if self.with_stack:  # PyTorch's python_function events
            from ._python_tracer import PythonTracer

            self._py_tracer = PythonTracer()
            self._py_tracer.start()
        if self.with_modules:
            self._module_ranges = ModuleRanges()
            self._module_ranges.install()
        self._recording = True

    def stop_trace(self) -> None:
        if self.execution_trace_observer:
            self.execution_trace_observer.stop()
        if not self._recording:
            return
        self._recording = False
        if self._module_ranges is not None:
            self._module_ranges.remove()
            self._module_ranges = None
        if self._py_tracer is not None:
            self._py_tracer.stop()
            self._python_spans = self._py_tracer.spans
            self._py_tracer = None
        raw = _C._profiler_stop()
        self._window_us = (self._window_start_us, _C._profiler_now_ns() / 1000.0)
        from . import _execution_trace

        _execution_trace.deliver(raw)
        if self._mem_start is not None:
            from ._memory_timeline import Snapshot, build_timeline

            self._mem_timeline = build_timeline(raw, self._mem_start, Snapshot(all_tensors=False))
            self._mem_start = None
        events = build_events(
            raw, profile_memory=self.profile_memory, with_flops=self.with_flops, keep_shapes=self.record_shapes
        )
        trace = events.trace_events
        if self.acc_events and self._events is not None:
            trace = self._trace_events + trace
            events = EventList(
                list(self._events) + list(events), profile_memory=self.profile_memory, with_flops=self.with_flops
            )
        self._events = events
        self._trace_events = trace

    def events(self) -> EventList | None:
        """Raw events of the last delivered trace (None before any)."""
        return self._events

    def key_averages(
        self, group_by_input_shape: bool = False, group_by_stack_n: int = 0, group_by_overload_name: bool = False
    ) -> EventList:
        if self._events is None:
            raise AssertionError("Expected profiling results")
        return self._events.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def export_chrome_trace(self, path: str, use_python_export: bool = False) -> None:
        if self._events is None:
            raise AssertionError("Expected profiling results")
        import json

        from ._chrome import export_chrome_trace

        meta = {k: json.loads(v) if _is_json(v) else v for k, v in self.preset_metadata.items()}
        export_chrome_trace(
            self._trace_events, path, metadata=meta, record_shapes=self.record_shapes, with_stack=self.with_stack,
            window_us=self._window_us, python_spans=self._python_spans,
        )

    def _memory_timeline_on(self) -> bool:
        return self.profile_memory and self.record_shapes and self.with_stack

    def export_memory_timeline(self, path: str, device: str | None = None) -> None:
        """Write the memory timeline of the last trace; the format follows `path`'s suffix.

        - ``.html``: a page with the stacked-area plot (bytes per category over time) as a PNG
          (needs matplotlib; without it a message is printed and nothing is written).
        - ``.json`` / ``.json.gz``: ``[times_us, sizes]`` where ``sizes[i]`` is
          ``[0, PARAMETER, OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION, GRADIENT,
          AUTOGRAD_DETAIL, unknown]`` bytes after the events at ``times_us[i]``.
        - ``.raw.json.gz``: ``[time_ns, action, bytes, category]`` per event (action 1..4 =
          PREEXISTING, CREATE, INCREMENT_VERSION, DESTROY; time -1 for pre-existing blocks).
        - any other suffix: the ``.json`` content.

        Needs ``profile_memory``, ``record_shapes`` and ``with_stack``. How blocks are categorized
        is described in ``ember.profiler._memory_timeline``. Deprecated in torch, as here.
        """
        warn(
            "`export_memory_timeline` is deprecated and will be removed in a future version. "
            "Please use `torch.cuda.memory._record_memory_history` and "
            "`torch.cuda.memory._export_memory_snapshot` instead.",
            FutureWarning,
            stacklevel=2,
        )
        missing = [f"{f}=True" for f in ("record_shapes", "profile_memory", "with_stack") if not getattr(self, f)]
        if missing:
            raise ValueError(f"{', '.join(missing)} required for memory profiling.")
        if self._mem_timeline is None:
            raise AssertionError("Profiler and kineto_results must be initialized for memory profiling")
        from ._memory_timeline import export

        export(path, "cpu" if device is None else str(device), self._mem_timeline)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        if self._events is None:
            raise AssertionError("Expected profiling results")
        self._events.export_stacks(path, metric)

    def add_metadata(self, key: str, value: str) -> None:
        import json

        self.preset_metadata[key] = json.dumps(value)

    def add_metadata_json(self, key: str, value: str) -> None:
        self.preset_metadata[key] = value

    def start(self) -> None:
        """Starts collecting events (what entering the ``with`` block does)."""
        self.prepare_trace()
        self.start_trace()

    def stop(self) -> None:
        """Stops collecting events (what leaving the ``with`` block does)."""
        self.stop_trace()


def _distributed_info() -> dict[str, Any] | None:
    """The trace's `distributedInfo` (as PyTorch's): backend, rank, world size and every process
    group, when ember.distributed has a default group (a process that never imported it has none)."""
    import sys

    if "ember.distributed" not in sys.modules:
        return None
    import ember.distributed as dist

    if not dist.is_initialized():
        return None
    from ember.distributed import process_group as pgm

    return {
        "backend": str(dist.get_backend()),
        "rank": dist.get_rank(),
        "world_size": dist.get_world_size(),
        "pg_count": dist.get_pg_count(),
        "pg_config": pgm._get_all_pg_configs(),
    }


def _et_from_env() -> Any:
    """An execution trace observer when ENABLE_PYTORCH_EXECUTION_TRACE=1 asks for one (as torch)."""
    from ._execution_trace import ExecutionTraceObserver

    return ExecutionTraceObserver.build_execution_trace_obs_from_env()


def _is_json(text: str) -> bool:
    import json

    try:
        json.loads(text)
    except ValueError:
        return False
    return True


class profile(_KinetoProfile):
    """Profiler context manager with an optional step schedule (mirrors torch.profiler.profile)."""

    def __init__(
        self,
        *,
        activities: Iterable[ProfilerActivity] | None = None,
        schedule: Callable[[int], ProfilerAction] | None = None,
        on_trace_ready: Callable[[Any], Any] | None = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config: Any = None,
        execution_trace_observer: Any = None,
        acc_events: bool = False,
        use_cuda: bool | None = None,
        custom_trace_id_callback: Callable[[], str] | None = None,
        post_processing_timeout_s: float | None = None,
    ) -> None:
        acts: set[ProfilerActivity] = set(activities) if activities is not None else supported_activities()
        if use_cuda is not None:
            warn("`use_cuda` is deprecated, use `activities` argument instead", FutureWarning, stacklevel=2)
            if use_cuda:
                acts.add(ProfilerActivity.CUDA)
            else:
                acts.discard(ProfilerActivity.CUDA)
        if len(acts) == 0:
            raise AssertionError("No valid profiler activities found")
        super().__init__(
            activities=acts,
            record_shapes=record_shapes,
            profile_memory=profile_memory,
            with_stack=with_stack,
            with_flops=with_flops,
            with_modules=with_modules,
            experimental_config=experimental_config,
            execution_trace_observer=execution_trace_observer or _et_from_env(),
            acc_events=acc_events,
            custom_trace_id_callback=custom_trace_id_callback,
            post_processing_timeout_s=post_processing_timeout_s,
        )
        if schedule:
            self.schedule = schedule
            self.record_steps = True  # ProfilerStep#<n> ranges mark each step
        else:
            self.schedule = _default_schedule_fn
            self.record_steps = False
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        KinetoStepTracker.init_step_count(PROFILER_STEP_NAME)
        self.step_rec_fn: record_function | None = None
        self.current_action = self.schedule(self.step_num)
        A = ProfilerAction
        self.action_map: dict[tuple[ProfilerAction, ProfilerAction | None], list[Callable[[], Any]]] = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [self.prepare_trace],
            (A.NONE, A.RECORD): [self.prepare_trace, self.start_trace],
            (A.NONE, A.RECORD_AND_SAVE): [self.prepare_trace, self.start_trace],
            (A.WARMUP, A.NONE): [
                partial(warn, "Incorrect schedule: WARMUP followed by NONE"), self.start_trace, self.stop_trace,
            ],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [self.start_trace],
            (A.WARMUP, A.RECORD_AND_SAVE): [self.start_trace],
            (A.RECORD, A.NONE): [partial(warn, "Incorrect schedule: RECORD followed by NONE"), self.stop_trace],
            (A.RECORD, A.WARMUP): [partial(warn, "Incorrect schedule: RECORD followed by WARMUP"), self.stop_trace],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [self.stop_trace, self._trace_ready, self.prepare_trace],
            (A.RECORD_AND_SAVE, A.RECORD): [self.stop_trace, self._trace_ready, self.prepare_trace, self.start_trace],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [
                self.stop_trace, self._trace_ready, self.prepare_trace, self.start_trace,
            ],
            (A.WARMUP, None): [self.start_trace, self.stop_trace],
            (A.RECORD, None): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, None): [self.stop_trace, self._trace_ready],
        }

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        self.stop()
        KinetoStepTracker.erase_step_count(PROFILER_STEP_NAME)
        if self.execution_trace_observer:
            self.execution_trace_observer.cleanup()  # writes the finished execution trace

    def start(self) -> None:
        """Starts the profiler in the state its ``schedule`` gives step 0 (what entering the
        ``with`` block does)."""
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function(f"{PROFILER_STEP_NAME}#{self.step_num}")
            self.step_rec_fn.__enter__()

    def stop(self) -> None:
        """Stops the profiler, finishing the current step and handing a ready trace to
        ``on_trace_ready``."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self) -> None:
        """Signal that the next profiling step has started."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev_action = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(prev_action, self.current_action)
        if daemon_steps():
            KinetoStepTracker.increment_step(PROFILER_STEP_NAME)
        if self.record_steps:
            self.step_rec_fn = record_function(f"{PROFILER_STEP_NAME}#{self.step_num}")
            self.step_rec_fn.__enter__()

    def _trace_ready(self) -> None:
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action: ProfilerAction, current_action: ProfilerAction | None) -> None:
        for action in self.action_map.get((prev_action, current_action), []):
            action()
