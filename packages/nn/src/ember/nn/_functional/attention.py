"""``scaled_dot_product_attention``, ``one_hot`` and channel-wise dropout, composed from core ops."""

from __future__ import annotations

import math
import warnings

import ember
from ember import Tensor
from ember._autocast_policy import autocast_op
from ember.nn._functional._checks import meta_name
from ember.nn._functional.activation import _inplace, softmax
from ember.nn._functional.dropout import _check_p
from ember.nn._functional.sdp_select import FLASH, select_backend


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """One-hot encoding: an int64 tensor with a new last dimension of size ``num_classes`` that is 1
    at every element's value and 0 elsewhere.

    Args:
        tensor (Tensor): int64 class indices.
        num_classes (int): the size of the new dimension (-1: the largest index plus one).

    Example::

        >>> F.one_hot(ember.tensor([0, 2]), 3)
        tensor([[1, 0, 0],
                [0, 0, 1]])
    """
    return ember._nn.one_hot(tensor, num_classes)


@autocast_op("lower")
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(Q Kᵀ·scale + mask) V; a boolean mask marks the positions that may be attended (True = keep)."""
    _validate_sdpa_input(query, key, value, attn_mask)
    if query.shape[-2] == 0 or value.numel() == 0:
        # aten returns zeros before choosing a path (so before any batch broadcasting or mask check)
        # for no query rows or an empty value; other empty inputs take the math path's matmuls
        return ember.zeros(*query.shape[:-1], value.shape[-1], dtype=query.dtype, device=query.device)
    # the path (fused kernel or aten's math) follows the inputs' layout: a half-type input's float32
    # copies below are contiguous whatever its own strides
    strides = (query.stride(-1), key.stride(-1), value.stride(-1))
    if query.dtype in (ember.float16, ember.bfloat16) and key.dtype == query.dtype and value.dtype == query.dtype:
        # PyTorch computes half-precision attention in float32 (its CPU flash kernel accumulates in float, its
        # math path upcasts) and rounds once at the end; products and sums in half lose the small values.
        mask = attn_mask.float() if attn_mask is not None and attn_mask.dtype == query.dtype else attn_mask
        out = _attention(query.float(), key.float(), value.float(), mask, dropout_p, is_causal, scale, enable_gqa,
                         strides)
        return out.to(query.dtype)
    return _attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa, strides)


def _attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, dropout_p: float,
               is_causal: bool, scale: float | None, enable_gqa: bool, strides: tuple[int, int, int]) -> Tensor:
    L, S = query.shape[-2], key.shape[-2]
    scale_factor = (1 / math.sqrt(query.shape[-1]) if query.shape[-1] else math.inf) if scale is None else scale
    if enable_gqa:
        # grouped-query attention: each key (and, separately, each value) head serves a block of query heads;
        # aten reads dim -3 of all three, so a 2-d input is an IndexError
        for t in (query, key, value):
            if t.dim() < 3:
                raise IndexError(f"Dimension out of range (expected to be in range of [{-t.dim()}, {t.dim() - 1}], "
                                 "but got -3)")
        hq = query.shape[-3]
        if key.shape[-3] == 0 or value.shape[-3] == 0 or hq % key.shape[-3] or hq % value.shape[-3]:
            # aten's message, cut short as it is there
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")

        def expand(t: Tensor) -> Tensor:
            lead, h = tuple(t.shape[:-3]), t.shape[-3]
            if h == hq:
                return t
            return t.unsqueeze(-3).expand(*lead, h, hq // h, *t.shape[-2:]).reshape(*lead, hq, *t.shape[-2:])

        key, value = expand(key), expand(value)
    # aten's backend choice (sdp_select.py), under the flags sdpa_kernel sets: the fused kernel where its
    # checks pass (an IndexError for a mask below 2 dims escapes them), else math
    if select_backend(query, key, value, attn_mask, dropout_p, strides) == FLASH:
        # torch's CPU path for 4-d inputs without dropout: the fused kernel in core
        # (ScaledDotProductFlashAttentionForCpuBackward0); a bool mask becomes 0 / -inf first. The kernel
        # takes an explicit mask and is_causal together (only the math path refuses both).
        if attn_mask is not None and attn_mask.dtype == ember.bool:
            attn_mask = ember.zeros(attn_mask.shape, dtype=query.dtype, device=attn_mask.device).masked_fill(
                ~attn_mask, float("-inf"))
        # dropout_p as given: the kernel refuses any but 0 (a NaN or negative one passes the choice above)
        return ember._nn._scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p, is_causal,
                                                                     attn_mask=attn_mask, scale=scale)[0]
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    # aten's math path scales query and key by sqrt(|scale|) each before the product (the sign on query)
    root = math.sqrt(abs(scale_factor))
    scores = ember.matmul(query * (-root if scale_factor < 0 else root), key.transpose(-2, -1) * root)
    # aten adds every mask (a causal or bool one as 0 / -inf): a NaN or +inf score at a masked
    # position stays NaN and so makes its row NaN, as the documented reference computes
    if is_causal:
        attn_mask = ember.arange(L, device=query.device).unsqueeze(-1) >= ember.arange(S, device=query.device)
    if attn_mask is not None:
        if attn_mask.dtype == ember.bool:
            attn_mask = ember.zeros(attn_mask.shape, dtype=query.dtype, device=attn_mask.device).masked_fill(
                ~attn_mask, float("-inf"))
        # aten adds in place: the mask must broadcast to the scores' own shape
        masked = scores + attn_mask
        if masked.shape != scores.shape:
            raise RuntimeError(f"output with shape {list(scores.shape)} doesn't match the broadcast shape "
                               f"{list(masked.shape)}")
        scores = masked
    weights = softmax(scores, -1)
    # aten's _safe_softmax: a row whose every score is -inf (fully masked) attends nothing: 0, not NaN
    weights = ember.where((scores == float("-inf")).all(-1, keepdim=True), 0.0, weights)
    if dropout_p > 0.0:
        weights = dropout_any(weights, dropout_p)
    return ember.matmul(weights, value)


def _validate_sdpa_input(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None) -> None:
    """aten's validate_sdpa_input, before any path is chosen."""
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{meta_name(query)} key.dtype: {meta_name(key)} and value.dtype: {meta_name(value)} "
                           "instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if attn_mask is not None and attn_mask.dtype not in (ember.bool, ember.float32, query.dtype):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {meta_name(attn_mask)} and  query.dtype: {meta_name(query)} instead.")


def dropout_any(input: Tensor, p: float) -> Tensor:
    return ember.native_dropout(input, p, True)[0]  # fused kernel (NativeDropoutBackward0)


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, batched: bool) -> Tensor:
    # the core op, as torch (so the same random draws): one Bernoulli per (sample, channel)
    if batched:
        return ember.feature_dropout_(input, p, training) if inplace else ember.feature_dropout(input, p, training)
    # torch adds the batch dim with unsqueeze_ around it; one copy_ into input is the same single in-place op
    return _inplace(lambda x: ember.feature_dropout(x.unsqueeze(0), p, training).squeeze(0), input, inplace)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Channel dropout for ``(N, C, L)`` inputs (or unbatched): during training
    every whole channel is zeroed with probability ``p`` and the kept ones are scaled by
    ``1 / (1 - p)``; identity otherwise.

    Args:
        input (Tensor): the activations.
        p (float): the probability of zeroing a channel.
        training (bool): apply dropout (True) or pass ``input`` through.
        inplace (bool): write the result into ``input``.
    """
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, inplace, input.dim() == 3)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Channel dropout for ``(N, C, H, W)`` inputs (or unbatched): during training
    every whole channel is zeroed with probability ``p`` and the kept ones are scaled by
    ``1 / (1 - p)``; identity otherwise.

    Args:
        input (Tensor): the activations.
        p (float): the probability of zeroing a channel.
        training (bool): apply dropout (True) or pass ``input`` through.
        inplace (bool): write the result into ``input``.
    """
    _check_p(p)
    if input.dim() not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence this warning, "
                      "please use dropout instead. Note that dropout2d exists to provide channel-wise dropout on "
                      "inputs with 2 spatial dimensions, a channel dimension, and an optional batch dimension "
                      "(i.e. 3D or 4D inputs).", stacklevel=2)
    if input.dim() == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a "
                      "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
                      "please switch to using dropout1d instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace, True)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Channel dropout for ``(N, C, D, H, W)`` inputs (or unbatched): during training
    every whole channel is zeroed with probability ``p`` and the kept ones are scaled by
    ``1 / (1 - p)``; identity otherwise.

    Args:
        input (Tensor): the activations.
        p (float): the probability of zeroing a channel.
        training (bool): apply dropout (True) or pass ``input`` through.
        inplace (bool): write the result into ``input``.
    """
    _check_p(p)
    if input.dim() not in (4, 5):
        warnings.warn(f"dropout3d: Received a {input.dim()}-D input to dropout3d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence this warning, "
                      "please use dropout instead. Note that dropout3d exists to provide channel-wise dropout on "
                      "inputs with 3 spatial dimensions, a channel dimension, and an optional batch dimension "
                      "(i.e. 4D or 5D inputs).", stacklevel=2)
    return _feature_dropout(input, p, training, inplace, input.dim() == 5)
