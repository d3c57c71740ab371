"""Per-op overhead as instructions per call, counted by callgrind (deterministic, unlike timings).

    python tools/overhead_instructions.py [--python PYTHON] [ROW ...]

Each row runs 10,000 and 30,000 calls in a fresh interpreter under valgrind and reports the
difference / 20,000, so start-up and import cancel out. One BLAS/OpenMP thread: idle pool
threads spinning in the background would otherwise add noise. Use it to compare two builds
(a worktree's venv against another's) when a change touches the binding or dispatch path.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROWS = {"a+b": "a + b", "a.sum()": "a.sum()", "a+1": "a + 1", "add(a,b)": "ember.add(a, b)",
        "a.shape": "a.shape", "empty(1)": "ember.empty(1)", "a.view(-1)": "a.view(-1)", "a[0]": "a[0]",
        "m.t()": "m.t()", "a*2.0": "a * 2.0", "zeros(4,6)": "ember.zeros(4, 6)",
        "addmm(c,m,w)": "ember.addmm(c, m, w)", "m.transpose(0,1)": "m.transpose(0, 1)"}

SCRIPT = """import sys, ember
a = ember.ones(1); b = ember.ones(1); m = ember.ones(4, 6); w = ember.ones(6, 3); c = ember.ones(3)
def run(n):
    f = lambda: {expr}
    for _ in range(300): f()
    for _ in range(n): f()
run(int(sys.argv[1]))
"""


def instructions(python: str, expr: str, calls: int) -> int:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(SCRIPT.format(expr=expr))
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    try:
        r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", python, f.name,
                            str(calls)], capture_output=True, text=True, env=env, check=True)
    finally:
        os.unlink(f.name)
    return int(re.search(r"Collected : (\d+)", r.stderr).group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("rows", nargs="*", default=list(ROWS))
    args = ap.parse_args()
    for row in args.rows:
        lo, hi = (instructions(args.python, ROWS[row], n) for n in (10_000, 30_000))
        print(f"{row:12s} {(hi - lo) // 20_000}")


if __name__ == "__main__":
    main()
