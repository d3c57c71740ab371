"""The "nn-pool" suite: pooling and upsampling kernels, forward + backward, ember vs torch
(helper "pool"; ratio = ember time / torch time, lower is better, target 1.0)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from harness import Bench

TITLES = {
    "nn-pool": "pooling / upsampling, forward + backward on (32, 64, 56, 56) float32 (ratio = ember/torch time)",
}


def activations(lib: ModuleType) -> dict[str, Any]:
    """A ResNet-stem-sized activation that requires grad, and nn.functional of the library."""
    lib.manual_seed(0)
    x = lib.randn(32, 64, 56, 56).requires_grad_(True)
    return {"x": x, "F": lib.nn.functional}


def _row(name: str, call: str, threads: int) -> Bench:
    # Forward, then backward through the sum (the gradient of the pooled tensor is all ones).
    return Bench("nn-pool", name, "overhead", f"{call}.sum().backward()", activations, threads=threads, target=1.0)


CALLS = [
    ("max_pool2d 2x2", "F.max_pool2d(x, 2)"),
    ("max_pool2d 3x3 s2 p1", "F.max_pool2d(x, 3, 2, 1)"),
    ("avg_pool2d 3x3 s2 p1", "F.avg_pool2d(x, 3, 2, 1)"),
    ("adaptive_avg_pool2d 1x1", "F.adaptive_avg_pool2d(x, 1)"),
    ("interpolate bilinear x2", "F.interpolate(x, scale_factor=2, mode='bilinear')"),
]

BENCHES: list[Bench] = [_row(name, call, th) for th in (1, 2) for name, call in CALLS]


def pooled(lib: ModuleType) -> dict[str, Any]:
    """max_pool2d 2x2's result and indices of the stem activation, without grad."""
    x = activations(lib)["x"].detach()
    y, ind = lib.nn.functional.max_pool2d(x, 2, return_indices=True)
    return {"y": y, "ind": ind, "F": lib.nn.functional}


BENCHES += [Bench("nn-pool", "max_unpool2d 2x2 fwd", "overhead", "F.max_unpool2d(y, ind, 2)", pooled, threads=th)
            for th in (1, 2)]


def sampling(lib: ModuleType) -> dict[str, Any]:
    """The stem activation and a (32, 56, 56, 2) sampling grid, both requiring grad."""
    d = activations(lib)
    d["g"] = (lib.rand(32, 56, 56, 2) * 2.2 - 1.1).requires_grad_(True)
    return d


BENCHES += [Bench("nn-pool", f"grid_sample {mode}", "overhead",
                  f"F.grid_sample(x, g, mode='{mode}', align_corners=False).sum().backward()", sampling, threads=th,
                  target=1.0) for th in (1, 2) for mode in ("bilinear", "bicubic")]
