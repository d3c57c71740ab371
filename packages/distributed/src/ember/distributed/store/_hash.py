"""``HashStore`` and the thread-safe in-memory map it shares with the TCPStore server."""

from __future__ import annotations

import threading
from datetime import timedelta

from .._errors import DistStoreError
from ._base import DEFAULT_TIMEOUT, Store, deadline_seconds


def add_to(current: bytes | None, amount: int) -> bytes:
    """The counter arithmetic of ``add``: values are decimal ASCII, as torch stores them."""
    try:
        base = 0 if current is None else int(current)
    except ValueError:
        # torch fails inside std::stoll; say which value it could not read.
        raise ValueError(f"add: the stored value {current!r} is not an integer") from None
    return str(base + amount).encode()


class MemoryKV:
    """A dict guarded by one condition variable: writers notify, blocking readers wait on it.

    Timeouts are reported as ``None`` / ``False`` so each store can raise torch's own message.
    """

    def __init__(self) -> None:
        self._data: dict[str, bytes] = {}
        self._cond = threading.Condition()

    def set(self, key: str, value: bytes) -> None:
        with self._cond:
            self._data[key] = value
            self._cond.notify_all()

    def multi_set(self, keys: list[str], values: list[bytes]) -> None:
        with self._cond:
            self._data.update(zip(keys, values, strict=True))
            self._cond.notify_all()

    def wait(self, keys: list[str], timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: all(k in self._data for k in keys), deadline_seconds(timeout))

    def multi_get(self, keys: list[str], timeout: float) -> list[bytes] | None:
        with self._cond:
            if not self.wait(keys, timeout):
                return None
            return [self._data[k] for k in keys]

    def add(self, key: str, amount: int) -> int:
        with self._cond:
            value = add_to(self._data.get(key), amount)
            self._data[key] = value
            self._cond.notify_all()
            return int(value)

    def wait_at_least(self, key: str, target: int, timeout: float) -> int:
        """Waits until the counter at ``key`` reaches ``target``; returns its last value."""
        with self._cond:
            self._cond.wait_for(lambda: int(self._data.get(key, b"0")) >= target, deadline_seconds(timeout))
            return int(self._data.get(key, b"0"))

    def compare_set(self, key: str, expected: bytes, desired: bytes) -> bytes:
        with self._cond:
            current = self._data.get(key)
            if current is None:
                if expected:
                    return expected
            elif current != expected:
                return current
            self._data[key] = desired
            self._cond.notify_all()
            return desired

    def check(self, keys: list[str]) -> bool:
        with self._cond:
            return all(k in self._data for k in keys)

    def delete(self, key: str) -> bool:
        with self._cond:
            return self._data.pop(key, None) is not None

    def num_keys(self) -> int:
        with self._cond:
            return len(self._data)

    def append(self, key: str, value: bytes) -> None:
        with self._cond:
            self._data[key] = self._data.get(key, b"") + value
            self._cond.notify_all()

    def list_keys(self) -> list[str]:
        with self._cond:
            return list(self._data)


class HashStore(Store):
    """A thread-safe store in this process's memory (threads of one process share it)."""

    def __init__(self, timeout: timedelta = DEFAULT_TIMEOUT) -> None:
        super().__init__(timeout)
        self._kv = MemoryKV()

    def _set(self, key: str, value: bytes) -> None:
        self._kv.set(key, value)

    def _multi_get(self, keys: list[str], timeout: float) -> list[bytes]:
        values = self._kv.multi_get(keys, timeout)
        if values is None:
            raise DistStoreError("Wait timeout")
        return values

    def _wait(self, keys: list[str], timeout: float) -> None:
        if not self._kv.wait(keys, timeout):
            raise DistStoreError("Wait timeout")

    def _add(self, key: str, amount: int) -> int:
        return self._kv.add(key, amount)

    def _compare_set(self, key: str, expected: bytes, desired: bytes) -> bytes:
        return self._kv.compare_set(key, expected, desired)

    def _check(self, keys: list[str]) -> bool:
        return self._kv.check(keys)

    def _delete_key(self, key: str) -> bool:
        return self._kv.delete(key)

    def _num_keys(self) -> int:
        return self._kv.num_keys()

    def _append(self, key: str, value: bytes) -> None:
        self._kv.append(key, value)

    def _multi_set(self, keys: list[str], values: list[bytes]) -> None:
        self._kv.multi_set(keys, values)

    def _list_keys(self) -> list[str]:
        return self._kv.list_keys()
