"""ember-run with MPI workers: the agent's PMI server starts MPI_COMM_WORLD in every round, and
the MPICH shared memory of a SIGKILLed round is removed. Needs the process-group side
(``init_process_group`` on MPI); skipped where it is not there yet."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("mpi4py")
pytest.importorskip("ember.distributed._pmi_server")

WORKER = textwrap.dedent("""
    import os, sys, time
    import ember
    import ember.distributed as dist
    dist.init_process_group("gloo")
    t = ember.tensor([float(dist.get_rank() + 1)])
    dist.all_reduce(t)
    shm = sorted({l.split()[-1] for l in open(f"/proc/{os.getpid()}/maps") if "/dev/shm/mpich" in l})
    with open(os.path.join(sys.argv[1], f"{dist.get_rank()}.log"), "a") as f:  # not the shared stdout
        f.write(repr((dist.get_rank(), os.environ["TORCHELASTIC_RESTART_COUNT"], t.item(), shm)) + "\\n")
    if dist.get_rank() == 1 and os.environ["TORCHELASTIC_RESTART_COUNT"] == "0":
        os.kill(os.getpid(), 9)
    dist.barrier()
    dist.destroy_process_group()
""")


def test_mpi_workers_restart_after_sigkill_and_leave_no_shm(tmp_path: Path) -> None:
    body = tmp_path / "w.py"
    body.write_text(WORKER)
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "ember.distributed.run",
            "--standalone",
            "--nproc-per-node",
            "2",
            "--max-restarts",
            "1",
            str(body),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    rows = [ast.literal_eval(line) for r in (0, 1) for line in (tmp_path / f"{r}.log").read_text().splitlines()]
    assert sorted((r, c, s) for r, c, s, _ in rows) == [(0, "0", 3.0), (0, "1", 3.0), (1, "0", 3.0), (1, "1", 3.0)]
    assert "exitcode -9" in p.stderr and "restarting (1/1)" in p.stderr
    segments = {path for *_, shm in rows for path in shm}
    assert segments and not any(os.path.exists(path) for path in segments)


TWO_NODES = textwrap.dedent("""
    import os, sys
    import ember
    import ember.distributed as dist
    dist.init_process_group("gloo")
    t = ember.tensor([float(dist.get_rank() + 1)])
    dist.all_reduce(t)
    with open(os.path.join(sys.argv[1], f"{dist.get_rank()}.log"), "w") as f:
        f.write(repr((dist.get_rank(), dist.get_world_size(), os.environ["GROUP_RANK"], t.item())))
    dist.destroy_process_group()
""")


def test_two_agents_run_one_mpi_job(tmp_path: Path) -> None:
    """Two ember-run agents (--nnodes 2, node ranks 0 and 1) start one 4-rank MPI job: node 1's
    workers join node 0's PMI rendezvous through the agents' store."""
    import socket

    body = tmp_path / "w.py"
    body.write_text(TWO_NODES)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    common = [sys.executable, "-m", "ember.distributed.run", "--nnodes", "2", "--nproc-per-node", "2",
              "--master-addr", "127.0.0.1", "--master-port", str(port)]
    nodes = [subprocess.Popen([*common, "--node-rank", str(r), str(body), str(tmp_path)],
                              stderr=subprocess.PIPE, text=True) for r in (1, 0)]
    errs = [p.communicate(timeout=90)[1] for p in nodes]
    assert [p.returncode for p in nodes] == [0, 0], "".join(errs)
    rows = sorted(ast.literal_eval((tmp_path / f"{r}.log").read_text()) for r in range(4))
    assert rows == [(0, 4, "0", 10.0), (1, 4, "0", 10.0), (2, 4, "1", 10.0), (3, 4, "1", 10.0)]
