"""ember.profiler.itt, emit_itt, KinetoStepTracker and the smaller torch.profiler exports,
checked against real torch."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import ember
import ember.profiler as ep
import pytest
from ember.profiler import KinetoStepTracker, itt

torch = pytest.importorskip("torch")
tp = torch.profiler


def test_exports_cover_torch() -> None:
    typing_helpers = {"Any", "TypeVarTuple", "Unpack", "_Ts", "os", "Optimizer"}
    # torch's private submodules (which ones are attributes depends on what else imported them)
    # and Kineto config object: no ember counterpart.
    internals = {"_ExperimentalConfig"} | {n for n in dir(tp) if n.startswith("_")
                                           and type(getattr(tp, n)).__name__ == "module"}
    missing = set(dir(tp)) - set(dir(ep)) - typing_helpers - internals
    assert not missing, missing
    assert set(tp.__all__) <= set(ep.__all__)


def test_itt_is_inert() -> None:
    assert itt.is_available() is False
    assert itt.__all__ == tp.itt.__all__
    assert itt.range_push("a") is None and itt.range_pop() is None and itt.mark("m") is None
    with itt.range("step {}", 3) as r:
        assert r is None
    with pytest.raises(ZeroDivisionError), itt.range("x"):
        raise ZeroDivisionError


def test_emit_itt_like_torch() -> None:
    from ember.autograd.profiler import emit_itt

    for cls in (emit_itt, torch.autograd.profiler.emit_itt):
        e = cls()
        with e:
            with pytest.raises(RuntimeError, match="ITT annotation context manager is not reentrant"):
                e.__enter__()
        assert e.entered is True and e.record_shapes is False
        with cls(enabled=False) as off:
            assert off is None or isinstance(off, cls)
    with emit_itt():
        assert ember.ones(2).add(1).tolist() == [2.0, 2.0]


def test_device_type_and_record_scope() -> None:
    for ours, theirs in ((ep.DeviceType, tp.DeviceType), (ep.RecordScope, tp.RecordScope)):
        assert [(k, int(v)) for k, v in ours.__members__.items()] == [
            (k, int(v)) for k, v in theirs.__members__.items()
        ]
    assert repr(ep.DeviceType.CPU) == repr(tp.DeviceType.CPU) == "<DeviceType.CPU: 0>"
    assert str(ep.RecordScope.USER_SCOPE) == str(tp.RecordScope.USER_SCOPE)
    assert ep.DeviceType(1) is ep.DeviceType.CUDA


def test_queries() -> None:
    assert ep.kineto_available() is tp.kineto_available() is True
    assert ep.is_fbcode() is tp.is_fbcode() is False
    assert {a.name for a in ep._supported_activities()} == {"CPU"}


def _tracker_story(lib: Any) -> list[Any]:
    k = lib.profiler.KinetoStepTracker
    k._step_dict.clear()
    k._current_step = 0
    out: list[Any] = [k.current_step(), k.init_step_count("x"), dict(k._step_dict)]
    out += [k.increment_step("x"), k.increment_step("x"), k.increment_step("y"), dict(k._step_dict)]
    k.init_step_count("z")
    out += [dict(k._step_dict), k.erase_step_count("x"), k.erase_step_count("x"), k.current_step()]
    with lib.profiler.profile() as p:
        out.append(dict(k._step_dict))
        p.step()
        out.append(dict(k._step_dict))
    out.append(dict(k._step_dict))
    k._step_dict.clear()
    k._current_step = 0
    return out


def test_step_tracker_like_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KINETO_USE_DAEMON", raising=False)
    assert _tracker_story(ember) == _tracker_story(torch)
    assert torch.autograd.profiler.KinetoStepTracker is tp.KinetoStepTracker
    from ember.profiler.legacy import KinetoStepTracker as legacy_tracker

    assert legacy_tracker is KinetoStepTracker


def test_profile_steps_count_with_daemon(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KINETO_USE_DAEMON", "1")
    KinetoStepTracker._step_dict.clear()
    KinetoStepTracker._current_step = 0
    try:
        with ep.profile() as p:
            p.step()
            p.step()
            assert dict(KinetoStepTracker._step_dict) == {"ProfilerStep": 2}
            assert KinetoStepTracker.current_step() == 2
        assert dict(KinetoStepTracker._step_dict) == {}
    finally:
        KinetoStepTracker._step_dict.clear()
        KinetoStepTracker._current_step = 0


_OPT_SCRIPT = """
import {lib}
import {lib}.profiler
from {lib}.profiler import KinetoStepTracker as K
m = {lib}.nn.Linear(2, 2)
opt = {lib}.optim.SGD(m.parameters(), lr=0.1)
opt.step(); opt.step()
before = dict(K._step_dict), K.current_step()
with {lib}.profiler.profile() as p:
    p.step(); opt.step(); p.step(); p.step()
    inside = dict(K._step_dict), K.current_step()
print(before, inside, dict(K._step_dict), K.current_step())
"""


@pytest.mark.parametrize("daemon", ["", "1"])
def test_optimizer_hook_like_torch(daemon: str) -> None:
    pytest.importorskip("ember.optim")
    import os

    env = dict(os.environ, KINETO_USE_DAEMON=daemon)
    outs = []
    for lib in ("ember", "torch"):
        res = subprocess.run([sys.executable, "-c", _OPT_SCRIPT.format(lib=lib)], env=env,
                             capture_output=True, text=True, check=True)
        outs.append(res.stdout.strip().splitlines()[-1])
    assert outs[0] == outs[1]


def test_register_optimizer_step_post_hook() -> None:
    optim = pytest.importorskip("ember.optim")
    seen = []
    m = ember.nn.Linear(2, 2)
    opt = optim.SGD(m.parameters(), lr=0.1)
    handle = ep.register_optimizer_step_post_hook(lambda o, a, k: seen.append(o))
    try:
        opt.step()
    finally:
        handle.remove()
    opt.step()
    assert seen == [opt]
