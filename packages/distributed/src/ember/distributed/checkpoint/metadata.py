"""What a checkpoint's ``.metadata`` file holds: per key, a tensor's global shape, dtype and
the chunks it was saved in (or "pickled bytes"), plus where each chunk's bytes live.

Class and field names are PyTorch's: the file is a pickle that ``torch.distributed.checkpoint``
reads (ember writes these classes under their ``torch.`` names, see ``_pickle.py``) and ember
reads PyTorch's (``torch.distributed.checkpoint.metadata.X`` maps to this module)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import ember

__all__ = [
    "BytesStorageMetadata", "ChunkStorageMetadata", "Metadata", "MetadataIndex", "StorageMeta",
    "TensorProperties", "TensorStorageMetadata",
]


@dataclass
class ChunkStorageMetadata:
    """One saved piece of a tensor: where it starts in the global tensor and its extent."""

    offsets: ember.Size
    sizes: ember.Size


class _MEM_FORMAT_ENCODING(Enum):
    """How a memory format is spelled in the file (the pickle stores the number)."""

    TORCH_CONTIGUOUS_FORMAT = 0
    TORCH_CHANNELS_LAST = 1
    TORCH_PRESERVE_FORMAT = 2


def _formats() -> list[tuple[Any, _MEM_FORMAT_ENCODING]]:
    return [(ember.contiguous_format, _MEM_FORMAT_ENCODING.TORCH_CONTIGUOUS_FORMAT),
            (ember.channels_last, _MEM_FORMAT_ENCODING.TORCH_CHANNELS_LAST),
            (ember.preserve_format, _MEM_FORMAT_ENCODING.TORCH_PRESERVE_FORMAT)]


@dataclass
class TensorProperties:
    """The properties a loader needs to create a tensor like the saved one."""

    dtype: Any = field(default_factory=ember.get_default_dtype)
    layout: Any = field(default=ember.strided)
    requires_grad: bool = False
    memory_format: Any = field(default=ember.contiguous_format)
    pin_memory: bool = False

    # The pickled state is a tuple with the memory format as an enum, as PyTorch writes it.
    def __getstate__(self) -> tuple[Any, ...]:
        for fmt, code in _formats():
            if self.memory_format == fmt:
                return (self.dtype, self.layout, self.requires_grad, code, self.pin_memory)
        raise RuntimeError(f"Invalid torch.memory_format: {self.memory_format}")

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.dtype, self.layout, self.requires_grad, code, self.pin_memory = state
        for fmt, known in _formats():
            if code == known:
                self.memory_format = fmt
                return
        raise RuntimeError(f"Invalid torch.memory_format encoding: {code}")

    @staticmethod
    def create_from_tensor(tensor: Any) -> TensorProperties:
        pinned = getattr(tensor, "is_pinned", None)
        return TensorProperties(dtype=tensor.dtype, layout=tensor.layout,
                                requires_grad=tensor.requires_grad,
                                memory_format=ember.contiguous_format,
                                pin_memory=bool(pinned()) if callable(pinned) else False)


@dataclass
class TensorStorageMetadata:
    properties: TensorProperties
    size: ember.Size
    chunks: list[ChunkStorageMetadata]


@dataclass
class BytesStorageMetadata:
    pass


STORAGE_TYPES = TensorStorageMetadata | BytesStorageMetadata
STATE_DICT_TYPE = dict[str, Any]


@dataclass
class StorageMeta:
    checkpoint_id: str | os.PathLike | None = None
    save_id: str | None = None
    load_id: str | None = None
    modules: list[str] = field(default_factory=list)


@dataclass
class Metadata:
    """The whole checkpoint's table of contents (written last: its presence marks completion)."""

    state_dict_metadata: dict[str, STORAGE_TYPES]
    planner_data: Any = None
    storage_data: Any = None
    storage_meta: StorageMeta | None = None
    version: str | None = None


@dataclass(frozen=True)
class MetadataIndex:
    """Names one saved item: the key, and for a tensor chunk its offset in the global tensor.
    ``index`` is only a search hint into the chunk list (not part of equality)."""

    fqn: str
    offset: ember.Size | None = None
    index: int | None = field(hash=False, compare=False, default=None)

    def __init__(self, fqn: str, offset: Sequence[int] | None = None, index: int | None = None) -> None:
        object.__setattr__(self, "fqn", fqn)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "offset", None if offset is None else ember.Size(offset))
