"""Run ember's side-by-side benchmarks against torch (``nox -s bench``).

    python packages/benchmark/benchmarks/run.py [--json-dir DIR] [--filter PATTERN] [--quick]
                                                [--libs torch,ember] [--list] [--color]

Every ``suite_*.py`` next to this file is loaded (``suite_core.py`` first):
each defines ``BENCHES`` (a list of ``harness.Bench``) and ``TITLES`` (suite
key -> table heading).  Every row is measured for the baseline (first
library) and the candidate (second) in this one process with
``ember.utils.benchmark.Timer`` and shown in one Compare table per suite with
the ratio, the target and the change since the previous run.  Missed targets
never fail the run; a statement that raises does (exit 1).  ``--libs
torch,torch`` runs torch against itself, which is how to check the harness:
every ratio should come out near 1.0.
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
from typing import Any, NoReturn

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[2]  # packages/benchmark/benchmarks/run.py
DEFAULT_LIBS = "torch,ember"
# Results file prefix: core-latest.json, core-YYYYmmdd-HHMMSS.json (the name predates the
# other suites; kept so that earlier runs stay the baseline of the next one).
PREFIX = "core"


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
                hint = "\n  Build/install the core into this environment first (`nox -s bench` does)."
            die(f"cannot import {name!r}: {type(e).__name__}: {e}{hint}")
        libs[name if name not in libs else f"{name}#2"] = module
    return libs


def load_suites(directory: Path) -> tuple[list[Any], dict[str, str], list[str]]:
    """All rows and titles of the ``suite_*.py`` files in ``directory``; plus load errors.

    A suite that fails to import is reported (and fails the run) without
    keeping the other suites from running.
    """
    benches: list[Any] = []
    titles: dict[str, str] = {}
    errors: list[str] = []
    files = sorted(directory.glob("suite_*.py"), key=lambda p: (p.name != "suite_core.py", p.name))
    for path in files:
        try:
            module = importlib.import_module(path.stem)
            rows = list(module.BENCHES)
        except Exception as e:  # noqa: BLE001 - one broken suite must not hide the others
            errors.append(f"{path.name}: {type(e).__name__}: {e}")
            continue
        benches.extend(rows)
        titles.update(getattr(module, "TITLES", {}))
    seen: dict[str, int] = {}
    for b in benches:
        seen[b.id] = seen.get(b.id, 0) + 1
    duplicates = sorted(i for i, n in seen.items() if n > 1)
    if duplicates:
        die(f"benchmark ids must be unique across suites; repeated: {', '.join(duplicates)}")
    return benches, titles, errors


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
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
    p.add_argument("--color", action="store_true", help="colour each row's times (best green, slow red)")
    return p.parse_args(argv)


def select(benches: list[Any], patterns: list[str]) -> list[Any]:
    pats = [p.lower() for p in patterns]
    return [b for b in benches if not pats or any(p in b.id.lower() for p in pats)]


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        import harness
        import history
        import report
    except ImportError as e:  # ember.utils.benchmark (ember-core + ember-benchmark) is the timing engine
        die(f"cannot import the benchmark harness: {type(e).__name__}: {e}\n"
            "  The harness times with ember.utils.benchmark: install ember-core and ember-benchmark.")

    all_benches, titles, load_errors = load_suites(HERE)
    for err in load_errors:
        print(f"error: cannot load suite {err}", file=sys.stderr)
    benches = select(all_benches, args.filter)
    if args.list:
        print("\n".join(b.id for b in benches))
        return 1 if load_errors else 0
    if not benches:
        die(f"no benchmark matches --filter {args.filter}")

    libs = load_libs([n.strip() for n in args.libs.split(",") if n.strip()])
    base, cand = list(libs)
    cfg = harness.Config.quick() if args.quick else harness.Config()
    # Quick runs get their own history so smoke tests never become the baseline
    # that real runs are compared against.
    prefix = f"{PREFIX}-quick" if args.quick else PREFIX
    previous, note = history.load_previous(args.json_dir / f"{prefix}-latest.json", list(libs))
    last = history.previous_times(previous)

    versions = ", ".join(f"{k} {getattr(m, '__version__', '?')}" for k, m in libs.items())
    print(f"benchmarks: {versions}; {'quick' if args.quick else 'full'} mode, medians of "
          f"{cfg.rounds} alternating rounds of Timer.blocked_autorange(min_run_time={cfg.round_s:g}) per library")
    if note:
        print(f"note: {note}")

    t0 = time.perf_counter()
    results: list[harness.Result] = []
    suites = list(dict.fromkeys(b.suite for b in benches))
    for suite in suites:
        title = titles.get(suite, suite)
        rows = [b for b in benches if b.suite == suite]
        suite_results = []
        for bench in rows:
            result = harness.run_bench(bench, libs, cfg, title)
            suite_results.append(result)
            results.append(result)
            report.progress(len(results), len(benches), result, base, cand)
        print()
        print(report.render_suite(title, suite_results, base, cand, last, color=args.color), flush=True)
    elapsed = time.perf_counter() - t0

    out = history.save_results(args.json_dir, prefix, results, libs, cfg, previous)
    oks = [r.ok(base, cand) for r in results]
    errors = sum(r.error is not None for r in results)
    noisy = sum(r.error is None and r.noisy() for r in results)
    print(f"\nratio: {base}/{cand} time for throughput rows (higher is better), {cand}/{base} otherwise "
          f"(lower is better); 'vs last' = change of {cand}'s median since the previous run.")
    if noisy:
        print(f"* {noisy} noisy rows (a library's IQR >= 10% of its median, cells marked (! NN%)): "
              "the machine was busy; rerun them (--filter) on an idle machine before trusting a MISS.")
    print(f"\n{len(results)} rows in {elapsed:.1f} s: {oks.count(True)} targets met, "
          f"{oks.count(False)} missed, {errors} errors.  Saved {out}")
    # Benchmarks never gate on targets, only on statements that raise (or suites that don't load).
    return 1 if errors or load_errors else 0


if __name__ == "__main__":
    sys.exit(main())
