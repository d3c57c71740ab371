"""MultiheadAttention, composed from Linear projections and attention math (no fused kernel)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import ember
from ember import Tensor
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.linear import Linear
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["MultiheadAttention", "NonDynamicallyQuantizableLinear"]


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under another name (PyTorch uses it for ``out_proj``; keys and repr depend on it)."""


def _append_along(t: Tensor, extra: Tensor, dim: int) -> Tensor:
    """``cat([t, extra], dim)`` through slice assignment (the core has no cat yet); differentiable."""
    shape = list(t.shape)
    n = shape[dim]
    shape[dim] = n + extra.shape[dim]
    out = ember.empty(shape, dtype=t.dtype)
    lead = (slice(None),) * (dim % t.dim())
    out[lead + (slice(0, n),)].copy_(t)
    out[lead + (slice(n, shape[dim]),)].copy_(extra)
    return out


def _canonical_mask(mask: Tensor | None, name: str, dtype: Any) -> Tensor | None:
    """Boolean masks (True = masked out) become additive float masks of ``dtype``."""
    if mask is None:
        return None
    if mask.dtype == ember.bool:
        return ember.where(mask, float("-inf"), 0.0).to(dtype)
    if not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


class MultiheadAttention(Module):
    """Multi-head attention (as ``torch.nn.MultiheadAttention``); inputs (L, N, E) or batch_first (N, L, E)."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None, dtype: Any = None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(ember.empty((embed_dim, embed_dim), dtype=dtype))
            self.k_proj_weight = Parameter(ember.empty((embed_dim, self.kdim), dtype=dtype))
            self.v_proj_weight = Parameter(ember.empty((embed_dim, self.vdim), dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(ember.empty((3 * embed_dim, embed_dim), dtype=dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(ember.empty(3 * embed_dim, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(ember.empty((1, 1, embed_dim), dtype=dtype))
            self.bias_v = Parameter(ember.empty((1, 1, embed_dim), dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def _project(self, query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        e = self.embed_dim
        b = self.in_proj_bias
        bq, bk, bv = (None, None, None) if b is None else (b[0:e], b[e:2 * e], b[2 * e:])
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            wq, wk, wv = w[0:e], w[e:2 * e], w[2 * e:]
        else:
            wq, wk, wv = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        return F.linear(query, wq, bq), F.linear(key, wk, bk), F.linear(value, wv, bv)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        is_batched = query.dim() == 3
        if query.dim() not in (2, 3):
            raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D "
                                 "query tensor")
        if key_padding_mask is not None and attn_mask is not None and key_padding_mask.dtype != attn_mask.dtype:
            warnings.warn("Support for mismatched key_padding_mask and attn_mask is deprecated. Use same type for "
                          "both instead.", stacklevel=2)
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", query.dtype)
        if self.batch_first and is_batched:
            query, key, value = (t.transpose(1, 0) for t in (query, key, value))
        if not is_batched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer "
                               "module method `generate_square_subsequent_mask` to create this mask.")
        tgt_len, bsz, e = query.shape
        heads, head_dim = self.num_heads, self.head_dim
        q, k, v = self._project(query, key, value)
        if attn_mask is not None:
            if attn_mask.dim() == 2:
                if tuple(attn_mask.shape) != (tgt_len, key.shape[0]):
                    raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                       f"{(tgt_len, key.shape[0])}.")
                attn_mask = attn_mask.unsqueeze(0)
            elif attn_mask.dim() == 3:
                if tuple(attn_mask.shape) != (bsz * heads, tgt_len, key.shape[0]):
                    raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                       f"{(bsz * heads, tgt_len, key.shape[0])}.")
            else:
                raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
        if self.bias_k is not None and self.bias_v is not None:
            k = _append_along(k, self.bias_k.expand(1, bsz, e), 0)
            v = _append_along(v, self.bias_v.expand(1, bsz, e), 0)
            if attn_mask is not None:
                attn_mask = _append_along(attn_mask, ember.zeros(*attn_mask.shape[:-1], 1, dtype=attn_mask.dtype), -1)
            if key_padding_mask is not None:
                key_padding_mask = _append_along(key_padding_mask, ember.zeros(bsz, 1, dtype=key_padding_mask.dtype),
                                                 -1)
        q = q.reshape(tgt_len, bsz * heads, head_dim).transpose(0, 1)
        k = k.reshape(k.shape[0], bsz * heads, head_dim).transpose(0, 1)
        v = v.reshape(v.shape[0], bsz * heads, head_dim).transpose(0, 1)
        if self.add_zero_attn:
            k = _append_along(k, ember.zeros(bsz * heads, 1, head_dim, dtype=k.dtype), 1)
            v = _append_along(v, ember.zeros(bsz * heads, 1, head_dim, dtype=v.dtype), 1)
            if attn_mask is not None:
                attn_mask = _append_along(attn_mask, ember.zeros(*attn_mask.shape[:-1], 1, dtype=attn_mask.dtype), -1)
            if key_padding_mask is not None:
                key_padding_mask = _append_along(key_padding_mask, ember.zeros(bsz, 1, dtype=key_padding_mask.dtype),
                                                 -1)
        src_len = k.shape[1]
        if key_padding_mask is not None:
            if tuple(key_padding_mask.shape) != (bsz, src_len):
                raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                     f"{key_padding_mask.shape}")
            kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, heads, 1, src_len)
            kpm = kpm.reshape(bsz * heads, 1, src_len)
            attn_mask = kpm if attn_mask is None else attn_mask + kpm
        dropout_p = self.dropout if self.training else 0.0
        scores = ember.matmul(q * math.sqrt(1.0 / float(head_dim)), k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = F.softmax(scores, -1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, dropout_p)
        out = ember.matmul(weights, v)  # (N*H, L, D)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, e)
        out = F.linear(out, self.out_proj.weight, self.out_proj.bias).reshape(tgt_len, bsz, e)
        if not is_batched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(1, 0)
        if not need_weights:
            return out, None
        w = weights.reshape(bsz, heads, tgt_len, src_len)
        if average_attn_weights:
            w = w.mean(1)
        if not is_batched:
            w = w.squeeze(0)
        return out, w
