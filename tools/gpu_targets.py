"""Issue 24's GPU performance targets, measured on the GPU machine beside PyTorch CUDA (run by
tools/gpu_check.sh; needs a GPU, ember's CUDA build, torch with CUDA and ember-nn on the path).

Prints one line per target: the figure, the target and OK / MISS (ERROR: the row raised):
  * add / mul / exp over 64M float32: at least 85% of the device's copy bandwidth (torch's copy_
    of 64M float32, bytes read + written per second);
  * sum over 64M float32: at least 80% of that bandwidth;
  * mm 4096x4096 float32: at least 0.95x PyTorch's speed (TF32 off in both);
  * one training step (forward, backward, Adam) of an MLP, a CNN and a transformer block: at
    most 1.1x PyTorch's time;
  * per-op launch overhead of `a + b` on 64-element tensors: at most 0.7x PyTorch's.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any

import ember
import torch

N = 64 << 20
RESULTS: list[dict[str, Any]] = []


def timed(fn: Callable[[], Any], sync: Callable[[], None], reps: int, warmup: int = 3) -> float:
    """Seconds per call of fn (the device synchronized before and after the loop)."""
    for _ in range(warmup):
        fn()
    sync()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    sync()
    return (time.perf_counter() - t0) / reps


def report(name: str, value: float, target: float, higher_is_better: bool, unit: str = "") -> None:
    ok = value >= target if higher_is_better else value <= target
    sign = ">=" if higher_is_better else "<="
    print(f"{name:<48} {value:8.3f}{unit}  (target {sign} {target}{unit})  {'OK' if ok else 'MISS'}", flush=True)
    RESULTS.append({"name": name, "value": value, "target": target, "ok": ok})


def row(name: str, body: Callable[[], None]) -> None:
    try:
        body()
    except Exception as e:  # noqa: BLE001 - a failing row is reported, the others still run
        print(f"{name:<48} ERROR {type(e).__name__}: {e}", flush=True)
        RESULTS.append({"name": name, "error": f"{type(e).__name__}: {e}", "ok": False})


def bandwidth_rows() -> None:
    tx = torch.randn(N, device="cuda")
    tout = torch.empty_like(tx)
    copy_s = timed(lambda: tout.copy_(tx), torch.cuda.synchronize, 20)
    peak = 2 * 4 * N / copy_s  # bytes read + written per second
    print(f"{'device copy bandwidth (torch copy_, 64M float32)':<48} {peak / 1e9:8.1f} GB/s", flush=True)
    ex, ey = ember.randn(N).cuda(), ember.randn(N).cuda()
    eo = ember.empty(N, device="cuda")
    cases = [("add", lambda: ember.add(ex, ey, out=eo), 3), ("mul", lambda: ember.mul(ex, ey, out=eo), 3),
             ("exp", lambda: ember.exp(ex, out=eo), 2)]
    for op, fn, arrays in cases:
        def body(fn: Callable[[], Any] = fn, arrays: int = arrays, op: str = op) -> None:
            s = timed(fn, ember.cuda.synchronize, 20)
            report(f"{op} 64M float32, share of copy bandwidth", arrays * 4 * N / s / peak, 0.85, True)
        row(f"{op} 64M float32, share of copy bandwidth", body)

    def sum_body() -> None:
        s = timed(lambda: ex.sum(), ember.cuda.synchronize, 20)
        report("sum 64M float32, share of copy bandwidth", 4 * N / s / peak, 0.80, True)
    row("sum 64M float32, share of copy bandwidth", sum_body)


def gemm_row() -> None:
    torch.backends.cuda.matmul.allow_tf32 = False
    ember.set_float32_matmul_precision("highest")
    ta = torch.randn(4096, 4096, device="cuda")
    ea = ember.randn(4096, 4096).cuda()
    t = timed(lambda: ta @ ta, torch.cuda.synchronize, 10)
    e = timed(lambda: ea @ ea, ember.cuda.synchronize, 10)
    report("mm 4096x4096 float32, speed vs torch", t / e, 0.95, True, "x")


def mlp(lib: Any) -> tuple[Any, Any, Any]:
    nn = lib.nn
    m = nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))
    return m, lib.randn(256, 784), lib.randint(0, 10, (256,))


def cnn(lib: Any) -> tuple[Any, Any, Any]:
    nn = lib.nn
    m = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Linear(64 * 8 * 8, 10))
    return m, lib.randn(64, 3, 32, 32), lib.randint(0, 10, (64,))


class _Block:
    """A transformer encoder block over (batch, seq, dim) with a classifier on the mean token."""

    @staticmethod
    def make(lib: Any) -> tuple[Any, Any, Any]:
        nn = lib.nn

        class Block(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.enc = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)
                self.head = nn.Linear(256, 10)

            def forward(self, x: Any) -> Any:
                return self.head(self.enc(x).mean(1))

        return Block(), lib.randn(16, 128, 256), lib.randint(0, 10, (16,))


def train_step_row(name: str, make: Callable[[Any], tuple[Any, Any, Any]]) -> None:
    def step_time(lib: Any) -> float:
        lib.manual_seed(0)
        m, x, y = make(lib)
        m = m.to("cuda")
        x, y = x.to("cuda"), y.to("cuda")
        opt = lib.optim.Adam(m.parameters(), lr=1e-3)
        F = lib.nn.functional

        def step() -> None:
            opt.zero_grad()
            F.cross_entropy(m(x), y).backward()
            opt.step()

        return timed(step, lib.cuda.synchronize, 20)

    def body() -> None:
        t, e = step_time(torch), step_time(ember)
        report(f"train step {name}, time vs torch", e / t, 1.1, False, "x")
    row(f"train step {name}, time vs torch", body)


def overhead_row() -> None:
    ta, tb = torch.randn(64, device="cuda"), torch.randn(64, device="cuda")
    ea, eb = ember.randn(64).cuda(), ember.randn(64).cuda()
    t = timed(lambda: ta + tb, torch.cuda.synchronize, 20000, warmup=200)
    e = timed(lambda: ea + eb, ember.cuda.synchronize, 20000, warmup=200)
    print(f"{'a + b, 64 elements: torch / ember per call':<48} {t * 1e6:8.2f} / {e * 1e6:.2f} us", flush=True)
    report("a + b launch overhead, time vs torch", e / t, 0.7, False, "x")


def main() -> int:
    import ember.nn  # noqa: F401 - ember-nn from the path (tools/gpu_check.sh)
    import ember.optim  # noqa: F401

    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}", flush=True)
    row("bandwidth", bandwidth_rows)
    row("mm 4096x4096 float32, speed vs torch", gemm_row)
    train_step_row("MLP 784-1024-1024-10, batch 256", mlp)
    train_step_row("CNN 2 conv + bn + pool, batch 64 32x32", cnn)
    train_step_row("transformer block d256 h4 seq128, batch 16", _Block.make)
    row("a + b launch overhead, time vs torch", overhead_row)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            json.dump(RESULTS, f, indent=1)
    return 0 if all(r["ok"] for r in RESULTS) else 1


if __name__ == "__main__":
    sys.exit(main())
