"""The "index" suite: gather-like index ops and boolean-mask indexing, ember vs torch
(issue "ember-core indexing", item 4). Ratios are torch time / ember time (higher is better)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
from harness import Bench

TITLES = {
    "index": "index ops and advanced indexing (ratio = torch/ember time, higher is better)",
}


def select_rows(lib: ModuleType) -> dict[str, Any]:
    """index_select along dim 0 of a 1M x 16 float32 table with 100k row indices."""
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal((1_000_000, 16), dtype=np.float32))
    idx = lib.from_numpy(rng.integers(0, 1_000_000, 100_000))
    return {"x": x, "idx": idx, "torch": lib}


def gather_cols(lib: ModuleType) -> dict[str, Any]:
    """gather along dim 1: 4096 rows of 1024, 256 picks per row."""
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal((4096, 1024), dtype=np.float32))
    idx = lib.from_numpy(rng.integers(0, 1024, (4096, 256)))
    return {"x": x, "idx": idx, "torch": lib}


def scatter_rows(lib: ModuleType) -> dict[str, Any]:
    """scatter_add along dim 0: 100k x 16 sources into 10k rows (many duplicates)."""
    rng = np.random.default_rng(0)
    src = lib.from_numpy(rng.standard_normal((100_000, 16), dtype=np.float32))
    idx = lib.from_numpy(rng.integers(0, 10_000, (100_000, 16)))
    base = lib.zeros(10_000, 16)
    return {"src": src, "idx": idx, "base": base, "torch": lib}


def mask_16m(lib: ModuleType) -> dict[str, Any]:
    """x[mask] with a half-true mask over 16M float32 elements."""
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal(16 * 1024 * 1024, dtype=np.float32))
    return {"x": x, "mask": x > 0}


BENCHES: list[Bench] = [
    row
    for th in (1, 2)
    for row in (
        Bench("index", "index_select 1M x 16, 100k rows", "throughput", "torch.index_select(x, 0, idx)", select_rows,
              threads=th, target=0.9),
        Bench("index", "gather 4096 x 1024, dim 1, 256 per row", "throughput", "torch.gather(x, 1, idx)",
              gather_cols, threads=th, target=0.9),
        Bench("index", "scatter_add 100k x 16 into 10k rows", "throughput", "base.scatter_add(0, idx, src)",
              scatter_rows, threads=th, target=0.9),
        Bench("index", "x[mask] on 16M float32", "throughput", "x[mask]", mask_16m, threads=th, target=0.9),
    )
]
