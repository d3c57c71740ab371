"""What one training step asks of the device, counted on the CUDA emulator (a development tool):
kernel launches, cuBLAS calls, copies, memsets, allocations, host synchronisations and the other
runtime calls ("api": device, pointer, event and error queries) for one step
(forward, backward, Adam) of tools/gpu_targets.py's MLP, CNN and transformer block, for `a + b` and for
indexing a batch out of a dataset on the device.
On a GPU the small models' steps cost about a launch's few microseconds per kernel, so the counts
say where the time goes before a GPU run can. Run it with the emulator build's Python:

    .nox/cuda_emu/bin/python packages/core/cuda_emu/step_trace.py [-v|-vv]  # -v: launches by name, -vv: in order
"""

from __future__ import annotations

import collections
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

TRACE = Path(tempfile.mkdtemp()) / "trace.txt"
os.environ["EMBER_CUDA_EMU_TRACE"] = str(TRACE)  # read by the emulator when it first traces
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("EMBER_CUDA_EMU_DEVICES", "1")  # the GPU machine's one device (the emulator's default is 2)

import ember  # noqa: E402
import ember.nn.functional as F  # noqa: E402  (imports ember.nn, which gpu_targets uses)
import ember.optim  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
from gpu_targets import _Block, cnn, mlp  # noqa: E402  (the models the targets time)


def traced(fn: Callable[[], Any]) -> list[tuple[str, str, int]]:
    """The trace lines fn's device work wrote (the device synchronised before and after)."""
    ember.cuda.synchronize()
    start = TRACE.stat().st_size if TRACE.exists() else 0
    fn()
    ember.cuda.synchronize()
    with open(TRACE) as f:
        f.seek(start)
        lines = [ln.rsplit(" ", 2) for ln in f.read().splitlines()]
    return [(k, w, int(n)) for k, w, n in lines if not (k == "sync" and w == "cudaDeviceSynchronize")]


def summary(name: str, lines: list[tuple[str, str, int]], verbose: bool) -> None:
    kinds = collections.Counter(k for k, _, _ in lines)
    print(f"{name}: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())))
    for k in ("sync", "alloc", "copy"):
        for (kind, what), n in collections.Counter((a, b) for a, b, _ in lines if a == k).items():
            print(f"    {kind:<7} {what} x{n}")
    if verbose == 2:
        for k, w, n in lines:
            print(f"    {k:<7} {w} {n}")
    elif verbose:
        for what, n in collections.Counter(w for k, w, _ in lines if k in ("launch", "cublas", "api")).most_common():
            print(f"    {n:4d}  {what}")


def step_of(make: Callable[[Any], tuple[Any, Any, Any]]) -> Callable[[], None]:
    ember.manual_seed(0)
    m, x, y = make(ember)
    m = m.to("cuda")
    x, y = x.to("cuda"), y.to("cuda")
    opt = ember.optim.Adam(m.parameters(), lr=1e-3)

    def step() -> None:
        opt.zero_grad()
        F.cross_entropy(m(x), y).backward()
        opt.step()
    return step


def main() -> None:
    verbose = 2 if "-vv" in sys.argv else int("-v" in sys.argv)
    for name, make in (("MLP", mlp), ("CNN", cnn), ("transformer", _Block.make)):
        step = step_of(make)
        step()
        step()  # the allocator's pools and Adam's state are warm from here
        summary(f"train step {name}", traced(step), verbose)
    a, b = ember.randn(64).cuda(), ember.randn(64).cuda()
    summary("a + b", traced(lambda: a + b), verbose)
    data, idx = ember.randn(1000, 64).cuda(), ember.randint(0, 1000, (256,)).cuda()
    data[idx]
    summary("data[idx] (a batch from a dataset on the device)", traced(lambda: data[idx]), verbose)


if __name__ == "__main__":
    main()
