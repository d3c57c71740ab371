"""Results files: ``<prefix>-YYYYmmdd-HHMMSS.json`` per run and ``<prefix>-latest.json``, the baseline
that the next run's "vs last" column compares against."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import platform
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from harness import Config, Result


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
    """Row id -> candidate's median time per call in a previous results file."""
    if data is None:
        return None
    cand = data["libs"][-1]
    return {row["id"]: row["times"][cand]["median"] for row in data["rows"] if row.get("times")}


def _times(r: Result) -> dict[str, Any]:
    out = {}
    for label, m in r.measurements.items():
        out[label] = {
            "median": m.median, "best": min(m.times), "mean": m.mean, "iqr": m.iqr,
            "has_warnings": m.has_warnings, "samples": m.times,  # seconds per call, one per block
        }
    return out


def result_row(r: Result, base: str, cand: str, stamp: str) -> dict[str, Any]:
    b = r.bench
    return {
        "id": b.id, "suite": b.suite, "name": b.name, "kind": b.kind, "stmt": b.stmt,
        "threads": b.threads, "target": b.target, "measured_at": stamp,
        "ratio": r.ratio(base, cand), "ok": r.ok(base, cand), "error": r.error,
        "noisy": r.error is None and r.noisy(), "times": _times(r),
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
        "statistic": "median", "config": dataclasses.asdict(cfg),
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
