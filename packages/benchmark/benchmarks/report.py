"""Printing: one ``Compare`` table per suite, with the ratio, target and change since the last run
appended to each row, plus a progress line per measured row.

``Compare`` lays out the times (one column per library, rows grouped by
thread count, ``(! NN%)`` on noisy cells); the extra columns are added to its
rendered rows, which are found by their (thread group, row name).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence

from ember.utils.benchmark import Compare
from harness import Bench, Result, task_threads

_SEP = "  |  "
_EXTRA = (("ratio", 7), ("target", 8), ("", 4), ("vs last", 7))
_THREADS = re.compile(r"^(\d+) threads: -+$")


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
    return f"{'>=' if bench.higher_is_better else '<='}{bench.target:.2f}x"


def extra_cells(r: Result, base: str, cand: str, previous: Mapping[str, float] | None) -> list[str]:
    ratio = r.ratio(base, cand)
    ok = r.ok(base, cand)
    cells = [
        "" if ratio is None else f"{ratio:.2f}x{'*' if r.noisy() else ''}",
        fmt_target(r.bench),
        {True: "ok", False: "MISS", None: ""}[ok],
        "",
    ]
    old = None if previous is None else previous.get(r.bench.id)
    if old is not None and r.error is None:
        cells[3] = f"{(r.time(cand) / old - 1) * 100:+.0f}%"
    return cells


def _columns(cells: Sequence[str]) -> str:
    return _SEP + "  ".join(c.rjust(w) for c, (_, w) in zip(cells, _EXTRA, strict=True))


def render_suite(title: str, results: Sequence[Result], base: str, cand: str,
                 previous: Mapping[str, float] | None, color: bool = False) -> str:
    """The suite's Compare table (times per library) with ratio/target/ok/vs-last columns, then errors."""
    measured = [r for r in results if r.error is None]
    out: list[str] = []
    if measured:
        compare = Compare([m for r in measured for m in r.measurements.values()])
        compare.highlight_warnings()
        if color:
            compare.colorize(rowwise=True)  # within a row: the libraries against each other
        lines = str(compare).rstrip("\n").split("\n")
        rows = {(task_threads(r.bench), r.bench.name): r for r in measured}
        header = _columns([name for name, _ in _EXTRA])
        width = len(lines[1]) + len(header)
        threads: int | None = None
        for i, line in enumerate(lines):
            match = _THREADS.match(line)
            if i == 0:
                out.append("[" + f" {title} ".center(width - 2, "-") + "]")
            elif i == 1:
                out.append(lines[1] + header)
            elif match:
                threads = int(match.group(1))
                out.append(line.ljust(width, "-"))
            elif threads is not None and _SEP in line:
                r = rows[(threads, line.split(_SEP, 1)[0].strip())]
                out.append(line + _columns(extra_cells(r, base, cand, previous)))
            else:
                out.append(line)
    else:
        out.append(f"[ {title} ]")
    for r in results:
        if r.error is not None:
            out.append(f"ERR  {r.bench.id}: {r.error}")
    return "\n".join(out)


def progress(i: int, n: int, r: Result, base: str, cand: str) -> None:
    """One line per measured row on stderr, so a long run shows where it is."""
    if r.error is not None:
        text = f"ERR {r.error}"
    else:
        ratio = r.ratio(base, cand)
        text = (f"{base} {fmt_time(r.time(base))}, {cand} {fmt_time(r.time(cand))}, "
                f"{ratio:.2f}x{'*' if r.noisy() else ''} {fmt_target(r.bench)}").rstrip()
    print(f"[{i:>{len(str(n))}}/{n}] {r.bench.id}: {text}", file=sys.stderr, flush=True)
