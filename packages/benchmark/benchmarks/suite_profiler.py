"""The "profiler" suite: cost of profiling ops and exporting traces, ember vs torch.profiler."""

from __future__ import annotations

import os
import tempfile
from types import ModuleType
from typing import Any

from harness import Bench

TITLES = {
    "profiler-overhead": "ops under an active profiler, incl. start/stop (ratio = ember/torch, lower is better)",
    "profiler-export": "export_chrome_trace of 100k events (informative; absolute seconds matter: < 2 s)",
}

N_OPS = 1000
N_EXPORT = 100_000


def profiled_adds(lib: ModuleType) -> dict[str, Any]:
    """N_OPS `a + b` on 1-element tensors inside one CPU profiling session (stopped each call,
    so no profiler is left running for later rows)."""
    a, b = lib.ones(1), lib.ones(1)
    activities = [lib.profiler.ProfilerActivity.CPU]

    def run() -> None:
        with lib.profiler.profile(activities=activities):
            for _ in range(N_OPS):
                a + b

    return {"run": run}


def exported(lib: ModuleType) -> dict[str, Any]:
    a, b = lib.ones(1), lib.ones(1)
    with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU]) as prof:
        for _ in range(N_EXPORT):
            a + b
    path = os.path.join(tempfile.mkdtemp(prefix=f"bench_{lib.__name__}_"), "trace.json")
    # torch's Kineto trace can be saved only once, so torch repeats its Python EventList export.
    export = prof.events().export_chrome_trace if lib.__name__ == "torch" else prof.export_chrome_trace
    return {"export": export, "path": path}


BENCHES: list[Bench] = [
    Bench("profiler-overhead", f"{N_OPS}x a + b (1 element) under profile()", "overhead", "run()", profiled_adds,
          threads=1, target=1.0),
    Bench("profiler-export", f"export_chrome_trace, {N_EXPORT} events", "overhead", "export(path)",
          exported, threads=1, target=None),
]
