"""The hook when no profiler is active: nothing a session switched on may outlive it; and the
Python-level operators the core hook observes."""

from __future__ import annotations

import gc
import sys

import ember
import pytest
from ember._lib import _C
from ember.profiler import profile, record_function, schedule


def _global_module_hooks() -> tuple[int, int]:
    hooks = pytest.importorskip("ember.nn.modules._global_hooks")
    return len(hooks.forward_pre_hooks), len(hooks.forward_hooks)


def _session_with_every_option(fail: bool) -> None:
    nn = pytest.importorskip("ember.nn")
    model = nn.Linear(4, 4)
    with profile(record_shapes=True, profile_memory=True, with_stack=True, with_flops=True, with_modules=True,
                 schedule=schedule(wait=0, warmup=1, active=1)) as p:
        for _ in range(3):
            with record_function("step"):
                model(ember.ones(2, 4)).sum().backward()
            p.step()
        if fail:
            raise ValueError("boom")  # the session ends through an exception


@pytest.mark.parametrize("fail", [False, True])
def test_nothing_stays_on_after_a_session(fail: bool) -> None:
    hooks_before = _global_module_hooks()
    trace_before, profile_before = sys.gettrace(), sys.getprofile()
    if fail:
        with pytest.raises(ValueError, match="boom"):
            _session_with_every_option(fail)
    else:
        _session_with_every_option(fail)
    assert not _C._profiler_active()
    assert _global_module_hooks() == hooks_before
    assert (sys.gettrace(), sys.getprofile()) == (trace_before, profile_before)
    assert gc.isenabled()  # event building pauses the collector only while it runs
    _C._profiler_bench_inactive(10)  # raises while a profiler is active
    # Ops run between sessions are not kept for the next one.
    ember.ones(3) * 2
    with profile() as p:
        ember.ones(2) + ember.ones(2)
    assert [e.name for e in p.events()] == ["aten::ones", "aten::ones", "aten::add"]


# Python operators and Python-level methods: each records the aten op torch records for it.
PY_OPERATORS = [
    ("a @ a", lambda a: a @ a, "aten::matmul"),
    ("-a", lambda a: -a, "aten::neg"),
    ("a ** 2", lambda a: a**2, "aten::pow"),
    ("abs(a)", lambda a: abs(a), "aten::abs"),
    ("a < 1", lambda a: a < 1, "aten::lt"),
    ("~(a > 0)", lambda a: ~(a > 0), "aten::bitwise_not"),
    ("a[0]", lambda a: a[0], "aten::select"),
    ("a[:, 1]", lambda a: a[:, 1], "aten::select"),
    ("a[1:]", lambda a: a[1:], "aten::slice"),
    ("a[None]", lambda a: a[None], "aten::unsqueeze"),
    ("a[[0, 1]]", lambda a: a[[0, 1]], "aten::index"),
    ("a[0] = 1", lambda a: a.__setitem__(0, 1.0), "aten::fill_"),
    ("a[a > 0.5] = 1", lambda a: a.__setitem__(a > 0.5, 1.0), "aten::index_put_"),
    ("a.T", lambda a: a.T, "aten::permute"),
    ("a.cpu()", lambda a: a.cpu(), "aten::to"),
    ("a.float()", lambda a: a.float(), "aten::to"),
    ("a.type_as(a)", lambda a: a.type_as(a), "aten::type_as"),
    ("a.unique()", lambda a: a.unique(), "aten::_unique2"),
]


@pytest.mark.parametrize("label, fn, aten", PY_OPERATORS, ids=[u[0] for u in PY_OPERATORS])
def test_python_operators_are_observed(label: str, fn, aten: str) -> None:
    a = ember.rand(3, 3)
    with profile() as p:
        fn(a)
    assert aten in [e.name for e in p.events()], label
    torch = pytest.importorskip("torch")
    with torch.profiler.profile() as q:  # the oracle records the same op
        fn(torch.rand(3, 3))
    assert aten in [e.name for e in q.events()], label
