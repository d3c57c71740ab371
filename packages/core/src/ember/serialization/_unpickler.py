"""The unpickler for ``weights_only=False``: full pickle, with torch names mapped to ember.

Only for trusted files (it can run any code the pickle names).  ``torch.*``
globals resolve to ember objects: first the tensor/storage/dtype table shared
with the weights-only path, then ``torch.X`` -> ``ember.X`` by import.
torch itself is never imported.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ember.serialization import _allowlist

# Module renames inside PyTorch that old checkpoints still use.
_MODULE_RENAMES = {"torch.tensor": "torch._tensor"}


def _ember_object(module: str, name: str) -> Any:
    """``torch.nn.modules.linear.Linear`` -> ``ember.nn.modules.linear.Linear``."""
    ember_module = "ember" + module[len("torch"):]
    try:
        obj: Any = importlib.import_module(ember_module)
        for part in name.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        raise AttributeError(
            f"ember.load: the checkpoint refers to {module}.{name}, which ember does not provide "
            f"(looked for {ember_module}.{name}: {e})"
        ) from None
    return obj


def make_unpickler(pickle_module: Any, file: Any, persistent_load: Callable[[Any], Any],
                   load_args: dict[str, Any]) -> Any:
    """An instance of ``pickle_module.Unpickler`` that maps torch names and loads storages."""

    class Unpickler(pickle_module.Unpickler):  # type: ignore[misc, name-defined]
        def find_class(self, module: str, name: str) -> Any:
            module = _MODULE_RENAMES.get(module, module)
            if module == "torch" or module.startswith("torch."):
                obj = _allowlist.torch_name(module, name)
                if obj is not _allowlist._MISSING:
                    return obj
                return _ember_object(module, name)
            return super().find_class(module, name)

    unpickler = Unpickler(file, **load_args)
    unpickler.persistent_load = persistent_load
    return unpickler
