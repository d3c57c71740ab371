"""Tensor methods defined in Python over functions that live elsewhere: the linear
algebra shortcuts (``x.det()``, ``x.inverse()``...), ``nonzero(as_tuple=)`` and the
hand-bound index methods (``index_put_``, ``unique``...)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ember._argcheck import checked
from ember._lib import _C

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
        return nonzero(self, as_tuple=as_tuple)

    def det(self) -> Any:
        import ember

        return ember.det(self)

    def logdet(self) -> Any:
        import ember

        return ember.logdet(self)

    def slogdet(self) -> Any:
        import ember

        return ember.slogdet(self)

    def inverse(self) -> Any:
        import ember

        return ember.inverse(self)

    def cholesky(self, upper: bool = False) -> Any:
        import ember

        return ember.linalg.cholesky(self, upper=upper)

    def trace(self) -> Any:
        import ember

        return ember.trace(self)

    def cross(self, other: Any, dim: Any = None) -> Any:
        import ember

        return ember.cross(self, other, dim)

    def kron(self, other: Any) -> Any:
        import ember

        return ember.kron(self, other)

    def matrix_power(self, n: int) -> Any:
        import ember

        return ember.matrix_power(self, n)

    def svd(self, some: bool = True, compute_uv: bool = True) -> Any:
        import ember

        return ember.svd(self, some, compute_uv)

    def qr(self, some: bool = True) -> Any:
        import ember

        return ember.qr(self, some)

    def pinverse(self, rcond: float = 1e-15) -> Any:
        import ember

        return ember.linalg.pinv(self, rtol=rcond)


for _name, _method in getattr(_C, "_index_methods", {}).items():
    setattr(ExtraMethods, _name, _method)
