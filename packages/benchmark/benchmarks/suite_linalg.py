"""The "linalg" suite: LAPACK-backed torch.linalg ops, ember vs torch (issue 3, linalg area).

Both libraries call LAPACK (ember: scipy-openblas32; torch: its own build), so the ratio mostly
measures the LAPACK build plus ember's column-major copies and batch loop.  Inputs are
well conditioned: symmetric positive-definite where the op needs it.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from harness import Bench

TITLES = {
    "linalg": "linalg float32, 256x256 and batched 64x32x32 (ratio = torch/ember time, higher is better)",
    "linalg-grad": "linalg forward + backward, float32 (ratio = torch/ember time, higher is better)",
    "linalg-complex": "linalg complex64 (LAPACK's c routines), 128x128 and batched 64x16x16 (ratio = torch/ember time)",
}

SHAPES = {"256x256": (256,), "64x32x32": (64, 32)}  # leading batch dims + n


def spd(shape: tuple, grad: bool = False) -> Callable[[ModuleType], dict[str, Any]]:
    """A = X X^T / n + I (positive definite), a right-hand side B and a plain matrix M."""

    def setup(lib: ModuleType) -> dict[str, Any]:
        dims = shape[:-1] + (shape[-1], shape[-1])
        n = shape[-1]
        x = lib.randn(*dims)
        a = x @ x.mT / n + lib.eye(n)
        b = lib.randn(*(shape[:-1] + (n, 4)))
        m = lib.randn(*dims)
        # the packed factors lu_solve / householder_product take, and a matrix of 1-norm ~2 for matrix_exp
        lu, piv = lib.linalg.lu_factor(a.detach())
        qa, tau = lib.geqrf(m.detach())
        e = m.detach() / (n ** 0.5)
        if grad:
            a.requires_grad_(True)
            m.requires_grad_(True)
            e.requires_grad_(True)
        return {"A": a, "B": b, "M": m, "LU": lu, "piv": piv, "QA": qa, "tau": tau, "E": e}

    return setup


OPS = [  # (name, stmt, target)
    ("inv", "lib.linalg.inv(A)", 0.5),
    ("solve", "lib.linalg.solve(A, B)", 0.5),
    ("cholesky", "lib.linalg.cholesky(A)", 0.5),
    ("svd", "lib.linalg.svd(M)", 0.3),
    ("eigh", "lib.linalg.eigh(A)", 0.3),
    ("eig", "lib.linalg.eig(M)", None),  # geev: both call LAPACK, the ratio is the builds'
    ("eigvals", "lib.linalg.eigvals(M)", None),
    ("det", "lib.linalg.det(A)", None),
    ("qr", "lib.linalg.qr(M)", None),
    ("svdvals", "lib.linalg.svdvals(M)", None),
    ("lu_factor", "lib.linalg.lu_factor(M)", None),
    ("lu_solve", "lib.linalg.lu_solve(LU, piv, B)", None),
    ("solve_triangular", "lib.linalg.solve_triangular(LU, B, upper=True)", None),
    ("matrix_exp", "lib.linalg.matrix_exp(E)", None),
    ("householder_product", "lib.linalg.householder_product(QA, tau)", None),
]

BENCHES: list[Bench] = [
    Bench("linalg", f"{op} {shape}", "throughput", stmt, spd(SHAPES[shape]), threads=th, target=target)
    for op, stmt, target in OPS
    for shape in SHAPES
    for th in (1, 2)
] + [
    Bench("linalg-grad", f"{op} fwd+bwd {shape}", "throughput", stmt, spd(SHAPES[shape], grad=True), threads=1,
          target=None)
    for op, stmt in [("inv", "lib.linalg.inv(A).sum().backward()"),
                     ("cholesky", "lib.linalg.cholesky(A).sum().backward()"),
                     ("eigh", "lib.linalg.eigvalsh(A).sum().backward()"),
                     ("eig", "lib.linalg.eigvals(M).abs().sum().backward()"),
                     ("svdvals", "lib.linalg.svdvals(M).sum().backward()"),
                     ("lu_factor", "lib.linalg.lu_factor(M).LU.sum().backward()"),
                     ("solve_triangular", "lib.linalg.solve_triangular(A, B, upper=False).sum().backward()"),
                     ("matrix_exp", "lib.linalg.matrix_exp(E).sum().backward()")]
    for shape in SHAPES
]


def hpd(shape: tuple) -> Callable[[ModuleType], dict[str, Any]]:
    """complex64: A = X X^H / n + I (Hermitian positive definite), B and a plain matrix M."""

    def setup(lib: ModuleType) -> dict[str, Any]:
        n = shape[-1]
        dims = shape[:-1] + (n, n)
        x = lib.randn(*dims, dtype=lib.complex64)
        a = x @ x.mH / n + lib.eye(n, dtype=lib.complex64)
        s = lib.randn(*dims, dtype=lib.complex64)
        m = lib.randn(*dims, dtype=lib.complex64)
        ld, piv = lib.linalg.ldl_factor(s + s.mT)
        return {"A": a, "M": m, "B": lib.randn(*(shape[:-1] + (n, 4)), dtype=lib.complex64), "S": s + s.mT,
                "T": lib.randn(*(shape[:-1] + (n,)), dtype=lib.complex64) / 2, "LD": ld, "P": piv}

    return setup


# complex forms of the kernels (issue 22 point 4): informative, no target
BENCHES += [
    Bench("linalg-complex", f"{op} complex64 {shape}", "throughput", stmt, hpd(dims), threads=1, target=None)
    for op, stmt in [("inv", "lib.linalg.inv(A)"), ("solve", "lib.linalg.solve(A, B)"),
                     ("cholesky", "lib.linalg.cholesky(A)"), ("eigh", "lib.linalg.eigh(A)"),
                     ("svd", "lib.linalg.svd(M)"), ("qr", "lib.linalg.qr(M)"), ("det", "lib.linalg.det(M)"),
                     ("geqrf", "lib.geqrf(M)"), ("householder_product", "lib.linalg.householder_product(M, T)"),
                     ("ldl_factor", "lib.linalg.ldl_factor(S)"), ("ldl_factor hermitian",
                                                                 "lib.linalg.ldl_factor(A, hermitian=True)"),
                     ("ldl_solve", "lib.linalg.ldl_solve(LD, P, B)")]
    for shape, dims in (("128x128", (128,)), ("64x16x16", (64, 16)))
]
