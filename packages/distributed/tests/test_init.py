"""init_process_group without an MPI launcher: torchrun-style processes (env://), tcp://,
file:// and store=, all meeting through the store and the PMI rendezvous; the errors of a
missing rank, a dead peer and bad arguments."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from _launch import free_port, run_ranks

BODY = r"""
import time
method = os.environ["INIT"]
t0 = time.perf_counter()
if method == "env":
    dist.init_process_group("gloo")
elif method == "tcp":
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{os.environ['MASTER_PORT']}",
                            rank=int(os.environ["RANK"]), world_size=int(os.environ["WORLD_SIZE"]))
elif method == "file":
    dist.init_process_group("mpi", init_method="file://" + os.environ["STORE_FILE"],
                            rank=int(os.environ["RANK"]), world_size=int(os.environ["WORLD_SIZE"]))
else:
    store = dist.FileStore(os.environ["STORE_FILE"], int(os.environ["WORLD_SIZE"]))
    dist.init_process_group(store=store, rank=int(os.environ["RANK"]),
                            world_size=int(os.environ["WORLD_SIZE"]))
seconds = time.perf_counter() - t0
r = dist.get_rank()
t = ember.tensor([r + 1.0])
dist.all_reduce(t)
dist.destroy_process_group()
dist.init_process_group("gloo") if method == "env" else None
again = None
if dist.is_initialized():
    x = ember.ones(1)
    dist.all_reduce(x)
    again = x.item()
    dist.destroy_process_group()
emit(rank=r, sum=t.item(), seconds=seconds, again=again, size=int(os.environ["WORLD_SIZE"]))
"""


@pytest.mark.parametrize("method", ["env", "tcp", "file", "store"])
def test_init_methods(tmp_path: Path, method: str) -> None:
    n = 3 if method == "env" else 2
    codes, text, res = run_ranks(tmp_path, BODY, n=n, timeout=40,
                                 env={"INIT": method, "STORE_FILE": str(tmp_path / "store")})
    assert codes == [0] * n, text
    for r in range(n):
        assert res[r]["rank"] == r and res[r]["sum"] == sum(range(1, n + 1))
        assert res[r]["seconds"] < 20
        if method == "env":
            assert res[r]["again"] == n  # destroy + init again in the same process


MISSING = r"""
from datetime import timedelta
import time
t0 = time.monotonic()
try:
    dist.init_process_group("gloo", timeout=timedelta(seconds=3))
    emit(result="joined")
except Exception as e:
    emit(result=type(e).__name__, seconds=time.monotonic() - t0, message=str(e)[:300])
"""


def test_missing_rank_fails_init_after_timeout(tmp_path: Path) -> None:
    # WORLD_SIZE=3 but only ranks 0 and 1 start
    codes, text, res = run_ranks(tmp_path, MISSING, n=2, timeout=60, env={"WORLD_SIZE": "3"})
    for r in range(2):
        assert res[r]["result"] in ("DistBackendError", "DistStoreError", "DistNetworkError"), text
        assert res[r]["seconds"] < 15, res[r]


DEAD_PEER = r"""
import signal, time
dist.init_process_group("gloo")
dist.barrier()
if dist.get_rank() == 1:
    os.kill(os.getpid(), signal.SIGKILL)
t0 = time.monotonic()
try:
    dist.all_reduce(ember.ones(1))
    emit(result="returned")
except dist.DistBackendError as e:
    emit(result="DistBackendError", seconds=time.monotonic() - t0, message=str(e)[:300])
"""


def test_dead_peer_fails_the_others_fast(tmp_path: Path) -> None:
    t0 = time.monotonic()
    codes, text, res = run_ranks(tmp_path, DEAD_PEER, n=2, timeout=60)
    assert res[0]["result"] == "DistBackendError", text
    assert res[0]["seconds"] < 5, res[0]
    assert "peer" in res[0]["message"]
    assert codes[0] not in (None,) and time.monotonic() - t0 < 30


BAD_ARGS = r"""
errors = {}
for key, fn in {
    "nccl": lambda: dist.init_process_group("nccl"),
    "unknown": lambda: dist.init_process_group("banana"),
    "both": lambda: dist.init_process_group(init_method="env://", store=dist.HashStore()),
    "rank_missing": lambda: dist.init_process_group(store=dist.HashStore(), world_size=2),
    "before_init": lambda: dist.get_rank(),
    "timeout_type": lambda: dist.init_process_group(timeout=5),
}.items():
    try:
        fn()
        errors[key] = None
    except Exception as e:
        errors[key] = [type(e).__name__, str(e)[:120]]
os.environ.pop("MASTER_ADDR")
try:
    dist.init_process_group()
except ValueError as e:
    errors["no_master_addr"] = ["ValueError", str(e)]
emit(errors=errors)
"""


def test_bad_arguments(tmp_path: Path) -> None:
    codes, text, res = run_ranks(tmp_path, BAD_ARGS, n=1, timeout=60)
    e = res[0]["errors"]
    assert e["nccl"][0] == "RuntimeError" and "CUDA" in e["nccl"][1]
    assert e["unknown"][0] == "ValueError"
    assert e["both"] == ["ValueError", "Cannot specify both init_method and store."]
    assert e["rank_missing"][0] == "ValueError"
    assert e["before_init"][0] == "ValueError" and "init_process_group" in e["before_init"][1]
    assert e["timeout_type"][0] == "TypeError"
    assert e["no_master_addr"][1] == ("Error initializing torch.distributed using env:// rendezvous: "
                                      "environment variable MASTER_ADDR expected, but not set")


def test_free_port_helper() -> None:
    assert 0 < free_port() < 65536
