"""The "shape" suite: joins and sorting, ember vs torch (issue "ember-core shape ops",
item 3). Ratios are torch time / ember time (higher is better)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
from harness import Bench

TITLES = {
    "shape": "flip, tril, transposing copies, cat, sort and topk (ratio = torch/ember time, higher is better)",
}


def cat_flat(lib: ModuleType) -> dict[str, Any]:
    """Eight 1M-element float32 vectors, joined along dim 0 (one memcpy each)."""
    rng = np.random.default_rng(0)
    xs = [lib.from_numpy(rng.standard_normal(1_000_000, dtype=np.float32)) for _ in range(8)]
    return {"xs": xs, "torch": lib}


def cat_cols(lib: ModuleType) -> dict[str, Any]:
    """Eight 1000 x 1000 float32 matrices, joined along dim 1 (row-interleaved copies)."""
    rng = np.random.default_rng(0)
    xs = [lib.from_numpy(rng.standard_normal((1000, 1000), dtype=np.float32)) for _ in range(8)]
    return {"xs": xs, "torch": lib}


def vec_1m(lib: ModuleType) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    return {"x": lib.from_numpy(rng.standard_normal(1_000_000, dtype=np.float32)), "torch": lib}


def mat_1000(lib: ModuleType) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    return {"x": lib.from_numpy(rng.standard_normal((1000, 1000), dtype=np.float32)), "torch": lib}


def mats_1024(lib: ModuleType) -> dict[str, Any]:
    """A 1024 x 1024 matrix in float32, float64 and bfloat16: power-of-two row strides, whose
    transposing copies put a tile's rows into a few cache sets."""
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal((1024, 1024), dtype=np.float32))
    return {"x": x, "xd": x.double(), "xb": x.bfloat16(), "torch": lib}


BENCHES: list[Bench] = [
    row
    for th in (1, 2)
    for row in (
        # informative (no target): flip's strided gather and tril's row masks (kernels/cpu/shape)
        Bench("shape", "flip 1000x1000 float32 along dim 1", "throughput", "torch.flip(x, [1])", mat_1000,
              threads=th),
        Bench("shape", "tril 1000x1000 float32", "throughput", "torch.tril(x)", mat_1000, threads=th),
        # a transposing copy (copy_where_kernels.cpp's tiles, transpose_tile.cpp's register blocks)
        Bench("shape", "x.t().contiguous() 1024x1024 float32", "throughput", "x.t().contiguous()", mats_1024,
              threads=th, target=1.0),
        Bench("shape", "x.t().contiguous() 1024x1024 float64", "throughput", "xd.t().contiguous()", mats_1024,
              threads=th, target=1.0),
        Bench("shape", "x.t().contiguous() 1024x1024 bfloat16", "throughput", "xb.t().contiguous()", mats_1024,
              threads=th, target=1.0),
        Bench("shape", "cat 8 x 1M float32, dim 0", "throughput", "torch.cat(xs, 0)", cat_flat, threads=th,
              target=0.9),
        Bench("shape", "cat 8 x 1000x1000 float32, dim 1", "throughput", "torch.cat(xs, 1)", cat_cols, threads=th,
              target=0.9),
        Bench("shape", "sort 1M float32", "throughput", "torch.sort(x)", vec_1m, threads=th, target=0.9),
        Bench("shape", "sort 1000x1000 float32 along dim 1", "throughput", "torch.sort(x, 1)", mat_1000,
              threads=th, target=0.9),
        Bench("shape", "topk k=10 of 1M float32", "throughput", "torch.topk(x, 10)", vec_1m, threads=th,
              target=0.9),
    )
]
