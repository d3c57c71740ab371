"""The GPU's complex functions (kernels/complex_math.h, compiled here for the host): compile the
checker and compare them with glibc's <complex> (the CPU's kernels) on Annex G's special values
and random values, in complex128 and as complex64 computes them (issue 24)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_complex_math_against_glibc(tmp_path: Path) -> None:
    exe = tmp_path / "complex_math_check"
    subprocess.run(["g++", "-std=c++17", "-O2", f"-I{CORE / 'csrc'}", str(CORE / "tests/cpp/complex_math_check.cpp"),
                    "-o", str(exe)], check=True, capture_output=True, text=True)
    r = subprocess.run([str(exe), "--quick"], capture_output=True, text=True)
    assert r.returncode == 0 and "0 failing" in r.stdout, r.stdout[-3000:] + r.stderr[-2000:]
