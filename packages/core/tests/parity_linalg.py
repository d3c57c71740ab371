"""Parity inputs for the LAPACK-backed linalg ops (ops/linalg.yaml).

Inputs are well conditioned (explicit values) so results agree with PyTorch within the generic
tolerances.  svd / eigh / qr are unique only up to signs: they run here as ``meta`` cases
(dtype / shape / errors), their values and gradients are checked in test_linalg.py.
"""

from __future__ import annotations

from typing import Any

import parity_inputs as H

T, Case = H.T, H.Case

# symmetric positive-definite 3x3, a general well-conditioned 4x4, a 3x4 with distinct singular values
SPD3 = (4.0, 1.0, 0.5, 1.0, 3.0, 0.25, 0.5, 0.25, 2.0)
GEN4 = (5.0, 1.0, -1.0, 0.5, 0.5, 4.0, 1.0, -1.0, 1.0, -0.5, 6.0, 1.0, -1.0, 1.0, 0.5, 5.0)
WIDE = (3.0, 1.0, 0.0, 2.0, -1.0, 2.0, 1.0, 0.0, 0.5, 0.0, 4.0, 1.0)
SING = (1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 1.0, 0.0, 1.0)   # rank 2: LU's pivot 2 is zero
NOT_PD = (1.0, 2.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0)  # leading minor of order 2 negative


def C(id: str, *args: Any, meta: bool = False, **kwargs: Any) -> Case:
    return Case(id, args, kwargs, method=False, inplace=False, out=False, meta=meta)


def _errors(unary: bool = True) -> list:
    return [
        C("nonsquare", T((2, 3), "float32")),
        C("1d", T((3,), "float32")),
        C("int64", T((3, 3), "int64")),
        C("float16", T((3, 3), "float16", values=SPD3)),
    ]


def square_cases(op: dict) -> list:
    cs = [C(dt, T((3, 3), dt, values=SPD3)) for dt in ("float32", "float64")]
    cs += [
        C("general4", T((4, 4), "float64", values=GEN4)),
        C("general4-f32", T((4, 4), "float32", values=GEN4)),
        C("t", T((3, 3), "float64", values=SPD3 + (1.5,), view="t")),
        C("batched", T((2, 4, 4), "float64", values=GEN4 + GEN4[::-1])),
        C("batched3", T((2, 2, 3, 3), "float32", values=SPD3)),
        C("empty", T((0, 0), "float32")),
        C("empty-batch", T((0, 3, 3), "float64")),
        C("1x1", T((1, 1), "float64", values=(2.5,))),
    ]
    return cs + _errors()


def inv_cases(op: dict) -> list:
    return square_cases(op) + [C("singular", T((3, 3), "float64", values=SING)),
                               C("singular-batch", T((2, 3, 3), "float64", values=SPD3 + SING))]


def det_cases(op: dict) -> list:
    return square_cases(op) + [C("neg", T((3, 3), "float64", values=(0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0))),
                               C("singular", T((3, 3), "float64", values=SING))]


def solve_cases(op: dict) -> list:
    A3, A4 = T((3, 3), "float64", values=SPD3), T((4, 4), "float64", values=GEN4)
    return [
        C("matrix", A4, T((4, 2), "float64")),
        C("float32", T((4, 4), "float32", values=GEN4), T((4, 2), "float32")),
        C("vector", A3, T((3,), "float64")),
        C("batched-vector", T((2, 3, 3), "float64", values=SPD3 + SPD3[::-1]), T((2, 3), "float64")),
        C("broadcast", A3, T((2, 3, 2), "float64")),
        C("broadcast-A", T((2, 3, 3), "float64", values=SPD3 + SPD3[::-1]), T((3, 2), "float64")),
        C("left-false", A4, T((2, 4), "float64"), left=False),
        C("t", T((4, 4), "float64", values=GEN4, view="t"), T((4, 3), "float64", view="t")),
        C("mismatch", A3, T((4, 2), "float64")),
        C("dtype-mismatch", A3, T((3, 2), "float32")),
        C("singular", T((3, 3), "float64", values=SING), T((3, 1), "float64")),
        C("nonsquare", T((3, 2), "float64"), T((3, 1), "float64")),
        C("int64", T((3, 3), "int64"), T((3, 1), "int64")),
    ]


def cholesky_cases(op: dict) -> list:
    cs = [C(dt, T((3, 3), dt, values=SPD3)) for dt in ("float32", "float64")]
    cs += [
        C("upper", T((3, 3), "float64", values=SPD3), upper=True),
        C("batched", T((2, 3, 3), "float64", values=SPD3)),
        C("not-pd", T((3, 3), "float64", values=NOT_PD)),
        C("not-pd-batch", T((2, 3, 3), "float64", values=SPD3 + NOT_PD)),
        C("empty", T((0, 0), "float64")),
    ]
    return cs + _errors()


def eigh_cases(op: dict) -> list:
    cs = [C(dt, T((3, 3), dt, values=SPD3), meta=True) for dt in ("float32", "float64")]
    cs += [
        C("upper", T((3, 3), "float64", values=SPD3), "U", meta=True),
        C("batched", T((2, 3, 3), "float64", values=SPD3), meta=True),
        C("bad-uplo", T((3, 3), "float64", values=SPD3), "X", meta=True),
        C("empty", T((0, 0), "float64"), meta=True),
    ]
    return cs + [C(c.id, *c.args, meta=True) for c in _errors()]


def eigvalsh_cases(op: dict) -> list:
    # eigenvalues alone are unique (ascending): compared by value
    return [C(c.id, *c.args) for c in eigh_cases(op)]


def eig_cases(op: dict) -> list:
    # eigenvectors are unique up to phase and LAPACK builds may order eigenvalues differently:
    # meta cases here, values and gradients in test_linalg_eig.py
    cs = [C(dt, T((3, 3), dt, values=GEN4[:9]), meta=True) for dt in ("float32", "float64")]
    cs += [
        C("general4", T((4, 4), "float64", values=GEN4), meta=True),
        C("batched", T((2, 3, 3), "float64", values=SPD3), meta=True),
        C("empty", T((0, 0), "float64"), meta=True),
        C("empty-batch", T((0, 3, 3), "float32"), meta=True),
    ]
    return cs + [C(c.id, *c.args, meta=True) for c in _errors()]


def svd_cases(op: dict) -> list:
    cs = []
    for shape in ((3, 4), (4, 3), (2, 3, 4), (3, 3)):
        for full in (True, False):
            cs.append(C(f"{'x'.join(map(str, shape))}-{full}", T(shape, "float64"), full, meta=True))
    cs += [C("float32", T((3, 4), "float32"), meta=True), C("empty", T((0, 3), "float64"), meta=True),
           C("int64", T((3, 3), "int64"), meta=True), C("1d", T((3,), "float64"), meta=True)]
    return cs


def svdvals_cases(op: dict) -> list:
    return [
        C("float32", T((3, 4), "float32", values=WIDE)),
        C("float64", T((3, 4), "float64", values=WIDE)),
        C("tall", T((4, 3), "float64", values=WIDE, view="t")),
        C("batched", T((2, 3, 4), "float64", values=WIDE + WIDE[::-1])),
        C("square", T((4, 4), "float64", values=GEN4)),
        C("empty", T((0, 3), "float64")),
        C("int64", T((3, 3), "int64")),
        C("1d", T((3,), "float64")),
    ]


def qr_cases(op: dict) -> list:
    cs = []
    for shape in ((4, 3), (3, 4), (2, 4, 3), (3, 3)):
        for mode in ("reduced", "complete", "r"):
            cs.append(C(f"{'x'.join(map(str, shape))}-{mode}", T(shape, "float64"), mode, meta=True))
    cs += [C("float32", T((4, 3), "float32"), meta=True), C("bad-mode", T((3, 3), "float64"), "x", meta=True),
           C("int64", T((3, 3), "int64"), meta=True), C("empty", T((0, 3), "float64"), meta=True)]
    return cs


def lu_factor_cases(op: dict) -> list:
    """linalg.lu_factor_ex (both libraries call getrf: the same pivots and info)."""
    return square_cases(op)[:-3] + [
        C("wide", T((3, 4), "float64", values=WIDE)),
        C("tall", T((4, 3), "float32", values=WIDE, view="t")),
        C("singular", T((3, 3), "float64", values=SING)),
        C("empty", T((0, 3), "float64")),
        C("1d", T((3,), "float32")),
        C("int64", T((3, 3), "int64")),
        C("float16", T((3, 3), "float16", values=SPD3)),
    ]


PIV = (2, 2, 3)  # a valid getrf pivot sequence (rows 1 and 2 swapped)


def lu_solve_cases(op: dict) -> list:
    """linalg.lu_solve(LU, pivots, B) on a packed factor (any well-conditioned matrix serves)."""
    lu, piv = T((3, 3), "float64", values=SPD3), T((3,), "int32", values=PIV)
    return [
        C("float64", lu, piv, T((3, 2), "float64")),
        C("float32", T((3, 3), "float32", values=SPD3), piv, T((3, 2), "float32")),
        C("batched", T((2, 3, 3), "float64", values=SPD3 + SPD3[::-1]), T((2, 3), "int32", values=PIV + (1, 2, 3)),
          T((2, 3, 1), "float64")),
        C("broadcast", lu, piv, T((2, 3, 2), "float64")),
        C("pivots-int64", lu, T((3,), "int64", values=PIV), T((3, 2), "float64")),
        C("dtype", lu, piv, T((3, 2), "float32")),
        C("shape", lu, piv, T((2, 2), "float64")),
        C("b-1d", lu, piv, T((3,), "float64")),
    ]


def solve_triangular_cases(op: dict) -> list:
    """linalg.solve_triangular: the triangle asked for is read (SPD3 and GEN4 are full matrices)."""
    a, b = T((3, 3), "float64", values=SPD3), T((3, 2), "float64")
    return [
        C("upper", a, b, upper=True),
        C("lower-unit", a, b, upper=False, unitriangular=True),
        C("right", a, T((2, 3), "float64"), upper=True, left=False),
        C("float32-t", T((4, 4), "float32", values=GEN4, view="t"), T((4, 1), "float32"), upper=False),
        C("broadcast", T((2, 3, 3), "float64", values=SPD3 + SPD3[::-1]), b, upper=True),
        C("b-float32", a, T((3, 2), "float32"), upper=True),
        C("shape", a, T((2, 2), "float64"), upper=True),
        C("int64", T((3, 3), "int64"), T((3, 2), "int64"), upper=True),
        C("float16", T((3, 3), "float16", values=SPD3), T((3, 2), "float16"), upper=True),
        C("empty", T((0, 0), "float64"), T((0, 2), "float64"), upper=True),
    ]


def ldl_cases(op: dict) -> list:
    """linalg.ldl_factor_ex (sytrf on the lower triangle in both libraries)."""
    return [c for c in square_cases(op) if c.id not in ("t", "empty-batch")] + _errors()[:3]


def ldl_solve_cases(op: dict) -> list:
    ld, piv = T((3, 3), "float64", values=SPD3), T((3,), "int32", values=(1, 2, 3))
    return [
        C("float64", ld, piv, T((3, 2), "float64")),
        C("batched", T((2, 3, 3), "float64", values=SPD3), T((2, 3), "int32", values=(1, 2, 3, 1, 2, 3)),
          T((2, 3, 2), "float64")),
        C("dtype", ld, piv, T((3, 2), "float32")),
        C("shape", ld, piv, T((2, 2), "float64")),
        C("pivots-shape", ld, T((2,), "int32", values=(1, 2)), T((3, 2), "float64")),
    ]


def internal_cases(op: dict) -> list:
    """Kernels that only back Python functions (linalg.geqrf is torch.geqrf, lu_perm has no public
    name): neither library has them under ``linalg``; test_linalg_factor.py checks them through
    their public callers."""
    return [C("absent", T((3, 3), "float64"), meta=True)]


BUILDERS = {
    "lu_factor_ex": lu_factor_cases,
    "lu_solve": lu_solve_cases,
    "ldl_factor_ex": ldl_cases,
    "ldl_solve": ldl_solve_cases,
    "solve_triangular": solve_triangular_cases,
    "geqrf": internal_cases,
    "lu_perm": internal_cases,
    "inv": inv_cases,
    "det": det_cases,
    "slogdet": lambda op: [c for c in det_cases(op) if c.id != "singular"],  # LU round-off decides
    "solve": solve_cases,
    "cholesky": cholesky_cases,
    "eigh": eigh_cases,
    "eigvalsh": eigvalsh_cases,
    "eig": eig_cases,
    "eigvals": eig_cases,
    "svd": svd_cases,
    "svdvals": svdvals_cases,
    "qr": qr_cases,
}
