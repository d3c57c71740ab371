"""The MPI start-up rendezvous of a round: the store host runs a PMI-1 server for all ranks.

Workers find it through ``EMBER_PMI_ADDR=host:port`` and join the job ``EMBER_PMI_KVS`` (fresh
each round, so a restarted group never meets the previous round's keys); ``init_process_group``
reads both. Other nodes learn the address from the round's ``ember/pmi_addr`` store key. When
the PMI server is unavailable the workers get neither variable (scripts without MPI still run).
"""

from __future__ import annotations

from typing import Any

from .rendezvous import Rendezvous, Round


class PMIHandle:
    """The round's PMI address for our workers, and on the store host the server itself."""

    def __init__(self, addr: str, kvs: str, server: Any = None) -> None:
        self.env = {"EMBER_PMI_ADDR": addr, "EMBER_PMI_KVS": kvs}
        self._server = server

    def lost_ranks(self) -> set[int]:
        """Ranks whose PMI connection closed before they finalized (only the host knows)."""
        return set(self._server.lost_ranks()) if self._server is not None else set()

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None


def start_pmi(rnd: Round, rdzv: Rendezvous, token: str) -> PMIHandle | None:
    """Starts (store host) or looks up (other nodes) this round's PMI server."""
    rs = rnd.store
    if rdzv.is_host:
        run = "".join(c if c.isalnum() else "_" for c in rdzv.cfg.run_id[:16])
        kvs = f"ember_{run}_{rnd.index}_{token}"
        try:
            from .._pmi_server import PMIServer
        except ImportError:
            rs.multi_set(["ember/pmi_addr", "ember/pmi_kvs"], ["", ""])
            return None
        server = PMIServer(rnd.world_size, local_sizes=rnd.local_sizes, host="0.0.0.0", kvsname=kvs)
        _, port = server.start()
        addr = f"{rdzv.master_addr}:{port}"
        rs.multi_set(["ember/pmi_addr", "ember/pmi_kvs"], [addr, kvs])
        return PMIHandle(addr, kvs, server)
    addr, kvs = (v.decode() for v in rs.multi_get(["ember/pmi_addr", "ember/pmi_kvs"]))
    return PMIHandle(addr, kvs) if addr else None
