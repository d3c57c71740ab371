"""EventList.table() layout matches torch's for the same event data."""

from __future__ import annotations

from typing import Any

import pytest
from ember.profiler import EventList, FunctionEvent
from ember.profiler._events import _format_memory, _format_time

torch = pytest.importorskip("torch")
from torch.autograd import profiler_util as tpu  # noqa: E402

# (name, start_us, end_us, parent index or None, input shapes, cpu memory)
SPEC: list[tuple[str, float, float, int | None, list[Any], int]] = [
    ("my_block", 0.0, 9834.0, None, [], 4096),
    ("aten::matmul", 10.0, 2510.0, 0, [[64, 64], [64, 64]], 2048),
    ("aten::mm", 20.0, 2400.0, 1, [[64, 64], [64, 64]], 2048),
    ("aten::matmul", 3000.0, 5500.0, 0, [[64, 64], [64, 64]], 1024),
    ("aten::mm", 3010.0, 5400.0, 3, [[64, 64], [64, 64]], 1024),
    ("aten::add", 6000.0, 6050.301, 0, [[64, 64], []], -98314),
    ("a_really_long_user_range_name_that_will_need_truncating_in_tables", 7000.0, 7100.0, 0, [], 3 * 1024 ** 3),
]


def build(mod_event: Any, mod_list: Any, profile_memory: bool, shapes: bool) -> Any:
    events = []
    for i, (name, s, e, parent, sh, mem) in enumerate(SPEC):
        kw = {"input_shapes": sh if shapes else None, "cpu_memory_usage": mem, "stack": []}
        if mod_event is tpu.FunctionEvent:
            kw["use_device"] = None
        evt = mod_event(id=i, name=name, thread=1, start_us=s, end_us=e, **kw)
        if parent is not None:
            evt.set_cpu_parent(events[parent])
            events[parent].append_cpu_child(evt)
        events.append(evt)
    out = mod_list(events, profile_memory=profile_memory)
    out._tree_built = True  # parents were linked above
    return out


@pytest.mark.parametrize("profile_memory", [False, True])
@pytest.mark.parametrize("shapes", [False, True])
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"sort_by": "cpu_time_total"},
        {"sort_by": "self_cpu_time_total", "row_limit": 2},
        {"sort_by": "self_cuda_time_total"},
        {"sort_by": "count"},
        {"header": "HEADER"},
        {"top_level_events_only": True},
        {"time_unit": "ms"},
        {"time_unit": "s"},
        {"time_unit": "us"},
        {"max_name_column_width": 10},
        {"max_shapes_column_width": 12},
    ],
)
def test_table_matches_torch(profile_memory: bool, shapes: bool, kwargs: dict[str, Any]) -> None:
    ours = build(FunctionEvent, EventList, profile_memory, shapes)
    theirs = build(tpu.FunctionEvent, tpu.EventList, profile_memory, shapes)
    assert ours.table(**kwargs) == theirs.table(**kwargs)
    assert ours.key_averages().table(**kwargs) == theirs.key_averages().table(**kwargs)
    assert ours.key_averages(group_by_input_shapes=True).table(**kwargs) == theirs.key_averages(
        group_by_input_shapes=True
    ).table(**kwargs)


def test_event_properties_match_torch() -> None:
    ours = build(FunctionEvent, EventList, True, True)
    theirs = build(tpu.FunctionEvent, tpu.EventList, True, True)
    for a, b in zip(ours, theirs, strict=True):
        for attr in ("key", "cpu_time_total", "self_cpu_time_total", "cpu_time", "count",
                     "cpu_memory_usage", "self_cpu_memory_usage", "input_shapes"):
            assert getattr(a, attr) == pytest.approx(getattr(b, attr)) if isinstance(getattr(b, attr), float) \
                else getattr(a, attr) == getattr(b, attr), attr
    ta, tb = ours.total_average(), theirs.total_average()
    assert ta.key == tb.key == "Total"
    assert (ta.count, ta.cpu_time_total, ta.self_cpu_time_total) == (
        tb.count, tb.cpu_time_total, tb.self_cpu_time_total)
    assert ours.self_cpu_time_total == pytest.approx(theirs.self_cpu_time_total)
    for a, b in zip(ours.key_averages(), theirs.key_averages(), strict=True):
        assert (a.key, a.count, a.cpu_time_str, a.self_cpu_time_total_str) == (
            b.key, b.count, b.cpu_time_str, b.self_cpu_time_total_str)


def test_unknown_sort_key() -> None:
    with pytest.raises(AttributeError, match="'FunctionEventAvg' object has no attribute 'bogus'"):
        build(FunctionEvent, EventList, False, False).key_averages().table(sort_by="bogus")


def test_empty_table() -> None:
    assert EventList().table() == ""


@pytest.mark.parametrize("us", [0.0, 1.5, 999.9999, 1000.0, 7339.0, 1e6, 12345678.9])
def test_format_time(us: float) -> None:
    assert _format_time(us) == tpu._format_time(us)


@pytest.mark.parametrize("n", [0, 4, -4, 1023, 1024, 49152, -98314, 5 * 1024 ** 2, 3 * 1024 ** 3])
def test_format_memory(n: int) -> None:
    assert _format_memory(n) == tpu._format_memory(n)
