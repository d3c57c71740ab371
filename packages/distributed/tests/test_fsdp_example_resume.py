"""examples/fsdp_train.py under ``ember-run``: trained on 2 ranks and saved with DCP, resumed
on 4 ranks, then on 1 (the global batch kept), it gives the loss curve of one uninterrupted
2-rank run, and the checkpoint's step counter carries over."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from _launch import json_losses, mpiexec

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "fsdp_train.py"
LAUNCH = [sys.executable, "-m", "ember.distributed.run", "--standalone"]


def test_example_saves_and_resumes_on_other_rank_counts(tmp_path: Path) -> None:
    ck = str(tmp_path / "ck")
    common = [str(EXAMPLE), "--json", "--checkpoint-dir", ck]
    got = json_losses([*LAUNCH, "--nproc-per-node", "2", *common, "--steps", "3"], 3)
    assert (tmp_path / "ck" / ".metadata").exists()
    got += json_losses([*LAUNCH, "--nproc-per-node", "4", *common, "--steps", "5", "--batch-size", "4"], 2)
    got += json_losses([*LAUNCH, "--nproc-per-node", "1", *common, "--steps", "6", "--batch-size", "16"], 1)
    want = json_losses([mpiexec(), "-n", "2", sys.executable, str(EXAMPLE), "--json", "--steps", "6"], 6)
    assert got == pytest.approx(want, rel=1e-4)
    assert want[-1] < want[0]
