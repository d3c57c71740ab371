"""``TCPStore``: a store served over TCP by the master process, shared by every rank."""

from __future__ import annotations

import random
import socket
import threading
import time
import weakref
from datetime import timedelta

from .._errors import DistNetworkError, DistStoreError
from . import _tcp_server as P
from ._base import DEFAULT_TIMEOUT, Store

# Every store constructed with world_size and wait_for_workers counts itself here; torch's
# TCPStore does the same, which is why its num_keys() includes one internal key.
_INIT_KEY = "init/"


def _connect(host: str, port: int, timeout: float) -> socket.socket:
    """Connects and validates, retrying (the master may start later) until ``timeout``."""
    deadline = time.monotonic() + timeout
    delay = 0.02
    while True:
        left = deadline - time.monotonic()
        try:
            sock = socket.create_connection((host, port), timeout=max(left, 0.01))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            P.send_frame(sock, P.PING, [P.MAGIC])
            code, args = P.recv_frame(sock)
            if code != P.OK or args != [P.MAGIC]:
                sock.close()
                raise DistNetworkError(f"{host}:{port} is not an ember TCPStore server")
            return sock
        except (OSError, DistNetworkError) as e:
            if isinstance(e, DistNetworkError) and "not an ember" in str(e):
                raise
            left = deadline - time.monotonic()
            if left <= 0:
                raise DistNetworkError(
                    f"The client socket has timed out after {int(timeout * 1000)}ms "
                    f"while trying to connect to ({host}, {port})."
                ) from None
        # Jittered backoff so many ranks starting together do not hammer the master in step.
        time.sleep(min(delay * (0.5 + random.random()), left))
        delay = min(delay * 2, 1.0)


class TCPStore(Store):
    """A TCP key-value store. The master (``is_master=True``) serves it from a daemon thread
    of this process; every instance, the master's included, is a client of that server."""

    def __init__(
        self,
        host_name: str,
        port: int,
        world_size: int | None = None,
        is_master: bool = False,
        timeout: timedelta = DEFAULT_TIMEOUT,
        wait_for_workers: bool = True,
        multi_tenant: bool = False,
        master_listen_fd: int | None = None,
        use_libuv: bool = True,
    ) -> None:
        super().__init__(timeout)
        if not isinstance(host_name, str) or not isinstance(port, int):
            raise TypeError("__init__(): incompatible function arguments. TCPStore(host_name: str, port: int, ...)")
        self._host = host_name
        self._libuv = bool(use_libuv)
        self._lock = threading.Lock()
        self._server: P.StoreServer | None = None
        if is_master:
            self._server = P.acquire_server(port, multi_tenant, master_listen_fd)
            port = self._server.port
            # The server outlives nothing but this object: stop it when the master store goes.
            self._finalizer = weakref.finalize(self, P.release_server, self._server)
        self._port = port
        secs = timeout.total_seconds()
        try:
            self._sock = _connect(host_name, port, secs)
            if world_size is not None and wait_for_workers:
                self.add(_INIT_KEY, 1)
                if self._server is not None:
                    joined = self._server.kv.wait_at_least(_INIT_KEY, world_size, secs)
                    if joined < world_size:
                        raise DistStoreError(
                            f"Timed out after {secs:g} seconds waiting for clients. "
                            f"{joined}/{world_size} clients joined."
                        )
        except BaseException:
            if self._server is not None:
                self._finalizer()
            raise

    @property
    def host(self) -> str:
        return self._host

    @property
    def port(self) -> int:
        return self._port

    @property
    def libuvBackend(self) -> bool:  # noqa: N802  (torch's spelling)
        return self._libuv

    def clone(self) -> TCPStore:
        """A new client connection to the same server."""
        return TCPStore(self._host, self._port, is_master=False, timeout=self.timeout, wait_for_workers=False)

    def _request(self, op: int, args: list[bytes], wait: float | None = None) -> tuple[int, list[bytes]]:
        # A silently lost server must not hang a client forever: allow the op's own wait plus
        # slack. A timeout of 0 means "no timeout" (torch's kNoTimeout).
        limit = self.timeout.total_seconds() if wait is None else wait
        with self._lock:
            self._sock.settimeout(None if limit == 0 else limit + 30)
            try:
                P.send_frame(self._sock, op, args)
                code, out = P.recv_frame(self._sock)
            except (TimeoutError, OSError) as e:
                raise DistNetworkError(f"TCPStore connection to {self._host}:{self._port} failed: {e}") from None
        if code == P.VALUE_ERROR:
            raise ValueError(out[0].decode())
        if code == P.ERROR:
            raise DistStoreError(out[0].decode())
        return code, out

    def _timeout_error(self, keys: list[str], timeout: float) -> DistStoreError:
        names = ", ".join("/" + k for k in keys)
        return DistStoreError(f"wait timeout after {int(timeout * 1000)}ms, keys: {names}")

    def _set(self, key: str, value: bytes) -> None:
        self._request(P.SET, [key.encode(), value])

    def _multi_get(self, keys: list[str], timeout: float) -> list[bytes]:
        code, out = self._request(P.GET, [repr(timeout).encode(), *(k.encode() for k in keys)], timeout)
        if code == P.TIMEOUT:
            raise self._timeout_error(keys, timeout)
        return out

    def _wait(self, keys: list[str], timeout: float) -> None:
        code, _ = self._request(P.WAIT, [repr(timeout).encode(), *(k.encode() for k in keys)], timeout)
        if code == P.TIMEOUT:
            raise self._timeout_error(keys, timeout)

    def _add(self, key: str, amount: int) -> int:
        return int(self._request(P.ADD, [key.encode(), str(amount).encode()])[1][0])

    def _compare_set(self, key: str, expected: bytes, desired: bytes) -> bytes:
        return self._request(P.CAS, [key.encode(), expected, desired])[1][0]

    def _check(self, keys: list[str]) -> bool:
        return self._request(P.CHECK, [k.encode() for k in keys])[1][0] == b"1"

    def _delete_key(self, key: str) -> bool:
        return self._request(P.DELETE, [key.encode()])[1][0] == b"1"

    def _num_keys(self) -> int:
        return int(self._request(P.NUM_KEYS, [])[1][0])

    def _append(self, key: str, value: bytes) -> None:
        self._request(P.APPEND, [key.encode(), value])

    def _multi_set(self, keys: list[str], values: list[bytes]) -> None:
        flat = [x for k, v in zip(keys, values, strict=True) for x in (k.encode(), v)]
        self._request(P.MULTI_SET, flat)

    def _list_keys(self) -> list[str]:
        return [k.decode() for k in self._request(P.LIST_KEYS, [])[1] if k != _INIT_KEY.encode()]

    def __del__(self) -> None:
        sock = getattr(self, "_sock", None)
        if sock is not None:
            sock.close()
