"""python -m ember.utils.bottleneck: sections, repeated runs, argv handling, failures."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import sys, ember
a = ember.ones(8)
for _ in range(3):
    a = a + a * a
with open(sys.argv[1], "a") as fh:
    fh.write(__name__ + " " + " ".join(sys.argv[2:]) + "\\n")
"""


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ember.utils.bottleneck", *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=120)


def test_bottleneck_runs_script_and_prints_sections(tmp_path: Path) -> None:
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    log = tmp_path / "log.txt"
    res = run(str(script), str(log), "--flag", "x")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    for title in ("Environment Summary", "cProfile output", "autograd profiler output (CPU mode)"):
        assert f"{'-' * 80}\n  {title}\n{'-' * 80}" in out
    assert "Running with Python" in out and "`pip3 list` truncated output:" in out
    assert "top 15 events sorted by cpu_time_total" in out
    assert "aten::add" in out and "Self CPU time total:" in out
    # Runs once under cProfile and once under the autograd profiler, with the script's argv.
    assert log.read_text().splitlines() == ["__main__ --flag x"] * 2


TRAIN = """
import ember
from ember import nn
m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
m(ember.randn(32, 8)).sum().backward()
"""


def test_bottleneck_shows_nested_and_backward_ops(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(TRAIN)
    res = run(str(script))
    assert res.returncode == 0, res.stderr
    table = res.stdout.split("top 15 events sorted by cpu_time_total")[1]
    # linear's own ops and the backward formulas' ops, as PyTorch's tree holds them
    for name in ("aten::linear", "aten::addmm", "AddmmBackward0", "autograd::engine::evaluate_function: AddmmBackward0"):
        assert name in table, name


def test_bottleneck_help_and_failures(tmp_path: Path) -> None:
    res = run("-h")
    assert res.returncode == 0 and "scriptfile" in res.stdout
    bad = tmp_path / "bad.py"
    bad.write_text("raise ValueError('boom')\n")
    res = run(str(bad))
    assert res.returncode != 0 and "ValueError: boom" in res.stderr
    assert f'File "{bad}", line 1' in res.stderr  # the traceback reaches into the script


def test_bottleneck_cuda_section(tmp_path: Path, monkeypatch, capsys) -> None:
    # ember has no CUDA build here: pretend the runtime is there to run the tool's CUDA path.
    import warnings

    import ember
    from ember.utils.bottleneck import _main

    monkeypatch.setattr(_main, "_cuda_available", lambda: True)
    monkeypatch.setattr(ember.cuda, "init", lambda: None)  # nothing to initialise without a CUDA build
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    log = tmp_path / "log.txt"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # legacy profile(use_cuda=True) warns that CUDA is off
        _main.main([str(script), str(log), "-v"])
    out = capsys.readouterr().out
    assert f"{'-' * 80}\n  autograd profiler output (CUDA mode)\n{'-' * 80}" in out
    assert "the CUDA time column reports approximately max(cuda_time, cpu_time)" in out
    assert "Running with Python" in out and "CUDA runtime available" in out
    assert log.read_text().splitlines() == ["__main__ -v"] * 3  # cProfile, CPU mode, CUDA mode


class _FakeEvent:
    def __init__(self, total: float) -> None:
        self.cpu_time_total = self.cpu_time = self.self_cpu_time_total = total
        self.count = 1


class _FakeProf:
    def __init__(self, total: float) -> None:
        self.function_events = [_FakeEvent(total)]


def test_bottleneck_cpu_section_only_when_totals_differ(monkeypatch) -> None:
    from ember.utils.bottleneck import _main

    monkeypatch.setattr(_main, "autograd_summary", lambda prof, mode, sortby: mode)
    assert _main.autograd_sections(_FakeProf(100.0), None) == ["CPU"]
    assert _main.autograd_sections(_FakeProf(100.0), _FakeProf(104.0)) == ["CUDA"]  # within 5%
    assert _main.autograd_sections(_FakeProf(100.0), _FakeProf(110.0)) == ["CPU", "CUDA"]
