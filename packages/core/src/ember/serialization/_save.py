"""``ember.save``: PyTorch's zip checkpoint format, written atomically to paths.

Saving to a path writes ``.<name>.<random>.tmp`` in the same directory,
fsyncs it and renames it over the target (``os.replace``): the rename is
atomic and the data is on disk before it, so an interrupted save never leaves
a half-written file where a good one was.  Writeback of large payloads starts
while later ones are still being written (``sync_file_range``), so the final
fsync has little left to wait for.
"""

from __future__ import annotations

import os
import pickle
import secrets
import sys
import threading
from typing import Any

from ember.serialization._pickler import StorageTable, dumps
from ember.serialization._zip_writer import CrcWorker, ZipWriter

DEFAULT_PROTOCOL = 2
_PARALLEL_CRC_BYTES = 8 << 20  # below this a helper thread costs more than it saves
_WRITEBACK_CHUNK = 8 << 20


def _archive_name(path: str) -> str:
    # PyTorch names the top folder after the file, minus its last extension.
    base = os.path.basename(path)
    stem = base.rpartition(".")[0] if "." in base else base
    return stem or "archive"


def _records(obj: Any, protocol: int, byteorder_record: bool) -> tuple[list[tuple[str, Any]], StorageTable]:
    table = StorageTable()
    records: list[tuple[str, Any]] = [
        ("data.pkl", dumps(obj, protocol, table)), (".format_version", b"1"), (".storage_alignment", b"64"),
    ]
    if byteorder_record:
        records.append(("byteorder", sys.byteorder.encode()))
    records += [(f"data/{e.key}", e.buffer()) for e in table.entries]
    records += [("version", b"3\n"), (".data/serialization_id", b"%040d" % secrets.randbits(128))]
    return records, table


def _write_archive(write: Any, prefix: str, records: list[tuple[str, Any]]) -> None:
    big = [i for i, (_, data) in enumerate(records) if len(data) >= 1 << 16]
    total = sum(len(records[i][1]) for i in big)
    crcs = None
    if total >= _PARALLEL_CRC_BYTES and (os.cpu_count() or 1) > 1:
        crcs = CrcWorker([records[i][1] for i in big])
    slot = {i: k for k, i in enumerate(big)}
    try:
        zw = ZipWriter(write, prefix)
        for i, (name, data) in enumerate(records):
            zw.add(name, data, crcs.get(slot[i]) if crcs is not None and i in slot else None)
        zw.finish()
    finally:
        if crcs is not None:
            crcs.close()


class _FdWriter:
    """``write`` for a raw fd: loops over short writes, starts writeback every few MB."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pos = 0
        self.synced = 0
        self._sync_range = _sync_file_range()

    def __call__(self, data: Any) -> None:
        mv = memoryview(data)
        n, done = len(mv), 0
        while done < n:
            done += os.write(self.fd, mv[done:])
        self.pos += n
        if self._sync_range is not None and self.pos - self.synced >= _WRITEBACK_CHUNK:
            self._sync_range(self.fd, self.synced, self.pos - self.synced, 2)  # SYNC_FILE_RANGE_WRITE
            self.synced = self.pos


_sfr: list[Any] = []


def _sync_file_range() -> Any:
    """libc's sync_file_range (Linux), or None where it does not exist."""
    if not _sfr:
        fn = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                fn = ctypes.CDLL(None, use_errno=True).sync_file_range
                fn.argtypes = (ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint)
                fn.restype = ctypes.c_int
            except (OSError, AttributeError):
                fn = None
        _sfr.append(fn)
    return _sfr[0]


def _release_later(fd: int | None) -> None:
    """Close ``fd`` on a helper thread.

    ``fd`` holds the file that ``os.replace`` just unlinked; freeing its blocks
    happens at this close and takes tens of ms for a large file that already
    reached the disk.  Nothing waits for it: the new file is complete and in
    place, and if the process exits first the kernel frees the blocks anyway.
    """
    if fd is not None:
        threading.Thread(target=os.close, args=(fd,), name="ember-save-release", daemon=True).start()


def _save_to_path(path: str, records: list[tuple[str, Any]]) -> None:
    prefix = _archive_name(path)
    target = os.path.realpath(path) if os.path.islink(path) else path
    parent = os.path.dirname(target) or "."
    if not os.path.isdir(parent):
        raise RuntimeError(f"Parent directory {parent} does not exist.")
    if os.path.isdir(target):
        raise IsADirectoryError(f"ember.save: cannot write to {path!r}: it is a directory")
    existing = os.stat(target) if os.path.exists(target) else None
    if existing is not None and not os.path.isfile(target):
        # A device or FIFO (/dev/null, a pipe): no temporary file can be renamed over it.
        with open(target, "wb") as f:
            _write_archive(f.write, prefix, records)
        return
    while True:
        tmp = os.path.join(parent, f".{os.path.basename(target)}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
            break
        except FileExistsError:
            continue
        except PermissionError:
            if existing is None or not os.access(target, os.W_OK):
                raise
            # A writable file in a read-only directory: no temporary file is possible, so
            # overwrite in place (not atomic, like torch.save), still fsynced.
            with open(target, "r+b") as f:
                f.truncate(0)
                _write_archive(_FdWriter(f.fileno()), prefix, records)
                os.fsync(f.fileno())
            return
    old = None
    try:
        try:
            if existing is not None:
                os.chmod(tmp, existing.st_mode & 0o7777)
            _write_archive(_FdWriter(fd), prefix, records)
            os.fsync(fd)
        finally:
            os.close(fd)
        if existing is not None and os.name == "posix":
            try:
                old = os.open(target, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            except OSError:
                old = None
        os.replace(tmp, target)
    except BaseException:
        if old is not None:
            os.close(old)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _release_later(old)


def _save_to_file(f: Any, records: list[tuple[str, Any]]) -> None:
    write = f.write

    def write_all(data: Any) -> None:
        mv = memoryview(data)
        n = write(mv)
        # Raw (unbuffered) files may write less than asked; buffered ones return the full size or None.
        while n is not None and n < len(mv):
            mv = mv[n:]
            n = write(mv)

    _write_archive(write_all, "archive", records)
    if hasattr(f, "flush"):
        f.flush()


def save(obj: Any, f: Any, pickle_module: Any = None, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Save ``obj`` to ``f`` (a path or a binary file object) in PyTorch's zip checkpoint format.

    Tensors sharing a storage stay shared, views keep their offsets and strides;
    the file loads with ``ember.load`` and ``torch.load`` alike.
    """
    if pickle_module is not None and pickle_module is not pickle:
        raise NotImplementedError("ember.save: only the standard pickle module is supported")
    if not _use_new_zipfile_serialization:
        raise NotImplementedError(
            "ember.save: the legacy (pre-1.6, non-zip) format is not supported; "
            "leave _use_new_zipfile_serialization=True (the zip format loads in every PyTorch >= 1.6)"
        )
    is_path = isinstance(f, (str, os.PathLike))
    if not is_path and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    if type(pickle_protocol) is not int or not 1 <= pickle_protocol <= pickle.HIGHEST_PROTOCOL:
        raise ValueError(
            f"ember.save: pickle_protocol must be an int in [1, {pickle.HIGHEST_PROTOCOL}], got {pickle_protocol!r}"
        )
    records, table = _records(obj, pickle_protocol, not _disable_byteorder_record)
    if is_path:
        path = os.fspath(f)
        _save_to_path(os.fsdecode(path), records)
    else:
        _save_to_file(f, records)
    del table  # the storages' memory had to outlive the writes above
