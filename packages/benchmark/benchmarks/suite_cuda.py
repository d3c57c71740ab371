"""The "cuda" suite: ember's CUDA kernels against torch's on the same GPU (issue 24). Ratios are
torch time / ember time (higher is better); each statement synchronizes the device, so a row times
the kernels, not their launch. Rows exist only where both libraries see a GPU (the GPU machine,
tools/gpu_check.sh); elsewhere the suite is empty."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from harness import Bench, gpu_rows

TITLES = {"cuda": "CUDA pointwise, cast, reduction, cuBLAS GEMM, random and attention kernels, float32 "
                  "(ratio = torch/ember time)"}

N = 1 << 24



def gvec(lib: ModuleType) -> dict[str, Any]:
    """16M float32 values on the GPU (made on the CPU from one seed: the same data for both)."""
    g = lib.Generator().manual_seed(0)
    x = lib.randn(N, generator=g).cuda()
    y = lib.randn(N, generator=g).cuda()
    q = x[: 1 << 22].reshape(8, 8, 1024, 64)  # (batch, heads, sequence, head size) for attention
    r = lib.empty(N, device="cuda")  # the in-place samplers' target, so x and y keep their values
    return {"x": x, "y": y, "m": x.reshape(4096, 4096), "b": y.reshape(64, 512, 512), "q": q, "r": r, "torch": lib,
            "sync": lib.cuda.synchronize}


ROWS = [
    ("add float32, 16M", "x + y"),
    ("mul by a number float32, 16M", "x * 0.5"),
    ("exp float32, 16M", "torch.exp(x)"),
    ("sigmoid float32, 16M", "torch.sigmoid(x)"),
    ("gelu float32, 16M", "torch.nn.functional.gelu(x)"),
    ("float32 -> float16 cast, 16M", "x.half()"),
    ("transposed copy 4096x4096", "m.t().contiguous()"),
    ("where float32, 16M", "torch.where(x > 0, x, y)"),
    ("sum float32, 16M", "x.sum()"),
    ("sum float32 4096x4096 (dim 1)", "m.sum(1)"),
    ("amax float32 4096x4096 (dim 0)", "m.amax(0)"),
    ("std float32, 16M", "x.std()"),
    ("var float32 4096x4096 (dim 1)", "m.var(1)"),
    ("var_mean float32 4096x4096 (dim 0)", "torch.var_mean(m, 0)"),
    ("mm float32 4096x4096", "m @ m"),
    ("mm float32 4096x4096, transposed operand", "m.t() @ m"),
    ("bmm float32 64 x 512x512", "torch.bmm(b, b)"),
    ("uniform_ float32, 16M", "r.uniform_()"),
    ("normal_ float32, 16M", "r.normal_()"),
    ("bernoulli_ float32, 16M", "r.bernoulli_(0.3)"),
    ("randint int64, 16M", "torch.randint(0, 1000, (1 << 24,), device='cuda')"),
    ("randperm 1M", "torch.randperm(1 << 20, device='cuda')"),
    ("dropout float32, 16M", "torch.nn.functional.dropout(y, 0.3)"),
    ("sdpa float32 8x8x1024x64", "torch.nn.functional.scaled_dot_product_attention(q, q, q)"),
    ("sdpa causal float32 8x8x1024x64", "torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)"),
]

BENCHES: list[Bench] = gpu_rows("cuda", ROWS, gvec, target=0.9)
