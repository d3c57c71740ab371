"""Parity inputs for the complex ops (ops/complex.yaml): views between complex and real
tensors, complex / polar, conjugation and angle. Loaded by test_parity.py (BUILDERS) and so also
used by test_grad_parity.py."""

from __future__ import annotations

import math
from typing import Any

import parity_inputs as H

T, Case = H.T, H.Case
NAN, INF = math.nan, math.inf

# Ops returning views of their input: strides, offset and storage sharing are compared too.
VIEW_OPS = {"view_as_real", "view_as_complex", "real", "imag"}


def C(id: str, *args: Any, m: bool = False, ip: bool = False, out: bool = False, **kwargs: Any) -> Case:
    return Case(id, args, kwargs, method=m, inplace=ip, out=out)


def complex_inputs(**kw: Any) -> list:
    """Both complex dtypes, with the usual layouts, 0-d, empty and edge values."""
    return [
        C("c64", T((3, 4), "complex64"), **kw), C("c128", T((3, 4), "complex128"), **kw),
        C("t", T((3, 4), "complex64", view="t"), **kw), C("slice2", T((3, 4), "complex128", view="slice2"), **kw),
        C("offset", T((3, 4), "complex64", view="offset"), **kw), C("0d", T((), "complex64"), **kw),
        C("empty", T((0, 3), "complex128"), **kw), C("special", T((12,), "complex128", "special"), **kw),
    ]


def real_inputs(**kw: Any) -> list:
    return [C("f32", T((3, 4)), **kw), C("f64", T((2, 3), "float64"), **kw), C("i64", T((3,), "int64"), **kw),
            C("bool", T((3,), "bool"), **kw), C("f16", T((2, 2), "float16"), **kw)]


def view_as_real_builder(op: dict) -> list:
    return complex_inputs() + real_inputs()


def view_as_complex_builder(op: dict) -> list:
    return [
        C("f32", T((3, 2))), C("f64", T((2, 3, 2), "float64")), C("0d-pair", T((2,))),
        C("offset", T((3, 2), view="offset")), C("slice2", T((2, 2), view="slice2")),
        C("last-not-2", T((3, 4))), C("0d", T(())), C("t", T((2, 2), view="t")), C("int", T((3, 2), "int64")),
        C("bool", T((3, 2), "bool")), C("empty", T((0, 2))),
    ]


def parts_builder(op: dict) -> list:
    """complex / polar: two float parts of one dtype (broadcast), and the dtype errors."""
    dom = "positive" if op["name"] == "polar" else "default"
    return [
        C("f32", T((3, 4), dom=dom), T((3, 4)), out=True), C("f64", T((2, 3), "float64", dom), T((2, 3), "float64")),
        C("bcast", T((3, 1), dom=dom), T((4,)), out=True), C("0d", T((), dom=dom), T(())),
        C("empty", T((0, 2), dom=dom), T((0, 2))), C("mixed", T((2,), dom=dom), T((2,), "float64")),
        C("int", T((2,), "int64"), T((2,), "int64")), C("special", T((12,), "float64", "special"), T((12,), "float64")),
        C("bf16", T((2,), "bfloat16"), T((2,), "bfloat16")),
    ]


def conj_builder(op: dict) -> list:
    inplace = op["name"] == "conj_physical"
    return complex_inputs(m=True, ip=inplace, out=inplace) + real_inputs(m=True, ip=inplace, out=inplace)


def angle_builder(op: dict) -> list:
    return (complex_inputs(m=True, out=True) + real_inputs(m=True, out=True)
            + [C("float-special", T((12,), "float32", "special"), m=True)])


BUILDERS = {
    "view_as_real": view_as_real_builder, "view_as_complex": view_as_complex_builder,
    "real": view_as_real_builder, "imag": view_as_real_builder,
    "complex": parts_builder, "polar": parts_builder,
    "conj_physical": conj_builder, "conj": conj_builder, "resolve_conj": conj_builder, "resolve_neg": conj_builder,
    "is_conj": conj_builder, "is_neg": conj_builder, "angle": angle_builder,
}
