"""Picking the storage for a ``checkpoint_id`` when none is given (a directory path)."""

from __future__ import annotations

import os
from typing import Any


def _storage_setup(storage: Any, checkpoint_id: str | os.PathLike | None, reader: bool = False) -> Any:
    if storage:
        if checkpoint_id is not None:
            storage.reset(checkpoint_id)
        return storage
    if not checkpoint_id:
        raise RuntimeError("`checkpoint_id` must be specified if storage_reader/storage_writer is None.")
    from .filesystem import FileSystemReader, FileSystemWriter

    target = FileSystemReader if reader else FileSystemWriter
    if target.validate_checkpoint_id(checkpoint_id):
        storage = target(checkpoint_id)
        storage.reset(checkpoint_id)
        return storage
    raise RuntimeError("Cannot detect which StorageReader or StorageWriter to use. "
                       "Please specify the storage_reader/storage_writer.")
