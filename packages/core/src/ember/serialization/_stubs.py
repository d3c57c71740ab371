"""Importable stand-ins for the torch names in a checkpoint's pickle (used only while saving).

The C pickler writes ``GLOBAL module name`` only for objects it can find again
by importing ``module``; ember must write torch names without importing torch.
So the fast save path pickles these stand-ins (``GLOBAL
ember.serialization._stubs FloatStorage``) and then rewrites each such line to
the torch name in :data:`TORCH_NAMES` (``GLOBAL torch FloatStorage``).
Nothing here is ever called.
"""

from __future__ import annotations

from typing import Any

from ember.serialization._names import DTYPES, STORAGE_CLASSES

# stand-in name -> (torch module, torch name)
TORCH_NAMES: dict[str, tuple[str, str]] = {
    "_rebuild_tensor_v2": ("torch._utils", "_rebuild_tensor_v2"),
    "_rebuild_tensor_v3": ("torch._utils", "_rebuild_tensor_v3"),
    "_rebuild_parameter": ("torch._utils", "_rebuild_parameter"),
    "_rebuild_meta_tensor_no_storage": ("torch._utils", "_rebuild_meta_tensor_no_storage"),
    "_rebuild_parameter_with_state": ("torch._utils", "_rebuild_parameter_with_state"),
    "_rebuild_from_type_v2": ("torch._tensor", "_rebuild_from_type_v2"),
    "_get_layout": ("torch.serialization", "_get_layout"),
    "Tensor": ("torch", "Tensor"),
    "Size": ("torch", "Size"),
    "device": ("torch", "device"),
}
TORCH_NAMES.update((g.name, (g.module, g.name)) for g in STORAGE_CLASSES.values())
# dtypes are pickled as a bare GLOBAL; their stand-ins are reduced as `stub()`,
# and the rewrite drops the call (see _pickler.rewrite_stubs).
DTYPE_STUBS: dict[Any, str] = {dt: f"dtype_{g.name}" for dt, g in DTYPES.items()}


def _never_called(*args: Any, **kwargs: Any) -> Any:
    raise TypeError("ember.serialization._stubs objects only stand for torch names while saving")


def _make(name: str) -> Any:
    if name[0].isupper():  # classes in torch: Tensor, Size, FloatStorage, ...
        obj: Any = type(name, (), {"__module__": __name__, "__qualname__": name, "__new__": _never_called})
    else:
        def obj(*args: Any, **kwargs: Any) -> Any:
            return _never_called()

        obj.__name__ = obj.__qualname__ = name
        obj.__module__ = __name__
    globals()[name] = obj
    return obj


STUBS: dict[str, Any] = {name: _make(name) for name in list(TORCH_NAMES) + list(DTYPE_STUBS.values())}
