"""The four training examples on a GPU (issue 24): 30 steps of each with ``--device cuda`` give the
loss curve of the same 30 steps on the CPU, up to float32 reordering. Run by the GPU script
(tools/gpu_check.sh) with a CUDA build; skipped elsewhere.

The examples need ember-nn and ember-data: the subprocesses inherit PYTHONPATH (the GPU script puts
packages/nn/src and packages/data/src on it). Data, initial weights and batches come from CPU
generators on both devices, so only rounding differs; char_lstm runs with ``--dropout 0`` (its
dropout masks would be drawn on the device) and tiny_gpt has no dropout. The sampling after
training draws on the CPU too, but is not compared (the curve is). Where PyTorch has CUDA too, the
same scripts with ``--torch --device cuda`` run beside them (the examples' own check, not ember's)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
# 30 on a GPU; the CUDA emulator's session (nox -s cuda_emu) asks for fewer: its kernels run on the CPU.
STEPS = int(os.environ.get("EMBER_EXAMPLE_STEPS", "30"))
# A run's limit (a hang fails, not stalls): the CUDA emulator runs each thread of a kernel as a fiber,
# tiny_gpt's attention there takes minutes
TIMEOUT = 900 if ember.cuda.is_available() and "emulator" in ember.cuda.get_device_name() else 240
# Arguments that switch off each example's end-of-run quality gate (30 steps do not reach it) and
# anything drawn on the device.
QUICK = {
    "train_mlp": ["--min-accuracy", "0"],
    "train_cnn": ["--target-acc", "0"],
    "char_lstm": ["--target-loss", "99", "--dropout", "0"],
    "tiny_gpt": ["--target-loss", "99"],
}
# Relative tolerance per step: rounding differences grow over the steps, more through the LSTM's
# recurrence and attention's long reductions (on the CPU ember and PyTorch agree to ~1e-7 here).
RTOL = {"train_mlp": 1e-3, "train_cnn": 1e-3, "char_lstm": 2e-3, "tiny_gpt": 2e-3}


TORCH_CUDA = "torch-cuda"  # the run with --torch --device cuda


def _torch_has_cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def _run(name: str, device: str, out: Path) -> tuple[int, str, list[float]]:
    path = out / f"{name}_{device.replace(':', '')}.json"
    framework = ["--torch", "--device", "cuda"] if device == TORCH_CUDA else ["--device", device]
    cmd = [sys.executable, str(EXAMPLES / f"{name}.py"), "--steps", str(STEPS), *framework,
           "--losses-json", str(path), *QUICK[name]]
    # NVIDIA_TF32_OVERRIDE=0: convolutions use TF32 by default, PyTorch's (cuDNN) and ember's (cuBLAS);
    # the curves are compared in float32 (the emulator's cuBLAS honours the variable too).
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "NVIDIA_TF32_OVERRIDE": "0"}
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, cwd=out, env=env)
    losses = json.loads(path.read_text()) if path.exists() else []
    return p.returncode, p.stdout + p.stderr, losses


@pytest.fixture(scope="module")
def curves(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], tuple[int, str, list[float]]]:
    """Every (example, device) run at once: the processes overlap (the GPU machine has cores)."""
    out = tmp_path_factory.mktemp("examples")
    devices = ("cpu", "cuda", TORCH_CUDA) if _torch_has_cuda() else ("cpu", "cuda")
    jobs = [(n, d) for n in QUICK for d in devices]
    with ThreadPoolExecutor(len(jobs)) as pool:
        done = pool.map(lambda job: _run(*job, out), jobs)
        return dict(zip(jobs, done))


def _far(want: list[float], got: list[float], rtol: float) -> list[tuple[int, float, float]]:
    """The (step, want, got) where the curves part by more than ``rtol``."""
    return [(i + 1, w, g) for i, (w, g) in enumerate(zip(want, got)) if abs(g - w) > rtol * abs(w) + 1e-6]


@pytest.mark.parametrize("name", list(QUICK))
def test_example_loss_curve_on_cuda_matches_cpu(name: str, curves: dict) -> None:
    for device in ("cpu", "cuda"):
        rc, log, losses = curves[name, device]
        assert rc == 0, f"{name} --device {device} failed:\n{log[-3000:]}"
        assert len(losses) == STEPS and all(math.isfinite(v) for v in losses), log[-3000:]
    cpu, cuda = curves[name, "cpu"][2], curves[name, "cuda"][2]
    bad = _far(cpu, cuda, RTOL[name])
    assert not bad, f"{name}: steps where the CUDA loss leaves the CPU one (step, cpu, cuda): {bad}"
    assert cpu[-1] < cpu[0], f"{name}: the loss did not fall in {STEPS} steps: {cpu}"


@pytest.mark.parametrize("name", list(QUICK))
def test_example_on_pytorch_cuda(name: str, curves: dict) -> None:
    """The same script on PyTorch's CUDA (``--torch --device cuda``) runs and follows ember's CPU
    curve (looser: PyTorch's kernels round differently again)."""
    if (name, TORCH_CUDA) not in curves:
        pytest.skip("needs PyTorch with CUDA")
    rc, log, losses = curves[name, TORCH_CUDA]
    assert rc == 0, f"{name} --torch --device cuda failed:\n{log[-3000:]}"
    assert len(losses) == STEPS, log[-3000:]
    bad = _far(curves[name, "cpu"][2], losses, 5 * RTOL[name])
    assert not bad, f"{name}: steps where PyTorch's CUDA loss leaves ember's CPU one (step, cpu, cuda): {bad}"


def test_cuda_0_is_accepted(tmp_path: Path) -> None:
    """``--device cuda:0`` (an explicit index) runs too; two steps of the cheapest example."""
    cmd = [sys.executable, str(EXAMPLES / "train_mlp.py"), "--steps", "2", "--device", "cuda:0",
           "--losses-json", str(tmp_path / "l.json"), *QUICK["train_mlp"]]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert len(json.loads((tmp_path / "l.json").read_text())) == 2
