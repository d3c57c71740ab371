"""Never lose a checkpoint, never hang: a save killed at each step leaves the previous
checkpoint loadable (or the new one, once committed) and a partial one refused; a full disk
fails the save and keeps the previous checkpoint; truncated or corrupted shards are named on
load; a rank that dies during save or load makes the others fail within the timeout."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pytest
from _launch import run_ranks

pytestmark = [pytest.mark.filterwarnings("ignore:torch.distributed is disabled"),
              pytest.mark.filterwarnings("ignore:Detected an existing checkpoint")]

# A child process: saves checkpoint A (value 1.0), then B (value 2.0) with SIGKILL at `point`.
KILL_CHILD = r"""
import os, signal, sys, warnings
warnings.simplefilter("ignore")
import ember
import ember.distributed.checkpoint as dcp
from ember.distributed.checkpoint import _pickle, _tensor_io, filesystem
path, point, first = sys.argv[1], sys.argv[2], sys.argv[3] == "1"

def sd(v):
    return {"w": ember.full((64, 64), v), "b": ember.full((300,), v), "step": int(v)}

def die(*a, **k):
    os.kill(os.getpid(), signal.SIGKILL)

if first:
    dcp.save(sd(1.0), checkpoint_id=path, no_dist=True)
if point == "data":          # after the first tensor's bytes
    orig = _tensor_io.write_tensor
    calls = []
    def write_then_die(write, t):
        orig(write, t)
        calls.append(1)
        if len(calls) == 2:
            die()
    filesystem._tensor_io.write_tensor = write_then_die
elif point == "metadata":    # all data written, metadata not started
    _pickle.dumps = die
elif point == "rename":      # metadata in its temporary file, not renamed
    os.replace = die
elif point == "cleanup":     # committed, old files not yet deleted
    filesystem._fsync_dir = die
dcp.save(sd(2.0), checkpoint_id=path, no_dist=True)
"""


def _child(tmp: Path, body: str, *args: str, preexec=None, timeout: float = 60) -> subprocess.CompletedProcess:
    script = tmp / "child.py"
    script.write_text(textwrap.dedent(body))
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=preexec, env={**os.environ, "OMP_NUM_THREADS": "1"})


def _load(path: Path) -> dict:
    import ember
    import ember.distributed.checkpoint as dcp

    sd = {"w": ember.zeros(64, 64), "b": ember.zeros(300), "step": 0}
    dcp.load(sd, checkpoint_id=path, no_dist=True)
    assert (sd["w"] == sd["w"][0, 0]).all().item() and (sd["b"] == sd["w"][0, 0]).all().item()
    return {"w": sd["w"][0, 0].item(), "step": sd["step"]}


@pytest.mark.parametrize("point,survivor", [("data", 1.0), ("metadata", 1.0), ("rename", 1.0), ("cleanup", 2.0)])
def test_save_killed_keeps_a_loadable_checkpoint(tmp_path: Path, point: str, survivor: float) -> None:
    ck = tmp_path / "ck"
    p = _child(tmp_path, KILL_CHILD, str(ck), point, "1")
    assert p.returncode == -signal.SIGKILL, p.stderr
    assert _load(ck) == {"w": survivor, "step": int(survivor)}
    # The next save succeeds and leaves only its own files behind.
    import ember
    import ember.distributed.checkpoint as dcp

    dcp.save({"w": ember.full((64, 64), 3.0), "b": ember.full((300,), 3.0), "step": 3}, checkpoint_id=ck, no_dist=True)
    assert _load(ck) == {"w": 3.0, "step": 3}
    from _dcp_fake import listdir_settled

    names = listdir_settled(ck, 2)
    assert names[0] == ".metadata" and len(names) == 2 and names[1].startswith("__0_"), names


def test_save_killed_in_fresh_directory_is_refused(tmp_path: Path) -> None:
    import ember.distributed.checkpoint as dcp

    ck = tmp_path / "ck"
    p = _child(tmp_path, KILL_CHILD, str(ck), "rename", "0")
    assert p.returncode == -signal.SIGKILL
    assert any(n.endswith(".distcp") for n in os.listdir(ck))
    with pytest.raises(dcp.CheckpointException, match="holds no complete checkpoint: .metadata is missing"):
        _load(ck)


def test_previous_checkpoint_loads_in_torch_after_killed_save(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    import torch.distributed.checkpoint as tdcp

    ck = tmp_path / "ck"
    _child(tmp_path, KILL_CHILD, str(ck), "rename", "1")
    sd = {"w": torch.zeros(64, 64), "step": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tdcp.load(sd, checkpoint_id=str(ck), no_dist=True)
    assert sd["w"].eq(1.0).all() and sd["step"] == 1


FULL_DISK_CHILD = r"""
import os, sys, warnings
warnings.simplefilter("ignore")
import ember
import ember.distributed.checkpoint as dcp
path = sys.argv[1]
dcp.save({"w": ember.full((16, 16), 1.0), "step": 1}, checkpoint_id=path, no_dist=True)
if sys.argv[2] == "rlimit":   # files may not grow past 256 KiB: writes fail with EFBIG
    import resource, signal
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 10, 256 << 10))
try:
    dcp.save({"w": ember.full((16, 16), 2.0), "big": ember.ones(1 << 20), "step": 2}, checkpoint_id=path, no_dist=True)
    print("SAVED")
except dcp.CheckpointException as e:
    print("FAILED:", str(e).strip().splitlines()[-1])
"""


def _check_full_disk(tmp_path: Path, ck: Path, mode: str, errno_text: str) -> None:
    p = _child(tmp_path, FULL_DISK_CHILD, str(ck), mode)
    assert p.returncode == 0, p.stderr
    assert "FAILED:" in p.stdout and errno_text in p.stdout, p.stdout
    import ember
    import ember.distributed.checkpoint as dcp

    sd = {"w": ember.zeros(16, 16), "step": 0}
    dcp.load(sd, checkpoint_id=ck, no_dist=True)
    assert sd["w"].eq(1.0).all().item() and sd["step"] == 1
    assert len([n for n in os.listdir(ck) if n.endswith(".distcp")]) == 1  # the failed save's file is gone


def test_full_disk_keeps_previous_checkpoint_rlimit(tmp_path: Path) -> None:
    _check_full_disk(tmp_path, tmp_path / "ck", "rlimit", "File too large")


def test_full_disk_keeps_previous_checkpoint_tmpfs(tmp_path: Path) -> None:
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("mounting a small tmpfs needs root")
    try:
        _check_full_disk(tmp_path, mnt / "ck", "tmpfs", "No space left on device")
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


def _two_items(ck: Path) -> None:
    import ember
    import ember.distributed.checkpoint as dcp

    dcp.save({"a": ember.arange(1000.), "b": ember.arange(2000.)}, checkpoint_id=ck, no_dist=True)


def _load_two(ck: Path) -> None:
    import ember
    import ember.distributed.checkpoint as dcp

    dcp.load({"a": ember.zeros(1000), "b": ember.zeros(2000)}, checkpoint_id=ck, no_dist=True)


def test_truncated_shard_is_named(tmp_path: Path) -> None:
    import ember.distributed.checkpoint as dcp
    from ember.distributed.checkpoint import FileSystemReader

    _two_items(tmp_path)
    f = tmp_path / "__0_0.distcp"
    last = max(FileSystemReader(tmp_path).read_metadata().storage_data.items(), key=lambda kv: kv[1].offset)[0].fqn
    os.truncate(f, f.stat().st_size - 100)
    with pytest.raises(dcp.CheckpointException) as ei:
        _load_two(tmp_path)
    msg = str(ei.value)
    assert "checkpoint file __0_0.distcp is truncated or corrupted" in msg and f"key {last!r}" in msg, msg
    assert f"the file has {f.stat().st_size} bytes" in msg


def test_corrupted_shard_is_named(tmp_path: Path) -> None:
    import ember.distributed.checkpoint as dcp
    from ember.distributed.checkpoint import FileSystemReader

    _two_items(tmp_path)
    md = FileSystemReader(tmp_path).read_metadata()
    info = next(v for k, v in md.storage_data.items() if k.fqn == "a")
    with open(tmp_path / info.relative_path, "r+b") as f:  # scribble over the archive's zip directory
        f.seek(info.offset + info.length - 200)
        f.write(b"\xff" * 200)
    with pytest.raises(dcp.CheckpointException) as ei:
        _load_two(tmp_path)
    msg = str(ei.value)
    assert "checkpoint file __0_0.distcp, key 'a'" in msg and "is corrupted" in msg, msg


def test_corrupted_metadata_is_reported(tmp_path: Path) -> None:
    import ember.distributed.checkpoint as dcp

    _two_items(tmp_path)
    (tmp_path / ".metadata").write_bytes(b"garbage")
    with pytest.raises(dcp.CheckpointException, match="cannot read checkpoint metadata"):
        _load_two(tmp_path)


# Rank 1 is SIGKILLed in the middle of its write (or read); rank 0 must not hang.
DEATH = r"""
import signal, sys, time, warnings
from datetime import timedelta
warnings.simplefilter("ignore")
import ember.distributed.checkpoint as dcp
from ember.distributed.checkpoint import _tensor_io, filesystem
dist.init_process_group("gloo", timeout=timedelta(seconds=5))
r = dist.get_rank()
path, phase = sys.argv[2], sys.argv[3]
sd = {"r%d.w%d" % (r, i): ember.full((256,), float(r + 10 * i)) for i in range(4)}
dcp.save(sd, checkpoint_id=path)   # the previous checkpoint
if r == 1:
    def die(*a, **k):
        os.kill(os.getpid(), signal.SIGKILL)
    if phase == "save":
        filesystem._tensor_io.write_tensor = die
    else:
        _tensor_io.MappedFile.copy_region = die
t0 = time.monotonic()
try:
    if phase == "save":
        dcp.save({k: v * 2 for k, v in sd.items()}, checkpoint_id=path)
    else:
        dcp.load(sd, checkpoint_id=path)
    emit(result="returned")
except BaseException as e:
    emit(result=type(e).__name__, seconds=time.monotonic() - t0, message=str(e)[:300])
    sys.stdout.flush()
    os._exit(3)
"""


@pytest.mark.parametrize("phase", ["save", "load"])
def test_rank_death_fails_others_within_timeout(tmp_path: Path, phase: str) -> None:
    t0 = time.monotonic()
    body = f"sys.argv[2:] = [{str(tmp_path / 'ck')!r}, {phase!r}]\n" + DEATH
    codes, text, res = run_ranks(tmp_path, body, n=2, timeout=90)
    assert codes[1] == -signal.SIGKILL, text
    assert res[0].get("result") not in (None, "returned"), text
    assert res[0]["seconds"] < 30, res[0]
    assert time.monotonic() - t0 < 80
    import ember
    import ember.distributed.checkpoint as dcp

    sd = {f"r{r}.w{i}": ember.zeros(256) for r in range(2) for i in range(4)}
    dcp.load(sd, checkpoint_id=tmp_path / "ck", no_dist=True)  # the previous checkpoint, intact
    assert all(v.eq(float(int(k[1]) + 10 * int(k[-1]))).all().item() for k, v in sd.items())
