"""MultiheadAttention: its parameters, and F.multi_head_attention_forward to run them."""

from __future__ import annotations

from typing import Any

import ember
from ember import Tensor
from ember.nn import functional as F
from ember.nn import init
from ember.nn._functional.mha import _canonical_mask, _none_or_dtype
from ember.nn.modules.linear import NonDynamicallyQuantizableLinear
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["MultiheadAttention", "NonDynamicallyQuantizableLinear"]


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
            self.q_proj_weight = Parameter(ember.empty((embed_dim, embed_dim), dtype=dtype, device=device))
            self.k_proj_weight = Parameter(ember.empty((embed_dim, self.kdim), dtype=dtype, device=device))
            self.v_proj_weight = Parameter(ember.empty((embed_dim, self.vdim), dtype=dtype, device=device))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(ember.empty((3 * embed_dim, embed_dim), dtype=dtype, device=device))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(ember.empty(3 * embed_dim, dtype=dtype, device=device))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, dtype=dtype, device=device)
        if add_bias_kv:
            self.bias_k = Parameter(ember.empty((1, 1, embed_dim), dtype=dtype, device=device))
            self.bias_v = Parameter(ember.empty((1, 1, embed_dim), dtype=dtype, device=device))
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

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        is_batched = query.dim() == 3
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask),
                                           "attn_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if self.batch_first and is_batched:
            # PyTorch keeps the arguments' identities (self-attention's packed in-projection tests them)
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (t.transpose(1, 0) for t in (query, key))
                    value = key
            else:
                query, key, value = (t.transpose(1, 0) for t in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and is_batched:
            return out.transpose(1, 0), weights
        return out, weights
