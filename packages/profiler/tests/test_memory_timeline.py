"""profile.export_memory_timeline: torch's file formats and errors, ember's categories."""

from __future__ import annotations

import gzip
import json
import warnings
from pathlib import Path
from typing import Any

import ember
import pytest
from ember.profiler import profile

nn = pytest.importorskip("ember.nn")
optim = pytest.importorskip("ember.optim")

# Column of each category in a sizes row (column 0 is always 0, as in torch).
COL = {
    n: i + 1
    for i, n in enumerate(
        ["PARAMETER", "OPTIMIZER_STATE", "INPUT", "TEMPORARY", "ACTIVATION", "GRADIENT", "AUTOGRAD_DETAIL", "UNKNOWN"]
    )
}


def _train(lib: Any, opt_name: str, steps: int = 2, **flags: Any) -> tuple[Any, Any, Any]:
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Linear(16, 4))
    if opt_name == "adam":
        opt = lib.optim.Adam(model.parameters(), lr=0.1)
    else:
        opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = lib.randn(5, 8), lib.randn(5, 4)
    flags = flags or {"profile_memory": True, "record_shapes": True, "with_stack": True}
    with lib.profiler.profile(**flags) as prof:
        for _ in range(steps):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
    return prof, model, opt


def _export(prof: Any, path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        prof.export_memory_timeline(str(path))


def _load(path: Path) -> Any:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


PARAM_BYTES = 4 * (8 * 16 + 16 + 16 * 4 + 4)


@pytest.mark.parametrize("opt_name", ["adam", "sgd"])
def test_json_structure_matches_torch(tmp_path: Path, opt_name: str) -> None:
    torch = pytest.importorskip("torch")
    ours, _, _ = _train(ember, opt_name)
    ref, _, _ = _train(torch, opt_name)
    _export(ours, tmp_path / "e.json")
    _export(ref, tmp_path / "t.json")
    e, t = _load(tmp_path / "e.json"), _load(tmp_path / "t.json")
    assert isinstance(e, list) and len(e) == len(t) == 2
    for data in (e, t):
        times, sizes = data
        assert len(times) == len(sizes) > 0
        assert all(isinstance(v, int) for v in times) and times == sorted(times)
        assert all(len(row) == 9 and row[0] == 0 for row in sizes)
    # Same pre-existing blocks (parameters, x, y) and the same final state per category.
    assert e[1][0] == t[1][0]
    assert e[1][-1] == t[1][-1]
    assert e[1][0][COL["PARAMETER"]] == t[1][0][COL["PARAMETER"]] == PARAM_BYTES
    assert e[1][-1][COL["PARAMETER"]] == t[1][-1][COL["PARAMETER"]]
    assert e[1][-1][COL["OPTIMIZER_STATE"]] == t[1][-1][COL["OPTIMIZER_STATE"]]
    assert e[1][0][COL["INPUT"]] == t[1][0][COL["INPUT"]] == 4 * (5 * 8 + 5 * 4)
    assert max(r[COL["GRADIENT"]] for r in e[1]) == max(r[COL["GRADIENT"]] for r in t[1]) == PARAM_BYTES


def test_totals_follow_the_allocator() -> None:
    prof, _, _ = _train(ember, "adam")
    events = prof._mem_timeline
    from ember.profiler._memory_timeline import coalesce

    pre = sum(n for t, a, n, _ in events if a == 1)
    assert pre > 0 and all(t == -1 for t, a, _, _ in events if a == 1)
    times, sizes = coalesce(events)
    # Sum over categories at each time == pre-existing bytes + the allocator's running balance.
    balance = pre
    by_time: dict[int, int] = {}
    for t_ns, action, nbytes, _ in events:
        if action != 1:
            balance += nbytes
            by_time[int(t_ns / 1000)] = balance
    assert sum(sizes[0]) == pre
    for t, row in zip(times[1:], sizes[1:], strict=True):
        assert sum(row) == by_time[t]
    # The creates and destroys add up to the allocator's net change seen by the event list.
    net = sum(e.cpu_memory_usage for e in prof.events() if e.cpu_parent is None)
    assert sum(n for _, a, n, _ in events if a != 1) == net


def test_categories_adam(tmp_path: Path) -> None:
    prof, model, opt = _train(ember, "adam", steps=3)
    _export(prof, tmp_path / "m.json")
    times, sizes = _load(tmp_path / "m.json")
    state_bytes = sum(s[k].nbytes for s in opt.state.values() for k in ("exp_avg", "exp_avg_sq", "step") if k in s)
    exp_bytes = sum(s["exp_avg"].nbytes + s["exp_avg_sq"].nbytes for s in opt.state.values())
    assert exp_bytes == 2 * PARAM_BYTES
    last = sizes[-1]
    # exp_avg / exp_avg_sq (and the step counters, when they are tensors) are optimizer state.
    assert last[COL["OPTIMIZER_STATE"]] == state_bytes
    assert last[COL["PARAMETER"]] == PARAM_BYTES
    assert last[COL["GRADIENT"]] == sum(p.grad.nbytes for p in model.parameters()) == PARAM_BYTES
    assert max(r[COL["ACTIVATION"]] for r in sizes) > 0
    assert max(r[COL["AUTOGRAD_DETAIL"]] for r in sizes) > 0
    assert max(r[COL["INPUT"]] for r in sizes) == 4 * (5 * 8 + 5 * 4)
    assert all(min(r) >= 0 for r in sizes)


def test_categories_sgd_momentum(tmp_path: Path) -> None:
    prof, model, opt = _train(ember, "sgd", steps=2)
    _export(prof, tmp_path / "m.json.gz")
    _, sizes = _load(tmp_path / "m.json.gz")
    buf = sum(s["momentum_buffer"].nbytes for s in opt.state.values())
    assert buf == PARAM_BYTES
    assert sizes[-1][COL["OPTIMIZER_STATE"]] == buf
    assert sizes[-1][COL["GRADIENT"]] == PARAM_BYTES


def test_file_formats(tmp_path: Path) -> None:
    prof, _, _ = _train(ember, "adam", steps=1)
    _export(prof, tmp_path / "a.json")
    _export(prof, tmp_path / "a.json.gz")
    _export(prof, tmp_path / "a.txt")  # any other suffix: plain JSON, as torch
    assert _load(tmp_path / "a.json") == _load(tmp_path / "a.json.gz") == _load(tmp_path / "a.txt")
    _export(prof, tmp_path / "a.raw.json.gz")
    raw = _load(tmp_path / "a.raw.json.gz")
    assert all(len(e) == 4 for e in raw)
    assert {e[1] for e in raw} <= {1, 2, 4} and {e[3] for e in raw} <= set(range(8))
    assert all(e[0] == -1 for e in raw if e[1] == 1)
    assert all(e[2] > 0 for e in raw if e[1] in (1, 2)) and all(e[2] < 0 for e in raw if e[1] == 4)


def test_other_device_is_empty(tmp_path: Path) -> None:
    prof, _, _ = _train(ember, "sgd", steps=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        prof.export_memory_timeline(str(tmp_path / "c.json"), device="cuda:0")
        prof.export_memory_timeline(str(tmp_path / "d.json"), device="cpu")
        with pytest.raises(RuntimeError):
            prof.export_memory_timeline(str(tmp_path / "e.json"), device="nodevice")
    assert _load(tmp_path / "c.json") == [[], []]
    assert _load(tmp_path / "d.json")[0]


def test_html(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    prof, _, _ = _train(ember, "adam", steps=1)
    _export(prof, tmp_path / "m.html")
    text = (tmp_path / "m.html").read_text()
    assert text.startswith("<html>") and "<img src='data:image/png;base64," in text
    import base64

    png = base64.b64decode(text.split("base64,")[1].split("'")[0])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_errors_and_warning(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    for lib in (ember, torch):
        with lib.profiler.profile(profile_memory=True) as prof:
            lib.ones(3)
        with pytest.warns(FutureWarning, match="export_memory_timeline` is deprecated"):
            with pytest.raises(
                ValueError, match=r"^record_shapes=True, with_stack=True required for memory profiling\.$"
            ):
                prof.export_memory_timeline(str(tmp_path / "x.json"))
        fresh = lib.profiler.profile(profile_memory=True, record_shapes=True, with_stack=True)
        with pytest.warns(FutureWarning):
            with pytest.raises(AssertionError, match="must be initialized for memory profiling"):
                fresh.export_memory_timeline(str(tmp_path / "x.json"))


def test_untouched_tensors_are_left_out(tmp_path: Path) -> None:
    # Like torch, only blocks some op used count: another model and an idle tensor do not.
    other = nn.Linear(100, 100)
    idle = ember.zeros(1000)
    prof, _, _ = _train(ember, "sgd", steps=1)
    _export(prof, tmp_path / "m.json")
    _, sizes = _load(tmp_path / "m.json")
    assert sizes[0][COL["PARAMETER"]] == PARAM_BYTES
    assert sizes[0][COL["UNKNOWN"]] == 0 and sizes[0][COL["INPUT"]] == 4 * (5 * 8 + 5 * 4)
    assert other.weight.shape == (100, 100) and idle.numel() == 1000


def test_requires_all_three_flags(tmp_path: Path) -> None:
    for flags, missing in (
        ({"profile_memory": True, "record_shapes": True}, "with_stack=True"),
        ({"record_shapes": True, "with_stack": True}, "profile_memory=True"),
    ):
        with profile(**flags) as prof:
            ember.ones(2) + 1
        with pytest.warns(FutureWarning), pytest.raises(ValueError, match=f"^{missing} required"):
            prof.export_memory_timeline(str(tmp_path / "x.json"))
