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


def gather_one_per_row(lib: ModuleType) -> dict[str, Any]:
    """gather along dim 1 with one pick per row (a loss picking its targets): 100k rows of 1000."""
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal((100_000, 1000), dtype=np.float32))
    idx = lib.from_numpy(rng.integers(0, 1000, (100_000, 1)))
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


def add_rows(lib: ModuleType) -> dict[str, Any]:
    """index_add / index_copy along dim 0: 100k rows of 16 into a 10k x 16 table (100k-row
    sources, 1-d indices)."""
    rng = np.random.default_rng(0)
    src = lib.from_numpy(rng.standard_normal((100_000, 16), dtype=np.float32))
    idx = lib.from_numpy(rng.integers(0, 10_000, 100_000))
    perm = lib.from_numpy(rng.permutation(100_000)[:10_000].astype(np.int64))
    return {"src": src, "idx": idx, "base": lib.zeros(10_000, 16), "big": lib.zeros(100_000, 16),
            "part": src[:10_000].clone(), "perm": perm, "torch": lib}


def flat_16m(lib: ModuleType) -> dict[str, Any]:
    """16M float32 values, their half-true mask and 1M flat indices into them."""
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal(16 * 1024 * 1024, dtype=np.float32))
    idx = lib.from_numpy(rng.integers(0, 16 * 1024 * 1024, 1_000_000))
    return {"x": x, "mask": x > 0, "idx": idx, "torch": lib}


def table_rows(lib: ModuleType) -> dict[str, Any]:
    """Advanced indexing of a 1M x 16 float32 table by 100k row indices, and a put back."""
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal((1_000_000, 16), dtype=np.float32))
    idx = lib.from_numpy(rng.integers(0, 1_000_000, 100_000))
    v = lib.from_numpy(rng.standard_normal((100_000, 16), dtype=np.float32))
    return {"x": x, "idx": idx, "v": v, "torch": lib}


def search_1m(lib: ModuleType) -> dict[str, Any]:
    """1M float32 values binned by 10k sorted boundaries."""
    rng = np.random.default_rng(0)
    v = lib.from_numpy(rng.standard_normal(1_000_000, dtype=np.float32))
    b = lib.from_numpy(np.sort(rng.standard_normal(10_000, dtype=np.float32)))
    return {"v": v, "b": b, "torch": lib}


# Informative rows (no target) for the kernels of kernels/cpu/index that the rows above do not
# time: each op's own pass, so a change to that kernel shows here.
INFO: list[Bench] = [
    row
    for th in (1, 2)
    for row in (
        Bench("index", "index_add 100k x 16 into 10k rows", "throughput", "base.index_add(0, idx, src)", add_rows,
              threads=th),
        Bench("index", "index_copy_ 10k x 16 into 100k rows", "throughput", "big.index_copy_(0, perm, part)", add_rows,
              threads=th),
        Bench("index", "x[idx] 1M x 16, 100k rows", "throughput", "x[idx]", table_rows, threads=th),
        Bench("index", "index_put_ accumulate 100k x 16 into 1M rows", "throughput",
              "x.index_put_((idx,), v, accumulate=True)", table_rows, threads=th),
        Bench("index", "take 1M of 16M float32", "throughput", "torch.take(x, idx)", flat_16m, threads=th),
        Bench("index", "masked_fill_ on 16M float32", "throughput", "x.masked_fill_(mask, 0.5)", flat_16m,
              threads=th),
        Bench("index", "nonzero of 16M bool", "throughput", "torch.nonzero(mask)", flat_16m, threads=th),
        Bench("index", "searchsorted 1M into 10k", "throughput", "torch.searchsorted(b, v)", search_1m, threads=th),
    )
]

BENCHES: list[Bench] = INFO + [
    row
    for th in (1, 2)
    for row in (
        Bench("index", "index_select 1M x 16, 100k rows", "throughput", "torch.index_select(x, 0, idx)", select_rows,
              threads=th, target=0.9),
        Bench("index", "gather 4096 x 1024, dim 1, 256 per row", "throughput", "torch.gather(x, 1, idx)",
              gather_cols, threads=th, target=0.9),
        Bench("index", "gather 100k x 1000, dim 1, 1 per row", "throughput", "torch.gather(x, 1, idx)",
              gather_one_per_row, threads=th, target=0.9),
        Bench("index", "scatter_add 100k x 16 into 10k rows", "throughput", "base.scatter_add(0, idx, src)",
              scatter_rows, threads=th, target=0.9),
        Bench("index", "x[mask] on 16M float32", "throughput", "x[mask]", mask_16m, threads=th, target=0.9),
    )
]
