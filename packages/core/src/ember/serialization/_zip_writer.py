"""Writing checkpoint archives byte-compatible with PyTorch's writer (miniz-based).

Layout per record: a local header whose "FB" extra field pads the payload to
a 64-byte boundary, the payload, then a data descriptor (flag bit 3) carrying
the CRC-32, so every byte is written once, front to back, with no seeking.
The archive ends with ZIP64 end records (as PyTorch always writes them) and
the classic end of central directory.  Payloads are passed as buffers over
tensor memory and written with one ``write`` each: no intermediate copies.
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections.abc import Callable, Sequence
from typing import Any

ALIGNMENT = 64
ZIP64_LIMIT = 0xFFFFFFFF  # sizes/offsets from here on need ZIP64 fields (a variable so tests can lower it)
_U32 = 0xFFFFFFFF  # the "see ZIP64 extra field" marker value
_FLAGS = 0x0808  # bit 3: sizes/CRC in a data descriptor; bit 11: UTF-8 names
_FLAGS_EMPTY = 0x0800  # empty records carry no descriptor (as miniz writes them)
_LFH = struct.Struct("<IHHHHHIIIHH")
_CDH = struct.Struct("<IHHHHHHIIIHHHHHII")
_SMALL = 1 << 16  # payloads below this are batched with the headers into one write


class CrcWorker:
    """CRC-32 of the big payloads on a helper thread, so checksumming overlaps writing.

    (zlib.crc32 and the writes both release the GIL.)
    """

    def __init__(self, buffers: Sequence[Any]) -> None:
        self._buffers = list(buffers)
        self._results: list[Any] = [None] * len(self._buffers)
        self._done = [threading.Event() for _ in self._buffers]
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="ember-save-crc32", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        for i, buf in enumerate(self._buffers):
            if self._stop:
                break
            try:
                self._results[i] = zlib.crc32(buf)
            except BaseException as e:  # handed to the writer thread by get()
                self._results[i] = e
            self._done[i].set()

    def close(self) -> None:
        """Stop and wait: the buffers point into tensors the caller is about to release."""
        self._stop = True
        self._thread.join()

    def get(self, i: int) -> int:
        self._done[i].wait()
        r = self._results[i]
        if isinstance(r, BaseException):
            raise r
        return r


class ZipWriter:
    """Streams records to ``write`` (a callable taking a bytes-like object)."""

    def __init__(self, write: Callable[[Any], None], prefix: str) -> None:
        self._write = write
        self._prefix = prefix
        self._pos = 0
        self._pending = bytearray()  # small pieces, flushed before each big payload
        self._entries: list[tuple[bytes, int, int, int]] = []  # name, header offset, size, crc

    def _emit(self, data: Any, size: int) -> None:
        if size < _SMALL:
            self._pending += data
        else:
            if self._pending:
                self._write(self._pending)
                self._pending = bytearray()
            self._write(data)
        self._pos += size

    def add(self, name: str, data: Any, crc: int | None = None) -> None:
        """Append one record; ``crc`` may be given when it was computed elsewhere."""
        mv = memoryview(data).cast("B") if not isinstance(data, (bytes, bytearray)) else data
        size = len(mv)
        name_b = f"{self._prefix}/{name}".encode()
        offset = self._pos
        big_size, big_offset = size >= ZIP64_LIMIT, offset >= ZIP64_LIMIT
        # PyTorch's rule: the payload starts at the next multiple of ALIGNMENT after
        # the header, its name, any ZIP64 extra and the 4-byte "FB" field header.
        z64 = b""
        if big_size or big_offset:
            fields = (struct.pack("<QQ", size, size) if big_size else b"") + (
                struct.pack("<Q", offset) if big_offset else b"")
            z64 = struct.pack("<HH", 1, len(fields)) + fields
        start = offset + _LFH.size + len(name_b) + len(z64) + 4
        pad = -start % ALIGNMENT
        extra = z64 + b"FB" + struct.pack("<H", pad) + b"Z" * pad
        header = _LFH.pack(0x04034B50, 45 if z64 else 0, _FLAGS if size else _FLAGS_EMPTY, 0, 0, 0, 0,
                           _U32 if big_size else 0, _U32 if big_size else 0, len(name_b), len(extra))
        self._emit(header + name_b + extra, _LFH.size + len(name_b) + len(extra))
        self._emit(mv, size)
        if crc is None:
            crc = zlib.crc32(mv)
        if size:
            if z64:
                desc = struct.pack("<IIQQ", 0x08074B50, crc, size, size)
            else:
                desc = struct.pack("<IIII", 0x08074B50, crc, size, size)
            self._emit(desc, len(desc))
        self._entries.append((name_b, offset, size, crc))

    def finish(self) -> None:
        """Write the central directory and end records, and flush."""
        cd_start = self._pos
        parts = []
        for name_b, offset, size, crc in self._entries:
            big_size, big_offset = size >= ZIP64_LIMIT, offset >= ZIP64_LIMIT
            extra = b""
            if big_size or big_offset:
                fields = (struct.pack("<QQ", size, size) if big_size else b"") + (
                    struct.pack("<Q", offset) if big_offset else b"")
                extra = struct.pack("<HH", 1, len(fields)) + fields
            s32 = _U32 if big_size else size
            parts.append(_CDH.pack(0x02014B50, 0, 45 if extra else 0, _FLAGS if size else _FLAGS_EMPTY,
                                   0, 0, 0, crc, s32, s32,
                                   len(name_b), len(extra), 0, 0, 0, 0, _U32 if big_offset else offset))
            parts.append(name_b)
            parts.append(extra)
        cd = b"".join(parts)
        n = len(self._entries)
        z64_pos = cd_start + len(cd)
        tail = (
            struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 45, 0, 0, n, n, len(cd), cd_start)
            + struct.pack("<IIQI", 0x07064B50, 0, z64_pos, 1)
            + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(n, 0xFFFF), min(n, 0xFFFF),
                          min(len(cd), _U32), min(cd_start, _U32), 0)
        )
        self._emit(cd + tail, len(cd) + len(tail))
        if self._pending:
            self._write(self._pending)
            self._pending = bytearray()
