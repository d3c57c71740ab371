"""The event tree against PyTorch 2.13's for one training script: ops nested in ops and in backward
nodes, the engine's evaluate_function ranges, the optimizer labels, and how key_averages()
splits self and total times over that tree."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402


def _events(lib: Any, **options: bool) -> list[Any]:
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    x = lib.randn(32, 8)
    with lib.profiler.profile(**options) as p:
        for _ in range(2):
            opt.zero_grad()
            model(x).pow(2).sum().backward()
            opt.step()
    return list(p.events())


def _parents(events: list[Any], names: set[str]) -> Counter[tuple[str, str | None]]:
    return Counter((e.name, e.cpu_parent.name if e.cpu_parent else None) for e in events if e.name in names)


# The ops both libraries run at the same place in the tree (PyTorch's other events are the ops
# its kernels call inside themselves: resolve_conj, expand's and sum's as_strided, fill_, the copy_
# inside pow and _to_copy ...).
SHARED = {
    "aten::linear", "aten::t", "aten::transpose", "aten::addmm", "aten::expand", "aten::relu", "aten::mm",
    "aten::threshold_backward", "aten::view",
    "AddmmBackward0", "TBackward0", "ReluBackward0", "torch::autograd::AccumulateGrad",
    "autograd::engine::evaluate_function: AddmmBackward0", "autograd::engine::evaluate_function: TBackward0",
    "autograd::engine::evaluate_function: ReluBackward0",
    "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
    "Optimizer.zero_grad#SGD.zero_grad", "Optimizer.step#SGD.step",
}


def test_parents_match_torch() -> None:
    ours, theirs = _parents(_events(ember), SHARED), _parents(_events(torch), SHARED)
    assert ours == theirs
    # the examples, spelled out
    assert ours[("aten::mm", "AddmmBackward0")] == 6
    assert ours[("aten::threshold_backward", "ReluBackward0")] == 2
    assert ours[("aten::addmm", "aten::linear")] == 4


def test_expanded_gradient_sum_is_under_evaluate_function() -> None:
    ev = _events(ember, record_shapes=True)
    sums = [e for e in ev if e.name == "aten::sum" and e.cpu_parent is not None
            and e.cpu_parent.name == "autograd::engine::evaluate_function: AddmmBackward0"]
    ref = [e for e in _events(torch, record_shapes=True) if e.name == "aten::sum" and e.cpu_parent is not None
           and e.cpu_parent.name == "autograd::engine::evaluate_function: AddmmBackward0"]
    assert sorted(str(e.input_shapes) for e in sums) == sorted(str(e.input_shapes) for e in ref)
    assert len(sums) == 4


NESTED_SHAPES = {"aten::mm", "aten::threshold_backward", "aten::view", "aten::sum"}


def test_input_shapes_of_nested_ops_match_torch() -> None:
    def shapes(events: list[Any]) -> Counter[tuple[str, str]]:
        return Counter((e.name, str(e.input_shapes)) for e in events if e.name in NESTED_SHAPES
                       and e.cpu_parent is not None and not e.cpu_parent.name.startswith("aten::"))

    assert shapes(_events(ember, record_shapes=True)) == shapes(_events(torch, record_shapes=True))


def test_backward_nodes_record_their_gradient_shapes() -> None:
    ev = _events(ember, record_shapes=True)
    node = next(e for e in ev if e.name == "ReluBackward0")
    assert node.input_shapes == [[32, 16]]


def test_stacks_of_nested_ops() -> None:
    ev = _events(ember, with_stack=True)
    addmm = next(e for e in ev if e.name == "aten::addmm")
    assert addmm.cpu_parent.name == "aten::linear"
    assert any("test_event_tree.py" in f for f in addmm.stack), addmm.stack


def test_key_averages_split_self_and_total_over_the_tree() -> None:
    ev = _events(ember)
    for e in ev:
        assert e.self_cpu_time_total == pytest.approx(e.cpu_time_total - sum(c.cpu_time_total for c in e.cpu_children))
    avg = {a.key: a for a in ember.profiler.EventList(ev).key_averages()}
    lin = avg["aten::linear"]
    assert lin.self_cpu_time_total < lin.cpu_time_total  # t and addmm are its children
    node = avg["AddmmBackward0"]
    assert node.self_cpu_time_total < node.cpu_time_total  # its mm and t
    ev_fn = avg["autograd::engine::evaluate_function: AddmmBackward0"]
    assert ev_fn.cpu_time_total >= node.cpu_time_total


def test_table_shows_nested_ops() -> None:
    nn = ember.nn
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    with ember.profiler.profile() as p:
        model(ember.randn(32, 8)).sum().backward()
    table = p.key_averages().table(sort_by="self_cpu_time_total", row_limit=-1)
    header = table.splitlines()[1]
    assert header.split() == ["Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%", "CPU", "total",
                              "CPU", "time", "avg", "#", "of", "Calls"]
    for name in ("aten::mm", "aten::threshold_backward", "autograd::engine::evaluate_function: AddmmBackward0"[:55]):
        assert name[:52] in table, name


def test_optimizer_labels_only_while_profiling() -> None:
    nn = ember.nn
    model = nn.Linear(2, 2)
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    model(ember.ones(1, 2)).sum().backward()
    opt.step()  # no profiler: no range opened, nothing left open
    opt.zero_grad()
    assert not ember._lib._C._profiler_active()
    with ember.profiler.profile() as p:
        model(ember.ones(1, 2)).sum().backward()
        opt.step()
        opt.zero_grad()
    names = [e.name for e in p.events() if e.is_user_annotation]
    assert names == ["Optimizer.step#SGD.step", "Optimizer.zero_grad#SGD.zero_grad"]


def test_with_stack_trace_has_python_function_events(tmp_path) -> None:
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))  # the sibling helper (tests run with importlib mode)
    from trace_format import check

    nn = ember.nn
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    before = sys.getprofile()
    with ember.profiler.profile(with_stack=True) as p:
        model(ember.randn(32, 8)).sum().backward()
    assert sys.getprofile() is before
    path = tmp_path / "t.json"
    p.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    assert trace["with_stack"] == 1
    py = [e for e in trace["traceEvents"] if e.get("cat") == "python_function"]
    assert any(e["name"].endswith(": linear") for e in py)  # "ember/nn/_functional/activation.py(N): linear"
    ids = {e["args"]["Python id"] for e in py}
    assert all(e["args"]["Python parent id"] in ids | {None} for e in py)
    check(trace)  # python calls and ops nest on the thread's track
