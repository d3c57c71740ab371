"""Parity inputs for the ops of ops/nn_attention.yaml: aten's fused CPU attention and its backward,
compared with ``torch.ops.aten`` through parity_inputs' ``torch._nn`` shim."""

from __future__ import annotations

from typing import Any

import parity_inputs as H

import ember._nn  # noqa: F401  (makes ember._nn an attribute of ember)

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
    ]


BUILDERS = {"_scaled_dot_product_flash_attention_for_cpu": flash_cases,
            "_scaled_dot_product_flash_attention_for_cpu_backward": flash_backward_cases}
