"""export_chrome_trace output checked as Perfetto reads it.

With Perfetto's trace processor available (`trace_processor_shell` on PATH or in
$PERFETTO_TRACE_PROCESSOR) the trace is loaded with the `perfetto` package's TraceProcessor.
That binary is downloaded by the package at run time, which offline machines cannot do, so
the format itself is always checked by tests/trace_format.py (strict Trace Event Format rules
plus slice nesting), on ember's traces and, as a control, on torch's.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import ember
import pytest
from ember.profiler import profile, record_function


def _load_checker():
    # --import-mode=importlib: sibling helper modules are loaded by path, not by import.
    spec = importlib.util.spec_from_file_location("_ember_trace_format", Path(__file__).with_name("trace_format.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


tf = _load_checker()


def _workload():
    a = ember.ones(8, 8, requires_grad=True)
    with record_function("block"):
        b = ember.matmul(a, a).relu()
    b.sum().backward()


@pytest.fixture
def trace(tmp_path):
    with profile(record_shapes=True, profile_memory=True) as p:
        _workload()
    path = str(tmp_path / "trace.json")
    p.export_chrome_trace(path)
    return p, path


def test_trace_is_valid_trace_event_format(trace):
    p, path = trace
    data = tf.load(path)
    complete = [e for e in tf.check(data) if e.get("cat") != "Trace"]  # less the profiler's own span
    ops = [e for e in p.events() if e.name != "[memory]"]
    assert len(complete) == len(ops)
    assert {e["name"] for e in complete} == {e.trace_name for e in ops}
    assert any(e["ph"] == "i" for e in data["traceEvents"])  # memory instants
    for key in ("schemaVersion", "deviceProperties", "traceEvents", "displayTimeUnit", "baseTimeNanoseconds"):
        assert key in data


def test_nesting_seen_by_viewer_matches_event_tree(trace):
    p, path = trace
    complete = [e for e in tf.check(tf.load(path)) if e.get("cat") != "Trace"]
    par = tf.parents(complete)
    by_id = {e["args"]["External id"]: i for i, e in enumerate(complete)}
    for evt in p.events():
        if evt.name == "[memory]":
            continue
        i = by_id[evt.id]
        expect = None if evt.cpu_parent is None else by_id[evt.cpu_parent.id]
        assert par[i] == expect, evt.name


def test_flow_arrows_link_forward_ops_to_backward_nodes(trace):
    p, path = trace
    data = tf.load(path)
    slices = {(e["tid"], e["ts"]): e["name"] for e in data["traceEvents"] if e["ph"] == "X"}
    flows: dict[int, dict[str, dict]] = {}
    for e in data["traceEvents"]:
        if e["ph"] in ("s", "f"):
            assert e["cat"] == "fwdbwd" and e["name"] == "fwdbwd"
            flows.setdefault(e["id"], {})[e["ph"]] = e
    pairs = {(slices[(f["s"]["tid"], f["s"]["ts"])], slices[(f["f"]["tid"], f["f"]["ts"])]) for f in flows.values()}
    expect = {(e.fwd_event.trace_name, e.trace_name) for e in p.events() if e.fwd_event is not None}
    assert pairs == expect and ("aten::relu", "ReluBackward0") in pairs
    assert all(f["f"]["bp"] == "e" for f in flows.values())


def test_gzip_trace_is_valid(tmp_path):
    with profile() as p:
        _workload()
    path = str(tmp_path / "trace.json.gz")
    p.export_chrome_trace(path)
    assert tf.check(tf.load(path))


def test_checker_accepts_torch_and_rejects_broken_traces(tmp_path):
    torch = pytest.importorskip("torch")
    with torch.profiler.profile() as tp:
        x = torch.ones(4, 4)
        torch.mm(x, x)
    path = str(tmp_path / "torch.json")
    tp.export_chrome_trace(path)
    assert tf.check(tf.load(path))  # the control: torch's own trace passes
    good = {"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 10}]}
    tf.check(good)
    for bad in (
        [],
        {"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0}]},
        {"traceEvents": [{"ph": "Q", "ts": 0}]},
        {"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 2**60, "ts": 0, "dur": 1}]},
        {"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
                         {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 5, "dur": 10}]},
    ):
        with pytest.raises(tf.TraceFormatError):
            tf.check(bad)


def _trace_processor_binary() -> str | None:
    return os.environ.get("PERFETTO_TRACE_PROCESSOR") or shutil.which("trace_processor_shell")


@pytest.mark.skipif(_trace_processor_binary() is None, reason="Perfetto's trace_processor_shell is not installed "
                    "(the perfetto package downloads it at run time; set $PERFETTO_TRACE_PROCESSOR)")
def test_perfetto_trace_processor_loads_trace(trace):
    perfetto = pytest.importorskip("perfetto.trace_processor")
    p, path = trace
    config = perfetto.TraceProcessorConfig(bin_path=_trace_processor_binary())
    with perfetto.TraceProcessor(trace=path, config=config) as tp:
        rows = list(tp.query("select name, dur, depth from slice"))
    ops = [e for e in p.events() if e.name != "[memory]"]
    assert sorted(r.name for r in rows) == sorted(e.trace_name for e in ops)
    mm = [r for r in rows if r.name == "aten::matmul"]
    assert mm and mm[0].dur > 0
