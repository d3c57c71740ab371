"""Memory timeline: `profile.export_memory_timeline` (torch.profiler's format, ember's rules).

Every allocation the core allocator reports (address, size, time, the ranges open around it) is
paired with its free by address, giving one lifetime per block. Blocks alive when profiling
started come from a snapshot of the live tensors taken at start (a gc scan, done only when the
timeline can be exported: profile_memory, record_shapes and with_stack all on); like torch, only
those some op read (the core records each op's input storage addresses) or that were freed
during profiling are counted. A second snapshot at stop finds the parameters, grads and
optimizer state. Each lifetime then gets one category, tested in this order:

- PARAMETER: the storage of an ``nn.Parameter`` (alive at start or stop).
- OPTIMIZER_STATE: the storage of a tensor in an optimizer's ``state`` (e.g. Adam's exp_avg /
  exp_avg_sq, SGD's momentum_buffer) alive at stop or at start.
- GRADIENT: the storage of a parameter's ``.grad`` at start or stop, or a block made inside a
  backward node that an optimizer op then read (the grads ``zero_grad(set_to_none=True)`` frees).
- TEMPORARY: allocated and freed inside the same innermost operator call.
- AUTOGRAD_DETAIL: made inside a backward node (or by the engine between two nodes) and not a
  parameter gradient: the gradients flowing between nodes, buffers autograd keeps while it runs.
- TEMPORARY: made while the optimizer runs (an op whose Python stack is in ``ember/optim/`` or
  under an ``Optimizer.*`` range) and freed again.
- ACTIVATION: made outside backward and the optimizer with a backward node starting after it:
  the forward pass's results (those backward keeps and those forward drops early alike, as
  torch counts every forward-produced tensor).
- INPUT: alive at start, not one of the above, and read by an op outside backward and the
  optimizer (the batch and targets fed to forward).
- None (unknown): everything else.
"""

from __future__ import annotations

import bisect
import gc
import gzip
import json
from typing import Any

PARAMETER, OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION, GRADIENT, AUTOGRAD_DETAIL, UNKNOWN = range(8)
# Order and names of torch.profiler._memory_profiler's categories (None = unknown).
CATEGORY_NAMES = [
    "PARAMETER",
    "OPTIMIZER_STATE",
    "INPUT",
    "TEMPORARY",
    "ACTIVATION",
    "GRADIENT",
    "AUTOGRAD_DETAIL",
    None,
]
_COLORS = ["darkgreen", "goldenrod", "black", "mediumpurple", "red", "mediumblue", "royalblue", "grey"]
# torch's Action enum values, used by the raw export.
PREEXISTING, CREATE, INCREMENT_VERSION, DESTROY = 1, 2, 3, 4


def _storage_extent(t: Any) -> tuple[int, int]:
    """(base address, bytes from base to the end of the last element) of a tensor's storage."""
    item = t.element_size()
    base = t.data_ptr() - t.storage_offset() * item
    if t.numel() == 0:
        return base, 0
    last = sum((s - 1) * st for s, st in zip(t.shape, t.stride(), strict=True))
    return base, (t.storage_offset() + last + 1) * item


class Snapshot:
    """Storages of parameters, their grads, optimizer state and (optionally) all live tensors."""

    def __init__(self, all_tensors: bool) -> None:
        import ember

        try:
            from ember.nn import Parameter
            from ember.optim import Optimizer
        except ImportError:  # ember-nn absent: no parameters or optimizers to know about
            Parameter = Optimizer = None  # type: ignore[assignment,misc]
        self.kind: dict[int, int] = {}
        self.sizes: dict[int, int] = {}
        grads: list[Any] = []
        states: list[Any] = []
        params: list[Any] = []
        others: list[Any] = []
        for obj in gc.get_objects():
            # type(), not isinstance(): isinstance reads __class__, which some module proxies
            # (lazy / deprecated attributes of other libraries) turn into warnings.
            cls = type(obj)
            if Parameter is not None and issubclass(cls, Parameter):
                params.append(obj)
                if obj.grad is not None:
                    grads.append(obj.grad)
            elif Optimizer is not None and issubclass(cls, Optimizer):
                for st in obj.state.values():
                    states.extend(v for v in st.values() if isinstance(v, ember.Tensor))
            elif all_tensors and issubclass(cls, ember.Tensor):
                others.append(obj)
        # Later groups never override an earlier classification of the same storage.
        for cat, group in ((PARAMETER, params), (OPTIMIZER_STATE, states), (GRADIENT, grads), (None, others)):
            for t in group:
                base, extent = _storage_extent(t)
                if base == 0:
                    continue
                self.sizes[base] = max(self.sizes.get(base, 0), extent)
                if cat is not None:
                    self.kind.setdefault(base, cat)


class _Block:
    __slots__ = (
        "addr",
        "size",
        "t0",
        "t1",
        "op",
        "freed_in_op",
        "in_bwd",
        "in_opt",
        "read_by_opt",
        "read_by_bwd",
        "cat",
    )

    def __init__(self, addr: int, size: int, t0: int, op: Any, in_bwd: bool, in_opt: bool) -> None:
        self.addr, self.size, self.t0, self.t1 = addr, size, t0, -1
        self.op, self.freed_in_op, self.in_bwd, self.in_opt = op, False, in_bwd, in_opt
        self.read_by_opt = self.read_by_bwd = False
        self.cat = UNKNOWN


def _is_optimizer_range(name: str, kind: str, stack_text: str) -> bool:
    return (kind == "user" and name.startswith("Optimizer.")) or "ember/optim/" in stack_text


def build_timeline(raw: list[tuple[Any, ...]], start: Snapshot, stop: Snapshot) -> list[tuple[int, int, int, int]]:
    """[(time_ns or -1, action, bytes, category index)] in time order, from the core's records."""
    open_ranges: dict[int, list[list[Any]]] = {}  # thread -> [[depth, kind, in_bwd, in_opt, id]]
    live: dict[int, _Block] = {}
    blocks: list[_Block] = []
    preexisting: dict[int, _Block] = {}
    bwd_starts: list[int] = []
    read: set[int] = set()  # storages some op read
    fwd_read: set[int] = set()  # ... outside backward and the optimizer
    range_id = 0
    # Between backward nodes (no range open) the engine still allocates: that memory belongs to
    # the backward pass until a forward / optimizer op starts.
    bwd_phase = False
    # Blocks made outside any range since the last range started: usually an op's scalar
    # arguments wrapped as tensors just before the call, which belong to that op's phase.
    loose: list[_Block] = []
    for rec in raw:
        name, kind, start_ns, end_ns, thread, depth, seq, _, nbytes, stack_text = rec[:10]
        inputs = rec[11] if len(rec) > 11 else ""
        stack = open_ranges.setdefault(thread, [])
        while stack and stack[-1][0] >= depth:
            stack.pop()
        outer_bwd = stack[-1][2] if stack else False
        outer_opt = stack[-1][3] if stack else False
        if kind != "memory":
            range_id += 1
            in_bwd = outer_bwd or kind == "backward"
            in_opt = outer_opt or _is_optimizer_range(name, kind, stack_text)
            stack.append([depth, kind, in_bwd, in_opt, range_id])
            if kind == "backward":
                bwd_starts.append(start_ns)
                bwd_phase = True
            elif kind == "op" and not in_bwd:
                bwd_phase = False
            for a in inputs.split() if inputs else ():
                addr = int(a)
                blk = live.get(addr)
                if blk is not None:  # a block made while profiling: mark this lifetime
                    if blk in loose:
                        blk.in_bwd, blk.in_opt = in_bwd, in_opt
                    blk.read_by_opt |= in_opt
                    blk.read_by_bwd |= in_bwd
                    continue
                read.add(addr)
                if not in_bwd and not in_opt:
                    fwd_read.add(addr)
            loose.clear()
            continue
        op = stack[-1][4] if stack else None
        if seq <= 0:
            continue  # a core without block addresses: nothing can be paired
        if nbytes > 0:
            blk = _Block(seq, nbytes, start_ns, op, outer_bwd or bwd_phase, outer_opt)
            live[seq] = blk
            blocks.append(blk)
            if not stack:
                loose.append(blk)
            continue
        blk = live.pop(seq, None)
        if blk is None:  # allocated before profiling started
            blk = _Block(seq, -nbytes, -1, None, False, False)
            preexisting[seq] = blk
        blk.t1 = start_ns
        # Still inside the op that made it: that op's own scratch space.
        blk.freed_in_op = blk.op is not None and any(r[4] == blk.op for r in stack)
    # Blocks alive at start that were never freed come from the start snapshot.
    for addr, size in start.sizes.items():
        if addr not in preexisting and addr in read:
            preexisting[addr] = _Block(addr, size, -1, None, False, False)
    bwd_starts.sort()
    for blk in preexisting.values():
        blk.cat = _classify_preexisting(blk, start, stop, fwd_read)
    for blk in blocks:
        blk.cat = _classify(blk, stop, bwd_starts)
    events: list[tuple[int, int, int, int]] = []
    for blk in preexisting.values():
        events.append((-1, PREEXISTING, blk.size, blk.cat))
        if blk.t1 >= 0:
            events.append((blk.t1, DESTROY, -blk.size, blk.cat))
    for blk in blocks:
        events.append((blk.t0, CREATE, blk.size, blk.cat))
        if blk.t1 >= 0:
            events.append((blk.t1, DESTROY, -blk.size, blk.cat))
    # Stable: at equal times a block's create stays before its destroy.
    events.sort(key=lambda e: e[0])
    return events


def _classify_preexisting(blk: _Block, start: Snapshot, stop: Snapshot, fwd_read: set[int]) -> int:
    cat = start.kind.get(blk.addr)
    if cat is None and blk.t1 < 0:
        cat = stop.kind.get(blk.addr)
    if cat is not None:
        return cat
    if blk.addr in fwd_read:
        return INPUT
    return UNKNOWN


def _classify(blk: _Block, stop: Snapshot, bwd_starts: list[int]) -> int:
    if blk.t1 < 0 and blk.addr in stop.kind:
        return stop.kind[blk.addr]
    if blk.t1 >= 0 and blk.freed_in_op:
        return TEMPORARY
    if blk.in_bwd:
        # A gradient the optimizer consumed (then dropped by zero_grad) vs. autograd's own buffers.
        return GRADIENT if blk.read_by_opt else AUTOGRAD_DETAIL
    if blk.in_opt:
        return TEMPORARY if blk.t1 >= 0 else UNKNOWN
    i = bisect.bisect_right(bwd_starts, blk.t0)
    if blk.read_by_bwd or i < len(bwd_starts):
        return ACTIVATION
    return UNKNOWN


def coalesce(events: list[tuple[int, int, int, int]]) -> tuple[list[int], list[list[int]]]:
    """torch's plot points: microsecond times and, per time, [0, bytes per category...]."""
    times: list[int] = []
    sizes: list[list[int]] = []
    t_min = -1
    for t_ns, _action, nbytes, cat in events:
        t = t_ns if t_ns == -1 else int(t_ns / 1000)
        if t_min == -1 or 0 < t < t_min:
            t_min = t
        if not times:
            times.append(t)
            sizes.append([0] * 9)
        elif t != times[-1]:
            times.append(t)
            sizes.append(sizes[-1].copy())
        sizes[-1][cat + 1] += nbytes
    return [t_min if t < 0 else t for t in times], sizes


def _write_json(path: str, data: Any, gz: bool) -> None:
    if gz:
        with gzip.open(path, "wt") as f:
            json.dump(data, f)
    else:
        with open(path, "w") as f:
            json.dump(data, f)


def _write_html(path: str, times: list[int], sizes: list[list[int]], device: str) -> None:
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        print("export_memory_timeline_html failed because matplotlib was not found.")
        return
    import io
    from base64 import b64encode

    import matplotlib

    matplotlib.use("Agg")  # no display needed: the figure only becomes a PNG
    import matplotlib.pyplot as plt
    import numpy as np

    t = np.array(times, dtype=np.float64)
    t -= t.min()
    stacked = np.cumsum(np.array(sizes, dtype=np.float64), axis=1) / 1024**3
    fig = plt.figure(figsize=(20, 12), dpi=80)
    ax = fig.gca()
    for i, color in enumerate(_COLORS):
        ax.fill_between(t / 1e3, stacked[:, i], stacked[:, i + 1], color=color, alpha=0.7)
    fig.legend(["Unknown" if n is None else n for n in CATEGORY_NAMES])
    ax.set_xlabel("Time (ms)")
    ax.set_ylabel("Memory (GB)")
    peak = max((sum(row) for row in sizes), default=0)
    ax.set_title(f"Max memory allocated: {peak / 1024**3:.2f} GiB ({device})")
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    encoded = b64encode(buf.getvalue()).decode("ascii")
    page = (
        '<html>\n<head><meta charset="utf-8" /><title>Memory Timeline HTML</title></head>\n<body>\n'
        f"  <img src='data:image/png;base64,{encoded}'>\n</body>\n</html>"
    )
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)


def export(path: str, device: str, events: list[tuple[int, int, int, int]]) -> None:
    """Write the timeline in the format `path`'s suffix asks for (torch's rules)."""
    import ember

    dev = ember.device(device)  # bad strings raise torch's RuntimeError
    # Only CPU memory exists in ember; like torch, "cpu:0" is not the device its blocks are on.
    if (dev.type, dev.index) != ("cpu", None):
        events = []
    if path.endswith(".html"):
        times, sizes = coalesce(events)
        _write_html(path, times, sizes, device)
    elif path.endswith("raw.json.gz"):
        _write_json(path, [list(e) for e in events], gz=True)
    else:
        times, sizes = coalesce(events)
        _write_json(path, [times, sizes], gz=path.endswith(".gz"))
