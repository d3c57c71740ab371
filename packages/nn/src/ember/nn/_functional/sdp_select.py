"""Which kernel ``scaled_dot_product_attention`` runs on CPU: aten's ``select_sdp_backend_cpp``.

PyTorch's CPU build has two: the fused flash kernel (``_scaled_dot_product_flash_attention_for_cpu``)
and the math composite. The flags ``ember.backends.cuda.enable_flash_sdp`` / ``enable_math_sdp``
(which ``ember.nn.attention.sdpa_kernel`` sets) switch them; the efficient, cuDNN and overrideable
backends do not exist on CPU, so enabling only those leaves no kernel. The flash kernel is tried
first when its constraints hold; when it does not apply and math is off, aten warns why and aborts.
"""

from __future__ import annotations

import warnings

import ember
import ember.backends.cuda as _cuda
from ember import Tensor
from ember.nn._functional._checks import meta_name

FLASH, MATH = "flash", "math"

_FLASH_DTYPES = (ember.float32, ember.float64, ember.bfloat16, ember.float16)


def select_backend(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, dropout_p: float,
                   strides: tuple[int, int, int]) -> str:
    """``FLASH`` or ``MATH``; raises as aten when no kernel is enabled or none applies.

    ``strides`` are the inputs' last-dim strides as the caller got them (a half-precision input is
    computed on contiguous float32 copies, but aten checks the originals).
    """
    flash_on, math_on = _cuda.flash_sdp_enabled(), _cuda.math_sdp_enabled()
    if not flash_on and not math_on:
        # aten's choice is SDPBackend::error, refused by scaled_dot_product_attention itself
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                           "turning off both the math kernel and the fused kernels.")
    reason = flash_reason(query, key, value, attn_mask, dropout_p, strides) if flash_on else \
        "Flash attention has been runtime disabled."
    if reason is None:
        return FLASH
    if math_on:
        return MATH
    # aten reruns the flash checks with debug on: a header warning, then the failed check's own
    warnings.warn("Flash attention kernel not used because:", stacklevel=4)
    if reason:
        warnings.warn(reason, stacklevel=4)
    raise RuntimeError("No available kernel.  Aborting execution.")


def flash_reason(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, dropout_p: float,
                 strides: tuple[int, int, int]) -> str | None:
    """None when the CPU flash kernel applies, else the warning aten's failed check gives in
    debug mode ("" for the checks that fail silently). aten's use_flash_attention_cpp order."""
    if dropout_p > 0.0:
        return "Both fused kernels do not support non-zero dropout."
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        return (f"All fused kernels requires query, key and value to be 4 dimensional, but got Query dim: "
                f"{query.dim()}, Key dim: {key.dim()}, Value dim: {value.dim()} instead.")
    q, k, v = list(query.shape), list(key.shape), list(value.shape)
    if not q[0] == k[0] == v[0]:
        return (f"For dense inputs, both fused kernels require query, key and value to have the same batch_size. "
                f"Query.sizes(): {q}, Key.sizes(): {k}, Value.sizes(): {v} instead. To broadcast dense inputs, "
                "try using unsqueeze and expand_to before passing them into the kernel.")
    if not q[1] == k[1] == v[1]:
        return (f"For dense input, both fused kernels require query, key and value to have the same num_heads. "
                f"Query.sizes(): {q}, Key sizes(): {k}, Value sizes(): {v} instead. To broadcast dense inputs, "
                "try using unsqueeze and expand_to before passing them into the kernel.")
    if attn_mask is not None:
        reason = _mask_reason(attn_mask, q, k)
        if reason is not None:
            return reason
    if not q[-1] == k[-1] == v[-1]:
        return (f"Flash attention requires q,k,v to have the same last dimension. Got Query.size(-1): {q[-1]}, "
                f"Key.size(-1): {k[-1]}, Value.size(-1): {v[-1]} instead.")
    if q[-2] == 0 or k[-2] == 0:
        return "All fused kernels do not support zero seq_len_q or seq_len_kv."
    if strides != (1, 1, 1):
        return (f"All fused kernels require the last dimension of the input to have stride 1. Got "
                f"Query.stride(-1): {strides[0]}, Key.stride(-1): {strides[1]}, Value.stride(-1): {strides[2]}")
    if query.dtype not in _FLASH_DTYPES:
        return (f"Expected query, key and value to all be of dtype: {{Float, Double, BFloat16, Half}}. Got Query "
                f"dtype: {meta_name(query)}, Key dtype: {meta_name(key)}, and Value dtype: {meta_name(value)} "
                "instead.")
    return None


def _mask_reason(attn_mask: Tensor, q: list[int], k: list[int]) -> str | None:
    """aten's check_attn_mask_shape: a 2-d mask, or a 4-d one whose batch and head dims are 1 or
    query's, with each of its last two dims 1 or the sequence length."""
    if attn_mask.requires_grad:
        return ""
    if attn_mask.dim() < 2:
        # the check reads attn_mask.size(-2) first: the dim error escapes
        raise IndexError("Dimension specified as -2 but tensor has no dimensions" if attn_mask.dim() == 0 else
                         "Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    m = attn_mask.shape
    if m[-2] not in (1, q[2]) or m[-1] not in (1, k[2]):
        return ""
    if attn_mask.dim() == 2 or (attn_mask.dim() == 4 and m[0] in (1, q[0]) and m[1] in (1, q[1])):
        return None
    return ("Please use the following attn mask shapes: 2d - ({Q_seq_len, 1}  x {KV_seq_len, 1}); 4d - "
            "({Batch, 1} x {Num_heads, 1} x {Q_seq_len, 1}  x {KV_seq_len, 1})")
