"""``ember.serialization``: ``save``/``load`` in PyTorch's zip checkpoint format.

Files are interchangeable with PyTorch in both directions.  Loading is
``weights_only=True`` by default: the pickle may only build tensors and plain
data, and anything else must be allow-listed with :func:`add_safe_globals`.

Layout: ``_save``/``_pickler``/``_zip_writer`` write; ``_load``/``_zip_reader``/
``_weights_only``/``_unpickler`` read; ``_names``/``_allowlist``/``_rebuild``
map PyTorch's pickle names to ember objects.
"""

from __future__ import annotations

from typing import Any

from ember.serialization._allowlist import is_default_or_user_allowed
from ember.serialization._load import load
from ember.serialization._location import default_restore_location
from ember.serialization._safe_globals import (
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    safe_globals,
)
from ember.serialization._save import DEFAULT_PROTOCOL, save
from ember.serialization._storage import StorageType

__all__ = [
    "DEFAULT_PROTOCOL", "StorageType", "add_safe_globals", "clear_safe_globals",
    "default_restore_location", "get_safe_globals", "get_unsafe_globals_in_checkpoint",
    "load", "location_tag", "safe_globals", "save",
]


def location_tag(storage: Any) -> str:
    """The location tag a tensor's storage is saved with (``'cpu'``, ``'cuda:0'``)."""
    d = storage.device
    return "cpu" if d.type == "cpu" else f"{d.type}:{d.index or 0}"


def get_unsafe_globals_in_checkpoint(f: Any) -> list[str]:
    """The GLOBALs in a checkpoint's pickle that a ``weights_only`` load would refuse.

    Static: the pickle is disassembled, not run.
    """
    import pickletools

    from ember.serialization._load import _open
    from ember.serialization._zip_reader import ZipReader

    source, fd, _ = _open(f, False)
    try:
        if source.size < 4 or source.read(4, 0) != b"PK\x03\x04":
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        reader = ZipReader(source)
        if reader.has("constants.pkl"):
            raise ValueError(
                "Expected input to be a checkpoint returned by torch.save but got a torchscript checkpoint"
            )
        data = reader.read("data.pkl")
    finally:
        if fd is not None:
            import os

            os.close(fd)
    import _compat_pickle

    names: set[str] = set()
    strings: list[str] = []
    for op, arg, _ in pickletools.genops(data):
        pair = None
        if op.name in ("GLOBAL", "INST"):
            pair = tuple(str(arg).split(" ", 1))
        elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
            pair = (strings[-2], strings[-1])
        elif isinstance(arg, str):
            strings.append(arg)
        if pair is not None and len(pair) == 2:
            module, name = _compat_pickle.NAME_MAPPING.get(pair, pair)  # Python 2 spellings
            module = _compat_pickle.IMPORT_MAPPING.get(module, module)
            names.add(f"{module}.{name}")
    return sorted(n for n in names if not is_default_or_user_allowed(n))
