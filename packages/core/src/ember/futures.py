"""ember.futures: ``Future`` (``ember.Future``), a value or exception set once by one thread and
waited for by others, with chained callbacks; ``collect_all`` and ``wait_all``."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")
S = TypeVar("S")


class Future(Generic[T]):
    """The result of an asynchronous computation: set once (``set_result`` or
    ``set_exception``), read by ``wait`` (blocking until it is set) or ``value``.

    Args:
        devices (list of ember.device, optional): the devices the value's tensors may live on
            (only the CPU here; kept for PyTorch's signature).

    Example::

        >>> fut = ember.futures.Future()
        >>> doubled = fut.then(lambda f: f.wait() * 2)
        >>> fut.set_result(21)
        >>> doubled.wait()
        42
    """

    def __init__(self, *, devices: list[Any] | None = None) -> None:
        self._cond = threading.Condition()
        self._done = False
        self._value: Any = None
        self._exc: BaseException | None = None
        self._callbacks: list[Callable[[Future[T]], None]] = []

    def done(self) -> bool:
        """Whether the value (or an exception) has been set."""
        return self._done

    def wait(self) -> T:
        """Blocks until the future completes; returns its value or raises its exception."""
        with self._cond:
            while not self._done:
                self._cond.wait()
        return self.value()

    def value(self) -> T:
        """The value of a completed future (raises its exception, if one was set)."""
        if self._exc is not None:
            raise self._exc
        return self._value

    def set_result(self, result: T) -> None:
        """Completes the future with ``result``, wakes the waiters and runs the callbacks."""
        self._complete(result, None)

    def set_exception(self, result: BaseException) -> None:
        """Completes the future with the exception ``result``, raised by ``wait`` and ``value``."""
        if not isinstance(result, BaseException):
            raise TypeError(f"set_exception expects an exception, not {type(result).__name__}")
        self._complete(None, result)

    def _complete(self, value: Any, exc: BaseException | None) -> None:
        with self._cond:
            if self._done:
                raise RuntimeError("Attempting to mark a completed Future as complete again. Note that a "
                                   "Future can only be marked completed once.")
            self._value, self._exc, self._done = value, exc, True
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for cb in callbacks:
            cb(self)

    def _child(self) -> Future[Any]:
        return Future()

    def then(self, callback: Callable[[Future[T]], S]) -> Future[S]:
        """A new future completed with ``callback(self)`` once this one completes (or with the
        exception the callback raised)."""
        child = self._child()

        def run(fut: Future[T]) -> None:
            try:
                result = callback(fut)
            except BaseException as exc:  # noqa: BLE001 - handed to the child future
                child.set_exception(exc)
            else:
                child.set_result(result)

        self.add_done_callback(run)
        return child

    def add_done_callback(self, callback: Callable[[Future[T]], None]) -> None:
        """Runs ``callback(self)`` once the future completes (at once if it already has)."""
        with self._cond:
            if not self._done:
                self._callbacks.append(callback)
                return
        callback(self)


def collect_all(futures: list[Future[Any]]) -> Future[list[Future[Any]]]:
    """A future completed with the list of ``futures`` once every one of them has completed.

    Example::

        >>> a, b = ember.futures.Future(), ember.futures.Future()
        >>> both = ember.futures.collect_all([a, b])
        >>> a.set_result(1); b.set_result(2)
        >>> [f.wait() for f in both.wait()]
        [1, 2]
    """
    result: Future[list[Future[Any]]] = Future()
    remaining = [len(futures)]
    lock = threading.Lock()
    if not futures:
        result.set_result([])

    def one_done(_: Future[Any]) -> None:
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            result.set_result(list(futures))

    for f in futures:
        f.add_done_callback(one_done)
    return result


def wait_all(futures: list[Future[Any]]) -> list[Any]:
    """Waits for every future and returns their values (raises the first exception met).

    Example::

        >>> f = ember.futures.Future(); f.set_result(3)
        >>> ember.futures.wait_all([f])
        [3]
    """
    return [f.wait() for f in collect_all(futures).wait()]
