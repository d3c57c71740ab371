"""Distributed Checkpoint (``torch.distributed.checkpoint``): ``save``/``load`` of sharded
state dicts, in place and with resharding, in PyTorch's directory format (each side loads
the other's checkpoints). See docs/checkpoint.rst."""

from __future__ import annotations

from .api import CheckpointException
from .default_planner import DefaultLoadPlanner, DefaultSavePlanner
from .filesystem import FileSystemReader, FileSystemWriter, SerializationFormat
from .metadata import (
    BytesStorageMetadata,
    ChunkStorageMetadata,
    Metadata,
    MetadataIndex,
    StorageMeta,
    TensorProperties,
    TensorStorageMetadata,
)
from .planner import LoadPlan, LoadPlanner, ReadItem, SavePlan, SavePlanner, WriteItem
from .state_dict_loader import load, load_state_dict
from .state_dict_saver import AsyncCheckpointerType, async_save, save, save_state_dict
from .stateful import Stateful
from .storage import StorageReader, StorageWriter

__all__ = [
    "AsyncCheckpointerType", "BytesStorageMetadata", "CheckpointException", "ChunkStorageMetadata",
    "DefaultLoadPlanner", "DefaultSavePlanner", "FileSystemReader", "FileSystemWriter", "LoadPlan",
    "LoadPlanner", "Metadata", "MetadataIndex", "ReadItem", "SavePlan", "SavePlanner", "SerializationFormat",
    "StorageMeta", "StorageReader", "StorageWriter", "Stateful", "TensorProperties", "TensorStorageMetadata",
    "WriteItem", "async_save", "load", "load_state_dict", "save", "save_state_dict",
]
