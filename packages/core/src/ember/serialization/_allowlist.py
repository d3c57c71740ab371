"""What a checkpoint's GLOBALs may name, and the ember object each name means.

``weights_only`` loading only ever resolves names through :func:`lookup`:
the default allow-list below (tensors, storages, dtypes, primitive
containers) plus the user's ``add_safe_globals``.  Nothing is imported by
name, so a hostile pickle cannot reach ``os.system`` or ``eval``.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Any

from ember._lib import _C
from ember.serialization import _rebuild as R
from ember.serialization._names import (
    DTYPE_NAMES,
    STORAGE_NAMES,
    UNSUPPORTED_DTYPES,
    UNSUPPORTED_STORAGES,
)
from ember.serialization._safe_globals import user_globals
from ember.serialization._storage import StorageType

# Never allowed, even if a user allow-lists something from them.
BLOCKED_MODULES = ("sys", "os", "posix", "nt")


def _encode(obj: Any, encoding: str = "utf-8", errors: str = "strict") -> bytes:
    # How protocol-2 pickles spell bytes: _codecs.encode(str, 'latin1').
    if type(obj) is not str or encoding not in ("latin1", "latin-1", "utf-8", "utf8", "ascii"):
        raise TypeError(f"_codecs.encode: unsupported arguments ({type(obj).__name__}, {encoding!r})")
    return obj.encode(encoding, errors)


def _no_size(fn: Any) -> Any:
    # bytes(n)/bytearray(n) would allocate n zero bytes: a memory bomb in a hostile file.
    def build(*args: Any) -> Any:
        if args and isinstance(args[0], int):
            raise TypeError(f"{fn.__name__}() from an int is not allowed while loading weights")
        return fn(*args)

    build.__name__ = fn.__name__
    return build


def _build_defaults() -> dict[str, Any]:
    from ember._size import Size
    from ember._tensor import Tensor

    g: dict[str, Any] = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "builtins.set": set,
        "builtins.frozenset": frozenset,
        "builtins.complex": complex,
        "builtins.bytearray": _no_size(bytearray),
        "builtins.bytes": _no_size(bytes),
        "_codecs.encode": _encode,
        "torch.Size": Size,
        "torch.Tensor": Tensor,
        "torch.device": _C.device,
        "torch.nn.parameter.Parameter": R.make_parameter,
        "torch.serialization._get_layout": R._get_layout,
        "torch._tensor._rebuild_from_type_v2": R._rebuild_from_type_v2,
    }
    for fn in (R._rebuild_tensor, R._rebuild_tensor_v2, R._rebuild_tensor_v3, R._rebuild_parameter,
               R._rebuild_parameter_with_state, R._rebuild_device_tensor_from_cpu_tensor,
               R._rebuild_device_tensor_from_numpy, R._rebuild_meta_tensor_no_storage):
        g[f"torch._utils.{fn.__name__}"] = fn
    for name, kind in (("_rebuild_qtensor", "quantized tensors"), ("_rebuild_sparse_tensor", "sparse tensors"),
                       ("_rebuild_nested_tensor", "nested tensors"),
                       ("_rebuild_wrapper_subclass", "tensor wrapper subclasses")):
        g[f"torch._utils.{name}"] = R.unsupported(kind)
    for name, dt in DTYPE_NAMES.items():
        g[f"torch.{name}"] = dt
    for name, dt in STORAGE_NAMES.items():
        g[f"torch.{name}"] = StorageType(name, dt)
        if name != "UntypedStorage":  # checkpoints from PyTorch < 1.13 name CUDA storages so
            g[f"torch.cuda.{name}"] = g[f"torch.{name}"]
    g["torch.storage.UntypedStorage"] = g["torch.UntypedStorage"]
    return g


_defaults: dict[str, Any] = {}


def default_globals() -> dict[str, Any]:
    """The built-in allow-list, ``{"torch.float32": ember.float32, ...}`` (built once)."""
    if not _defaults:
        _defaults.update(_build_defaults())
    return _defaults


def _unsupported_torch_name(module: str, name: str) -> None:
    if module == "torch" and name in UNSUPPORTED_DTYPES:
        raise RuntimeError(f"ember.load: the checkpoint uses dtype torch.{name}, which ember does not support")
    if module in ("torch", "torch.storage", "torch.cuda") and name in UNSUPPORTED_STORAGES:
        raise RuntimeError(f"ember.load: the checkpoint uses {module}.{name}, which ember does not support")


_MISSING = object()


def lookup(module: str, name: str) -> Any:
    """The allowed object for ``module.name``, or ``_MISSING`` (callers decide how to refuse)."""
    full = f"{module}.{name}"
    obj = default_globals().get(full, _MISSING)
    if obj is not _MISSING:
        return obj
    _unsupported_torch_name(module, name)
    user = user_globals()
    obj = user.get(full, _MISSING)
    if obj is _MISSING and (module == "torch" or module.startswith("torch.")):
        # `import ember as torch; add_safe_globals([torch.nn.Linear])` names ember.nn...,
        # while a checkpoint written by PyTorch says torch.nn...: accept either spelling.
        obj = user.get("ember" + full[5:], _MISSING)
    return obj


def is_default_or_user_allowed(full_name: str) -> bool:
    module, _, name = full_name.rpartition(".")
    try:
        return lookup(module, name) is not _MISSING
    except RuntimeError:
        return True  # known torch name ember cannot hold: not a safety problem


def allowed_objects() -> dict[int, Any]:
    """``{id(obj): obj}`` of everything the allow-list currently hands out (for REDUCE/NEWOBJ checks)."""
    out = {id(v): v for v in default_globals().values()}
    out.update((id(v), v) for v in user_globals().values())
    return out


def torch_name(module: str, name: str) -> Any:
    """For full (non-weights-only) loads: the ember object for a ``torch.*`` name, or ``_MISSING``."""
    obj = default_globals().get(f"{module}.{name}", _MISSING)
    if obj is _MISSING:
        _unsupported_torch_name(module, name)
    return obj
