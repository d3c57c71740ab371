"""The vectorisable math header: compile its checker and run the accuracy sweep.

Kernels call ember::vec:: functions; the checker compares them with std:: in
ulps and on special values (nan, inf, signed zeros, subnormals).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[1]


def _cpu_has(flag: str) -> bool:
    try:
        return f" {flag}" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("flags", [[], ["-mavx2", "-mfma"]], ids=["baseline", "avx2"])
def test_vec_math_accuracy(tmp_path: Path, flags: list[str]) -> None:
    if flags and not _cpu_has("avx2"):
        pytest.skip("this CPU has no AVX2")
    exe = tmp_path / "vec_math_check"
    subprocess.run(
        ["g++", "-std=c++17", "-O2", "-fopenmp", *flags, f"-I{CORE / 'csrc'}",
         str(CORE / "tests/cpp/vec_math_check.cpp"), "-o", str(exe)],
        check=True, capture_output=True, text=True,
    )
    r = subprocess.run([str(exe), "--quick", "--no-bench"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "0 failing" in r.stdout
