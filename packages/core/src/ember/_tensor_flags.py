"""Tensor attributes PyTorch keeps that ember answers plainly: ``is_distributed`` (a tensor is never
one of the old THD backend's; the function and method forms), ``Tensor.record_stream`` and
``__cuda_array_interface__`` (only CUDA tensors have them), and the flags of devices and layouts
ember has no backend for (``is_mps``, ``is_xpu``, ``is_sparse_csr``, ...: always False)."""

from __future__ import annotations

from typing import Any

from ember._argcheck import check_names
from ember._lib import _C
from ember._tensor import Tensor

__all__ = ["is_distributed"]


def is_distributed(input: Tensor) -> bool:
    """is_distributed(input) -> bool

    Whether ``input`` is a distributed tensor of the old THD backend: never.

    Example::

        >>> ember.is_distributed(ember.ones(2))
        False
    """
    return False


def record_stream(self: Tensor, stream: Any) -> None:
    """record_stream(stream) -> None

    Marks the tensor as used by ``stream``, so a caching allocator keeps its memory until the
    stream's queued work completes. Only CUDA tensors have it: on a CPU tensor it raises
    NotImplementedError, as PyTorch's does.
    """
    if self.device.type != "cuda":
        raise NotImplementedError("Could not run 'aten::record_stream' with arguments from the 'CPU' backend.")
    handle = getattr(stream, "cuda_stream", None)
    if handle is None:
        raise RuntimeError("unknown parameter type")
    _C._cuda_record_stream(self, int(handle))


# numpy's array-interface type strings of the dtypes a CUDA array can hold (no bfloat16 there)
_TYPESTR = {"float16": "<f2", "float32": "<f4", "float64": "<f8", "complex64": "<c8", "complex128": "<c16",
            "uint8": "|u1", "int8": "|i1", "int16": "<i2", "int32": "<i4", "int64": "<i8", "bool": "|b1",
            "uint16": "<u2", "uint32": "<u4", "uint64": "<u8"}


def _cuda_array_interface(self: Tensor) -> dict[str, Any]:
    """The CUDA Array Interface (version 2) of a CUDA tensor, so CuPy, Numba and others can use its
    memory without a copy; a CPU tensor has no such attribute (AttributeError, as PyTorch)."""
    if self.device.type != "cuda":
        raise AttributeError(f"Can't get __cuda_array_interface__ on non-CUDA tensor type: {self.type()} If CUDA "
                             "data is required use tensor.cuda() to copy tensor to device memory.")
    if self.requires_grad:
        raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad. If gradients aren't "
                           "required, use var.detach() to get Variable that doesn't require grad.")
    name = str(self.dtype).split(".")[-1]
    if name not in _TYPESTR:
        raise TypeError(f"dtype {self.dtype} is not supported by __cuda_array_interface__")
    strides = None if self.is_contiguous() else tuple(s * self.element_size() for s in self.stride())
    return {"typestr": _TYPESTR[name], "shape": tuple(self.shape), "strides": strides,
            "data": (self.data_ptr() if self.numel() > 0 else 0, False), "version": 2}


# Backends and layouts ember does not have: PyTorch answers False for every tensor ember can make.
_NEVER = ("is_ipu", "is_maia", "is_mkldnn", "is_mps", "is_mtia", "is_vulkan", "is_xla", "is_xpu", "is_sparse_csr")


def _never(self: Tensor) -> bool:
    return False


check_names(globals(), __all__)


def install() -> None:
    for fn in (is_distributed, record_stream):
        if fn.__name__ not in vars(Tensor):
            setattr(Tensor, fn.__name__, fn)
    Tensor.__cuda_array_interface__ = property(_cuda_array_interface)  # type: ignore[attr-defined]
    for name in _NEVER:
        if name not in vars(Tensor):
            setattr(Tensor, name, property(_never, doc=f"False: ember has no {name[3:]} tensors."))
