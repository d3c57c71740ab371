"""The agent: one per node. Rendezvous, spawn the round's workers, watch them, stop them all
when one fails, restart up to ``max_restarts`` times, and report.

A worker failure anywhere ends the round everywhere: the node that sees it writes ``failed``
to the round's keys and every other agent polls that key each monitor tick.
"""

from __future__ import annotations

import os
import secrets
import signal
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field

from .._errors import DistNetworkError, DistStoreError
from ..elastic.multiprocessing.errors import ChildFailedError, ProcessFailure
from ._logs import StreamPlan
from .config import LaunchConfig
from .pmi import PMIHandle, start_pmi
from .rendezvous import Rendezvous, Round
from .workers import Worker, WorkerGroup


class SignalReceived(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(f"got signal {signal.Signals(signum).name}")
        self.signum = signum


def _raise_signal(signum: int, frame: object) -> None:
    raise SignalReceived(signum)


@dataclass
class Outcome:
    ok: bool
    failures: dict[int, ProcessFailure] = field(default_factory=dict)
    remote: dict | None = None  # the failure another node reported


def _log(msg: str) -> None:
    print(f"[ember-run] {msg}", file=sys.stderr, flush=True)


class Agent:
    def __init__(self, cfg: LaunchConfig) -> None:
        self.cfg = cfg
        base = cfg.log_dir or tempfile.mkdtemp(prefix="torchelastic_")
        self.run_log_dir = os.path.join(base, f"{cfg.run_id}_{uuid.uuid4().hex[:8]}")

    def _workers(self, rnd: Round, rdzv: Rendezvous, pmi_env: dict[str, str]) -> WorkerGroup:
        cfg = self.cfg
        attempt = os.path.join(self.run_log_dir, f"attempt_{rnd.index}")
        workers = []
        for local in range(cfg.nproc_per_node):
            rank = rnd.rank_offset + local
            rank_dir = os.path.join(attempt, str(local))
            os.makedirs(rank_dir, exist_ok=True)
            error_file = os.path.join(rank_dir, "error.json")
            env = dict(os.environ)
            env.update(
                {
                    "LOCAL_RANK": str(local),
                    "RANK": str(rank),
                    "GROUP_RANK": str(rnd.node_rank),
                    "ROLE_RANK": str(rank),
                    "ROLE_NAME": cfg.role,
                    "LOCAL_WORLD_SIZE": str(cfg.nproc_per_node),
                    "WORLD_SIZE": str(rnd.world_size),
                    "GROUP_WORLD_SIZE": str(rnd.nnodes),
                    "ROLE_WORLD_SIZE": str(rnd.world_size),
                    "MASTER_ADDR": rdzv.master_addr,
                    "MASTER_PORT": str(rdzv.master_port),
                    "TORCHELASTIC_RESTART_COUNT": str(rnd.index),
                    "TORCHELASTIC_MAX_RESTARTS": str(cfg.max_restarts),
                    "TORCHELASTIC_RUN_ID": cfg.run_id,
                    "TORCHELASTIC_USE_AGENT_STORE": "True",
                    "TORCHELASTIC_ERROR_FILE": error_file,
                    "TORCHELASTIC_SIGNALS_TO_HANDLE": cfg.signals_to_handle,
                    "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1",
                    **pmi_env,
                }
            )
            w = Worker(local, rank, env, error_file)
            w.streams = StreamPlan(cfg, local, rank_dir)
            workers.append(w)
        group = WorkerGroup(workers, cfg.cmd)
        if "EMBER_PMI_KVS" in pmi_env:
            group.shm.expect_kvs(pmi_env["EMBER_PMI_KVS"])
        return group

    def _monitor(self, group: WorkerGroup, rnd: Round, rdzv: Rendezvous, pmi: PMIHandle | None) -> Outcome:
        cfg = self.cfg
        local_ranks = {w.global_rank for w in group.workers}
        while True:
            exited = group.wait(cfg.monitor_interval)
            group.shm.scan(group.pids())
            bad = [w for w in exited if w.exitcode != 0]
            if bad:
                return Outcome(
                    False,
                    {w.global_rank: ProcessFailure(w.local_rank, w.proc.pid, w.exitcode, w.error_file) for w in bad},
                )  # type: ignore[union-attr]
            if not group.running():
                return Outcome(True)
            remote = rdzv.failure(rnd)
            if remote is not None:
                return Outcome(False, remote=remote)
            lost = pmi.lost_ranks() - local_ranks if pmi is not None else set()
            if lost:  # a remote worker died after MPI start-up and its agent did not say so
                return Outcome(False, remote={"node": -1, "rank": min(lost), "exitcode": "lost its PMI connection"})

    def run(self) -> int:
        cfg = self.cfg
        handled = [getattr(signal, s.strip()) for s in cfg.signals_to_handle.split(",") if s.strip()]
        previous = {s: signal.signal(s, _raise_signal) for s in handled}
        rdzv: Rendezvous | None = None
        rnd: Round | None = None
        group: WorkerGroup | None = None
        try:
            rdzv = Rendezvous(cfg)
            for index in range(cfg.max_restarts + 1):
                rnd = rdzv.join(index, cfg.nproc_per_node)
                pmi = start_pmi(rnd, rdzv, secrets.token_hex(4))
                try:
                    group = self._workers(rnd, rdzv, pmi.env if pmi else {})
                    group.start()
                    outcome = self._monitor(group, rnd, rdzv, pmi)
                    if outcome.ok and rnd.nnodes > 1:
                        remote = rdzv.exit_barrier(rnd, time.monotonic() + cfg.join_timeout)
                        outcome = Outcome(remote is None, remote=remote)
                    if not outcome.ok and outcome.remote is None:
                        root = next(iter(outcome.failures))
                        Rendezvous.report_failure(
                            rnd, {"node": rnd.node_rank, "rank": root, "exitcode": outcome.failures[root].exitcode}
                        )
                    group.stop(grace=cfg.shutdown_timeout)
                finally:
                    if pmi is not None:
                        pmi.close()
                if outcome.ok:
                    return 0
                for w in group.workers:  # the ones we stopped are failures too, as in torch
                    if outcome.remote is None and w.exitcode not in (0, None) and w.global_rank not in outcome.failures:
                        outcome.failures[w.global_rank] = ProcessFailure(w.local_rank, w.proc.pid, w.exitcode, "")  # type: ignore[union-attr]
                what = self._describe(outcome)
                if index < cfg.max_restarts:
                    _log(f"worker group failed ({what}); restarting ({index + 1}/{cfg.max_restarts})")
                    continue
                if outcome.remote is None:
                    err = ChildFailedError(cfg.name, outcome.failures)
                    print(
                        f"{ChildFailedError.__module__}.ChildFailedError: {err}",
                        file=sys.stderr,
                        flush=True,
                    )
                else:
                    _log(f"worker group failed ({what}); this node's workers were stopped")
                return 1
            return 1
        except SignalReceived as e:
            _log(f"{e}; stopping the workers")
            if group is not None:
                group.stop(sig=e.signum, grace=cfg.shutdown_timeout)
            return 1
        except (DistNetworkError, DistStoreError, ValueError) as e:
            _log(f"rendezvous failed: {e}")
            return 1
        finally:
            if group is not None:
                group.stop(grace=cfg.shutdown_timeout)  # idempotent: nothing may outlive us
            for s, h in previous.items():
                signal.signal(s, h)
            if rdzv is not None:
                rdzv.leave(rnd)

    @staticmethod
    def _describe(outcome: Outcome) -> str:
        if outcome.remote is not None:
            r = outcome.remote
            return f"rank {r['rank']} on node {r['node']}: exitcode {r['exitcode']}"
        rank, f = next(iter(outcome.failures.items()))
        return f"rank {rank}: exitcode {f.exitcode}"


def launch_agent(cfg: LaunchConfig) -> int:
    """Runs this node's agent to completion; the exit status for ``ember-run``."""
    return Agent(cfg).run()
