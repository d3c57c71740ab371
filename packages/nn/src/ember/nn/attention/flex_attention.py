"""``torch.nn.attention.flex_attention``: attention with user score / mask functions.

ember has no flex-attention kernel (PyTorch's needs ``torch.compile``-generated code):
:func:`flex_attention`, :func:`create_block_mask` and :class:`BlockMask` raise
``NotImplementedError``. The mask helpers work: :func:`create_mask` materializes a ``mask_mod`` (or a
``score_mod``) into a boolean ``(B, H, Q_LEN, KV_LEN)`` tensor, which ``scaled_dot_product_attention``
takes as ``attn_mask``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import ember
from ember import Tensor

__all__ = ["BlockMask", "flex_attention", "create_block_mask", "create_mask", "or_masks", "and_masks", "noop_mask"]

_NOT_IMPLEMENTED = "ember: torch.nn.attention.flex_attention is not implemented"


def flex_attention(query: Tensor, key: Tensor, value: Tensor, score_mod: Callable[..., Tensor] | None = None,
                   block_mask: Any = None, scale: float | None = None, enable_gqa: bool = False,
                   return_lse: bool = False, kernel_options: Any = None, *, return_aux: Any = None) -> Any:
    """Not implemented in ember (raises ``NotImplementedError``); use ``scaled_dot_product_attention``
    with a mask from :func:`create_mask`."""
    raise NotImplementedError(_NOT_IMPLEMENTED)


def create_block_mask(mask_mod: Callable[..., Tensor], B: int | None, H: int | None, Q_LEN: int, KV_LEN: int,
                      device: Any = None, BLOCK_SIZE: int | tuple[int, int] = 128, _compile: bool = False,
                      separate_full_blocks: bool = True, compute_dq_write_order: bool = False,
                      dq_kv_order: bool = True) -> Any:
    """Not implemented in ember (raises ``NotImplementedError``): block masks only feed
    :func:`flex_attention`."""
    raise NotImplementedError(_NOT_IMPLEMENTED)


class BlockMask:
    """Not implemented in ember: constructing one raises ``NotImplementedError``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(_NOT_IMPLEMENTED)


def noop_mask(batch: Tensor, head: Tensor, token_q: Tensor, token_kv: Tensor) -> Tensor:
    """A ``mask_mod`` that keeps every position (a 0-d True)."""
    # (positional size: ember's Tensor.new_ones does not take size= yet)
    return batch.new_ones((), dtype=ember.bool, device=batch.device)


def or_masks(*mask_mods: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """A ``mask_mod`` that keeps a position when any of ``mask_mods`` does."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def or_mask(b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        result = b.new_zeros((), dtype=ember.bool)
        for mask in mask_mods:
            result = result | mask(b, h, q_idx, kv_idx)
        return result

    return or_mask


def and_masks(*mask_mods: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """A ``mask_mod`` that keeps a position when all of ``mask_mods`` do."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def and_mask(b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        result = b.new_ones((), dtype=ember.bool)
        for mask in mask_mods:
            result = result & mask(b, h, q_idx, kv_idx)
        return result

    return and_mask


def create_mask(mod_fn: Callable[..., Tensor], B: int | None, H: int | None, Q_LEN: int, KV_LEN: int,
                device: Any = None) -> Tensor:
    """Materialize ``mod_fn`` into a boolean mask of shape ``(B, H, Q_LEN, KV_LEN)`` (True = attend).

    Args:
        mod_fn: a ``mask_mod(b, h, q_idx, kv_idx) -> bool tensor``, or a
            ``score_mod(score, b, h, q_idx, kv_idx)`` (the mask is where it does not give -inf).
        B, H (int, optional): batch size and head count (None: 1).
        Q_LEN, KV_LEN (int): the query and key lengths.
        device: where to build it (CPU).

    PyTorch calls ``mod_fn`` under ``vmap`` over each index; ember calls it once on broadcast index
    tensors, which gives the same mask for functions made of elementwise tensor operations and
    indexing.
    """
    B = 1 if B is None else B
    H = 1 if H is None else H
    shape = (B, H, Q_LEN, KV_LEN)
    b = ember.arange(B, device=device).view(B, 1, 1, 1)
    h = ember.arange(H, device=device).view(1, H, 1, 1)
    m = ember.arange(Q_LEN, device=device).view(1, 1, Q_LEN, 1)
    n = ember.arange(KV_LEN, device=device).view(1, 1, 1, KV_LEN)
    # PyTorch's _get_mod_type: five arguments without a default make a score_mod, four a mask_mod
    params = [p for p in inspect.signature(mod_fn).parameters.values() if p.default is inspect.Parameter.empty]
    if len(params) == 5:
        out = mod_fn(ember.zeros(shape, device=device), b, h, m, n)
        return ember.where(ember.isneginf(ember.broadcast_to(out, shape)), False, True)
    if len(params) == 4:
        return ember.broadcast_to(mod_fn(b, h, m, n), shape).contiguous()
    raise AssertionError
