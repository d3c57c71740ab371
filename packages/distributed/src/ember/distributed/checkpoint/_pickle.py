"""The ``.metadata`` pickle in PyTorch's spelling, both ways, without importing torch.

Writing reuses ember.save's pure-Python ``TorchPickler`` (dtypes, sizes, layouts as torch
names) and renames every ``ember.X`` class to ``torch.X``: this package mirrors PyTorch's
module layout (``metadata.Metadata``, ``filesystem._StorageInfo``...), so the renamed name is
exactly the class torch unpickles. Reading uses ember.load's unpickler, which maps
``torch.X`` back to ``ember.X``."""

from __future__ import annotations

import io
import pickle
from typing import Any

from ember.serialization._pickler import StorageTable, TorchPickler
from ember.serialization._unpickler import make_unpickler


class _MetadataPickler(TorchPickler):
    dispatch = TorchPickler.dispatch.copy()

    def save_global(self, obj: Any, name: str | None = None) -> None:
        module = getattr(obj, "__module__", "") or ""
        if module == "ember" or module.startswith("ember."):
            self._write_global("torch" + module[len("ember"):], name or obj.__qualname__)
            self.memoize(obj)
            return
        super().save_global(obj, name)


def dumps(obj: Any) -> bytes:
    """``obj`` pickled as PyTorch would pickle its torch counterpart (protocol 4, as torch)."""
    buf = io.BytesIO()
    _MetadataPickler(buf, 4, StorageTable()).dump(obj)
    return buf.getvalue()


def _no_storages(pid: Any) -> Any:
    raise pickle.UnpicklingError(f"unexpected tensor storage {pid!r:.60} in checkpoint metadata")


def load(f: Any) -> Any:
    """Unpickle a ``.metadata`` written by PyTorch or ember (trusted input, as in PyTorch)."""
    return make_unpickler(pickle, f, _no_storages, {"encoding": "utf-8"}).load()
