"""``LaunchConfig``: everything the agent needs, parsed from the ``ember-run`` command line."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntFlag


class Std(IntFlag):
    """Which streams of a worker go to a log file (``-r``) or to the file and console (``-t``)."""

    NONE = 0
    OUT = 1
    ERR = 2
    ALL = 3

    @staticmethod
    def from_str(vm: str) -> Std | dict[int, Std]:
        """``"3"`` → one value for every local rank; ``"0:1,1:2"`` → per local rank."""
        vm = vm.strip()
        if ":" not in vm:
            return Std(int(vm))
        out: dict[int, Std] = {}
        for item in vm.split(","):
            rank, _, value = item.partition(":")
            out[int(rank)] = Std(int(value))
        return out

    @staticmethod
    def for_rank(spec: Std | dict[int, Std], local_rank: int) -> Std:
        return spec.get(local_rank, Std.NONE) if isinstance(spec, dict) else spec


@dataclass
class LaunchConfig:
    """The launch of one node's workers: sizes, rendezvous, restarts and logging."""

    cmd: list[str]
    name: str  # the entrypoint, as the failure summary names it
    min_nodes: int = 1
    max_nodes: int = 1
    nproc_per_node: int = 1
    run_id: str = "none"
    role: str = "default"
    rdzv_backend: str = "static"
    rdzv_endpoint: str = ""  # host:port of the agents' store
    rdzv_configs: dict[str, str] = field(default_factory=dict)
    node_rank: int = 0
    max_restarts: int = 0
    monitor_interval: float = 0.1
    start_method: str = "spawn"
    log_dir: str | None = None
    redirects: Std | dict[int, Std] = Std.NONE
    tee: Std | dict[int, Std] = Std.NONE
    local_ranks_filter: set[int] | None = None
    signals_to_handle: str = "SIGTERM,SIGINT,SIGHUP,SIGQUIT"
    # Seconds between SIGTERM and SIGKILL when stopping workers: short, so a failed job's
    # survivors are gone within 2 s (torch's default is 30 s; --shutdown-timeout overrides).
    shutdown_timeout: float = 1.5

    @property
    def join_timeout(self) -> float:
        return float(self.rdzv_configs.get("join_timeout", 600))

    @property
    def last_call_timeout(self) -> float:
        return float(self.rdzv_configs.get("last_call_timeout", 30))
