"""ember.linalg: torch.linalg. LAPACK-backed kernels come from the C++ core (ops/linalg.yaml);
the functions built from them (norms, pinv, lstsq, ...) live in the sibling modules."""

from __future__ import annotations

from ember._argcheck import check_names
from ember._lib import _C
from ember._out import exact_out
from ember.linalg._composed import cond, diagonal, matmul, solve_triangular, vander
from ember.linalg._decomp import (
    cholesky_ex,
    eigh,
    eigvalsh,
    inv_ex,
    lstsq,
    matrix_rank,
    pinv,
    qr,
    slogdet,
    solve_ex,
    svd,
)
from ember.linalg._eig import eig, eigvals
from ember.linalg._householder import householder_product
from ember.linalg._ldl import ldl_factor, ldl_factor_ex, ldl_solve
from ember.linalg._lu import lu, lu_factor, lu_factor_ex, lu_solve
from ember.linalg._matrix_exp import matrix_exp
from ember.linalg._norms import matrix_norm, norm
from ember.linalg._products import cross, matrix_power, multi_dot, vecdot
from ember.linalg._tensor_ops import tensorinv, tensorsolve

LinAlgError = _C._LinAlgError

# The kernels bound from C++, with aten's out= (named as the aten op that refuses autograd)
vector_norm = exact_out(_C._linalg_vector_norm, "vector_norm", "linalg_vector_norm")
inv = exact_out(_C._linalg_inv, "inv", "linalg_inv_ex")
det = exact_out(_C._linalg_det, "det", "_linalg_det")
solve = exact_out(_C._linalg_solve, "solve", "_linalg_solve_ex")
cholesky = exact_out(_C._linalg_cholesky, "cholesky", "linalg_cholesky_ex")
svdvals = exact_out(_C._linalg_svdvals, "svdvals", "_linalg_svd")

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
    "householder_product", "inv", "inv_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve", "lstsq", "lu", "lu_factor",
    "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot",
    "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv",
    "tensorsolve", "vander", "vecdot", "vector_norm",
]

# PyTorch's TypeErrors for a wrong-typed Tensor or flag argument (named as its C++ ops)
_NEW = ("householder_product", "ldl_factor", "ldl_factor_ex", "ldl_solve", "lu", "lu_factor", "lu_factor_ex",
        "lu_solve", "matrix_exp", "solve_triangular", "tensorinv", "tensorsolve")
check_names(globals(), _NEW, {n: f"linalg_{n}" for n in _NEW})

# __torch_function__ for the Python-level functions above (ember/_torch_function.py)
from ember._torch_function import make_dispatchable as _make_dispatchable  # noqa: E402

_make_dispatchable(globals())
