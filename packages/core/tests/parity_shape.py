"""Parity inputs for the shape area (ops/shape.yaml): joins, splits, views, reorderings and
sorting. Loaded by test_parity.py (BUILDERS) and so also used by test_grad_parity.py."""

from __future__ import annotations

import math
from typing import Any

import parity_inputs as H

T, DT, Case = H.T, H.DT, H.Case
NAN, INF = math.nan, math.inf

# Ops returning views of their input: strides, offset and storage sharing are compared too.
VIEW_OPS = {"narrow", "select", "unfold", "as_strided", "diagonal", "movedim", "unflatten",
            "atleast_1d", "atleast_2d", "atleast_3d"}


def C(id: str, *args: Any, m: bool = False, ip: bool = False, out: bool = False, **kwargs: Any) -> Case:
    return Case(id, args, kwargs, method=m, inplace=ip, out=out)


LAYOUTS = [("t", (3, 4)), ("slice2", (3, 4)), ("expand", (3, 4)), ("offset", (3, 4))]


def layouts(*rest: Any, **kw: Any) -> list:
    return [C(v, T(s, view=v), *rest, **kw) for v, s in LAYOUTS]


# ---- joins -----------------------------------------------------------------------------------

def cat_builder(op: dict) -> list:
    a, b = T((2, 3)), T((4, 3))
    return [
        C("dim0", [a, b], 0, out=True), C("dim1", [T((2, 3)), T((2, 5))], 1, out=True),
        C("neg-dim", [T((2, 3)), T((2, 2))], -1), C("three", [a, T((1, 3)), b]),
        C("tuple", (a, b)), C("single", [a]), C("3d-mid", [T((2, 3, 4)), T((2, 1, 4))], 1),
        C("promote", [T((2, 3), "int64"), T((1, 3), "float32")], out=True),
        C("int", [T((2, 3), "int64"), T((2, 3), "int64")], 1), C("bool", [T((2, 3), "bool"), T((1, 3), "bool")]),
        C("half", [T((2, 3), "float16"), T((2, 3), "bfloat16")]),
        C("views", [T((3, 4), view="t"), T((3, 4), view="slice2"), T((3, 4), view="expand")], 0),
        C("views-dim1", [T((3, 4), view="t"), T((3, 4), view="offset")], 1),
        C("legacy-empty", [T((0,)), a, T((0,))]), C("all-empty", [T((0,)), T((0,))]),
        C("empty-rows", [T((0, 3)), a]), C("f64", [T((2, 3), "float64"), T((2, 3), "float64")]),
        C("mismatch", [a, T((2, 4))]), C("ndim-mismatch", [a, T((2, 3, 1))]), C("0d", [T(()), T(())]),
        C("empty-list", []), C("dim-oor", [a, b], 2),
    ]


def stack_builder(op: dict) -> list:
    a, b = T((2, 3)), T((2, 3))
    return [C("dim0", [a, b], out=True), C("dim1", [a, b], 1, out=True), C("dim2", [a, b], 2),
            C("neg", [a, b, T((2, 3))], -1), C("0d", [T(()), T(())]), C("single", [a]),
            C("views", [T((3, 4), view="t"), T((3, 4), view="slice2")], 1),
            C("promote", [T((2, 3), "int64"), T((2, 3), "float32")]),
            C("int", [T((2, 3), "int32"), T((2, 3), "int32")]),
            C("mismatch", [a, T((3, 2))]), C("empty-list", []), C("dim-oor", [a, b], 3)]


def hvdstack_builder(op: dict) -> list:
    return [C("1d", [T((3,)), T((2,))], out=True), C("1d-same", [T((3,)), T((3,))]),
            C("2d", [T((2, 3)), T((2, 3))], out=True), C("2d-rows", [T((2, 3)), T((1, 3))]),
            C("2d-cols", [T((2, 3)), T((2, 1))]), C("3d", [T((2, 3, 4)), T((2, 3, 4))]),
            C("0d", [T(()), T(())]), C("mixed", [T((3,)), T((1, 3))]), C("views", [T((3, 4), view="t"), T((3, 4))]),
            C("promote", [T((2, 3), "int64"), T((2, 3), "float32")]), C("empty-list", [])]


# ---- splits -----------------------------------------------------------------------------------

def split_int_builder(op: dict) -> list:
    x = T((5, 4))
    return [C("2", x, 2, m=True), C("dim1", x, 3, 1, m=True), C("neg-dim", x, 2, -1), C("big", x, 10),
            C("exact", x, 1), C("0", T((0, 3)), 0), C("0-bad", x, 0), C("neg", x, -1),
            C("views", T((3, 4), view="t"), 2, 1), C("offset", T((3, 4), view="offset"), 1),
            C("int", T((5, 4), "int64"), 2), C("0d", T(()), 1), C("dim-oor", x, 2, 2)]


def split_sizes_builder(op: dict) -> list:
    x = T((5, 4))
    return [C("sizes", x, [2, 3], m=True), C("dim1", x, [1, 0, 3], 1, m=True), C("tuple", x, (4, 1)),
            C("single", x, [5]), C("bad-sum", x, [2, 2]), C("negative", x, [-1, 6]),
            C("views", T((3, 4), view="t"), [1, 3], 1), C("int", T((5, 4), "int64"), [1, 4])]


def chunk_builder(op: dict) -> list:
    x = T((5, 4))
    return [C("2", x, 2, m=True), C("3-dim1", x, 3, 1, m=True), C("more", x, 7), C("1", x, 1),
            C("exact", T((6,)), 3), C("empty", T((0,)), 3), C("0", x, 0), C("neg", x, -2),
            C("views", T((3, 4), view="t"), 2, 1), C("0d", T(()), 2), C("int", T((5,), "int64"), 2)]


def tensor_split_sections_builder(op: dict) -> list:
    x = T((7, 4))
    return [C("3", x, 3, m=True), C("dim1", x, 3, 1, m=True), C("more", T((2, 3)), 5), C("1", x, 1),
            C("0", x, 0), C("views", T((3, 4), view="t"), 2, 1), C("0d", T(()), 2)]


def tensor_split_indices_builder(op: dict) -> list:
    x = T((7, 4))
    return [C("idx", x, [1, 4], m=True), C("dim1", x, [1, 3], 1), C("unsorted", x, [4, 2]),
            C("neg", x, [-2]), C("oor", x, [2, 10]), C("empty", x, []), C("views", T((3, 4), view="t"), [2], 1)]


def unbind_builder(op: dict) -> list:
    return [C("dim0", T((3, 4)), m=True), C("dim1", T((3, 4)), 1, m=True), C("neg", T((2, 3, 4)), -1),
            C("1d", T((4,))), C("empty", T((0, 3))), C("views", T((3, 4), view="t"), 1),
            C("int", T((2, 3), "int64")), C("0d", T(())), C("dim-oor", T((3, 4)), 2)]


def meshgrid_builder(op: dict) -> list:
    a, b, c = T((3,)), T((4,)), T((2,))
    return [C("ij", [a, b], indexing="ij"), C("xy", [a, b], indexing="xy"), C("three-xy", [a, b, c], indexing="xy"),
            C("three-ij", (a, b, c), indexing="ij"), C("varargs", a, b, indexing="ij"), C("one", [a], indexing="xy"),
            C("0d", [T(()), b], indexing="ij"), C("2d", [T((2, 2)), b], indexing="ij"),
            C("int", [T((3,), "int64"), T((2,), "int64")], indexing="xy"), C("bad-mode", [a, b], indexing="zz")]


def broadcast_tensors_builder(op: dict) -> list:
    return [C("pair", T((3, 1)), T((1, 4))), C("three", T((3, 1)), T((4,)), T(())), C("one", T((2, 3))),
            C("same", T((2, 3)), T((2, 3))), C("bad", T((3,)), T((4,))), C("views", T((3, 4), view="t"), T((4,))),
            C("int", T((3, 1), "int64"), T((2,), "int64"))]


def atleast_builder(op: dict) -> list:
    return [C("0d", T(())), C("1d", T((3,))), C("2d", T((2, 3))), C("3d", T((2, 3, 4))),
            C("t", T((3, 4), view="t")), C("int", T((), "int64"))]


def atleast_list_builder(op: dict) -> list:
    return [C("list", [T(()), T((3,)), T((2, 3))]), C("tuple", (T((3,)), T((2, 3, 4)))),
            C("varargs", T(()), T((2,))), C("empty", [])]


# ---- views -----------------------------------------------------------------------------------

def narrow_builder(op: dict) -> list:
    x = T((5, 4))
    return [C("0", x, 0, 1, 3, m=True), C("dim1", x, 1, 2, 2, m=True), C("neg-start", x, 0, -2, 2),
            C("neg-dim", x, -1, 0, 4), C("zero-len", x, 0, 5, 0), C("too-long", x, 0, 3, 3),
            C("start-oor", x, 0, 6, 0), C("neg-len", x, 0, 0, -1), C("0d", T(()), 0, 0, 1),
            *layouts(1, 1, 2), C("int", T((5, 4), "int64"), 0, 1, 2)]


def select_builder(op: dict) -> list:
    x = T((3, 4))
    return [C("0", x, 0, 1, m=True), C("dim1", x, 1, 3, m=True), C("neg", x, 0, -1), C("neg-dim", x, -1, 0),
            C("oor", x, 0, 3), C("oor-neg", x, 1, -5), C("0d", T(()), 0, 0), C("1d", T((4,)), 0, 2),
            *layouts(1, 2), C("3d", T((2, 3, 4)), 1, 1), C("int", T((3, 4), "int64"), 1, 0)]


def unfold_builder(op: dict) -> list:
    return [C("basic", T((7,)), 0, 2, 1, m=True), C("step2", T((7,)), 0, 3, 2, m=True),
            C("2d", T((4, 6)), 1, 2, 2, m=True), C("dim0", T((5, 3)), 0, 2, 3, m=True),
            C("whole", T((4,)), 0, 4, 1, m=True), C("too-big", T((4,)), 0, 5, 1, m=True),
            C("0d", T(()), 0, 1, 1, m=True), C("step0", T((4,)), 0, 2, 0, m=True),
            C("t", T((3, 4), view="t"), 1, 2, 1, m=True), C("neg-dim", T((3, 4)), -1, 2, 2, m=True)]


def as_strided_builder(op: dict) -> list:
    x = T((4, 5))
    return [C("transpose", x, (5, 4), (1, 5), m=True), C("window", x, (3, 3), (5, 1), 1, m=True),
            C("overlap", T((10,)), (4, 3), (2, 1)), C("offset", x, (2, 2), (5, 1), 6),
            C("oob", x, (5, 5), (5, 1)), C("mismatch", x, (2, 2), (1,)),
            C("slice2", T((3, 4), view="slice2"), (2, 2), (4, 1)),
            C("int", T((4, 5), "int64"), (5,), (4,))]


def diagonal_builder(op: dict) -> list:
    x = T((3, 4))
    return [C("main", x, m=True), C("off1", x, 1, m=True), C("off-neg", x, -1), C("off-big", x, 5),
            C("3d", T((2, 3, 4)), 0, 1, 2), C("3d-rev", T((2, 3, 4)), 1, 2, 0), C("3d-neg", T((2, 3, 4)), -1, -1, 0),
            C("same-dims", x, 0, 0, 0), C("1d", T((3,))), *layouts(), C("int", T((3, 3), "int64"))]


def movedim_list_builder(op: dict) -> list:
    x = T((2, 3, 4))
    return [C("one", x, [0], [2], m=True), C("two", x, (0, 1), (2, 0), m=True), C("neg", x, [-1], [0]),
            C("len-mismatch", x, [0, 1], [0]), C("repeat", x, [0, 0], [1, 2]), C("oor", x, [3], [0]),
            C("0d", T(()), [0], [0]), C("permute-view", T((2, 3, 4), view="permute"), [0], [1])]


def movedim_int_builder(op: dict) -> list:
    x = T((2, 3, 4))
    return [C("0-2", x, 0, 2, m=True), C("neg", x, -1, 0, m=True), C("same", x, 1, 1), C("oor", x, 3, 0),
            C("0d", T(()), 0, -1), C("t", T((3, 4), view="t"), 0, 1)]


def unflatten_builder(op: dict) -> list:
    x = T((6, 4))
    return [C("dim0", x, 0, (2, 3), m=True), C("dim1", x, 1, [2, 2], m=True), C("infer", x, 0, (-1, 2)),
            C("neg-dim", x, -1, (4, 1)), C("bad", x, 0, (4, 2)), C("0d", T(()), 0, (1,)),
            C("t", T((3, 4), view="t"), 0, (3, 1)), C("offset", T((3, 4), view="offset"), 1, (2, 2))]


# ---- reorderings -------------------------------------------------------------------------------

def flip_builder(op: dict) -> list:
    x = T((3, 4))
    return [C("0", x, [0], m=True), C("both", x, (0, 1), m=True), C("neg", T((2, 3, 4)), [-1, 0]),
            C("none", x, []), C("dup", x, [0, 0]), C("oor", x, [2]), C("0d", T(()), [0]),
            *layouts([1]), C("int", T((3, 4), "int64"), [1]), C("bool", T((3, 4), "bool"), [0]),
            C("empty", T((0, 3)), [0, 1]), C("half", T((3, 4), "float16"), [1])]


def fliplr_builder(op: dict) -> list:
    return [C("2d", T((3, 4)), m=True), C("3d", T((2, 3, 4))), C("1d", T((3,))), *layouts(),
            C("int", T((3, 4), "int64"))]


def flipud_builder(op: dict) -> list:
    return [C("2d", T((3, 4)), m=True), C("1d", T((3,))), C("0d", T(())), *layouts(), C("int", T((3, 4), "int64"))]


def roll_builder(op: dict) -> list:
    x = T((3, 4))
    return [C("flat", x, 2, m=True), C("flat-neg", x, -5, m=True), C("dim", x, 1, 1), C("dims", x, (1, -2), (0, 1)),
            C("big", x, 10, 0), C("mismatch", x, (1, 2), (0,)), C("0d", T(()), 1), C("empty", T((0, 3)), 1, 0),
            *layouts(1, 1), C("int", T((3, 4), "int64"), 2, 0), C("none", x, ())]


def rot90_builder(op: dict) -> list:
    x = T((3, 4))
    return [C("k1", x, m=True), C("k2", x, 2, m=True), C("k3", x, 3), C("k-1", x, -1), C("k4", x, 4), C("k0", x, 0),
            C("dims", T((2, 3, 4)), 1, [2, 0]), C("bad-dims", x, 1, [0]), C("same-dims", x, 1, [1, 1]),
            C("1d", T((3,))), *layouts(1), C("int", T((3, 4), "int64"), 1)]


def repeat_builder(op: dict) -> list:
    x = T((2, 3))
    return [C("varargs", x, 2, 2, m=True), C("tuple", x, (1, 3), m=True), C("more", x, [2, 1, 2], m=True),
            C("fewer", x, (2,), m=True), C("zero", x, 0, 2, m=True), C("0d", T(()), 3, m=True),
            C("t", T((3, 4), view="t"), 2, 1, m=True), C("expand", T((3, 4), view="expand"), 1, 2, m=True),
            C("int", T((2, 3), "int64"), 2, 1, m=True), C("neg", x, -1, 1, m=True)]


def tile_builder(op: dict) -> list:
    x = T((2, 3))
    return [C("same", x, (2, 2), m=True), C("short", x, (3,), m=True), C("long", x, (2, 1, 2)), C("empty", x, ()),
            C("zero", x, (0, 1)), C("0d", T(()), (2,)), *layouts((2, 1)), C("int", T((2, 3), "int64"), (1, 2))]


def repeat_interleave_int_builder(op: dict) -> list:
    x = T((2, 3))
    return [C("flat", x, 2, m=True), C("dim0", x, 3, 0, m=True), C("dim1", x, 2, 1), C("neg-dim", x, 2, -1),
            C("zero", x, 0, 1), C("neg", x, -1), C("0d", T(()), 3), C("t", T((3, 4), view="t"), 2, 1),
            C("output-size", x, 2, 0, output_size=4), C("int", T((2, 3), "int64"), 2, 0)]


def repeat_interleave_tensor_builder(op: dict) -> list:
    x = T((3, 2))
    rep = T((3,), "int64", values=(1, 0, 2))
    return [C("dim0", x, rep, 0, m=True), C("flat", T((3,)), rep, m=True),
            C("scalar", x, T((), "int64", values=(2,)), 1), C("one", x, T((1,), "int64", values=(2,)), 1),
            C("bad-len", x, T((2,), "int64", values=(1, 1)), 0), C("neg", T((3,)), T((3,), "int64", values=(1, -1, 1))),
            C("float-rep", x, T((3,), "float32"), 0),
            C("t", T((3, 4), view="t"), T((4,), "int64", values=(1, 2, 0, 1)), 0)]


def repeat_interleave_repeats_builder(op: dict) -> list:
    rep = T((4,), "int64", values=(2, 0, 1, 3))
    return [C("long", rep), C("int", T((3,), "int32", values=(1, 2, 0))), C("output-size", rep, output_size=6),
            C("bad-size", rep, output_size=5), C("2d", T((2, 2), "int64", values=(1, 1, 1, 1))),
            C("0d", T((), "int64", values=(2,))), C("float", T((3,), "float32")), C("empty", T((0,), "int64")),
            C("neg", T((3,), "int64", values=(1, -1, 1)))]


def tri_builder(op: dict) -> list:
    x = T((4, 5))
    return [C("0", x, m=True, ip=True, out=True), C("1", x, 1, m=True, ip=True, out=True), C("-1", x, -1, ip=True),
            C("big", x, 10), C("-big", x, -10), C("3d", T((2, 3, 4)), 0, ip=True), C("1d", T((3,))),
            C("empty", T((0, 3))), *layouts(1), C("int", T((3, 4), "int64"), ip=True), C("bool", T((3, 4), "bool")),
            C("half", T((3, 4), "float16"), -1)]


def diag_builder(op: dict) -> list:
    return [C("1d", T((3,)), m=True, out=True), C("1d-off", T((3,)), 1, m=True), C("1d-neg", T((3,)), -2, out=True),
            C("2d", T((3, 4)), m=True, out=True), C("2d-off", T((3, 4)), 2), C("2d-neg", T((3, 4)), -1),
            C("2d-big", T((3, 4)), 6), C("0d", T(())), C("3d", T((2, 2, 2))), C("t", T((3, 4), view="t"), 1),
            C("int", T((3,), "int64")), C("empty", T((0,)))]


def diag_embed_builder(op: dict) -> list:
    return [C("1d", T((3,)), m=True), C("2d", T((2, 3)), m=True), C("off", T((2, 3)), 1), C("neg", T((2, 3)), -2),
            C("dims", T((2, 3)), 0, 0, 2), C("dims-rev", T((2, 3)), 1, 2, 0), C("same", T((2, 3)), 0, 1, 1),
            C("0d", T(())), C("t", T((3, 4), view="t")), C("int", T((3,), "int64"))]


# ---- sorting -----------------------------------------------------------------------------------

NAN_VALS = T((2, 5), values=(3.0, NAN, 1.0, -INF, 2.0, NAN, 0.5, INF, -1.0, 0.0))


def sort_builder(op: dict) -> list:
    x = T((4, 5))
    cs = [C("default", x, m=True, out=True), C("dim0", x, 0, m=True), C("desc", x, -1, True, out=True),
          C("desc-dim0", x, 0, True), C("nan", NAN_VALS), C("nan-desc", NAN_VALS, 1, True), C("1d", T((7,))),
          C("0d", T(())), C("empty", T((0, 3))), C("dim-oor", x, 2), C("3d", T((2, 3, 4)), 1),
          *layouts(0), C("int", T((4, 5), "int64"), 1), C("int32-desc", T((4, 5), "int32"), 0, True),
          C("bool", T((3, 4), "bool")), C("half", T((3, 4), "float16"), 1), C("f64", T((3, 4), "float64"))]
    if op["overload"] == "stable":  # stable is keyword-only there
        cs = [Case(c.id, c.args[:1], {"stable": True, **({"dim": c.args[1]} if len(c.args) > 1 else {}),
                                      **({"descending": c.args[2]} if len(c.args) > 2 else {})},
                   method=c.method, out=c.out) for c in cs]
        ties = T((2, 6), values=(1.0, 2.0, 1.0, 2.0, 1.0, 0.0) * 2)
        cs.append(Case("ties", (ties,), {"stable": True}, method=True))
        cs.append(Case("ties-desc", (ties,), {"stable": True, "descending": True}))
    return cs


def msort_builder(op: dict) -> list:
    return [C("2d", T((4, 5)), m=True, out=True), C("1d", T((6,))), C("nan", NAN_VALS), C("0d", T(())),
            C("t", T((3, 4), view="t")), C("int", T((4, 3), "int64"), out=True)]


def topk_builder(op: dict) -> list:
    x = T((4, 6))
    return [C("k2", x, 2, m=True, out=True), C("k1-dim0", x, 1, 0, m=True), C("smallest", x, 3, -1, False, out=True),
            C("all", x, 6), C("k0", x, 0), C("too-big", x, 7), C("neg-k", x, -1), C("nan", NAN_VALS, 2),
            C("nan-smallest", NAN_VALS, 2, 1, False), C("1d", T((50,)), 5), C("0d", T(()), 1),
            *layouts(2, 0), C("int", T((4, 6), "int64"), 2), C("half", T((4, 6), "float16"), 3),
            C("empty-rows", T((0, 4)), 2)]


def kthvalue_builder(op: dict) -> list:
    x = T((4, 5))
    return [C("k2", x, 2, m=True, out=True), C("k1-dim0", x, 1, 0, m=True), C("keepdim", x, 3, 1, True, out=True),
            C("k-last", x, 5), C("k0", x, 0), C("too-big", x, 6), C("nan", NAN_VALS, 4), C("0d", T(()), 1),
            *layouts(2, 0), C("int", T((4, 5), "int64"), 2), C("3d", T((2, 3, 4)), 2, 1)]


def median_builder(op: dict) -> list:
    return [C("2d", T((4, 5)), m=True), C("even", T((6,))), C("odd", T((7,))), C("nan", NAN_VALS), C("0d", T(())),
            C("empty", T((0,))), C("t", T((3, 4), view="t")), C("int", T((4, 5), "int64")),
            C("half", T((3, 3), "float16"))]


def median_dim_builder(op: dict) -> list:
    x = T((4, 5))
    return [C("dim1", x, 1, m=True, out=True), C("dim0", x, 0, m=True), C("keepdim", x, 1, True, out=True),
            C("even", T((3, 6)), 1), C("nan", NAN_VALS, 1), C("all-nan", T((2, 2), values=(NAN,) * 4), 1),
            C("0d", T(()), 0), C("empty-dim", T((0, 3)), 0), C("empty-other", T((0, 3)), 1),
            # No stride-0 (expand) input: PyTorch's median.dim reads the wrong elements there.
            *[c for c in layouts(0) if c.id != "expand"], C("int", T((4, 5), "int64"), 1), C("dim-oor", x, 2)]


def mode_builder(op: dict) -> list:
    rep = T((2, 6), values=(1.0, 2.0, 2.0, 1.0, 3.0, 2.0, 5.0, 5.0, 2.0, 2.0, 2.0, 5.0))
    ints = T((3, 4), "int64", "small")
    return [C("default", rep, m=True, out=True), C("dim0", rep, 0, m=True), C("keepdim", rep, 1, True, out=True),
            C("ints", ints), C("ints-dim0", ints, 0), C("distinct", T((3, 4))), C("nan", NAN_VALS),
            C("0d", T(())), C("empty", T((0, 3)), 1), C("empty-dim", T((0, 3)), 0), C("t", T((3, 4), view="t"), 0),
            C("bool", T((3, 4), "bool"), 1)]


def unsafe_view_builder(op: dict) -> list:
    # aten's _unsafe_view: view()'s size rules (an inferred -1, a non-viewable layout refused)
    return [C("contiguous", T((3, 4)), [4, 3]), C("infer", T((2, 3, 4)), [-1, 4]), C("0d", T(()), [1]),
            C("empty", T((0, 3)), [3, 0]), C("t", T((3, 4), view="t"), [12]), C("expand", T((3, 4), view="expand"), [4, 3]),
            C("bad-numel", T((3, 4)), [5])]


def _unsafe_view_ref(self: Any, size: Any) -> Any:
    return H.torch.ops.aten._unsafe_view(self, size)


TORCH_REFERENCES = {"_unsafe_view": _unsafe_view_ref}  # aten's op, private in both libraries

BUILDERS = {
    "_unsafe_view": unsafe_view_builder, "cat": cat_builder, "stack": stack_builder, "hstack": hvdstack_builder, "vstack": hvdstack_builder,
    "dstack": hvdstack_builder, "split.Tensor": split_int_builder, "split.sizes": split_sizes_builder,
    "split_with_sizes": split_sizes_builder, "chunk": chunk_builder,
    "tensor_split.sections": tensor_split_sections_builder, "tensor_split.indices": tensor_split_indices_builder,
    "unbind.int": unbind_builder, "meshgrid": meshgrid_builder, "broadcast_tensors": broadcast_tensors_builder,
    "atleast_1d": atleast_builder, "atleast_2d": atleast_builder, "atleast_3d": atleast_builder,
    "atleast_1d.Sequence": atleast_list_builder, "atleast_2d.Sequence": atleast_list_builder,
    "atleast_3d.Sequence": atleast_list_builder, "narrow": narrow_builder, "select.int": select_builder,
    "unfold": unfold_builder, "as_strided": as_strided_builder, "diagonal": diagonal_builder,
    "movedim.intlist": movedim_list_builder, "movedim.int": movedim_int_builder, "unflatten": unflatten_builder,
    "flip": flip_builder, "fliplr": fliplr_builder, "flipud": flipud_builder, "roll": roll_builder,
    "rot90": rot90_builder, "repeat": repeat_builder, "tile": tile_builder,
    "repeat_interleave.self_int": repeat_interleave_int_builder,
    "repeat_interleave.self_Tensor": repeat_interleave_tensor_builder,
    "repeat_interleave.Tensor": repeat_interleave_repeats_builder, "tril": tri_builder, "triu": tri_builder,
    "diag": diag_builder, "diag_embed": diag_embed_builder, "sort": sort_builder, "sort.stable": sort_builder,
    "argsort": sort_builder, "argsort.stable": sort_builder, "msort": msort_builder, "topk": topk_builder,
    "kthvalue": kthvalue_builder, "median": median_builder, "median.dim": median_dim_builder,
    "nanmedian": median_builder, "nanmedian.dim": median_dim_builder, "mode": mode_builder,
}
