"""Run ember's side-by-side core benchmarks against torch (``nox -s bench``).

    python packages/benchmark/benchmarks/run.py [--json-dir DIR] [--filter PATTERN] [--quick]
                                                [--libs torch,ember] [--list]

Every row is measured for the baseline (first library) and the candidate
(second) in this one process and reported as a ratio.  Missed targets never
fail the run; a statement that raises does (exit 1).  ``--libs torch,torch``
(or ``EMBER_BENCH_LIBS=torch,torch``) runs torch against itself, which is how
to develop the harness without ember: every ratio should come out near 1.0.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import harness
import suite_core

REPO_ROOT = Path(__file__).resolve().parents[3]  # packages/benchmark/benchmarks/run.py
DEFAULT_LIBS = "torch,ember"
PREFIX = "core"  # results file prefix: core-latest.json, core-YYYYmmdd-HHMMSS.json


def die(msg: str) -> NoReturn:
    """Usage/setup problems exit 2, distinct from 1 = a benchmark statement raised."""
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(2)


def load_libs(names: Sequence[str]) -> dict[str, ModuleType]:
    """Import the libraries to compare: ``{"torch": torch, "ember": ember}``.

    Order matters: the first is the baseline, the second the candidate.  A
    repeated name gets a "#2" label so torch-vs-torch runs have two columns.
    """
    if len(names) != 2:
        die(f"--libs needs exactly two modules (baseline,candidate), got {list(names)}")
    libs: dict[str, ModuleType] = {}
    for name in names:
        try:
            module = importlib.import_module(name)
        except Exception as e:  # ImportError, or a broken build raising anything
            hint = ""
            if name == "ember":
                hint = ("\n  Build/install the core into this environment first (`nox -s bench` does),"
                        "\n  or check the harness alone with --libs torch,torch.")
            die(f"cannot import {name!r}: {type(e).__name__}: {e}{hint}")
        libs[name if name not in libs else f"{name}#2"] = module
    return libs


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json-dir", type=Path, default=REPO_ROOT / ".bench",
                   help="where to save results and find the previous run (default: <repo>/.bench)")
    p.add_argument("--filter", action="append", default=[], metavar="PATTERN",
                   help="only rows whose id (suite/name/tN, see --list) contains PATTERN; "
                        "case-insensitive, repeatable (any match)")
    p.add_argument("--quick", action="store_true",
                   help="short measurements for smoke tests (saved as core-quick-*.json)")
    p.add_argument("--libs", default=os.environ.get("EMBER_BENCH_LIBS", DEFAULT_LIBS),
                   help="baseline,candidate modules (default: $EMBER_BENCH_LIBS or torch,ember)")
    p.add_argument("--list", action="store_true", help="print the row ids and exit")
    return p.parse_args(argv)


def select(benches: list[harness.Bench], patterns: list[str]) -> list[harness.Bench]:
    pats = [p.lower() for p in patterns]
    return [b for b in benches if not pats or any(p in b.id.lower() for p in pats)]


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    benches = select(suite_core.BENCHES, args.filter)
    if args.list:
        print("\n".join(b.id for b in benches))
        return 0
    if not benches:
        die(f"no benchmark matches --filter {args.filter}")

    libs = load_libs([n.strip() for n in args.libs.split(",") if n.strip()])
    base, cand = list(libs)
    cfg = harness.Config.quick() if args.quick else harness.Config()
    # Quick runs get their own history so smoke tests never become the baseline
    # that real runs are compared against.
    prefix = f"{PREFIX}-quick" if args.quick else PREFIX
    previous, note = harness.load_previous(args.json_dir / f"{prefix}-latest.json", list(libs))

    versions = ", ".join(f"{k} {getattr(m, '__version__', '?')}" for k, m in libs.items())
    print(f"core benchmarks: {versions}; {'quick' if args.quick else 'full'} mode, "
          f"min of {cfg.blocks} blocks of >= {cfg.min_block_s * 1e3:.0f} ms, interleaved")
    if note:
        print(f"note: {note}")
    table = harness.Table(base, cand, suite_core.TITLES, harness.previous_times(previous))

    t0 = time.perf_counter()
    results = []
    for bench in benches:
        result = harness.run_bench(bench, libs, cfg)
        table.add(result)
        results.append(result)
    elapsed = time.perf_counter() - t0

    out = harness.save_results(args.json_dir, prefix, results, libs, cfg, previous)
    oks = [r.ok(base, cand) for r in results]
    errors = sum(r.error is not None for r in results)
    noisy = sum(any(s.noisy for s in r.stats.values()) for r in results)
    if noisy:
        print(f"\n* {noisy} noisy rows (a library's median > {harness.NOISY:g}x its min): "
              "the machine was busy; rerun them (--filter) on an idle machine before trusting a MISS.")
    print(f"\n{len(results)} rows in {elapsed:.1f} s: {oks.count(True)} targets met, "
          f"{oks.count(False)} missed, {errors} errors.  Saved {out}")
    # Benchmarks never gate on targets, only on statements that raise.
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
