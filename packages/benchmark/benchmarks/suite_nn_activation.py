"""The "nn-activation" suite: activation kernels on 16M float32 elements, forward and forward +
backward, ember vs torch (issue 16: F.gelu at least PyTorch's throughput; ratio = torch time /
ember time, higher is better, target 1.0)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from harness import Bench

BIG = 4096  # 4096 x 4096 float32 = 16M elements, as the core suite's elementwise rows

TITLES = {
    "nn-activation": f"activations on {BIG}x{BIG} float32, forward / forward + backward "
                     "(ratio = torch/ember time, higher is better)",
}


def big(lib: ModuleType) -> dict[str, Any]:
    """x (requires grad), a gradient g for it, and nn.functional of the library."""
    lib.manual_seed(0)
    x = lib.randn(BIG, BIG).requires_grad_(True)
    return {"x": x, "g": lib.randn(BIG, BIG), "F": lib.nn.functional, "lib": lib}


CALLS = [
    # forward only: no graph is recorded under no_grad, so only the kernel is timed
    ("gelu fwd", "with lib.no_grad(): F.gelu(x)"),
    ("gelu tanh fwd", "with lib.no_grad(): F.gelu(x, approximate='tanh')"),
    ("gelu fwd+bwd", "lib.autograd.grad(F.gelu(x), x, g)"),
    ("gelu tanh fwd+bwd", "lib.autograd.grad(F.gelu(x, approximate='tanh'), x, g)"),
]

BENCHES: list[Bench] = [
    Bench("nn-activation", name, "throughput", stmt, big, threads=th, target=1.0)
    for th in (1, 2)
    for name, stmt in CALLS
]
