"""A message channel between two processes that carries tensors in shared memory.

Each message is pickled; every tensor in it is written as a reference to a shared-memory
segment whose file descriptor travels *with the message* (SCM_RIGHTS on an AF_UNIX
SOCK_SEQPACKET socket pair). Nothing is named, nothing is registered anywhere: a
segment lives while some process holds it, so a process killed mid-transfer leaves
nothing behind. The DataLoader uses one channel per worker, in both directions.

Wire format: a message is one or more records; each record starts with a 9-byte header
(payload bytes in this record, fds in this record, 1 if more records follow).
"""

from __future__ import annotations

import array
import collections
import io
import os
import pickle
import socket
import struct
import threading
from typing import Any

from ember.multiprocessing import _shared_memory as shm
from ember.multiprocessing.reductions import _check_autograd, _finish

_HEADER = struct.Struct("<IIB")
_CHUNK = 64 * 1024  # payload per record: well under the default socket buffer
_MAX_FDS = 250  # per record; the kernel's limit (SCM_MAX_FD) is 253
_FD_SIZE = array.array("i").itemsize

_local = threading.local()


def _cmsg_space(nfds: int) -> int:
    return socket.CMSG_SPACE(nfds * _FD_SIZE)


class _Pickler(pickle.Pickler):
    """Writes each tensor as (segment fd index, geometry); collects the fds to send."""

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.fds: list[int] = []
        self._index: dict[tuple[int, int], int] = {}
        self.keep: list[Any] = []  # segments made here stay mapped until the send is done

    def reducer_override(self, obj: Any) -> Any:
        from ember import Tensor

        if not isinstance(obj, Tensor):
            return NotImplemented
        _check_autograd(obj)
        seg = shm.segment_of(obj)
        t = obj
        if seg is None or seg.fd < 0:  # copy just this tensor's elements, not its whole storage
            t = shm.copy_to_shared(obj)
            seg = shm.segment_of(t)
            self.keep.append(t)
        i = self._index.get(seg.uid)
        if i is None:
            i = self._index[seg.uid] = len(self.fds)
            self.fds.append(seg.fd)
        return _rebuild, (i, seg.nbytes, seg.uid, shm.DTYPE_NAMES[t.dtype], list(t.shape), list(t.stride()),
                          t.storage_offset(), type(obj), bool(obj.requires_grad))


def _rebuild(i: int, nbytes: int, uid: tuple[int, int], dtype: str, sizes: list[int], strides: list[int],
             offset: int, cls: type, requires_grad: bool) -> Any:
    fds: list[int] = _local.fds
    fd = fds[i]
    if fd < 0:  # a second tensor on the same segment in this message
        seg = shm._by_uid[uid]
    else:
        fds[i] = -1
        seg = shm.Segment.attach(fd, nbytes, uid, keep_fd=_local.keep_fds)
        _local.segments.append(seg)
    return _finish(seg.tensor(shm.DTYPES_BY_NAME[dtype], sizes, strides, offset), cls, requires_grad)


class ChannelClosed(EOFError):
    """The other end of the channel is gone."""


class Channel:
    """One end of a bidirectional, message-oriented link carrying shared tensors."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self.bytes_sent = 0  # payload bytes, for tests that check no data is pickled
        self.bytes_received = 0
        self._send_lock = threading.Lock()
        self._backlog: collections.deque[Any] = collections.deque()
        self._backlog_thread: threading.Thread | None = None

    @classmethod
    def pair(cls) -> tuple[Channel, Channel]:
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        return cls(a), cls(b)

    def fileno(self) -> int:
        return self._sock.fileno()

    @property
    def closed(self) -> bool:
        return self._sock.fileno() < 0

    def close(self) -> None:
        self._sock.close()

    def __reduce__(self) -> tuple[Any, ...]:
        # Travels to spawn/forkserver children as a socket (ForkingPickler passes its fd).
        return Channel, (self._sock,)

    # ------------------------------------------------------------------ sending
    def send(self, obj: Any, block: bool = True) -> None:
        """Send ``obj``. With ``block=False`` this never waits: whatever the socket buffer
        cannot take now is sent, in order, by a helper thread (so that a process that
        both sends and receives can never deadlock with its peer)."""
        buf = io.BytesIO()
        p = _Pickler(buf)
        p.dump(obj)
        self.send_bytes(buf.getbuffer(), p.fds, block=block, keep=p.keep)

    def _records(self, payload: Any, fds: Any) -> list[tuple[list[Any], list[Any]]]:
        view = memoryview(payload).cast("B")
        total, pos, fpos, out = len(view), 0, 0, []
        while True:
            chunk = view[pos:pos + _CHUNK]
            group = fds[fpos:fpos + _MAX_FDS]
            pos += len(chunk)
            fpos += len(group)
            more = pos < total or fpos < len(fds)
            anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", group))] if group else []
            out.append(([_HEADER.pack(len(chunk), len(group), more), chunk], anc))
            if not more:
                return out

    def send_bytes(self, payload: Any, fds: Any = (), block: bool = True, keep: Any = None) -> None:
        records = self._records(payload, list(fds))
        try:
            with self._send_lock:
                if self._backlog:  # keep the order: queue behind what is waiting
                    self._backlog.append((records, keep))
                    return
                for i, (bufs, anc) in enumerate(records):
                    try:
                        self._sock.sendmsg(bufs, anc, 0 if block else socket.MSG_DONTWAIT)
                    except BlockingIOError:
                        self._start_backlog(records[i:], keep)
                        return
        except (BrokenPipeError, ConnectionResetError, OSError) as e:
            if isinstance(e, (BrokenPipeError, ConnectionResetError)) or self.closed:
                raise ChannelClosed(str(e)) from None
            raise
        self.bytes_sent += len(payload)

    def _start_backlog(self, records: list[Any], keep: Any) -> None:
        self._backlog.append((records, keep))
        if self._backlog_thread is None or not self._backlog_thread.is_alive():
            self._backlog_thread = threading.Thread(target=self._drain_backlog, daemon=True,
                                                    name="ember-channel-backlog")
            self._backlog_thread.start()

    def _drain_backlog(self) -> None:
        while True:
            with self._send_lock:
                if not self._backlog:
                    return
                records, _keep = self._backlog[0]
            try:
                for bufs, anc in records:
                    self._sock.sendmsg(bufs, anc)
            except OSError:
                with self._send_lock:
                    self._backlog.clear()  # the peer is gone: nobody will read these
                return
            with self._send_lock:
                self._backlog.popleft()

    # ---------------------------------------------------------------- receiving
    def recv_bytes(self) -> tuple[bytes, list[int]]:
        parts: list[bytes] = []
        fds: list[int] = []
        try:
            while True:
                data, anc, flags, _ = self._sock.recvmsg(_HEADER.size + _CHUNK, _cmsg_space(_MAX_FDS))
                for level, kind, raw in anc:
                    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                        got = array.array("i")
                        got.frombytes(raw[: len(raw) - len(raw) % _FD_SIZE])
                        fds.extend(got)
                if not data:
                    raise ChannelClosed("the other end of the channel closed")
                if flags & socket.MSG_CTRUNC:
                    raise RuntimeError("ember channel: file descriptors were dropped in transit; this process "
                                       "is probably out of file descriptors (see `ulimit -n`)")
                if flags & socket.MSG_TRUNC:
                    raise RuntimeError("ember channel: a record was truncated")
                size, _nfds, more = _HEADER.unpack_from(data)
                parts.append(data[_HEADER.size:_HEADER.size + size])
                if not more:
                    break
        except ConnectionResetError as e:  # the peer died with messages it never read
            for fd in fds:
                os.close(fd)
            raise ChannelClosed(str(e)) from None
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        payload = parts[0] if len(parts) == 1 else b"".join(parts)
        self.bytes_received += len(payload)
        return payload, fds

    def recv(self, keep_fds: bool = True) -> Any:
        """The next message. With ``keep_fds=False`` the tensors in it hold no file
        descriptor (only their mapping), so a process can keep any number of them; passing
        one on to another process then copies it."""
        payload, fds = self.recv_bytes()
        _local.fds, _local.segments, _local.keep_fds = fds, [], keep_fds
        try:
            return pickle.loads(payload)
        finally:
            for fd in fds:  # fds that no tensor claimed (e.g. a failed unpickle)
                if fd >= 0:
                    os.close(fd)
            _local.fds = _local.segments = None

    def poll(self, timeout: float | None = 0.0) -> bool:
        from multiprocessing.connection import wait

        return bool(wait([self._sock], timeout))
