"""``torch.types``: the type aliases libraries annotate with (``Device``, ``Number``, ``_size``, ...).
ember has no symbolic shapes, so the Sym* forms are the plain Python types."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO, Any, TypeAlias, Union

from ember._lib import _C
from ember._size import Size
from ember._tensor import Tensor

__all__ = ["BoolLikeType", "Device", "FileLike", "FloatLikeType", "IntLikeType", "Number", "PySymType", "Storage"]

_bool: TypeAlias = bool
_bytes: TypeAlias = bytes
_complex: TypeAlias = complex
_float: TypeAlias = float
_int: TypeAlias = int
_str: TypeAlias = str
_dtype: TypeAlias = _C.dtype
_device: TypeAlias = _C.device
_layout: TypeAlias = _C.layout
_dispatchkey: TypeAlias = str
_qscheme: TypeAlias = Any  # no quantized tensors in ember

IntLikeType: TypeAlias = int
FloatLikeType: TypeAlias = float
BoolLikeType: TypeAlias = bool
PySymType: TypeAlias = Union[int, float, bool]  # noqa: UP007 - a runtime alias object, as PyTorch's
py_sym_types = (int, float, bool)

_size: TypeAlias = Union[Size, list[int], tuple[int, ...]]  # noqa: UP007
_symsize: TypeAlias = Union[Size, Sequence[int]]  # noqa: UP007
Number: TypeAlias = Union[int, float, bool]  # noqa: UP007
_Number = (int, float, bool)
Device: TypeAlias = Union[_C.device, str, int, None]  # noqa: UP007
_TensorOrTensors: TypeAlias = Union[Tensor, Sequence[Tensor]]  # noqa: UP007
_TensorOrOptionalTensors: TypeAlias = Union[Tensor, Sequence[Union[Tensor, None]], None]  # noqa: UP007
FileLike: TypeAlias = Union[str, "os.PathLike[str]", IO[bytes]]  # noqa: UP007


class Storage:
    """The protocol a storage object satisfies (for annotations; ``UntypedStorage`` is the class)."""

    _cdata: int
    device: Any
    dtype: Any
    _torch_load_uninitialized: bool

    def __deepcopy__(self, memo: dict[int, Any]) -> Storage:
        raise NotImplementedError

    def _new_shared(self, size: int) -> Storage:
        raise NotImplementedError

    def _write_file(self, f: Any, is_real_file: bool, save_size: bool, element_size: int) -> None:
        raise NotImplementedError

    def element_size(self) -> int:
        raise NotImplementedError

    def is_shared(self) -> bool:
        raise NotImplementedError

    def share_memory_(self) -> Storage:
        raise NotImplementedError

    def nbytes(self) -> int:
        raise NotImplementedError

    def cpu(self) -> Storage:
        raise NotImplementedError

    def data_ptr(self) -> int:
        raise NotImplementedError

    def from_file(self, filename: str, shared: bool = False, nbytes: int = 0) -> Storage:
        raise NotImplementedError

    def _new_with_file(self, f: Any, element_size: int) -> Storage:
        raise NotImplementedError
