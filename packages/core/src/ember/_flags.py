"""Process-wide flags of PyTorch's top level: deterministic algorithms and float32 matmul precision.

ember's CPU ops are deterministic already; the flag's one visible effect (as PyTorch's on CPU) is
that ``empty``-family tensors come back filled (NaN / the integer maximum) while it is on and
``ember.utils.deterministic.fill_uninitialized_memory`` is True.
"""

from __future__ import annotations

import warnings
from typing import Any

from ember._lib import _C

_state = {"deterministic": False, "warn_only": False, "fill": True, "matmul_precision": "highest"}


def _sync_fill() -> None:
    _C._set_fill_uninitialized(_state["deterministic"] and _state["fill"])


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Make ops use deterministic algorithms (as ``torch.use_deterministic_algorithms``)."""
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type(warn_only).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, warn_only
    _sync_fill()


def are_deterministic_algorithms_enabled() -> bool:
    """Whether ``ember.use_deterministic_algorithms(True)`` is in force.

    Returns:
        bool: the flag (False at start-up).

    Example::

        >>> ember.are_deterministic_algorithms_enabled()
        False
    """
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether deterministic mode was switched on with ``warn_only=True`` (a nondeterministic op
    would warn instead of raising; ember's CPU ops are all deterministic).

    Returns:
        bool: the flag (False at start-up).

    Example::

        >>> ember.is_deterministic_algorithms_warn_only_enabled()
        False
    """
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode: str | int) -> None:
    """0/"default": off; 1/"warn": on, warn only; 2/"error": on."""
    if isinstance(debug_mode, str):
        names = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in names:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = names[debug_mode]
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """The deterministic mode as a number: 0 when off, 1 when on with ``warn_only``, 2 when on.

    Returns:
        int: 0, 1 or 2 (see ``ember.set_deterministic_debug_mode``).

    Example::

        >>> ember.get_deterministic_debug_mode()
        0
    """
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_fill_uninitialized_memory(value: bool) -> None:
    if not isinstance(value, bool):
        raise RuntimeError(f"expected a bool, but got {type(value).__name__}")
    _state["fill"] = value
    _sync_fill()


def set_float32_matmul_precision(precision: Any) -> None:
    """'highest' | 'high' | 'medium': recorded (ember's CPU matmul always computes in float32); on
    CUDA anything below 'highest' lets float32 cuBLAS products use TF32, as in PyTorch."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _state["matmul_precision"] = precision
    _C._cuda_set_allow_tf32(precision != "highest")


def get_float32_matmul_precision() -> str:
    """The float32 matrix-multiply precision last set with ``ember.set_float32_matmul_precision``
    (``"highest"``, ``"high"`` or ``"medium"``). ember records it; its CPU kernels always compute
    float32 products in float32.

    Returns:
        str: the precision name (``"highest"`` at start-up).

    Example::

        >>> ember.get_float32_matmul_precision()
        'highest'
    """
    return _state["matmul_precision"]
