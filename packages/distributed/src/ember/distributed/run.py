"""``ember-run`` (also ``python -m ember.distributed.run``): torchrun's command line for ember.

Same flags (hyphen and underscore spellings; ``PET_<FLAG>`` environment variables as defaults),
same worker environment. Example::

    ember-run --nproc-per-node 2 train.py --epochs 3
    ember-run --nnodes 2 --node-rank 0 --master-addr node0 --master-port 29500 train.py
"""

from __future__ import annotations

import argparse
import os
import sys
import uuid
from argparse import REMAINDER, ArgumentParser

from .launcher import LaunchConfig, Std, launch_agent

__all__ = ["get_args_parser", "main", "parse_args", "run"]

_OMP_BANNER = (
    "\n*****************************************\n"
    "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, "
    "to avoid your system being overloaded, please further tune the variable for optimal "
    "performance in your application as needed. \n"
    "*****************************************"
)


class _Env(argparse.Action):
    """A valued flag whose default comes from ``PET_<DEST>`` when that variable is set."""

    def __init__(self, dest: str, default: object = None, required: bool = False, **kwargs: object) -> None:
        env = os.environ.get(f"PET_{dest.upper()}")
        super().__init__(
            dest=dest, default=env if env is not None else default, required=required and env is None, **kwargs
        )  # type: ignore[arg-type]

    def __call__(
        self, parser: ArgumentParser, ns: argparse.Namespace, values: object, option: str | None = None
    ) -> None:
        setattr(ns, self.dest, values)


class _EnvFlag(argparse.Action):
    """A boolean flag that ``PET_<DEST>=1`` also turns on."""

    def __init__(self, dest: str, default: bool = False, **kwargs: object) -> None:
        default = bool(int(os.environ.get(f"PET_{dest.upper()}", "1" if default else "0")))
        super().__init__(dest=dest, const=True, default=default, nargs=0, **kwargs)  # type: ignore[arg-type]

    def __call__(
        self, parser: ArgumentParser, ns: argparse.Namespace, values: object, option: str | None = None
    ) -> None:
        setattr(ns, self.dest, self.const)


def get_args_parser() -> ArgumentParser:
    """The ``ember-run`` argument parser (torchrun's options)."""
    p = ArgumentParser(prog="ember-run", description="ember distributed launcher (torchrun-compatible)")

    def opt(*names: str, **kw: object) -> None:
        spellings = list(names)
        for n in names:  # every --hyphen-name also answers to --underscore_name
            if n.startswith("--") and "-" in n[2:]:
                spellings.append("--" + n[2:].replace("-", "_"))
        p.add_argument(*spellings, **kw)  # type: ignore[arg-type]

    opt("--nnodes", action=_Env, type=str, default="1:1", help="Number of nodes, or MIN:MAX.")
    opt("--nproc-per-node", action=_Env, type=str, default="1", help="Workers per node: an int, or auto|cpu|gpu|xpu.")
    opt("--rdzv-backend", action=_Env, type=str, default="static", help="Rendezvous backend (static or c10d).")
    opt("--rdzv-endpoint", action=_Env, type=str, default="", help="Rendezvous endpoint host:port.")
    opt("--rdzv-id", action=_Env, type=str, default="none", help="User-defined job id.")
    opt("--rdzv-conf", action=_Env, type=str, default="", help="Rendezvous options key=value,...")
    opt("--standalone", action=_EnvFlag, help="Single node: a local rendezvous on a free port.")
    opt("--max-restarts", action=_Env, type=int, default=0, help="Worker group restarts before failing.")
    opt("--monitor-interval", action=_Env, type=float, default=0.1, help="Seconds between worker checks.")
    opt(
        "--start-method",
        action=_Env,
        type=str,
        default="spawn",
        choices=["spawn", "fork", "forkserver"],
        help="Accepted for compatibility: workers are always new processes.",
    )
    opt("--event-log-handler", action=_Env, type=str, default="null", help="Accepted for compatibility.")
    opt("--role", action=_Env, type=str, default="default", help="User-defined role of the workers.")
    opt("-m", "--module", action=_EnvFlag, help="Run the script as a module (python -m).")
    opt("--no-python", action=_EnvFlag, help="Execute the script directly, not through python.")
    opt("--run-path", action=_EnvFlag, help="Run the script with runpy.run_path.")
    opt("--log-dir", action=_Env, type=str, default=None, help="Base directory for log files.")
    opt(
        "-r",
        "--redirects",
        action=_Env,
        type=str,
        default="0",
        help="Redirect streams to log files (0-3 or rank:value,...).",
    )
    opt("-t", "--tee", action=_Env, type=str, default="0", help="Tee streams to log files and the console.")
    opt("--local-ranks-filter", action=_Env, type=str, default="", help="Show only these local ranks on the console.")
    opt("--node-rank", action=_Env, type=int, default=0, help="Rank of this node (static rendezvous).")
    opt("--master-addr", action=_Env, type=str, default="127.0.0.1", help="Address of node 0 (static rendezvous).")
    opt("--master-port", action=_Env, type=int, default=None, help="Port on node 0 (default 29500).")
    opt("--local-addr", action=_Env, type=str, default=None, help="Address of this node.")
    opt(
        "--signals-to-handle",
        action=_Env,
        type=str,
        default="SIGTERM,SIGINT,SIGHUP,SIGQUIT",
        help="Signals forwarded to the workers.",
    )
    opt(
        "--shutdown-timeout",
        action=_Env,
        type=float,
        default=None,
        help="Seconds between SIGTERM and SIGKILL when stopping workers (default 1.5).",
    )
    p.add_argument("training_script", type=str, help="The script (or module, or program) to run.")
    p.add_argument("training_script_args", nargs=REMAINDER)
    return p


def parse_args(args: list[str] | None = None) -> argparse.Namespace:
    return get_args_parser().parse_args(args)


def _nnodes(spec: str) -> tuple[int, int]:
    parts = spec.split(":")
    if len(parts) == 1:
        return int(parts[0]), int(parts[0])
    if len(parts) == 2:
        return int(parts[0]), int(parts[1])
    raise RuntimeError(f'nnodes={spec} is not in "MIN:MAX" format')


def _nproc(spec: str) -> int:
    try:
        return int(spec)
    except ValueError:
        pass
    if spec in ("cpu", "auto"):
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if spec == "gpu":
        raise ValueError("Cuda is not available.")
    if spec == "xpu":
        raise ValueError("Xpu is not available.")
    raise ValueError(f"Unsupported nproc_per_node value: {spec}")


def _command(args: argparse.Namespace) -> list[str]:
    script, rest = args.training_script, list(args.training_script_args)
    if args.run_path:
        code = "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
        return [sys.executable, "-u", "-c", code, script, *rest]
    if args.no_python:
        if args.module:
            raise ValueError("Don't use both the '--no-python' flag and the '--module' flag at the same time.")
        return [script, *rest]
    python = os.environ.get("PYTHON_EXEC", sys.executable)
    return [python, "-u", *(["-m"] if args.module else []), script, *rest]


def config_from_args(args: argparse.Namespace) -> LaunchConfig:
    """Resolves the defaults torchrun resolves (standalone, implicit single-node rendezvous)."""
    min_nodes, max_nodes = _nnodes(args.nnodes)
    if not 0 < min_nodes <= max_nodes:
        raise ValueError(f"min_nodes must be > 0 and <= max_nodes, got min_nodes={min_nodes}, max_nodes={max_nodes}")
    if args.max_restarts < 0:
        raise ValueError("max_restarts must be >= 0")
    backend, endpoint, run_id = args.rdzv_backend, args.rdzv_endpoint, args.rdzv_id
    # A single node with no port named: a private rendezvous on a free port, as torchrun does.
    if args.standalone or (backend == "static" and not endpoint and args.master_port is None and max_nodes == 1):
        backend, endpoint, run_id = "c10d", "localhost:0", str(uuid.uuid4())
    if backend == "static" and not endpoint:
        endpoint = f"{args.master_addr}:{args.master_port or 29500}"
    if backend not in ("static", "c10d"):
        raise ValueError(f"unsupported --rdzv-backend {backend!r}: ember-run knows static and c10d")
    nproc = _nproc(args.nproc_per_node)
    if "OMP_NUM_THREADS" not in os.environ and nproc > 1:
        print(_OMP_BANNER, file=sys.stderr, flush=True)
        os.environ["OMP_NUM_THREADS"] = "1"  # inherited by the workers
    conf = dict(kv.split("=", 1) for kv in args.rdzv_conf.split(",") if kv)
    ranks = None
    if args.local_ranks_filter:
        try:
            ranks = {int(r) for r in args.local_ranks_filter.split(",")}
        except ValueError as e:
            raise ValueError(
                "--local_ranks_filter must be a comma-separated list of integers e.g. --local_ranks_filter=0,1,2"
            ) from e
    cfg = LaunchConfig(
        cmd=_command(args),
        name=os.path.basename(args.training_script),
        min_nodes=min_nodes,
        max_nodes=max_nodes,
        nproc_per_node=nproc,
        run_id=run_id,
        role=args.role,
        rdzv_backend=backend,
        rdzv_endpoint=endpoint,
        rdzv_configs=conf,
        node_rank=args.node_rank,
        max_restarts=args.max_restarts,
        monitor_interval=args.monitor_interval,
        start_method=args.start_method,
        log_dir=args.log_dir,
        redirects=Std.from_str(args.redirects),
        tee=Std.from_str(args.tee),
        local_ranks_filter=ranks,
        signals_to_handle=args.signals_to_handle,
    )
    if args.shutdown_timeout is not None:
        cfg.shutdown_timeout = float(args.shutdown_timeout)
    return cfg


def run(args: argparse.Namespace) -> int:
    """Launches this node's workers and returns the exit status."""
    return launch_agent(config_from_args(args))


def main(args: list[str] | None = None) -> None:
    """The ``ember-run`` entry point."""
    try:
        code = run(parse_args(args))
    except ValueError as e:
        print(f"ember-run: error: {e}", file=sys.stderr)
        code = 2
    sys.exit(code)


if __name__ == "__main__":
    main()
