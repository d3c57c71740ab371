"""Side-by-side timing harness: measure one statement in two libraries, print, save.

A benchmark row (:class:`Bench`) is plain data: a statement string written
against ``lib`` (the library module) plus a setup function that builds the
inputs with ``lib.randn(...)`` etc.  The same row is measured for the
*baseline* library (torch) and the *candidate* (ember) in the same process,
with their timing blocks interleaved so that machine noise hits both alike.

Layout of this module:

* timing    -- ``make_timer`` (the only place that knows how a statement is
               executed; a later issue swaps it for ``ember.utils.benchmark.Timer``),
               ``measure_stmt`` and ``measure_import``;
* report    -- ``Table``, which streams one line per row as it is measured;
* history   -- ``save_results`` / ``load_previous`` for the ``--json-dir`` files.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

Kind = Literal["overhead", "throughput", "import"]
NOISY = 1.2  # median/min above this marks a row's ratio with "*"


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Bench:
    """One benchmark row.

    kind:
      * ``overhead``   -- time per call; ratio = candidate/baseline (lower is better).
      * ``throughput`` -- ratio = baseline/candidate, i.e. the candidate's
                          throughput relative to the baseline (higher is better).
      * ``import``     -- ``python -c "import <lib>"`` in a fresh subprocess;
                          ratio = candidate/baseline, target is an absolute
                          limit in seconds on the candidate's time.
    target: None for informative rows (never ok/MISS).
    threads: passed to ``lib.set_num_threads`` before the row; None = don't touch.
    """

    suite: str
    name: str
    kind: Kind
    stmt: str
    setup: Callable[[ModuleType], dict[str, Any]] | None = None
    threads: int | None = 1
    target: float | None = None

    @property
    def id(self) -> str:
        """Stable key used by --filter and to match rows against the previous run."""
        t = "-" if self.threads is None else str(self.threads)
        return f"{self.suite}/{self.name}/t{t}"


@dataclass(frozen=True)
class Config:
    """Measurement effort; ``quick`` is for smoke tests, not for numbers."""

    min_block_s: float = 0.05  # each timed block lasts at least this long
    # Timed blocks per library (after calibration).  10 rather than 5 because
    # the 2-thread rows on a shared 2-core box often lose a core to another
    # process for a whole block; more blocks = more chances of a clean one.
    blocks: int = 10
    import_runs: int = 7  # fresh interpreters per library (after 1 warm-up)

    @classmethod
    def quick(cls) -> Config:
        return cls(min_block_s=0.01, blocks=5, import_runs=2)


@dataclass
class Stats:
    """Per-call times (seconds) of one library for one row."""

    samples: list[float]
    number: int  # calls per block (1 for import rows)

    @property
    def best(self) -> float:
        # We report the MIN over blocks (as timeit's docs recommend): noise on a
        # shared 2-core box (other processes, frequency dips) only ever adds
        # time, so the minimum is the most repeatable estimate of what the code
        # itself costs, and both libraries are treated identically.  The median
        # is kept in the JSON for anyone who wants a noise-inclusive view.
        return min(self.samples)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def noisy(self) -> bool:
        """Median well above min: the machine was busy; the row deserves a rerun."""
        return self.median > NOISY * self.best


@dataclass
class Result:
    bench: Bench
    stats: dict[str, Stats] = field(default_factory=dict)
    error: str | None = None

    def ratio(self, base: str, cand: str) -> float | None:
        if self.error is not None:
            return None
        b, c = self.stats[base].best, self.stats[cand].best
        return b / c if self.bench.kind == "throughput" else c / b

    def ok(self, base: str, cand: str) -> bool | None:
        """True/False against the target; None when informative or failed."""
        t, r = self.bench.target, self.ratio(base, cand)
        if t is None or r is None:
            return None
        if self.bench.kind == "throughput":
            return r >= t
        if self.bench.kind == "import":
            return self.stats[cand].best <= t
        return r <= t


# ------------------------------------------------------------------------ timing


def make_timer(stmt: str, namespace: dict[str, Any]) -> Callable[[int], float]:
    """Return ``run(number) -> total seconds`` for ``number`` executions of stmt.

    This is the single seam to replace with ``ember.utils.benchmark.Timer``.
    We use the stdlib ``timeit.Timer``: it compiles stmt into a tight
    ``for`` loop (~10-20 ns of loop overhead per call, negligible next to the
    ~1 us op calls we care about) and disables the GC while timing.
    """
    return timeit.Timer(stmt, globals=namespace).timeit


def _calibrate(run: Callable[[int], float], min_block_s: float) -> int:
    """Smallest power-of-ten-ish ``number`` whose block lasts >= min_block_s.

    Like ``timeit.Timer.autorange`` but with our own block length; the calls
    made here double as warm-up (allocator caches, lazy init, page faults).
    """
    number = 1
    while True:
        t = run(number)
        if t >= min_block_s:
            return number
        # Jump straight to the estimated count (+20% margin), at least 2x.
        number = max(number * 2, int(number * 1.2 * min_block_s / max(t, 1e-9)))


def measure_stmt(bench: Bench, libs: Mapping[str, ModuleType], cfg: Config) -> dict[str, Stats]:
    """Time bench.stmt for every library, interleaving the timed blocks."""
    runs: dict[str, Callable[[int], float]] = {}
    numbers: dict[str, int] = {}
    for label, lib in libs.items():
        if bench.threads is not None:
            lib.set_num_threads(bench.threads)
        ns = dict(bench.setup(lib)) if bench.setup else {}
        ns["lib"] = lib
        runs[label] = make_timer(bench.stmt, ns)
        runs[label](1)  # warm-up; also surfaces errors before any timing
    for label in libs:
        numbers[label] = _calibrate(runs[label], cfg.min_block_s)

    samples: dict[str, list[float]] = {label: [] for label in libs}
    order = list(libs)
    for i in range(cfg.blocks):
        # Alternate who goes first so neither library always runs "after" the
        # other (cache state, turbo budget, allocator state).
        for label in order if i % 2 == 0 else reversed(order):
            lib = libs[label]
            if bench.threads is not None:
                # Set threads before every block: when both labels are the
                # same module (torch vs torch) or share a pool this keeps each
                # block honest.
                lib.set_num_threads(bench.threads)
            samples[label].append(runs[label](numbers[label]) / numbers[label])
    return {label: Stats(samples[label], numbers[label]) for label in libs}


def measure_import(bench: Bench, libs: Mapping[str, ModuleType], cfg: Config) -> dict[str, Stats]:
    """Wall time of ``python -c <stmt>`` in fresh interpreters, interleaved.

    stmt is formatted with ``name=<module name>``, e.g. "import {name}".  We
    run from a temporary directory so the repo checkout can't shadow the
    installed package, and keep the environment so PYTHONPATH setups work.
    """

    def once(lib: ModuleType) -> float:
        code = bench.stmt.format(name=lib.__name__)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, cwd=tempfile.gettempdir(),
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        return time.perf_counter() - t0

    for lib in libs.values():
        once(lib)  # warm-up: fills the OS file cache for .so/.pyc files
    samples: dict[str, list[float]] = {label: [] for label in libs}
    order = list(libs)
    for i in range(cfg.import_runs):
        for label in order if i % 2 == 0 else reversed(order):
            samples[label].append(once(libs[label]))
    return {label: Stats(samples[label], 1) for label in libs}


def run_bench(bench: Bench, libs: Mapping[str, ModuleType], cfg: Config) -> Result:
    """Measure one row; any exception becomes ``Result.error`` (and a non-zero exit)."""
    try:
        measure = measure_import if bench.kind == "import" else measure_stmt
        return Result(bench, measure(bench, libs, cfg))
    except subprocess.CalledProcessError as e:
        err = (e.stderr or b"").decode(errors="replace").strip().splitlines()
        return Result(bench, error=f"subprocess failed: {err[-1] if err else e}")
    except Exception as e:  # noqa: BLE001 - report and continue with other rows
        return Result(bench, error=f"{type(e).__name__}: {e}")
    finally:
        gc.collect()  # drop the (large) inputs before the next row allocates its own


# ------------------------------------------------------------------------ report


def fmt_time(s: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def fmt_target(bench: Bench) -> str:
    if bench.target is None:
        return ""
    if bench.kind == "import":
        return f"<={bench.target:g}s"
    return f"{'>=' if bench.kind == 'throughput' else '<='}{bench.target:.2f}x"


class Table:
    """Prints one table per suite, a line per row as soon as it is measured."""

    def __init__(self, base: str, cand: str, titles: Mapping[str, str],
                 previous: Mapping[str, float] | None) -> None:
        """titles: suite key -> heading; previous: row id -> candidate time (adds "vs last")."""
        self.base, self.cand, self.titles, self.previous = base, cand, titles, previous
        self.cols = [("benchmark", 34), ("threads", 7), (base, 10), (cand, 10),
                     ("ratio", 7), ("target", 8), ("", 4)]
        if previous is not None:
            self.cols.append(("vs last", 7))
        self._suite: str | None = None

    def _line(self, cells: list[str]) -> str:
        # Error rows pass fewer cells than columns; zip stops at the shorter.
        widths = [w for _, w in self.cols]
        parts = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=False))]
        return "  ".join(parts).rstrip()

    def start_suite(self, suite: str) -> None:
        if suite == self._suite:
            return
        self._suite = suite
        print(f"\n== {self.titles.get(suite, suite)}")
        print(self._line([name for name, _ in self.cols]))
        print(self._line(["-" * w for _, w in self.cols]))

    def add(self, r: Result) -> None:
        b = r.bench
        self.start_suite(b.suite)
        threads = "-" if b.threads is None else str(b.threads)
        if r.error is not None:
            print(self._line([b.name, threads, "", "", "", fmt_target(b), "ERR"]))
            print(f"    error: {r.error}")
            return
        ratio = r.ratio(self.base, self.cand)
        ok = r.ok(self.base, self.cand)
        cand_t = r.stats[self.cand].best
        noisy = "*" if any(s.noisy for s in r.stats.values()) else ""
        cells = [b.name, threads, fmt_time(r.stats[self.base].best), fmt_time(cand_t),
                 f"{ratio:.2f}x{noisy}", fmt_target(b), {True: "ok", False: "MISS", None: ""}[ok]]
        if self.previous is not None:
            old = self.previous.get(b.id)
            cells.append("" if old is None else f"{(cand_t / old - 1) * 100:+.0f}%")
        print(self._line(cells), flush=True)


# ----------------------------------------------------------------------- history


def load_previous(path: Path, libs: list[str]) -> tuple[dict[str, Any] | None, str | None]:
    """Load ``<prefix>-latest.json``; returns (data, note explaining a skip)."""
    if not path.exists():
        return None, None
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        return None, f"ignoring unreadable {path}: {e}"
    if data.get("libs") != libs:
        # Comparing against a run of different libraries (e.g. a torch-vs-torch
        # dev run) would show meaningless "regressions".
        return None, f"not comparing with {path.name}: it measured {data.get('libs')}"
    return data, None


def previous_times(data: Mapping[str, Any] | None) -> dict[str, float] | None:
    """Row id -> candidate's best time from a previous results file."""
    if data is None:
        return None
    cand = data["libs"][-1]
    return {row["id"]: row["times"][cand]["best"] for row in data["rows"] if row.get("times")}


def result_row(r: Result, base: str, cand: str, stamp: str) -> dict[str, Any]:
    b = r.bench
    return {
        "id": b.id, "suite": b.suite, "name": b.name, "kind": b.kind, "stmt": b.stmt,
        "threads": b.threads, "target": b.target, "measured_at": stamp,
        "ratio": r.ratio(base, cand), "ok": r.ok(base, cand), "error": r.error,
        "times": {label: {"best": s.best, "median": s.median, "number": s.number,
                          "samples": s.samples} for label, s in r.stats.items()},
    }


def save_results(json_dir: Path, prefix: str, results: list[Result], libs: Mapping[str, ModuleType],
                 cfg: Config, previous: Mapping[str, Any] | None) -> Path:
    """Write ``<prefix>-YYYYmmdd-HHMMSS.json`` and ``<prefix>-latest.json``.

    The timestamped file holds exactly this run.  ``-latest`` additionally
    carries over rows from the previous latest that this run did not measure
    (e.g. under --filter), so a filtered run doesn't erase the comparison
    baseline of the other rows.
    """
    labels = list(libs)
    base, cand = labels[0], labels[-1]
    now = _dt.datetime.now()
    stamp = now.isoformat(timespec="seconds")
    rows = [result_row(r, base, cand, stamp) for r in results]
    data = {
        "suite": prefix, "created": stamp, "libs": labels, "quick": cfg == Config.quick(),
        "config": dataclasses.asdict(cfg),
        "versions": {label: getattr(m, "__version__", "?") for label, m in libs.items()},
        "python": sys.version.split()[0], "platform": platform.platform(),
        "cpu_count": os.cpu_count(), "rows": rows,
    }
    json_dir.mkdir(parents=True, exist_ok=True)
    out = json_dir / f"{prefix}-{now:%Y%m%d-%H%M%S}.json"
    out.write_text(json.dumps(data, indent=1))
    measured = {row["id"] for row in rows}
    if previous is not None:
        data = dict(data, rows=rows + [row for row in previous["rows"] if row["id"] not in measured])
    (json_dir / f"{prefix}-latest.json").write_text(json.dumps(data, indent=1))
    return out
