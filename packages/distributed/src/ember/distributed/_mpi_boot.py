"""Bringing MPI up once per process, however the process was started.

- Under an MPI launcher (``mpiexec``, ``srun``, Open MPI's ``mpirun``): plain ``MPI_Init``;
  rank and size come from MPI.
- Otherwise (ember-run, torchrun, processes started by hand with RANK/WORLD_SIZE): the ranks
  meet through a PMI-1 server (``_pmi_server``): ember-run's agent hosts it and names it in
  ``EMBER_PMI_ADDR``; else rank 0 starts it as a helper process and publishes its address in
  the store. Every rank checks in through the store (with the timeout) before ``MPI_Init``,
  which would otherwise hang on a missing rank.

``MPI_Init`` runs once per process, so a later ``init_process_group`` reuses the world.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from typing import Any

from ._errors import DistBackendError

_LAUNCHER_VARS = ("PMI_FD", "PMI_PORT", "PMIX_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK")
_state: dict[str, Any] = {"broken": None, "server": None, "generation": 0}


def under_mpi_launcher() -> bool:
    """Started by mpiexec/srun/mpirun: MPI itself knows rank and size."""
    return any(v in os.environ for v in _LAUNCHER_VARS)


def launcher_rank_size() -> tuple[int, int] | None:
    for r, s in (("PMI_RANK", "PMI_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
                 ("PMIX_RANK", "PMIX_SIZE"), ("SLURM_PROCID", "SLURM_NTASKS")):
        if r in os.environ and s in os.environ:
            return int(os.environ[r]), int(os.environ[s])
    return None


def mpi() -> Any:
    """The mpi4py.MPI module, MPI not yet initialised by importing it."""
    if "mpi" in _state:
        return _state["mpi"]
    try:
        import mpi4py
    except ImportError as exc:  # pragma: no cover - a dependency of ember-distributed
        raise RuntimeError("ember.distributed needs mpi4py and an MPI library: "
                           "pip install mpi4py mpich (ember-distributed depends on both)") from exc
    mpi4py.rc.initialize = False
    mpi4py.rc.finalize = False  # _finalize below: never a hang at exit after a failure
    from mpi4py import MPI

    _state["mpi"] = MPI
    return MPI


def initialized() -> bool:
    return "mpi4py.MPI" in sys.modules and mpi().Is_initialized()


def check_failed() -> str | None:
    """Why this process's MPI job can no longer be trusted, or None."""
    return _state["broken"]


def mark_broken(reason: str) -> None:
    if _state["broken"] is None:
        _state["broken"] = reason


def boot(rank: int, world_size: int, store: Any, timeout: float) -> Any:
    """MPI_COMM_WORLD of a job of ``world_size`` ranks in which this process is ``rank``."""
    MPI = mpi()
    if not MPI.Is_initialized():
        if not under_mpi_launcher():
            _rendezvous(rank, world_size, store, timeout)
        MPI.Init_thread(MPI.THREAD_MULTIPLE)
        for var in ("PMI_PORT", "PMI_ID"):  # children (DataLoader workers) must not rejoin
            os.environ.pop(var, None)
        import atexit

        atexit.register(_finalize)
        _install_abort_hook()
    world = MPI.COMM_WORLD
    if world.Get_size() != world_size or world.Get_rank() != rank:
        raise ValueError(
            f"init_process_group: this process already belongs to an MPI job of "
            f"{world.Get_size()} ranks as rank {world.Get_rank()}; it cannot join one of "
            f"{world_size} ranks as rank {rank} (MPI starts once per process)")
    world.Set_errhandler(MPI.ERRORS_RETURN)
    return world


def _host_for_peers(store: Any) -> str:
    host = os.environ.get("MASTER_ADDR") or getattr(store, "host", None)
    if host:
        return host
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"


def _rendezvous(rank: int, world_size: int, store: Any, timeout: float) -> None:
    """Set PMI_PORT/PMI_ID so MPI_Init joins the job's PMI server; every rank checks in first."""
    addr = os.environ.get("EMBER_PMI_ADDR")
    if addr is None:
        if store is None:
            raise ValueError("init_process_group: starting MPI outside an MPI launcher needs a "
                             "store (env://, tcp://, file:// or store=) for the rendezvous")
        if rank == 0:
            addr = f"{_host_for_peers(store)}:{_start_server(world_size)}"
            store.set("ember/pmi_addr", addr)
        else:
            store.wait(["ember/pmi_addr"])
            addr = store.get("ember/pmi_addr").decode()
    if store is not None:
        _check_in(rank, world_size, store, timeout)
    os.environ["PMI_PORT"] = addr
    os.environ["PMI_ID"] = str(rank)
    _start_watch(addr, rank)


def _check_in(rank: int, world_size: int, store: Any, timeout: float) -> None:
    """Every rank arrives before any calls MPI_Init. Two phases: MPI_Init holds the GIL, so a
    rank hosting the store (rank 0, env://) must not enter it while a peer still needs an
    answer from it -- rank 0 waits until every peer has seen the full count."""
    deadline = time.monotonic() + timeout

    def wait_for(key: str, want: int, what: str) -> None:
        while True:
            n = store.add(key, 0)
            if n >= want:
                return
            if time.monotonic() > deadline:
                raise DistBackendError(
                    f"init_process_group: timed out after {timeout:g} s waiting for the other "
                    f"ranks: {n} of {want} ranks {what} (rank {rank} is waiting)")
            time.sleep(0.005)

    store.add("ember/pmi_arrived", 1)
    wait_for("ember/pmi_arrived", world_size, "arrived")
    if rank != 0:
        store.add("ember/pmi_go", 1)  # this rank's last store call before MPI_Init
    else:
        wait_for("ember/pmi_go", world_size - 1, "are ready to start MPI")


def _start_server(world_size: int) -> int:
    env = {**os.environ, "EMBER_PMI_PARENT": str(os.getpid())}
    # Its own stdio: an inherited pipe of the rank's would outlive the rank and hang readers.
    proc = subprocess.Popen([sys.executable, "-m", "ember.distributed._pmi_server", str(world_size)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode().strip()
    if not line.isdigit():
        raise DistBackendError(f"init_process_group: the MPI rendezvous server did not start "
                               f"(exit code {proc.poll()})")
    _state["server"] = proc
    return int(line)


def _start_watch(addr: str, rank: int) -> None:
    """A thread connected to the PMI server: told when a peer dies, it marks the job broken,
    so waits fail at once instead of at the timeout."""
    host, _, port = addr.rpartition(":")

    def run() -> None:
        try:
            sock = socket.create_connection((host, int(port)), timeout=10)
            sock.settimeout(None)
            sock.sendall(f"cmd=ember_watch rank={rank}\n".encode())
            buf = b""
            while True:
                data = sock.recv(4096)
                if not data:
                    mark_broken("the MPI rendezvous server is gone (rank 0's process died)")
                    return
                buf += data
                while b"\n" in buf:
                    line, _, buf = buf.partition(b"\n")
                    text = line.decode(errors="replace")
                    if "cmd=ember_lost" in text:
                        mark_broken(f"a peer process failed ({text.split(' ', 1)[1]})")
        except OSError:
            return

    threading.Thread(target=run, name="ember-dist-watch", daemon=True).start()


def _install_abort_hook() -> None:
    """An uncaught exception aborts the MPI job, so the other ranks stop instead of waiting
    (mpiexec does not end a job whose rank merely exits non-zero)."""
    previous = sys.excepthook

    def hook(tp: Any, value: Any, tb: Any) -> None:
        previous(tp, value, tb)
        sys.stderr.flush()
        time.sleep(0.2)  # let the launcher forward the traceback before the abort kills us
        mark_broken("this process raised")
        try:
            mpi().COMM_WORLD.Abort(1)
        finally:
            os._exit(1)

    sys.excepthook = hook


def _finalize() -> None:
    MPI = mpi()
    if MPI.Is_finalized() or not MPI.Is_initialized():
        return
    if _state["broken"] is not None:
        sys.stdout.flush()
        sys.stderr.flush()
        # MPI_Finalize would wait for peers that are gone; a plain exit would leave a peer that is
        # still alive to wait in its own MPI_Finalize for this rank (mpiexec ends a job on an abort,
        # not on a non-zero exit): abort the job
        try:
            MPI.COMM_WORLD.Abort(1)
        finally:
            os._exit(1)
    MPI.Finalize()
