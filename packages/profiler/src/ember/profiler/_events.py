"""Event model: FunctionEvent / FunctionEventAvg / EventList built from the core's raw records.

The core hook returns flat tuples; here they become a per-thread tree (parents from nesting
depth), with memory records folded into the ops that were open when they happened.
"""

from __future__ import annotations

import ast
import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

MEMORY_EVENT_NAME = "[memory]"
_new = object.__new__


@contextmanager
def gc_paused() -> Iterator[None]:
    """Build many long-lived objects without collector passes: each pass would traverse the
    growing heap of objects that all survive anyway."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _format_time(time_us: float) -> str:
    if time_us >= 1_000_000.0:
        return f"{time_us / 1_000_000.0:.3f}s"
    if time_us >= 1000.0:
        return f"{time_us / 1000.0:.3f}ms"
    return f"{time_us:.3f}us"


def _format_memory(nbytes: int) -> str:
    kb, mb, gb = 1024, 1024 * 1024, 1024 * 1024 * 1024
    if abs(nbytes) >= gb:
        return f"{nbytes * 1.0 / gb:.2f} GB"
    if abs(nbytes) >= mb:
        return f"{nbytes * 1.0 / mb:.2f} MB"
    if abs(nbytes) >= kb:
        return f"{nbytes * 1.0 / kb:.2f} KB"
    return f"{nbytes} B"


class Interval:
    """A [start, end] time range in microseconds."""

    __slots__ = ("start", "end")

    def __init__(self, start: float, end: float) -> None:
        self.start = start
        self.end = end

    def elapsed_us(self) -> float:
        """The interval's length in microseconds."""
        return self.end - self.start

    def __repr__(self) -> str:
        return f"Interval(start={self.start}, end={self.end})"


class _FormattedTimesMixin:
    """`*_str` properties shared by FunctionEvent and FunctionEventAvg."""

    @property
    def cpu_time_str(self) -> str:
        return _format_time(self.cpu_time)  # type: ignore[attr-defined]

    @property
    def cpu_time_total_str(self) -> str:
        return _format_time(self.cpu_time_total)  # type: ignore[attr-defined]

    @property
    def self_cpu_time_total_str(self) -> str:
        return _format_time(self.self_cpu_time_total)  # type: ignore[attr-defined]

    @property
    def device_time_str(self) -> str:
        return _format_time(self.device_time)  # type: ignore[attr-defined]

    @property
    def device_time_total_str(self) -> str:
        return _format_time(self.device_time_total)  # type: ignore[attr-defined]

    @property
    def self_device_time_total_str(self) -> str:
        return _format_time(self.self_device_time_total)  # type: ignore[attr-defined]

    @property
    def cuda_time_total(self) -> float:
        return self.device_time_total  # type: ignore[attr-defined]

    @property
    def self_cuda_time_total(self) -> float:
        return self.self_device_time_total  # type: ignore[attr-defined]

    @property
    def cuda_time(self) -> float:
        return self.device_time  # type: ignore[attr-defined]


class FunctionEvent(_FormattedTimesMixin):
    """One profiled range (operator, autograd node or user range)."""

    # Fields that are the same for nearly every recorded event live on the class: build_events
    # then stores only what varies (half the attribute writes per event, which is most of the
    # profiler's per-op cost). Writing one of them on an event shadows the default as usual.
    node_id = -1
    overload_name = ""
    fwd_thread: int | None = None
    count = 1
    cpu_parent: FunctionEvent | None = None
    kwinputs: dict[str, Any] | None = None
    scope = 0
    use_device: str | None = None
    cpu_memory_usage = 0
    device_memory_usage = 0
    is_async = False
    is_remote = False
    sequence_nr = -1
    device_type = "CPU"
    device_index = 0
    is_legacy = False
    flops: int | None = None
    is_user_annotation = False
    fwd_event: FunctionEvent | None = None
    _input_types: list[Any] | None = None  # the trace's "Input type" / "Input Strides" (record_shapes)
    _input_strides: list[Any] | None = None
    self_cpu_percent = -1
    total_cpu_percent = -1
    total_device_percent = -1

    def __init__(
        self,
        id: int,
        name: str,
        thread: int,
        start_us: float,
        end_us: float,
        overload_name: str = "",
        fwd_thread: int | None = None,
        input_shapes: list[Any] | None = None,
        stack: list[str] | None = None,
        scope: int = 0,
        use_device: str | None = None,
        cpu_memory_usage: int = 0,
        device_memory_usage: int = 0,
        is_async: bool = False,
        is_remote: bool = False,
        sequence_nr: int = -1,
        node_id: int = -1,
        device_type: str = "CPU",
        device_index: int = 0,
        is_legacy: bool = False,
        flops: int | None = None,
        trace_name: str | None = None,
        concrete_inputs: list[Any] | None = None,
        kwinputs: dict[str, Any] | None = None,
        is_user_annotation: bool = False,
    ) -> None:
        self.id = id
        self.node_id = node_id
        self.name = name
        self.overload_name = overload_name
        self.trace_name = trace_name if trace_name is not None else name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.kernels: list[Any] = []
        self.cpu_children: list[FunctionEvent] = []
        self.input_shapes = input_shapes
        self.concrete_inputs = concrete_inputs
        self.kwinputs = kwinputs
        self.stack = stack if stack is not None else []
        self.scope = scope
        self.use_device = use_device
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.device_type = device_type
        self.device_index = device_index
        self.is_legacy = is_legacy
        self.flops = flops
        self.is_user_annotation = is_user_annotation
        # Backward nodes point at the forward op that created them (same sequence number).
        self.bwd_events: list[FunctionEvent] = []

    @classmethod
    def _recorded(
        cls, id: int, name: str, trace_name: str, thread: int, start_us: float, end_us: float,
        input_shapes: list[Any], stack: list[str], sequence_nr: int, kind: str, concrete_inputs: list[Any] | None,
    ) -> FunctionEvent:
        """build_events' fast path: only the per-event fields are stored (the rest are class
        defaults)."""
        evt = _new(cls)
        evt.id = id
        evt.name = name
        evt.trace_name = trace_name
        evt.time_range = Interval(start_us, end_us)
        evt.thread = thread
        evt.kernels = []
        evt.cpu_children = []
        evt.input_shapes = input_shapes
        evt.concrete_inputs = concrete_inputs
        evt.stack = stack
        evt.sequence_nr = sequence_nr
        evt.bwd_events = []
        evt._kind = kind
        if kind == "user":
            evt.is_user_annotation = True
        return evt

    def append_cpu_child(self, child: FunctionEvent) -> None:
        """Records ``child`` as an event nested inside this one (on the same thread)."""
        if not isinstance(child, FunctionEvent):
            raise AssertionError("append_cpu_child expects a FunctionEvent")
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent: FunctionEvent) -> None:
        """Records ``parent`` as the event this one is nested in."""
        if not isinstance(parent, FunctionEvent):
            raise AssertionError("set_cpu_parent expects a FunctionEvent")
        self.cpu_parent = parent

    @property
    def key(self) -> str:
        return self.name

    @property
    def self_cpu_memory_usage(self) -> int:
        if self.is_async:
            return 0
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_device_memory_usage(self) -> int:
        return 0

    @property
    def cpu_time_total(self) -> float:
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self) -> float:
        if self.is_async:
            return 0
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def device_time_total(self) -> float:
        return 0.0  # CPU-only build: no device kernels are ever recorded.

    @property
    def self_device_time_total(self) -> float:
        return 0.0

    @property
    def device_time(self) -> float:
        return 0.0

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent id={self.id} name={self.name} overload_name={self.overload_name} "
            f"device_type={self.device_type} node_id={self.node_id} "
            f"cpu_time={self.cpu_time_str} start_us={self.time_range.start} "
            f"end_us={self.time_range.end} "
            f"cpu_children={[c.id for c in self.cpu_children]} "
            f"thread={self.thread} input_shapes={self.input_shapes} "
            f"cpu_memory_usage={self.cpu_memory_usage} is_async={self.is_async} "
            f"sequence_nr={self.sequence_nr} flops={self.flops}>"
        )


class FunctionEventAvg(_FormattedTimesMixin):
    """Statistics of all events sharing a key (and optionally shapes / stack / overload)."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device: str | None = None
        self.cpu_time_total = 0.0
        self.device_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.self_device_time_total = 0.0
        self.input_shapes: list[Any] | None = None
        self.overload_name: str | None = None
        self.stack: list[str] | None = None
        self.scope: int | None = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children: list[FunctionEvent] | None = None
        self.cpu_parent: FunctionEvent | None = None
        self.device_type = "CPU"
        self.is_legacy = False
        self.flops = 0
        self.is_user_annotation = False

    def add(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        """Accumulates ``other`` (an event or another average with the same key) into this average;
        returns it."""
        if self.key is None:
            # The first event fixes the descriptive fields of the group.
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.overload_name = other.overload_name
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.device_type = other.device_type
            self.is_legacy = other.is_legacy
            self.use_device = other.use_device
            self.is_user_annotation = other.is_user_annotation
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("add expects a FunctionEvent or FunctionEventAvg")
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match: {other.key} vs {self.key}")
        self.cpu_time_total += other.cpu_time_total
        self.device_time_total += other.device_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.self_device_time_total += other.self_device_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.self_device_memory_usage += other.self_device_memory_usage
        self.count += other.count
        if other.flops is not None:
            self.flops = (self.flops or 0) + other.flops
        return self

    def __iadd__(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        return self.add(other)

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def device_time(self) -> float:
        return 0.0 if self.count == 0 else self.device_time_total / self.count

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
            f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes} "
            f"cpu_memory_usage={self.cpu_memory_usage}>"
        )


class EventList(list):
    """A list of FunctionEvents with summary helpers."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        use_device = kwargs.pop("use_device", None)
        profile_memory = kwargs.pop("profile_memory", False)
        with_flops = kwargs.pop("with_flops", False)
        super().__init__(*args, **kwargs)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._tree_built = False
        self.trace_events: list[Any] = []  # build_events: every range, the twins merged above included

    def _like(self, events: Iterable[Any]) -> EventList:
        return EventList(
            events, use_device=self._use_device, profile_memory=self._profile_memory, with_flops=self._with_flops
        )

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def table(
        self,
        sort_by: str | None = None,
        row_limit: int = 100,
        max_src_column_width: int = 75,
        max_name_column_width: int = 55,
        max_shapes_column_width: int = 80,
        header: str | None = None,
        top_level_events_only: bool = False,
        time_unit: str | None = None,
    ) -> str:
        """The events as a text table, one row per event (or per key after ``key_averages``): name,
        self and total CPU time, memory and call count, sorted by ``sort_by`` and cut to ``row_limit``.
        """
        from ._table import build_table

        return build_table(
            self,
            sort_by=sort_by,
            row_limit=row_limit,
            max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width,
            header=header,
            profile_memory=self._profile_memory,
            with_flops=self._with_flops,
            top_level_events_only=top_level_events_only,
            time_unit=time_unit,
        )

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str) -> None:
        """Writes the events as a Chrome trace (JSON) to ``path``, for chrome://tracing or
        Perfetto."""
        from ._chrome import export_chrome_trace

        export_chrome_trace(self, path)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Writes one line per call stack with its ``metric`` to ``path``, the input of flame-graph
        tools (needs ``with_stack=True``)."""
        from ._chrome import export_stacks

        export_stacks(self, path, metric)

    def supported_export_stacks_metrics(self) -> list[str]:
        """The metric names ``export_stacks`` accepts."""
        return ["self_cpu_time_total", "self_cuda_time_total", "self_xpu_time_total", "self_privateuse1_time_total"]

    def key_averages(
        self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0, group_by_overload_name: bool = False
    ) -> EventList:
        """The events grouped by name (and, as asked, by input shapes or call stack), each group
        averaged into one ``FunctionEventAvg``; returns an EventList of them.
        """
        groups: dict[tuple[Any, ...], FunctionEventAvg] = {}
        for evt in self:
            key: tuple[Any, ...] = (evt.key, evt.node_id)
            if group_by_input_shapes:
                key += (str(evt.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(evt.stack[:group_by_stack_n])
            if group_by_overload_name:
                key += (evt.overload_name,)
            avg = groups.get(key)
            if avg is None:
                avg = groups[key] = FunctionEventAvg()
            avg.add(evt)
        for avg in groups.values():
            # Averages keep only the frames they were grouped by (none by default), as in PyTorch.
            avg.stack = (avg.stack or [])[:group_by_stack_n]
            if not group_by_input_shapes:
                avg.input_shapes = ""  # type: ignore[assignment]
            if not group_by_overload_name:
                avg.overload_name = ""
        return self._like(groups.values())

    def total_average(self) -> FunctionEventAvg:
        """One ``FunctionEventAvg`` summing every event."""
        total = FunctionEventAvg()
        for evt in self:
            total += evt
            total.key = None
        total.key = "Total"
        return total


def _parse_shapes(text: str) -> tuple[list[Any], list[Any], list[Any]]:
    """The core's inputs text -> (dims, types, strides); older cores wrote the dims alone."""
    if not text:
        return [], [], []
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return [], [], []
    if isinstance(value, tuple) and len(value) == 3:
        return value[0], value[1], value[2]
    return (value if isinstance(value, list) else []), [], []


# The core's thread ids are 64-bit hashes; JSON viewers lose precision above 2**53, so each
# thread gets a small stable number (1 = first thread seen in this process).
_THREAD_NUMBERS: dict[int, int] = {}


def _thread_number(raw_id: int) -> int:
    n = _THREAD_NUMBERS.get(raw_id)
    if n is None:
        n = _THREAD_NUMBERS[raw_id] = len(_THREAD_NUMBERS) + 1
    return n


_SHORT_PATHS: dict[str, str] = {}


def _short_path(path: str) -> str:
    """A source path relative to the sys.path entry that holds it (`pkg/mod.py`), as torch shows
    it."""
    short = _SHORT_PATHS.get(path)
    if short is None:
        import os
        import sys

        short = path
        best = ""
        for entry in sys.path:
            root = os.path.abspath(entry or os.getcwd()).rstrip(os.sep) + os.sep
            if path.startswith(root) and len(root) > len(best):
                best = root
        if best:
            short = path[len(best) :]
        _SHORT_PATHS[path] = short
    return short


def _parse_stack(text: str) -> list[str]:
    frames = []
    for line in text.split("\n") if text else []:
        path, sep, rest = line.partition("(")
        frames.append(_short_path(path) + sep + rest if sep else line)
    return frames


def _parse_concrete(text: str) -> list[Any]:
    if not text:
        return []
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return []
    return value if isinstance(value, list) else []


def build_events(
    raw: list[tuple[Any, ...]],
    *,
    profile_memory: bool,
    first_id: int = 0,
    with_flops: bool = False,
    keep_shapes: bool = True,
) -> EventList:
    """Turn the core's raw records into FunctionEvents with parent/child links and memory totals.

    with_flops: estimate FLOPs from shapes and concrete arguments; keep_shapes=False drops the
    shapes afterwards (recorded only for that, or for an execution trace observer).
    """
    events: list[FunctionEvent] = []
    stacks: dict[int, list[tuple[int, FunctionEvent]]] = {}
    by_seq: dict[int, FunctionEvent] = {}
    backward: list[FunctionEvent] = []
    next_id = first_id
    # The same shape / stack / argument texts recur across events: parse each distinct one once.
    shapes_cache: dict[str, list[Any]] = {}
    stack_cache: dict[str, list[str]] = {}
    concrete_cache: dict[str, list[Any]] = {}
    recorded = FunctionEvent._recorded
    append = events.append
    with gc_paused():
        for rec in raw:
            # Newer cores append fields (e.g. input addresses for the memory timeline) after these.
            name, kind, start_ns, end_ns, raw_thread, depth, seq, shapes, nbytes, stack_text, concrete = rec[:11]
            thread = _thread_number(raw_thread)
            stack = stacks.get(thread)
            if stack is None:
                stack = stacks[thread] = []
            # `depth` is the nesting level on this thread: every open range at this depth or deeper
            # has closed. Depths can skip levels (a range opened before the session is not reported).
            while stack and stack[-1][0] >= depth:
                stack.pop()
            parent = stack[-1][1] if stack else None
            if kind == "memory":
                if not profile_memory:
                    continue
                if parent is not None:
                    # Inclusive memory: every enclosing range counts the allocation.
                    node: FunctionEvent | None = parent
                    while node is not None:
                        node.cpu_memory_usage += nbytes
                        node = node.cpu_parent
                    continue
                evt = FunctionEvent(
                    next_id, MEMORY_EVENT_NAME, thread, start_ns / 1000.0, start_ns / 1000.0, input_shapes=[],
                    cpu_memory_usage=nbytes,
                )
                next_id += 1
                append(evt)
                continue
            parsed = shapes_cache.get(shapes)
            if parsed is None:
                parsed = shapes_cache[shapes] = _parse_shapes(shapes)
            shape_list = parsed[0]
            frames = stack_cache.get(stack_text)
            if frames is None:
                frames = stack_cache[stack_text] = _parse_stack(stack_text)
            args = None
            if with_flops:
                args = concrete_cache.get(concrete)
                if args is None:
                    args = concrete_cache[concrete] = _parse_concrete(concrete)
            evt = recorded(
                next_id,
                # All steps aggregate into one row in tables, as PyTorch does (the trace keeps `name`).
                "ProfilerStep*" if name.startswith("ProfilerStep#") else name,
                name,
                thread,
                start_ns / 1000.0,
                end_ns / 1000.0,
                # Each event gets its own lists (callers may edit them); the parse is shared.
                [list(x) if isinstance(x, list) else x for x in shape_list] if shape_list else [],
                list(frames) if frames else [],
                seq,
                kind,
                args,
            )
            if parsed[1]:
                evt._input_types = parsed[1]
                evt._input_strides = parsed[2]
            next_id += 1
            if parent is not None:
                evt.cpu_parent = parent
                parent.cpu_children.append(evt)
            stack.append((depth, evt))
            append(evt)
            if kind == "op":
                # The core keeps an op's sequence number only if a graph node was made inside it;
                # the innermost such op (the last to start) made the node, as PyTorch links them.
                if seq >= 0:
                    by_seq[seq] = evt
            elif kind == "backward":
                backward.append(evt)
    for evt in backward:
        if evt.name.startswith("autograd::engine::"):
            continue  # the engine's range around a node: the node itself is what the forward op made
        fwd = by_seq.get(evt.sequence_nr)
        if fwd is not None:
            evt.fwd_event = fwd
            evt.fwd_thread = fwd.thread
            fwd.bwd_events.append(evt)
    if with_flops:
        from ._flops import assign_flops

        assign_flops(events)
    if not keep_shapes:  # recorded only for FLOP estimates or an execution trace observer
        for evt in events:
            evt.input_shapes = []
    result = EventList(events, profile_memory=profile_memory, with_flops=with_flops)
    result.trace_events = list(events)  # every recorded range, for the trace (kineto's keeps them all)
    _drop_nested_twins(result)
    return result


def _drop_nested_twins(events: EventList) -> None:
    """As PyTorch's EventList: an op whose only child has its name (div_(Scalar) calling
    div_(Tensor)) shows as one event; the child's children become its own."""
    while True:
        twins = {id(e) for e in events
                 if e.cpu_parent is not None and e.cpu_parent.name == e.name and len(e.cpu_parent.cpu_children) == 1}
        if not twins:
            return
        for e in events:
            if id(e) in twins:
                e.cpu_parent.cpu_children = e.cpu_children
                for c in e.cpu_children:
                    c.cpu_parent = e.cpu_parent
        events[:] = [e for e in events if id(e) not in twins]
