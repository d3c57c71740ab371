"""Small shared helpers for the Python half of ember.linalg."""

from __future__ import annotations

from typing import Any

import ember
from ember._lib import _C

_EPS = {"float32": 1.1920928955078125e-07, "float64": 2.220446049250313e-16,
        "complex64": 1.1920928955078125e-07, "complex128": 2.220446049250313e-16}


def eps(dtype: Any) -> float:
    """Machine epsilon of a floating dtype, of its real type for a complex one (float32's for
    anything else)."""
    return _EPS.get(str(dtype).replace("torch.", "").replace("ember.", ""), _EPS["float32"])


def return_type(name: str, fields: list[str]) -> Any:
    """A maker of PyTorch's structseq ``torch.return_types.<name>`` (the type compiled ops return):
    ``make(a, b)`` builds one from its fields."""
    cls = _C._return_type(name, fields)
    return lambda *values: cls(values)


def check_float(A: Any, op: str) -> None:
    if not isinstance(A, ember.Tensor):
        raise TypeError(f"{op}(): argument 'A' (position 1) must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if not (A.is_floating_point() or A.is_complex()):
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                           f"{_legacy(A.dtype)}")


def check_square(A: Any, op: str) -> None:
    check_float(A, op)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


def _legacy(dtype: Any) -> str:
    names = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
             "bool": "Bool", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
             "complex64": "ComplexFloat", "complex128": "ComplexDouble", "uint16": "UInt16", "uint32": "UInt32",
             "uint64": "UInt64"}
    return names.get(str(dtype).split(".")[-1], str(dtype))



def copy_out(result: Any, out: Any) -> Any:
    """Writes ``result`` (a tensor or a structseq of tensors) into ``out=`` (resized to fit, as
    PyTorch's out= does) and returns ``out`` in ``result``'s form; ``result`` when out is None."""
    if out is None:
        return result
    if isinstance(result, ember.Tensor):
        _fill(out, result)
        return out
    if len(out) != len(result):
        raise TypeError(f"expected a tuple of {len(result)} tensors for out=, got {len(out)}")
    for o, r in zip(out, result, strict=True):
        _fill(o, r)
    return type(result)(tuple(out))


_OUT_NAMES = {"float32": "float", "float64": "double", "int32": "int", "int64": "long", "bool": "bool",
              "float16": "c10::Half", "bfloat16": "c10::BFloat16"}


def _fill(o: Any, r: ember.Tensor) -> None:
    if o.dtype != r.dtype:
        want, got = (_OUT_NAMES.get(str(d).split(".")[-1], str(d)) for d in (r.dtype, o.dtype))
        raise RuntimeError(f"Expected out tensor to have dtype {want}, but got {got} instead")
    if tuple(o.shape) != tuple(r.shape):
        o.resize_(tuple(r.shape))
    o.copy_(r.detach() if not ember.is_grad_enabled() else r)
