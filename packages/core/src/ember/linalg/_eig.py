"""torch.linalg.eig / eigvals: the geev kernels (ops/linalg.yaml), the named tuple and out=."""

from __future__ import annotations

from typing import Any

import ember
from ember._lib import _C
from ember.linalg._common import return_type

_eig_t = return_type("linalg_eig", ["eigenvalues", "eigenvectors"])
_LEGACY = {"float32": "Float", "float64": "Double", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
           "float16": "Half", "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "bool": "Bool"}


def _legacy(dtype: Any) -> str:
    name = str(dtype).split(".")[-1]
    return _LEGACY.get(name, name)


def _write_out(op: str, what: str, o: Any, r: ember.Tensor) -> Any:
    # PyTorch's out= for eig: any dtype the complex result casts to safely, resized to fit
    if not _C.can_cast(r.dtype, o.dtype):
        raise RuntimeError(f"torch.linalg.{op}: Expected {what} to be safely castable from {_legacy(r.dtype)} dtype, "
                           f"but got {what} with dtype {_legacy(o.dtype)}")
    if tuple(o.shape) != tuple(r.shape):
        o.resize_(tuple(r.shape))
    o.copy_(r)
    return o


def _no_grad_out(op: str, A: ember.Tensor) -> None:
    if ember.is_grad_enabled() and A.requires_grad:
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")


def eig(A: ember.Tensor, *, out: Any = None) -> Any:
    """eig(A, *, out=None) -> (Tensor, Tensor)

    Eigenvalues and unit right eigenvectors of a general square matrix (batches too), complex
    even for a real ``A`` (LAPACK's geev). Differentiable where the loss does not depend on
    each eigenvector's phase.
    """
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            n = len(out) if isinstance(out, (tuple, list)) else 1
            raise TypeError(f"expected tuple of 2 elements but got {n}")
        _no_grad_out("linalg_eig", A)
        L, V = _C._linalg_eig(A)
        _write_out("eig", "eigenvalues", out[0], L)
        _write_out("eig", "eigenvectors", out[1], V)
        return _eig_t(out[0], out[1])
    return _eig_t(*_C._linalg_eig(A))


def eigvals(A: ember.Tensor, *, out: Any = None) -> ember.Tensor:
    """eigvals(A, *, out=None) -> Tensor

    Eigenvalues of a general square matrix, complex (LAPACK's geev without vectors); through
    ``eig`` when a gradient is needed, as PyTorch.
    """
    if out is not None:
        _no_grad_out("linalg_eigvals", A)
    if isinstance(A, ember.Tensor) and A.requires_grad and ember.is_grad_enabled():
        L = _C._linalg_eig(A)[0]
    else:
        L = _C._linalg_eigvals(A)
    if out is not None:
        return _write_out("eigvals", "eigenvalues", out, L)
    return L
