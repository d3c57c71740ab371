"""A PMI-1 server: the rendezvous through which MPICH's processes start one ``MPI_COMM_WORLD``.

MPICH's simple PMI client connects to ``PMI_PORT`` (host:port) as process ``PMI_ID`` and speaks
PMI-1's line protocol (``cmd=... key=value``): the handshake, a key-value space per job, and
barriers. hydra (``mpiexec``) is one such server; this is another, so processes started by
ember-run, by torchrun or by hand join one real MPI job. It runs in a thread of a process that
is not itself an MPI rank (the launcher agent, or a small helper process): a rank blocks in
``MPI_Init`` holding the GIL.

    python -m ember.distributed._pmi_server WORLD_SIZE [LOCAL_SIZES]  # prints host:port
"""

from __future__ import annotations

import os
import selectors
import socket
import sys
import threading
import time
import uuid

_MAXES = "cmd=maxes kvsname_max=256 keylen_max=256 vallen_max=4096 rc=0\n"


def _parse(line: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for tok in line.split():
        k, _, v = tok.partition("=")
        out[k] = v
    return out


def process_mapping(local_sizes: list[int]) -> str:
    """MPICH's PMI_process_mapping: which ranks share a node (so they talk through shared
    memory). Ranks are numbered node by node."""
    if len(set(local_sizes)) == 1:
        return f"(vector,(0,{len(local_sizes)},{local_sizes[0]}))"
    return "(vector," + ",".join(f"({i},1,{n})" for i, n in enumerate(local_sizes)) + ")"


class _Client:
    __slots__ = ("sock", "buf", "rank", "finalized", "watcher")

    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.buf, self.rank, self.finalized = sock, b"", -1, False
        self.watcher = False  # ember's own connection: told when a rank is lost


class PMIServer:
    """Serves one job of ``world_size`` ranks (``local_sizes``: ranks per node, in node order)."""

    def __init__(self, world_size: int, local_sizes: list[int] | None = None,
                 host: str = "0.0.0.0", kvsname: str | None = None) -> None:
        if world_size < 1:
            raise ValueError(f"PMIServer: world_size must be positive, got {world_size}")
        local_sizes = local_sizes or [world_size]
        if sum(local_sizes) != world_size:
            raise ValueError(f"PMIServer: local_sizes {local_sizes} do not add up to {world_size}")
        self.world_size = world_size
        self.kvsname = kvsname or f"ember_{uuid.uuid4().hex[:16]}"
        self._kvs: dict[str, str] = {"PMI_process_mapping": process_mapping(local_sizes)}
        self._host = host
        self._sel = selectors.DefaultSelector()
        self._barrier: list[_Client] = []
        self._lost: set[int] = set()
        self._finalized: set[int] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._listener: socket.socket | None = None
        self.aborted: tuple[int, int, str] | None = None  # (rank, exit code, message)

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> tuple[str, int]:
        lsock = socket.create_server((self._host, 0), backlog=max(128, self.world_size))
        lsock.setblocking(False)
        self._listener = lsock
        self._sel.register(lsock, selectors.EVENT_READ, None)
        self._thread = threading.Thread(target=self._serve, name="ember-pmi-server", daemon=True)
        self._thread.start()
        return self._host, lsock.getsockname()[1]

    @property
    def port(self) -> int:
        assert self._listener is not None, "PMIServer.start() first"
        return self._listener.getsockname()[1]

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        for key in list(self._sel.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        self._sel.close()

    def lost_ranks(self) -> set[int]:
        """Ranks whose connection closed before they finalized: processes that died in MPI."""
        with self._lock:
            return set(self._lost)

    def finalized_ranks(self) -> set[int]:
        with self._lock:
            return set(self._finalized)

    def done(self) -> bool:
        """Every rank has finalized or is lost."""
        with self._lock:
            return len(self._finalized | self._lost) >= self.world_size

    # -- the event loop -------------------------------------------------------------------
    def _serve(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._sel.select(timeout=0.1):
                if key.data is None:
                    self._accept()
                else:
                    self._read(key.data)

    def _accept(self) -> None:
        assert self._listener is not None
        try:
            sock, _ = self._listener.accept()
        except BlockingIOError:
            return
        sock.setblocking(True)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sel.register(sock, selectors.EVENT_READ, _Client(sock))

    def _read(self, c: _Client) -> None:
        try:
            data = c.sock.recv(65536)
        except OSError:
            data = b""
        if not data:
            self._drop(c)
            return
        c.buf += data
        while b"\n" in c.buf:
            line, _, c.buf = c.buf.partition(b"\n")
            self._handle(c, line.decode(errors="replace"))

    def _drop(self, c: _Client) -> None:
        self._sel.unregister(c.sock)
        c.sock.close()
        with self._lock:
            lost = c.rank >= 0 and not c.finalized and not c.watcher
            if lost:
                self._lost.add(c.rank)
            if c in self._barrier:
                self._barrier.remove(c)
        if lost:
            self._tell_watchers(f"rank={c.rank} reason=exited_during_the_job")

    def _tell_watchers(self, what: str) -> None:
        for key in list(self._sel.get_map().values()):
            peer = key.data
            if isinstance(peer, _Client) and peer.watcher:
                self._send(peer, f"cmd=ember_lost {what}\n")

    def _send(self, c: _Client, text: str) -> None:
        try:
            c.sock.sendall(text.encode())
        except OSError:
            pass  # the reader notices the closed socket

    def _handle(self, c: _Client, line: str) -> None:
        msg = _parse(line)
        cmd = msg.get("cmd", "")
        if cmd == "initack":
            c.rank = int(msg.get("pmiid", "-1"))
            self._send(c, f"cmd=initack rc=0\ncmd=set size={self.world_size}\n"
                          f"cmd=set rank={c.rank}\ncmd=set debug=0\n")
        elif cmd == "init":
            self._send(c, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n")
        elif cmd == "get_maxes":
            self._send(c, _MAXES)
        elif cmd == "get_appnum":
            self._send(c, "cmd=appnum appnum=0 rc=0\n")
        elif cmd == "get_universe_size":
            self._send(c, f"cmd=universe_size size={self.world_size} rc=0\n")
        elif cmd == "get_my_kvsname":
            self._send(c, f"cmd=my_kvsname kvsname={self.kvsname} rc=0\n")
        elif cmd == "put":
            self._kvs[msg.get("key", "")] = msg.get("value", "")
            self._send(c, "cmd=put_result rc=0\n")
        elif cmd == "get":
            key = msg.get("key", "")
            if key in self._kvs:
                self._send(c, f"cmd=get_result rc=0 value={self._kvs[key]}\n")
            else:
                self._send(c, "cmd=get_result rc=-1 msg=key_not_found\n")
        elif cmd == "barrier_in":
            self._barrier.append(c)
            if len(self._barrier) >= self.world_size:
                for peer in self._barrier:
                    self._send(peer, "cmd=barrier_out rc=0\n")
                self._barrier.clear()
        elif cmd == "finalize":
            c.finalized = True
            with self._lock:
                self._finalized.add(c.rank)
            self._send(c, "cmd=finalize_ack rc=0\n")
        elif cmd == "abort":
            self.aborted = (c.rank, int(msg.get("exitcode", "1") or 1), msg.get("message", ""))
            with self._lock:
                self._lost.add(c.rank)
            self._tell_watchers(f"rank={c.rank} reason=aborted")
        elif cmd == "ember_watch":
            c.watcher = True
            c.rank = int(msg.get("rank", "-1"))
            if self._lost:
                self._send(c, f"cmd=ember_lost rank={min(self._lost)} reason=exited_during_the_job\n")
        else:
            self._send(c, f"cmd={cmd}_result rc=-1 msg=unknown_command\n")


def main(argv: list[str]) -> int:
    """The helper-process form: serve one job, print ``host:port``, exit when every rank has
    finalized or is lost, or when the parent (``--parent PID``) is gone."""
    size = int(argv[0])
    local = [int(x) for x in argv[1].split(",")] if len(argv) > 1 and argv[1] else None
    parent = int(os.environ.get("EMBER_PMI_PARENT", "0"))
    srv = PMIServer(size, local, host=os.environ.get("EMBER_PMI_HOST", "0.0.0.0"))
    _, port = srv.start()
    print(port, flush=True)
    while not srv.done():
        if parent and not _alive(parent):
            break
        time.sleep(0.2)
    srv.close()
    # MPICH unlinks its shared-memory segment at a clean finalize; after a killed or aborted
    # rank, this job's segments (named from our kvsname) would stay in /dev/shm.
    from .launcher._shm import ShmTracker

    shm = ShmTracker()
    shm.expect_kvs(srv.kvsname)
    shm.cleanup()
    return 0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
