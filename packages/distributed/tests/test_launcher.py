"""ember-run: the worker environment, failures, restarts, signals, two nodes, nothing left behind."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

LAUNCH = [sys.executable, "-m", "ember.distributed.run"]


def script(tmp: Path, name: str, body: str) -> str:
    path = tmp / name
    path.write_text(textwrap.dedent(body))
    return str(path)


def run(args: list[str], timeout: float = 30, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full = dict(os.environ, **(env or {}))
    return subprocess.run([*LAUNCH, *args], capture_output=True, text=True, timeout=timeout, env=full)


def alive(pid: int) -> bool:
    """True for a live, non-zombie process."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_for(path: Path, count: int = 1, timeout: float = 20) -> list[str]:
    """Waits until ``path`` has ``count`` lines (workers append one each) and returns them."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            lines = path.read_text().split()
            if len(lines) >= count:
                return lines
        time.sleep(0.02)
    raise AssertionError(f"{path} never got {count} lines")


ENV_KEYS = [
    "RANK",
    "LOCAL_RANK",
    "GROUP_RANK",
    "ROLE_RANK",
    "ROLE_NAME",
    "WORLD_SIZE",
    "LOCAL_WORLD_SIZE",
    "ROLE_WORLD_SIZE",
    "GROUP_WORLD_SIZE",
    "MASTER_ADDR",
    "MASTER_PORT",
    "TORCHELASTIC_RESTART_COUNT",
    "TORCHELASTIC_MAX_RESTARTS",
    "TORCHELASTIC_RUN_ID",
    "TORCHELASTIC_USE_AGENT_STORE",
    "TORCHELASTIC_ERROR_FILE",
    "OMP_NUM_THREADS",
]

DUMP = """
    import json, os, sys
    with open(os.path.join(sys.argv[1], os.environ["RANK"] + ".json"), "w") as f:
        json.dump(dict(os.environ), f)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dumps(out: Path, n: int) -> list[dict[str, str]]:
    return [json.loads((out / f"{r}.json").read_text()) for r in range(n)]


def _no_omp() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("OMP_NUM_THREADS", None)
    return env


def test_worker_env_single_node(tmp_path: Path) -> None:
    port = _free_port()
    env = _no_omp()
    p = subprocess.run(
        [*LAUNCH, "--nproc-per-node", "2", "--master_port", str(port), script(tmp_path, "d.py", DUMP), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    assert p.returncode == 0, p.stderr
    assert p.stderr.count("Setting OMP_NUM_THREADS environment variable") == 1
    envs = _dumps(tmp_path, 2)
    for r, e in enumerate(envs):
        assert {k: e[k] for k in ENV_KEYS if k != "TORCHELASTIC_ERROR_FILE"} == {
            "RANK": str(r),
            "LOCAL_RANK": str(r),
            "GROUP_RANK": "0",
            "ROLE_RANK": str(r),
            "ROLE_NAME": "default",
            "WORLD_SIZE": "2",
            "LOCAL_WORLD_SIZE": "2",
            "ROLE_WORLD_SIZE": "2",
            "GROUP_WORLD_SIZE": "1",
            "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": str(port),
            "TORCHELASTIC_RESTART_COUNT": "0",
            "TORCHELASTIC_MAX_RESTARTS": "0",
            "TORCHELASTIC_RUN_ID": "none",
            "TORCHELASTIC_USE_AGENT_STORE": "True",
            "OMP_NUM_THREADS": "1",
        }
        assert e["TORCHELASTIC_ERROR_FILE"].endswith(f"attempt_0/{r}/error.json")


def test_standalone_module_form_and_agent_store(tmp_path: Path) -> None:
    # -m runs a module; the workers reach the agent's TCPStore at MASTER_ADDR:MASTER_PORT.
    (tmp_path / "wmod.py").write_text(
        "import os, sys\nfrom datetime import timedelta\nfrom ember.distributed.store import TCPStore\n"
        "s = TCPStore(os.environ['MASTER_ADDR'], int(os.environ['MASTER_PORT']), timeout=timedelta(seconds=10))\n"
        "n = s.add('/worker/arrived', 1)\ns.wait(['/worker/arrived'])\n"
        "e = os.environ\n"
        "open(os.path.join(sys.argv[1], e['RANK']), 'w').write(e['TORCHELASTIC_RUN_ID'] + ' ' + e['MASTER_ADDR'])\n"
    )
    p = run(["--standalone", "--nproc_per_node=2", "-m", "wmod", str(tmp_path)], env={"PYTHONPATH": str(tmp_path)})
    assert p.returncode == 0, p.stderr
    ids = {(tmp_path / r).read_text() for r in "01"}
    assert len(ids) == 1
    run_id, addr = ids.pop().split()
    assert addr == "localhost" and uuid.UUID(run_id)


def test_torchrun_gives_the_same_worker_env(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    port = _free_port()
    dump = script(tmp_path, "d.py", DUMP)
    ours, theirs = tmp_path / "ember", tmp_path / "torch"
    ours.mkdir()
    theirs.mkdir()
    flags = ["--nproc-per-node", "2", "--master-port", str(port), "--max-restarts", "1", "--role", "trainer"]
    env = _no_omp()
    p = subprocess.run([*LAUNCH, *flags, dump, str(ours)], capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 0, p.stderr
    t = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", *flags, dump, str(theirs)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert t.returncode == 0, t.stderr
    for a, b in zip(_dumps(ours, 2), _dumps(theirs, 2), strict=True):
        extra = {"EMBER_PMI_ADDR", "EMBER_PMI_KVS"}
        assert set(a) - extra == set(b) - {"LC_CTYPE"} - extra
        for k in set(b) - {"TORCHELASTIC_ERROR_FILE", "LC_CTYPE"}:
            assert a[k] == b[k], k


FAIL = """
    import os, sys, time
    from ember.distributed.elastic.multiprocessing.errors import record
    @record
    def main():
        open(os.path.join(sys.argv[1], "pids"), "a").write(f"{os.getpid()}\\n")
        if os.environ["RANK"] == "1":
            time.sleep(0.3)
            raise ValueError("boom from rank 1")
        time.sleep(60)
    main()
"""


def test_failure_stops_others_and_reports_traceback(tmp_path: Path) -> None:
    start = time.monotonic()
    p = run(["--nproc-per-node", "2", "--standalone", script(tmp_path, "f.py", FAIL), str(tmp_path)])
    took = time.monotonic() - start
    assert p.returncode == 1
    assert took < 6, took  # 0.3 s of work, then the survivor is stopped within 2 s
    err = p.stderr
    root = err.split("Root Cause (first observed failure):")[1]
    assert "rank      : 1 (local_rank: 1)" in root and "exitcode  : 1 " in root
    assert "ValueError: boom from rank 1" in root and "error.json" in root
    assert "exitcode  : -15" in err and "(SIGTERM)" in err
    assert not any(alive(int(pid)) for pid in wait_for(tmp_path / "pids", 2))


KILLED = """
    import os, signal, subprocess, sys, time
    out = sys.argv[1]
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    open(os.path.join(out, "pids"), "a").write(f"{os.getpid()}\\n{child.pid}\\n")
    if os.environ["RANK"] == "1":
        time.sleep(0.3)
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(60)
"""


def test_sigkilled_worker_leaves_nothing_behind(tmp_path: Path) -> None:
    p = run(["--nproc-per-node", "2", "--standalone", script(tmp_path, "k.py", KILLED), str(tmp_path)])
    assert p.returncode == 1
    root = p.stderr.split("Root Cause (first observed failure):")[1]
    assert "rank      : 1 (local_rank: 1)" in root and "exitcode  : -9" in root and "SIGKILL" in root
    pids = wait_for(tmp_path / "pids", 4)
    assert not any(alive(int(pid)) for pid in pids)  # workers and their children


SHM = """
    import mmap, os, signal, sys, time
    path, rank = sys.argv[1], os.environ["RANK"]
    if rank == "0":
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        os.ftruncate(fd, 4096)
    else:
        while not os.path.exists(path):
            time.sleep(0.01)
        fd = os.open(path, os.O_RDWR)
    m = mmap.mmap(fd, 4096)  # mapped like MPICH's segment, in every rank of the node
    time.sleep(0.5)
    if rank == "1":
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(60)
"""


def test_mpich_shm_of_our_workers_removed_others_kept(tmp_path: Path) -> None:
    ours = f"/dev/shm/mpich_shm_test_{uuid.uuid4().hex[:8]}_0"
    theirs = f"/dev/shm/mpich_shm_test_{uuid.uuid4().hex[:8]}_0"  # another job's: never touched
    Path(theirs).write_bytes(b"x")
    try:
        p = run(["--nproc-per-node", "2", "--standalone", script(tmp_path, "s.py", SHM), ours])
        assert p.returncode == 1
        assert not os.path.exists(ours)
        assert os.path.exists(theirs)
    finally:
        for f in (ours, theirs):
            if os.path.exists(f):
                os.unlink(f)


RESTART = """
    import os, sys
    count = os.environ["TORCHELASTIC_RESTART_COUNT"]
    kvs = os.environ.get("EMBER_PMI_KVS", "")
    open(os.path.join(sys.argv[1], "log"), "a").write(f"{os.environ['RANK']}:{count}:{kvs}\\n")
    sys.exit(3 if os.environ["RANK"] == "1" and count != "2" else 0)
"""


def test_max_restarts(tmp_path: Path) -> None:
    body = script(tmp_path, "r.py", RESTART)
    p = run(["--nproc-per-node", "2", "--standalone", "--max-restarts", "2", body, str(tmp_path)])
    assert p.returncode == 0, p.stderr
    assert p.stderr.count("restarting") == 2
    log = (tmp_path / "log").read_text().split()
    assert sorted(x.split(":")[0] + ":" + x.split(":")[1] for x in log if x.startswith("1:")) == ["1:0", "1:1", "1:2"]
    (tmp_path / "log").unlink()
    p = run(["--nproc-per-node", "2", "--standalone", "--max-restarts", "1", body, str(tmp_path)])
    assert p.returncode == 1 and "exitcode  : 3" in p.stderr and "ChildFailedError" in p.stderr


TERM = """
    import os, signal, sys, time
    out = sys.argv[1]
    def on_term(signum, frame):
        open(os.path.join(out, "got"), "a").write(f"{os.environ['RANK']}\\n")
        sys.exit(0)
    signal.signal(signal.SIGTERM, on_term)
    open(os.path.join(out, "pids"), "a").write(f"{os.getpid()}\\n")
    time.sleep(60)
"""


def test_sigterm_to_agent_is_forwarded(tmp_path: Path) -> None:
    agent = subprocess.Popen(
        [*LAUNCH, "--nproc-per-node", "2", "--standalone", script(tmp_path, "t.py", TERM), str(tmp_path)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        pids = wait_for(tmp_path / "pids", 2)
        start = time.monotonic()
        agent.send_signal(signal.SIGTERM)
        _, err = agent.communicate(timeout=10)
    finally:
        agent.kill()
    assert agent.returncode != 0
    assert time.monotonic() - start < 3
    assert "SIGTERM" in err
    assert sorted(wait_for(tmp_path / "got", 2)) == ["0", "1"]  # each worker got the SIGTERM
    assert not any(alive(int(pid)) for pid in pids)


def test_two_agents_emulate_two_nodes(tmp_path: Path) -> None:
    port = _free_port()
    dump = script(tmp_path, "d.py", DUMP)
    common = ["--nnodes", "2", "--nproc-per-node", "2", "--master-addr", "127.0.0.1", "--master-port", str(port)]
    # Node 1 starts first: its agent retries until node 0's store is up.
    n1 = subprocess.Popen(
        [*LAUNCH, *common, "--node-rank", "1", dump, str(tmp_path)], stderr=subprocess.PIPE, text=True
    )
    n0 = subprocess.Popen(
        [*LAUNCH, *common, "--node_rank", "0", dump, str(tmp_path)], stderr=subprocess.PIPE, text=True
    )
    e1, e0 = n1.communicate(timeout=30)[1], n0.communicate(timeout=30)[1]
    assert (n0.returncode, n1.returncode) == (0, 0), e0 + e1
    envs = _dumps(tmp_path, 4)
    assert [(e["RANK"], e["LOCAL_RANK"], e["GROUP_RANK"]) for e in envs] == [
        ("0", "0", "0"),
        ("1", "1", "0"),
        ("2", "0", "1"),
        ("3", "1", "1"),
    ]
    assert {e["WORLD_SIZE"] for e in envs} == {"4"} and {e["GROUP_WORLD_SIZE"] for e in envs} == {"2"}
    assert {e["MASTER_PORT"] for e in envs} == {str(port)}


def test_failure_on_one_node_stops_the_other(tmp_path: Path) -> None:
    port = _free_port()
    body = script(tmp_path, "f.py", FAIL.replace('os.environ["RANK"] == "1"', 'os.environ["RANK"] == "3"'))
    common = ["--nnodes", "2", "--nproc-per-node", "2", "--master-port", str(port), body, str(tmp_path)]
    start = time.monotonic()
    n0 = subprocess.Popen([*LAUNCH, "--node-rank", "0", *common], stderr=subprocess.PIPE, text=True)
    n1 = subprocess.Popen([*LAUNCH, "--node-rank", "1", *common], stderr=subprocess.PIPE, text=True)
    e1, e0 = n1.communicate(timeout=30)[1], n0.communicate(timeout=30)[1]
    assert n0.returncode == 1 and n1.returncode == 1
    assert time.monotonic() - start < 8
    assert "ValueError: boom from rank 1" in e1 and "rank      : 3 (local_rank: 1)" in e1
    assert "rank 3 on node 1" in e0
    assert not any(alive(int(pid)) for pid in wait_for(tmp_path / "pids", 4))


def test_tee_log_dir_and_filter(tmp_path: Path) -> None:
    body = script(
        tmp_path,
        "p.py",
        "import os, sys\nprint('out', os.environ['RANK'])\nprint('err', os.environ['RANK'], file=sys.stderr)\n",
    )
    p = run(["--nproc-per-node", "2", "--standalone", "--tee", "3", "--log-dir", str(tmp_path / "logs"), body])
    assert p.returncode == 0, p.stderr
    assert sorted(p.stdout.splitlines()) == ["[default0]:out 0", "[default1]:out 1"]
    assert "[default1]:err 1" in p.stderr
    logs = sorted(str(f.relative_to(tmp_path)) for f in (tmp_path / "logs").rglob("std*.log"))
    assert len(logs) == 4 and all("/attempt_0/" in f for f in logs)
    p = run(["--nproc-per-node", "2", "--standalone", "--local-ranks-filter", "1", body])
    assert p.returncode == 0 and p.stdout == "out 1\n"


def test_console_script_and_bad_flags(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "ember-run"
    if exe.exists():
        p = subprocess.run(
            [str(exe), "--standalone", "--no-python", "true"], capture_output=True, text=True, timeout=30
        )
        assert p.returncode == 0, p.stderr
    p = run(["--standalone", "--no-python", "false"])
    assert p.returncode == 1 and "exitcode  : 1" in p.stderr
    p = run(["--no-python", "-m", "x"])
    assert p.returncode == 2 and "--no-python" in p.stderr
    p = run(["--nproc-per-node", "gpu", "x.py"])
    assert p.returncode == 2 and "Cuda is not available." in p.stderr
