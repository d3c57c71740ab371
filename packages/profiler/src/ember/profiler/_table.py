"""The fixed-width summary table printed by EventList.table(), in PyTorch's layout."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._events import _format_memory, _format_time

_COL = 12  # width of every numeric column
_SEP = 2  # spaces after each column


def _time_share(time_us: float, total_us: float) -> str:
    if total_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_us:.2f}%"


def _fmt_time(time_us: float, unit: str | None) -> str:
    if unit == "s":
        return f"{time_us / 1_000_000.0:.3f}s"
    if unit == "ms":
        return f"{time_us / 1000.0:.3f}ms"
    if unit == "us":
        return f"{time_us:.3f}us"
    return _format_time(time_us)


def _trim_path(path: str, width: int) -> str:
    # Keep the tail of long paths (the file name matters most), marking the cut with "...".
    if len(path) > width:
        path = path[len(path) - width :]
        if len(path) > 3:
            path = "..." + path[3:]
    return path


def _clip(name: str, max_width: int | None) -> str:
    if max_width is not None and len(name) >= max_width - 3:
        return name[: max_width - 3] + "..."
    return name


def build_table(
    events: Sequence[Any],
    sort_by: str | None = None,
    header: str | None = None,
    row_limit: int = 100,
    max_src_column_width: int = 75,
    max_name_column_width: int = 55,
    max_shapes_column_width: int = 80,
    with_flops: bool = False,
    profile_memory: bool = False,
    top_level_events_only: bool = False,
    time_unit: str | None = None,
) -> str:
    if len(events) == 0:
        return ""
    has_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    has_overload = any(e.overload_name is not None and len(e.overload_name) > 0 for e in events)
    if sort_by is not None:
        attr = sort_by.replace("cuda", "device").replace("xpu", "device").replace("privateuse1", "device")
        events = sorted(events, key=lambda e: getattr(e, attr), reverse=True)

    name_w = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_w = min(name_w, max_name_column_width)
    shapes_w = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_w = min(shapes_w, max_shapes_column_width)
    stacks = [e.stack for e in events if e.stack is not None and len(e.stack) > 0]
    src_w = 0
    if stacks:
        src_w = max(max(len(f) for f in s) for s in stacks) + 4
        if max_src_column_width is not None:
            src_w = min(src_w, max_src_column_width)

    headers = ["Name"] + (["Overload Name"] if has_overload else [])
    headers += ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    with_node_id = any(e.node_id != -1 for e in events)
    if with_node_id:
        headers.append("Node ID")

    fmt_parts: list[str] = []
    sep_parts: list[str] = []

    def add_column(width: int, align: str = ">") -> None:
        fmt_parts.append("{: " + align + str(width) + "}" + " " * _SEP)
        sep_parts.append("-" * width + " " * _SEP)

    add_column(name_w)
    if has_overload:
        add_column(name_w)
    for _ in headers[1 + has_overload :]:
        add_column(_COL)
    if has_shapes:
        headers.append("Input Shapes")
        add_column(shapes_w)
    if stacks:
        headers.append("Source Location")
        add_column(src_w, "<")
    flops_scale, flops_label = 1.0, ""
    if with_flops:
        raw = [e.flops for e in events if e.flops and e.flops > 0]
        if raw:
            flops_scale, flops_label = _flops_scale(min(raw))
            headers.append(f"Total {flops_label}")
            add_column(_COL)
        else:
            with_flops = False
    row_format = "".join(fmt_parts)
    header_sep = "".join(sep_parts)
    line_length = sum(len(p) for p in sep_parts) - _SEP

    total_self_cpu = sum(e.self_cpu_time_total for e in events)
    out: list[str] = []
    if header is not None:
        out += ["=" * line_length, header]
    if top_level_events_only:
        out += ["=" * line_length, "This report only display top-level ops statistics"]
    out += [header_sep, row_format.format(*headers), header_sep]

    shown = 0
    for evt in events:
        if shown == row_limit:
            break
        if top_level_events_only and evt.cpu_parent is not None:
            continue
        shown += 1
        evt.self_cpu_percent = _time_share(evt.self_cpu_time_total, total_self_cpu)
        evt.total_cpu_percent = _time_share(evt.cpu_time_total, total_self_cpu) if not evt.is_async else 0
        row: list[Any] = [_clip(evt.key, max_name_column_width)]
        if has_overload:
            row.append(_clip(evt.overload_name or "", max_name_column_width))
        row += [
            evt.self_cpu_percent,
            _fmt_time(evt.self_cpu_time_total, time_unit),
            evt.total_cpu_percent,
            _fmt_time(evt.cpu_time_total, time_unit),
            _fmt_time(evt.cpu_time, time_unit),
        ]
        if profile_memory:
            row += [_format_memory(evt.cpu_memory_usage), _format_memory(evt.self_cpu_memory_usage)]
        row.append(evt.count)
        if with_node_id:
            row.append(evt.node_id)
        if has_shapes:
            row.append(str(evt.input_shapes)[:shapes_w])
        if with_flops:
            row.append("--" if not evt.flops or evt.flops <= 0 else f"{evt.flops * flops_scale:8.3f}")
        if stacks:
            row.append(_trim_path(evt.stack[0], src_w) if evt.stack else "")
        out.append(row_format.format(*row))
        if stacks:
            blanks = [""] * (len(headers) - 1)
            for frame in (evt.stack or [])[1:]:
                out.append(row_format.format(*(blanks + [_trim_path(frame, src_w)])))
            out.append(row_format.format(*(blanks + [""])))
    out.append(header_sep)
    out.append(f"Self CPU time total: {_fmt_time(total_self_cpu, time_unit)}")
    return "".join(line + "\n" for line in out)


def _flops_scale(flops: float) -> tuple[float, str]:
    import math

    labels = ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"]
    level = max(0.0, min(math.log10(flops) / 3, float(len(labels) - 1)))
    return 10 ** (math.floor(level) * -3.0), labels[int(level)]
