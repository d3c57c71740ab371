"""Grad-mode switches: context managers that also work as decorators (thread-local)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from ember._lib import _C

F = TypeVar("F", bound=Callable[..., Any])


class _DecoratorContextManager:
    """Use as ``with mode():`` or ``@mode()`` (also ``@mode`` without parentheses)."""

    def __call__(self, func: F) -> F:
        if inspect.isclass(func):
            raise RuntimeError("grad-mode decorators cannot decorate classes")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args: Any, **kwargs: Any) -> Any:
                gen = func(*args, **kwargs)
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        gen.close()
                        raise
                    except BaseException as e:  # forward throws into the generator
                        with self.clone():
                            response = gen.throw(e)
                    else:
                        with self.clone():
                            response = gen.send(request)
            return gen_wrapper  # type: ignore[return-value]

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def clone(self) -> _DecoratorContextManager:
        """A fresh copy of this context manager with the same settings (used when it decorates a
        function, so each call enters its own)."""
        return self.__class__()

    def __enter__(self) -> None:
        raise NotImplementedError

    def __exit__(self, *exc: Any) -> None:
        raise NotImplementedError


class no_grad(_DecoratorContextManager):
    """Disable gradient recording (results of ops never require grad)."""

    def __new__(cls, orig_func: Any = None) -> Any:
        if orig_func is None or not callable(orig_func):
            return super().__new__(cls)
        return cls()(orig_func)  # bare @no_grad

    def __enter__(self) -> None:
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc: Any) -> None:
        _C._set_grad_enabled(self.prev)


class enable_grad(_DecoratorContextManager):
    """Enable gradient recording inside a no_grad region."""

    def __new__(cls, orig_func: Any = None) -> Any:
        if orig_func is None or not callable(orig_func):
            return super().__new__(cls)
        return cls()(orig_func)

    def __enter__(self) -> None:
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)

    def __exit__(self, *exc: Any) -> None:
        _C._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode to ``mode``: takes effect at once, and restores on exit when used with
    ``with``."""

    def __init__(self, mode: bool) -> None:
        self.prev = _C.is_grad_enabled()
        self.mode = mode
        _C._set_grad_enabled(mode)

    def __call__(self, func: F) -> F:
        _C._set_grad_enabled(self.prev)
        return super().__call__(func)

    def __enter__(self) -> None:
        _C._set_grad_enabled(self.mode)

    def __exit__(self, *exc: Any) -> None:
        _C._set_grad_enabled(self.prev)

    def clone(self) -> set_grad_enabled:
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like no_grad, for inference: no graph is recorded."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __new__(cls, mode: Any = True) -> Any:
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __enter__(self) -> None:
        self.prev = (_C.is_grad_enabled(), _C.is_inference_mode_enabled())
        # as PyTorch: grad mode is the opposite of the inference flag, so inference_mode(False)
        # turns grad back on even inside no_grad / inference_mode
        _C._set_grad_enabled(not self.mode)
        _C._set_inference_mode(self.mode)

    def __exit__(self, *exc: Any) -> None:
        _C._set_grad_enabled(self.prev[0])
        _C._set_inference_mode(self.prev[1])

    def clone(self) -> inference_mode:
        return self.__class__(self.mode)


_multithreading = [True]  # set_multithreading_enabled's flag (the engine runs backward on the calling thread)


def is_multithreading_enabled() -> bool:
    """Whether multithreaded backward is allowed (True unless inside
    ``set_multithreading_enabled(False)``); ember's engine runs backward on the calling thread
    either way, so only the flag changes."""
    return _multithreading[0]


def is_view_replay_enabled() -> bool:
    """False: ember does not replay views in autograd (PyTorch's default outside functionalization)."""
    return False


class set_multithreading_enabled(_DecoratorContextManager):
    """Context manager / decorator setting :func:`is_multithreading_enabled`'s flag (ember's engine
    runs backward on the calling thread either way)."""

    def __init__(self, mode: bool) -> None:
        self.mode = mode
        self.prev = _multithreading[0]
        _multithreading[0] = bool(mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        _multithreading[0] = self.prev

    def clone(self) -> set_multithreading_enabled:
        return self.__class__(self.mode)


def is_grad_enabled() -> bool:
    """Whether autograd records operations in this thread (False inside ``ember.no_grad()``).

    Returns:
        bool: the current grad mode.

    Example::

        >>> ember.is_grad_enabled()
        True
        >>> with ember.no_grad():
        ...     ember.is_grad_enabled()
        False
    """
    return _C.is_grad_enabled()


def is_inference_mode_enabled() -> bool:
    """Whether this thread is inside an ``ember.inference_mode()`` block.

    Returns:
        bool: the current inference mode.

    Example::

        >>> with ember.inference_mode():
        ...     ember.is_inference_mode_enabled()
        True
    """
    return _C.is_inference_mode_enabled()
