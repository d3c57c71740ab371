"""``ember.backends.cuda``: cuBLAS/SDPA flags, kept as settable state (ember's CPU build has no CUDA)."""

from __future__ import annotations

import contextlib
from typing import Any

from ember import _flags
from ember._lib import _C


def is_built() -> bool:
    """Whether ember was compiled with its CUDA backend."""
    return bool(_C._cuda_is_compiled())


class cuBLASModule:
    """``ember.backends.cuda.matmul``: ``allow_tf32`` mirrors ``get_float32_matmul_precision() != 'highest'``."""

    _BOOLS = {"allow_fp16_reduced_precision_reduction": True, "allow_bf16_reduced_precision_reduction": True,
              "allow_fp16_reduced_precision_reduction_split_k": True, "allow_fp16_accumulation": False}

    def __init__(self) -> None:
        object.__setattr__(self, "_values", dict(self._BOOLS))
        object.__setattr__(self, "_fp32_precision", "none")

    def __getattr__(self, name: str) -> Any:
        if name == "allow_tf32":
            return _flags.get_float32_matmul_precision() != "highest"
        if name == "fp32_precision":
            return self._fp32_precision
        if name in self._values:
            return self._values[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "fp32_precision":
            if value not in ("none", "ieee", "tf32"):
                raise RuntimeError(f"Unknown precision: {value}")
            object.__setattr__(self, "_fp32_precision", value)
            return
        if name != "allow_tf32" and name not in self._values:
            raise AttributeError(f"Unknown attribute {name}")
        if not isinstance(value, bool):
            setter = "set_allow_tf32_cublas" if name == "allow_tf32" else f"set_{name}"
            raise RuntimeError(f"{setter} expects a bool, but got {type(value).__name__}")
        if name == "allow_tf32":
            _flags.set_float32_matmul_precision("high" if value else "highest")
        else:
            self._values[name] = value


matmul = cuBLASModule()

# Scaled-dot-product-attention backend switches (ember has one CPU kernel; the flags are recorded).
_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled() -> bool:
    return _sdp["flash"]


def enable_flash_sdp(enabled: bool) -> None:
    _sdp["flash"] = bool(enabled)


def mem_efficient_sdp_enabled() -> bool:
    return _sdp["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    _sdp["mem_efficient"] = bool(enabled)


def math_sdp_enabled() -> bool:
    return _sdp["math"]


def enable_math_sdp(enabled: bool) -> None:
    _sdp["math"] = bool(enabled)


def cudnn_sdp_enabled() -> bool:
    return _sdp["cudnn"]


def enable_cudnn_sdp(enabled: bool) -> None:
    _sdp["cudnn"] = bool(enabled)


def is_flash_attention_available() -> bool:
    return False


@contextlib.contextmanager
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True,
               enable_cudnn: bool = True) -> Any:
    saved = dict(_sdp)
    _sdp.update(flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient, cudnn=enable_cudnn)
    try:
        yield
    finally:
        _sdp.update(saved)


def preferred_linalg_library(backend: Any = None) -> Any:
    """Accepted and ignored (LAPACK on CPU)."""
    return None
