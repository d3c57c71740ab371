"""Reading PyTorch checkpoint archives (uncompressed ZIP, optionally ZIP64).

Only what ``torch.save`` produces is accepted: stored (uncompressed),
unencrypted records under one top-level folder.  Every offset and size read
from the file is checked against the file before it is used, so a truncated
or hostile archive gives a RuntimeError instead of a short or wild read.
Record payloads are read straight into caller-provided buffers (``readinto``)
or handed out as offsets into a memory map.
"""

from __future__ import annotations

import os
import struct
from typing import Any

_EOCD = struct.Struct("<IHHHHIIH")  # end of central directory (22 bytes)
_ZIP64_LOCATOR = struct.Struct("<IIQI")  # 20 bytes
_ZIP64_EOCD = struct.Struct("<IQHHIIQQQQ")  # 56 bytes
_CDH = struct.Struct("<IHHHHHHIIIHHHHHII")  # central directory header (46 bytes)
_LFH = struct.Struct("<IHHHHHIIIHH")  # local file header (30 bytes)
_U32 = 0xFFFFFFFF


def corrupt(msg: str) -> RuntimeError:
    return RuntimeError(
        f"PytorchStreamReader failed reading zip archive: {msg}. The checkpoint is truncated or corrupted "
        "(or not a checkpoint written by torch.save / ember.save)."
    )


class Source:
    """Random access to the archive bytes: a file descriptor, a file object or a memory map."""

    def __init__(self, *, fd: int | None = None, fileobj: Any = None, buffer: Any = None) -> None:
        self.fd, self.fileobj, self.buffer = fd, fileobj, buffer
        if buffer is not None:
            self.base, self.size = 0, len(buffer)
        elif fd is not None:
            self.base, self.size = 0, os.fstat(fd).st_size
        else:
            self.base = fileobj.tell()
            self.size = fileobj.seek(0, os.SEEK_END) - self.base
            fileobj.seek(self.base)

    def read(self, n: int, offset: int) -> bytes:
        """Exactly ``n`` bytes at ``offset`` (the caller has bounds-checked)."""
        if self.buffer is not None:
            return bytes(self.buffer[offset:offset + n])
        out = bytearray(n)
        self.readinto(memoryview(out), offset)
        return bytes(out)

    def readinto(self, buf: memoryview, offset: int) -> None:
        """Fill ``buf`` from ``offset``; a short read means the file changed under us."""
        n, done = len(buf), 0
        if self.buffer is not None:
            buf[:] = self.buffer[offset:offset + n]
            return
        if self.fd is not None:
            while done < n:
                got = os.preadv(self.fd, [buf[done:]], offset + done)
                if got <= 0:
                    raise corrupt(f"unexpected end of file at offset {offset + done}")
                done += got
            return
        f = self.fileobj
        f.seek(self.base + offset)
        readinto = getattr(f, "readinto", None)
        while done < n:
            if readinto is not None:
                got = readinto(buf[done:])
            else:
                chunk = f.read(n - done)
                got = len(chunk)
                buf[done:done + got] = chunk
            if not got:
                raise corrupt(f"unexpected end of file at offset {offset + done}")
            done += got


class ZipReader:
    """The records of one checkpoint archive, by name relative to its top-level folder."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.prefix = ""
        # name -> (local header offset, size); data offsets are resolved on first use.
        self._records: dict[str, tuple[int, int]] = {}
        self._data_offsets: dict[str, int] = {}
        self._cd_offset = 0
        self._parse()

    # ------------------------------------------------------------------ directory
    def _find_eocd(self) -> tuple[int, bytes]:
        size = self.source.size
        if size < _EOCD.size:
            raise corrupt("failed finding central directory")
        tail_len = min(size, _EOCD.size + 0xFFFF + _ZIP64_LOCATOR.size)
        tail = self.source.read(tail_len, size - tail_len)
        i = tail.rfind(b"PK\x05\x06")
        while i >= 0:
            if i + _EOCD.size <= len(tail):
                comment_len = _EOCD.unpack_from(tail, i)[7]
                if i + _EOCD.size + comment_len == len(tail):
                    return size - tail_len + i, tail[: i + _EOCD.size]
            i = tail.rfind(b"PK\x05\x06", 0, i)
        raise corrupt("failed finding central directory")

    def _parse(self) -> None:
        eocd_pos, tail = self._find_eocd()
        _, disk, cd_disk, _, entries, cd_size, cd_offset, _ = _EOCD.unpack_from(tail, len(tail) - _EOCD.size)
        end = eocd_pos
        loc = len(tail) - _EOCD.size - _ZIP64_LOCATOR.size
        if loc >= 0 and tail[loc:loc + 4] == b"PK\x06\x07":
            z64_pos = _ZIP64_LOCATOR.unpack_from(tail, loc)[2]
            if z64_pos + _ZIP64_EOCD.size > eocd_pos:
                raise corrupt("ZIP64 end of central directory points outside the file")
            rec = self.source.read(_ZIP64_EOCD.size, z64_pos)
            sig, _, _, _, disk, cd_disk, _, entries, cd_size, cd_offset = _ZIP64_EOCD.unpack(rec)
            if sig != 0x06064B50:
                raise corrupt("bad ZIP64 end of central directory record")
            end = z64_pos
        if disk or cd_disk:
            raise corrupt("multi-disk archives are not supported")
        if cd_offset + cd_size > end or entries * _CDH.size > cd_size:
            raise corrupt("central directory points outside the file")
        self._cd_offset = cd_offset
        self._parse_entries(self.source.read(cd_size, cd_offset), entries)

    def _parse_entries(self, cd: bytes, entries: int) -> None:
        pos = 0
        for index in range(entries):
            if pos + _CDH.size > len(cd):
                raise corrupt("central directory is truncated")
            (sig, _, _, flags, method, _, _, _, csize, usize, name_len, extra_len, comment_len, _, _, _,
             offset) = _CDH.unpack_from(cd, pos)
            if sig != 0x02014B50:
                raise corrupt(f"bad central directory entry {index}")
            name_end = pos + _CDH.size + name_len
            extra_end = name_end + extra_len
            if extra_end + comment_len > len(cd):
                raise corrupt("central directory is truncated")
            raw_name = cd[pos + _CDH.size:name_end]
            name = raw_name.decode("utf-8" if flags & 0x800 else "cp437", "replace")
            if _U32 in (csize, usize, offset):
                usize, csize, offset = self._zip64_fields(cd[name_end:extra_end], usize, csize, offset, name)
            if flags & 0x1:
                raise corrupt(f"record {name!r} is encrypted")
            if method != 0 or csize != usize:
                raise corrupt(f"record {name!r} is compressed (method {method}); checkpoints are stored uncompressed")
            if offset + _LFH.size + usize > self._cd_offset:
                raise corrupt(f"record {name!r} points outside the file")
            if index == 0:
                self.prefix = name.partition("/")[0] if "/" in name else ""
            key = name[len(self.prefix) + 1:] if self.prefix and name.startswith(self.prefix + "/") else None
            if key is not None:
                if key in self._records:
                    raise corrupt(f"duplicate record {name!r}")
                self._records[key] = (offset, usize)
            pos = extra_end + comment_len

    @staticmethod
    def _zip64_fields(extra: bytes, usize: int, csize: int, offset: int, name: str) -> tuple[int, int, int]:
        pos = 0
        while pos + 4 <= len(extra):
            tag, size = struct.unpack_from("<HH", extra, pos)
            body = extra[pos + 4:pos + 4 + size]
            if tag == 1:
                values = [v[0] for v in struct.iter_unpack("<Q", body[: len(body) // 8 * 8])]
                try:
                    if usize == _U32:
                        usize = values.pop(0)
                    if csize == _U32:
                        csize = values.pop(0)
                    if offset == _U32:
                        offset = values.pop(0)
                except IndexError:
                    break
                return usize, csize, offset
            pos += 4 + size
        raise corrupt(f"record {name!r} has a bad ZIP64 extra field")

    # ------------------------------------------------------------------ records
    def has(self, name: str) -> bool:
        return name in self._records

    def names(self) -> list[str]:
        return list(self._records)

    def size(self, name: str) -> int:
        return self._record(name)[1]

    def _record(self, name: str) -> tuple[int, int]:
        try:
            return self._records[name]
        except KeyError:
            raise RuntimeError(
                f"PytorchStreamReader failed locating file {name}: file not found"
            ) from None

    def data_offset(self, name: str) -> int:
        """Where the record's payload starts (reads its local header once)."""
        off = self._data_offsets.get(name)
        if off is not None:
            return off
        header, size = self._record(name)
        sig, _, _, _, _, _, _, _, _, name_len, extra_len = _LFH.unpack(self.source.read(_LFH.size, header))
        if sig != 0x04034B50:
            raise corrupt(f"bad local header for record {name!r}")
        off = header + _LFH.size + name_len + extra_len
        if off + size > self._cd_offset:
            raise corrupt(f"record {name!r} points outside the file")
        self._data_offsets[name] = off
        return off

    def read(self, name: str) -> bytes:
        return self.source.read(self.size(name), self.data_offset(name))

    def readinto(self, name: str, buf: memoryview) -> None:
        if len(buf) != self.size(name):
            raise RuntimeError(f"record {name} has {self.size(name)} bytes, buffer has {len(buf)}")
        if len(buf):
            self.source.readinto(buf, self.data_offset(name))
