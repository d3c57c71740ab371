"""Top-level linear-algebra functions (torch.kron, trace, det, logdet, ...), composed from
ember.linalg and differentiable tensor ops."""

from __future__ import annotations

import math
import warnings
from typing import Any

import ember
from ember._autocast_policy import autocast_op
from ember._lib import _C
from ember._out import cast, castable, refuse_grad, takes_out, write

# ember.linalg is imported on first call, keeping `import ember` light.
_slogdet_t = _C._return_type("slogdet", ["sign", "logabsdet"])  # structseqs: built from one tuple
_svd_t = _C._return_type("svd", ["U", "S", "V"])
_qr_t = _C._return_type("qr", ["Q", "R"])


@takes_out(cast, grad="mul")
def kron(input: ember.Tensor, other: ember.Tensor, *, out: Any = None) -> ember.Tensor:
    """Kronecker product: blocks input[i, j] * other (shapes padded to the same rank)."""
    nd = max(input.dim(), other.dim())
    sa = [1] * (nd - input.dim()) + list(input.shape)
    sb = [1] * (nd - other.dim()) + list(other.shape)
    a = input.reshape([x for s in sa for x in (s, 1)])
    b = other.reshape([x for s in sb for x in (1, s)])
    # a tensor of its own, as aten's (its _unsafe_view of the fresh product)
    return _C._unsafe_view(a * b, [x * y for x, y in zip(sa, sb, strict=True)])


@autocast_op("fp32", cuda=None)  # on the CPU list only
def trace(input: ember.Tensor) -> ember.Tensor:
    """Sum of the main diagonal of a matrix."""
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    if input.dtype == ember.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    # the diagonal view only: a NaN or inf off the diagonal must not reach the sum (x * eye would be NaN)
    return input.diagonal().sum()


@autocast_op("fp32", cuda=None)  # on the CPU list only
@takes_out(grad="linalg_inv_ex")
def inverse(input: ember.Tensor, *, out: Any = None) -> ember.Tensor:
    """The inverse of a square matrix, or of each matrix in a batch (``ember.linalg.inv`` under its
    older name).

    Args:
        input (Tensor): ``(*, n, n)`` invertible matrices.

    Returns:
        Tensor: the inverses, of ``input``'s shape.

    Example::

        >>> ember.inverse(ember.tensor([[2., 0.], [0., 4.]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    return ember.linalg.inv(input)


def det(input: ember.Tensor) -> ember.Tensor:
    """The determinant of a square matrix, or of each matrix in a batch (as ``ember.linalg.det``).

    Args:
        input (Tensor): ``(*, n, n)`` matrices.

    Returns:
        Tensor: one determinant per matrix, of shape ``(*)``.

    Example::

        >>> ember.det(ember.tensor([[1., 2.], [3., 4.]]))
        tensor(-2.0000)
    """
    return ember.linalg.det(input)


def slogdet(input: ember.Tensor) -> Any:
    """The sign and the log of the absolute value of the determinant, which stay finite where the
    determinant itself would overflow or underflow (as ``ember.linalg.slogdet``).

    Args:
        input (Tensor): ``(*, n, n)`` matrices.

    Returns:
        A named tuple ``(sign, logabsdet)`` of two tensors of shape ``(*)``.

    Example::

        >>> ember.slogdet(ember.tensor([[1., 2.], [3., 4.]]))
        torch.return_types.slogdet(
        sign=tensor(-1.),
        logabsdet=tensor(0.6931))
    """
    sign, lad = ember.linalg.slogdet(input)
    return _slogdet_t((sign, lad))


def logdet(input: ember.Tensor) -> ember.Tensor:
    """log(det(A)): NaN for a negative determinant, -inf for a singular matrix."""
    sign, lad = ember.linalg.slogdet(input)
    if sign.is_complex():  # log(sign) + log|det| (aten's complex form)
        return ember.log(sign) + lad
    return ember.where(sign < 0, math.nan, lad)


def cross(input: ember.Tensor, other: ember.Tensor, dim: int | None = None, *, out: Any = None) -> ember.Tensor:
    """torch.cross: dim=None picks the first dim of size 3 (deprecated in PyTorch, which warns)."""
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the "
                      "dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to "
                      "agree with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        shape = ember.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return ember.linalg.cross(input, other, dim=dim, out=out)


@autocast_op("fp32", cuda=None)  # on the CPU list only
@takes_out(castable("cholesky_solve"), grad="cholesky_solve")
def cholesky_solve(B: ember.Tensor, L: ember.Tensor, upper: bool = False, *, out: Any = None) -> ember.Tensor:
    """Solve A X = B given A's Cholesky factor (lower L, or upper U with A = U^H U)."""
    lower = L.mH if upper else L
    return ember.linalg.solve(lower.mH, ember.linalg.solve(lower, B))


@autocast_op("fp32", cuda=None)  # on the CPU list only
@takes_out(castable("cholesky_inverse"), grad="cholesky_inverse")
def cholesky_inverse(L: ember.Tensor, upper: bool = False, *, out: Any = None) -> ember.Tensor:
    """A^{-1} from A's Cholesky factor."""
    n = L.shape[-1]
    eye = ember.eye(n, dtype=L.dtype, device=L.device).expand(tuple(L.shape))
    return cholesky_solve(eye, L, upper)


def matrix_power(input: ember.Tensor, n: int, *, out: Any = None) -> ember.Tensor:
    """The ``n``-th power of a square matrix by repeated multiplication; ``n = 0`` gives the identity
    and a negative ``n`` a power of the inverse (as ``ember.linalg.matrix_power``).

    Args:
        input (Tensor): ``(*, m, m)`` matrices.
        n (int): the exponent.

    Returns:
        Tensor: the powers, of ``input``'s shape.

    Example::

        >>> ember.matrix_power(ember.tensor([[1, 1], [0, 1]]), 3)
        tensor([[1, 3],
                [0, 1]])
    """
    return ember.linalg.matrix_power(input, n, out=out)


def chain_matmul(*matrices: ember.Tensor, out: Any = None) -> ember.Tensor:
    """The product of a chain of matrices, multiplied in the order that needs the fewest scalar
    operations (as ``ember.linalg.multi_dot``, which replaces it).

    Args:
        *matrices (Tensor): 2-D tensors whose inner sizes match.
        out (Tensor, optional): the tensor the product is written into.

    Returns:
        Tensor: the product.

    Example::

        >>> a = ember.ones(2, 3)
        >>> ember.chain_matmul(a, a.T, a)
        tensor([[6., 6., 6.],
                [6., 6., 6.]])
    """
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                  "parameters.", UserWarning, stacklevel=2)
    if out is not None:
        refuse_grad("mm", *matrices)  # aten's chain of mm_out calls
    if len(matrices) == 1:
        return write(matrices[0].clone(), out)
    return ember.linalg.multi_dot(matrices, out=out)


@takes_out(grad="_linalg_svd")
def svd(input: ember.Tensor, some: bool = True, compute_uv: bool = True, *, out: Any = None) -> Any:
    """The older SVD: (U, S, V) with V = Vh^H; without compute_uv, U and V are zero-filled and full."""
    if not compute_uv:
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        S = ember.linalg.svdvals(input)
        return _svd_t((ember.zeros(batch + (m, m), dtype=input.dtype, device=input.device), S,
                       ember.zeros(batch + (n, n), dtype=input.dtype, device=input.device)))
    U, S, Vh = ember.linalg.svd(input, full_matrices=not some)
    return _svd_t((U, S, Vh.mH))


@takes_out(grad="linalg_qr")
def qr(input: ember.Tensor, some: bool = True, *, out: Any = None) -> Any:
    """The older QR: linalg.qr with mode 'reduced' (some=True) or 'complete'."""
    warnings.warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
                  "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
                  "Q, R = torch.qr(A, some)\nshould be replaced with\n"
                  "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')", UserWarning, stacklevel=3)
    Q, R = ember.linalg.qr(input, "reduced" if some else "complete")
    return _qr_t((Q, R))
