"""The legacy CUDA tensor types (``ember.cuda.FloatTensor``, ``LongTensor``, ...), as PyTorch's
``torch.cuda.FloatTensor``: calling one makes a tensor of its dtype on the current CUDA device (sizes
give an uninitialized one, a sequence its values), and ``isinstance(t, ember.cuda.FloatTensor)`` is
true exactly for float32 tensors on a CUDA device. In a build without CUDA the types exist and answer
``isinstance`` (always False), and calling one raises PyTorch's TypeError ("type
torch.cuda.FloatTensor not available. Torch not compiled with CUDA enabled."); in a CUDA build on a
machine without a GPU the device's error comes from the allocation, as in PyTorch.

Loaded on first use of one of the names (``ember.cuda.__getattr__``)."""

from __future__ import annotations

from ember._legacy_types import make_types, tensortype

LEGACY_TYPES: dict[str, tensortype] = make_types("cuda")
BY_DTYPE = {cls.dtype: cls for cls in LEGACY_TYPES.values()}

FloatTensor = LEGACY_TYPES["FloatTensor"]
DoubleTensor = LEGACY_TYPES["DoubleTensor"]
HalfTensor = LEGACY_TYPES["HalfTensor"]
BFloat16Tensor = LEGACY_TYPES["BFloat16Tensor"]
ByteTensor = LEGACY_TYPES["ByteTensor"]
CharTensor = LEGACY_TYPES["CharTensor"]
ShortTensor = LEGACY_TYPES["ShortTensor"]
IntTensor = LEGACY_TYPES["IntTensor"]
LongTensor = LEGACY_TYPES["LongTensor"]
BoolTensor = LEGACY_TYPES["BoolTensor"]

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor", "ShortTensor",
           "IntTensor", "LongTensor", "BoolTensor"]
