"""examples/fsdp_train.py under ``ember-run``: trained on 2 ranks and saved with DCP, resumed
on 4 ranks, then on 1 (the global batch kept), it gives the loss curve of one uninterrupted
2-rank run, and the checkpoint's step counter carries over."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from _launch import _env, mpiexec

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "fsdp_train.py"
LAUNCH = [sys.executable, "-m", "ember.distributed.run", "--standalone"]


def _losses(cmd: list[str]) -> list[float]:
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=_env(None))
    assert out.returncode == 0 and out.stdout.strip(), out.stdout + out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_example_saves_and_resumes_on_other_rank_counts(tmp_path: Path) -> None:
    ck = str(tmp_path / "ck")
    common = [str(EXAMPLE), "--json", "--checkpoint-dir", ck]
    got = _losses([*LAUNCH, "--nproc-per-node", "2", *common, "--steps", "3"])
    assert (tmp_path / "ck" / ".metadata").exists() and len(got) == 3
    got += _losses([*LAUNCH, "--nproc-per-node", "4", *common, "--steps", "5", "--batch-size", "4"])
    got += _losses([*LAUNCH, "--nproc-per-node", "1", *common, "--steps", "6", "--batch-size", "16"])
    want = _losses([mpiexec(), "-n", "2", sys.executable, str(EXAMPLE), "--json", "--steps", "6"])
    assert len(got) == len(want) == 6
    assert got == pytest.approx(want, rel=1e-4)
    assert want[-1] < want[0]
