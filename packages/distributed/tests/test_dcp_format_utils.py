"""format_utils: DCP directory <-> single torch.save file, as functions and as the
``python -m ember.distributed.checkpoint.format_utils`` command, checked against PyTorch."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytestmark = [pytest.mark.filterwarnings("ignore:torch.distributed is disabled")]


def test_dcp_to_torch_save_and_back(tmp_path: Path) -> None:
    import ember
    import ember.distributed.checkpoint as dcp
    from ember.distributed.checkpoint.format_utils import dcp_to_torch_save, torch_save_to_dcp

    sd = {"model": {"w": ember.arange(12.).reshape(3, 4), "h": ember.ones(2, dtype=ember.float16)},
          "step": 4, "tags": ["a", "b"]}
    dcp.save(sd, checkpoint_id=tmp_path / "d", no_dist=True)
    dcp_to_torch_save(tmp_path / "d", tmp_path / "f.pt")
    flat = ember.load(tmp_path / "f.pt", weights_only=False)
    assert flat["model"]["w"].tolist() == sd["model"]["w"].tolist() and flat["step"] == 4
    assert flat["model"]["h"].dtype == ember.float16 and flat["tags"] == ["a", "b"]
    torch_save_to_dcp(tmp_path / "f.pt", tmp_path / "d2")
    back = {"model": {"w": ember.zeros(3, 4), "h": ember.zeros(2, dtype=ember.float16)}, "step": 0, "tags": []}
    dcp.load(back, checkpoint_id=tmp_path / "d2", no_dist=True)
    assert back["model"]["w"].tolist() == sd["model"]["w"].tolist() and back["step"] == 4


def test_command_interoperates_with_torch(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    import torch.distributed.checkpoint as tdcp

    torch.save({"w": torch.arange(6.).reshape(2, 3), "n": 1}, tmp_path / "t.pt")
    cmd = [sys.executable, "-m", "ember.distributed.checkpoint.format_utils"]
    p = subprocess.run(cmd + ["torch_to_dcp", str(tmp_path / "t.pt"), str(tmp_path / "d")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "Converting checkpoint from" in p.stdout
    sd = {"w": torch.zeros(2, 3), "n": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tdcp.load(sd, checkpoint_id=str(tmp_path / "d"), no_dist=True)
    assert sd["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and sd["n"] == 1
    # A checkpoint PyTorch saved, converted by ember's command, read by torch.load.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tdcp.save({"x": torch.full((3,), 2.5), "s": "hi"}, checkpoint_id=str(tmp_path / "td"), no_dist=True)
    p = subprocess.run(cmd + ["dcp_to_torch", str(tmp_path / "td"), str(tmp_path / "out.pt")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out = torch.load(tmp_path / "out.pt", weights_only=False)
    assert out["x"].tolist() == [2.5] * 3 and out["s"] == "hi"
    p = subprocess.run(cmd + ["dcp_to_torch", str(tmp_path / "nope"), str(tmp_path / "o.pt")],
                       capture_output=True, text=True, timeout=120)
    assert "No checkpoint found at" in p.stdout
