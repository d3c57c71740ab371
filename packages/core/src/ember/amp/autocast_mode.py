"""``ember.autocast``: regions where PyTorch's autocast op lists run in lower precision.

The state lives in the core (per thread, as PyTorch's); the bindings of listed ops cast their
arguments (codegen/autocast_lists.py). Python-level ops follow through ``ember._autocast_policy``.
"""

from __future__ import annotations

import collections.abc
import functools
import warnings
from collections.abc import Callable
from typing import Any

from ember import _autocast_policy as _policy
from ember._lib import _C

# The core keeps the CPU's and CUDA's autocast state; other device types are only recorded.
_CORE = ("cpu", "cuda")
_OTHER_DTYPES: dict[str, Any] = {}
_OTHER_ENABLED: dict[str, bool] = {}


def _device_type(device_type: Any) -> str:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    return _C.device(device_type).type  # PyTorch's RuntimeError for an unknown device string


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can be enabled for ``device_type`` (the CPU and CUDA in ember)."""
    return _device_type(device_type) in _CORE


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """``device_type`` None means CUDA (PyTorch's legacy default)."""
    dev = "cuda" if device_type is None else _device_type(device_type)
    if dev in _CORE:
        return bool(_C._is_autocast_enabled(dev))
    return _OTHER_ENABLED.get(dev, False)


def set_autocast_enabled(device_type: Any, enabled: Any = None) -> None:
    """Switches autocast on or off for ``device_type`` in this thread (``ember.autocast`` does this
    on entry and exit). The one-argument legacy form ``set_autocast_enabled(enabled)`` sets the
    CUDA flag.

    Args:
        device_type (str): ``"cpu"``, ``"cuda"`` or another device type (recorded only).
        enabled (bool): the new state.
    """
    if enabled is None:  # legacy set_autocast_enabled(enabled): CUDA
        device_type, enabled = "cuda", device_type
    dev = _device_type(device_type)
    if dev in _CORE:
        before = _policy.any_enabled()
        _C._set_autocast_enabled(dev, bool(enabled))
        _policy._note_enabled(before, _policy.any_enabled())
    else:
        _OTHER_ENABLED[dev] = bool(enabled)


def get_autocast_dtype(device_type: str) -> Any:
    """The dtype autocast casts to for ``device_type`` (bfloat16 for the CPU unless changed).

    Args:
        device_type (str): the device type, such as ``"cpu"``.

    Returns:
        ember.dtype: the lower-precision dtype.

    Example::

        >>> ember.get_autocast_dtype("cpu")
        torch.bfloat16
    """
    dev = _device_type(device_type)
    if dev in _CORE:
        return _C._get_autocast_dtype(dev)
    return _OTHER_DTYPES.get(dev, _C.float16)


def set_autocast_dtype(device_type: str, dtype: Any) -> None:
    """Sets the dtype autocast casts to for ``device_type`` in this thread.

    Args:
        device_type (str): the device type, such as ``"cpu"``.
        dtype (ember.dtype): ``ember.bfloat16`` or ``ember.float16`` for the CPU.
    """
    dev = _device_type(device_type)
    if dev in _CORE:
        _C._set_autocast_dtype(dev, dtype)
    else:
        _OTHER_DTYPES[dev] = dtype


def is_autocast_cache_enabled() -> bool:
    """Whether autocast keeps the lower-precision copies of weights it made, for reuse until the
    outermost autocast region exits.

    Returns:
        bool: the flag (True at start-up).

    Example::

        >>> ember.is_autocast_cache_enabled()
        True
    """
    return _C._is_autocast_cache_enabled()


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Turns autocast's cache of cast weights on or off in this thread.

    Args:
        enabled (bool): the new state.
    """
    _C._set_autocast_cache_enabled(bool(enabled))


def clear_autocast_cache() -> None:
    """Drops the cast copies autocast has cached (done automatically when the outermost autocast
    region exits).
    """
    _C._clear_autocast_cache()


def autocast_increment_nesting() -> int:
    """Counts one more open autocast region in this thread (``ember.autocast`` calls it on entry).

    Returns:
        int: the new depth.
    """
    return _C._autocast_increment_nesting()


def autocast_decrement_nesting() -> int:
    """Counts one autocast region fewer in this thread; at depth 0 the cast cache is cleared.

    Returns:
        int: the new depth.
    """
    return _C._autocast_decrement_nesting()


# Deprecated device-specific spellings PyTorch still has.
def is_autocast_cpu_enabled() -> bool:
    """Older spelling of ``ember.is_autocast_enabled("cpu")``.

    Returns:
        bool: whether CPU autocast is on in this thread.

    Example::

        >>> ember.is_autocast_cpu_enabled()
        False
    """
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """Older spelling of ``ember.set_autocast_enabled("cpu", enabled)``.

    Args:
        enabled (bool): the new state.
    """
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype() -> Any:
    """Older spelling of ``ember.get_autocast_dtype("cpu")``.

    Returns:
        ember.dtype: the dtype CPU autocast casts to.

    Example::

        >>> ember.get_autocast_cpu_dtype()
        torch.bfloat16
    """
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype: Any) -> None:
    """Older spelling of ``ember.set_autocast_dtype("cpu", dtype)``.

    Args:
        dtype (ember.dtype): ``ember.bfloat16`` or ``ember.float16``.
    """
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype() -> Any:
    """Older spelling of ``ember.get_autocast_dtype("cuda")``.

    Returns:
        ember.dtype: ``ember.float16`` unless changed.

    Example::

        >>> ember.get_autocast_gpu_dtype()
        torch.float16
    """
    return _C._get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype: Any) -> None:
    """Older spelling of ``ember.set_autocast_dtype("cuda", dtype)`` (deprecated, as in PyTorch).

    Args:
        dtype (ember.dtype): the dtype GPU autocast casts to.
    """
    warnings.warn("torch.set_autocast_gpu_dtype(dtype) is deprecated. Please use "
                  "torch.set_autocast_dtype('cuda', dtype) instead.", DeprecationWarning, stacklevel=2)
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"dtype must be a torch.dtype (got {type(dtype).__name__})")
    _C._set_autocast_dtype("cuda", dtype)


class autocast:
    """Context manager / decorator: ops of PyTorch's autocast lists run in ``dtype`` inside.

    ``autocast("cpu")`` uses bfloat16 by default (``dtype=ember.float16`` also works),
    ``autocast("cuda")`` float16 (or bfloat16); ops on the device type's float32 list (losses,
    softmax, norms, ...) run in float32; nesting and ``enabled=False`` as PyTorch."""

    def __init__(self, device_type: str, dtype: Any = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        self.device = _device_type(device_type)
        self.fast_dtype = get_autocast_dtype(self.device) if dtype is None else dtype
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        self._enabled = enabled
        if self.device == "cuda" and enabled:
            from ember.cuda.amp.common import amp_definitely_not_available

            if amp_definitely_not_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
                self._enabled = False
            elif self.fast_dtype == _C.bfloat16:
                import ember.cuda

                if not ember.cuda.is_bf16_supported():
                    raise RuntimeError("Current CUDA Device does not support bfloat16. Please switch dtype to "
                                       "float16.")
        elif self.device == "cpu" and enabled and self.fast_dtype not in (_C.bfloat16, _C.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                          stacklevel=2)
            self._enabled = False
        elif self.device not in ("cpu", "cuda") and enabled:
            warnings.warn(f"User specified an unsupported autocast device_type '{self.device}'", stacklevel=2)
            self._enabled = False

    def __enter__(self) -> autocast:
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> bool:
        if autocast_decrement_nesting() == 0:  # the outermost region drops the cached weight casts
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func: Callable) -> Callable:
        @functools.wraps(func)
        def decorate_autocast(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        decorate_autocast.__script_unsupported = "@autocast() decorator is not supported in script mode"  # type: ignore[attr-defined]
        return decorate_autocast


def _cast(value: Any, device_type: str, dtype: Any) -> Any:
    """``value`` with its floating tensors on ``device_type`` (not float64) converted to ``dtype``,
    through mappings and iterables (lists and tuples keep their type), as PyTorch's
    ``torch.amp.autocast_mode._cast``."""
    if isinstance(value, _C.TensorBase):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype != _C.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)) or type(value).__module__ == "numpy":
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        iterable = (_cast(v, device_type, dtype) for v in value)
        return type(value)(iterable) if isinstance(value, (list, tuple)) else iterable
    return value
