"""``ember.amp``: automatic mixed precision (autocast regions and gradient scaling)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ember.amp.autocast_mode import autocast, is_autocast_available
from ember.amp.grad_scaler import GradScaler

__all__ = ["autocast", "GradScaler", "is_autocast_available", "custom_fwd", "custom_bwd"]


def custom_fwd(fwd: Callable | None = None, *, device_type: str, cast_inputs: Any = None) -> Any:
    """For ``autograd.Function.forward``: run with ``cast_inputs`` (autocast off) or the caller's state."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    import ember
    from ember.amp.autocast_mode import _cast

    @functools.wraps(fwd)
    def decorate_fwd(*args: Any, **kwargs: Any) -> Any:
        args[0]._dtype = ember.get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = ember.is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = ember.is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                cast = [_cast(a, device_type, cast_inputs) for a in args]
                return fwd(*cast, **{k: _cast(v, device_type, cast_inputs) for k, v in kwargs.items()})
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd: Callable | None = None, *, device_type: str) -> Any:
    """For ``autograd.Function.backward``: run under the autocast state its forward had."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args: Any, **kwargs: Any) -> Any:
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
