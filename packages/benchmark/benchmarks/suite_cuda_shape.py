"""The "cuda_shape" suite: ember's CUDA shape, range, arg-reduction, scan and sort kernels against
torch's on the same GPU (issue 24). Ratios are torch time / ember time (higher is better); each
statement synchronizes the device. The rows are informative (no target): the scans walk a line
per thread and the sorts merge in global memory, simple kernels whose speed is yet to be measured.
Rows exist only where both libraries see a GPU (tools/gpu_check.sh); elsewhere the suite is empty."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from harness import Bench, gpu_rows

TITLES = {"cuda_shape": "CUDA cat, flip, tril, ranges, argmax, scans and sorts, float32 (ratio = torch/ember time)"}



def gdata(lib: ModuleType) -> dict[str, Any]:
    """A 4096 x 4096 float32 matrix and a 1M vector on the GPU (made on the CPU from one seed)."""
    g = lib.Generator().manual_seed(0)
    m = lib.randn(4096, 4096, generator=g).cuda()
    v = lib.randn(1 << 20, generator=g).cuda()
    return {"m": m, "v": v, "h": m[:, :1024].contiguous(), "torch": lib, "sync": lib.cuda.synchronize}


ROWS = [
    ("cat 3 x 4096x1024 (dim 1)", "torch.cat([h, h, h], 1)"),
    ("stack 3 x 4096x1024 (dim 0)", "torch.stack([h, h, h])"),
    ("flip 4096x4096 (dim 1)", "m.flip(1)"),
    ("tril 4096x4096", "m.tril()"),
    ("arange float32, 16M", "torch.arange(1 << 24, dtype=torch.float32, device='cuda')"),
    ("linspace float32, 16M", "torch.linspace(-1, 1, 1 << 24, device='cuda')"),
    ("argmax 4096x4096 (dim 1)", "m.argmax(1)"),
    ("max.dim 4096x4096 (dim 0)", "m.max(0)"),
    ("cumsum 4096x4096 (dim 1)", "m.cumsum(1)"),
    ("cumsum 1M vector", "v.cumsum(0)"),
    ("logcumsumexp 4096x4096 (dim 0)", "m.logcumsumexp(0)"),
    ("sort 4096x4096 (dim 1)", "m.sort(1)"),
    ("sort 1M vector", "v.sort()"),
    ("topk 16 of 4096x4096 (dim 1)", "m.topk(16, 1)"),
    ("median 4096x4096 (dim 1)", "m.median(1)"),
]

BENCHES: list[Bench] = gpu_rows("cuda_shape", ROWS, gdata)
