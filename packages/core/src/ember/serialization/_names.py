"""The PyTorch names a checkpoint's pickle refers to, and what they mean in ember.

A file written by ``ember.save`` must be readable by ``torch.load``, so its
pickle names ``torch._utils._rebuild_tensor_v2``, ``torch.FloatStorage``,
``torch.float32`` ... exactly as PyTorch does.  ember never imports torch:
the pickler writes those names from :class:`TorchGlobal` markers, and the
unpicklers map them back to ember objects through :data:`DTYPE_NAMES` /
:data:`STORAGE_NAMES` here and the tables in ``_allowlist.py``.
"""

from __future__ import annotations

from typing import Any

from ember._lib import _C


class TorchGlobal:
    """A ``module.name`` that the pickler writes verbatim as a GLOBAL (never imported)."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __repr__(self) -> str:
        return f"{self.module}.{self.name}"

    def __call__(self, *args: Any) -> Any:
        # Callable only so pickle accepts it as a reduce function; it stands for a torch function.
        raise TypeError(f"{self!r} is a name written into checkpoints, not a function ember can call")


# Canonical dtype name -> ember dtype, plus the legacy aliases torch also exports.
DTYPE_NAMES: dict[str, Any] = {
    "float32": _C.float32, "float": _C.float32, "float64": _C.float64, "double": _C.float64,
    "float16": _C.float16, "half": _C.float16, "bfloat16": _C.bfloat16,
    "int64": _C.int64, "long": _C.int64, "int32": _C.int32, "int": _C.int32,
    "int16": _C.int16, "short": _C.int16, "int8": _C.int8, "uint8": _C.uint8, "bool": _C.bool,
    "complex64": _C.complex64, "cfloat": _C.complex64, "complex128": _C.complex128, "cdouble": _C.complex128,
    "uint16": _C.uint16, "uint32": _C.uint32, "uint64": _C.uint64,
    "complex32": _C.complex32, "chalf": _C.complex32,
}
# torch dtypes ember cannot hold (named so the error can say which one).
UNSUPPORTED_DTYPES = (
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
    "float4_e2m1fn_x2", "qint8", "quint8", "qint32", "quint4x2", "quint2x4", "bits8", "bits16",
    "bits1x8", "bits2x4", "bits4x2", "int1", "int2", "int3", "int4", "int5", "int6", "int7",
    "uint1", "uint2", "uint3", "uint4", "uint5", "uint6", "uint7",
)

# Legacy typed-storage class names: the storage type in a persistent id fixes the dtype.
STORAGE_NAMES: dict[str, Any] = {
    "FloatStorage": _C.float32, "DoubleStorage": _C.float64, "HalfStorage": _C.float16,
    "BFloat16Storage": _C.bfloat16, "LongStorage": _C.int64, "IntStorage": _C.int32,
    "ShortStorage": _C.int16, "CharStorage": _C.int8, "ByteStorage": _C.uint8,
    "BoolStorage": _C.bool, "UntypedStorage": _C.uint8,
    "ComplexFloatStorage": _C.complex64, "ComplexDoubleStorage": _C.complex128,
}
UNSUPPORTED_STORAGES = (
    "QInt8Storage", "QUInt8Storage",
    "QInt32Storage", "QUInt4x2Storage", "QUInt2x4Storage",
)

_DTYPE_TO_STORAGE = {dt: name for name, dt in STORAGE_NAMES.items() if name != "UntypedStorage"}


def dtype_name(dtype: Any) -> str:
    """``'float32'`` for ``ember.float32`` (the name after ``torch.``)."""
    return str(dtype).rpartition(".")[2]


# Markers the pickler writes; one object each so the pickle memo can reuse them.
REBUILD_TENSOR_V2 = TorchGlobal("torch._utils", "_rebuild_tensor_v2")
REBUILD_PARAMETER = TorchGlobal("torch._utils", "_rebuild_parameter")
REBUILD_META = TorchGlobal("torch._utils", "_rebuild_meta_tensor_no_storage")
REBUILD_PARAMETER_WITH_STATE = TorchGlobal("torch._utils", "_rebuild_parameter_with_state")
REBUILD_FROM_TYPE_V2 = TorchGlobal("torch._tensor", "_rebuild_from_type_v2")
TENSOR = TorchGlobal("torch", "Tensor")
SIZE = TorchGlobal("torch", "Size")
DEVICE = TorchGlobal("torch", "device")
GET_LAYOUT = TorchGlobal("torch.serialization", "_get_layout")
STORAGE_CLASSES = {dt: TorchGlobal("torch", name) for dt, name in _DTYPE_TO_STORAGE.items()}
DTYPES = {dt: TorchGlobal("torch", dtype_name(dt)) for dt in _DTYPE_TO_STORAGE}
# uint16/32/64 have no typed storage class: PyTorch saves their storage untyped (its size in bytes)
# and the tensor through _rebuild_tensor_v3, which names the dtype.
REBUILD_TENSOR_V3 = TorchGlobal("torch._utils", "_rebuild_tensor_v3")
UNTYPED_STORAGE = TorchGlobal("torch.storage", "UntypedStorage")
UNTYPED_DTYPES = (_C.uint16, _C.uint32, _C.uint64, _C.complex32)  # PyTorch has no typed storage of them
STORAGE_CLASSES.update((dt, UNTYPED_STORAGE) for dt in UNTYPED_DTYPES)
DTYPES.update((dt, TorchGlobal("torch", dtype_name(dt))) for dt in UNTYPED_DTYPES)
