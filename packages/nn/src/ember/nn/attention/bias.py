"""``torch.nn.attention.bias``: causal attention biases that ``scaled_dot_product_attention`` takes
as ``attn_mask``.

A :class:`CausalBias` is a tensor subclass whose ``__torch_function__`` intercepts
``scaled_dot_product_attention``: the upper-left variant (or a square one) runs as ``is_causal=True``,
the lower-right one with its materialized boolean mask (on CPU no fused kernel takes it directly).
"""

from __future__ import annotations

import warnings
from enum import IntEnum, auto
from typing import Any

import ember
import ember.nn.attention as _attention
from ember import Tensor
from ember.nn import functional as F

__all__ = ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]


class CausalVariant(IntEnum):
    """The two causal patterns.

    ``UPPER_LEFT``: the triangle aligned to the upper-left corner, ``tril(ones(L, S))``, what
    ``is_causal=True`` means; for ``(3, 4)``::

        [[1, 0, 0, 0],
         [1, 1, 0, 0],
         [1, 1, 1, 0]]

    ``LOWER_RIGHT``: aligned to the lower-right corner, ``tril(ones(L, S), diagonal=S - L)`` (the
    last query sees every key, as when decoding with a cache); for ``(3, 4)``::

        [[1, 1, 0, 0],
         [1, 1, 1, 0],
         [1, 1, 1, 1]]

    The two agree when the query and key lengths are equal.
    """

    UPPER_LEFT = auto()
    LOWER_RIGHT = auto()


def _check_qkv(query: Tensor, key: Tensor, value: Tensor) -> None:
    # torch.nn.attention._utils._validate_sdpa_input: the Python-side checks, as ValueError
    if query.dtype != key.dtype or query.dtype != value.dtype:
        raise ValueError(f"Expected query, key, and value to have the same dtype, but got query.dtype: {query.dtype}, "
                         f"key.dtype: {key.dtype}, and value.dtype: {value.dtype} instead.")
    if query.device != key.device or query.device != value.device:
        raise ValueError(f"Expected query, key, and value to have the same device type, but got query.device: "
                         f"{query.device}, key.device: {key.device}, and value.device: {value.device} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise ValueError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                         f"{query.dim()}, key.dim: {key.dim()} and value.dim: {value.dim()} instead.")


class CausalBias(Tensor):
    """A causal (triangular) attention bias for ``scaled_dot_product_attention``'s ``attn_mask``;
    see :class:`CausalVariant`. Build one with :func:`causal_upper_left` or
    :func:`causal_lower_right`.

    Args:
        variant (CausalVariant): which triangle.
        seq_len_q (int): the query length ``L``.
        seq_len_kv (int): the key / value length ``S``.

    As PyTorch's, the tensor itself is an uninitialized placeholder of shape
    ``(variant, seq_len_q, seq_len_kv)``; its ``repr`` shows the materialized boolean mask.
    A lower-right bias with ``seq_len_q > seq_len_kv`` warns: its first rows attend nothing.

    Example::

        >>> from ember.nn.attention.bias import causal_lower_right
        >>> q, k = ember.randn(1, 2, 3, 8), ember.randn(1, 2, 5, 8)
        >>> F.scaled_dot_product_attention(q, k, k, attn_mask=causal_lower_right(3, 5)).shape
        torch.Size([1, 2, 3, 8])
    """

    variant: CausalVariant
    seq_len_q: int
    seq_len_kv: int

    def __new__(cls, variant: CausalVariant, seq_len_q: int, seq_len_kv: int) -> CausalBias:
        """An uninitialized float tensor of shape ``(variant, seq_len_q, seq_len_kv)`` seen as the subclass."""
        # PyTorch's Tensor.__new__(cls, variant, L, S) reads the arguments as sizes
        return Tensor._make_subclass(cls, ember.empty(int(variant), seq_len_q, seq_len_kv), False)

    def __init__(self, variant: CausalVariant, seq_len_q: int, seq_len_kv: int) -> None:
        """Record the variant and lengths (see the class)."""
        if not isinstance(variant, CausalVariant):
            raise AssertionError(f"variant must be a CausalVariant, got {type(variant).__name__}")
        super().__init__()
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if seq_len_q > seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            warnings.warn("Lower right causal bias will produce NaNs in the output when seq_len_q > seq_len_kv!",
                          stacklevel=2)

    def _upper_left(self, device: Any) -> Tensor:
        return ember.tril(ember.ones(self.seq_len_q, self.seq_len_kv, device=device, dtype=ember.bool))

    def _lower_right(self, device: Any) -> Tensor:
        return ember.tril(ember.ones(self.seq_len_q, self.seq_len_kv, device=device, dtype=ember.bool),
                          diagonal=self.seq_len_kv - self.seq_len_q)

    def _materialize(self, device: Any = None) -> Tensor:
        """The bias as a boolean ``(seq_len_q, seq_len_kv)`` mask (True = attend), on ``device`` (CPU)."""
        if device is None:
            device = ember.device("cpu")
        if self.variant == CausalVariant.UPPER_LEFT:
            return self._upper_left(device)
        return self._lower_right(device)

    @staticmethod
    def _dispatch(query: Tensor, key: Tensor, value: Tensor, attn_mask: CausalBias, dropout_p: float = 0.0,
                  is_causal: bool = False, scale: float | None = None, enable_gqa: bool = False) -> Tensor:
        """``scaled_dot_product_attention`` with this bias as its mask."""
        if is_causal:
            raise ValueError("CausalBias should not be used with causal=True")
        if attn_mask.seq_len_q == attn_mask.seq_len_kv or attn_mask.variant == CausalVariant.UPPER_LEFT:
            return F.scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=dropout_p,
                                                  is_causal=True, scale=scale, enable_gqa=enable_gqa)
        if attn_mask.variant == CausalVariant.LOWER_RIGHT:
            _check_qkv(query, key, value)
            # PyTorch's lower-right path is CUDA's flash / efficient kernels; on CPU it materializes
            if _attention.WARN_FOR_UNFUSED_KERNELS:
                warnings.warn("Efficient attention can't be used because:", stacklevel=3)
                warnings.warn("Flash attention can't be used because:", stacklevel=3)
            return F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask._materialize(query.device),
                                                  dropout_p=dropout_p, is_causal=False, scale=scale,
                                                  enable_gqa=enable_gqa)
        raise ValueError(f"CausalBias.variant must be a CausalVariant type, but found: {attn_mask.variant}")

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        """Route ``scaled_dot_product_attention`` to :meth:`_dispatch`; other calls as a plain tensor."""
        if kwargs is None:
            kwargs = {}
        if func is F.scaled_dot_product_attention:
            return cls._dispatch(*args, **kwargs)
        return super().__torch_function__(func, types, args, kwargs)

    def __repr__(self) -> str:  # type: ignore[override]
        """The materialized mask's repr."""
        return self._materialize().__repr__()


def causal_upper_left(*size: int) -> CausalBias:
    """An upper-left causal bias of ``size == (seq_len_q, seq_len_kv)``: ``tril(ones(size))``, the
    same as ``is_causal=True``.

    Args:
        size: the query and key lengths.
    """
    if len(size) != 2:
        raise AssertionError("causal_upper_left only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.UPPER_LEFT, seq_len_q, seq_len_kv)


def causal_lower_right(*size: int) -> CausalBias:
    """A lower-right causal bias of ``size == (seq_len_q, seq_len_kv)``:
    ``tril(ones(size), diagonal=seq_len_kv - seq_len_q)``.

    Args:
        size: the query and key lengths.
    """
    if len(size) != 2:
        raise AssertionError("causal_lower_right only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.LOWER_RIGHT, seq_len_q, seq_len_kv)
