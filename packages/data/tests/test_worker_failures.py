"""Worker failures and shutdown: errors come back, nothing hangs, nothing is left behind."""

from __future__ import annotations

import gc
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import ember
import pytest
from ember.utils.data import DataLoader, TensorDataset
from ember_data_testlib import (
    FailingDataset,
    RangeDataset,
    SlowDataset,
    SuicideDataset,
    TensorItems,
    child_pids,
    failing_init,
    shared_memory_fds,
    shm_entries,
    wait_until,
)


class CustomError(Exception):
    pass


@pytest.fixture()
def no_leftovers():
    """Asserts that a test leaves no worker processes, /dev/shm files or segment fds."""
    gc.collect()
    children, shm, fds = child_pids(), shm_entries(), shared_memory_fds()
    yield
    gc.collect()
    assert wait_until(lambda: child_pids() <= children), f"leftover processes: {child_pids() - children}"
    assert shm_entries() <= shm, f"leftover /dev/shm entries: {shm_entries() - shm}"
    assert shared_memory_fds() <= fds


@pytest.mark.parametrize("exc, kind", [(KeyError("missing"), KeyError), (ValueError("bad value"), ValueError),
                                       (CustomError("mine"), CustomError)])
def test_worker_exception_is_reraised_with_worker_id_and_traceback(no_leftovers, exc, kind) -> None:
    dl = DataLoader(FailingDataset(8, bad=5, exc=exc), batch_size=2, num_workers=2)
    got = []
    with pytest.raises(kind) as e:
        for b in dl:
            got.append(b.tolist())
    msg = str(e.value)
    assert got == [[0, 1], [2, 3]]  # batches before the failing one arrive in order
    assert f"Caught {kind.__name__} in DataLoader worker process 0." in msg
    assert "Original Traceback (most recent call last):" in msg
    assert "ember_data_testlib.py" in msg and "__getitem__" in msg
    del e


def test_worker_exception_message_format() -> None:
    # PyTorch's format (its own DataLoader takes ~5 s per worker to shut down after a
    # worker error on this machine, so the text is checked literally instead).
    with pytest.raises(KeyError) as e:
        list(DataLoader(FailingDataset(4, bad=1, exc=KeyError("k")), num_workers=2))
    lines = str(e.value).splitlines()
    assert lines[:2] == ["Caught KeyError in DataLoader worker process 1.",
                         "Original Traceback (most recent call last):"]
    assert lines[-1] == "KeyError: 'k'"
    del e


def test_exception_in_worker_init_fn(no_leftovers) -> None:
    with pytest.raises(ValueError, match="init failed in 0"):
        list(DataLoader(RangeDataset(4), num_workers=1, worker_init_fn=failing_init))


def test_unpicklable_exception_type_becomes_runtime_error(no_leftovers) -> None:
    class LocalError(Exception):  # defined in a function: cannot be pickled by reference
        pass

    with pytest.raises(RuntimeError, match="Caught LocalError in DataLoader worker process 0"):
        list(DataLoader(FailingDataset(2, bad=0, exc=LocalError("x")), num_workers=1))


def test_unpicklable_batch_is_an_error_not_a_hang(no_leftovers) -> None:
    dl = DataLoader(RangeDataset(2), num_workers=1, collate_fn=lambda b: (lambda: b))
    with pytest.raises(RuntimeError, match="could not send its batch to the main process"):
        list(dl)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGSEGV])
def test_worker_killed_by_signal_is_reported_quickly(no_leftovers, sig) -> None:
    dl = DataLoader(SuicideDataset(10, bad=3, sig=sig), batch_size=None, num_workers=2)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly") as e:
        list(dl)
    assert time.monotonic() - start < 5
    assert signal.Signals(sig).name in str(e.value)


def test_timeout(no_leftovers) -> None:
    dl = DataLoader(SlowDataset(4, delay=1.5), num_workers=1, timeout=1)
    start = time.monotonic()
    with pytest.raises(RuntimeError) as e:
        next(iter(dl))
    assert str(e.value) == "DataLoader timed out after 1 seconds"  # PyTorch's text
    assert time.monotonic() - start < 5
    del e


def test_break_out_of_loop_shuts_workers_down(no_leftovers) -> None:
    dl = DataLoader(TensorItems(100, (64,)), batch_size=4, num_workers=2)
    for i, _batch in enumerate(dl):
        if i == 2:
            break
    del _batch


def test_del_iterator_and_loader_shut_workers_down(no_leftovers) -> None:
    x = ember.arange(4000.0).reshape(1000, 4)
    dl = DataLoader(TensorDataset(x), batch_size=10, num_workers=2, persistent_workers=True)
    it = iter(dl)
    held = next(it)
    workers = list(it._workers)
    assert all(w.is_alive() for w in workers) and held[0].is_shared()
    del it, dl
    gc.collect()
    assert wait_until(lambda: not any(w.is_alive() for w in workers))
    assert held[0][0].tolist() == [0.0, 1.0, 2.0, 3.0]  # batches stay valid after shutdown
    del held


def test_exhausted_iterator_shuts_workers_down(no_leftovers) -> None:
    it = iter(DataLoader(RangeDataset(6), batch_size=2, num_workers=2))
    workers = list(it._workers)
    assert len(list(it)) == 3
    assert not any(w.is_alive() for w in workers)


def test_many_batches_release_their_segments(no_leftovers) -> None:
    before = shared_memory_fds()
    for b in DataLoader(TensorItems(64, (32,)), batch_size=2, num_workers=2):
        assert b.is_shared()
    del b
    gc.collect()
    assert shared_memory_fds() <= before


SCRIPT = """
import gc, os, signal, sys, time
sys.path.insert(0, {testdir!r})
import ember
from ember.utils.data import DataLoader
from ember_data_testlib import TensorItems, child_pids, shm_entries, shared_memory_fds, wait_until

shm_before = shm_entries()
dl = DataLoader(TensorItems(10_000, (256,)), batch_size=8, num_workers=2)
try:
    for i, batch in enumerate(dl):
        if i == 3:
            os.killpg(os.getpgid(0), signal.SIGINT)  # Ctrl-C reaches the whole group
            time.sleep(5)
    print("NOT INTERRUPTED")
except KeyboardInterrupt:
    print("INTERRUPTED")
gc.collect()
print("children", len(child_pids()) if wait_until(lambda: not child_pids()) else sorted(child_pids()))
print("shm", sorted(shm_entries() - shm_before))
print("fds", shared_memory_fds())  # batches map their segments without keeping fds
"""


def test_keyboard_interrupt_leaves_nothing_behind(tmp_path: Path) -> None:
    script = tmp_path / "interrupt.py"
    script.write_text(textwrap.dedent(SCRIPT.format(testdir=str(Path(__file__).parent))))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                       start_new_session=True)  # own process group: the SIGINT stays there
    out = r.stdout.split()
    assert "INTERRUPTED" in out, r.stdout + r.stderr
    assert "children 0" in r.stdout and "shm []" in r.stdout and "fds 0" in r.stdout, r.stdout + r.stderr
    assert "Traceback" not in r.stderr, r.stderr  # workers exit quietly
