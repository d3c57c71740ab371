"""``Store``: the public key-value API shared by every store, with torch's argument checks.

Subclasses implement the ``_``-prefixed primitives on bytes; this class turns str values into
bytes, applies the store's timeout and raises torch's errors for bad argument types.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

DEFAULT_TIMEOUT = timedelta(seconds=300)


def _bad_args(op: str, detail: str) -> TypeError:
    # torch's stores are pybind11 functions: a wrong type is "incompatible function arguments".
    return TypeError(f"{op}(): incompatible function arguments. {detail}")


def _key(op: str, key: object) -> str:
    if not isinstance(key, str):
        raise _bad_args(op, f"key must be str, got {type(key).__name__}")
    return key


def _keys(op: str, keys: object) -> list[str]:
    if isinstance(keys, (str, bytes)) or not isinstance(keys, Sequence):
        raise _bad_args(op, f"keys must be a list of str, got {type(keys).__name__}")
    return [_key(op, k) for k in keys]


def _value(op: str, value: object) -> bytes:
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    # torch also takes a list of ints (std::vector<uint8_t>).
    if isinstance(value, list) and all(isinstance(v, int) for v in value):
        return bytes(value)
    raise _bad_args(op, f"value must be str or bytes, got {type(value).__name__}")


def _seconds(op: str, timeout: object) -> float:
    if not isinstance(timeout, timedelta):
        raise _bad_args(op, f"timeout must be a datetime.timedelta, got {type(timeout).__name__}")
    return timeout.total_seconds()


class Store:
    """Base class for all store implementations (``TCPStore``, ``FileStore``, ``HashStore``,
    ``PrefixStore``): a key-value map shared by the processes of a job."""

    def __init__(self, timeout: timedelta = DEFAULT_TIMEOUT) -> None:
        self._timeout = timeout

    # -- public API ---------------------------------------------------------------------------
    @property
    def timeout(self) -> timedelta:
        """The default timeout of blocking operations (``get``, ``wait``, ``multi_get``)."""
        return self._timeout

    def set_timeout(self, timeout: timedelta) -> None:
        """Sets how long ``get`` and ``wait`` wait for a key before raising."""
        _seconds("set_timeout", timeout)
        self._timeout = timeout

    def set(self, key: str, value: str | bytes) -> None:
        """Stores ``value`` (str or bytes) under ``key``, replacing any previous value."""
        self._set(_key("set", key), _value("set", value))

    def get(self, key: str) -> bytes:
        """The value of ``key``; blocks until it is set, or raises ``DistStoreError`` after the timeout."""
        return self._get(_key("get", key), self.timeout.total_seconds())

    def add(self, key: str, amount: int) -> int:
        """Atomically adds ``amount`` to the integer at ``key`` (0 if unset) and returns the sum."""
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise _bad_args("add", f"amount must be int, got {type(amount).__name__}")
        return self._add(_key("add", key), amount)

    def compare_set(self, key: str, expected_value: str | bytes, desired_value: str | bytes) -> bytes:
        """Sets ``key`` to ``desired_value`` if it holds ``expected_value`` (or is unset and
        ``expected_value`` is empty); returns the value the key holds afterwards (``expected_value``
        when the key is unset and nothing was written)."""
        return self._compare_set(
            _key("compare_set", key),
            _value("compare_set", expected_value),
            _value("compare_set", desired_value),
        )

    def wait(self, keys: list[str], timeout: timedelta | None = None) -> None:
        """Blocks until every key is set; ``DistStoreError`` after ``timeout`` (default: the store's)."""
        names = _keys("wait", keys)
        secs = self.timeout.total_seconds() if timeout is None else _seconds("wait", timeout)
        self._wait(names, secs)

    def check(self, keys: list[str]) -> bool:
        """True when every key is set (never blocks)."""
        return self._check(_keys("check", keys))

    def delete_key(self, key: str) -> bool:
        """Deletes ``key``; True if it existed."""
        return self._delete_key(_key("delete_key", key))

    def num_keys(self) -> int:
        """The number of keys set."""
        return self._num_keys()

    def append(self, key: str, value: str | bytes) -> None:
        """Appends ``value`` to the bytes at ``key`` (creating it when unset)."""
        self._append(_key("append", key), _value("append", value))

    def multi_get(self, keys: list[str]) -> list[bytes]:
        """The values of ``keys``, waiting for each to be set."""
        return self._multi_get(_keys("multi_get", keys), self.timeout.total_seconds())

    def multi_set(self, keys: list[str], values: list[str | bytes]) -> None:
        """Sets every key of ``keys`` to the matching value of ``values``."""
        names = _keys("multi_set", keys)
        vals = [_value("multi_set", v) for v in values]
        if len(names) != len(vals):
            raise ValueError("multi_set: keys and values must have the same length")
        self._multi_set(names, vals)

    def list_keys(self) -> list[str]:
        """Every key currently set."""
        return self._list_keys()

    def has_extended_api(self) -> bool:
        """True: append, multi_get and multi_set are native operations."""
        return True

    # -- primitives (bytes in, bytes out) -----------------------------------------------------
    def _set(self, key: str, value: bytes) -> None:
        raise NotImplementedError

    def _get(self, key: str, timeout: float) -> bytes:
        return self._multi_get([key], timeout)[0]

    def _add(self, key: str, amount: int) -> int:
        raise NotImplementedError

    def _compare_set(self, key: str, expected: bytes, desired: bytes) -> bytes:
        raise NotImplementedError

    def _wait(self, keys: list[str], timeout: float) -> None:
        raise NotImplementedError

    def _check(self, keys: list[str]) -> bool:
        raise NotImplementedError

    def _delete_key(self, key: str) -> bool:
        raise NotImplementedError

    def _num_keys(self) -> int:
        raise NotImplementedError

    def _append(self, key: str, value: bytes) -> None:
        raise NotImplementedError

    def _multi_get(self, keys: list[str], timeout: float) -> list[bytes]:
        raise NotImplementedError

    def _multi_set(self, keys: list[str], values: list[bytes]) -> None:
        for k, v in zip(keys, values, strict=True):
            self._set(k, v)

    def _list_keys(self) -> list[str]:
        raise NotImplementedError


def deadline_seconds(timeout: float) -> float | None:
    """A store timeout in seconds for a condition wait: 0 means no timeout, as torch's ``kNoTimeout``."""
    return None if timeout == 0 else max(timeout, 0.0)
