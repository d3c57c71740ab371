"""The legacy tensor types (``ember.FloatTensor``, ``ember.cuda.FloatTensor``, ...): constructors that
fix the dtype and the device type, and classes for ``isinstance`` (true for the tensors of that dtype
on that device type, as PyTorch's). The CPU types live here; ``ember.cuda._legacy_types`` makes the
CUDA ones with ``make_types("cuda")``."""

from __future__ import annotations

import warnings
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
           _C.int64: "long int", _C.bool: "bool", _C.complex64: "c10::complex<float>",
           _C.complex128: "c10::complex<double>", _C.complex32: "c10::complex<c10::Half>",
           _C.uint16: "short unsigned int", _C.uint32: "unsigned int", _C.uint64: "long unsigned int"}
_MODULES = {"cpu": "torch", "cuda": "torch.cuda"}  # where PyTorch puts each device type's types
_CPU = _C.device("cpu")
_NEW_SIGNATURES = (" * (*, torch.device device = None)\n * (torch.Storage storage)\n * (Tensor other)\n"
                   " * (tuple of ints size, *, torch.device device = None)\n"
                   " * (object data, *, torch.device device = None)\n")
_cuda_ctor_warned = [False]  # PyTorch warns once per process (TORCH_WARN_ONCE)


def _options(dtype: Any, device: Any = "cpu") -> str:
    name = _C_TYPE.get(dtype) or str(dtype).rpartition(".")[2]
    return (f"TensorOptions(dtype={name}, device={device}, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


def _sizes(args: tuple) -> Any:
    for a in args:
        if isinstance(a, float):
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {args.index(a) + 1} with "
                            'error "type must be tuple of ints,but got float"')
        if a < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {a}: {list(args)}")
    return args


def _target_device(home: Any, device: Any) -> Any:
    """The device a legacy constructor of device type ``home.type`` builds on, given its ``device=``
    argument (PyTorch's check_legacy_ctor_device: the type must match; no index keeps ``home``'s)."""
    if device is None:
        return home
    if isinstance(device, int) and not isinstance(device, bool):
        if not _C._cuda_is_compiled() or _C._cuda_device_count() == 0:
            raise RuntimeError("Cannot access accelerator device when none is available.")
        device = _C.device("cuda", device)
    want = device if isinstance(device, _C.device) else _C.device(device)
    if want.type != home.type:
        raise RuntimeError(f"legacy constructor expects device type: {home.type} but device type: {want.type} "
                           "was passed")
    return home if want.index is None else want


def legacy_new(dtype: Any, args: tuple, kwargs: dict, device: Any = None) -> Any:
    """``FloatTensor(...)`` and ``Tensor.new(...)``: nothing → empty; ints or a Size → uninitialized of
    that shape; a tensor of the same dtype and device type → an alias; a sequence or array → its values
    converted (floats truncate into ints). The tensor goes on ``device`` (the CPU when None; a CUDA
    device without an index means the current one), or on the ``device=`` argument when that names a
    device of the same type."""
    import ember

    home = _target_device(_CPU if device is None else device, kwargs.pop("device", None))
    if "size" in kwargs and not args:
        args = (Size(kwargs.pop("size")),)
    elif "data" in kwargs and not args:
        return ember.tensor(kwargs.pop("data"), dtype=dtype, device=home)
    if kwargs:
        got = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__module__}.{type(v).__name__}"
                                                            for k, v in kwargs.items()])
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        + _NEW_SIGNATURES)
    if not args:
        return _C.empty(0, dtype=dtype, device=home)
    if len(args) == 1:
        a = args[0]
        if isinstance(a, _C.TensorBase):
            if a.dtype != dtype or a.device.type != home.type:
                raise TypeError(f"expected {_options(dtype, home.type)} (got {_options(a.dtype, a.device)})")
            return a.view_as(a)
        if isinstance(a, Size):
            return _C.empty(_sizes(tuple(a)), dtype=dtype, device=home)
        if isinstance(a, (int,)) and not isinstance(a, bool):
            return _C.empty(_sizes(args), dtype=dtype, device=home)
        if isinstance(a, str):
            raise TypeError("new(): invalid data type 'str'")
        if isinstance(a, (float, complex, bool)):
            raise TypeError(f"new(): data must be a sequence (got {type(a).__name__})")
        return ember.tensor(a, dtype=dtype, device=home)
    if all(isinstance(a, (int, float)) and not isinstance(a, bool) for a in args):
        return _C.empty(_sizes(args), dtype=dtype, device=home)
    got = ", ".join(type(a).__name__ for a in args)
    raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    + _NEW_SIGNATURES)


def check_available(cls: Any) -> None:
    """PyTorch's TypeError for a CUDA type in a build without CUDA (a CPU type is always available)."""
    if cls.is_cuda and not _C._cuda_is_compiled():
        raise TypeError(f"type {full_name(cls)} not available. Torch not compiled with CUDA enabled.")


def full_name(cls: Any) -> str:
    """The dotted name PyTorch gives a legacy type: ``torch.FloatTensor``, ``torch.cuda.FloatTensor``."""
    return f"{cls.__module__}.{cls.__name__}"


class tensortype(type):
    """The metaclass of the legacy types: ``isinstance(t, FloatTensor)`` checks t's dtype and device
    type; calling the type is the legacy constructor."""

    dtype: Any
    is_cuda: bool
    device_type: str

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, _C.TensorBase) and obj.dtype == cls.dtype and obj.device.type == cls.device_type

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if not cls.is_cuda:
            return legacy_new(cls.dtype, args, dict(kwargs))
        check_available(cls)
        if not _cuda_ctor_warned[0]:
            _cuda_ctor_warned[0] = True
            warnings.warn("The torch.cuda.*DtypeTensor constructors are no longer recommended. It's best to use "
                          "methods such as torch.tensor(data, dtype=*, device='cuda') to create tensors.",
                          UserWarning, stacklevel=2)
        return legacy_new(cls.dtype, args, dict(kwargs), _C.device("cuda"))

    def __repr__(cls) -> str:
        return f"<class '{full_name(cls)}'>"


tensortype.__module__ = "torch"


def _make(name: str, dtype: Any, device_type: str) -> tensortype:
    where = "CPU" if device_type == "cpu" else "CUDA"
    return tensortype(name, (), {
        "dtype": dtype, "layout": _C.strided, "device_type": device_type, "is_cuda": device_type == "cuda",
        "is_sparse": False, "is_sparse_csr": False, "is_xpu": False, "__module__": _MODULES[device_type],
        "__qualname__": name,
        "__doc__": f"Legacy constructor of {dtype} {where} tensors; an isinstance check for them."})


def make_types(device_type: str) -> dict[str, tensortype]:
    """The ten legacy types of ``device_type`` (``"cpu"`` or ``"cuda"``) by name."""
    return {name: _make(name, dtype, device_type) for name, dtype in _TYPES.items()}


LEGACY_TYPES = make_types("cpu")
BY_DTYPE = {cls.dtype: cls for cls in LEGACY_TYPES.values()}


def types_of(device_type: str) -> dict[str, tensortype]:
    """The legacy types of ``device_type`` by name (the CUDA ones load here on first use)."""
    if device_type == "cpu":
        return LEGACY_TYPES
    from ember.cuda import _legacy_types

    return _legacy_types.LEGACY_TYPES


def is_legacy_type(obj: Any) -> bool:
    """Whether ``obj`` is one of ember's legacy types (not merely a tensortype made elsewhere)."""
    return isinstance(obj, tensortype) and types_of(obj.device_type).get(obj.__name__) is obj
