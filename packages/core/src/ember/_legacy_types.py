"""The legacy tensor types (``ember.FloatTensor``, ``LongTensor``, ...): constructors that fix the
dtype, and classes for ``isinstance`` (true for CPU tensors of that dtype, as PyTorch's)."""

from __future__ import annotations

from typing import Any

from ember._lib import _C
from ember._size import Size

_TYPES = {
    "FloatTensor": _C.float32, "DoubleTensor": _C.float64, "HalfTensor": _C.float16,
    "BFloat16Tensor": _C.bfloat16, "ByteTensor": _C.uint8, "CharTensor": _C.int8, "ShortTensor": _C.int16,
    "IntTensor": _C.int32, "LongTensor": _C.int64, "BoolTensor": _C.bool,
}
_C_TYPE = {_C.float32: "float", _C.float64: "double", _C.float16: "c10::Half", _C.bfloat16: "c10::BFloat16",
           _C.uint8: "unsigned char", _C.int8: "signed char", _C.int16: "short int", _C.int32: "int",
           _C.int64: "long int", _C.bool: "bool"}


def _options(dtype: Any) -> str:
    return (f"TensorOptions(dtype={_C_TYPE[dtype]}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


def _sizes(args: tuple) -> Any:
    for a in args:
        if isinstance(a, float):
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {args.index(a) + 1} with "
                            'error "type must be tuple of ints,but got float"')
        if a < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {a}: {list(args)}")
    return args


def legacy_new(dtype: Any, args: tuple, kwargs: dict) -> Any:
    """``FloatTensor(...)``: nothing → empty; ints or a Size → uninitialized of that shape; a tensor of
    the same dtype → an alias; a sequence or array → its values converted (floats truncate into ints)."""
    import ember

    device = kwargs.pop("device", None)
    if device is not None and _C.device(device).type != "cpu":
        raise _C.CudaNotCompiledError("Torch not compiled with CUDA enabled")
    if "size" in kwargs and not args:
        args = (Size(kwargs.pop("size")),)
    elif "data" in kwargs and not args:
        return ember.tensor(kwargs.pop("data"), dtype=dtype)
    if kwargs:
        got = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__module__}.{type(v).__name__}"
                                                            for k, v in kwargs.items()])
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        " * (*, torch.device device = None)\n * (torch.Storage storage)\n * (Tensor other)\n"
                        " * (tuple of ints size, *, torch.device device = None)\n"
                        " * (object data, *, torch.device device = None)\n")
    if not args:
        return ember.empty(0, dtype=dtype)
    if len(args) == 1:
        a = args[0]
        if isinstance(a, _C.TensorBase):
            if a.dtype != dtype:
                raise TypeError(f"expected {_options(dtype)} (got {_options(a.dtype)})")
            return a.view_as(a)
        if isinstance(a, Size):
            return ember.empty(_sizes(tuple(a)), dtype=dtype)
        if isinstance(a, (int,)) and not isinstance(a, bool):
            return ember.empty(_sizes(args), dtype=dtype)
        if isinstance(a, str):
            raise TypeError("new(): invalid data type 'str'")
        if isinstance(a, (float, complex, bool)):
            raise TypeError(f"new(): data must be a sequence (got {type(a).__name__})")
        return ember.tensor(a, dtype=dtype)
    if all(isinstance(a, (int, float)) and not isinstance(a, bool) for a in args):
        return ember.empty(_sizes(args), dtype=dtype)
    got = ", ".join(type(a).__name__ for a in args)
    raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    " * (*, torch.device device = None)\n * (torch.Storage storage)\n * (Tensor other)\n"
                    " * (tuple of ints size, *, torch.device device = None)\n"
                    " * (object data, *, torch.device device = None)\n")


class tensortype(type):
    """The metaclass of the legacy types: ``isinstance(t, FloatTensor)`` checks t's dtype and device."""

    dtype: Any

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, _C.TensorBase) and obj.dtype == cls.dtype and obj.device.type == "cpu"

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return legacy_new(cls.dtype, args, dict(kwargs))

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"


tensortype.__module__ = "torch"


def _make(name: str, dtype: Any) -> type:
    return tensortype(name, (), {"dtype": dtype, "is_cuda": False, "is_sparse": False, "__module__": "torch",
                                 "__doc__": f"Legacy constructor of {dtype} CPU tensors; an isinstance check."})


LEGACY_TYPES = {name: _make(name, dtype) for name, dtype in _TYPES.items()}
BY_DTYPE = {cls.dtype: cls for cls in LEGACY_TYPES.values()}
