"""Small shared helpers for the Python half of ember.linalg."""

from __future__ import annotations

from typing import Any

import ember
from ember._dtype_names import legacy_name
from ember._lib import _C
from ember._out import write

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


_legacy = legacy_name  # the names the linalg modules import
copy_out = write  # out= as aten's linalg kernels take it (exact dtype, resized to fit)
