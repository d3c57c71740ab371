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


def test_bottleneck_help_and_failures(tmp_path: Path) -> None:
    res = run("-h")
    assert res.returncode == 0 and "scriptfile" in res.stdout
    bad = tmp_path / "bad.py"
    bad.write_text("raise ValueError('boom')\n")
    res = run(str(bad))
    assert res.returncode != 0 and "ValueError: boom" in res.stderr
