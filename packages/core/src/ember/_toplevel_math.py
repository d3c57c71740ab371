"""Top-level numeric functions PyTorch keeps beside the nn ops: logit, trapezoid, cumulative_trapezoid,
cdist and the deprecated norm entry points (frobenius_norm, nuclear_norm, native_norm), composed from
differentiable core ops."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import ember
from ember._autocast_policy import autocast_op
from ember._lib import _C
from ember._out import write
from ember._tensor import Tensor

__all__ = ["cdist", "conj_physical_", "cumulative_trapezoid", "frobenius_norm", "logit", "native_norm", "nuclear_norm",
           "trapezoid"]

_vector_norm = _C._linalg_vector_norm  # ember.linalg.vector_norm, without importing ember.linalg


def conj_physical_(input: Tensor) -> Tensor:
    """conj_physical_(input) -> Tensor

    Conjugates ``input``'s values in place and returns it (a real tensor is left as it is).
    """
    return input.conj_physical_()


def logit(input: Tensor, eps: float | None = None, *, out: Tensor | None = None) -> Tensor:
    """log(x / (1 - x)), with x clamped to [eps, 1 - eps] when eps is given (the gradient is 0 outside)."""
    x = input if input.is_floating_point() or input.is_complex() else input.to(ember.get_default_dtype())
    if eps is not None:
        x = x.clamp(eps, 1 - eps)
    quotient = x / (1 - x)
    return ember.log(quotient) if out is None else ember.log(quotient, out=out)


# ------------------------------------------------------------------------------------------
# trapezoid rule
# ------------------------------------------------------------------------------------------


def _spacing(y: Tensor, x: Tensor, dim: int, name: str) -> Tensor:
    """x's differences, shaped to broadcast against y's (NumPy's rule: broadcast after differencing)."""
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.dim()
        shape[dim] = x.shape[0]
        x = x.reshape(shape)
    elif x.dim() < y.dim():
        x = x.reshape([1] * (y.dim() - x.dim()) + list(x.shape))
    return _part(x, dim, 1, None) - _part(x, dim, 0, -1)


def _part(t: Tensor, dim: int, start: int | None, stop: int | None) -> Tensor:
    """t[start:stop] along dim (a slice: empty when there are too few elements, as aten's)."""
    return t[(slice(None),) * dim + (slice(start, stop),)]


class _NotGiven:
    """The default of trapezoid's x and dx: PyTorch's overloads take a tensor x or a number dx,
    so an explicit None for either is a TypeError, unlike leaving it out."""

    def __repr__(self) -> str:
        return "<not given>"


_NOT_GIVEN: Any = _NotGiven()


def _trapezoid_args(y: Tensor, x: Any, dx: Any, dim: int, name: str) -> tuple[int, Any]:
    if (x is not _NOT_GIVEN and dx is not _NOT_GIVEN) or x is None or dx is None:
        got = ", ".join(["Tensor"] + [f"{k}={type(v).__name__}" for k, v in (("dx", dx), ("x", x))
                                      if v is not _NOT_GIVEN])
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                        "but expected one of:\n * (Tensor y, Tensor x, *, int dim = -1)\n"
                        " * (Tensor y, *, Number dx = 1, int dim = -1)\n")
    x = None if x is _NOT_GIVEN else x
    dx = None if dx is _NOT_GIVEN else dx
    if y.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if y.dtype == ember.bool or (x is not None and x.dtype == ember.bool):
        which = "`y`" if x is None else "`x` or `y`"
        raise RuntimeError(f"{name}: received a bool input for {which}, but bool is not supported")
    dim = dim % y.dim()
    return dim, (_spacing(y, x, dim, name) if x is not None else (1 if dx is None else dx))


def _pair_sums(y: Tensor, dim: int) -> Tensor:
    """y[i] + y[i + 1] along dim."""
    return _part(y, dim, 0, -1) + _part(y, dim, 1, None)


def trapezoid(y: Tensor, x: Tensor = _NOT_GIVEN, *, dx: float = _NOT_GIVEN, dim: int = -1) -> Tensor:
    """The trapezoid rule along dim, with sample points x or a constant spacing dx (1 by default)."""
    dim, spacing = _trapezoid_args(y, x, dx, dim, "trapezoid")
    if y.shape[dim] == 0:  # no samples: 0, as NumPy
        shape = [s for i, s in enumerate(y.shape) if i != dim]
        return ember.zeros(shape, dtype=y.dtype)
    if isinstance(spacing, Tensor):
        return (spacing * _pair_sums(y, dim)).sum(dim) / 2.0
    n = y.shape[dim]
    return (y.sum(dim) - (y.select(dim, 0) + y.select(dim, n - 1)) * 0.5) * spacing


def cumulative_trapezoid(y: Tensor, x: Tensor = _NOT_GIVEN, *, dx: float = _NOT_GIVEN,
                         dim: int = -1) -> Tensor:
    """The running trapezoid rule along dim (one element shorter than y there)."""
    dim, spacing = _trapezoid_args(y, x, dx, dim, "cumulative_trapezoid")
    return (spacing / 2.0 * _pair_sums(y, dim)).cumsum(dim)


# ------------------------------------------------------------------------------------------
# distances and norms
# ------------------------------------------------------------------------------------------

_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def _float_name(t: Tensor) -> str:
    return t.type().split(".")[-1].replace("Tensor", "")


@autocast_op("fp32")
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """p-norm distances between the rows of x1 (…, P, M) and of x2 (…, R, M): (…, P, R).

    Always the direct differences (``compute_mode`` only picks a faster, less exact formula in PyTorch);
    the gradient at a zero distance is 0, as PyTorch's."""
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    for name, t in (("X1", x1), ("X2", x2)):
        if t.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.is_floating_point():
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_float_name(t)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    return _vector_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, -1)


def _deprecated(name: str, replacement: str) -> None:
    warnings.warn(f"at::{name} is deprecated and it is just left for JIT compatibility. It will be removed in a "
                  f"future PyTorch release. Please use `{replacement}` instead", UserWarning, stacklevel=3)


def frobenius_norm(input: Tensor, dim: int | Sequence[int], keepdim: bool = False, *,
                   out: Tensor | None = None) -> Tensor:
    """The 2-norm over at most two dims (deprecated in PyTorch, which warns)."""
    _deprecated("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)")
    dims = [dim] if isinstance(dim, int) else list(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    return write(_vector_norm(input, 2, dims, keepdim), out, grad="norm", inputs=(input,))


def nuclear_norm(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    """Sum of singular values over the last two dims (or ``dim``); ``nuclear_norm(A, True)`` is the keepdim
    overload, as in PyTorch. Deprecated in PyTorch, which warns."""
    _deprecated("nuclear_norm", "linalg.matrix_norm(A, 'nuc', dim, keepdim)")
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    from ember.linalg import matrix_norm

    return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim, out=out)


def native_norm(input: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    """PyTorch implements native_norm for sparse tensors only, and ember has none: always an error, as
    PyTorch's for a strided tensor."""
    op = "aten::native_norm" if dim is None else "aten::native_norm.ScalarOpt_dim_dtype"
    raise NotImplementedError(f"Could not run '{op}' with arguments from the 'CPU' backend. This could be because "
                              "the operator doesn't exist for this backend, or was omitted during the selective/"
                              "custom build process (if using custom build).")
