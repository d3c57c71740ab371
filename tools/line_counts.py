"""List source files in packages/ longer than a limit (800 lines by default).

Informational only: always exits 0. Counts Python, C++ and CUDA sources and skips build
output. Usage::

    python tools/line_counts.py [--limit N]
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUFFIXES = {".py", ".pyi", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".cu", ".cuh"}
# Build trees and environments hold generated or third-party code, not ours to split.
SKIP_DIRS = {".git", ".nox", ".venv", "venv", "build", "dist", "_skbuild", "__pycache__"}


def sources(top: Path) -> Iterator[Path]:
    for path in sorted(top.rglob("*")):
        parts = path.relative_to(top).parts
        if any(p in SKIP_DIRS or p.endswith(".egg-info") for p in parts):
            continue
        if path.suffix in SUFFIXES and path.is_file():
            yield path


def count_lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=800, help="report files over this many lines")
    args = parser.parse_args()
    long_files = [(n, p) for p in sources(ROOT / "packages") if (n := count_lines(p)) > args.limit]
    for n, path in sorted(long_files, reverse=True):
        print(f"{n:6d}  {path.relative_to(ROOT)}")
    if not long_files:
        print(f"no source file in packages/ is over {args.limit} lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
