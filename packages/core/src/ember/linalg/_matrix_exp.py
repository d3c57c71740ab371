"""torch.linalg.matrix_exp by scaling and squaring (Higham 2005): each matrix is scaled by 2^-s
so that its 1-norm is below the bound of a diagonal Pade approximant of degree m, the
approximant r_m = (V - U)^-1 (V + U) is evaluated, and the result squared s times. The degree is
the smallest whose bound covers the batch's largest norm (float32 tops out at m = 7, float64 at
13); s is chosen per matrix. The gradient is the Frechet derivative read off the exponential of
the block matrix [[A^T, G], [0, A^T]] (its top right block)."""

from __future__ import annotations

from typing import Any

import ember
from ember.autograd.function import Function
from ember.linalg._common import check_square

# Pade coefficients b_0..b_m of exp for the degrees used, and the largest 1-norm each degree
# handles to unit roundoff (Higham 2005, tables 2.3 / 4.1 for double, its single-precision table).
_PADE = {
    3: (120.0, 60.0, 12.0, 1.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
    9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0,
        90.0, 1.0),
    13: (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
         129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0,
         960960.0, 16380.0, 182.0, 1.0),
}
_THETA = {
    ember.float64: ((3, 1.495585217958292e-2), (5, 2.539398330063230e-1), (7, 9.504178996162932e-1),
                    (9, 2.097847961257068e0), (13, 5.371920351148152e0)),
    ember.float32: ((3, 4.258730016922831e-1), (5, 1.880152677804762e0), (7, 3.925724783138660e0)),
}


# A complex matrix takes the bounds of its real type.
_REAL = {ember.complex64: ember.float32, ember.complex128: ember.float64}


def _pade(A: ember.Tensor, m: int) -> ember.Tensor:
    """r_m(A) = (V - U)^-1 (V + U), U the odd and V the even part of the numerator."""
    b = _PADE[m]
    eye = ember.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    A2 = A.matmul(A)
    if m == 13:  # Higham's evaluation with A^2, A^4, A^6: six matrix products
        A4 = A2.matmul(A2)
        A6 = A4.matmul(A2)
        U = A.matmul(A6.matmul(b[13] * A6 + b[11] * A4 + b[9] * A2) + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * eye)
        V = A6.matmul(b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * eye
    else:
        powers = [eye, A2]
        for _ in range(2, m // 2 + 1):
            powers.append(powers[-1].matmul(A2))
        U = A.matmul(sum((b[2 * j + 1] * powers[j] for j in range(m // 2 + 1)), ember.zeros_like(A)))
        V = sum((b[2 * j] * powers[j] for j in range(m // 2 + 1)), ember.zeros_like(A))
    return ember.linalg.solve(V - U, V + U)


def _expm(A: ember.Tensor) -> ember.Tensor:
    """exp of every matrix in A (float32 or float64, not differentiated here)."""
    thetas = _THETA[_REAL.get(A.dtype, A.dtype)]
    norm = A.abs().sum(-2).amax(-1)  # 1-norm per matrix
    finite = ember.isfinite(norm)
    biggest = float(ember.where(finite, norm, 0.0).max())
    for m, theta in thetas:
        if biggest <= theta:
            return _pade(A, m)
    m, theta = thetas[-1]
    s = ember.ceil(ember.log2(ember.where(finite, norm, 0.0) / theta)).clamp(min=0)
    X = _pade(A * (2.0 ** (-s)).to(A.dtype)[..., None, None], m)
    keep = s[..., None, None]
    for j in range(int(s.max())):
        sq = X.matmul(X)
        X = ember.where(keep > j, sq, X) if A.dim() > 2 else sq
    return X


class _MatrixExp(Function):
    @staticmethod
    def forward(ctx: Any, A: ember.Tensor) -> ember.Tensor:
        ctx.save_for_backward(A)
        return _expm(A)

    @staticmethod
    def backward(ctx: Any, g: ember.Tensor) -> ember.Tensor:
        (A,) = ctx.saved_tensors
        n = A.shape[-1]
        At = A.mH  # the Frechet derivative's adjoint: A^H for a complex A
        big = ember.cat([ember.cat([At, g], -1), ember.cat([ember.zeros_like(g), At], -1)], -2)
        return matrix_exp(big)[..., :n, n:]


# grad_fn named as PyTorch's node
_MatrixExp._backward_cls.__name__ = _MatrixExp._backward_cls.__qualname__ = "LinalgMatrixExpBackward0"


def matrix_exp(A: ember.Tensor) -> ember.Tensor:
    """matrix_exp(A) -> Tensor

    The matrix exponential ``exp(A) = sum_k A^k / k!`` of a square matrix, or of each matrix in a
    batch, by scaling and squaring with a Pade approximant; differentiable (also twice).

    Args:
        A (Tensor): ``(*, n, n)`` floating matrices (half types are computed in float32).

    Returns:
        Tensor: ``exp(A)``, of ``A``'s shape and dtype.

    Example::

        >>> ember.linalg.matrix_exp(ember.tensor([[0., 1.], [-1., 0.]]))
        tensor([[ 0.5403,  0.8415],
                [-0.8415,  0.5403]])
    """
    check_square(A, "linalg.matrix_exp")
    if A.numel() == 0:
        return A.clone()
    if A.shape[-1] == 1:
        return ember.exp(A)
    if A.dtype not in (ember.float32, ember.float64, ember.complex64, ember.complex128):
        return matrix_exp(A.to(ember.float32)).to(A.dtype)
    if A.requires_grad and ember.is_grad_enabled():
        return _MatrixExp.apply(A)
    return _expm(A)

