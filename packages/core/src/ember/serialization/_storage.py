"""Storages as the loader sees them: raw bytes from one ``data/<key>`` record.

ember has no public Storage class; a checkpoint storage is kept as a flat
``uint8`` tensor, and every tensor of the file is a strided view of it (so
tensors that shared a storage when saved share it again after loading).
"""

from __future__ import annotations

from typing import Any

from ember._lib import _C


def no_cuda_error() -> Exception:
    """The error for CUDA targets on this build (an AssertionError and a RuntimeError)."""
    return _C.CudaNotCompiledError(
        "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
        "If you are running on a CPU-only machine, please use torch.load with "
        "map_location=torch.device('cpu') to map your storages to the CPU."
    )


class StorageType:
    """A storage class named in a checkpoint (``torch.FloatStorage`` ...): only its dtype matters."""

    __slots__ = ("name", "dtype")

    def __init__(self, name: str, dtype: Any) -> None:
        self.name = name
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"StorageType(dtype={self.dtype})"


class LoadedStorage:
    """The bytes of one checkpoint storage, with the small API ``map_location`` callables use."""

    __slots__ = ("_bytes", "_views")

    def __init__(self, data: Any) -> None:
        self._bytes = data  # 1-d uint8 tensor
        self._views: dict[Any, Any] = {}

    def typed(self, dtype: Any) -> Any:
        """The whole storage as a flat tensor of ``dtype`` (cached, so views share it)."""
        v = self._views.get(dtype)
        if v is None:
            n = self._bytes.numel()
            if n % dtype.itemsize:
                raise RuntimeError(
                    f"ember.load: a storage of {n} bytes cannot hold elements of {dtype} "
                    f"({dtype.itemsize} bytes each)"
                )
            v = self._bytes if dtype == _C.uint8 else self._bytes.view(dtype)
            self._views[dtype] = v
        return v

    @property
    def device(self) -> Any:
        return self._bytes.device

    def nbytes(self) -> int:
        return self._bytes.numel()

    def size(self) -> int:
        return self._bytes.numel()

    __len__ = size

    def data_ptr(self) -> int:
        return self._bytes.data_ptr()

    def cpu(self) -> LoadedStorage:
        return self

    def cuda(self, device: Any = None, non_blocking: bool = False) -> LoadedStorage:
        raise no_cuda_error()

    def to(self, device: Any = None, non_blocking: bool = False) -> LoadedStorage:
        if device is None or _C.device(device).type == "cpu":
            return self
        raise no_cuda_error()

    def __repr__(self) -> str:
        return f"<ember checkpoint storage: {self.nbytes()} bytes on {self.device}>"


class TypedStorage:
    """What a persistent id resolves to: a loaded storage seen with the dtype the id names."""

    __slots__ = ("untyped", "dtype")

    def __init__(self, untyped: LoadedStorage, dtype: Any) -> None:
        self.untyped = untyped
        self.dtype = dtype

    def flat(self) -> Any:
        return self.untyped.typed(self.dtype)

    def size(self) -> int:
        return self.untyped.nbytes() // self.dtype.itemsize

    __len__ = size

    def nbytes(self) -> int:
        return self.untyped.nbytes()

    def __repr__(self) -> str:
        return f"<ember checkpoint storage: {self.size()} x {self.dtype}>"
