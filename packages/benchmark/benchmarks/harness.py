"""Side-by-side measurement of one statement in two libraries with ``ember.utils.benchmark.Timer``.

A benchmark row (:class:`Bench`) is plain data: a statement string written
against ``lib`` (the library module) plus a setup function that builds the
inputs with ``lib.randn(...)`` etc.  The same row is measured for the
*baseline* library (torch) and the *candidate* (ember) in the same process:
each library gets a ``Timer`` and the two are measured in alternating rounds
of ``Timer.blocked_autorange`` so that machine noise hits both alike.  The
rounds are pooled with ``Measurement.merge``; ratios and targets use medians.

Suites (``suite_*.py``) only need :class:`Bench`; ``report.py`` prints the
tables and ``history.py`` saves and reloads results.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal

from ember.utils.benchmark import Measurement, Timer

Kind = Literal["overhead", "throughput", "import", "job"]


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
      * ``job``        -- a multi-process job (dist_job.py; stmt = its row): time per
                          call on the slowest rank; ratio = candidate/baseline, or
                          baseline/candidate when the row's name says "throughput".
    target: None for informative rows (never ok/MISS).
    threads: the libraries' thread count for the row; None = don't touch.
    """

    suite: str
    name: str
    kind: Kind
    stmt: str
    setup: Callable[[ModuleType], dict[str, Any]] | None = None
    threads: int | None = 1
    target: float | None = None

    @property
    def higher_is_better(self) -> bool:
        """Throughput rows (and job rows named so): ratio = baseline/candidate."""
        return self.kind == "throughput" or (self.kind == "job" and "throughput" in self.name)

    @property
    def id(self) -> str:
        """Stable key used by --filter and to match rows against the previous run."""
        t = "-" if self.threads is None else str(self.threads)
        return f"{self.suite}/{self.name}/t{t}"


@dataclass(frozen=True)
class Config:
    """Measurement effort; ``quick`` is for smoke tests, not for numbers."""

    # Alternating rounds per library; each round is one blocked_autorange of
    # >= round_s, i.e. several blocks.  More rounds = more chances that both
    # libraries see the same machine state on a shared 2-core box.
    rounds: int = 5
    round_s: float = 0.1
    # Import rows: adaptive_autorange until the IQR is within 10% of the median
    # (>= 4 fresh interpreters), or import_max_s per library.
    import_max_s: float = 6.0

    @classmethod
    def quick(cls) -> Config:
        return cls(rounds=3, round_s=0.02, import_max_s=1.0)


@dataclass
class Result:
    bench: Bench
    measurements: dict[str, Measurement] = field(default_factory=dict)  # library label -> pooled blocks
    error: str | None = None

    def time(self, label: str) -> float:
        """Seconds per call: the median over all blocks."""
        return self.measurements[label].median

    def noisy(self) -> bool:
        """A library's IQR is >= 10% of its median: the machine was busy; the row deserves a rerun."""
        return any(m.has_warnings for m in self.measurements.values())

    def ratio(self, base: str, cand: str) -> float | None:
        if self.error is not None:
            return None
        b, c = self.time(base), self.time(cand)
        return b / c if self.bench.higher_is_better else c / b

    def ok(self, base: str, cand: str) -> bool | None:
        """True/False against the target; None when informative or failed."""
        t, r = self.bench.target, self.ratio(base, cand)
        if t is None or r is None:
            return None
        if self.bench.higher_is_better:
            return r >= t
        if self.bench.kind == "import":
            return self.time(cand) <= t
        return r <= t


# ------------------------------------------------------------------------ timing


def both_see_a_gpu() -> bool:
    """Whether ember and torch are both importable and see a CUDA GPU (the "cuda" suites' rows
    exist only then: the GPU machine, tools/gpu_check.sh)."""
    try:
        import ember
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available() and ember.cuda.is_available())


def gpu_rows(suite: str, rows: list[tuple[str, str]], setup: Callable[[ModuleType], dict[str, Any]],
             target: float | None = None) -> list[Bench]:
    """A CUDA suite's throughput rows (each statement then synchronizes the device), or none
    where no GPU is seen."""
    if not both_see_a_gpu():
        return []
    return [Bench(suite, name, "throughput", f"{stmt}; sync()", setup, threads=None, target=target)
            for name, stmt in rows]


def task_threads(bench: Bench) -> int:
    """The Timer's num_threads (a Compare row group); rows that leave threads alone count as 1."""
    return 1 if bench.threads is None else bench.threads


def make_timer(bench: Bench, title: str, label: str, stmt: str, namespace: dict[str, Any]) -> Timer:
    """A Timer for one library's side of a row; ``description`` = the library is the Compare column."""
    return Timer(stmt=stmt, globals=namespace, label=title, sub_label=bench.name, description=label,
                 num_threads=task_threads(bench))


def _set_threads(bench: Bench, lib: ModuleType) -> None:
    # Timer pins ember's threads itself; the baseline library needs it done explicitly.
    if bench.threads is not None:
        lib.set_num_threads(bench.threads)


def measure_stmt(bench: Bench, libs: Mapping[str, ModuleType], cfg: Config, title: str) -> dict[str, Measurement]:
    """Time bench.stmt for every library in alternating rounds; one pooled Measurement per library."""
    timers: dict[str, Timer] = {}
    for label, lib in libs.items():
        _set_threads(bench, lib)
        ns = dict(bench.setup(lib)) if bench.setup else {}
        ns["lib"] = lib
        ns.setdefault("torch", lib)  # `torch.` in a statement means the library under test
        timers[label] = make_timer(bench, title, label, bench.stmt, ns)
        # One warm-up run (lazy initialisation would otherwise distort the first block-size
        # estimate); it also surfaces errors before any timing.  Timer.timeit(1) would run it 3x.
        exec(compile(bench.stmt, f"<{bench.id}>", "exec"), dict(ns))

    rounds: dict[str, list[Measurement]] = {label: [] for label in libs}
    order = list(libs)
    for i in range(cfg.rounds):
        # Alternate who goes first so neither library always runs "after" the
        # other (cache state, turbo budget, allocator state).
        for label in order if i % 2 == 0 else reversed(order):
            _set_threads(bench, libs[label])
            rounds[label].append(timers[label].blocked_autorange(min_run_time=cfg.round_s))
    return {label: Measurement.merge(ms)[0] for label, ms in rounds.items()}


def measure_import(bench: Bench, libs: Mapping[str, ModuleType], cfg: Config, title: str) -> dict[str, Measurement]:
    """Wall time of ``python -c <stmt>`` in fresh interpreters, timed by a Timer around the subprocess.

    stmt is formatted with ``name=<module name>``, e.g. "import {name}".  We
    run from a temporary directory so the repo checkout can't shadow the
    installed package, and keep the environment so PYTHONPATH setups work.
    """
    out = {}
    for label, lib in libs.items():
        code = bench.stmt.format(name=lib.__name__)

        def once(code: str = code) -> None:
            subprocess.run([sys.executable, "-c", code], check=True, cwd=tempfile.gettempdir(),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

        timer = make_timer(bench, title, label, "once()", {"once": once})
        # The block-size estimate's run doubles as the warm-up (OS file cache for .so/.pyc files).
        out[label] = timer.adaptive_autorange(threshold=0.1, min_run_time=0.0, max_run_time=cfg.import_max_s)
    return out


def measure_job(bench: Bench, libs: Mapping[str, ModuleType], cfg: Config, title: str) -> dict[str, Measurement]:
    """``dist_job.py`` jobs for ``bench.stmt`` (a row name), the libraries taking turns."""
    from pathlib import Path

    from ember.utils.benchmark.utils.common import TaskSpec

    job = Path(__file__).with_name("dist_job.py")
    raw: dict[str, list[float]] = {label: [] for label in libs}
    number: dict[str, int] = {}
    for i in range(2):  # two jobs a library, alternating, so machine noise hits both alike
        for label in libs if i % 2 == 0 else reversed(list(libs)):
            with tempfile.NamedTemporaryFile(suffix=".json") as out:
                done = subprocess.run([sys.executable, str(job), "--lib", libs[label].__name__, "--row",
                                       bench.stmt, "--rounds", str(max(3, cfg.rounds)), "--out", out.name],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=900)
                if done.returncode != 0:
                    tail = done.stderr.decode(errors="replace").strip().splitlines()[-12:]
                    raise RuntimeError(f"{label} job failed: " + " | ".join(tail))
                res = json.loads(Path(out.name).read_text())
            raw[label] += res["raw_times"]
            number[label] = res["number_per_run"]
    return {label: Measurement(number[label], raw[label],
                               TaskSpec(bench.stmt, "", label=title, sub_label=bench.name, description=label))
            for label in libs}


def run_bench(bench: Bench, libs: Mapping[str, ModuleType], cfg: Config, title: str) -> Result:
    """Measure one row; any exception becomes ``Result.error`` (and a non-zero exit)."""
    try:
        measure = {"import": measure_import, "job": measure_job}.get(bench.kind, measure_stmt)
        return Result(bench, measure(bench, libs, cfg, title))
    except subprocess.CalledProcessError as e:
        err = (e.stderr or b"").decode(errors="replace").strip().splitlines()
        return Result(bench, error=f"subprocess failed: {err[-1] if err else e}")
    except Exception as e:  # noqa: BLE001 - report and continue with other rows
        return Result(bench, error=f"{type(e).__name__}: {e}")
    finally:
        gc.collect()  # drop the (large) inputs before the next row allocates its own
