"""The TCPStore server and its wire format.

A frame is ``!BI`` (an op or a status byte, then the number of arguments) followed by each
argument as ``!I`` length + bytes. The server runs one daemon thread per connection: blocking
``get``/``wait`` requests carry their own timeout and park on the shared map's condition
variable, so a slow reader never blocks the other clients and every request gets exactly one
reply (a timed-out request answers TIMEOUT instead of leaving a late reply in the socket).
"""

from __future__ import annotations

import errno
import os
import socket
import struct
import threading

from .._errors import DistNetworkError
from ._hash import MemoryKV

MAGIC = b"ember-tcpstore-1"
_HEAD = struct.Struct("!BI")
_LEN = struct.Struct("!I")

# Requests.
PING, SET, GET, WAIT, ADD, CAS, CHECK, DELETE, NUM_KEYS, APPEND, MULTI_SET, LIST_KEYS = range(12)
# Replies.
OK, TIMEOUT, VALUE_ERROR, ERROR = range(4)

_RECV_CLOSED = "Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?"


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks = []
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise DistNetworkError(_RECV_CLOSED)
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def send_frame(sock: socket.socket, code: int, args: list[bytes]) -> None:
    parts = [_HEAD.pack(code, len(args))]
    for a in args:
        parts += [_LEN.pack(len(a)), a]
    sock.sendall(b"".join(parts))


def recv_frame(sock: socket.socket) -> tuple[int, list[bytes]]:
    code, n = _HEAD.unpack(_recv_exact(sock, _HEAD.size))
    return code, [_recv_exact(sock, _LEN.unpack(_recv_exact(sock, 4))[0]) for _ in range(n)]


def _listen(port: int) -> socket.socket:
    # Dual-stack where the host has IPv6, so clients may name the master by IPv4 or IPv6.
    try:
        if socket.has_dualstack_ipv6():
            return socket.create_server(("", port), family=socket.AF_INET6, dualstack_ipv6=True, backlog=128)
        return socket.create_server(("", port), backlog=128)
    except OSError as e:
        name = errno.errorcode.get(e.errno or 0, "UNKNOWN")
        raise DistNetworkError(
            "The server socket has failed to listen on any local network address. "
            f"port: {port}, useIpv6: false, code: {-(e.errno or 0)}, name: {name}, "
            f"message: {os.strerror(e.errno or 0).lower()}"
        ) from None


class StoreServer:
    """Serves one :class:`MemoryKV` on a TCP port until :meth:`close`."""

    def __init__(self, port: int, listen_fd: int | None = None) -> None:
        if listen_fd is not None:
            self._sock = socket.socket(fileno=listen_fd)
        else:
            self._sock = _listen(port)
        self.port: int = self._sock.getsockname()[1]
        self.kv = MemoryKV()
        self._conns: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept_loop, name="ember-tcpstore-accept", daemon=True).start()

    def _accept_loop(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return  # closed
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                if self._closed:
                    conn.close()
                    return
                self._conns.add(conn)
            threading.Thread(target=self._serve, args=(conn,), name="ember-tcpstore-conn", daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            while True:
                op, args = recv_frame(conn)
                code, out = self._handle(op, args)
                send_frame(conn, code, out)
        except (OSError, DistNetworkError, struct.error):
            pass  # the client went away
        finally:
            with self._lock:
                self._conns.discard(conn)
            conn.close()

    def _handle(self, op: int, a: list[bytes]) -> tuple[int, list[bytes]]:
        kv = self.kv
        try:
            if op == PING:
                return OK, [MAGIC]
            if op == SET:
                kv.set(a[0].decode(), a[1])
            elif op in (GET, WAIT):
                keys = [k.decode() for k in a[1:]]
                values = kv.multi_get(keys, float(a[0]))
                if values is None:
                    return TIMEOUT, []
                return OK, values if op == GET else []
            elif op == ADD:
                return OK, [str(kv.add(a[0].decode(), int(a[1]))).encode()]
            elif op == CAS:
                return OK, [kv.compare_set(a[0].decode(), a[1], a[2])]
            elif op == CHECK:
                return OK, [b"1" if kv.check([k.decode() for k in a]) else b"0"]
            elif op == DELETE:
                return OK, [b"1" if kv.delete(a[0].decode()) else b"0"]
            elif op == NUM_KEYS:
                return OK, [str(kv.num_keys()).encode()]
            elif op == APPEND:
                kv.append(a[0].decode(), a[1])
            elif op == MULTI_SET:
                kv.multi_set([k.decode() for k in a[0::2]], list(a[1::2]))
            elif op == LIST_KEYS:
                return OK, [k.encode() for k in kv.list_keys()]
            else:
                return ERROR, [f"unknown store request {op}".encode()]
        except ValueError as e:
            return VALUE_ERROR, [str(e).encode()]
        return OK, []

    def close(self) -> None:
        with self._lock:
            self._closed = True
            conns = list(self._conns)
        # shutdown() wakes the thread blocked in accept(); close() alone would not.
        for s in [self._sock, *conns]:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


_tenants: dict[int, list] = {}
_tenants_lock = threading.Lock()


def acquire_server(port: int, multi_tenant: bool, listen_fd: int | None) -> StoreServer:
    """A new server, or with ``multi_tenant`` the one this process already runs on ``port``."""
    with _tenants_lock:
        if multi_tenant and port in _tenants:
            _tenants[port][1] += 1
            return _tenants[port][0]
        server = StoreServer(port, listen_fd)
        if multi_tenant:
            _tenants[server.port] = [server, 1]
        return server


def release_server(server: StoreServer) -> None:
    with _tenants_lock:
        entry = _tenants.get(server.port)
        if entry is not None and entry[0] is server:
            entry[1] -= 1
            if entry[1] > 0:
                return
            del _tenants[server.port]
    server.close()
