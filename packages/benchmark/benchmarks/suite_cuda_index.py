"""The "cuda_index" suite: ember's CUDA index and embedding kernels against torch's on the same GPU
(issue 24). Ratios are torch time / ember time (higher is better); each statement synchronizes the
device. Rows exist only where both libraries see a GPU (tools/gpu_check.sh runs them with
--filter cuda); elsewhere the suite is empty."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from harness import Bench, gpu_rows

TITLES = {"cuda_index": "CUDA index, mask, binning and embedding kernels, float32 (ratio = torch/ember time)"}

N = 1 << 24



_MADE: dict[str, dict[str, Any]] = {}


def gidx(lib: ModuleType) -> dict[str, Any]:
    """The same data for both libraries, made on the CPU from one seed and moved to the GPU (once
    per library: every row reads it)."""
    if lib.__name__ in _MADE:
        return _MADE[lib.__name__]
    g = lib.Generator().manual_seed(0)
    x = lib.randn(N, generator=g)
    m = x.reshape(4096, 4096)
    w = lib.randn(50000, 256, generator=g)
    env = {
        "x": x.cuda(), "m": m.cuda(), "mask": (x > 0).cuda(),
        "w": w.cuda(), "wr": w.cuda().requires_grad_(),
        "tok": lib.randint(0, 50000, (32768,), generator=g).cuda(),
        "rows": lib.randint(0, 4096, (4096,), generator=g).cuda(),
        "cols": lib.randint(0, 4096, (4096, 1024), generator=g).cuda(),
        "src": lib.randn(4096, 1024, generator=g).cuda(),
        "add": lib.randn(4096, 4096, generator=g).cuda(),
        "pi": lib.randint(0, 4096, (1 << 20,), generator=g).cuda(),
        "pj": lib.randint(0, 4096, (1 << 20,), generator=g).cuda(),
        "pv": lib.randn(1 << 20, generator=g).cuda(),
        "flat": lib.randint(-N, N, (1 << 22,), generator=g).cuda(),
        "bnd": lib.sort(lib.randn(1 << 20, generator=g)).values.cuda(),
        "torch": lib, "sync": lib.cuda.synchronize,
    }
    _MADE[lib.__name__] = env
    return env


ROWS = [
    ("embedding 50000x256, 32K tokens", "torch.embedding(w, tok)"),
    ("embedding backward 50000x256, 32K tokens", "wr.grad = None; torch.embedding(wr, tok).sum().backward()"),
    ("index_select 4096x4096 (dim 0, 4096 rows)", "torch.index_select(m, 0, rows)"),
    ("gather 4096x4096 (dim 1, 4096x1024)", "torch.gather(m, 1, cols)"),
    ("scatter_add 4096x4096 (dim 1, 4096x1024)", "torch.scatter_add(m, 1, cols, src)"),
    ("index_add 4096x4096 (dim 0, 4096 rows)", "m.index_add(0, rows, add)"),
    ("advanced index m[i, j], 1M pairs", "m[pi, pj]"),
    ("index_put accumulate, 1M pairs", "torch.index_put(m, (pi, pj), pv, True)"),
    ("take 16M, 4M indices", "torch.take(x, flat)"),
    ("masked_fill 16M", "x.masked_fill(mask, 0.0)"),
    ("masked_select 16M", "torch.masked_select(x, mask)"),
    ("nonzero 16M", "torch.nonzero(mask)"),
    ("searchsorted 1M values, 1M boundaries", "torch.searchsorted(bnd, pv)"),
    ("bincount 32K tokens", "torch.bincount(tok)"),
    ("histc 16M, 100 bins", "torch.histc(x, 100, -4, 4)"),
]

BENCHES: list[Bench] = gpu_rows("cuda_index", ROWS, gidx)
