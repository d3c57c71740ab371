"""multi_head_attention_forward: the functional form nn.MultiheadAttention runs (PyTorch's
signature, checks and order of operations): in-projection, optional key / value biases and zero
attention, masks merged additively, then either explicit softmax weights (need_weights) or
scaled_dot_product_attention, and the out-projection."""

from __future__ import annotations

import math
import warnings
from typing import Any

import ember
from ember import Tensor
from ember.nn._functional.activation import linear, softmax
from ember.nn._functional.attention import scaled_dot_product_attention


def _canonical_mask(mask: Tensor | None, mask_name: str, other_type: Any, other_name: str, target_type: Any,
                    check_other: bool = True) -> Tensor | None:
    """A bool mask (True = masked out) as an additive float mask of ``target_type``."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != ember.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if not is_float:
        mask = ember.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _check_tensors(optional: bool = False, **tensors: Any) -> None:
    """The parser's TypeError for a non-tensor argument (PyTorch's Python fails on it later, with an
    AttributeError or a TypeError naming an inner function's parameter)."""
    for name, t in tensors.items():
        if not isinstance(t, Tensor) and not (optional and t is None):
            raise TypeError(f"multi_head_attention_forward(): argument '{name}' must be Tensor, not "
                            f"{type(t).__name__}")


def _none_or_dtype(t: Tensor | None) -> Any:
    return None if t is None else t.dtype


def _shape_check(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None,
                 attn_mask: Tensor | None, num_heads: int) -> bool:
    if query.dim() == 3:
        if not (key.dim() == 3 and value.dim() == 3):
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if not (key.dim() == 2 and value.dim() == 2):
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                         "tensor")


def _pad_last(t: Tensor | None) -> Tensor | None:
    """One zero column appended on the last dim (aten's pad(mask, (0, 1)))."""
    if t is None:
        return None
    return ember.cat([t, ember.zeros(*t.shape[:-1], 1, dtype=t.dtype, device=t.device)], -1)


def _in_projection(query: Tensor, key: Tensor, value: Tensor, in_proj_weight: Tensor | None,
                   in_proj_bias: Tensor | None, separate: bool, q_w: Tensor | None, k_w: Tensor | None,
                   v_w: Tensor | None) -> tuple[Tensor, Tensor, Tensor]:
    if not separate:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        if key is value:
            return _in_projection_packed(query, key, in_proj_weight, in_proj_bias)
        wq, wk, wv = in_proj_weight.chunk(3)
    else:
        if q_w is None:
            raise AssertionError("use_separate_proj_weight is True but q_proj_weight is None")
        if k_w is None:
            raise AssertionError("use_separate_proj_weight is True but k_proj_weight is None")
        if v_w is None:
            raise AssertionError("use_separate_proj_weight is True but v_proj_weight is None")
        wq, wk, wv = q_w, k_w, v_w
    bq, bk, bv = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
    return linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)


def _split_packed(proj: Tensor, parts: int, e: int) -> tuple[Tensor, ...]:
    """(..., parts * E) -> parts (..., E) views of it. aten copies them out contiguous and its
    gradient fills and adds a whole-size tensor per part; views cost no copy here (the fused
    attention reads strided rows) and their gradients come together in one stack (unbind's)."""
    return proj.unflatten(-1, (parts, e)).unbind(-2)


def _in_projection_packed(q: Tensor, kv: Tensor, w: Tensor, b: Tensor | None) -> tuple[Tensor, Tensor, Tensor]:
    """PyTorch's packed in-projection where keys and values are one tensor: self-attention (q is kv
    too) as one linear, else two."""
    e = q.size(-1)
    if q is kv:
        return _split_packed(linear(q, w, b), 3, e)  # type: ignore[return-value]
    w_q, w_kv = w.split([e, e * 2])
    b_q, b_kv = (None, None) if b is None else b.split([e, e * 2])
    k, v = _split_packed(linear(kv, w_kv, b_kv), 2, e)
    return linear(q, w_q, b_q), k, v


def multi_head_attention_forward(
    query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
    in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None, bias_v: Tensor | None,
    add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Tensor | None,
    training: bool = True, key_padding_mask: Tensor | None = None, need_weights: bool = True,
    attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
    static_v: Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """The computation of ``nn.MultiheadAttention``, with all its parameters passed in.

    Multi-head attention with explicit weights, as ``nn.MultiheadAttention`` computes it: query,
    key and value ``(L, N, E)`` (or unbatched ``(L, E)``) are projected, split into
    ``num_heads`` heads, attended (``softmax(q k^T / sqrt(head_dim) + mask) v``) and projected
    back.

    Args:
        query: the queries, ``(L, N, E)``.
        key: the keys, ``(S, N, E_k)``.
        value: the values, ``(S, N, E_v)``.
        embed_dim_to_check: the expected ``E`` of ``query``.
        num_heads: the number of heads (``E`` must divide by it).
        in_proj_weight: the packed ``(3E, E)`` query / key / value projection.
        in_proj_bias: its ``(3E,)`` bias, or None.
        bias_k: a ``(1, 1, E)`` row appended to the projected key, or None.
        bias_v: a ``(1, 1, E)`` row appended to the projected value, or None.
        add_zero_attn: append a zero key / value position.
        dropout_p: dropout on the attention weights (when ``training``).
        out_proj_weight: the ``(E, E)`` output projection.
        out_proj_bias: its bias, or None.
        training: apply dropout.
        key_padding_mask: ``(N, S)`` positions of ``key`` to ignore (bool True or additive float).
        need_weights: also return the attention weights.
        attn_mask: ``(L, S)`` or ``(N * num_heads, L, S)`` mask (bool True = masked, or additive).
        use_separate_proj_weight: use ``q_proj_weight`` / ``k_proj_weight`` / ``v_proj_weight``.
        q_proj_weight: the separate query projection.
        k_proj_weight: the separate key projection.
        v_proj_weight: the separate value projection.
        static_k: ``(N * num_heads, S, E / num_heads)`` keys used as they are, or None.
        static_v: the same for the values.
        average_attn_weights: average the returned weights over the heads.
        is_causal: a hint that ``attn_mask`` is the causal mask.

    Returns:
        (Tensor, Tensor or None): the output ``(L, N, E)`` and the weights ``(N, L, S)``
        (``(N, num_heads, L, S)`` unaveraged) when ``need_weights``.

    Example::

        >>> E = 4
        >>> q = ember.ones(3, 2, E)
        >>> out, w = ember.nn.functional.multi_head_attention_forward(
        ...     q, q, q, E, 2, ember.eye(E).repeat(3, 1), None, None, None, False, 0.0, ember.eye(E), None)
        >>> out.shape, w.shape
        (torch.Size([3, 2, 4]), torch.Size([2, 3, 3]))
    """
    _check_tensors(query=query, key=key, value=value, out_proj_weight=out_proj_weight)
    _check_tensors(optional=True, in_proj_weight=in_proj_weight, in_proj_bias=in_proj_bias, bias_k=bias_k,
                   bias_v=bias_v, out_proj_bias=out_proj_bias, key_padding_mask=key_padding_mask, attn_mask=attn_mask,
                   q_proj_weight=q_proj_weight, k_proj_weight=k_proj_weight, v_proj_weight=v_proj_weight,
                   static_k=static_k, static_v=static_v)
    is_batched = _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention's is_causal builds the mask
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
                                 f"{tuple(value.shape[:2])}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias, use_separate_proj_weight,
                             q_proj_weight, k_proj_weight, v_proj_weight)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = ember.cat([k, bias_k.repeat(1, bsz, 1)])
        v = ember.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    # The fused attention's (N, heads, L, head_dim) straight from (L, N, E) as views (strided rows);
    # the weights path and a zero attention column take aten's (N * heads, L, head_dim) tensors.
    heads_first = not need_weights and not add_zero_attn and static_k is None and static_v is None
    if heads_first:
        q, k, v = (t.unflatten(-1, (num_heads, head_dim)).permute(1, 2, 0, 3) for t in (q, k, v))
        src_len = k.shape[2]
    else:
        q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
        k = _heads(k, static_k, "k", bsz * num_heads, head_dim)
        v = _heads(v, static_v, "v", bsz * num_heads, head_dim)
        if add_zero_attn:
            zero = ember.zeros(bsz * num_heads, 1, head_dim, dtype=k.dtype, device=k.device)
            k, v = ember.cat([k, zero], 1), ember.cat([v, zero.to(v.dtype)], 1)
            attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)
        src_len = k.shape[1]
    if key_padding_mask is not None:
        for i, want in enumerate((bsz, src_len)):
            if key_padding_mask.shape[i] != want:
                raise AssertionError(f"Expected key_padded_mask.shape[{i}] to be {want}, but got "
                                     f"{key_padding_mask.shape[i]}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
        if attn_mask is not None:
            weights = ember.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = ember.bmm(q_scaled, k.transpose(-2, -1))
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = ember.nn.functional.dropout(weights, p=dropout_p)
        out = ember.bmm(weights, v).transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.shape[1])
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    if not heads_first:
        q = q.view(bsz, num_heads, tgt_len, head_dim)
        k = k.view(bsz, num_heads, src_len, head_dim)
        v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).contiguous().view(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.shape[1])
    if not is_batched:
        out = out.squeeze(1)
    return out, None


def _heads(t: Tensor, static: Tensor | None, name: str, bh: int, head_dim: int) -> Tensor:
    """(S, N, E) -> (N * heads, S, head_dim), or the given static keys / values (checked)."""
    if static is None:
        return t.reshape(t.shape[0], bh, head_dim).transpose(0, 1)
    if static.shape[0] != bh:
        raise AssertionError(f"expecting static_{name}.size(0) of {bh}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting static_{name}.size(2) of {head_dim}, but got {static.shape[2]}")
    return static
