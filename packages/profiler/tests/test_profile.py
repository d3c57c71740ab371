"""ember.profiler.profile / schedule / record_function / exports, checked against torch.profiler."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import warnings
from pathlib import Path
from typing import Any

import ember
import ember.profiler as eprof
import pytest
from ember.profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule

torch = pytest.importorskip("torch")


@pytest.mark.parametrize(
    "wait,warmup,active,repeat,skip_first,skip_first_wait",
    [c for c in itertools.product([0, 1, 2], [0, 1], [1, 2], [0, 1, 2], [0, 1, 3], [0, 1])],
)
def test_schedule_sequences_match_torch(
    wait: int, warmup: int, active: int, repeat: int, skip_first: int, skip_first_wait: int
) -> None:
    kw = dict(wait=wait, warmup=warmup, active=active, repeat=repeat, skip_first=skip_first,
              skip_first_wait=skip_first_wait)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = schedule(**kw), torch.profiler.schedule(**kw)
    assert [ours(i).name for i in range(20)] == [theirs(i).name for i in range(20)]


def test_schedule_errors_and_warnings() -> None:
    with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
        schedule(wait=-1, warmup=1, active=1)
    with pytest.raises(AssertionError, match=r"active=0 \(need > 0\)"):
        schedule(wait=0, warmup=1, active=0)
    with pytest.warns(UserWarning, match="Profiler won't be using warmup"):
        fn = schedule(wait=0, warmup=0, active=1)
    assert all(fn(i) is ProfilerAction.RECORD_AND_SAVE for i in range(5))
    with pytest.raises(AssertionError, match="Step must be non-negative"):
        fn(-1)


def test_activities() -> None:
    assert eprof.supported_activities() == {ProfilerActivity.CPU}
    assert {a.name for a in ProfilerActivity} >= {"CPU", "CUDA", "XPU", "MTIA", "HPU", "PrivateUse1"}
    with pytest.warns(FutureWarning, match="use_cuda"):
        profile(use_cuda=False)
    with pytest.raises(AssertionError, match="No valid profiler activities"):
        profile(activities=[])


def run_steps(lib: Any, sched: Any, n: int) -> list[tuple[int, int]]:
    """Returns (step_num, number of add events) for each on_trace_ready call."""
    calls: list[tuple[int, int]] = []

    def ready(p: Any) -> None:
        calls.append((p.step_num, sum(1 for e in p.events() if e.name == "aten::add")))

    a = lib.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], schedule=sched,
                                  on_trace_ready=ready) as p:
            for _ in range(n):
                a + a
                p.step()
    return calls


@pytest.mark.parametrize(
    "kw,n",
    [
        (dict(wait=1, warmup=1, active=2, repeat=2), 12),
        (dict(wait=1, warmup=1, active=2), 10),
        (dict(wait=0, warmup=1, active=2), 2),
        (dict(wait=0, warmup=0, active=1), 3),
        (dict(wait=1, warmup=1, active=2, repeat=1, skip_first=1), 10),
    ],
)
def test_on_trace_ready_timing_matches_torch(kw: dict[str, int], n: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = run_steps(ember, eprof.schedule(**kw), n)
        theirs = run_steps(torch, torch.profiler.schedule(**kw), n)
    assert ours == theirs


def test_no_schedule_calls_once_and_records_everything() -> None:
    calls: list[int] = []
    a = ember.ones(2)
    with profile(on_trace_ready=lambda p: calls.append(p.step_num)) as p:
        a + a
        a * a
    assert calls == [0]
    names = [e.name for e in p.events()]
    assert names.count("aten::add") == 1 and names.count("aten::mul") == 1
    assert p.step_num == 0


def test_profiler_step_ranges() -> None:
    a = ember.ones(2)
    with profile(schedule=schedule(wait=0, warmup=1, active=3, repeat=1)) as p:
        for _ in range(5):
            a + a
            p.step()
    evs = p.events()
    steps = [e for e in evs if e.name == "ProfilerStep*"]
    assert [e.trace_name for e in steps] == ["ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#3"]
    adds = [e for e in evs if e.name == "aten::add"]
    assert len(adds) == 3 and all(e.cpu_parent in steps for e in adds)


def test_record_function_nesting_and_decorator() -> None:
    a, b = ember.ones(2, 3), ember.ones(3)

    @record_function("deco")
    def f(x: Any) -> Any:
        return x * x

    with profile(record_shapes=True) as p:
        with record_function("blk") as rf:
            c = a + b
            f(c)
    assert isinstance(rf, record_function)
    ev = {e.name: e for e in p.events()}
    assert ev["blk"].cpu_parent is None
    assert ev["aten::add"].cpu_parent is ev["blk"]
    assert ev["deco"].cpu_parent is ev["blk"] and ev["aten::mul"].cpu_parent is ev["deco"]
    assert ev["blk"].cpu_children == [ev["aten::add"], ev["deco"]]
    assert ev["aten::add"].input_shapes == [[2, 3], [3]]
    blk = ev["blk"]
    assert blk.self_cpu_time_total == pytest.approx(
        blk.cpu_time_total - ev["aten::add"].cpu_time_total - ev["deco"].cpu_time_total)
    assert blk.cpu_time_total >= ev["deco"].cpu_time_total >= ev["aten::mul"].cpu_time_total
    # Outside a session record_function is a harmless no-op.
    with record_function("idle"):
        a + b
    assert f(a).shape == (2, 3)


def test_key_averages_and_table_shape() -> None:
    a = ember.ones(4)
    with profile(record_shapes=True) as p:
        for _ in range(3):
            a + a
        a + ember.ones(2, 4)
    avg = p.key_averages()
    add = [e for e in avg if e.key == "aten::add"][0]
    assert add.count == 4 and add.cpu_time == pytest.approx(add.cpu_time_total / 4)
    by_shape = p.key_averages(group_by_input_shape=True)
    assert sorted(e.count for e in by_shape if e.key == "aten::add") == [1, 3]
    table = by_shape.table(sort_by="count", row_limit=10)
    lines = table.splitlines()
    assert lines[0] == lines[2] == lines[-2] and set(lines[0]) == {"-", " "}
    assert "Input Shapes" in lines[1] and "[[4], [4]]" in lines[3]
    assert lines[-1].startswith("Self CPU time total: ")
    with pytest.raises(AttributeError):
        avg.table(sort_by="bogus")


def test_profile_memory_attribution() -> None:
    with profile(profile_memory=True) as p:
        with record_function("outer"):
            a = ember.ones(1024)  # allocation outside any hooked op but inside "outer"
            b = a + a
    ev = {e.name: e for e in p.events()}
    assert ev["aten::add"].cpu_memory_usage >= 1024 * 4
    assert ev["aten::add"].self_cpu_memory_usage == ev["aten::add"].cpu_memory_usage
    assert ev["outer"].cpu_memory_usage >= 2 * 1024 * 4
    table = p.key_averages().table()
    assert "CPU Mem" in table and "Self CPU Mem" in table and " KB" in table
    del b


def test_profile_without_memory_hides_columns() -> None:
    with profile() as p:
        ember.ones(2) + ember.ones(2)
    table = p.key_averages().table()
    assert "CPU Mem" not in table and "Input Shapes" not in table and "[memory]" not in table


def test_backward_events_link_forward() -> None:
    if not hasattr(ember.Tensor, "backward"):
        pytest.skip("core without autograd")
    x = ember.ones(3).requires_grad_(True)
    with profile() as p:
        y = x * x
        y.sum().backward()
    evs = p.events()
    bwd = [e for e in evs if e.name == "MulBackward0"]
    if not bwd:
        pytest.skip("core does not emit backward events")
    assert bwd[0].fwd_event is not None and bwd[0].fwd_event.name == "aten::mul"
    assert bwd[0].sequence_nr == bwd[0].fwd_event.sequence_nr


@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_export_chrome_trace(tmp_path: Path, suffix: str) -> None:
    a = ember.ones(2)
    with profile(record_shapes=True) as p:
        with record_function("blk"):
            a + a
    path = str(tmp_path / ("t" + suffix))
    p.export_chrome_trace(path)
    opener = gzip.open if suffix.endswith(".gz") else open
    with opener(path, "rt") as fh:
        trace = json.load(fh)
    assert set(trace) >= {"schemaVersion", "deviceProperties", "trace_id", "host_name", "displayTimeUnit",
                          "baseTimeNanoseconds", "traceEvents", "traceName"}
    by_name = {e["name"]: e for e in trace["traceEvents"]}
    op = by_name["aten::add"]
    assert op["ph"] == "X" and op["cat"] == "cpu_op" and op["args"]["Input Dims"] == [[2], [2]]
    assert {"pid", "tid", "ts", "dur"} <= set(op)
    assert by_name["blk"]["cat"] == "user_annotation"
    assert by_name["blk"]["ts"] <= op["ts"] and op["dur"] <= by_name["blk"]["dur"]


def test_tensorboard_trace_handler(tmp_path: Path) -> None:
    d = tmp_path / "logs"
    handler = eprof.tensorboard_trace_handler(str(d), worker_name="w0")
    with profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=2), on_trace_ready=handler) as p:
        for _ in range(5):
            ember.ones(2) + ember.ones(2)
            p.step()
    files = sorted(os.listdir(d))
    assert len(files) == 2 and all(f.startswith("w0.") and f.endswith(".pt.trace.json") for f in files)
    gz = eprof.tensorboard_trace_handler(str(d / "gz"), use_gzip=True)
    with profile(on_trace_ready=gz):
        ember.ones(2) + ember.ones(2)
    (name,) = os.listdir(d / "gz")
    assert name.endswith(".pt.trace.json.gz") and "_" in name
    blocker = tmp_path / "file"
    blocker.write_text("x")
    bad = eprof.tensorboard_trace_handler(str(blocker / "sub"))
    with pytest.raises(RuntimeError, match="Can't create directory"):
        with profile(on_trace_ready=bad):
            pass


def test_start_stop_explicit_and_nested_error() -> None:
    p = profile()
    p.start()
    ember.ones(2) + ember.ones(2)
    with pytest.raises(RuntimeError, match="already enabled"):
        profile().start()
    p.stop()
    assert any(e.name == "aten::add" for e in p.events())
    assert not ember._lib._C._profiler_active()


def test_record_to_none_warns() -> None:
    seq = [ProfilerAction.RECORD, ProfilerAction.NONE, ProfilerAction.NONE]
    with pytest.warns(UserWarning, match="Incorrect schedule: RECORD followed by NONE"):
        with profile(schedule=lambda s: seq[min(s, 2)]) as p:
            p.step()


def test_tree_from_raw_records_with_missing_levels() -> None:
    from ember.profiler._events import build_events

    t = 7
    raw = [
        # An enclosing range opened before the session is not reported: ops start at depth 1.
        ("aten::add", "op", 1000, 2000, t, 1, 0, "[[1], [1]]", 0),
        ("aten::mul", "op", 3000, 6000, t, 1, 1, "", 0),
        ("aten::mm", "op", 3500, 5000, t, 2, 2, "", 0),
        ("[memory]", "memory", 4000, 4000, t, 3, -1, "", 512),
        ("[memory]", "memory", 5500, 5500, t, 2, -1, "", -128),
        ("[memory]", "memory", 7000, 7000, t, 0, -1, "", 64),
        ("MulBackward0", "backward", 8000, 9000, t + 1, 0, 1, "", 0),
    ]
    raw = [r + ("", "") for r in raw]  # no Python stack, no concrete arguments
    evs = build_events(raw, profile_memory=True)
    by = {e.name: e for e in evs}
    assert by["aten::add"].cpu_parent is None and by["aten::mul"].cpu_parent is None
    assert by["aten::mm"].cpu_parent is by["aten::mul"] and by["aten::mul"].cpu_children == [by["aten::mm"]]
    assert by["aten::mul"].cpu_time_total == pytest.approx(3.0)
    assert by["aten::mul"].self_cpu_time_total == pytest.approx(1.5)
    assert by["aten::mm"].cpu_memory_usage == 512
    assert by["aten::mul"].cpu_memory_usage == 384 and by["aten::mul"].self_cpu_memory_usage == -128
    assert by["[memory]"].cpu_memory_usage == 64 and by["[memory]"].cpu_parent is None
    assert by["aten::add"].input_shapes == [[1], [1]]
    assert by["MulBackward0"].fwd_event is by["aten::mul"] and by["aten::mul"].bwd_events == [by["MulBackward0"]]
    assert build_events(raw, profile_memory=False)[-1].name == "MulBackward0"
    assert all(e.name != "[memory]" for e in build_events(raw, profile_memory=False))
