"""The "nn-activation" suite: activation kernels on 16M float32 elements (and gelu on 1M, which
fits the last-level cache: compute-bound), forward and forward + backward, ember vs torch
(issue 16: F.gelu at least PyTorch's throughput; ratio = torch time / ember time, higher is
better, target 1.0)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from harness import Bench

BIG = 4096  # 4096 x 4096 float32 = 16M elements, as the core suite's elementwise rows
MID = 1024  # 1M elements: 4 MB, where the erf's arithmetic, not memory, sets the time

TITLES = {
    "nn-activation": f"activations on {BIG}x{BIG} float32, forward / forward + backward "
                     "(ratio = torch/ember time, higher is better)",
}


def inputs(side: int, lib: ModuleType) -> dict[str, Any]:
    """x (requires grad), a gradient g for it, and nn.functional of the library."""
    lib.manual_seed(0)
    x = lib.randn(side, side).requires_grad_(True)
    w = lib.full((side,), 0.25).requires_grad_(True)  # prelu's slopes, one per channel (dim 1)
    return {"x": x, "g": lib.randn(side, side), "w": w, "F": lib.nn.functional, "lib": lib}


def big(lib: ModuleType) -> dict[str, Any]:
    return inputs(BIG, lib)


def mid(lib: ModuleType) -> dict[str, Any]:
    return inputs(MID, lib)


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
] + [
    Bench("nn-activation", f"{name} 1M", "throughput", stmt, mid, threads=th, target=1.0)
    for th in (1, 2)
    for name, stmt in CALLS[::2]
]

# The everyday activations on 1M elements (cache-resident, so the kernel's arithmetic is timed, not
# the allocator's page faults that dominate torch's 16M rows): silu, elu, leaky_relu, prelu and glu have
# native kernel pairs and a target; the rest show where ember still composes several passes or computes scalar code.
COMMON = [
    ("silu fwd", "with lib.no_grad(): F.silu(x)", 1.0),
    ("silu fwd+bwd", "lib.autograd.grad(F.silu(x), x, g)", 1.0),
    ("sigmoid fwd", "with lib.no_grad(): lib.sigmoid(x)", None),
    ("softplus fwd", "with lib.no_grad(): F.softplus(x)", None),
    ("elu fwd", "with lib.no_grad(): F.elu(x)", 1.0),
    ("elu fwd+bwd", "lib.autograd.grad(F.elu(x), x, g)", 1.0),
    ("selu fwd", "with lib.no_grad(): F.selu(x)", None),
    ("celu fwd", "with lib.no_grad(): F.celu(x, 0.7)", None),
    ("hardswish fwd", "with lib.no_grad(): F.hardswish(x)", None),
    ("mish fwd", "with lib.no_grad(): F.mish(x)", None),
    ("logsigmoid fwd", "with lib.no_grad(): F.logsigmoid(x)", None),
    ("logsigmoid fwd+bwd", "lib.autograd.grad(F.logsigmoid(x), x, g)", None),
    ("leaky_relu fwd", "with lib.no_grad(): F.leaky_relu(x)", 1.0),
    ("leaky_relu fwd+bwd", "lib.autograd.grad(F.leaky_relu(x), x, g)", 1.0),
    ("hardshrink fwd", "with lib.no_grad(): F.hardshrink(x)", None),
    ("softshrink fwd", "with lib.no_grad(): F.softshrink(x)", None),
    ("hardtanh fwd", "with lib.no_grad(): F.hardtanh(x)", None),  # clamp with two bounds
    ("prelu fwd", "with lib.no_grad(): F.prelu(x, w)", 1.0),
    ("prelu fwd+bwd", "lib.autograd.grad(F.prelu(x, w), (x, w), g)", 1.0),
    ("glu fwd", "with lib.no_grad(): F.glu(x)", 1.0),  # halves of the last dim: 1024 x 512 out
    ("glu fwd+bwd", "lib.autograd.grad(F.glu(x), x, g[:, :512])", 1.0),
]
BENCHES += [
    Bench("nn-activation", f"{name} 1M", "throughput", stmt, mid, threads=1, target=target)
    for name, stmt, target in COMMON
]

