"""The pre-torch.linalg names: thin wrappers over ember.linalg (lu, lu_solve, triangular_solve,
cholesky, pinverse, matrix_exp, geqrf / orgqr / ormqr), and the ones PyTorch removed (lstsq,
solve, symeig, eig, matrix_rank), which only raise as PyTorch's do."""

from __future__ import annotations

import warnings
from typing import Any

import ember
from ember._argcheck import check_names
from ember._lib import _C
from ember.linalg._common import copy_out
from ember.linalg._householder import geqrf, orgqr, ormqr
from ember.linalg._lu import lu_unpack
from ember.linalg._matrix_exp import matrix_exp

__all__ = ["cholesky", "eig", "geqrf", "lstsq", "lu", "lu_solve", "lu_unpack", "matrix_exp", "matrix_rank", "orgqr",
           "ormqr", "pinverse", "solve", "symeig", "triangular_solve"]

_lu_info_t = _C._return_type("_lu_with_info", ["LU", "pivots", "info"])
_tri_t = _C._return_type("triangular_solve", ["solution", "cloned_coefficient"])
_warned: set[str] = set()

_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def _warn_once(key: str, message: str) -> None:
    # PyTorch warns once per process for each deprecated entry point
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, UserWarning, stacklevel=3)


def lu(A: ember.Tensor, pivot: bool = True, get_infos: bool = False, out: Any = None) -> Any:
    """lu(A, pivot=True, get_infos=False, out=None) -> (Tensor, Tensor) or (Tensor, Tensor, Tensor)

    The packed LU factorisation (deprecated form of ``ember.linalg.lu_factor`` /
    ``ember.linalg.lu_factor_ex``); a singular matrix does not raise.

    Args:
        A (Tensor): ``(*, m, n)`` float32 or float64 matrices.
        pivot (bool): must be True on the CPU.
        get_infos (bool): also return LAPACK's ``info`` per matrix.
        out (tuple, optional): tensors for the results.

    Returns:
        tuple: ``(LU, pivots)``, or the named tuple ``(LU, pivots, info)`` with ``get_infos``.

    Example::

        >>> LU, pivots = ember.lu(ember.tensor([[1., 2.], [3., 4.]]))
        >>> pivots
        tensor([2, 2], dtype=torch.int32)
    """
    _warn_once("lu", "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and "
                     "will be removed in a future PyTorch release.")
    r = ember.linalg.lu_factor_ex(A, pivot=pivot)
    if get_infos:
        return copy_out(_lu_info_t((r.LU, r.pivots, r.info)), out)
    if out is not None:
        copy_out(_lu_info_t((r.LU, r.pivots, r.info)),
                 (*out, ember.empty((0,), dtype=ember.int32, device=A.device))[:3])
        return tuple(out)
    return r.LU, r.pivots


def lu_solve(b: ember.Tensor, LU_data: ember.Tensor, LU_pivots: ember.Tensor, *, out: Any = None) -> ember.Tensor:
    """lu_solve(b, LU_data, LU_pivots, *, out=None) -> Tensor

    Solves ``A X = b`` from ``ember.linalg.lu_factor(A)`` (deprecated argument order of
    ``ember.linalg.lu_solve(LU_data, LU_pivots, b)``).

    Args:
        b (Tensor): ``(*, n, k)`` right-hand sides.
        LU_data (Tensor): ``(*, n, n)`` packed factors.
        LU_pivots (Tensor): ``(*, n)`` int32 pivots.
        out (Tensor, optional): the output tensor.

    Returns:
        Tensor: the solution.

    Example::

        >>> LU, pivots = ember.linalg.lu_factor(ember.tensor([[3., 1.], [1., 2.]]))
        >>> ember.lu_solve(ember.tensor([[9.], [8.]]), LU, pivots)
        tensor([[2.],
                [3.]])
    """
    _warn_once("lu_solve", "torch.lu_solve is deprecated in favor of torch.linalg.lu_solve and will be removed in "
                           "a future PyTorch release. Note that torch.linalg.lu_solve has its arguments reversed.")
    return ember.linalg.lu_solve(LU_data, LU_pivots, b, out=out)


def triangular_solve(b: ember.Tensor, A: ember.Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, *, out: Any = None) -> Any:
    """triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None) -> (Tensor, Tensor)

    Solves ``A X = b`` (``A^T X = b`` with ``transpose``) for triangular ``A`` (deprecated form of
    ``ember.linalg.solve_triangular``); batch dimensions broadcast.

    Args:
        b (Tensor): ``(*, m, k)`` right-hand sides.
        A (Tensor): ``(*, m, m)`` triangular matrices.
        upper (bool): ``A`` is upper triangular.
        transpose (bool): solve with ``A^T``.
        unitriangular (bool): take ``A``'s diagonal as ones.
        out (tuple, optional): two tensors for the results.

    Returns:
        (Tensor, Tensor): a named tuple ``(solution, cloned_coefficient)``, the second a copy of ``A``.

    Example::

        >>> ember.triangular_solve(ember.tensor([[2.], [4.]]), ember.tensor([[1., 1.], [0., 2.]])).solution
        tensor([[0.],
                [2.]])
    """
    _warn_once("triangular_solve", "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular"
                                   " and will be removed in a future PyTorch release.")
    for t, nm in ((b, "b"), (A, "A")):
        if t.dim() < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected {nm} to have at least 2 dimensions, but it has "
                               f"{t.dim()} dimensions instead")
    if A.shape[-1] != A.shape[-2] or A.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is {A.shape[-2]} by "
                           f"{A.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    batch = ember.broadcast_shapes(tuple(A.shape[:-2]), tuple(b.shape[:-2]))
    Ab = A.expand(*batch, *A.shape[-2:])
    M = Ab.mT if transpose else Ab
    X = ember.linalg.solve_triangular(M, b.expand(*batch, *b.shape[-2:]), upper=upper != transpose,
                                      unitriangular=unitriangular)
    return copy_out(_tri_t((X, Ab.clone())), out)


def cholesky(input: ember.Tensor, upper: bool = False, *, out: Any = None) -> ember.Tensor:
    """cholesky(input, upper=False, *, out=None) -> Tensor

    The Cholesky factor of symmetric positive-definite matrices (deprecated form of
    ``ember.linalg.cholesky``): lower ``L`` with ``A = L L^T``, or upper ``U = L^T``.

    Args:
        input (Tensor): ``(*, n, n)`` symmetric positive-definite matrices.
        upper (bool): return the upper factor.
        out (Tensor, optional): the output tensor.

    Returns:
        Tensor: the factor.

    Example::

        >>> ember.cholesky(ember.tensor([[4., 2.], [2., 2.]]))
        tensor([[2., 0.],
                [1., 1.]])
    """
    _warn_once("cholesky", "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
                           "future PyTorch release.")
    return copy_out(ember.linalg.cholesky(input, upper=upper), out)


def pinverse(input: ember.Tensor, rcond: float = 1e-15) -> ember.Tensor:
    """pinverse(input, rcond=1e-15) -> Tensor

    The Moore-Penrose pseudo-inverse (``ember.linalg.pinv`` with ``rtol=rcond``): singular values
    below ``rcond`` times the largest count as zero.

    Args:
        input (Tensor): ``(*, m, n)`` matrices.
        rcond (float): the relative cut-off.

    Returns:
        Tensor: ``(*, n, m)`` pseudo-inverses.

    Example::

        >>> ember.pinverse(ember.tensor([[2., 0.], [0., 0.]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.0000]])
    """
    return ember.linalg.pinv(input, rtol=rcond)


def lstsq(input: ember.Tensor, A: ember.Tensor, *, out: Any = None) -> Any:
    """lstsq(input, A, *, out=None)

    Removed in PyTorch 1.9: always raises RuntimeError; use ``ember.linalg.lstsq(A, input)``.

    Args:
        input (Tensor): right-hand sides.
        A (Tensor): the matrix.
        out (tuple, optional): unused.

    Returns:
        Never returns.

    Example::

        >>> ember.lstsq(ember.eye(2), ember.eye(2))
        Traceback (most recent call last):
        RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise RuntimeError(f"{_REMOVED} `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
                       "`torch.linalg.lstsq` takes its arguments in the other order (A, B) and returns the "
                       "solution in the field 'solution' and the residuals in 'residuals'; for a QR "
                       "decomposition use `torch.linalg.qr`.")


def solve(input: ember.Tensor, A: ember.Tensor, *, out: Any = None) -> Any:
    """solve(input, A, *, out=None)

    Removed in PyTorch 1.9: always raises RuntimeError; use ``ember.linalg.solve(A, input)``.

    Args:
        input (Tensor): right-hand sides.
        A (Tensor): the matrix.
        out (tuple, optional): unused.

    Returns:
        Never returns.

    Example::

        >>> ember.solve(ember.eye(2), ember.eye(2))
        Traceback (most recent call last):
        RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise RuntimeError(f"{_REMOVED} `torch.solve` is deprecated in favor of `torch.linalg.solve`. "
                       "`torch.linalg.solve` takes its arguments in the other order (A, B) and returns only the "
                       "solution; for the LU factorization use `torch.linalg.lu_factor` with `torch.linalg.lu_solve`.")


def symeig(input: ember.Tensor, eigenvectors: bool = False, upper: bool = True, *, out: Any = None) -> Any:
    """symeig(input, eigenvectors=False, upper=True, *, out=None)

    Removed in PyTorch 1.9: always raises RuntimeError; use ``ember.linalg.eigvalsh`` or
    ``ember.linalg.eigh`` (which read the lower triangle by default).

    Args:
        input (Tensor): symmetric matrices.
        eigenvectors (bool): unused.
        upper (bool): unused.
        out (tuple, optional): unused.

    Returns:
        Never returns.

    Example::

        >>> ember.symeig(ember.eye(2))
        Traceback (most recent call last):
        RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise RuntimeError(f"{_REMOVED} The default behavior has changed from using the upper triangular portion of "
                       "the matrix by default to using the lower triangular portion.\n\nUse "
                       "`torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')` for the eigenvalues and "
                       "`torch.linalg.eigh(A, UPLO='U' if upper else 'L')` for eigenvalues and eigenvectors.")


def eig(input: ember.Tensor, eigenvectors: bool = False, *, e: Any = None, v: Any = None) -> Any:
    """eig(input, eigenvectors=False, *, e=None, v=None)

    Removed in PyTorch 1.9: always raises RuntimeError (``torch.linalg.eig`` returns complex
    tensors).

    Args:
        input (Tensor): square matrices.
        eigenvectors (bool): unused.
        e (Tensor, optional): unused.
        v (Tensor, optional): unused.

    Returns:
        Never returns.

    Example::

        >>> ember.eig(ember.eye(2))
        Traceback (most recent call last):
        RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise RuntimeError(f"{_REMOVED} `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` "
                       "rather than real tensors mimicking complex tensors.\n\nUse `torch.linalg.eigvals(A)` for "
                       "the eigenvalues and `torch.linalg.eig(A)` for eigenvalues and eigenvectors.")


def matrix_rank(input: ember.Tensor, tol: Any = None, symmetric: bool = False, *, out: Any = None) -> Any:
    """matrix_rank(input, tol=None, symmetric=False, *, out=None)

    Removed in PyTorch 1.9: always raises RuntimeError; use ``ember.linalg.matrix_rank``.

    Args:
        input (Tensor): matrices.
        tol (float, optional): unused.
        symmetric (bool): unused.
        out (Tensor, optional): unused.

    Returns:
        Never returns.

    Example::

        >>> ember.matrix_rank(ember.eye(2))
        Traceback (most recent call last):
        RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise RuntimeError(f"{_REMOVED}\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter "
                       "'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'.")


# PyTorch's TypeErrors for wrong-typed arguments where PyTorch's own function is a C one (the removed
# names and torch.lu are Python functions there, raising before any type check)
check_names(globals(), ["cholesky", "geqrf", "lu_solve", "lu_unpack", "matrix_exp", "orgqr", "ormqr", "pinverse",
                        "triangular_solve"])
