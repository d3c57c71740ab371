"""ember.multiprocessing: shared-memory tensors across fork, spawn and forkserver."""

from __future__ import annotations

import gc
import multiprocessing as std_mp
import os
import signal
import subprocess
import sys
import types
from pathlib import Path

import ember
import ember.multiprocessing as mp
import pytest
from ember.multiprocessing import _shared_memory as shm
from ember.multiprocessing._channel import Channel, ChannelClosed
from ember.multiprocessing.reductions import _check_autograd


def _segment_fds() -> int:
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        n += "memfd:ember" in target or target.startswith("/dev/shm/ember_")
    return n


def _ember_shm_files() -> set[str]:
    return {f for f in os.listdir("/dev/shm") if f.startswith("ember_")} if os.path.isdir("/dev/shm") else set()


# ------------------------------------------------------------------ share_memory_


def test_share_memory_moves_storage_in_place() -> None:
    t = ember.arange(12.0).reshape(3, 4)
    assert not t.is_shared()
    assert t.share_memory_() is t
    assert t.is_shared() and t.tolist() == ember.arange(12.0).reshape(3, 4).tolist()
    ptr = t.data_ptr()
    t.share_memory_()  # already shared: nothing moves
    assert t.data_ptr() == ptr
    v = t[1]  # views made afterwards share the segment
    v[0] = -1.0
    assert t[1, 0].item() == -1.0 and v.is_shared()


def test_share_memory_keeps_view_geometry() -> None:
    base = ember.arange(20.0).reshape(4, 5)
    view = base.t()[1:]  # non-contiguous, with a storage offset
    expected = view.tolist()
    view.share_memory_()
    assert view.is_shared() and view.tolist() == expected
    assert view.stride() == (1, 5) and view.storage_offset() == 1
    assert not base.is_shared()  # only the tensor asked moves


@pytest.mark.parametrize("dtype", [ember.bool, ember.uint8, ember.int32, ember.int64, ember.float16, ember.float64])
def test_share_memory_dtypes_and_empty(dtype) -> None:
    t = ember.zeros((2, 3), dtype=dtype)
    t.share_memory_()
    assert t.is_shared() and t.dtype == dtype and t.shape == (2, 3)
    e = ember.empty((0, 4), dtype=dtype).share_memory_()
    assert e.is_shared() and e.shape == (0, 4)


def test_segments_are_released_with_their_tensors() -> None:
    gc.collect()
    before = _segment_fds()
    ts = [ember.ones(1000).share_memory_() for _ in range(20)]
    assert _segment_fds() == before + 20
    del ts
    gc.collect()
    assert _segment_fds() == before


def test_non_leaf_tensors_that_require_grad_are_refused() -> None:
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor which requires_grad"):
        _check_autograd(types.SimpleNamespace(requires_grad=True, is_leaf=False))
    _check_autograd(types.SimpleNamespace(requires_grad=True, is_leaf=True))


def test_sharing_strategies() -> None:
    assert mp.get_sharing_strategy() == "file_descriptor"
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    with pytest.raises(ValueError, match="invalid sharing strategy 'bogus'"):
        mp.set_sharing_strategy("bogus")


def test_module_is_a_drop_in_for_multiprocessing() -> None:
    for name in ("Process", "Queue", "Pipe", "get_context", "set_start_method", "Pool", "cpu_count"):
        assert getattr(mp, name) is getattr(std_mp, name)
    assert {"spawn", "start_processes", "set_sharing_strategy"} <= set(mp.__all__)


# --------------------------------------------------------------------- fork


def _child_writes(q_in, q_out) -> None:  # runs in a forked child
    t = q_in.get()
    t.mul_(2)
    made = ember.full((2, 2), 7.0)
    q_out.put((t.is_shared(), made))
    q_in.get()  # keep `made` alive until the parent has looked at it


def test_queue_shares_memory_with_a_forked_child() -> None:
    ctx = mp.get_context("fork")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_child_writes, args=(q_in, q_out))
    p.start()
    t = ember.arange(4.0)
    q_in.put(t)  # moves t to shared memory
    shared_in_child, made = q_out.get(timeout=30)
    assert shared_in_child and t.is_shared()
    assert t.tolist() == [0.0, 2.0, 4.0, 6.0]  # the child's write is visible here
    assert made.is_shared() and made.tolist() == [[7.0, 7.0], [7.0, 7.0]]
    q_in.put(None)
    p.join(30)
    assert p.exitcode == 0


def test_file_system_strategy_leaves_no_files() -> None:
    before = _ember_shm_files()
    mp.set_sharing_strategy("file_system")
    try:
        ctx = mp.get_context("fork")
        q_in, q_out = ctx.Queue(), ctx.Queue()
        p = ctx.Process(target=_child_writes, args=(q_in, q_out))
        p.start()
        t = ember.arange(4.0)
        q_in.put(t)
        _, made = q_out.get(timeout=30)
        assert t.tolist() == [0.0, 2.0, 4.0, 6.0] and made.sum().item() == 28.0
        assert shm.segment_of(t).name is not None  # really went by name
        q_in.put(None)
        p.join(30)
        del t, made
        gc.collect()
    finally:
        mp.set_sharing_strategy("file_descriptor")
    assert _ember_shm_files() <= before


# ---------------------------------------------------------- spawn, forkserver

SCRIPT = """
import sys
import ember
import ember.multiprocessing as mp

def child(t, q_in, q_out):
    t.add_(1)                       # arrived as an argument
    u = q_in.get()                  # arrives through a queue
    u.mul_(10)
    q_out.put(ember.full((3,), 5.0))  # and a new tensor goes back
    q_in.get()

if __name__ == "__main__":
    ctx = mp.get_context(sys.argv[1])
    t = ember.zeros(3)
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=child, args=(t, q_in, q_out))
    p.start()
    u = ember.ones(2)
    q_in.put(u)
    back = q_out.get(timeout=60)
    print(t.tolist(), u.tolist(), back.tolist(), back.is_shared())
    q_in.put(None)
    p.join(60)
    print("exit", p.exitcode)
"""


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_tensors_shared_with_spawn_and_forkserver_children(tmp_path: Path, method: str) -> None:
    if method not in std_mp.get_all_start_methods():
        pytest.skip(f"{method} is not available on this platform")
    script = tmp_path / "share.py"
    script.write_text(SCRIPT)
    r = subprocess.run([sys.executable, str(script), method], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    expected = ["[1.0, 1.0, 1.0] [10.0, 10.0] [5.0, 5.0, 5.0] True", "exit 0"]
    assert r.stdout.split("\n")[:2] == expected, r.stdout + r.stderr


# --------------------------------------------------------------------- spawn()

SPAWN_SCRIPT = """
import os, signal, sys
import ember
import ember.multiprocessing as mp

def fill(i, t):
    t[i] = i + 1

def boom(i):
    if i == 1:
        raise ValueError("bad rank " + str(i))

def die(i):
    if i == 0:
        os.kill(os.getpid(), signal.SIGKILL)
    import time; time.sleep(30)

def leave(i):
    if i == 1:
        os._exit(3)
    import time; time.sleep(30)

if __name__ == "__main__":
    t = ember.zeros(3).share_memory_()
    mp.spawn(fill, args=(t,), nprocs=3)
    print("filled", t.tolist())
    for fn in (boom, die, leave):
        try:
            mp.spawn(fn, nprocs=2)
        except mp.ProcessRaisedException as e:
            print("raised", e.error_index, "ValueError: bad rank 1" in str(e), "Traceback" in str(e))
        except mp.ProcessExitedException as e:
            print("exited", e.error_index, e.exit_code, e.signal_name)
    ctx = mp.start_processes(fill, args=(t,), nprocs=1, join=False, start_method="fork")
    while not ctx.join():
        pass
    print("context", len(ctx.pids()))
"""


def test_spawn_helper(tmp_path: Path) -> None:
    script = tmp_path / "spawn.py"
    script.write_text(SPAWN_SCRIPT)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "filled [1.0, 2.0, 3.0]",
        "raised 1 True True",
        "exited 0 -9 SIGKILL",
        "exited 1 3 None",
        "context 1",
    ], r.stdout + r.stderr


# --------------------------------------------------------------------- channel


def test_channel_passes_tensors_as_segments() -> None:
    a, b = Channel.pair()
    x = ember.arange(100_000.0)
    a.send({"x": x, "meta": [1, "two"]})
    got = b.recv()
    assert got["meta"] == [1, "two"] and got["x"].is_shared() and got["x"][-1].item() == 99_999.0
    assert a.bytes_sent < 1000  # a handle, not 400 kB of floats
    assert not x.is_shared()  # the sender's tensor was copied, not moved


def test_channel_keeps_aliasing_of_shared_tensors() -> None:
    a, b = Channel.pair()
    base = ember.arange(6.0).reshape(2, 3).share_memory_()
    a.send((base, base[1], base.t()))
    x, row, xt = b.recv()
    x[1, 0] = 100.0
    assert row[0].item() == 100.0 and xt[0, 1].item() == 100.0
    assert base[1, 0].item() == 100.0  # same memory as the sender's, too


def test_channel_large_messages_and_many_tensors() -> None:
    a, b = Channel.pair()
    payload = list(range(200_000))  # a ~1 MB pickle: many records
    tensors = [ember.full((2,), float(i)) for i in range(600)]  # more fds than one record carries
    a.send((payload, tensors), block=False)  # the reader is not reading yet: no deadlock
    got_payload, got_tensors = b.recv()
    assert got_payload == payload
    assert [t[0].item() for t in got_tensors] == [float(i) for i in range(600)]


def test_channel_closed_peer() -> None:
    a, b = Channel.pair()
    b.close()
    with pytest.raises(ChannelClosed):
        a.send(1)
    c, d = Channel.pair()
    d.close()
    with pytest.raises(ChannelClosed):
        c.recv()


def test_channel_closes_fds_it_receives() -> None:
    gc.collect()
    before = _segment_fds()
    a, b = Channel.pair()
    for _ in range(10):
        a.send([ember.ones(10) for _ in range(3)])
        b.recv()
    gc.collect()
    assert _segment_fds() == before


def test_child_killed_mid_transfer_leaves_nothing(tmp_path: Path) -> None:
    before = _ember_shm_files()
    ctx = std_mp.get_context("fork")
    a, b = Channel.pair()

    def sender() -> None:
        for _ in range(50):
            a.send(ember.ones(1000))
        os.kill(os.getpid(), signal.SIGKILL)

    p = ctx.Process(target=sender)
    p.start()
    p.join(30)
    assert p.exitcode == -signal.SIGKILL
    a.close()
    got = 0
    try:
        while True:
            b.recv()
            got += 1
    except ChannelClosed:
        pass
    assert got == 50
    b.close()
    gc.collect()
    assert _ember_shm_files() <= before
