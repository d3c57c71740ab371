"""The "nn-optim" suite: one optimizer step over many parameters, ember (its default, the
foreach path) vs torch with its CPU default (per-parameter loop) and with foreach=True."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from harness import Bench

TITLES = {
    "nn-optim": "optimizer step over a parameter list (ratio = torch/ember time, higher is better)",
}

SIZES = {"100x256x256": (100, 256), "10x1024x1024": (10, 1024)}
OPTIMIZERS = {
    "Adam": ("Adam", {"lr": 1e-3}),
    "AdamW": ("AdamW", {"lr": 1e-3, "weight_decay": 1e-2}),
    "SGD-momentum": ("SGD", {"lr": 1e-2, "momentum": 0.9}),
}


def make_setup(opt: str, size: str, torch_foreach: bool | None) -> Callable[[ModuleType], dict[str, Any]]:
    cls_name, kwargs = OPTIMIZERS[opt]
    n, d = SIZES[size]

    def setup(lib: ModuleType) -> dict[str, Any]:
        params = [lib.randn(d, d).requires_grad_(True) for _ in range(n)]
        for p in params:
            p.grad = lib.randn(d, d) * 1e-2
        extra = {"foreach": torch_foreach} if lib.__name__ == "torch" else {}
        o = getattr(lib.optim, cls_name)(params, **kwargs, **extra)
        o.step()  # allocate the state outside the timed region
        return {"opt": o}

    return setup


BENCHES: list[Bench] = [
    Bench("nn-optim", f"{opt} step {size} vs torch {'foreach' if fe else 'default'}", "throughput", "opt.step()",
          make_setup(opt, size, fe), threads=1, target=None if fe else 1.0)
    for opt in OPTIMIZERS for size in SIZES for fe in (None, True)
]
