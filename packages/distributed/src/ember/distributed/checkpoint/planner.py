"""The plan protocol: each rank turns its state dict into a local plan (what it would write or
read), the coordinator (rank 0) merges them into a global plan (deduplicating replicated
items, building the ``Metadata``), each rank then writes/reads its share.

``SavePlanner``/``LoadPlanner`` are the extension points; ``default_planner`` holds the
defaults. The dataclasses travel between ranks (pickled), so they stay plain."""

from __future__ import annotations

import abc
import io
import math
from dataclasses import dataclass
from enum import Enum, auto
from typing import Any

import ember

from .metadata import ChunkStorageMetadata, Metadata, MetadataIndex, StorageMeta, TensorProperties

__all__ = [
    "BytesIOWriteData", "LoadItemType", "LoadPlan", "LoadPlanner", "ReadItem", "SavePlan",
    "SavePlanner", "TensorWriteData", "WriteItem", "WriteItemType",
]


class WriteItemType(Enum):
    TENSOR = auto()
    SHARD = auto()
    BYTE_IO = auto()


class LoadItemType(Enum):
    TENSOR = auto()
    BYTE_IO = auto()


@dataclass(frozen=True)
class BytesIOWriteData:
    nbytes: int


@dataclass(frozen=True)
class TensorWriteData:
    chunk: ChunkStorageMetadata
    properties: TensorProperties
    size: ember.Size


@dataclass(frozen=True)
class WriteItem:
    """One thing a rank writes: a tensor chunk (``tensor_data``) or a pickled object."""

    index: MetadataIndex
    type: WriteItemType
    bytes_io_data: BytesIOWriteData | None = None
    tensor_data: TensorWriteData | None = None

    def tensor_storage_size(self) -> int | None:
        """Bytes of the chunk this item writes, or None for a pickled object."""
        if self.tensor_data is None:
            return None
        return math.prod(self.tensor_data.chunk.sizes) * self.tensor_data.properties.dtype.itemsize


@dataclass(frozen=True)
class ReadItem:
    """Copy ``lengths`` elements from the saved chunk ``storage_index`` (starting at
    ``storage_offsets`` inside it) into the target ``dest_index`` at ``dest_offsets``."""

    type: LoadItemType
    dest_index: MetadataIndex
    dest_offsets: ember.Size
    storage_index: MetadataIndex
    storage_offsets: ember.Size
    lengths: ember.Size


@dataclass(frozen=True)
class SavePlan:
    items: list[WriteItem]
    storage_data: Any = None
    planner_data: Any = None
    usable: bool = True


@dataclass
class LoadPlan:
    items: list[ReadItem]
    storage_data: Any = None
    planner_data: Any = None


class SavePlanner(abc.ABC):
    """Decides what each rank writes. Called in order: ``set_up_planner``,
    ``create_local_plan`` (every rank), ``create_global_plan`` (coordinator),
    ``finish_plan`` (every rank), then ``resolve_data`` per item while writing."""

    @abc.abstractmethod
    def set_up_planner(self, state_dict: dict[str, Any], storage_meta: StorageMeta | None = None,
                       is_coordinator: bool = False) -> None: ...

    @abc.abstractmethod
    def create_local_plan(self) -> SavePlan: ...

    @abc.abstractmethod
    def create_global_plan(self, all_plans: list[SavePlan]) -> tuple[list[SavePlan], Metadata]: ...

    @abc.abstractmethod
    def finish_plan(self, new_plan: SavePlan) -> SavePlan: ...

    @abc.abstractmethod
    def resolve_data(self, write_item: WriteItem) -> ember.Tensor | io.BytesIO: ...


class LoadPlanner(abc.ABC):
    """Decides what each rank reads and where the bytes go (``resolve_tensor`` hands out the
    destination, ``commit_tensor`` is told when it was filled, ``load_bytes`` gets objects)."""

    @abc.abstractmethod
    def set_up_planner(self, state_dict: dict[str, Any], metadata: Metadata | None = None,
                       is_coordinator: bool = False) -> None: ...

    @abc.abstractmethod
    def create_local_plan(self) -> LoadPlan: ...

    @abc.abstractmethod
    def create_global_plan(self, global_plan: list[LoadPlan]) -> list[LoadPlan]: ...

    @abc.abstractmethod
    def finish_plan(self, central_plan: LoadPlan) -> LoadPlan: ...

    @abc.abstractmethod
    def load_bytes(self, read_item: ReadItem, value: io.BytesIO) -> None: ...

    def resolve_bytes(self, read_item: ReadItem) -> io.BytesIO:
        raise NotImplementedError("LoadPlanner.resolve_bytes is not implemented")

    @abc.abstractmethod
    def resolve_tensor(self, read_item: ReadItem) -> ember.Tensor: ...

    @abc.abstractmethod
    def commit_tensor(self, read_item: ReadItem, tensor: ember.Tensor) -> None: ...
