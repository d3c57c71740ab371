"""``ember.backends.cudnn``: cuDNN's flags as settable attributes (ember has no cuDNN). ``allow_tf32``
(on by default, as in PyTorch) lets the float32 products of ember's CUDA convolutions use TF32 tensor
cores, as it does cuDNN's."""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from ember._lib import _C
from ember.backends import _prop


def is_available() -> bool:
    return False


def version() -> None:
    return None


def is_acceptable(tensor: Any) -> bool:
    return False


benchmark_limit: Any = None  # a plain attribute in PyTorch too (any value is accepted)

_prop.install(
    __name__,
    enabled=_prop.bool_flag("set_enabled_cudnn", True),
    benchmark=_prop.bool_flag("set_benchmark_cudnn", False),
    deterministic=_prop.bool_flag("set_deterministic_cudnn", False),
    allow_tf32=_prop.bool_flag("set_allow_tf32_cublas", True, _C._cuda_set_conv_allow_tf32),
)


@contextlib.contextmanager
def flags(enabled: bool = False, benchmark: bool = False, benchmark_limit: int = 10, deterministic: bool = False,
          allow_tf32: bool = True, fp32_precision: str = "none", depthwise_kernel: str = "auto") -> Any:
    """Set the flags for the ``with`` block, restoring them after."""
    mod = sys.modules[__name__]
    names = ("enabled", "benchmark", "deterministic", "allow_tf32")
    saved = {n: getattr(mod, n) for n in names}
    for n, v in zip(names, (enabled, benchmark, deterministic, allow_tf32)):
        setattr(mod, n, v)
    try:
        yield
    finally:
        for n, v in saved.items():
            setattr(mod, n, v)
