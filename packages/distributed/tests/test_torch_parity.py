"""The same DDP script (examples/ddp_train.py) on PyTorch 2.13 with gloo (torchrun) and on
ember (mpiexec): the same loss curve, epoch by epoch."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from _launch import TORCHRUN, json_losses, mpiexec

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "ddp_train.py"



def test_ddp_loss_curve_matches_pytorch() -> None:
    pytest.importorskip("torch")
    want = json_losses([*TORCHRUN, "--nproc-per-node", "2", str(EXAMPLE), "--torch", "--json", "--epochs", "4"], 4)
    got = json_losses([mpiexec(), "-n", "2", sys.executable, str(EXAMPLE), "--json", "--epochs", "4"], 4)
    assert got == pytest.approx(want, rel=1e-5, abs=1e-6)
    assert want[-1] < want[0]  # it trains
