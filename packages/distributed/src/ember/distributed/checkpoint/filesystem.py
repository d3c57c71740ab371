"""Checkpoints in a directory, in PyTorch's layout: ``__{rank}_{n}.distcp`` data files (each
item a ``torch.save`` archive, back to back) and ``.metadata``, written last.

Never losing a checkpoint: a save writes its data under file names the directory does not
hold yet (so the previous checkpoint's files are never touched), then the coordinator writes
``.metadata`` to a temporary name, fsyncs it and renames it into place (atomic), fsyncs the
directory, and only then deletes the files no longer referenced. A save killed at any point
leaves either the old or the new ``.metadata``, each naming complete files. A failed write
(a full disk) removes its partial file; leftovers of killed saves are removed by the next one.
On load, each file's size is checked against the byte ranges the metadata gives it."""

from __future__ import annotations

import dataclasses
import io
import os
import re
import threading
import uuid
import warnings
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from . import _pickle, _tensor_io
from .metadata import Metadata, MetadataIndex, StorageMeta, TensorStorageMetadata
from .planner import LoadItemType, LoadPlan, LoadPlanner, ReadItem, SavePlan, SavePlanner, WriteItem, WriteItemType
from .storage import StorageReader, StorageWriter, WriteResult

__all__ = ["FileSystemReader", "FileSystemWriter", "SerializationFormat"]

CURRENT_DCP_VERSION = "1.0.0"
DEFAULT_SUFFIX = ".distcp"
_metadata_fn = ".metadata"
_DATA_FILE = re.compile(r"__\d+_\d+\.distcp\Z")
_RANK_METADATA = re.compile(r"__\d+\.metadata\Z")


@dataclass
class _StorageInfo:
    """Where one item's bytes are: file (relative to the checkpoint), offset, length."""

    relative_path: str
    offset: int
    length: int
    transform_descriptors: Sequence[str] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass
class _StoragePrefix:
    prefix: str


class SerializationFormat(Enum):
    TORCH_SAVE = "torch_save"
    SAFETENSORS = "safetensors"


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _read_metadata_file(path: Path) -> Metadata:
    with open(path, "rb") as f:
        return _pickle.load(f)


def _unlink_all(directory: Path, names: list[str]) -> None:
    for name in names:
        try:
            os.unlink(directory / name)
        except OSError:
            pass


def _unlink_later(directory: Path, names: list[str]) -> None:
    """Delete ``names`` on a helper thread. Freeing a large file's blocks takes a quarter
    second per 512 MB here, and nothing waits for it: a save picks names the directory does
    not hold (so never one still queued), and each listed name is deleted once, so a file a
    later save creates under a freed name is never touched."""
    if names:
        threading.Thread(target=_unlink_all, args=(directory, names), daemon=True,
                         name="ember-dcp-cleanup").start()


def _referenced_files(metadata: Metadata) -> set[str]:
    return {info.relative_path for info in (metadata.storage_data or {}).values()}


class _FileWriter:
    """Appends items to one data file; ``pos`` is where the next item starts."""

    def __init__(self, path: Path, sync: bool) -> None:
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o644)
        self.write = _tensor_io.S._FdWriter(self.fd)
        # No early writeback every 8 MB (ember.save's choice): with two ranks writing at once it
        # made a 512 MB save 2x slower here (4.1 s vs 2.1 s; torch 2.4 s); one fsync at the end.
        self.write._sync_range = None
        self.sync = sync

    def close(self) -> None:
        try:
            if self.sync:
                os.fsync(self.fd)
        finally:
            os.close(self.fd)


def _split_items(items: list[WriteItem], n: int) -> list[list[WriteItem]]:
    """Objects first, then tensors largest first, dealt to ``n`` buckets of similar size."""
    buckets: list[list[WriteItem]] = [[] for _ in range(max(1, n))]
    sizes = [0] * len(buckets)
    objs = [it for it in items if it.type == WriteItemType.BYTE_IO]
    tensors = sorted((it for it in items if it.type != WriteItemType.BYTE_IO),
                     key=lambda it: -(it.tensor_storage_size() or 0))
    for i, it in enumerate(objs):
        buckets[i % len(buckets)].append(it)
    for it in tensors:
        k = sizes.index(min(sizes))
        buckets[k].append(it)
        sizes[k] += it.tensor_storage_size() or 0
    return [b for b in buckets if b]


class _Directory:
    """What the writer and reader share: a checkpoint is named by its directory path."""

    path: Path

    @property
    def checkpoint_id(self) -> str | os.PathLike:
        return self.path

    @classmethod
    def validate_checkpoint_id(cls, checkpoint_id: str | os.PathLike) -> bool:
        return isinstance(checkpoint_id, (str, os.PathLike)) and "://" not in str(checkpoint_id)


class FileSystemWriter(_Directory, StorageWriter):
    """Writes a checkpoint into the directory ``path`` (created if needed)."""

    def __init__(self, path: str | os.PathLike, single_file_per_rank: bool = True, sync_files: bool = True,
                 thread_count: int = 1, per_thread_copy_ahead: int = 10_000_000,
                 cache_staged_state_dict: bool = False, overwrite: bool = True,
                 _extensions: Sequence[Any] | None = None,
                 serialization_format: SerializationFormat = SerializationFormat.TORCH_SAVE) -> None:
        if _extensions:
            raise NotImplementedError("FileSystemWriter: stream _extensions are not supported by ember")
        if serialization_format != SerializationFormat.TORCH_SAVE:
            raise NotImplementedError("FileSystemWriter: only SerializationFormat.TORCH_SAVE is supported")
        self.path = Path(path)
        self.single_file_per_rank = single_file_per_rank
        self.sync_files = sync_files
        self.thread_count = max(1, int(thread_count))
        self.per_thread_copy_ahead = per_thread_copy_ahead
        self.cache_staged_state_dict = cache_staged_state_dict
        self.overwrite = overwrite
        self.serialization_format = serialization_format
        self.save_id = str(uuid.uuid4())
        self.rank: int | None = None
        self.use_collectives = True
        self.is_coordinator = False

    def reset(self, checkpoint_id: str | os.PathLike | None = None) -> None:
        if checkpoint_id:
            self.path = Path(checkpoint_id)
        self.save_id = str(uuid.uuid4())

    def set_up_storage_writer(self, is_coordinator: bool, *args: Any, **kwargs: Any) -> None:
        self.is_coordinator = is_coordinator
        self.rank = kwargs.get("rank")
        self.use_collectives = kwargs.get("use_collectives", True)

    def _metadata_path(self, rank: int | None = None) -> Path:
        return self.path / (_metadata_fn if rank is None else f"__{rank}{_metadata_fn}")

    def prepare_local_plan(self, plan: SavePlan) -> SavePlan:
        self.path.mkdir(parents=True, exist_ok=True)
        existing = self._metadata_path(None if self.use_collectives else 0)
        if existing.exists():
            if not self.overwrite:
                raise RuntimeError(f"Checkpoint already exists and self.overwrite={self.overwrite}.")
            warnings.warn(f"Detected an existing checkpoint in {self.path}, overwriting since "
                          f"self.overwrite={self.overwrite}. The previous checkpoint stays loadable "
                          "until the new one is complete.", stacklevel=2)
        if self.rank is not None and not self.use_collectives:
            plan = dataclasses.replace(plan, storage_data=_StoragePrefix(f"__{self.rank}_"))
        return plan

    def prepare_global_plan(self, plans: list[SavePlan]) -> list[SavePlan]:
        # No rank writes before this returns: a safe moment to drop killed saves' leftovers.
        if self.use_collectives:
            self._remove_unreferenced()
        return [plan if plan.storage_data is not None else
                dataclasses.replace(plan, storage_data=_StoragePrefix(f"__{i}_")) for i, plan in enumerate(plans)]

    def _remove_unreferenced(self) -> None:
        """Delete data files and temporaries that the committed metadata does not name."""
        md = self._metadata_path()
        keep: set[str] = set()
        if md.exists():
            try:
                keep = _referenced_files(_read_metadata_file(md))
            except Exception:  # noqa: BLE001 - unreadable: delete nothing
                return
        _unlink_later(self.path, self._unreferenced(keep))

    def _unreferenced(self, keep: set[str], own_rank: int | None = None) -> list[str]:
        """Data files (only ``own_rank``'s, when given) and metadata temporaries not in ``keep``."""
        try:
            names = os.listdir(self.path)
        except OSError:
            return []
        if own_rank is not None:
            return [n for n in names if n.startswith(f"__{own_rank}_") and _DATA_FILE.match(n) and n not in keep]
        if any(_RANK_METADATA.match(n) for n in names):
            return []  # rank-local checkpoints (use_collectives=False): their files are not ours to judge
        return [n for n in names if (_DATA_FILE.match(n) and n not in keep)
                or (n.startswith(f"{_metadata_fn}.") and n.endswith(".tmp"))]

    def write_data(self, plan: SavePlan, planner: SavePlanner) -> Future[list[WriteResult]]:
        prefix = plan.storage_data.prefix
        taken = set(os.listdir(self.path))
        counter = iter(range(1 << 30))

        def fresh_name() -> str:  # never a name the previous checkpoint may use
            while True:
                name = f"{prefix}{next(counter)}{DEFAULT_SUFFIX}"
                if name not in taken:
                    taken.add(name)
                    return name

        groups = ([[it] for it in plan.items] if not self.single_file_per_rank
                  else _split_items(plan.items, self.thread_count))
        jobs = [(fresh_name(), g) for g in groups]
        results: list[list[WriteResult]] = [[] for _ in jobs]
        errors: list[BaseException] = []
        lock = threading.Lock()
        queue = list(range(len(jobs)))

        def worker() -> None:
            while True:
                with lock:
                    if not queue or errors:
                        return
                    k = queue.pop(0)
                try:
                    name, items = jobs[k]
                    results[k] = self._write_file(name, items, planner)
                except BaseException as e:  # noqa: BLE001 - re-raised on the calling thread
                    with lock:
                        errors.append(e)
                    return

        threads = [threading.Thread(target=worker, name="ember-dcp-write")
                   for _ in range(1, min(self.thread_count, len(jobs)))]
        for t in threads:
            t.start()
        worker()
        for t in threads:
            t.join()
        if errors:
            for name, _ in jobs:  # nothing of this failed save may stay behind
                try:
                    os.unlink(self.path / name)
                except OSError:
                    pass
            raise errors[0]
        fut: Future[list[WriteResult]] = Future()
        fut.set_result([r for rs in results for r in rs])
        return fut

    def _write_file(self, name: str, items: list[WriteItem], planner: SavePlanner) -> list[WriteResult]:
        out = _FileWriter(self.path / name, self.sync_files)
        res = []
        try:
            for item in items:
                data = planner.resolve_data(item)
                start = out.write.pos
                if item.type == WriteItemType.BYTE_IO:
                    out.write(data.getbuffer() if isinstance(data, io.BytesIO) else data)
                else:
                    _tensor_io.write_tensor(out.write, _tensor_io.prepare_tensor(data))
                length = out.write.pos - start
                res.append(WriteResult(index=item.index, size_in_bytes=length,
                                       storage_data=_StorageInfo(name, start, length)))
        finally:
            out.close()
        return res

    def finish(self, metadata: Metadata, results: list[list[WriteResult]]) -> None:
        metadata.version = CURRENT_DCP_VERSION
        metadata.storage_data = {wr.index: wr.storage_data for wrs in results for wr in wrs}
        metadata.storage_meta = self.storage_meta()
        local = not self.use_collectives and self.rank is not None
        final = self._metadata_path(self.rank if local else None)
        tmp = self.path / f"{final.name}.{uuid.uuid4().hex[:8]}.tmp"
        written = {info.relative_path for info in metadata.storage_data.values()}
        try:
            data = _pickle.dumps(metadata)
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                if self.sync_files:
                    os.fsync(f.fileno())
            os.replace(tmp, final)  # the commit point: atomic
        except BaseException:
            for name in written | {tmp.name}:
                try:
                    os.unlink(self.path / name)
                except OSError:
                    pass
            raise
        if self.sync_files:
            _fsync_dir(self.path)
        # The superseded files: listed now (a later save's files are never touched), deleted
        # in the background; if the process exits first, the next save removes them.
        _unlink_later(self.path, self._unreferenced(written, own_rank=self.rank if local else None))

    def storage_meta(self) -> StorageMeta | None:
        return StorageMeta(checkpoint_id=self.checkpoint_id, save_id=self.save_id)

    def stage(self, state_dict: dict[str, Any]) -> dict[str, Any]:
        """A CPU copy of ``state_dict`` that later writes can use while training goes on."""
        from .staging import copy_to_cpu

        return copy_to_cpu(state_dict)


class FileSystemReader(_Directory, StorageReader):
    """Reads a checkpoint from the directory ``path``."""

    def __init__(self, path: str | os.PathLike, _extension_registry: Any = None) -> None:
        self.path = Path(path)
        self.storage_data: dict[Any, Any] = {}
        self.metadata: Metadata | None = None
        self.load_id = str(uuid.uuid4())
        self.rank: int | None = None
        self.use_collectives = True

    def reset(self, checkpoint_id: str | os.PathLike | None = None) -> None:
        self.storage_data = {}
        if checkpoint_id:
            self.path = Path(checkpoint_id)
        self.load_id = str(uuid.uuid4())

    def read_metadata(self, *args: Any, **kwargs: Any) -> Metadata:
        rank = kwargs.get("rank")
        path = self.path / (_metadata_fn if rank is None else f"__{rank}{_metadata_fn}")
        if not path.exists():
            if not self.path.is_dir():
                raise FileNotFoundError(f"DCP load: checkpoint directory {self.path} does not exist")
            raise FileNotFoundError(
                f"DCP load: {self.path} holds no complete checkpoint: {path.name} is missing "
                "(a save into it did not finish, or it is not a DCP checkpoint)")
        try:
            metadata = _read_metadata_file(path)
        except Exception as e:
            raise RuntimeError(f"DCP load: cannot read checkpoint metadata {path}: {type(e).__name__}: {e}") from e
        if not isinstance(metadata, Metadata):
            raise RuntimeError(f"DCP load: {path} does not hold checkpoint Metadata (got {type(metadata).__name__})")
        if getattr(metadata, "storage_meta", None) is None:
            metadata.storage_meta = StorageMeta()
        metadata.storage_meta.load_id = self.load_id
        return metadata

    def set_up_storage_reader(self, metadata: Metadata, is_coordinator: bool, *args: Any, **kwargs: Any) -> None:
        self.metadata = metadata
        self.storage_data = metadata.storage_data
        self.rank = kwargs.get("rank")
        self.use_collectives = kwargs.get("use_collectives", True)
        if self.storage_data is None:
            raise AssertionError("storage_data must not be None in metadata")

    def prepare_local_plan(self, plan: LoadPlan) -> LoadPlan:
        return plan

    def prepare_global_plan(self, plans: list[LoadPlan]) -> list[LoadPlan]:
        return plans

    def _info(self, index: MetadataIndex) -> _StorageInfo:
        info = self.storage_data.get(index)
        if info is None:
            raise RuntimeError(f"DCP load: the checkpoint metadata names no storage for {index.fqn!r} "
                               f"(chunk at {tuple(index.offset or ())}); the checkpoint is incomplete")
        if info.transform_descriptors:
            raise NotImplementedError(f"DCP load: {index.fqn!r} was saved with stream extensions "
                                      f"{list(info.transform_descriptors)}, which ember does not read")
        return info

    def _chunk_md(self, index: MetadataIndex) -> Any:
        md = self.metadata.state_dict_metadata.get(index.fqn) if self.metadata is not None else None
        if not isinstance(md, TensorStorageMetadata):
            return None, None
        for c in md.chunks:
            if tuple(c.offsets) == tuple(index.offset or ()):
                return c, md.properties
        return None, md.properties

    def read_data(self, plan: LoadPlan, planner: LoadPlanner) -> Future[None]:
        per_file: dict[str, list[ReadItem]] = {}
        for item in plan.items:
            per_file.setdefault(self._info(item.storage_index).relative_path, []).append(item)
        for rel, items in per_file.items():
            items.sort(key=lambda it: self._info(it.storage_index).offset)
            path = self.path / rel
            if not path.exists():
                raise FileNotFoundError(f"DCP load: checkpoint file {rel} is missing from {self.path} "
                                        f"(needed for {items[0].storage_index.fqn!r})")
            f = _tensor_io.MappedFile(str(path), rel)
            try:
                for item in items:  # check every range first: no partial load from a truncated file
                    info = self._info(item.storage_index)
                    f.check_range(info.offset, info.length, f"key {item.storage_index.fqn!r}")
                opened: dict[MetadataIndex, Any] = {}
                for item in items:
                    self._read_item(f, item, planner, opened)
                opened.clear()
            finally:
                f.close()
        fut: Future[None] = Future()
        fut.set_result(None)
        return fut

    def _read_item(self, f: Any, item: ReadItem, planner: LoadPlanner, opened: dict[MetadataIndex, Any]) -> None:
        info = self._info(item.storage_index)
        fqn = item.storage_index.fqn
        where = f"checkpoint file {f.name}, key {fqn!r} (bytes [{info.offset}, {info.offset + info.length}))"
        if item.type == LoadItemType.BYTE_IO:
            try:
                planner.load_bytes(item, io.BytesIO(f.bytes_at(info.offset, info.length)))
            except Exception as e:
                raise RuntimeError(f"DCP load: {where} is corrupted: {type(e).__name__}: {e}") from e
            return
        saved = opened.get(item.storage_index)
        if saved is None:
            try:
                saved = f.open_tensor(info.offset, info.length)
            except Exception as e:
                raise RuntimeError(f"DCP load: {where} is corrupted: {type(e).__name__}: {e}") from e
            chunk, props = self._chunk_md(item.storage_index)
            if chunk is not None and tuple(saved.shape) != tuple(chunk.sizes):
                raise RuntimeError(f"DCP load: {where} holds a tensor of shape {tuple(saved.shape)}, "
                                   f"the metadata says {tuple(chunk.sizes)}: the file is corrupted")
            if props is not None and saved.dtype != props.dtype:
                raise RuntimeError(f"DCP load: {where} holds {saved.dtype}, the metadata says "
                                   f"{props.dtype}: the file is corrupted")
            opened[item.storage_index] = saved
        from .default_planner import narrow_tensor_by_index

        src = narrow_tensor_by_index(saved, item.storage_offsets, item.lengths)
        target = planner.resolve_tensor(item).detach()
        if tuple(target.shape) != tuple(src.shape):
            raise AssertionError(f"req {item.storage_index} mismatch sizes {tuple(target.shape)} vs {tuple(src.shape)}")
        f.copy_region(src, target)
        planner.commit_tensor(item, target)
