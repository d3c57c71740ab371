"""The "autograd" suite: backward-pass overhead and throughput, ember vs torch
(issue "ember-core autograd", item 9)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from harness import Bench

TITLES = {
    "autograd-overhead": "autograd overhead, forward + backward of small graphs (ratio = ember/torch, lower is better)",
    "autograd-throughput": "forward + backward of a Linear-shaped matmul (ratio = torch/ember time, higher is better)",
}


def tiny_graph(lib: ModuleType) -> dict[str, Any]:
    """Three 16-element leaves: ((a*b+c).sum()).backward() is all bookkeeping."""
    a, b, c = (lib.randn(16).requires_grad_(True) for _ in range(3))
    return {"a": a, "b": b, "c": c}


def chain(lib: ModuleType) -> dict[str, Any]:
    """A 100-op chain of small pointwise ops, then backward."""
    x = lib.randn(16).requires_grad_(True)

    def run() -> None:
        y = x
        for _ in range(50):
            y = y * 1.001
            y = y + 0.5
        y.sum().backward()

    return {"x": x, "run": run}


def linear(lib: ModuleType) -> dict[str, Any]:
    x = lib.randn(4096, 1024)
    w = lib.randn(1024, 1024).requires_grad_(True)
    return {"x": x, "w": w}


BENCHES: list[Bench] = [
    Bench("autograd-overhead", "tiny graph backward", "overhead", "((a * b + c).sum()).backward()", tiny_graph,
          threads=1, target=0.7),
    Bench("autograd-overhead", "100-op chain backward", "overhead", "run()", chain, threads=1, target=0.7),
] + [
    Bench("autograd-throughput", "4096x1024 @ 1024x1024 fwd+bwd", "throughput", "(x @ w).sum().backward()", linear,
          threads=th, target=0.9)
    for th in (1, 2)
]
