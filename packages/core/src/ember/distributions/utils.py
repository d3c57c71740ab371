"""Helpers shared by the distributions: parameter broadcasting, probability/logit conversion,
cached properties and the triangular-matrix packing used by the correlation transforms."""

from __future__ import annotations

from numbers import Number
from typing import Any

import ember

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix", "euler_constant"]

euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant


def broadcast_all(*values: Any) -> tuple[Any, ...]:
    """Turn numbers into tensors and broadcast every argument to one common shape.

    Plain Python numbers take the dtype (and device) of the first tensor among the arguments, or
    the default dtype when there is none.
    """
    if not all(isinstance(v, (ember.Tensor, Number)) or hasattr(v, "__torch_function__") for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    if not all(isinstance(v, ember.Tensor) for v in values):
        like = next((v for v in values if isinstance(v, ember.Tensor)), None)
        opts: dict[str, Any] = {"dtype": ember.get_default_dtype()}
        if like is not None:
            opts = {"dtype": like.dtype, "device": like.device}
        values = tuple(v if isinstance(v, ember.Tensor) else ember.tensor(v, **opts) for v in values)
    return tuple(ember.broadcast_tensors(*values))


def _standard_normal(shape: Any, dtype: Any, device: Any) -> Any:
    """Standard normal draws of the given shape."""
    return ember.randn(tuple(shape), dtype=dtype, device=device)


def _sum_rightmost(value: Any, dim: int) -> Any:
    """Sum over the ``dim`` right-most dimensions of ``value``."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def _softplus(x: Any) -> Any:
    """log(1 + exp(x)), computed without overflow."""
    a = x.abs()
    return (x + a) / 2 + ember.log1p(ember.exp(-a))


def _bce_with_logits(logits: Any, target: Any) -> Any:
    """Elementwise binary cross-entropy ``-(t log sigmoid(l) + (1 - t) log sigmoid(-l))``."""
    return _softplus(logits) - target * logits


def logits_to_probs(logits: Any, is_binary: bool = False) -> Any:
    """Probabilities from log-odds (``is_binary``) or from unnormalised log-probabilities."""
    if is_binary:
        return ember.sigmoid(logits)
    return ember.softmax(logits, dim=-1)


def clamp_probs(probs: Any) -> Any:
    """Keep probabilities strictly inside (0, 1), by the machine epsilon of their dtype."""
    eps = ember.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Any, is_binary: bool = False) -> Any:
    """Log-odds (``is_binary``) or log-probabilities from probabilities, clamped away from 0 and 1."""
    p = clamp_probs(probs)
    if is_binary:
        return ember.log(p) - ember.log1p(-p)
    return ember.log(p)


class lazy_property:
    """A property computed on first access and then stored on the instance, so later reads (and
    the distribution's ``repr``) see a plain attribute."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with ember.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a lazy property looks like on the class: both a lazy_property and a property."""

    def __init__(self, wrapped: Any) -> None:
        property.__init__(self, wrapped)


def _tril_size(n: int, diag: int) -> int:
    return int(ember.tril_indices(n, n, diag).shape[1]) if n > 0 else 0


def _side_from_count(count: int, diag: int) -> int:
    n = 0
    while _tril_size(n, diag) < count:
        n += 1
    if _tril_size(n, diag) != count:
        raise ValueError("The size of last dimension is not the number of entries of a lower triangle")
    return n


def tril_matrix_to_vec(mat: Any, diag: int = 0) -> Any:
    """The entries of the lower triangle of ``mat`` (at and below diagonal ``diag``), row by row."""
    n = mat.shape[-1]
    if not ember.jit.is_scripting() and (diag < -n or diag >= n):
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = ember.tril_indices(n, n, diag, device=mat.device)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec: Any, diag: int = 0) -> Any:
    """The inverse of :func:`tril_matrix_to_vec`: a square matrix, zero above diagonal ``diag``."""
    n = _side_from_count(vec.shape[-1], diag)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    rows, cols = ember.tril_indices(n, n, diag, device=vec.device)
    mat[..., rows, cols] = vec
    return mat
