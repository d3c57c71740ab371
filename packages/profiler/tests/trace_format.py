"""A strict checker of the Chrome JSON Trace Event Format, as Perfetto's JSON importer reads it.

Used where Perfetto's own trace_processor_shell is unavailable (the `perfetto` PyPI package
downloads that binary at run time). It checks the properties a viewer relies on: the top-level
layout, each event's phase-specific required fields and types, exactly representable ids and
times, and strict nesting of complete ("X") events on each thread track (Perfetto drops or
mis-parents slices that overlap without nesting).
"""

from __future__ import annotations

import gzip
import json
from typing import Any

PHASES = set("BEXiIbneCMsftPOND") | {"(", ")"}
MAX_SAFE_INT = 2**53


class TraceFormatError(AssertionError):
    pass


def load(path: str) -> dict[str, Any]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_event(i: int, e: Any) -> None:
    def fail(msg: str) -> None:
        raise TraceFormatError(f"traceEvents[{i}] {msg}: {e!r}")

    if not isinstance(e, dict):
        fail("is not an object")
    ph = e.get("ph")
    if ph not in PHASES:
        fail(f"has unknown phase {ph!r}")
    if ph != "M" and not _num(e.get("ts")):
        fail("needs a numeric ts")
    if "name" in e and not isinstance(e["name"], str):
        fail("name must be a string")
    for key in ("pid", "tid"):
        if key in e and not (isinstance(e[key], (int, str)) and not isinstance(e[key], bool)):
            fail(f"{key} must be an int or string")
        if isinstance(e.get(key), int) and abs(e[key]) >= MAX_SAFE_INT:
            fail(f"{key} is not exactly representable in JSON viewers")
    if "args" in e and not isinstance(e["args"], dict):
        fail("args must be an object")
    if "cat" in e and not isinstance(e["cat"], str):
        fail("cat must be a string")
    if ph == "X":
        for key in ("name", "pid", "tid", "dur"):
            if key not in e:
                fail(f"complete event lacks {key!r}")
        if not _num(e["dur"]) or e["dur"] < 0:
            fail("dur must be a non-negative number")
    if ph in ("i", "I") and e.get("s", "t") not in ("g", "p", "t"):
        fail("instant scope must be g, p or t")
    if ph == "M" and not isinstance(e.get("args"), dict):
        fail("metadata event needs args")


def check(trace: Any) -> list[dict[str, Any]]:
    """Validate a loaded trace; returns its complete events."""
    if not isinstance(trace, dict):
        raise TraceFormatError("the top level must be an object (JSON Object Format)")
    events = trace.get("traceEvents")
    if not isinstance(events, list):
        raise TraceFormatError("traceEvents must be a list")
    if trace.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        raise TraceFormatError("displayTimeUnit must be 'ms' or 'ns'")
    for i, e in enumerate(events):
        _check_event(i, e)
    complete = [e for e in events if e["ph"] == "X"]
    _check_nesting(complete)
    return complete


def _check_nesting(events: list[dict[str, Any]]) -> None:
    """On one (pid, tid) track, any two slices are either disjoint or one contains the other."""
    tracks: dict[tuple[Any, Any], list[dict[str, Any]]] = {}
    for e in events:
        tracks.setdefault((e["pid"], e["tid"]), []).append(e)
    for track, evs in tracks.items():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
        open_ends: list[float] = []
        for e in evs:
            start, end = e["ts"], e["ts"] + e["dur"]
            while open_ends and open_ends[-1] <= start:
                open_ends.pop()
            # times are microseconds with ns decimals near 1e10: ts + dur carries float rounding
            # of a few 1e-6, so a real overlap is one of at least a nanosecond
            if open_ends and end > open_ends[-1] + 5e-4:
                raise TraceFormatError(f"slice {e['name']!r} on track {track} overlaps its parent without nesting")
            open_ends.append(end)


def parents(events: list[dict[str, Any]]) -> dict[int, int | None]:
    """The parent slice (index into `events`) of each slice, by nesting, as a viewer derives it."""
    order = sorted(range(len(events)), key=lambda i: (events[i]["tid"], events[i]["ts"], -events[i]["dur"]))
    out: dict[int, int | None] = {}
    stack: list[int] = []
    tid = None
    for i in order:
        e = events[i]
        if e["tid"] != tid:
            stack, tid = [], e["tid"]
        while stack and events[stack[-1]]["ts"] + events[stack[-1]]["dur"] <= e["ts"]:
            stack.pop()
        out[i] = stack[-1] if stack else None
        stack.append(i)
    return out
