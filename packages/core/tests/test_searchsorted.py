"""searchsorted's branch-free search over 8 values at a time (kernels/cpu/index/search_kernels.cpp)
against PyTorch, index for index: PyTorch's probe sequence decides where a NaN boundary (not sorted
into place) sends a value, so these cases pin it; lengths 0 to 40 (every step count), rows,
sorters, right=, int32 output, a NaN value, short last groups and a multi-threaded 3-row search."""

from __future__ import annotations

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")


def both(b: np.ndarray, v: np.ndarray, **kw: object) -> tuple:
    sorter = kw.pop("sorter", None)
    out = []
    for lib in (ember, torch):
        extra = {"sorter": lib.tensor(sorter)} if sorter is not None else {}
        out.append(lib.searchsorted(lib.tensor(b), lib.tensor(v), **kw, **extra))
    return out[0], out[1]


@pytest.mark.parametrize("seed", range(12))
def test_small_cases_match_torch_index_for_index(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for trial in range(40):
        length, rows, n = int(rng.integers(0, 41)), int(rng.integers(1, 4)), int(rng.integers(0, 30))
        dt = ("float32", "float64", "int64", "int32")[trial % 4]
        b = np.sort(rng.integers(-5, 5, (rows, length)), axis=1).astype(dt)
        v = rng.integers(-7, 7, (rows, n)).astype(dt)
        if dt.startswith("float"):
            b, v = b * 0.5, v * 0.5
            if length and trial % 3 == 0:
                b[:, int(rng.integers(0, length))] = np.nan  # out of order: the probes decide
            if n and trial % 5 == 0:
                v[:, 0] = np.nan
        if rows == 1 and trial % 2:
            b, v = b[0], v[0]
        for right in (False, True):
            kw: dict = {"right": right, "out_int32": trial % 6 == 0}
            e, t = both(b, v, **kw)
            assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
            np.testing.assert_array_equal(e.numpy(), t.numpy(), err_msg=f"{dt} len={length} right={right}")
            if length:
                perm = rng.permutation(length)
                shuffled = np.ascontiguousarray(b[..., perm])
                e, t = both(shuffled, v, right=right, sorter=np.broadcast_to(np.argsort(perm), shuffled.shape).copy())
                np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_rows_across_threads() -> None:
    rng = np.random.default_rng(7)
    b = np.sort(rng.standard_normal((3, 1000)), axis=1)
    v = rng.standard_normal((3, 50001))
    for right in (False, True):
        e, t = both(b, v, right=right)
        np.testing.assert_array_equal(e.numpy(), t.numpy())
