"""Parity inputs for the ops of ops/nn_attention.yaml: aten's fused CPU attention and its backward,
compared with ``torch.ops.aten`` through parity_inputs' ``torch._nn`` shim."""

from __future__ import annotations

import math
from typing import Any

import ember._nn  # noqa: F401  (makes ember._nn an attribute of ember)
import parity_inputs as H

H.install_torch_nn()
T, Case = H.T, H.Case


def C(id: str, *args: Any, **kwargs: Any) -> Case:
    return Case(id, args, kwargs, method=False, inplace=False, out=False)


def _qkv(dtype: str = "float64", L: int = 5, S: int = 6, E: int = 4) -> tuple:
    return T((2, 3, L, E), dtype), T((2, 3, S, E), dtype), T((2, 3, S, E), dtype)


def flash_cases(op: dict) -> list:
    return [
        C("plain", *_qkv()),
        C("float32", *_qkv("float32")),
        C("causal", *_qkv(), 0.0, True),
        C("causal-long", *_qkv(L=70, S=70), 0.0, True),
        C("rows-over-block", *_qkv(L=70, S=9)),
        C("scale", *_qkv(), scale=0.3),
        C("mask-2d", *_qkv(), attn_mask=T((5, 6), "float64")),
        C("mask-4d", *_qkv(), attn_mask=T((2, 1, 5, 6), "float64")),
        C("mask-bool", *_qkv(), attn_mask=T((5, 6), "bool")),
        C("mask-and-causal", *_qkv(), 0.0, True, attn_mask=T((5, 6), "float64")),
        C("dropout", *_qkv(), 0.1),
        C("3d", T((3, 5, 4), "float64"), T((3, 6, 4), "float64"), T((3, 6, 4), "float64")),
        C("dtype-mismatch", T((2, 3, 5, 4), "float64"), T((2, 3, 6, 4)), T((2, 3, 6, 4))),
        # aten's check order: the value's head size before the key's dtype; a float32 or empty mask
        C("value-head-size", *_qkv()[:2], T((2, 3, 6, 0), "float64")),
        C("head-size-before-dtype", T((2, 3, 5, 4), "float64"), T((2, 3, 6, 3)), T((2, 3, 6, 4), "float64")),
        C("int64", *_qkv("int64")),
        C("mask-float32", *_qkv(), attn_mask=T((5, 6), "float32")),
        C("mask-empty", *_qkv(), attn_mask=T((0, 6), "float64")),
        C("mask-3d", *_qkv(), attn_mask=T((3, 5, 6), "float64")),
        C("dropout-nan", *_qkv(), float("nan")),
        # float16 / bfloat16: computed in float32 (the log-sum-exp stays float32)
        C("float16", *_qkv("float16")),
        C("bfloat16", *_qkv("bfloat16"), 0.0, True),
        # a fully masked row whose scores are NaN (inf keys): NaN, not the masked row's zeros
        C("masked-row-inf-keys", T((1, 1, 2, 2), "float64"), T((1, 1, 3, 2), "float64", values=(math.inf, 1.0)),
          T((1, 1, 3, 2), "float64"), attn_mask=T((2, 3), "float64", values=(-math.inf,) * 3 + (0.0,) * 3)),
    ]


def flash_backward_cases(op: dict) -> list:
    def args(causal: bool, mask: Any = None, L: int = 5) -> tuple:
        q, k, v = _qkv(L=L, S=L if causal else 6)
        return (T((2, 3, L, 4), "float64"), q, k, v, T((2, 3, L, 4), "float64"), T((2, 3, L), "float64"), 0.0,
                causal)

    return [
        C("plain", *args(False)),
        C("causal", *args(True, L=70)),
        C("scale", *args(False), scale=0.5),
        C("dropout-ignored", *args(False)[:6], 0.5, False),
        C("mask-bool", *args(False), attn_mask=T((5, 6), "bool")),
        C("mask-int32", *args(False), attn_mask=T((5, 6), "int32")),
        C("mask-3d", *args(False), attn_mask=T((3, 5, 6), "float64")),
        C("grad-float32", T((2, 3, 5, 4)), *args(False)[1:]),
        C("logsumexp-float32", *args(False)[:5], T((2, 3, 5)), 0.0, False),
        C("head-size", *args(False)[:2], T((2, 3, 6, 3), "float64"), *args(False)[3:]),
    ]


BUILDERS = {"_scaled_dot_product_flash_attention_for_cpu": flash_cases,
            "_scaled_dot_product_flash_attention_for_cpu_backward": flash_backward_cases}
