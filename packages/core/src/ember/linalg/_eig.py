"""torch.linalg.eig / eigvals: the geev kernels (ops/linalg.yaml), the named tuple and out=."""

from __future__ import annotations

from typing import Any

import ember
from ember._lib import _C
from ember._out import castable, check_tuple, refuse_grad, write
from ember.linalg._common import return_type

_eig_t = return_type("linalg_eig", ["eigenvalues", "eigenvectors"])


def eig(A: ember.Tensor, *, out: Any = None) -> Any:
    """eig(A, *, out=None) -> (Tensor, Tensor)

    Eigenvalues and unit right eigenvectors of a general square matrix (batches too), complex
    even for a real ``A`` (LAPACK's geev). Differentiable where the loss does not depend on
    each eigenvector's phase.
    """
    if out is not None:  # out= checked before the kernel runs, as aten's
        check_tuple(out, 2)
        refuse_grad("linalg_eig", A)
        write(_eig_t(*_C._linalg_eig(A)), out, [castable("torch.linalg.eig", "eigenvalues"),
                                                castable("torch.linalg.eig", "eigenvectors")])
        return _eig_t(out[0], out[1])
    return _eig_t(*_C._linalg_eig(A))


def eigvals(A: ember.Tensor, *, out: Any = None) -> ember.Tensor:
    """eigvals(A, *, out=None) -> Tensor

    Eigenvalues of a general square matrix, complex (LAPACK's geev without vectors); through
    ``eig`` when a gradient is needed, as PyTorch.
    """
    if out is not None:
        refuse_grad("linalg_eigvals", A)
    if isinstance(A, ember.Tensor) and A.requires_grad and ember.is_grad_enabled():
        L = _C._linalg_eig(A)[0]
    else:
        L = _C._linalg_eigvals(A)
    return write(L, out, castable("torch.linalg.eigvals", "eigenvalues"))
