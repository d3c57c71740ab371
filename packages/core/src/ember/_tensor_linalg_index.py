"""Tensor methods defined in Python over functions that live elsewhere: the linear
algebra shortcuts (``x.det()``, ``x.inverse()``...), ``nonzero(as_tuple=)``, ``unique`` and
``unique_consecutive``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ember._argcheck import checked
from ember._lib import _C
from ember._unique import UniqueMethods

if TYPE_CHECKING:
    from ember._tensor import Tensor


@checked  # as_tuple must be a bool (PyTorch's parser); the method below shares the check
def nonzero(input: Tensor, *, out: Any = None, as_tuple: bool = False) -> Any:
    """Indices of the non-zero elements; with ``as_tuple``, one index tensor per dimension."""
    if not as_tuple:
        return _C.nonzero(input, out=out) if out is not None else _C.nonzero(input)
    if out is not None:
        raise RuntimeError("nonzero(): as_tuple=True does not support out=")
    # A 0-d input counts as 1-d (PyTorch's nonzero_numpy): one index tensor, [0] when it is non-zero.
    return _C.nonzero(input.unsqueeze(0) if input.dim() == 0 else input).unbind(1)


class ExtraMethods:
    """Mixed into ``ember.Tensor``."""

    __slots__ = ()

    def nonzero(self, *, as_tuple: bool = False) -> Any:
        """Method form of ``ember.nonzero``, with this tensor as its input; see there."""
        return nonzero(self, as_tuple=as_tuple)

    def det(self) -> Any:
        """Method form of ``ember.det``, with this tensor as its input; see there."""
        import ember

        return ember.det(self)

    def logdet(self) -> Any:
        """Method form of ``ember.logdet``, with this tensor as its input; see there."""
        import ember

        return ember.logdet(self)

    def slogdet(self) -> Any:
        """Method form of ``ember.slogdet``, with this tensor as its input; see there."""
        import ember

        return ember.slogdet(self)

    def inverse(self) -> Any:
        """Method form of ``ember.inverse``, with this tensor as its input; see there."""
        import ember

        return ember.inverse(self)

    def cholesky(self, upper: bool = False) -> Any:
        """Method form of ``ember.linalg.cholesky``, with this tensor as its input; see there."""
        import ember

        return ember.linalg.cholesky(self, upper=upper)

    def trace(self) -> Any:
        """Method form of ``ember.trace``, with this tensor as its input; see there."""
        import ember

        return ember.trace(self)

    def cross(self, other: Any, dim: Any = None) -> Any:
        """Method form of ``ember.cross``, with this tensor as its input; see there."""
        import ember

        return ember.cross(self, other, dim)

    def kron(self, other: Any) -> Any:
        """Method form of ``ember.kron``, with this tensor as its input; see there."""
        import ember

        return ember.kron(self, other)

    def matrix_power(self, n: int) -> Any:
        """Method form of ``ember.matrix_power``, with this tensor as its input; see there."""
        import ember

        return ember.matrix_power(self, n)

    def svd(self, some: bool = True, compute_uv: bool = True) -> Any:
        """Method form of ``ember.svd``, with this tensor as its input; see there."""
        import ember

        return ember.svd(self, some, compute_uv)

    def qr(self, some: bool = True) -> Any:
        """Method form of ``ember.qr``, with this tensor as its input; see there."""
        import ember

        return ember.qr(self, some)

    def pinverse(self, rcond: float = 1e-15) -> Any:
        """The pseudo-inverse of the matrix (``ember.linalg.pinv`` with ``rtol=rcond``): singular values
        below ``rcond`` times the largest count as zero."""
        import ember

        return ember.linalg.pinv(self, rtol=rcond)

    def lu(self, pivot: bool = True, get_infos: bool = False) -> Any:
        """Method form of ``ember.lu``, with this tensor as its input; see there."""
        import ember

        return ember.lu(self, pivot, get_infos)

    def lu_solve(self, LU_data: Any, LU_pivots: Any) -> Any:
        """Method form of ``ember.lu_solve``, with this tensor as ``b``; see there."""
        import ember

        return ember.lu_solve(self, LU_data, LU_pivots)

    def matrix_exp(self) -> Any:
        """Method form of ``ember.linalg.matrix_exp``, with this tensor as its input; see there."""
        import ember

        return ember.linalg.matrix_exp(self)

    def geqrf(self) -> Any:
        """Method form of ``ember.geqrf``, with this tensor as its input; see there."""
        import ember

        return ember.geqrf(self)

    def orgqr(self, input2: Any) -> Any:
        """Method form of ``ember.orgqr``, with this tensor as its input and ``input2`` as tau; see there."""
        import ember

        return ember.orgqr(self, input2)

    def ormqr(self, input2: Any, input3: Any, left: bool = True, transpose: bool = False) -> Any:
        """Method form of ``ember.ormqr`` (tau ``input2``, other ``input3``); see there."""
        import ember

        return ember.ormqr(self, input2, input3, left, transpose)

    def triangular_solve(self, A: Any, upper: bool = True, transpose: bool = False,
                         unitriangular: bool = False) -> Any:
        """Method form of ``ember.triangular_solve``, with this tensor as ``b``; see there."""
        import ember

        return ember.triangular_solve(self, A, upper, transpose, unitriangular)

    def lstsq(self, A: Any) -> Any:
        """Removed in PyTorch 1.9, as ``ember.lstsq``: always raises RuntimeError."""
        import ember

        return ember.lstsq(self, A)

    def solve(self, A: Any) -> Any:
        """Removed in PyTorch 1.9, as ``ember.solve``: always raises RuntimeError."""
        import ember

        return ember.solve(self, A)

    def symeig(self, eigenvectors: bool = False, upper: bool = True) -> Any:
        """Removed in PyTorch 1.9, as ``ember.symeig``: always raises RuntimeError."""
        import ember

        return ember.symeig(self, eigenvectors, upper)

    def eig(self, eigenvectors: bool = False) -> Any:
        """Removed in PyTorch 1.9, as ``ember.eig``: always raises RuntimeError."""
        import ember

        return ember.eig(self, eigenvectors)


# Tensor.unique / unique_consecutive: Python over the _VF ops, as PyTorch's (ember/_unique.py).
for _name in ("unique", "unique_consecutive"):
    setattr(ExtraMethods, _name, getattr(UniqueMethods, _name))
