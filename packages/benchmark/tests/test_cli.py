"""The ``ember-timer`` CLI end to end (``python -m ember.utils.benchmark`` in a subprocess)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from ember.utils.benchmark import CallgrindStats, Compare, FunctionCount, FunctionCounts, Timer
from ember.utils.benchmark._cli import build_parser, load_json, main
from ember_benchmark_testlib import cli_env, run_cli

FAST = ["--min-run-time", "0.01"]
# Enough time for several blocks even on a loaded machine: the report shows Median/IQR
# only when there is more than one measurement.
SEVERAL = ["--min-run-time", "0.2"]


def test_measures_and_prints_the_measurement() -> None:
    r = run_cli([*SEVERAL, "-s", "x = torch.ones(64)", "-s", "y = x * 2", "x + y", "--label", "add"])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "add"
    assert lines[1:4] == ["setup:", "  x = torch.ones(64)", "  y = x * 2"]
    assert re.fullmatch(r"  Median: \d+\.\d\d [nu]s", lines[5])
    assert re.fullmatch(r"  \d+ measurements, \d+ runs per measurement, 1 thread", lines[-1]) or "WARNING" in r.stdout
    assert "object at 0x" not in r.stdout


def test_several_statements_join_like_timeit_and_quiet_prints_medians() -> None:
    r = run_cli(["-q", "-n", "200", "a = 1", "b = a + 1"])
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    (median,) = r.stdout.split()
    assert 0 < float(median) < 1e-3


def test_threads_give_one_measurement_each_and_a_table(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    r = run_cli([*FAST, "-t", "1", "-t", "2", "-s", "x = torch.ones(1000)", "x.sum()", "--label", "sum",
                 "--description", "n=1000", "--json", str(out)])
    assert r.returncode == 0, r.stderr
    assert "1 thread\n" in r.stdout or "1 thread" in r.stdout
    assert "2 threads" in r.stdout
    table = r.stdout[r.stdout.index("[--"):]
    assert table.splitlines()[1].rstrip().endswith("n=1000")
    assert "1 threads: --" in table and "2 threads: --" in table and "x.sum()" in table

    saved = json.loads(out.read_text())
    assert [d["num_threads"] for d in saved] == [1, 2]
    for d in saved:
        assert set(d) == {"label", "sub_label", "description", "env", "stmt", "setup", "num_threads",
                          "number_per_run", "raw_times", "times", "median", "mean", "iqr", "has_warnings"}
        assert (d["label"], d["description"], d["stmt"], d["setup"]) == ("sum", "n=1000", "x.sum()",
                                                                         "x = torch.ones(1000)")
        assert d["times"] == pytest.approx([t / d["number_per_run"] for t in d["raw_times"]])
    # Round trip: the rebuilt Measurements have the same statistics, and --compare-json prints their table.
    rebuilt = load_json(str(out))
    for m, d in zip(rebuilt, saved, strict=True):
        assert (m.median, m.mean, m.iqr, m.has_warnings) == pytest.approx(
            (d["median"], d["mean"], d["iqr"], d["has_warnings"]))
    shown = run_cli(["--compare-json", str(out)])
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == str(Compare(rebuilt)) + "\n"


def test_compare_json_puts_runs_side_by_side(tmp_path: Path) -> None:
    a, b = tmp_path / "before.json", tmp_path / "after.json"
    for path, seconds in ((a, 2e-6), (b, 1e-6)):
        record = {"label": "op", "sub_label": None, "description": None, "env": None, "stmt": "f()",
                  "setup": "pass", "num_threads": 1, "number_per_run": 10, "raw_times": [seconds * 10] * 3}
        path.write_text(json.dumps([record]))
    r = run_cli(["--compare-json", str(a), str(b)])
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:4] == [
        "[------------ op ------------]",
        "           |  before  |  after",
        "1 threads: -------------------",
        "      f()  |   2.0    |   1.0 ",
    ]
    assert "Times are in microseconds (us)." in r.stdout


def test_compare_json_bad_input_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')
    for path in (bad, tmp_path / "missing.json"):
        r = run_cli(["--compare-json", str(path)])
        assert r.returncode == 2
        assert "usage: ember-timer" in r.stderr and f"cannot read {path}" in r.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--no-such-option"], "unrecognized arguments: --no-such-option"),
        (["-n", "0", "x"], "argument -n/--number: must be > 0, got 0"),
        (["-t", "two", "x"], "argument -t/--num-threads: invalid int value: 'two'"),
        (["-n", "5", "--adaptive", "x"], "argument --adaptive: not allowed with argument -n/--number"),
        (["--threshold", "0.2", "x"], "--threshold and --max-run-time only apply with --adaptive"),
        (["--callgrind", "--json", "o.json", "x"], "--json saves timings; it cannot be combined with --callgrind"),
        (["--compare-json", "a.json", "-t", "2"], "--compare-json only shows saved results; it does not take -t"),
        (["--global-setup", "#include <x>", "x"], "global_setup is C++ only"),
        (["--language", "rust", "x"], "argument --language: invalid choice: 'rust'"),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    r = run_cli(args)
    assert r.returncode == 2
    assert r.stdout == ""
    assert "usage: ember-timer" in r.stderr and message in r.stderr


def test_statement_that_raises_prints_traceback_and_exits_1(tmp_path: Path) -> None:
    out = tmp_path / "never.json"
    r = run_cli([*FAST, "-s", "def f():\n    return {}['missing']", "f()", "--json", str(out)])
    assert r.returncode == 1
    assert r.stdout == ""
    assert "Traceback (most recent call last):" in r.stderr
    assert "return {}['missing']" in r.stderr and r.stderr.rstrip().endswith("KeyError: 'missing'")
    assert "_cli.py" not in r.stderr  # only the user's frames
    assert not out.exists()
    r = run_cli(["1 +"])
    assert r.returncode == 1 and "SyntaxError" in r.stderr


def test_progress_line_for_long_measurements() -> None:
    r = run_cli(["--min-run-time", "1.3", "-s", "x = torch.ones(16)", "x + x"])
    assert r.returncode == 0, r.stderr
    assert re.search(r"ember-timer: measuring x \+ x \(1 thread\): 1\.\d s, \d+ blocks of \d+", r.stderr)
    assert "measuring" not in run_cli(["-q", "-n", "10", "1"]).stderr  # short runs stay silent


def test_json_to_stdout_keeps_stdout_parseable() -> None:
    r = run_cli([*FAST, "--json", "-", "1 + 1"])
    assert r.returncode == 0, r.stderr
    (record,) = json.loads(r.stdout)
    assert record["stmt"] == "1 + 1" and record["num_threads"] == 1
    assert "1 + 1" in r.stderr and " ns" in r.stderr  # the report moved to stderr


def test_callgrind_unavailable_exits_1() -> None:
    env = cli_env()
    env["PATH"] = "/nonexistent"
    r = run_cli(["--callgrind", "1"], env=env)
    assert r.returncode == 1
    assert "Missing: valgrind" in r.stderr


def test_callgrind_prints_counts(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # In-process, with collect_callgrind faked: the real collection is covered by test_callgrind.py.
    calls = []

    def fake_collect(self: Timer, number: int = 100, **kw: object) -> CallgrindStats:
        calls.append((number, self._task_spec.num_threads))
        empty = FunctionCounts((), inclusive=False)
        stmt = FunctionCounts((FunctionCount(1234, "f.c:f"),), inclusive=False)
        return CallgrindStats(self._task_spec, number, True, FunctionCounts((), True), empty,
                              FunctionCounts((), True), stmt, None)

    monkeypatch.setattr(Timer, "collect_callgrind", fake_collect)
    assert main(["--callgrind", "--callgrind-number", "20", "-t", "1", "-t", "2", "-s", "x = 1", "x + x"]) == 0
    out = capsys.readouterr().out
    assert calls == [(20, 1), (20, 2)]
    assert out.startswith("x + x\nsetup: x = 1\n")
    assert re.search(r"Instructions:\s+1234\s+1234", out) and "20 runs per measurement, 2 threads" in out
    assert main(["-q", "--callgrind", "x"]) == 0
    assert capsys.readouterr().out == "1234\n"


def test_console_script_declared() -> None:
    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert 'ember-timer = "ember.utils.benchmark._cli:main"' in pyproject
    assert build_parser().prog == "ember-timer"
    assert os.path.exists(Path(__file__).resolve().parents[1] / "src/ember/utils/benchmark/__main__.py")
