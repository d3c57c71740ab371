"""The agents' rendezvous: one agent hosts a TCPStore; every agent registers its node there.

Per restart round ``r`` the keys live under ``rdzv/<run_id>/<r>/``:
``node/<i>`` (node i's worker count), ``closed`` (the node count, c10d backend only),
``ember/pmi_addr`` and ``ember/pmi_kvs`` (published by the store host), ``failed`` (the first
failure of the round), ``done/<i>`` and ``exit_ack``. The same TCPStore serves the workers
(``TORCHELASTIC_USE_AGENT_STORE=True``), under their own ``/worker/attempt_<r>`` prefix.
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass
from datetime import timedelta

from .._errors import DistNetworkError, DistStoreError
from ..store import PrefixStore, TCPStore
from .config import LaunchConfig

_POLL = 0.05


def _is_local(host: str) -> bool:
    """True when ``host`` names this machine (binding to one of its addresses succeeds)."""
    if host in ("localhost", "127.0.0.1", "::1", socket.gethostname(), socket.getfqdn()):
        return True
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    for family, _, _, _, addr in infos:
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.bind((addr[0], 0))
            return True
        except OSError:
            continue
    return False


@dataclass
class Round:
    """This node's place in one round: global sizes and the shared keys of the round."""

    index: int
    store: PrefixStore
    node_rank: int
    nnodes: int
    local_sizes: list[int]

    @property
    def world_size(self) -> int:
        return sum(self.local_sizes)

    @property
    def rank_offset(self) -> int:
        return sum(self.local_sizes[: self.node_rank])


class Rendezvous:
    """Hosts or joins the agents' store, then runs one registration per restart round."""

    def __init__(self, cfg: LaunchConfig) -> None:
        self.cfg = cfg
        host, _, port = cfg.rdzv_endpoint.rpartition(":")
        self.master_addr = host.strip("[]") or "127.0.0.1"
        timeout = timedelta(seconds=cfg.join_timeout)
        self.is_host = False
        if cfg.rdzv_backend == "static":
            self.is_host = cfg.node_rank == 0
        elif _is_local(self.master_addr):
            self.is_host = True
        store: TCPStore | None = None
        if self.is_host:
            try:
                store = TCPStore(self.master_addr, int(port), is_master=True, timeout=timeout, wait_for_workers=False)
            except DistNetworkError:
                if cfg.rdzv_backend == "static":
                    raise
                self.is_host = False  # c10d: another agent on this machine hosts it already
        if store is None:
            store = TCPStore(self.master_addr, int(port), is_master=False, timeout=timeout, wait_for_workers=False)
        self.store = store
        self.master_port = store.port

    def join(self, index: int, nproc: int) -> Round:
        """Registers this node for round ``index`` and waits for the others."""
        cfg = self.cfg
        rs = PrefixStore(f"rdzv/{cfg.run_id}/{index}", self.store)
        if cfg.rdzv_backend == "static":
            if cfg.min_nodes != cfg.max_nodes:
                raise ValueError("the static rendezvous needs a fixed --nnodes (not MIN:MAX)")
            node_rank, nnodes = cfg.node_rank, cfg.max_nodes
            if not 0 <= node_rank < nnodes:
                raise ValueError(f"--node-rank {node_rank} is outside 0..{nnodes - 1}")
        else:
            node_rank = rs.add("arrivals", 1) - 1
            nnodes = self._close(rs)
            if node_rank >= nnodes:
                raise DistStoreError(f"rendezvous round {index} closed with {nnodes} nodes before this node joined")
        rs.set(f"node/{node_rank}", json.dumps({"nproc": nproc, "host": socket.getfqdn()}))
        keys = [f"node/{i}" for i in range(nnodes)]
        rs.wait(keys)
        sizes = [json.loads(v)["nproc"] for v in rs.multi_get(keys)]
        return Round(index, rs, node_rank, nnodes, sizes)

    def _close(self, rs: PrefixStore) -> int:
        """c10d: the node count, once max nodes arrived or min nodes plus the last-call wait."""
        cfg = self.cfg
        deadline = time.monotonic() + cfg.join_timeout
        min_since: float | None = None
        while True:
            if rs.check(["closed"]):
                return int(rs.get("closed"))
            count = rs.add("arrivals", 0)
            now = time.monotonic()
            if count >= cfg.min_nodes and min_since is None:
                min_since = now
            if count >= cfg.max_nodes or (min_since is not None and now - min_since >= cfg.last_call_timeout):
                return int(rs.compare_set("closed", "", str(min(count, cfg.max_nodes))))
            if now > deadline:
                raise DistStoreError(
                    f"Timed out after {cfg.join_timeout:g} seconds waiting for {cfg.min_nodes} nodes; {count} joined."
                )
            time.sleep(_POLL)

    # -- end of a round ------------------------------------------------------------------------
    @staticmethod
    def report_failure(rnd: Round, summary: dict) -> None:
        rnd.store.compare_set("failed", "", json.dumps(summary))

    @staticmethod
    def failure(rnd: Round) -> dict | None:
        if rnd.nnodes == 1 or not rnd.store.check(["failed"]):
            return None
        return json.loads(rnd.store.get("failed"))

    def exit_barrier(self, rnd: Round, stop: float) -> dict | None:
        """After this node's workers succeeded: waits for every node's, or a failure."""
        rnd.store.set(f"done/{rnd.node_rank}", "1")
        keys = [f"done/{i}" for i in range(rnd.nnodes)]
        while not rnd.store.check(keys):
            failed = self.failure(rnd)
            if failed is not None:
                return failed
            if time.monotonic() > stop:
                raise DistStoreError("timed out waiting for the other nodes' workers to finish")
            time.sleep(_POLL)
        return None

    def leave(self, rnd: Round | None) -> None:
        """Says this agent is done; the host waits (bounded) for everyone before closing."""
        try:
            if rnd is not None and rnd.nnodes > 1:
                rnd.store.add("exit_ack", 1)
                if self.is_host:
                    stop = time.monotonic() + 30
                    while rnd.store.add("exit_ack", 0) < rnd.nnodes and time.monotonic() < stop:
                        time.sleep(_POLL)
        except (DistNetworkError, DistStoreError):
            pass
