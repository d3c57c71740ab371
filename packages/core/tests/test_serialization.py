"""ember.save / ember.load: PyTorch's zip checkpoint format, both directions, safe by default.

PyTorch (when installed) is the oracle: files written by ember must load in
torch.load and vice versa.  The hostile-file corpus is generated here with
pickle/zipfile (no binary blobs): every file must be refused with a clear
error, and a sentinel file shows that nothing in it ran.
"""

from __future__ import annotations

import collections
import fractions
import io
import os
import pickle
import re
import struct
import zipfile
from pathlib import Path
from typing import Any

import ember
import ember.serialization as ser
import pytest

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


@pytest.fixture
def torch() -> Any:
    return pytest.importorskip("torch")


def sample(lib: Any, dtype: str, n: int = 12) -> Any:
    return lib.arange(n).to(getattr(lib, dtype))


def same_tensor(a: Any, b: Any) -> None:
    """Same dtype, geometry and values (a and b may come from different libraries)."""
    assert str(a.dtype) == str(b.dtype)
    assert tuple(a.shape) == tuple(b.shape)
    assert tuple(a.stride()) == tuple(b.stride())
    assert a.storage_offset() == b.storage_offset()
    assert a.tolist() == b.tolist()
    assert a.requires_grad == b.requires_grad


def state(lib: Any) -> dict[str, Any]:
    """A checkpoint exercising dtypes, views, sharing, 0-d and empty tensors."""
    base = lib.arange(24.0).reshape(4, 6)
    d: dict[str, Any] = {f"t_{name}": sample(lib, name).reshape(3, 4) for name in DTYPES}
    d.update(
        base=base,
        row=base[1],  # offset view, shares base's storage
        cols=base[:, 1::2],  # strided view
        transposed=base.t(),
        scalar=lib.tensor(3.5),
        scalar_bool=lib.tensor(True),
        empty=lib.empty(0, 3),
        half_view=sample(lib, "float16", 20)[5:15:3],
        bf16_t=sample(lib, "bfloat16", 6).reshape(2, 3).t(),
    )
    return d


def roundtrip(lib_save: Any, lib_load: Any, obj: Any, path: Path, **load_kw: Any) -> Any:
    lib_save.save(obj, str(path))
    return lib_load.load(str(path), **load_kw)


def check_sharing(loaded: dict[str, Any]) -> None:
    """Views saved together reload as views of one storage: writes show through."""
    loaded["base"][1, 2] = 100.0
    assert loaded["row"][2].item() == 100.0
    loaded["base"][3, 3] = -7.0
    assert loaded["cols"][3, 1].item() == -7.0
    assert loaded["transposed"][3, 3].item() == -7.0


# ---------------------------------------------------------------- ember <-> ember


def test_round_trip_dtypes_views_sharing(tmp_path: Path) -> None:
    original = state(ember)
    loaded = roundtrip(ember, ember, original, tmp_path / "ckpt.pt")
    assert set(loaded) == set(original)
    for k in original:
        same_tensor(loaded[k], original[k])
    check_sharing(loaded)


def test_same_object_twice_stays_one_object(tmp_path: Path) -> None:
    t = ember.arange(4.0)
    loaded = roundtrip(ember, ember, {"a": t, "b": t, "l": [t, t[1:]]}, tmp_path / "x.pt")
    assert loaded["a"] is loaded["b"] is loaded["l"][0]
    loaded["a"][1] = 9.0
    assert loaded["l"][1][0].item() == 9.0


def test_containers_and_metadata_round_trip(tmp_path: Path) -> None:
    od = collections.OrderedDict([("z", 1), ("a", ember.ones(2))])
    obj = {
        "od": od, "list": [1, 2.5, "s", None, True, 2**70], "tuple": (1, (2, 3)), "set": {1, 2},
        "frozenset": frozenset({3}), "bytes": b"\x00\xff", "bytearray": bytearray(b"ab"), "complex": 1 + 2j,
        "size": ember.Size([2, 3]), "dtype": ember.bfloat16, "device": ember.device("cpu"),
        "nested": {"deeper": [{"t": ember.zeros(1)}]},
    }
    for protocol in (1, 2, 3, 4, 5):
        ember.save(obj, str(tmp_path / f"p{protocol}.pt"), pickle_protocol=protocol)
        loaded = ember.load(str(tmp_path / f"p{protocol}.pt"))
        assert type(loaded["od"]) is collections.OrderedDict and list(loaded["od"]) == ["z", "a"]
        for k in ("list", "tuple", "set", "frozenset", "bytes", "bytearray", "complex"):
            assert loaded[k] == obj[k] and type(loaded[k]) is type(obj[k])
        assert isinstance(loaded["size"], ember.Size) and loaded["size"] == (2, 3)
        assert loaded["dtype"] is ember.bfloat16
        assert loaded["device"] == ember.device("cpu")
        assert loaded["nested"]["deeper"][0]["t"].tolist() == [0.0]


def test_requires_grad_round_trip(tmp_path: Path) -> None:
    w = ember.ones(3, requires_grad=True)
    loaded = roundtrip(ember, ember, {"w": w, "b": ember.zeros(2)}, tmp_path / "g.pt")
    assert loaded["w"].requires_grad and loaded["w"].is_leaf
    assert not loaded["b"].requires_grad


def test_tensor_attributes_round_trip(tmp_path: Path) -> None:
    t = ember.ones(2)
    t.note = "kept"
    assert roundtrip(ember, ember, [t], tmp_path / "a.pt")[0].note == "kept"


def test_file_objects(tmp_path: Path) -> None:
    buf = io.BytesIO()
    ember.save({"t": ember.arange(5)}, buf)
    end = buf.tell()
    buf.seek(0)
    assert ember.load(buf)["t"].tolist() == [0, 1, 2, 3, 4]
    assert buf.tell() == end
    with open(tmp_path / "f.pt", "wb") as f:
        ember.save([ember.ones(2)], f)
    with open(tmp_path / "f.pt", "rb") as f:
        assert ember.load(f)[0].tolist() == [1.0, 1.0]


def test_archive_layout(tmp_path: Path) -> None:
    path = tmp_path / "model.weights.pt"
    ember.save({"a": ember.ones(3), "b": ember.zeros(2, dtype=ember.int64)}, str(path))
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None  # every CRC-32 is right
        names = z.namelist()
        assert names[0] == "model.weights/data.pkl"
        assert {"model.weights/data/0", "model.weights/data/1", "model.weights/version",
                "model.weights/byteorder", "model.weights/.data/serialization_id"} <= set(names)
        assert z.read("model.weights/version") == b"3\n"
        assert z.read("model.weights/byteorder") == b"little"
        raw = path.read_bytes()
        for info in z.infolist():
            name_len, extra_len = struct.unpack_from("<HH", raw, info.header_offset + 26)
            assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0, info.filename
    buf = io.BytesIO()
    ember.save(ember.ones(1), buf)
    assert zipfile.ZipFile(buf).namelist()[0] == "archive/data.pkl"


def test_views_of_one_storage_as_two_dtypes_refused(tmp_path: Path) -> None:
    t = ember.zeros(4)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        ember.save([t, t.view(ember.int32)], str(tmp_path / "x.pt"))


def test_save_argument_errors(tmp_path: Path) -> None:
    with pytest.raises(NotImplementedError, match="legacy"):
        ember.save(ember.ones(1), str(tmp_path / "a.pt"), _use_new_zipfile_serialization=False)
    with pytest.raises(AttributeError, match="file-like object with a 'write'"):
        ember.save(ember.ones(1), 5)
    with pytest.raises(RuntimeError, match="Parent directory"):
        ember.save(ember.ones(1), str(tmp_path / "missing" / "a.pt"))
    with pytest.raises(ValueError, match="pickle_protocol"):
        ember.save(ember.ones(1), io.BytesIO(), pickle_protocol=0)


# ---------------------------------------------------------------- interop with PyTorch


def test_ember_checkpoint_loads_in_torch(torch: Any, tmp_path: Path) -> None:
    original = state(ember)
    original["grad"] = ember.ones(2, requires_grad=True)
    original["meta"] = collections.OrderedDict(size=ember.Size([1, 2]), dtype=ember.float16,
                                               device=ember.device("cpu"), layout=ember.strided)
    ember.save(original, str(tmp_path / "e.pt"))
    for source in (str(tmp_path / "e.pt"), io.BytesIO((tmp_path / "e.pt").read_bytes())):
        loaded = torch.load(source)  # weights_only=True: ember writes only allow-listed names
        for k, v in original.items():
            if k != "meta":
                same_tensor(v, loaded[k])
        check_sharing(loaded)
        assert loaded["row"].untyped_storage().data_ptr() == loaded["base"].untyped_storage().data_ptr()
        meta = loaded["meta"]
        assert type(meta) is collections.OrderedDict
        assert meta["size"] == torch.Size([1, 2]) and meta["dtype"] is torch.float16
        assert meta["device"] == torch.device("cpu") and meta["layout"] is torch.strided


def test_torch_checkpoint_loads_in_ember(torch: Any, tmp_path: Path) -> None:
    original = state(torch)
    original["param"] = torch.nn.Parameter(torch.ones(2, 2))
    original["frozen"] = torch.nn.Parameter(torch.ones(1), requires_grad=False)
    original["meta"] = {"size": torch.Size([4]), "dtype": torch.int16, "device": torch.device("cpu")}
    for protocol in (2, 4):
        path = tmp_path / f"t{protocol}.pt"
        torch.save(original, str(path), pickle_protocol=protocol)
        loaded = ember.load(str(path))
        for k, v in original.items():
            if k != "meta":
                same_tensor(loaded[k], v)
        assert loaded["param"].requires_grad and not loaded["frozen"].requires_grad
        check_sharing(loaded)
        assert loaded["meta"] == {"size": (4,), "dtype": ember.int16, "device": ember.device("cpu")}
        assert isinstance(loaded["meta"]["size"], ember.Size)


def test_tensor_attributes_with_torch(torch: Any) -> None:
    t = ember.arange(3.0)
    t.tag = 7
    buf = io.BytesIO()
    ember.save(t, buf)
    buf.seek(0)
    assert torch.load(buf).tag == 7
    x = torch.ones(1)
    x.tag = "torch"
    buf = io.BytesIO()
    torch.save(x, buf)
    buf.seek(0)
    assert ember.load(buf).tag == "torch"


def test_torch_state_dict_of_a_module(torch: Any) -> None:
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    sd = ember.load(buf)
    assert type(sd) is collections.OrderedDict and list(sd) == list(model.state_dict())
    for k, v in model.state_dict().items():
        same_tensor(sd[k], v)
    out = io.BytesIO()
    ember.save(sd, out)
    out.seek(0)
    model.load_state_dict(torch.load(out))


def test_torch_computes_the_same_record_offsets(torch: Any, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # torch.load(mmap=True) can compute record offsets from miniz's layout rules
    # instead of reading headers; its debug mode asserts both agree. Empty
    # records are the special case (no data descriptor).
    from torch.utils.serialization import config

    # Set and restore through torch's config API: monkeypatch's getattr/delattr
    # round trip can leave the key deleted (later torch.load calls then fail).
    old = config.load.calculate_storage_offsets
    config.load.calculate_storage_offsets = True
    monkeypatch.setenv("TORCH_SERIALIZATION_DEBUG", "1")
    try:
        d = {"a": ember.arange(100.0), "e": ember.empty(0), "b": ember.ones(10, dtype=ember.float16),
             "e2": ember.empty(0, dtype=ember.int64), "c": ember.arange(300)}
        ember.save(d, str(tmp_path / "c.pt"))
        loaded = torch.load(str(tmp_path / "c.pt"), mmap=True)
        for k in d:
            same_tensor(d[k], loaded[k])
    finally:
        config.load.calculate_storage_offsets = old


def test_zip64_records(torch: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Records past 4 GiB need ZIP64 fields; lowering the limit exercises that layout cheaply.
    from ember.serialization import _zip_writer

    monkeypatch.setattr(_zip_writer, "ZIP64_LIMIT", 100)
    d = {"a": ember.arange(100.0), "b": ember.ones(10), "c": ember.arange(300)}
    path = str(tmp_path / "z.pt")
    ember.save(d, path)
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None
    for loaded in (ember.load(path), ember.load(path, mmap=True), torch.load(path), torch.load(path, mmap=True)):
        for k in d:
            same_tensor(d[k], loaded[k])


def test_legacy_torch_format_is_refused(torch: Any) -> None:
    buf = io.BytesIO()
    torch.save(torch.ones(2), buf, _use_new_zipfile_serialization=False)
    buf.seek(0)
    with pytest.raises(NotImplementedError, match="legacy"):
        ember.load(buf)


# ---------------------------------------------------------------- weights_only and safe globals


def test_weights_only_refuses_unlisted_globals(tmp_path: Path) -> None:
    path = str(tmp_path / "obj.pt")
    for obj, shown in ((fractions.Fraction(1, 3), "fractions.Fraction"), (slice(1, 2), "GLOBAL slice"),
                       (collections.defaultdict(int), "collections.defaultdict")):
        ember.save({"x": obj, "t": ember.ones(1)}, path)
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed") as info:
            ember.load(path)
        assert shown in str(info.value) and "add_safe_globals" in str(info.value)
        assert ember.load(path, weights_only=False)["x"] == obj
    assert "collections.defaultdict" in ser.get_unsafe_globals_in_checkpoint(path)


def test_safe_globals_registry(tmp_path: Path) -> None:
    path = str(tmp_path / "frac.pt")
    ember.save([fractions.Fraction(2, 5)], path)
    ser.clear_safe_globals()
    try:
        with ser.safe_globals([fractions.Fraction]):
            assert ser.get_safe_globals() == [fractions.Fraction]
            assert ember.load(path) == [fractions.Fraction(2, 5)]
        assert ser.get_safe_globals() == []
        with pytest.raises(pickle.UnpicklingError):
            ember.load(path)
        ser.add_safe_globals([(fractions.Fraction, "fractions.Fraction")])
        assert ember.load(path) == [fractions.Fraction(2, 5)]
        assert ser.get_unsafe_globals_in_checkpoint(path) == []
    finally:
        ser.clear_safe_globals()
    assert ser.get_safe_globals() == []


def test_load_argument_rules(tmp_path: Path) -> None:
    path = str(tmp_path / "a.pt")
    ember.save(ember.ones(1), path)
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        ember.load(path, pickle_module=pickle, weights_only=True)
    assert ember.load(path, pickle_module=pickle).tolist() == [1.0]  # implies weights_only=False


# ---------------------------------------------------------------- map_location


def rewrite(raw: bytes, edit: Any) -> bytes:
    """A copy of a checkpoint zip with ``edit(name, data) -> data`` applied to each record."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, edit(info.filename, src.read(info.filename)))
    return out.getvalue()


def cuda_tagged(t: Any) -> bytes:
    buf = io.BytesIO()
    ember.save({"t": t}, buf)
    cuda = b"X\x06\x00\x00\x00cuda:0"
    return rewrite(buf.getvalue(), lambda n, d: d.replace(b"X\x03\x00\x00\x00cpu", cuda) if n.endswith(".pkl") else d)


def test_map_location_variants(tmp_path: Path) -> None:
    path = str(tmp_path / "m.pt")
    ember.save({"t": ember.arange(3.0)}, path)
    seen = []

    def keep(storage: Any, location: str) -> Any:
        seen.append((location, storage.nbytes()))
        return storage

    for loc in ("cpu", ember.device("cpu"), {"cpu": "cpu"}, keep, lambda storage, location: None):
        assert ember.load(path, map_location=loc)["t"].tolist() == [0.0, 1.0, 2.0]
    assert seen == [("cpu", 12)]
    with pytest.raises(TypeError, match="map_location"):
        ember.load(path, map_location=lambda storage, location: "not a storage")


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the CPU-only behaviour")
def test_cuda_targets_without_cuda(tmp_path: Path) -> None:
    path = str(tmp_path / "m.pt")
    ember.save({"t": ember.arange(3.0)}, path)
    for loc in ("cuda", "cuda:0", ember.device("cuda", 0), {"cpu": "cuda:1"},
                lambda storage, location: storage.cuda()):
        with pytest.raises(RuntimeError, match="map_location=torch.device\\('cpu'\\)|CUDA"):
            ember.load(path, map_location=loc)
        with pytest.raises(ember.CudaNotCompiledError):
            ember.load(path, map_location=loc)
    raw = cuda_tagged(ember.arange(2.0))
    with pytest.raises(RuntimeError, match="map_location=torch.device\\('cpu'\\)"):
        ember.load(io.BytesIO(raw))
    for loc in ("cpu", {"cuda:0": "cpu"}, lambda storage, location: storage):
        assert ember.load(io.BytesIO(raw), map_location=loc)["t"].tolist() == [0.0, 1.0]


# ---------------------------------------------------------------- mmap


def test_mmap_views_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mm.pt"
    ember.save({"a": ember.arange(1000.0), "b": ember.ones(4, dtype=ember.int64)}, str(path))
    loaded = ember.load(str(path), mmap=True)
    assert loaded["a"][:3].tolist() == [0.0, 1.0, 2.0] and loaded["b"].tolist() == [1, 1, 1, 1]
    # No copy: the tensor is the file's page cache until written. Rewrite the record in
    # place and the (not yet written) tensor sees the new bytes.
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("mm/data/1")
    raw = path.read_bytes()
    name_len, extra_len = struct.unpack_from("<HH", raw, info.header_offset + 26)
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, struct.pack("<4q", 5, 6, 7, 8), info.header_offset + 30 + name_len + extra_len)
    finally:
        os.close(fd)
    assert loaded["b"].tolist() == [5, 6, 7, 8]
    # Private mapping: writing a tensor never changes the file.
    loaded["a"][0] = 42.0
    assert ember.load(str(path))["a"][0].item() == 0.0
    del loaded


def test_mmap_needs_a_zip_file_path(tmp_path: Path) -> None:
    buf = io.BytesIO()
    ember.save(ember.ones(1), buf)
    buf.seek(0)
    with pytest.raises(ValueError, match="file path"):
        ember.load(buf, mmap=True)
    (tmp_path / "junk").write_bytes(b"not a zip at all")
    with pytest.raises(RuntimeError, match="mmap can only be used"):
        ember.load(str(tmp_path / "junk"), mmap=True)


# ---------------------------------------------------------------- atomic saves


def leftovers(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.endswith(".tmp")]


def test_save_replaces_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "ckpt.pt"
    ember.save({"v": ember.ones(3)}, str(path))
    good = path.read_bytes()
    old = open(path, "rb")  # the previous file stays intact for its readers
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append(f"replace {Path(a).name}"), real_replace(a, b))[1])
    ember.save({"v": ember.zeros(3)}, str(path))
    monkeypatch.undo()
    assert events[0] == "fsync" and events[1].startswith("replace .ckpt.pt.") and events[1].endswith(".tmp")
    assert ember.load(str(path))["v"].tolist() == [0.0, 0.0, 0.0]
    assert old.read() == good
    old.close()
    assert leftovers(tmp_path) == []


def test_failed_save_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "ckpt.pt"
    ember.save({"v": ember.ones(3)}, str(path))
    good = path.read_bytes()
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        ember.save({"f": lambda: 0}, str(path))  # fails while pickling
    from ember.serialization import _zip_writer

    real_add = _zip_writer.ZipWriter.add
    calls = []

    def failing_add(self: Any, name: str, data: Any, crc: Any = None) -> None:
        calls.append(name)
        if len(calls) == 6:
            raise OSError("disk full")
        real_add(self, name, data, crc)

    monkeypatch.setattr(_zip_writer.ZipWriter, "add", failing_add)
    with pytest.raises(OSError, match="disk full"):
        ember.save({"v": ember.zeros(1000)}, str(path))  # fails half-way through the write
    assert path.read_bytes() == good
    assert leftovers(tmp_path) == []


def test_save_through_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "real.pt"
    ember.save(ember.ones(1), str(target))
    link = tmp_path / "link.pt"
    link.symlink_to(target)
    ember.save(ember.zeros(2), str(link))
    assert link.is_symlink()
    assert ember.load(str(target)).tolist() == [0.0, 0.0]


# ---------------------------------------------------------------- hostile files


SENTINEL_NAME = "PWNED"


def zip_with_pickle(data_pkl: bytes, extra: dict[str, bytes] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", data_pkl)
        for name, data in (extra or {}).items():
            z.writestr(f"archive/{name}", data)
        z.writestr("archive/version", b"3\n")
    return out.getvalue()


class SystemGadget:
    def __init__(self, cmd: str) -> None:
        self.cmd = cmd

    def __reduce__(self) -> Any:
        return os.system, (self.cmd,)


def hostile_pickles(sentinel: Path) -> dict[str, tuple[bytes, str]]:
    """name -> (data.pkl, text the error must contain)."""
    cmd = f"touch {sentinel}"
    code = f"open({str(sentinel)!r}, 'w').close()"
    s = lambda text: b"X" + struct.pack("<I", len(text.encode())) + text.encode()  # noqa: E731
    return {
        "GLOBAL os.system": (b"\x80\x02cos\nsystem\n" + s(cmd) + b"\x85R.", "os.system"),
        "GLOBAL posix.system": (b"\x80\x02cposix\nsystem\n" + s(cmd) + b"\x85R.", "posix.system"),
        "GLOBAL builtins.eval": (b"\x80\x02cbuiltins\neval\n" + s(code) + b"\x85R.", "eval"),
        "GLOBAL __builtin__.exec": (b"\x80\x02c__builtin__\nexec\n" + s(code) + b"\x85R.", "exec"),
        "__reduce__ gadget": (pickle.dumps(SystemGadget(cmd), protocol=2), "system"),
        "STACK_GLOBAL gadget": (pickle.dumps(SystemGadget(cmd), protocol=4), "system"),
        "STACK_GLOBAL subprocess": (pickle.dumps({"x": __import__("subprocess").call}, protocol=5), "subprocess.call"),
        "INST opcode": (b"(" + s(cmd) + b"ios\nsystem\n.", "os.system"),
        "OBJ opcode": (b"(cos\nsystem\n" + s(cmd) + b"o.", "os.system"),
        "gadget inside plain data": (pickle.dumps({"ok": [1.5, "x"], "evil": SystemGadget(cmd)}, 2), "system"),
        "persistent id that is not a storage": (b"\x80\x02X\x03\x00\x00\x00abc\x85Q.", "persistent_load"),
        "unknown opcode": (b"\x80\x02\xff.", "Unsupported operand"),
        "truncated pickle": (b"\x80\x02X\xff\x00\x00\x00ab", "truncated"),
        "memo miss": (b"\x80\x02h\x07.", "Memo"),
    }


@pytest.mark.parametrize("case", list(hostile_pickles(Path("/x"))))
def test_hostile_pickle_is_refused(case: str, tmp_path: Path) -> None:
    sentinel = tmp_path / SENTINEL_NAME
    data, needle = hostile_pickles(sentinel)[case]
    raw = zip_with_pickle(data)
    for source in (io.BytesIO(raw), None):
        if source is None:
            (tmp_path / "evil.pt").write_bytes(raw)
            source = str(tmp_path / "evil.pt")
        with pytest.raises(pickle.UnpicklingError) as info:
            ember.load(source)
        assert needle in str(info.value)
    assert not sentinel.exists()


def good_checkpoint() -> bytes:
    buf = io.BytesIO()
    ember.save({"w": ember.arange(10.0)}, buf)
    return buf.getvalue()


def central_directory_offset_patch(raw: bytes, record: str, new_offset: int) -> bytes:
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        cd = z.start_dir
    pos = cd
    out = bytearray(raw)
    while raw[pos:pos + 4] == b"PK\x01\x02":
        n, m, k = struct.unpack_from("<HHH", raw, pos + 28)
        if raw[pos + 46:pos + 46 + n].decode().endswith(record):
            struct.pack_into("<I", out, pos + 42, new_offset)
        pos += 46 + n + m + k
    return bytes(out)


def hostile_archives() -> dict[str, tuple[bytes, type, str]]:
    raw = good_checkpoint()
    numel = lambda n: lambda name, d: re.sub(rb"(cpuq.)K\n", lambda m: m.group(1) + n, d, count=1) if name.endswith(".pkl") else d  # noqa: E731,E501
    huge = b"\x8a\x09" + b"\x00" * 8 + b"\x01"  # LONG1 2**64
    geometry = lambda old, new: lambda name, d: d.replace(old, new) if name.endswith(".pkl") else d  # noqa: E731
    deflated = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as src, zipfile.ZipFile(deflated, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info.filename))
    return {
        "truncated zip": (raw[: len(raw) // 2], RuntimeError, "central directory"),
        "zip without its last byte": (raw[:-1], RuntimeError, "central directory"),
        "record pointing outside the file": (central_directory_offset_patch(raw, "data/0", 1 << 30),
                                             RuntimeError, "outside the file"),
        "record shorter than its storage": (rewrite(raw, numel(b"K\x14")), RuntimeError, "record size"),
        "view larger than its storage": (rewrite(raw, geometry(b"K\x00K\n\x85", b"K\x00K\x0b\x85")),
                                         RuntimeError, "storage holds"),
        "view offset beyond its storage": (rewrite(raw, geometry(b"K\x00K\n\x85", b"K\x05K\n\x85")),
                                           RuntimeError, "storage holds"),
        "size that overflows int64": (rewrite(raw, geometry(b"K\x00K\n\x85", b"K\x00" + huge + b"\x85")),
                                      RuntimeError, "overflows"),
        "compressed records": (deflated.getvalue(), RuntimeError, "compressed"),
        "missing storage record": (rewrite(raw, lambda n, d: d.replace(b"X\x01\x00\x00\x000", b"X\x01\x00\x00\x007")
                                           if n.endswith(".pkl") else d), RuntimeError, "data/7"),
        "not a zip": (b"#!/bin/sh\nrm -rf /\n", pickle.UnpicklingError, "not a zip"),
        "empty file": (b"", EOFError, "Ran out of input"),
    }


@pytest.mark.parametrize("case", list(hostile_archives()))
def test_hostile_archive_is_refused(case: str, tmp_path: Path) -> None:
    data, exc, needle = hostile_archives()[case]
    path = tmp_path / "bad.pt"
    path.write_bytes(data)
    with pytest.raises(exc, match=needle):
        ember.load(str(path))
    with pytest.raises(exc, match=needle):
        ember.load(io.BytesIO(data))
    if case not in ("not a zip", "empty file"):
        with pytest.raises(exc, match=needle):
            ember.load(str(path), mmap=True)


def test_geometry_patches_hit_their_target() -> None:
    # The hostile geometry edits above rely on this byte pattern for size=(10,), offset 0.
    raw = good_checkpoint()
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        pkl = z.read("archive/data.pkl")
    assert pkl.count(b"K\x00K\n\x85") == 1 and len(re.findall(rb"cpuq.K\n", pkl)) == 1
