"""``ember.cuda.amp.autocast``, ``custom_fwd`` and ``custom_bwd``: the deprecated CUDA spellings of
``ember.amp``'s, with PyTorch's FutureWarnings."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from ember import amp as _amp
from ember._lib import _C
from ember.amp import autocast_mode as _autocast_mode

__all__ = ["autocast", "custom_fwd", "custom_bwd"]

_AUTOCAST = ("`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` "
             "instead.")


def _deprecated(message: str) -> Callable[[Callable], Callable]:
    """A function that emits ``message`` as a FutureWarning before it runs (before its arguments are
    bound, as ``typing_extensions.deprecated`` does); ``__deprecated__`` holds the message."""

    def decorate(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            warnings.warn(message, FutureWarning, stacklevel=2)
            return fn(*args, **kwargs)

        wrapper.__deprecated__ = fn.__deprecated__ = message  # type: ignore[attr-defined]
        return wrapper

    return decorate


def _warn_on_new(new: Callable) -> Callable:
    """``autocast.__new__`` warning before its arguments are bound, for ``autocast`` itself only (a
    subclass warns when it is defined instead), as ``typing_extensions.deprecated`` does."""

    @functools.wraps(new)
    def wrapper(cls: type, *args: Any, **kwargs: Any) -> Any:
        if cls is autocast:
            warnings.warn(_AUTOCAST, FutureWarning, stacklevel=2)
        return new(cls, *args, **kwargs)

    return wrapper


class autocast(_autocast_mode.autocast):
    """See ``ember.autocast``. ``ember.cuda.amp.autocast(args...)`` is deprecated: it is
    ``ember.amp.autocast("cuda", args...)`` and emits PyTorch's FutureWarning (creating one, or
    defining a subclass, warns; creating a subclass's instance does not, as PyTorch's).

    Args:
        enabled (bool): whether autocast is on in the region.
        dtype (ember.dtype): the lower-precision dtype (``ember.float16``).
        cache_enabled (bool): whether the weight-cast cache is used.
    """

    __deprecated__ = _AUTOCAST

    def __new__(cls, enabled: bool = True, dtype: Any = _C.float16, cache_enabled: bool = True) -> autocast:
        return super().__new__(cls)

    __new__ = _warn_on_new(__new__)  # type: ignore[assignment]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        warnings.warn(_AUTOCAST, FutureWarning, stacklevel=2)
        super().__init_subclass__(**kwargs)

    def __init__(self, enabled: bool = True, dtype: Any = _C.float16, cache_enabled: bool = True) -> None:
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


@_deprecated("`torch.cuda.amp.autocast_mode._cast(value, dtype)` is deprecated. Please use "
             "`torch.amp.autocast_mode._cast(value, 'cuda', dtype)` instead.")
def _cast(value: Any, dtype: Any) -> Any:
    return _autocast_mode._cast(value, "cuda", dtype)


@_deprecated("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
             "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.")
def custom_fwd(fwd: Callable | None = None, *, cast_inputs: Any = None) -> Any:
    """``ember.cuda.amp.custom_fwd(args...)`` is deprecated: it is
    ``ember.amp.custom_fwd(args..., device_type="cuda")`` and emits PyTorch's FutureWarning.

    Args:
        fwd (Callable, optional): the ``forward`` of an ``autograd.Function`` (None: a decorator).
        cast_inputs (ember.dtype, optional): run ``forward`` with autocast off and its floating CUDA
            inputs cast to this dtype, when autocast is on.

    Returns:
        The decorated ``forward``, or a decorator.
    """
    return functools.partial(_amp.custom_fwd, device_type="cuda")(fwd=fwd, cast_inputs=cast_inputs)


@_deprecated("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
             "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.")
def custom_bwd(bwd: Callable) -> Any:
    """``ember.cuda.amp.custom_bwd(args...)`` is deprecated: it is
    ``ember.amp.custom_bwd(args..., device_type="cuda")`` and emits PyTorch's FutureWarning.

    Args:
        bwd (Callable): the ``backward`` of an ``autograd.Function``.

    Returns:
        The decorated ``backward``, run under the autocast state its forward had.
    """
    return functools.partial(_amp.custom_bwd, device_type="cuda")(bwd)
