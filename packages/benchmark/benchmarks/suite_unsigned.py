"""The "unsigned" suite: the kernels PyTorch runs on uint16 / uint32 / uint64 (casts, mul,
bitwise ops, sort) and hash_tensor, ember vs torch. Ratios are torch time / ember time (higher
is better)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from harness import Bench

TITLES = {
    "unsigned": "uint16/32/64 kernels and hash_tensor, 2048x2048 (ratio = torch/ember time, higher is better)",
}
N = 2048
THREADS = (1, 2)


def operands(dtype: str) -> Any:
    """Two N x N tensors of small non-negative values in `dtype`, and a float32 one."""

    def setup(lib: ModuleType) -> dict[str, Any]:
        g = lib.Generator().manual_seed(0)
        a = lib.randint(0, 1000, (N, N), generator=g)
        b = lib.randint(0, 1000, (N, N), generator=g)
        dt = getattr(lib, dtype)
        return {"a": a.to(dt), "b": b.to(dt), "f": a.float(), "dt": dt}

    return setup


def _rows() -> list[Bench]:
    rows = []
    for dtype in ("uint16", "uint32", "uint64"):
        for name, stmt in ((f"float32 -> {dtype}", "f.to(dt)"), (f"{dtype} -> float32", "a.float()"),
                           (f"{dtype} mul", "a * b"), (f"{dtype} xor", "a ^ b"), (f"{dtype} eq", "a == b"),
                           (f"{dtype} sum", "a.sum()")):
            rows += [Bench("unsigned", name, "throughput", stmt, operands(dtype), threads=th) for th in THREADS]
        rows.append(Bench("unsigned", f"{dtype} sort(dim=1) 2048x2048", "throughput", "a.sort(dim=1)",
                          operands(dtype), threads=2))
    for name, stmt in (("hash_tensor(float32)", "lib.hash_tensor(f)"), ("hash_tensor(float32, dim=1)",
                                                                         "lib.hash_tensor(f, 1)")):
        rows += [Bench("unsigned", name, "throughput", stmt, operands("uint32"), threads=th) for th in THREADS]
    return rows


BENCHES: list[Bench] = _rows()
