"""The four training examples (examples/train_mlp.py, train_cnn.py, char_lstm.py, tiny_gpt.py) in a
quick run: ``--steps 3 --device cpu --losses-json`` writes three finite losses, the same ones as
the script on PyTorch (``--torch``); ``--device cuda`` without a GPU stops at once with the
framework's error. Their 30-step CPU-vs-GPU curves: packages/core/tests/test_cuda_examples.py."""

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

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
# Arguments that switch off each example's end-of-run quality gate (3 steps do not reach it).
QUICK = {
    "train_mlp": ["--min-accuracy", "0"],
    "train_cnn": ["--target-acc", "0"],
    "char_lstm": ["--target-loss", "99", "--dropout", "0"],
    "tiny_gpt": ["--target-loss", "99"],
}
NEEDS_DATA = {"train_mlp", "train_cnn"}  # ember.utils.data (ember-data)


def has_data() -> bool:
    try:
        import ember.utils.data  # noqa: F401
    except ModuleNotFoundError:
        return False
    return True


def run(name: str, tmp: Path, *args: str) -> tuple[subprocess.CompletedProcess, list[float] | None]:
    path = tmp / f"{name}{'_torch' if '--torch' in args else ''}.json"
    path.unlink(missing_ok=True)
    cmd = [sys.executable, str(EXAMPLES / f"{name}.py"), "--losses-json", str(path), *QUICK[name], *args]
    # One thread each: the runs overlap, and the CPU is shared with the rest of the suite.
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"}
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp, env=env)
    return p, json.loads(path.read_text()) if path.exists() else None


def run_all(tmp: Path, *args: str) -> dict[str, tuple[subprocess.CompletedProcess, list[float] | None]]:
    """Every example with ``args`` at once (they are independent processes)."""
    names = [n for n in QUICK if n not in NEEDS_DATA or has_data()]
    with ThreadPoolExecutor(len(names)) as pool:
        return dict(zip(names, pool.map(lambda n: run(n, tmp, *args), names)))


@pytest.fixture(scope="module")
def ember_runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_all(tmp_path_factory.mktemp("ember"), "--steps", "3", "--device", "cpu")


@pytest.mark.parametrize("name", list(QUICK))
def test_three_steps_write_three_finite_losses(name: str, ember_runs: dict) -> None:
    if name not in ember_runs:
        pytest.skip("needs ember-data")
    p, losses = ember_runs[name]
    assert p.returncode == 0, p.stdout + p.stderr
    assert losses is not None and len(losses) == 3, p.stdout + p.stderr
    assert all(isinstance(v, float) and math.isfinite(v) for v in losses)
    assert "step    3/3" in p.stdout or "stopped after 3 steps" in p.stdout, p.stdout


def test_the_same_losses_on_pytorch(ember_runs: dict, tmp_path: Path) -> None:
    """``--torch`` runs the same script on PyTorch: same data, weights and batches (CPU generators),
    so the three losses agree up to rounding."""
    pytest.importorskip("torch")
    for name, (pt, want) in run_all(tmp_path, "--steps", "3", "--torch").items():
        assert pt.returncode == 0, pt.stdout + pt.stderr
        got = ember_runs[name][1]
        assert want is not None and got is not None and len(want) == 3, (name, pt.stdout + pt.stderr)
        assert all(abs(a - b) <= 1e-4 * abs(b) for a, b in zip(got, want)), (name, got, want)


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the error without a GPU")
def test_cuda_without_a_gpu_fails_fast(tmp_path: Path) -> None:
    p, losses = run("tiny_gpt", tmp_path, "--steps", "3", "--device", "cuda")
    assert p.returncode == 1 and losses is None
    err = p.stderr.strip().splitlines()[-1]
    assert err.startswith("--device cuda: ") and "CUDA" in err, p.stderr
    assert "step" not in p.stdout  # stopped before training


@pytest.mark.parametrize("bad", ["tpu", "meta"])
def test_other_devices_are_refused(bad: str, tmp_path: Path) -> None:
    p, _ = run("tiny_gpt", tmp_path, "--steps", "3", "--device", bad)
    assert p.returncode == 1 and p.stderr.strip().splitlines()[-1].startswith(f"--device {bad}: "), p.stderr
