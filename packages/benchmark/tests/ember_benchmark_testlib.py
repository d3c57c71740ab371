"""Helpers shared by ember-benchmark's tests (registered under this name by conftest.py)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def rebuild(module: object, measurements: Sequence[object]) -> list[object]:
    """The same Measurements (number, raw times, TaskSpec fields) as objects of another library's module."""
    out = []
    for m in measurements:
        spec = m.task_spec  # type: ignore[attr-defined]
        fields = {k: getattr(spec, k) for k in ("stmt", "setup", "global_setup", "label", "sub_label",
                                                "description", "env", "num_threads")}
        out.append(module.Measurement(m.number_per_run, list(m.raw_times), module.TaskSpec(**fields)))  # type: ignore[attr-defined]
    return out


def noisy_times(rng: random.Random, median: float, spread: float, n: int) -> list[float]:
    return [median * (1 + rng.uniform(-spread, spread)) for _ in range(n)]


def cli_env() -> dict[str, str]:
    """Environment for ``python -m ember.utils.benchmark`` in a subprocess: this process's import path."""
    env = dict(os.environ)
    paths = [p for p in sys.path if p]  # whatever made ember importable here (PYTHONPATH, .pth files)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), *paths])
    return env


def run_cli(args: Sequence[str], cwd: str | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ember.utils.benchmark", *args], env=env or cli_env(),
                          cwd=cwd, capture_output=True, text=True, timeout=120)
