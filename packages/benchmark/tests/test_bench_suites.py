"""The benchmark runner (benchmarks/run.py): suite loading, the report table, a real tiny run."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from ember.utils.benchmark import Measurement, TaskSpec

BENCH_DIR = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """benchmarks/run.py imported as a module (its folder on sys.path, its modules removed afterwards)."""
    monkeypatch.syspath_prepend(str(BENCH_DIR))
    before = set(sys.modules)
    yield importlib.import_module("run")
    for name in set(sys.modules) - before:
        if name in ("run", "harness", "report", "history") or name.startswith("suite_"):
            del sys.modules[name]


def test_loads_every_suite_in_the_current_format(runner: ModuleType, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "suite_core.py").write_text(
        "from harness import Bench\n"
        "TITLES = {'s': 'a suite'}\n"
        "BENCHES = [Bench('s', 'neg', 'overhead', '-a', lambda lib: {'a': lib.ones(1)}, threads=1, target=0.7)]\n"
    )
    (tmp_path / "suite_extra.py").write_text(
        "from harness import Bench\n"
        "TITLES = {'x': 'another'}\n"
        "BENCHES = [Bench('x', 'sum', 'throughput', 'a.sum()', None, threads=2)]\n"
    )
    (tmp_path / "suite_broken.py").write_text("import no_such_module_anywhere\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    benches, titles, errors = runner.load_suites(tmp_path)
    assert [b.id for b in benches] == ["s/neg/t1", "x/sum/t2"]
    assert titles == {"s": "a suite", "x": "another"}
    assert len(errors) == 1 and errors[0].startswith("suite_broken.py: ModuleNotFoundError")


def test_project_suites_load(runner: ModuleType) -> None:
    benches, titles, errors = runner.load_suites(BENCH_DIR)
    assert not errors
    # suite_core first, every row id unique, every suite titled.
    assert benches[0].suite == "overhead" and len({b.id for b in benches}) == len(benches)
    assert {b.suite for b in benches} <= set(titles)


def result(harness: ModuleType, bench: object, times: dict[str, float], noisy: bool = False) -> object:
    out = {}
    for label, t in times.items():
        raw = [t, t * (1.5 if noisy else 1.01), t * 0.99, t]
        spec = TaskSpec(bench.stmt, "pass", label="T", sub_label=bench.name, description=label,  # type: ignore[attr-defined]
                        num_threads=harness.task_threads(bench))
        out[label] = Measurement(1, raw, spec)
    return harness.Result(bench, out)


def test_report_appends_ratio_target_and_change(runner: ModuleType) -> None:
    harness, report = importlib.import_module("harness"), importlib.import_module("report")
    fast = harness.Bench("s", "fast op", "overhead", "x", threads=1, target=0.7)
    slow = harness.Bench("s", "big op", "throughput", "y", threads=2, target=0.9)
    info = harness.Bench("s", "info", "overhead", "z", threads=1)
    broken = harness.Bench("s", "broken", "overhead", "w", threads=1)
    results = [
        result(harness, fast, {"torch": 2e-6, "ember": 1e-6}),
        result(harness, slow, {"torch": 1e-3, "ember": 2e-3}, noisy=True),
        result(harness, info, {"torch": 1e-6, "ember": 1e-6}),
        harness.Result(broken, error="RuntimeError: boom"),
    ]
    text = report.render_suite("T", results, "torch", "ember", {"s/fast op/t1": 0.8e-6})
    lines = text.splitlines()
    assert lines[0].startswith("[") and lines[0].endswith("]") and " T " in lines[0]
    assert len(lines[0]) == len(lines[1]) == len(lines[2])  # title and separators span the extra columns
    assert [c.strip() for c in lines[1].split("|")[1:3]] == ["torch", "ember"]
    assert lines[1].endswith("ratio    target        vs last")
    row = {line.split("|")[0].strip(): line for line in lines if "|" in line}
    assert row["fast op"].endswith("0.50x   <=0.70x    ok     +25%")
    assert row["big op"].rstrip().endswith("0.50x*   >=0.90x  MISS")
    assert row["info"].rstrip().endswith("1.00x")
    assert lines[-1] == "ERR  s/broken/t1: RuntimeError: boom"
    assert results[0].ok("torch", "ember") is True and results[1].ok("torch", "ember") is False


def test_real_quick_run_and_history(runner: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    args = ["--quick", "--filter", "overhead/a + b (1 elem)", "--json-dir", str(tmp_path)]
    assert runner.main(args) == 0
    first = capsys.readouterr().out
    assert "a + b (1 elem)" in first and "torch" in first and "ember" in first
    assert "1 rows in" in first and "0 errors" in first
    latest = json.loads((tmp_path / "core-quick-latest.json").read_text())
    (row,) = latest["rows"]
    assert row["id"] == "overhead/a + b (1 elem)/t1" and set(row["times"]) == {"torch", "ember"}
    assert row["ratio"] == pytest.approx(row["times"]["ember"]["median"] / row["times"]["torch"]["median"])
    assert row["ok"] == (row["ratio"] <= 0.7)
    # The next run compares with this one.
    assert runner.main(args) == 0
    second = capsys.readouterr().out
    assert "vs last" in second and "%" in second.split("a + b (1 elem)")[1].splitlines()[0]
