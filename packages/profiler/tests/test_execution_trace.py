"""ExecutionTraceObserver: torch's lifecycle and file schema, checked against real torch."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import ember
import pytest
from ember.profiler import ExecutionTraceObserver, profile, record_function

torch = pytest.importorskip("torch")
nn = pytest.importorskip("ember.nn")

ATTR_NAMES = ["rf_id", "fw_parent", "seq_id", "scope", "tid", "fw_tid", "op_schema", "kernel_backend",
              "kernel_file", "tensor_range"]


def _run(lib: Any, path: Path, backward: bool = False) -> dict[str, Any]:
    """A Linear + relu + sum under a standalone observer (torch's or ember's)."""
    lib.manual_seed(0)
    m = lib.nn.Linear(4, 3)
    x = lib.randn(2, 4, requires_grad=backward)
    et = lib.profiler.ExecutionTraceObserver().register_callback(str(path))
    et.start()
    y = m(x).relu().sum()
    if backward:
        y.backward()
    et.stop()
    et.unregister_callback()
    return json.loads(path.read_text())


def _attrs(node: dict[str, Any]) -> dict[str, Any]:
    return {a["name"]: a["value"] for a in node["attrs"]}


def _by_name(doc: dict[str, Any], name: str) -> dict[str, Any]:
    # The last: nodes are listed as they close, so an op nested in a same-named op comes first.
    return [n for n in doc["nodes"] if n["name"] == name][-1]


def test_schema_matches_torch(tmp_path: Path) -> None:
    ours, theirs = _run(ember, tmp_path / "e.json"), _run(torch, tmp_path / "t.json")
    assert list(ours) == list(theirs) == ["schema", "pid", "time", "start_ts", "nodes", "finish_ts"]
    assert ours["schema"] == theirs["schema"]
    assert ours["finish_ts"] >= ours["start_ts"]
    for doc in (ours, theirs):
        first, last = doc["nodes"][0], doc["nodes"][-1]
        assert (first["id"], first["name"], first["ctrl_deps"]) == (2, "[pytorch|profiler|execution_trace|thread]", 1)
        assert (last["id"], last["name"], last["ctrl_deps"]) == (1, "[pytorch|profiler|execution_trace|process]", 1)
        for node in doc["nodes"]:
            assert list(node) == ["id", "name", "ctrl_deps", "inputs", "outputs", "attrs"]
            assert list(node["inputs"]) == list(node["outputs"]) == ["values", "shapes", "types", "strides"]
            assert [a["name"] for a in node["attrs"]] == ATTR_NAMES
    assert first["attrs"] == theirs["nodes"][0]["attrs"]


def test_op_nodes_match_torch(tmp_path: Path) -> None:
    ours, theirs = _run(ember, tmp_path / "e.json"), _run(torch, tmp_path / "t.json")
    for name in ("aten::linear", "aten::relu", "aten::sum"):
        a, b = _by_name(ours, name), _by_name(theirs, name)
        assert a["ctrl_deps"] == 2 and b["ctrl_deps"] == 2  # top-level ops hang off the thread node
        # User-visible ops: same tensor input/output shapes, types and strides.
        n = len([t for t in b["inputs"]["types"] if t.startswith("Tensor")])
        assert a["inputs"]["types"][:n] == b["inputs"]["types"][:n]
        assert a["inputs"]["shapes"][:n] == b["inputs"]["shapes"][:n]
        assert a["inputs"]["strides"][:n] == b["inputs"]["strides"][:n]
        for key in ("shapes", "types", "strides"):
            assert a["outputs"][key] == b["outputs"][key], (name, key)
        # [tensor id, storage id, offset, numel, itemsize, device]: all but the ids agree.
        assert [v[2:] for v in a["outputs"]["values"]] == [v[2:] for v in b["outputs"]["values"]]
        assert _attrs(a)["scope"] == _attrs(b)["scope"] == 0
    # Data flow: linear's output tensor is relu's input, relu's output is sum's input.
    lin, relu, total = (_by_name(ours, n) for n in ("aten::linear", "aten::relu", "aten::sum"))
    assert lin["outputs"]["values"][0][:2] == relu["inputs"]["values"][0][:2]
    assert relu["outputs"]["values"][0][:2] == total["inputs"]["values"][0][:2]
    # Children precede their parent, and point at it.
    ids = [n["id"] for n in ours["nodes"]]
    t = _by_name(ours, "aten::t")
    assert t["ctrl_deps"] == lin["id"] and ids.index(t["id"]) < ids.index(lin["id"])


def test_backward_nodes(tmp_path: Path) -> None:
    ours, theirs = _run(ember, tmp_path / "e.json", True), _run(torch, tmp_path / "t.json", True)
    for doc in (ours, theirs):
        node = _by_name(doc, "SumBackward0")
        wrapper = _by_name(doc, "autograd::engine::evaluate_function: SumBackward0")
        a, w = _attrs(node), _attrs(wrapper)
        assert (a["scope"], a["fw_parent"], a["fw_tid"]) == (1, wrapper["id"], 1)
        assert node["ctrl_deps"] == wrapper["id"] and node["outputs"]["types"] == []
        assert (w["scope"], w["seq_id"]) == (0, -1)


def test_lifecycle_matches_torch(tmp_path: Path) -> None:
    for lib in (ember, torch):
        et = lib.profiler.ExecutionTraceObserver()
        assert not et.is_registered and et.get_output_file_path() is None
        et.start()  # unregistered: nothing happens
        assert not et.is_running()
        et.stop()
        path = tmp_path / f"{lib.__name__}.json"
        assert et.register_callback(str(path)) is et
        assert path.exists() and path.stat().st_size == 0  # opened at registration
        et.register_callback(str(tmp_path / "other.json"))  # already registered: ignored
        assert et.get_output_file_path() == str(path) and et.is_registered
        et.start()
        assert et.is_running()
        et.stop()
        et.cleanup()
        assert not et.is_registered and et.get_output_file_path() == str(path)
        assert json.loads(path.read_text())["nodes"][-1]["id"] == 1
        et.unregister_callback()  # twice: no error


def test_windows_append_and_gzip(tmp_path: Path) -> None:
    path = tmp_path / "w.json.gz"
    et = ExecutionTraceObserver().register_callback(str(path))
    et.start()
    ember.ones(2).add(1)
    et.stop()
    ember.ones(2).mul(5)  # between windows: not traced
    et.start()
    ember.ones(2).sub(1)
    et.stop()
    et.unregister_callback()
    doc = json.loads(gzip.decompress(path.read_bytes()))
    names = [n["name"] for n in doc["nodes"]]
    assert "aten::add" in names and "aten::sub" in names and "aten::mul" not in names
    assert sum(1 for n in names if n.endswith("|thread]")) == 1


def test_scalar_and_none_inputs(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    et = ExecutionTraceObserver().register_callback(str(path))
    x = ember.ones(2, 3)
    et.start()
    x.view(3, 2)
    x.sum(1, True)
    et.stop()
    et.unregister_callback()
    doc = json.loads(path.read_text())
    view = _by_name(doc, "aten::view")
    assert view["inputs"]["types"][0] == "Tensor(float)"
    assert view["inputs"]["values"][1:] == [3, 2] and view["inputs"]["types"][1:] == ["Int", "Int"]
    total = _by_name(doc, "aten::sum")
    assert total["inputs"]["types"][1:] == ["Int", "Bool"]
    assert total["outputs"]["shapes"] == [[2, 1]]


def test_with_profile(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    et = ExecutionTraceObserver().register_callback(str(path))
    m = nn.Linear(4, 3)
    x = ember.randn(2, 4)
    with profile(execution_trace_observer=et) as prof:
        with record_function("blk"):
            m(x).sum()
    assert not et.is_registered  # the profiler finalizes the trace on exit, as torch's does
    doc = json.loads(path.read_text())
    blk = _by_name(doc, "blk")
    assert _attrs(blk)["scope"] == 7 and blk["ctrl_deps"] == 2
    assert _by_name(doc, "aten::linear")["ctrl_deps"] == blk["id"]
    # The profile still reports what it would without the observer (no shapes recorded).
    assert prof.events() is not None
    assert all(e.input_shapes == [] for e in prof.events())
    assert "aten::linear" in {e.key for e in prof.key_averages()}


def test_standalone_observer_hands_over_to_profile(tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    et = ExecutionTraceObserver().register_callback(str(path))
    et.start()
    ember.ones(2).add(1)
    with profile(record_shapes=True) as prof:  # the observer's session yields to the profiler's
        ember.ones(2).mul(2)
    ember.ones(2).sub(1)  # the observer records alone again
    et.stop()
    et.unregister_callback()
    names = [n["name"] for n in json.loads(path.read_text())["nodes"]]
    assert {"aten::add", "aten::mul", "aten::sub"} <= set(names)
    assert "aten::mul" in {e.key for e in prof.key_averages()}
    from ember._lib import _C

    assert not _C._profiler_active()  # stop() closed the observer's own session


def test_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ENABLE_PYTORCH_EXECUTION_TRACE", raising=False)
    assert ExecutionTraceObserver.build_execution_trace_obs_from_env() is None
    monkeypatch.setenv("ENABLE_PYTORCH_EXECUTION_TRACE", "1")
    et = ExecutionTraceObserver.build_execution_trace_obs_from_env()
    assert et is not None and et.is_registered
    path = et.get_output_file_path()
    assert path is not None and path.endswith(".et.json")
    et.unregister_callback()
    Path(path).unlink()


def test_resources_dir(tmp_path: Path) -> None:
    et = ExecutionTraceObserver().register_callback(str(tmp_path / "r.json"))
    assert et.get_resources_dir() is None
    et.set_extra_resource_collection(True)
    assert et.get_resources_dir() == str(tmp_path / "r_resources")
    assert (tmp_path / "r_resources").is_dir()
    assert ExecutionTraceObserver.get_resources_dir_for_et_path(str(tmp_path / "q.json")) is None
    et.unregister_callback()
