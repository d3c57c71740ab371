"""The one place that imports the compiled ``ember._C`` and checks it matches."""

from __future__ import annotations

from typing import TYPE_CHECKING

# Bumped together with kAbiVersion in csrc/python/module.cpp.
_EXPECTED_ABI = 1


def _load():  # type: ignore[no-untyped-def]
    try:
        from ember import _C
    except ImportError as e:
        if "scipy_openblas" not in str(e):
            raise
        # In-place builds have no rpath to the OpenBLAS wheel: preload it.
        import ctypes
        import os

        import scipy_openblas32

        lib = os.path.join(scipy_openblas32.get_lib_dir(), "libscipy_openblas.so")
        ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
        from ember import _C
    abi = getattr(_C, "_ABI_VERSION", None)
    if abi != _EXPECTED_ABI:
        raise ImportError(
            f"ember._C has ABI version {abi} but ember's Python code expects {_EXPECTED_ABI}: "
            "the compiled core is stale. Reinstall it: pip install --force-reinstall ./packages/core"
        )
    return _C


def _no_tracing_state() -> None:
    """torch._C._get_tracing_state(): ember has no TorchScript tracer, so never tracing."""
    return None


def _log_api_usage_once(event: str) -> None:
    """torch._C._log_api_usage_once: library code calls it on import; ember logs nothing."""


if TYPE_CHECKING:  # type checkers read the generated stub ember/_C.pyi
    from ember import _C as _C
else:
    _C = _load()
    # PyTorch's _C functions that library code calls though ember has nothing behind them
    _C._get_tracing_state = _no_tracing_state
    _C._log_api_usage_once = _log_api_usage_once
