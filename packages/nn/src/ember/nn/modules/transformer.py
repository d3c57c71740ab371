"""TransformerEncoderLayer and TransformerEncoder (post-norm or pre-norm), from existing modules."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

import ember
from ember import Tensor
from ember.nn import functional as F
from ember.nn.modules.attention import MultiheadAttention
from ember.nn.modules.container import ModuleList
from ember.nn.modules.dropout import Dropout
from ember.nn.modules.linear import Linear
from ember.nn.modules.module import Module
from ember.nn.modules.normalization import LayerNorm

__all__ = ["TransformerEncoderLayer", "TransformerEncoder"]


def _activation(name: str | Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    if not isinstance(name, str):
        return name
    if name == "relu":
        return F.relu
    if name == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {name}")


class TransformerEncoderLayer(Module):
    """Self-attention block then feed-forward block, each with residual, dropout and LayerNorm."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                  is_causal: bool = False) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x


class TransformerEncoder(Module):
    """A stack of ``num_layers`` deep copies of ``encoder_layer`` (plus an optional final norm)."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = False  # ember has no nested tensors: always the plain path
        self.mask_check = mask_check
        if enable_nested_tensor and not encoder_layer.self_attn.batch_first:
            warnings.warn("enable_nested_tensor is True, but self.use_nested_tensor is False because "
                          "encoder_layer.self_attn.batch_first was not True(use batch_first for better inference "
                          "performance)", stacklevel=2)

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        out = src
        causal = bool(is_causal) if is_causal is not None else _is_causal_mask(mask, src.shape[-2 if
                                                                                   self._batch_first() else 0])
        for layer in self.layers:
            out = layer(out, src_mask=mask, is_causal=causal, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            out = self.norm(out)
        return out

    def _batch_first(self) -> bool:
        return bool(self.layers[0].self_attn.batch_first) if len(self.layers) else False


def _is_causal_mask(mask: Tensor | None, size: int) -> bool:
    """True when ``mask`` is exactly the square subsequent mask (so attention may use the causal hint)."""
    if mask is None or mask.dim() != 2 or tuple(mask.shape) != (size, size):
        return False
    causal = ember.arange(size).unsqueeze(-1) < ember.arange(size)  # True above the diagonal
    if mask.dtype == ember.bool:
        return bool((mask == causal).all().item())
    expected = ember.where(causal, float("-inf"), 0.0).to(mask.dtype)
    return bool((mask == expected).all().item())
