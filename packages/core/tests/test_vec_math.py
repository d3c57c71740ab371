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
# the flags of the AVX-512 kernels (CMakeLists.txt's ember_kernels(avx512 ...))
AVX512 = ["-mavx512f", "-mavx512dq", "-mavx512vl", "-mavx512bw", "-mavx2", "-mfma", "-mprefer-vector-width=512"]


def _cpu_has(flag: str) -> bool:
    try:
        return f" {flag}" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize(("flags", "needs"), [([], ""), (["-mavx2", "-mfma"], "avx2"), (AVX512, "avx512f")],
                         ids=["baseline", "avx2", "avx512"])
def test_vec_math_accuracy(tmp_path: Path, flags: list[str], needs: str) -> None:
    if needs and not _cpu_has(needs):
        pytest.skip(f"this CPU has no {needs}")
    exe = tmp_path / "vec_math_check"
    subprocess.run(
        # the kernels' flags (CMakeLists.txt): sqrt as the vector instruction
        ["g++", "-std=c++17", "-O2", "-fopenmp", "-fno-math-errno", "-fno-trapping-math", *flags, f"-I{CORE / 'csrc'}",
         str(CORE / "tests/cpp/vec_math_check.cpp"), "-o", str(exe)],
        check=True, capture_output=True, text=True,
    )
    r = subprocess.run([str(exe), "--quick", "--no-bench"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "0 failing" in r.stdout
