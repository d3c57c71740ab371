"""Which generated bindings read the conjugate bit themselves (PyTorch's conjugate fallback).

Every other binding resolves conjugate-view arguments first (csrc/python/py_conj_fallback.cpp):
a single test of one global counter while no conjugate view exists. The ops here take a
conjugate view as it is: views (make_view carries the bit), the bit's own ops, and the copies
whose C++ body conjugates across (copy_into).
"""

from __future__ import annotations

CONJ_AWARE = {
    # the bit itself
    "conj", "resolve_conj", "is_conj", "real",
    # view_as_real / view(dtype) raise PyTorch's error on a conjugate view
    "view_as_real",
    # copies: copy_into reads and writes conjugate views
    "copy_", "clone", "contiguous", "_to_copy",
    # views: the result keeps the bit
    "view", "view_as", "reshape", "reshape_as", "permute", "transpose", "transpose_", "swapaxes",
    "swapaxes_", "swapdims", "swapdims_", "t", "t_", "adjoint", "expand", "expand_as", "broadcast_to",
    "squeeze", "squeeze_", "unsqueeze", "unsqueeze_", "flatten", "ravel", "detach", "detach_", "alias",
    "narrow", "select", "unfold", "as_strided", "diagonal", "movedim", "moveaxis", "unflatten",
    "split", "split_with_sizes", "chunk", "unbind", "tensor_split", "hsplit", "vsplit", "dsplit",
    "atleast_1d", "atleast_2d", "atleast_3d",
}


def conj_writes(pyname: str, kind: str) -> str:
    """What the binding writes into besides out= (py_conj_fallback.h's ConjWrites)."""
    if kind == "inplace" or (kind == "method" and pyname.endswith("_")):
        return "kWritesSelf"
    if kind == "function" and pyname.endswith("_"):
        return "kWritesFirst"
    return "kWritesNone"
