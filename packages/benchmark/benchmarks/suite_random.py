"""The "random" suite: sampling throughput, ember vs torch (issue "random numbers").

Same format as suite_core.py. Factory rows (``lib.rand(n)``) allocate a fresh
tensor per call, as user code does; in-place rows refill one preallocated
tensor (``x.normal_()``), which times the generator and the transform alone.
Both libraries draw the same MT19937 stream; ember draws its words in bulk and
runs the transforms vectorised (and threaded where they are costly), so the
numbers never depend on the thread count.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from harness import Bench

Setup = Callable[[ModuleType], dict[str, Any]]

THREADS = (1, 2)  # the CI box has 2 cores
M = 1 << 20

TITLES = {
    "random": "random sampling, float32 unless noted (ratio = torch/ember time, higher is better)",
}


def buffer(n: int, dtype: str = "float32") -> Setup:
    """A preallocated tensor ``x`` for the in-place samplers."""

    def setup(lib: ModuleType) -> dict[str, Any]:
        return {"x": lib.empty(n, dtype=getattr(lib, dtype))}

    return setup


def probs(n: int) -> Setup:
    """Bernoulli probabilities ``p`` (0.3 everywhere)."""

    def setup(lib: ModuleType) -> dict[str, Any]:
        return {"p": lib.full((n,), 0.3)}

    return setup


def _rows() -> list[Bench]:
    rows: list[tuple[str, str, Setup | None, float | None]] = [
        ("rand 1M", f"lib.rand({M})", None, 0.9),
        ("rand 16M", f"lib.rand({16 * M})", None, 0.9),
        ("randn 1M", f"lib.randn({M})", None, 0.9),
        ("randn 16M", f"lib.randn({16 * M})", None, 0.9),
        ("randint 1M", f"lib.randint(0, 1000, ({M},))", None, 0.9),
        ("randint 16M", f"lib.randint(0, 1000, ({16 * M},))", None, 0.9),
        ("randperm 1M", f"lib.randperm({M})", None, 0.9),
        ("uniform_(-1, 1) 16M", "x.uniform_(-1, 1)", buffer(16 * M), 0.9),
        ("normal_() 16M", "x.normal_()", buffer(16 * M), 0.9),
        ("normal_() 1M float64", "x.normal_()", buffer(M, "float64"), 0.9),
        ("bernoulli(p) 16M", "lib.bernoulli(p)", probs(16 * M), 0.9),
        ("bernoulli_(0.3) 16M", "x.bernoulli_(0.3)", buffer(16 * M), 0.9),
        # informative: libm-bound transforms (exactly PyTorch's numbers, so no vector math)
        ("exponential_() 4M", "x.exponential_()", buffer(4 * M), None),
        ("multinomial 1000x100, 10 draws", "lib.multinomial(w, 10)",
         lambda lib: {"w": lib.rand(1000, 100)}, None),
        # informative: ember draws whole counts with NumPy's sampler (measured ~1.3x PyTorch's time)
        ("binomial(50, 0.3) 1M", "lib.binomial(c, p)",
         lambda lib: {"c": lib.full((M,), 50.0), "p": lib.full((M,), 0.3)}, None),
    ]
    return [
        Bench("random", name, "throughput", stmt, setup, threads=th, target=target)
        for name, stmt, setup, target in rows
        for th in THREADS
    ]


BENCHES: list[Bench] = _rows()
