"""The "complex" suite: complex64 tensors (issue 22 point 4), ember vs torch. Ratios are torch
time / ember time (higher is better): mul and abs (the issue's target: >= 0.9), the float32 ->
complex64 cast, conj_physical and angle."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
from harness import Bench

TITLES = {
    "complex": "complex64 mul, abs, casts, conj_physical, angle, conj views, 4M elements (ratio = torch/ember time)",
    "complex-overhead": "per-op time beside a live conj view (ratio = ember/torch, lower is better)",
    "complex-more": "complex64 prod, scans, inverse trigonometric functions, index_add (ratio = torch/ember time)",
    "complex32": "complex32 (ComplexHalf) add, mul, abs, casts, 1M elements (ratio = torch/ember time)",
}

N = 4_000_000


def cvec(lib: ModuleType) -> dict[str, Any]:
    """4M complex64 values (normal real and imaginary parts) and a float32 vector."""
    rng = np.random.default_rng(0)
    z = (rng.standard_normal(N) + 1j * rng.standard_normal(N)).astype(np.complex64)
    w = (rng.standard_normal(N) + 1j * rng.standard_normal(N)).astype(np.complex64)
    return {"z": lib.from_numpy(z), "w": lib.from_numpy(w), "x": lib.from_numpy(z.real.copy()), "torch": lib}


BENCHES: list[Bench] = [
    row
    for th in (1, 2)
    for row in (
        Bench("complex", "mul complex64, 4M", "throughput", "z * w", cvec, threads=th, target=0.9),
        Bench("complex", "abs complex64, 4M", "throughput", "torch.abs(z)", cvec, threads=th, target=0.9),
        Bench("complex", "float32 -> complex64 cast, 4M", "throughput", "x.to(torch.complex64)", cvec, threads=th,
              target=0.9),
        Bench("complex", "conj_physical complex64, 4M", "throughput", "torch.conj_physical(z)", cvec, threads=th,
              target=0.9),
        Bench("complex", "angle complex64, 4M", "throughput", "torch.angle(z)", cvec, threads=th, target=0.9),
        Bench("complex", "complex(x, x) -> complex64, 4M", "throughput", "torch.complex(x, x)", cvec, threads=th),
        Bench("complex", "polar(x, x) -> complex64, 4M", "throughput", "torch.polar(x, x)", cvec, threads=th),
        # a lazy conjugate view as an operand: both libraries resolve it first (the conjugate fallback)
        Bench("complex", "mul by a conj view, 4M", "throughput", "z.conj() * w", cvec, threads=th, target=None),
    )
]


def cmat(lib: ModuleType) -> dict[str, Any]:
    """1M unit-modulus complex64 values as 1000 x 1000 (products stay finite), index_add operands."""
    rng = np.random.default_rng(0)
    z = np.exp(1j * rng.uniform(-np.pi, np.pi, (1000, 1000))).astype(np.complex64)
    src = (rng.standard_normal((100_000, 16)) + 1j * rng.standard_normal((100_000, 16))).astype(np.complex64)
    return {"z": lib.from_numpy(z), "base": lib.zeros(10_000, 16, dtype=lib.complex64), "src": lib.from_numpy(src),
            "idx": lib.from_numpy(rng.integers(0, 10_000, 100_000)), "torch": lib}


# the kernels added after the first complex rows: informative (no target)
BENCHES += [
    Bench("complex-more", "prod complex64 1000x1000 (dim 1)", "throughput", "z.prod(1)", cmat),
    Bench("complex-more", "cumsum complex64 1000x1000 (dim 1)", "throughput", "z.cumsum(1)", cmat),
    Bench("complex-more", "cumprod complex64 1000x1000 (dim 1)", "throughput", "z.cumprod(1)", cmat),
    Bench("complex-more", "asin complex64 1M", "throughput", "torch.asin(z)", cmat),
    Bench("complex-more", "atanh complex64 1M", "throughput", "torch.atanh(z)", cmat),
    Bench("complex-more", "index_add complex64 100k x 16 into 10k rows", "throughput",
          "base.index_add(0, idx, src)", cmat),
    Bench("complex-more", "conv1d complex64 8x16x4096, 32 filters of 9", "throughput",
          "torch.conv1d(x, w)", lambda lib: {
              "x": lib.randn(8, 16, 4096, dtype=lib.complex64), "w": lib.randn(32, 16, 9, dtype=lib.complex64),
              "torch": lib}),
    Bench("complex-more", "logsumexp complex64 1000x1000, dim 1", "throughput", "torch.logsumexp(z, 1)", cmat),
]

# Per-op cost of the fallback's check while a conjugate view is alive elsewhere (real operands)
BENCHES += [
    Bench("complex-overhead", "a + b beside a live conj view (1 elem)", "overhead", "a + b", lambda lib: {
        "a": lib.ones(1), "b": lib.ones(1), "keep": lib.ones(1, dtype=lib.complex64).conj()}, threads=1),
]


def hvec(lib: ModuleType) -> dict[str, Any]:
    """1M complex32 values (normal parts) and their complex64 / float16 forms."""
    rng = np.random.default_rng(0)
    z = (rng.standard_normal(1_000_000) + 1j * rng.standard_normal(1_000_000)).astype(np.complex64)
    w = (rng.standard_normal(1_000_000) + 1j * rng.standard_normal(1_000_000)).astype(np.complex64)
    c, d = lib.from_numpy(z), lib.from_numpy(w)
    return {"z": c.to(lib.complex32), "w": d.to(lib.complex32), "c": c, "h": c.real.half(), "torch": lib}


# complex32: aten's scalar kernels (no vector form), each part computed in float and rounded once
BENCHES += [
    Bench("complex32", "add complex32, 1M", "throughput", "z + w", hvec),
    Bench("complex32", "mul complex32, 1M", "throughput", "z * w", hvec),
    Bench("complex32", "abs complex32, 1M", "throughput", "torch.abs(z)", hvec),
    Bench("complex32", "complex64 -> complex32 cast, 1M", "throughput", "c.to(torch.complex32)", hvec),
    Bench("complex32", "complex32 -> complex64 cast, 1M", "throughput", "z.to(torch.complex64)", hvec),
    Bench("complex32", "float16 + complex number -> complex32, 1M", "throughput", "h + 1j", hvec),
]
