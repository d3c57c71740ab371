"""``FileStore``: a store shared through a file, by the processes of one machine or a shared FS.

The file is an append-only log of ``set``/``delete`` records. Writers hold an exclusive
``flock`` while they read the tail and append; readers hold a shared one and replay only the
bytes they have not seen, so every process converges on the same map without a server.
Blocking reads poll (there is no cross-process notification on a plain file).
"""

from __future__ import annotations

import fcntl
import os
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from .._errors import DistStoreError
from ._base import DEFAULT_TIMEOUT, Store
from ._hash import add_to

_REC = struct.Struct("!cII")  # kind (S/D), key length, value length
# torch's FileStore keeps these two internal counters in the file too (num_keys counts them):
# the file is deleted when the last instance closes after world_size instances have.
_REFCOUNT, _CLEANUP = "refcount/", "cleanup/"
_POLL = 0.01


class FileStore(Store):
    """A store backed by ``file_name``; ``world_size`` instances (-1: unknown) share it."""

    def __init__(self, file_name: str, world_size: int = -1, timeout: timedelta = DEFAULT_TIMEOUT) -> None:
        super().__init__(timeout)
        if not isinstance(file_name, str):
            raise TypeError(
                "__init__(): incompatible function arguments. FileStore(file_name: str, world_size: int = -1)"
            )
        self._path = file_name
        self._world_size = world_size
        self._data: dict[str, bytes] = {}
        self._pos = 0
        # flock is per open file description: threads of this process share it, so they
        # also need an ordinary lock among themselves.
        self._tlock = threading.RLock()
        self._fd = os.open(file_name, os.O_RDWR | os.O_CREAT, 0o644)
        self._closed = False
        with self._locked(exclusive=True):
            self._write_set(_REFCOUNT, add_to(self._data.get(_REFCOUNT), 1))

    @property
    def path(self) -> str:
        return self._path

    @contextmanager
    def _locked(self, exclusive: bool) -> Iterator[None]:
        with self._tlock:
            fcntl.flock(self._fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            try:
                self._replay()
                yield
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def _replay(self) -> None:
        size = os.fstat(self._fd).st_size
        if size < self._pos:  # the file was removed and recreated: start over
            self._data.clear()
            self._pos = 0
        if size == self._pos:
            return
        buf = os.pread(self._fd, size - self._pos, self._pos)
        off = 0
        while off + _REC.size <= len(buf):
            kind, klen, vlen = _REC.unpack_from(buf, off)
            end = off + _REC.size + klen + vlen
            if end > len(buf):
                break
            key = buf[off + _REC.size : off + _REC.size + klen].decode()
            if kind == b"S":
                self._data[key] = buf[end - vlen : end]
            else:
                self._data.pop(key, None)
            off = end
        self._pos += off

    def _write(self, kind: bytes, key: str, value: bytes) -> None:
        k = key.encode()
        rec = _REC.pack(kind, len(k), len(value)) + k + value
        os.pwrite(self._fd, rec, self._pos)
        self._pos += len(rec)

    def _write_set(self, key: str, value: bytes) -> None:
        self._write(b"S", key, value)
        self._data[key] = value

    def _poll(self, keys: list[str], timeout: float) -> bool:
        deadline = None if timeout == 0 else time.monotonic() + timeout
        while True:
            with self._locked(exclusive=False):
                if all(k in self._data for k in keys):
                    return True
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(_POLL)

    # -- primitives ---------------------------------------------------------------------------
    def _set(self, key: str, value: bytes) -> None:
        with self._locked(exclusive=True):
            self._write_set(key, value)

    def _get(self, key: str, timeout: float) -> bytes:
        if not self._poll([key], timeout):
            raise DistStoreError(f"Timeout waiting for key: {key} after {int(timeout * 1000)} ms")
        with self._locked(exclusive=False):
            return self._data[key]

    def _multi_get(self, keys: list[str], timeout: float) -> list[bytes]:
        return [self._get(k, timeout) for k in keys]

    def _wait(self, keys: list[str], timeout: float) -> None:
        if not self._poll(keys, timeout):
            raise DistStoreError("Wait timeout")

    def _add(self, key: str, amount: int) -> int:
        with self._locked(exclusive=True):
            value = add_to(self._data.get(key), amount)
            self._write_set(key, value)
            return int(value)

    def _compare_set(self, key: str, expected: bytes, desired: bytes) -> bytes:
        with self._locked(exclusive=True):
            current = self._data.get(key)
            if current is None and expected:
                return expected
            if current is not None and current != expected:
                return current
            self._write_set(key, desired)
            return desired

    def _check(self, keys: list[str]) -> bool:
        with self._locked(exclusive=False):
            return all(k in self._data for k in keys)

    def _delete_key(self, key: str) -> bool:
        with self._locked(exclusive=True):
            if key not in self._data:
                return False
            self._write(b"D", key, b"")
            del self._data[key]
            return True

    def _num_keys(self) -> int:
        with self._locked(exclusive=False):
            return len(self._data)

    def _append(self, key: str, value: bytes) -> None:
        with self._locked(exclusive=True):
            self._write_set(key, self._data.get(key, b"") + value)

    def _multi_set(self, keys: list[str], values: list[bytes]) -> None:
        with self._locked(exclusive=True):
            for k, v in zip(keys, values, strict=True):
                self._write_set(k, v)

    def _list_keys(self) -> list[str]:
        with self._locked(exclusive=False):
            return [k for k in self._data if k not in (_REFCOUNT, _CLEANUP)]

    def close(self) -> None:
        """Releases this instance; the last of ``world_size`` instances removes the file."""
        if self._closed:
            return
        self._closed = True
        try:
            with self._locked(exclusive=True):
                done = int(add_to(self._data.get(_CLEANUP), 1))
                self._write_set(_CLEANUP, str(done).encode())
                refs = int(add_to(self._data.get(_REFCOUNT), -1))
                self._write_set(_REFCOUNT, str(refs).encode())
                if refs == 0 and 0 <= self._world_size <= done:
                    os.unlink(self._path)
        except OSError:
            pass
        finally:
            os.close(self._fd)

    def __del__(self) -> None:
        if getattr(self, "_fd", None) is not None:
            self.close()
