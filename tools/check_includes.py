"""Check two house rules of the sources; exits 1 when either is broken.

1. Includes point only downward in ``packages/core/csrc``. The layers, top to bottom::

       python  ->  autograd  ->  ops  ->  kernels  ->  iter  ->  core

   A file may include its own layer and the layers below it, never one above (a kernel that
   includes an op header, an op that includes an autograd header). The generated headers
   belong to the layer that uses them: ``kernel_table.h`` to kernels, ``ops.h`` to ops,
   ``autograd_ops.h`` to autograd. The few known upward includes are listed in
   ``UPWARD_ALLOWED`` with the reason; a new one fails, and so does a listed one that is gone
   (so the list only shrinks).
2. Source files stay under ``--limit`` lines (800 by default); the few that are over are listed
   in ``LONG_ALLOWED`` (a listed file that shrank below the limit fails too: drop it).

Usage::

    python tools/check_includes.py [--limit N] [--graph]

``--graph`` also prints the layer-to-layer include counts.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from line_counts import count_lines, sources  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "packages" / "core" / "csrc"
LAYERS = ["core", "iter", "kernels", "ops", "autograd", "python"]
GENERATED = {"kernel_table.h": "kernels", "ops.h": "ops", "autograd_ops.h": "autograd", "entry_ops.h": "autograd"}

# (including file, included file) -> why it is allowed for now. Paths are relative to csrc.
UPWARD_ALLOWED: dict[tuple[str, str], str] = {
}

# Files over the limit, with the reason they are not split (yet).
LONG_ALLOWED: dict[str, str] = {
    "packages/core/tests/test_parity.py": "the op-by-op parity table (data, not logic)",
    "packages/core/tests/torch_known_wrong.py": "a list of PyTorch's known wrong results (data)",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel: str) -> str | None:
    """The layer of a path relative to csrc (or of a generated header's name)."""
    if rel in GENERATED:
        return GENERATED[rel]
    top = rel.split("/", 1)[0]
    return top if top in LAYERS else None


def resolve(src: Path, name: str) -> str:
    """What `#include "name"` in src names, relative to csrc (or the bare generated name)."""
    for base in (src.parent, CSRC):
        cand = (base / name).resolve()
        if cand.is_file() and CSRC in cand.parents:
            return cand.relative_to(CSRC).as_posix()
    return name


def include_edges() -> list[tuple[str, str]]:
    edges = []
    for path in sorted(CSRC.rglob("*")):
        if path.suffix not in {".h", ".cpp", ".cu", ".cuh"}:
            continue
        for name in INCLUDE.findall(path.read_text()):
            edges.append((path.relative_to(CSRC).as_posix(), resolve(path, name)))
    return edges


def check_layers(edges: list[tuple[str, str]]) -> list[str]:
    errors, seen = [], set()
    for src, dst in edges:
        a, b = layer_of(src), layer_of(dst)
        if a is None or b is None or LAYERS.index(b) <= LAYERS.index(a):
            continue
        seen.add((src, dst))
        if (src, dst) not in UPWARD_ALLOWED:
            errors.append(f"upward include: {src} ({a}) includes {dst} ({b})")
    for src, dst in sorted(set(UPWARD_ALLOWED) - seen):
        errors.append(f"UPWARD_ALLOWED lists {src} -> {dst}, which is gone: drop it from the list")
    return errors


def check_lengths(limit: int) -> list[str]:
    errors, over = [], set()
    for path in sources(ROOT / "packages"):
        rel = path.relative_to(ROOT).as_posix()
        n = count_lines(path)
        if n > limit:
            over.add(rel)
            if rel not in LONG_ALLOWED:
                errors.append(f"{rel}: {n} lines (limit {limit}): split it, or list it in LONG_ALLOWED")
    for rel in sorted(set(LONG_ALLOWED) - over):
        errors.append(f"LONG_ALLOWED lists {rel}, which is no longer over {limit} lines: drop it")
    return errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=800)
    parser.add_argument("--graph", action="store_true", help="print the layer include graph")
    args = parser.parse_args()
    edges = include_edges()
    if args.graph:
        counts = Counter((layer_of(s), layer_of(d)) for s, d in edges if layer_of(s) and layer_of(d))
        for (a, b), n in sorted(counts.items(), key=lambda kv: (LAYERS.index(kv[0][0]), LAYERS.index(kv[0][1]))):
            print(f"{a:>8} -> {b:<8} {n:4d}{'  (upward)' if LAYERS.index(b) > LAYERS.index(a) else ''}")
    errors = check_layers(edges) + check_lengths(args.limit)
    for e in errors:
        print(e)
    if not errors:
        print(f"includes point downward ({len(edges)} checked); no file over {args.limit} lines outside the allow-list")
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
