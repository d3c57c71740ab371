"""A dtype's names as aten prints them in its messages: the ScalarType name ('Float', 'Long') of its
dispatch and casting errors, and the caffe2::TypeMeta name ('float', 'long int') of its
"Expected out tensor to have dtype float" checks."""

from __future__ import annotations

from typing import Any

_LEGACY = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
           "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
           "complex32": "ComplexHalf", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
           "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}
_META = {"Float": "float", "Double": "double", "Half": "c10::Half", "BFloat16": "c10::BFloat16", "Long": "long int",
         "Int": "int", "Short": "short int", "Char": "signed char", "Byte": "unsigned char", "Bool": "bool",
         "ComplexHalf": "c10::complex<c10::Half>", "ComplexFloat": "c10::complex<float>",
         "ComplexDouble": "c10::complex<double>"}


def legacy_name(dtype: Any) -> str:
    """aten's ScalarType name of a dtype ('Float', 'Long')."""
    name = str(dtype).split(".")[-1]
    return _LEGACY.get(name, name)


def meta_name(dtype: Any) -> str:
    """A dtype as aten prints a caffe2::TypeMeta ('float', 'long int')."""
    name = legacy_name(dtype)
    return _META.get(name, name)
