"""Never a hang: a rank that raises, is killed, exits early or never arrives makes the others
fail (DistBackendError) or the job end, within the time bound each test states."""

from __future__ import annotations

import time
from pathlib import Path

from _launch import run_mpiexec

TIMEOUT_BODY = r"""
import time
from datetime import timedelta
dist.init_process_group("gloo", timeout=timedelta(seconds=2))
if dist.get_rank() == 1:
    time.sleep(6)   # never calls the collective in time
else:
    t0 = time.monotonic()
    try:
        dist.all_reduce(ember.ones(1))
        emit(result="returned")
    except dist.DistBackendError as e:
        emit(result="DistBackendError", seconds=time.monotonic() - t0, message=str(e)[:200])
    try:
        dist.all_reduce(ember.ones(1))
    except dist.DistBackendError as e:
        emit(after="DistBackendError", after_message=str(e)[:200])
"""


def test_collective_timeout(tmp_path: Path) -> None:
    t0 = time.monotonic()
    code, text, res = run_mpiexec(tmp_path, TIMEOUT_BODY, n=2, timeout=60)
    assert res[0]["result"] == "DistBackendError", text
    assert 1.5 < res[0]["seconds"] < 5.0, res[0]
    assert "timed out after 2 s" in res[0]["message"]
    assert res[0]["after"] == "DistBackendError" and "broken" in res[0]["after_message"]
    assert time.monotonic() - t0 < 30


WAIT_BODY = r"""
import time
from datetime import timedelta
dist.init_process_group("gloo")
if dist.get_rank() == 1:
    time.sleep(4)
else:
    w = dist.all_reduce(ember.ones(1), async_op=True)
    t0 = time.monotonic()
    try:
        w.wait(timeout=timedelta(seconds=0.5))
        emit(result="returned")
    except dist.DistBackendError:
        emit(result="DistBackendError", seconds=time.monotonic() - t0)
"""


def test_work_wait_timeout(tmp_path: Path) -> None:
    code, text, res = run_mpiexec(tmp_path, WAIT_BODY, n=2, timeout=60)
    assert res[0]["result"] == "DistBackendError", text
    assert 0.4 < res[0]["seconds"] < 3.0


RAISE_BODY = r"""
import time
dist.init_process_group("gloo")
emit(started=True)
if dist.get_rank() == 1:
    raise ValueError("boom on rank 1")
dist.all_reduce(ember.ones(1))   # rank 1 never joins: the job must end, not hang
time.sleep(60)
"""


def test_rank_that_raises_ends_the_job(tmp_path: Path) -> None:
    t0 = time.monotonic()
    code, text, res = run_mpiexec(tmp_path, RAISE_BODY, n=2, timeout=60)
    assert code != 0
    assert "boom on rank 1" in text
    assert time.monotonic() - t0 < 20, text


KILL_BODY = r"""
import os, signal, time
dist.init_process_group("gloo")
dist.barrier()
if dist.get_rank() == 1:
    os.kill(os.getpid(), signal.SIGKILL)
dist.all_reduce(ember.ones(1))
time.sleep(60)
"""


def test_killed_rank_ends_the_job(tmp_path: Path) -> None:
    t0 = time.monotonic()
    code, text, _ = run_mpiexec(tmp_path, KILL_BODY, n=2, timeout=60)
    assert code != 0
    assert time.monotonic() - t0 < 20, text


MISMATCH_BODY = r"""
dist.init_process_group("gloo")
r = dist.get_rank()
out = {}
try:
    dist.all_reduce(ember.ones(10 if r == 0 else 20))
    out["shape"] = None
except RuntimeError as e:
    out["shape"] = str(e)
try:
    if r == 0:
        dist.all_reduce(ember.ones(3))
    else:
        dist.broadcast(ember.ones(3), src=0)
    out["op"] = None
except RuntimeError as e:
    out["op"] = str(e)
t = ember.ones(2)
dist.all_reduce(t)  # matching calls still work
out["ok"] = t.tolist()
emit(**out)
"""


def test_detail_debug_detects_mismatched_collectives(tmp_path: Path) -> None:
    code, text, res = run_mpiexec(tmp_path, MISMATCH_BODY, n=2, timeout=60,
                                  env={"TORCH_DISTRIBUTED_DEBUG": "DETAIL"})
    assert code == 0, text
    for r in range(2):
        assert res[r]["shape"].startswith("Detected mismatch between collectives on ranks.")
        assert "TensorShape=[10]" in res[r]["shape"] and "TensorShape=[20]" in res[r]["shape"]
        assert "OpType=ALLREDUCE" in res[r]["op"] and "OpType=BROADCAST" in res[r]["op"]
        assert res[r]["ok"] == [2.0, 2.0]
