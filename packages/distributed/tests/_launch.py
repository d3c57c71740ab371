"""Running a worker script on N ranks for a test: under mpiexec, or as independent processes
(torchrun-style env vars, the PMI rendezvous). Every run is bounded by a timeout and its
processes are killed on the way out, so a hang fails the test instead of the suite."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def mpiexec() -> str:
    exe = Path(sys.executable).parent / "mpiexec"
    return str(exe) if exe.exists() else (shutil.which("mpiexec") or "mpiexec")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Runs in each worker: after init, note the /dev/shm files this rank maps (MPICH's segments),
# so the test removes exactly its own job's leftovers when a rank was killed or aborted.
_RECORD_SHM = """
_init = dist.init_process_group
def _recording_init(*a, **k):
    _init(*a, **k)
    with open(f"{OUT}.shm.{os.getpid()}", "w") as f:
        f.write("\\n".join(line.split()[-1] for line in open("/proc/self/maps") if "/dev/shm/" in line))
dist.init_process_group = _recording_init
"""


def _script(tmp: Path, body: str) -> Path:
    path = tmp / "worker.py"
    path.write_text("import json, os, sys\nimport ember\nimport ember.distributed as dist\n"
                    "OUT = sys.argv[1]\n" + _RECORD_SHM +
                    "def emit(**kw):\n"
                    "    with open(f'{OUT}.{os.environ.get(\"EMBER_TEST_RANK\") or os.environ[\"PMI_RANK\"]}', 'a') as f:\n"
                    "        f.write(json.dumps(kw) + '\\n')\n" + textwrap.dedent(body))
    return path


def _remove_own_shm(out: Path) -> None:
    for note in out.parent.glob(out.name + ".shm.*"):
        for path in note.read_text().split():
            if path.startswith("/dev/shm/") and os.path.exists(path):
                os.unlink(path)
        note.unlink()


def _results(out: Path, n: int) -> list[dict[str, Any]]:
    _remove_own_shm(out)
    res = []
    for r in range(n):
        p = Path(f"{out}.{r}")
        merged: dict[str, Any] = {}
        if p.exists():
            for line in p.read_text().splitlines():
                merged.update(json.loads(line))
        res.append(merged)
    return res


def _env(extra: dict[str, str] | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PMI_", "MPI_", "HYDRA_"))}
    env.update({"OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"})
    env.update(extra or {})
    return env


def _communicate(procs: list[subprocess.Popen], timeout: float) -> list[tuple[int | None, str]]:
    out = []
    try:
        for p in procs:
            text, _ = p.communicate(timeout=timeout)
            out.append((p.returncode, text))
    except subprocess.TimeoutExpired:
        texts = [_kill(p) for p in procs]
        raise AssertionError(f"the job did not finish within {timeout} s:\n" + "\n".join(
            f"--- process {i} ---\n{t}" for i, t in enumerate(texts))) from None
    return out


def _kill(p: subprocess.Popen) -> str:
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        text, _ = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        return "(output still held open by a child process)"
    return text or ""


def run_mpiexec(tmp: Path, body: str, n: int = 2, timeout: float = 60,
                env: dict[str, str] | None = None) -> tuple[int | None, str, list[dict[str, Any]]]:
    """(exit code, output, per-rank results) of ``body`` run by ``mpiexec -n n``."""
    script = _script(tmp, body)
    out = tmp / "res"
    p = subprocess.Popen([mpiexec(), "-n", str(n), sys.executable, str(script), str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env=_env(env), start_new_session=True)
    (code, text), = _communicate([p], timeout)
    return code, text, _results(out, n)


def run_ranks(tmp: Path, body: str, n: int = 2, timeout: float = 60,
              env: dict[str, str] | None = None,
              per_rank: dict[int, dict[str, str]] | None = None,
              ) -> tuple[list[int | None], str, list[dict[str, Any]]]:
    """``body`` in ``n`` independent processes with torchrun's variables (RANK, WORLD_SIZE,
    MASTER_ADDR, MASTER_PORT): they meet through the store and the PMI rendezvous."""
    script = _script(tmp, body)
    out = tmp / "res"
    port = free_port()
    procs = []
    for r in range(n):
        e = _env({"RANK": str(r), "WORLD_SIZE": str(n), "LOCAL_RANK": str(r),
                  "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
                  "EMBER_TEST_RANK": str(r), **(env or {}), **((per_rank or {}).get(r, {}))})
        procs.append(subprocess.Popen([sys.executable, str(script), str(out)],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                      env=e, start_new_session=True))
    res = _communicate(procs, timeout)
    text = "\n".join(f"--- rank {r} (exit {c}) ---\n{t}" for r, (c, t) in enumerate(res))
    return [c for c, _ in res], text, _results(out, n)


# PyTorch 2.13's gloo sometimes aborts a rank at interpreter exit, after the script's last
# line ran (std::terminate on a gloo thread: SIGABRT, so torchrun exits non-zero). That, and
# only that, is tolerated on the PyTorch side: the message, the SIGABRT and a complete result.
TORCH_EXIT_ABORT = "terminate called without an active exception"
# --standalone: torchrun's rendezvous on a free port, not the default 29500 that another
# torchrun on the machine (another test run) may hold at the same moment.
TORCHRUN = [sys.executable, "-m", "torch.distributed.run", "--standalone"]


def json_losses(cmd: list[str], expected: int, timeout: float = 240) -> list[float]:
    """The JSON list of ``expected`` losses that ``cmd`` prints last on stdout."""
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=_env(None))
    lines = out.stdout.strip().splitlines()
    try:
        losses = json.loads(lines[-1]) if lines else None
    except ValueError:
        losses = None
    complete = isinstance(losses, list) and len(losses) == expected
    torch_exit_abort = (cmd[:len(TORCHRUN)] == TORCHRUN and TORCH_EXIT_ABORT in out.stderr
                        and "Signal 6 (SIGABRT)" in out.stderr)
    assert complete and (out.returncode == 0 or torch_exit_abort), \
        f"exit {out.returncode}\n{out.stdout}\n{out.stderr}"
    return losses
