"""Legacy ember.profiler.legacy (backing ember.autograd.profiler)."""

from __future__ import annotations

import json
from pathlib import Path

import ember
import ember.profiler as eprof
import pytest
from ember.profiler import legacy


def test_legacy_profile_results(tmp_path: Path) -> None:
    a = ember.ones(2, 2)
    with legacy.profile(record_shapes=True, profile_memory=True) as prof:
        with legacy.record_function("blk"):
            a + a
            a * a
    evs = prof.function_events
    assert isinstance(evs, eprof.EventList)
    names = [e.name for e in evs]
    assert "blk" in names and "aten::add" in names and "aten::mul" in names
    assert prof.self_cpu_time_total == pytest.approx(evs.self_cpu_time_total)
    assert prof.total_average().count == len(evs)
    assert "aten::add" in prof.table(sort_by="self_cpu_time_total")
    assert prof.key_averages(group_by_input_shape=True).table().count("[[2, 2], [2, 2]]") == 2
    path = tmp_path / "t.json"
    prof.export_chrome_trace(str(path))
    assert any(e["name"] == "aten::mul" for e in json.loads(path.read_text())["traceEvents"])
    assert str(prof) == evs.table()


def test_legacy_disabled_and_unfinished() -> None:
    with legacy.profile(enabled=False) as prof:
        assert not ember._lib._C._profiler_active()
    p = legacy.profile()
    with pytest.raises(RuntimeError, match="Profiler didn't finish running"):
        p.key_averages()
    assert repr(p) == "<unfinished torch.autograd.profile>"
    with p:
        with pytest.raises(RuntimeError, match="not reentrant"):
            p.__enter__()
    assert p.function_events is not None
    del prof


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_legacy_shared_objects_and_cuda() -> None:
    assert legacy.record_function is eprof.record_function
    with pytest.warns(UserWarning, match="CUDA is not available"):
        p = legacy.profile(use_cuda=True)
    with p:
        ember.ones(1) + ember.ones(1)
    with pytest.raises(RuntimeError, match="emit_nvtx requires CUDA"):
        with legacy.emit_nvtx():
            pass
