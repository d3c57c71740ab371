"""The bytes of one saved item inside a ``.distcp`` file, as PyTorch lays them out: each
tensor chunk or pickled object is a complete ``torch.save`` archive, back to back.

Writing streams each archive straight from tensor memory (ember.save's zip writer).
Reading parses an archive's directory from a memory map and then copies only the requested
region: straight from the file into the destination (``preadv``) when both sides are
contiguous, otherwise through the map, so a rank touches only the pages it needs."""

from __future__ import annotations

import ctypes
import mmap
import os
from typing import Any

from ember._lib import _C
from ember.serialization import _save as S
from ember.serialization._load import _Checkpoint
from ember.serialization._weights_only import WeightsUnpickler
from ember.serialization._zip_reader import Source, ZipReader
from ember.serialization._zip_writer import ZipWriter


def prepare_tensor(t: Any) -> Any:
    """A CPU tensor whose storage is exactly its elements (what the archive should hold)."""
    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if not t.is_contiguous():
        return t.contiguous()  # a fresh storage of exactly its elements
    if t.storage_offset() != 0 or _C._storage_info(t)[2] != t.numel() * t.element_size():
        return t.clone()  # a view: the archive would otherwise hold its whole base storage
    return t


try:  # ISA-L's CRC-32 (zlib's polynomial): 3.8 GB/s here against zlib 1.2.13's 0.6-0.7 GB/s,
    # which made checksumming the largest part of a save's CPU time (0.9 s of a 2.1 s save)
    from isal.isal_zlib import crc32 as _fast_crc32
except ImportError:  # optional (the ``fast`` extra): zlib's, on ember.save's helper thread
    _fast_crc32 = None


def write_tensor(write: Any, t: Any) -> None:
    """Append ``torch.save(t)``'s archive through ``write``."""
    records, table = S._records(t, S.DEFAULT_PROTOCOL, True)
    if _fast_crc32 is None:
        S._write_archive(write, "archive", records)
    else:
        zw = ZipWriter(write, "archive")
        for name, data in records:
            big = len(data) >= 1 << 16
            zw.add(name, data, _fast_crc32(memoryview(data).cast("B")) if big else None)
        zw.finish()
    del table


class MappedFile:
    """One ``.distcp`` file opened for reading: an fd for direct reads, a private map for the
    archive directories and for strided copies."""

    def __init__(self, path: str, name: str) -> None:
        self.path, self.name = path, name
        self.fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        self.source = Source(fd=self.fd)
        self.size = self.source.size
        self.mm: Any = None
        self.anchor: Any = None
        self.address = 0
        if self.size:
            self.mm = mmap.mmap(self.fd, 0, access=mmap.ACCESS_COPY)
            self.anchor = ctypes.c_char.from_buffer(self.mm)
            self.address = ctypes.addressof(self.anchor)

    def close(self) -> None:
        # The anchor pins the map while tensors view it; views never outlive a read.
        self.anchor = None
        if self.mm is not None:
            try:
                self.mm.close()
            except BufferError:  # a view is still alive somewhere: let the GC unmap it
                pass
        os.close(self.fd)

    def check_range(self, offset: int, length: int, what: str) -> None:
        if offset < 0 or offset + length > self.size:
            raise RuntimeError(
                f"DCP load: checkpoint file {self.name} is truncated or corrupted: {what} is stored at "
                f"bytes [{offset}, {offset + length}) per the metadata, but the file has {self.size} bytes")

    def bytes_at(self, offset: int, length: int) -> bytes:
        return bytes(self.mm[offset:offset + length]) if length else b""

    def open_tensor(self, offset: int, length: int) -> Any:
        """The tensor of the archive at [offset, offset+length), viewing the map (not read yet)."""
        view = memoryview(self.mm)[offset:offset + length]
        try:
            reader = ZipReader(Source(buffer=view))
            ckpt = _Checkpoint(reader, None, (self.anchor, self.address + offset))
            return WeightsUnpickler(reader.read("data.pkl"), ckpt.persistent_load, "utf-8", "strict").load()
        finally:
            view.release()

    def copy_region(self, src: Any, dest: Any) -> None:
        """dest.copy_(src) where src views this file's map; a contiguous pair is read with preadv."""
        nbytes = src.numel() * src.element_size()
        if (nbytes >= 1 << 16 and src.is_contiguous() and dest.is_contiguous() and src.dtype == dest.dtype
                and dest.device.type == "cpu"):
            file_off = src.data_ptr() - self.address
            buf = (ctypes.c_char * nbytes).from_address(dest.data_ptr())
            self.source.readinto(memoryview(buf).cast("B"), file_off)  # preadv loop, short read = error
            return
        dest.copy_(src)
