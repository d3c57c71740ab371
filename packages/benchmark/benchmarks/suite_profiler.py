"""The "profiler" suite: cost of profiling ops and exporting traces, ember vs torch.profiler."""

from __future__ import annotations

import os
import tempfile
from types import ModuleType
from typing import Any

from harness import Bench

N_HOOK = 2_000_000


def hook_cost_note() -> str:
    """What the inactive hook costs an op, measured in C++ (ember._C._profiler_bench_inactive):
    N inactive OpScope guards vs N iterations of an empty loop, set against one `a + b`."""
    try:
        import timeit

        import ember
        from ember import _C

        runs = [_C._profiler_bench_inactive(N_HOOK) for _ in range(7)]
        # Minimum of each loop over the runs: the least disturbed measurement of each.
        hook_ns, empty_ns = min(r[0] for r in runs), min(r[1] for r in runs)
        a, b = ember.ones(1), ember.ones(1)
        op_ns = min(timeit.repeat(lambda: a + b, number=20_000, repeat=5)) / 20_000 * 1e9
    except Exception as e:  # noqa: BLE001 - the note is informative; the rows still run
        return f"inactive profiler hook (cost unavailable: {e})"
    extra = max(hook_ns - empty_ns, 0.0)
    return (
        f"no profiler active: the hook costs {extra:.2f} ns per op (C++: inactive OpScope {hook_ns:.2f} ns vs empty "
        f"loop {empty_ns:.2f} ns per iteration) = {100 * extra / op_ns:.3f}% of an a + b ({op_ns:.0f} ns); "
        "rows: ratio = ember/torch"
    )


TITLES = {
    "profiler-overhead": "ops under an active profiler, incl. start/stop (ratio = ember/torch, lower is better)",
    "profiler-export": "export_chrome_trace of 100k events (informative; absolute seconds matter: < 2 s)",
    "profiler-hook": hook_cost_note(),
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


def profiled_adds_detailed(lib: ModuleType) -> dict[str, Any]:
    """As profiled_adds, with shapes, Python stacks and FLOP estimates recorded for every op."""
    a, b = lib.ones(1), lib.ones(1)
    activities = [lib.profiler.ProfilerActivity.CPU]

    def run() -> None:
        with lib.profiler.profile(activities=activities, record_shapes=True, with_stack=True, with_flops=True):
            for _ in range(N_OPS):
                a + b

    return {"run": run}


def plain_adds(lib: ModuleType) -> dict[str, Any]:
    """The same N_OPS `a + b` loop with no profiler running: both libraries' hooks are inactive."""
    a, b = lib.ones(1), lib.ones(1)

    def run() -> None:
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
    Bench("profiler-hook", f"{N_OPS}x a + b (1 element), no profiler active", "overhead", "run()", plain_adds,
          threads=1, target=1.0),
    Bench("profiler-overhead", f"{N_OPS}x a + b (1 element) under profile()", "overhead", "run()", profiled_adds,
          threads=1, target=1.0),
    Bench("profiler-overhead", f"{N_OPS}x a + b, record_shapes + with_stack + with_flops", "overhead", "run()",
          profiled_adds_detailed, threads=1, target=1.0),
    Bench("profiler-export", f"export_chrome_trace, {N_EXPORT} events", "overhead", "export(path)",
          exported, threads=1, target=None),
]
