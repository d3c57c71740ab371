"""Stores: the shared Store API on all four, TCPStore and FileStore across processes, timeouts."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from datetime import timedelta

import pytest
from ember.distributed._errors import DistError, DistNetworkError, DistStoreError
from ember.distributed.store import FileStore, HashStore, PrefixStore, Store, TCPStore

SHORT = timedelta(seconds=0.3)


def _tcp(tmp_path: object) -> Store:
    return TCPStore("127.0.0.1", 0, 1, True, timeout=timedelta(seconds=10))


FACTORIES: dict[str, Callable[[object], Store]] = {
    "hash": lambda tmp: HashStore(),
    "file": lambda tmp: FileStore(str(tmp / "store"), 1),  # type: ignore[operator]
    "tcp": _tcp,
    "prefix": lambda tmp: PrefixStore("pre", HashStore()),
}


@pytest.fixture(params=sorted(FACTORIES))
def store(request: pytest.FixtureRequest, tmp_path: object) -> Store:
    return FACTORIES[request.param](tmp_path)


def test_set_get_bytes_and_str(store: Store) -> None:
    store.set("a", "x")
    store.set("b", b"\x00\xff")
    store.set("c", [1, 2])
    assert store.get("a") == b"x" and store.get("b") == b"\x00\xff" and store.get("c") == b"\x01\x02"


def test_add_is_a_counter(store: Store) -> None:
    assert store.add("n", 3) == 3
    assert store.add("n", -5) == -2
    assert store.get("n") == b"-2"
    store.set("s", "text")
    with pytest.raises(ValueError):
        store.add("s", 1)


def test_compare_set(store: Store) -> None:
    store.set("k", "x")
    assert store.compare_set("k", "x", "y") == b"y"
    assert store.compare_set("k", "zz", "w") == b"y"  # mismatch: current value, unchanged
    assert store.compare_set("new", "", "v") == b"v"  # unset + empty expected: written
    assert store.compare_set("new2", "q", "v") == b"q"  # unset + non-empty expected: not written
    assert not store.check(["new2"])


def test_check_delete_append_multi(store: Store) -> None:
    store.set("a", "1")
    assert store.check(["a"]) and not store.check(["a", "b"])
    assert store.delete_key("a") is True and store.delete_key("a") is False
    store.append("ap", "1")
    store.append("ap", b"2")
    assert store.get("ap") == b"12"
    store.multi_set(["m1", "m2"], ["v1", b"v2"])
    assert store.multi_get(["m1", "m2"]) == [b"v1", b"v2"]
    assert {"ap", "m1", "m2"} <= set(store.list_keys())
    assert store.num_keys() >= 3


def test_timeouts(store: Store) -> None:
    assert store.timeout > timedelta(0)
    store.set_timeout(SHORT)
    assert store.timeout == SHORT
    start = time.monotonic()
    with pytest.raises(DistStoreError):
        store.get("missing")
    with pytest.raises(DistStoreError):
        store.wait(["missing"], timedelta(seconds=0.2))
    assert time.monotonic() - start < 3
    assert issubclass(DistStoreError, DistError) and issubclass(DistError, RuntimeError)


def test_get_blocks_until_set(store: Store) -> None:
    # A TCPStore client serialises its requests on one socket (as torch's does): write from a clone.
    writer = store.clone() if isinstance(store, TCPStore) else store
    threading.Timer(0.2, lambda: writer.set("late", "v")).start()
    assert store.get("late") == b"v"
    store.wait(["late"])


def test_argument_types(store: Store) -> None:
    with pytest.raises(TypeError):
        store.set(1, "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        store.set("k", 2)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        store.wait("k")  # type: ignore[arg-type]


def test_prefix_store_namespaces_keys() -> None:
    base = HashStore()
    p = PrefixStore("job", base)
    p.set("k", "v")
    assert base.get("job/k") == b"v" and p.list_keys() == ["k"] and p.underlying_store is base


def test_tcpstore_messages_match_torch() -> None:
    s = TCPStore("127.0.0.1", 0, 1, True, timeout=SHORT)
    assert s.port > 0 and s.host == "127.0.0.1" and s.num_keys() == 1  # torch counts its init key
    with pytest.raises(DistStoreError, match=r"^wait timeout after 300ms, keys: /a, /b$"):
        s.wait(["a", "b"])
    with pytest.raises(DistNetworkError, match="address already in use"):
        TCPStore("127.0.0.1", s.port, 1, True, timeout=SHORT)
    start = time.monotonic()
    with pytest.raises(DistNetworkError, match=r"timed out after 300ms while trying to connect to \(127.0.0.1, 1\)"):
        TCPStore("127.0.0.1", 1, timeout=SHORT)
    with pytest.raises(DistStoreError, match=r"waiting for clients. 1/2 clients joined"):
        TCPStore("127.0.0.1", 0, 2, True, timeout=SHORT)
    assert time.monotonic() - start < 3


def test_tcpstore_client_sees_server_loss() -> None:
    s = TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, timeout=SHORT)
    c = TCPStore("127.0.0.1", s.port, timeout=SHORT)
    del s
    with pytest.raises(DistNetworkError, match="Connection was likely closed"):
        c.get("x")


_CLIENT = textwrap.dedent("""
    import sys
    from datetime import timedelta
    from ember.distributed.store import TCPStore
    port, rank = int(sys.argv[1]), int(sys.argv[2])
    s = TCPStore("127.0.0.1", port, 3, False, timeout=timedelta(seconds=20))
    s.set(f"from/{rank}", f"hello {rank}")
    s.add("sum", rank)
    print(s.get("go").decode(), s.get("from/0").decode())
""")


def test_tcpstore_across_processes() -> None:
    # The master waits for 3 instances (itself + 2 clients started after it on its port).
    server: list[TCPStore] = []
    port_store = TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False)  # only to find a free port
    port = port_store.port
    del port_store
    import gc

    gc.collect()
    t = threading.Thread(
        target=lambda: server.append(TCPStore("127.0.0.1", port, 3, True, timeout=timedelta(seconds=20)))
    )
    t.start()
    procs = [
        subprocess.Popen([sys.executable, "-c", _CLIENT, str(port), str(r)], stdout=subprocess.PIPE, text=True)
        for r in (1, 2)
    ]
    t.join(20)
    assert server, "master did not see its 3 clients"
    s = server[0]
    s.set("from/0", "hello 0")
    s.set("go", "go")
    outs = [p.communicate(timeout=20)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert outs == ["go hello 0\n"] * 2
    assert s.get("sum") == b"3" and s.get("from/2") == b"hello 2"


_FILE_CLIENT = textwrap.dedent("""
    import sys
    from ember.distributed.store import FileStore
    s = FileStore(sys.argv[1], 2)
    for _ in range(50):
        s.add("counter", 1)
    s.set(f"done/{sys.argv[2]}", "1")
""")


def test_filestore_across_processes(tmp_path: object) -> None:
    path = str(tmp_path / "fs")  # type: ignore[operator]
    s = FileStore(path, -1)  # opened first: the file lives while this instance does
    procs = [subprocess.Popen([sys.executable, "-c", _FILE_CLIENT, path, str(r)]) for r in range(2)]
    assert [p.wait(timeout=30) for p in procs] == [0, 0]
    s.wait(["done/0", "done/1"], timedelta(seconds=5))
    assert s.get("counter") == b"100"  # the flock makes each add atomic across processes


def test_filestore_removed_after_world_size_instances(tmp_path: object) -> None:
    path = str(tmp_path / "fs2")  # type: ignore[operator]
    a, b = FileStore(path, 2), FileStore(path, 2)
    a.set("k", "v")
    assert b.get("k") == b"v"
    del a
    assert os.path.exists(path)
    del b
    assert not os.path.exists(path)
