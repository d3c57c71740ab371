"""Run some of a test file's checks again in a subprocess with EMBER_CPU_CAPABILITY capped, so that the
narrower kernels (AVX2, the generic build) are checked whichever CPU runs the suite (a no-op cap where
the CPU lacks the wider ones)."""

from __future__ import annotations

import os
import subprocess
import sys


def run_capped(test_file: str, cap: str, keyword: str) -> None:
    """pytest -k keyword on test_file under EMBER_CPU_CAPABILITY=cap; fails with its output."""
    env = {**os.environ, "EMBER_CPU_CAPABILITY": cap}
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", test_file, "-k", keyword]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
