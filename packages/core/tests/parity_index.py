"""Parity inputs for the index ops (ops/index.yaml); loaded by test_parity.py by path."""

from __future__ import annotations

from typing import Any

import parity_inputs as H

T, DT, Case = H.T, H.DT, H.Case


def C(id: str, *args: Any, m: bool = True, ip: bool = True, out: bool = False, **kwargs: Any) -> Case:
    return Case(id, args, kwargs, method=m, inplace=ip, out=out)


def I(*values: int, shape: tuple | None = None, dtype: str = "int64") -> T:  # noqa: E743
    """An index tensor with fixed values (row-major), shaped ``shape`` or 1-D."""
    return T(shape if shape is not None else (len(values),), dtype, values=tuple(values))


def M(*bits: int, shape: tuple) -> T:
    return T(shape, "bool", values=tuple(bool(b) for b in bits))


def index_select_builder(op: dict) -> list:
    return [
        C("dim0", T((4, 3)), 0, I(3, 0, 3), out=True),
        C("dim1", T((4, 3)), 1, I(2, 1), out=True),
        C("neg-dim", T((2, 3, 4)), -1, I(0, 3, 3, 1)),
        C("int32-index", T((4, 3)), 0, I(1, 2, dtype="int32")),
        C("int64-input", T((4, 3), "int64"), 0, I(1, 1)),
        C("bool-input", T((4, 3), "bool"), 1, I(0, 2)),
        C("transposed", T((3, 4), view="t"), 1, I(2, 0)),
        C("0d-index", T((4, 3)), 0, T((), "int64", values=(2,))),
        C("0d-input", T(()), 0, I(0)),
        C("empty-index", T((4, 3)), 0, I()),
        C("out-of-range", T((4, 3)), 0, I(4)),
        C("negative-index", T((4, 3)), 0, I(-1)),
        C("float-index", T((4, 3)), 0, T((2,), "float32")),
        C("2d-index", T((4, 3)), 0, I(0, 1, shape=(1, 2))),
    ]


def gather_builder(op: dict) -> list:
    return [
        C("dim1", T((3, 4)), 1, I(0, 3, 1, 1, 2, 2, shape=(3, 2)), out=True),
        C("dim0", T((3, 4)), 0, I(2, 0, 1, 1, shape=(1, 4))),
        C("3d", T((2, 3, 4)), 2, I(*([3, 0] * 6), shape=(2, 3, 2))),
        C("smaller", T((3, 4)), 1, I(1, 2, shape=(2, 1))),
        C("int64", T((3, 4), "int64"), 1, I(0, 3, 1, 1, 2, 2, shape=(3, 2))),
        C("transposed", T((4, 3), view="t"), 0, I(1, 3, 0, 2, shape=(1, 4))),
        C("0d", T(()), 0, T((), "int64", values=(0,))),
        C("empty", T((3, 4)), 1, T((3, 0), "int64")),
        C("out-of-range", T((3, 4)), 1, I(4, shape=(1, 1))),
        C("negative", T((3, 4)), 1, I(-1, shape=(1, 1))),
        C("int32-index", T((3, 4)), 1, I(0, shape=(1, 1), dtype="int32")),
        C("too-big", T((3, 4)), 1, I(*([0] * 8), shape=(4, 2))),
        C("ndim-mismatch", T((3, 4)), 1, I(0, 1)),
    ]


def scatter_src_builder(op: dict) -> list:
    return [
        C("dim0", T((3, 4)), 0, I(2, 0, 1, 2, shape=(1, 4)), T((2, 4))),
        C("dim1", T((3, 4)), 1, I(3, 0, 1, 2, 2, 1, shape=(3, 2)), T((3, 2))),
        C("src-larger", T((3, 4)), 1, I(1, 2, shape=(2, 1)), T((3, 3))),
        C("int64", T((3, 4), "int64"), 1, I(0, 1, shape=(1, 2)), T((1, 2), "int64")),
        C("transposed-self", T((4, 3), view="t"), 0, I(1, 0, shape=(1, 2)), T((1, 2))),
        C("empty", T((3, 4)), 1, T((3, 0), "int64"), T((3, 0))),
        C("out-of-range", T((3, 4)), 0, I(3, shape=(1, 1)), T((1, 1))),
        C("dtype-mismatch", T((3, 4)), 0, I(0, shape=(1, 1)), T((1, 1), "float64")),
        C("index-too-big", T((3, 4)), 1, I(*([0] * 5), shape=(1, 5)), T((1, 5))),
    ]


def scatter_value_builder(op: dict) -> list:
    return [
        C("dim0", T((3, 4)), 0, I(2, 0, 1, 2, shape=(1, 4)), 1.5),
        C("dim1-int", T((3, 4), "int64"), 1, I(3, 0, shape=(1, 2)), 7),
        C("out-of-range", T((3, 4)), 1, I(4, shape=(1, 1)), 1.0),
    ]


def scatter_add_builder(op: dict) -> list:
    return [
        C("dup-dim0", T((3, 4)), 0, I(2, 0, 2, 2, 2, 0, 2, 2, shape=(2, 4)), T((2, 4))),
        C("dim1", T((3, 4)), 1, I(3, 3, 1, 2, 2, 1, shape=(3, 2)), T((3, 2))),
        C("int32", T((3, 4), "int32"), 1, I(0, 0, shape=(1, 2)), T((1, 2), "int32")),
        C("3d", T((2, 3, 4)), 1, I(*([2, 0, 2, 1] * 2), shape=(2, 1, 4)), T((2, 1, 4))),
        C("out-of-range", T((3, 4)), 0, I(-1, shape=(1, 1)), T((1, 1))),
    ]


def index_add_builder(op: dict) -> list:
    return [
        C("dup", T((4, 3)), 0, I(0, 2, 0), T((3, 3))),
        C("dim1-alpha", T((4, 3)), 1, I(2, 1), T((4, 2)), alpha=2.5),
        C("neg-index", T((4, 3)), 0, I(-1, 1), T((2, 3))),
        C("int", T((4, 3), "int64"), 0, I(1), T((1, 3), "int64"), alpha=3),
        C("transposed", T((3, 4), view="t"), 0, I(3, 0), T((2, 3))),
        C("0d", T(()), 0, I(0), T(())),
        C("out-of-range", T((4, 3)), 0, I(4), T((1, 3))),
        C("count-mismatch", T((4, 3)), 0, I(1, 2), T((1, 3))),
        C("dtype-mismatch", T((4, 3)), 0, I(1), T((1, 3), "float64")),
    ]


def index_copy_builder(op: dict) -> list:
    return [
        C("dim0", T((4, 3)), 0, I(3, 1), T((2, 3)), out=True),
        C("dim1", T((4, 3)), 1, I(2, 0), T((4, 2))),
        C("int", T((4, 3), "int32"), 0, I(0), T((1, 3), "int32"), out=True),
        C("out-of-range", T((4, 3)), 0, I(9), T((1, 3))),
    ]


def index_fill_builder(op: dict) -> list:
    tensor_value = op["overload"] == "int_Tensor"
    v = (lambda x: T((), "float32", values=(x,))) if tensor_value else (lambda x: x)
    cs = [
        C("dim0", T((4, 3)), 0, I(3, 1, 3), v(2.0)),
        # (a negative index with a tensor value breaks PyTorch's own backward: positive there)
        C("dim1", T((4, 3)), 1, I(2) if tensor_value else I(-1), v(-1.5)),
        C("transposed", T((3, 4), view="t"), 1, I(0, 2), v(0.5)),
        C("empty", T((4, 3)), 0, I(), v(1.0)),
        C("out-of-range", T((4, 3)), 0, I(4), v(1.0)),
    ]
    if not tensor_value:
        cs.append(C("int", T((4, 3), "int64"), 1, I(0), 5))
    else:
        cs.append(C("1d-value", T((4, 3)), 0, I(0), T((1,))))
    return cs


def masked_fill_builder(op: dict) -> list:
    tensor_value = op["overload"] == "Tensor"
    v = (lambda x: T((), "float32", values=(x,))) if tensor_value else (lambda x: x)
    cs = [
        C("same-shape", T((3, 4)), T((3, 4), "bool"), v(2.5)),
        C("broadcast-mask", T((3, 4)), T((4,), "bool"), v(-1.0)),
        C("transposed", T((3, 4), view="t"), T((3, 4), "bool"), v(0.5)),
        C("0d", T(()), T((), "bool", values=(True,)), v(3.0)),
        C("empty", T((0, 4)), T((0, 4), "bool"), v(1.0)),
        C("float-mask", T((3, 4)), T((3, 4)), v(1.0)),
        C("mask-too-big", T((4,)), T((3, 4), "bool"), v(1.0), ip=False),
    ]
    if not tensor_value:
        cs.append(C("int", T((3, 4), "int64"), T((3, 4), "bool"), 7))
        cs.append(C("bool", T((3, 4), "bool"), T((3, 4), "bool"), False))
    else:
        cs.append(C("1d-value", T((3, 4)), T((3, 4), "bool"), T((1,))))
    return cs


def masked_select_builder(op: dict) -> list:
    return [
        C("same-shape", T((3, 4)), T((3, 4), "bool"), out=True),
        C("broadcast", T((3, 4)), T((4,), "bool")),
        C("broadcast-input", T((4,)), T((3, 4), "bool")),
        C("int", T((3, 4), "int64"), T((3, 4), "bool")),
        C("transposed", T((3, 4), view="t"), T((3, 4), "bool")),
        C("0d", T(()), T((), "bool", values=(True,))),
        C("empty", T((0, 4)), T((0, 4), "bool")),
        C("float-mask", T((3, 4)), T((3, 4))),
    ]


def take_builder(op: dict) -> list:
    return [
        C("2d", T((3, 4)), I(0, 11, 5, 5), out=True),
        C("neg", T((3, 4)), I(-1, -12, shape=(2, 1))),
        C("transposed", T((3, 4), view="t"), I(1, 2, 3)),
        C("int", T((3, 4), "int32"), I(7), out=True),
        C("0d-index", T((3, 4)), T((), "int64", values=(3,))),
        C("out-of-range", T((3, 4)), I(12)),
        C("int32-index", T((3, 4)), I(1, dtype="int32")),
    ]


def nonzero_builder(op: dict) -> list:
    out = op["name"] == "nonzero"
    return [
        C("float", T((3, 4), values=tuple(float(i % 3 == 0) for i in range(12))), out=out),
        C("bool", T((3, 4), "bool")),
        C("int-3d", T((2, 3, 4), "int64")),
        C("transposed", T((3, 4), view="t")),
        C("1d", T((5,), "int32")),
        C("0d", T((), values=(2.0,))),
        C("0d-zero", T((), values=(0.0,))),
        C("empty", T((0, 3))),
    ]


SORTED = T((6,), "float32", values=(-2.0, -1.0, 0.0, 0.0, 1.5, 3.0))


def searchsorted_builder(op: dict) -> list:
    if op["overload"] == "Scalar":
        return [C("float", SORTED, 0.0, m=False), C("right", SORTED, 0.0, right=True, m=False),
                C("int", T((3,), "int64", values=(1, 3, 5)), 4, m=False),
                C("2d-seq", T((2, 3)), 1.0, m=False)]
    vals = T((2, 4), "float32", values=(-3.0, 0.0, 0.5, 3.0, 4.0, -1.0, 1.5, 0.0))
    rows = T((2, 3), "float32", values=(-1.0, 0.0, 2.0, 0.0, 1.0, 5.0))
    return [
        C("left", SORTED, vals, m=False, out=True),
        C("right", SORTED, vals, right=True, m=False),
        C("side-right", SORTED, vals, side="right", m=False),
        C("int32", SORTED, vals, out_int32=True, m=False),
        C("rows", rows, vals, m=False),
        C("int-values", SORTED, T((3,), "int64", values=(0, 1, 5)), m=False),
        C("sorter", T((4,), "float32", values=(3.0, 1.0, 2.0, 0.0)), T((3,), values=(0.5, 2.0, 9.0)),
          sorter=I(3, 1, 2, 0), m=False),
        C("empty-values", SORTED, T((0,)), m=False),
        C("side-conflict", SORTED, vals, side="left", right=True, m=False),
        C("bad-side", SORTED, vals, side="middle", m=False),
        C("rows-mismatch", rows, T((3, 4)), m=False),
        C("sorter-size", SORTED, vals, sorter=I(0, 1), m=False),
    ]


def bucketize_builder(op: dict) -> list:
    b = T((4,), "float32", values=(-1.0, 0.0, 0.0, 2.0))
    if op["overload"] == "Scalar":
        return [C("float", 0.0, b, m=False), C("right", 0.0, b, right=True, m=False),
                C("int", 4, T((3,), "int64", values=(1, 3, 5)), out_int32=True, m=False),
                C("2d-boundaries", 1.0, T((2, 2)), m=False)]
    return [
        C("left", T((3, 4)), b, m=False, out=True),
        C("right", T((3, 4)), b, right=True, m=False),
        C("int32", T((5,), "int64", values=(-2, 0, 1, 2, 3)), b, out_int32=True, m=False),
        C("0d", T((), values=(0.0,)), b, m=False),
        C("2d-boundaries", T((3,)), T((2, 2)), m=False),
    ]


def bincount_builder(op: dict) -> list:
    x = I(0, 2, 2, 5, 1)
    return [
        C("plain", x),
        C("minlength", x, minlength=9),
        C("weights-f32", x, T((5,), "float32")),
        C("weights-f64", x, T((5,), "float64")),
        C("weights-int", x, T((5,), "int64")),
        C("int32", I(1, 1, 3, dtype="int32")),
        C("empty", I()),
        C("negative", I(1, -1)),
        C("2d", I(1, 1, shape=(1, 2))),
        C("float", T((3,))),
        C("bad-minlength", x, minlength=-1),
        C("bad-weights", x, T((4,))),
    ]


def histc_builder(op: dict) -> list:
    return [
        C("default", T((3, 4)), out=True),
        C("bins", T((20,)), bins=5),
        C("range", T((20,)), bins=4, min=-1, max=1),
        C("float64", T((20,), "float64"), bins=7, min=-0.5, max=2),
        C("constant", T((4,), values=(1.0, 1.0, 1.0, 1.0)), bins=4),
        C("empty", T((0,)), bins=3),
        C("int", T((5,), "int64"), bins=3),
        C("bad-range", T((5,)), bins=3, min=2, max=1),
        C("zero-bins", T((5,)), bins=0),
    ]


def masked_scatter_builder(op: dict) -> list:
    mask = M(1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 0, 1, shape=(3, 4))
    return [
        C("same-shape", T((3, 4)), mask, T((3, 4))),
        C("more-source", T((3, 4)), mask, T((10,))),
        C("broadcast-mask", T((3, 4)), M(1, 0, 0, 1, shape=(4,)), T((2, 3))),
        C("int", T((3, 4), "int64"), mask, T((6,), "int64")),
        C("transposed", T((3, 4), view="t"), mask, T((3, 4))),
        C("broadcast-input", T((4,)), mask, T((3, 4)), ip=False),
        C("short-source", T((3, 4)), mask, T((5,))),
        C("float-mask", T((3, 4)), T((3, 4)), T((3, 4))),
        C("dtype-mismatch", T((3, 4)), mask, T((3, 4), "float64")),
    ]


def take_along_dim_builder(op: dict) -> list:
    return [
        C("dim1", T((3, 4)), I(0, 3, 3, 1, 2, 2, shape=(3, 2)), 1, out=True),
        C("dim0-broadcast", T((3, 4)), I(2, 0, shape=(2, 1)), 0),
        C("neg-dim", T((2, 3, 4)), I(1, 0, shape=(1, 1, 2)), -1),
        C("no-dim", T((3, 4)), I(11, 0, 5)),
        C("int", T((3, 4), "int64"), I(1, shape=(1, 1)), dim=1),
        C("int32-index", T((3, 4)), I(1, shape=(1, 1), dtype="int32"), 1),
        C("ndim-mismatch", T((3, 4)), I(1), 1),
        # (out-of-range indices are not checked by PyTorch's take_along_dim: no parity case)
    ]


def put_builder(op: dict) -> list:
    return [
        C("plain", T((3, 4)), I(0, 5, -1), T((3,))),
        C("accumulate-dup", T((3, 4)), I(1, 1, 7), T((3,)), accumulate=True),
        C("2d-source", T((3, 4)), I(0, 2, 4, 6, shape=(2, 2)), T((2, 2))),
        C("int", T((3, 4), "int64"), I(3), T((1,), "int64")),
        C("transposed", T((3, 4), view="t"), I(1, 2), T((2,))),
        C("out-of-range", T((3, 4)), I(12), T((1,))),
        C("count-mismatch", T((3, 4)), I(1, 2), T((1,))),
        C("dtype-mismatch", T((3, 4)), I(1), T((1,), "float64")),
    ]


def index_put_builder(op: dict) -> list:
    return [
        C("one-index", T((4, 3)), (I(0, 2),), T((2, 3))),
        C("two-indices", T((4, 3)), (I(0, 3, 1), I(2, 0, 0)), T((3,))),
        C("accumulate-dup", T((4, 3)), (I(1, 1, 3),), T((3, 3)), True),
        C("accumulate-kw", T((4, 3)), [I(2, 2)], T((1, 3)), accumulate=True),
        C("mask", T((4, 3)), (M(1, 0, 1, 1, shape=(4,)),), T(())),
        C("broadcast-value", T((2, 3, 4)), (I(1), I(0, 2)), T((4,))),
        C("int", T((4, 3), "int64"), (I(3),), T((3,), "int64")),
        C("transposed", T((3, 4), view="t"), (I(1, 2),), T((2, 3))),
        C("out-of-range", T((4, 3)), (I(4),), T((3,))),
        C("shape-mismatch", T((4, 3)), (I(0, 1),), T((3, 3))),
        C("dtype-mismatch", T((4, 3)), (I(1),), T((3,), "float64")),
        C("bad-indices", T((4, 3)), 5, T((3,))),
    ]


def unique_builder(op: dict) -> list:
    """torch._VF's unique ops (ember.unique calls them), every output compared."""
    name = op["name"]
    dup = T((3, 2), values=(3.0, 1.0, 3.0, 1.0, 0.0, 2.0))
    ints = I(2, 2, 1, 3, 1, 1, shape=(6,))
    lead = (0,) if name == "unique_dim" else ()
    cases = [C("float", dup, *lead, m=False, ip=False), C("int", ints, *lead, m=False, ip=False)]
    flags = ("return_inverse", "return_counts")
    for i, flag in enumerate(flags):
        cases.append(C(flag, dup, *lead, m=False, ip=False, **{flag: True}))
        cases.append(C(f"int-{flag}", ints, *lead, m=False, ip=False, **{flags[1 - i]: True, flag: True}))
    if name == "unique_consecutive":
        cases += [C("dim0", dup, m=False, ip=False, dim=0), C("dim-neg", dup, m=False, ip=False, dim=-1)]
    if name == "unique_dim":
        cases += [C("dim1", dup, 1, m=False, ip=False), C("dim-range", dup, 2, m=False, ip=False)]
    return cases + [C("empty", T((0,)), *lead, m=False, ip=False), C("bad-flag", dup, *lead, 1, m=False, ip=False)]


def scatter_reduce_builder(op: dict) -> list:
    idx = I(2, 0, 1, 2, 0, 0, 2, 2, shape=(2, 4))
    cases = [C(f"{red}-{'self' if inc else 'noself'}", T((3, 4)), 0, idx, T((2, 4)), red, include_self=inc)
             for red in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)]
    zeros = T((2, 4), values=(0.0, 1.5, 0.0, -2.0, 0.0, 0.0, 3.0, 0.5))
    return cases + [
        C("prod-zeros", T((3, 4)), 0, idx, zeros, "prod"),
        C("dim1", T((3, 4)), 1, I(3, 0, 3, 1, 1, 1, shape=(3, 2)), T((3, 2)), "amax"),
        C("mean-int-floor", T((3, 4), "int64"), 0, idx, T((2, 4), "int64"), "mean"),
        C("amin-int-noself", T((3, 4), "int32"), 0, idx, T((2, 4), "int32"), "amin", include_self=False),
        C("max-spelling", T((3, 4)), 0, idx, T((2, 4)), "max"),
        C("bad-reduce", T((3, 4)), 0, idx, T((2, 4)), "maximum"),
        C("out-of-range", T((3, 4)), 0, I(3, shape=(1, 1)), T((1, 1)), "sum"),
        C("dtype-mismatch", T((3, 4)), 0, I(0, shape=(1, 1)), T((1, 1), "float64"), "sum"),
    ]


def scatter_legacy_reduce_builder(op: dict) -> list:
    idx = I(2, 0, 1, 2, 0, 0, 2, 2, shape=(2, 4))
    src = T((2, 4)) if op["overload"] == "reduce" else 1.5
    return [
        C("add", T((3, 4)), 0, idx, src, reduce="add"),
        C("multiply", T((3, 4)), 0, idx, src, reduce="multiply"),
        C("bad-reduce", T((3, 4)), 0, idx, src, reduce="sum"),
    ]


BUILDERS = {
    "index_select": index_select_builder,
    "scatter_reduce.two": scatter_reduce_builder,
    "scatter.reduce": scatter_legacy_reduce_builder,
    "scatter.value_reduce": scatter_legacy_reduce_builder,
    "gather": gather_builder,
    "scatter.src": scatter_src_builder,
    "scatter.value": scatter_value_builder,
    "scatter_add": scatter_add_builder,
    "index_add": index_add_builder,
    "index_copy": index_copy_builder,
    "index_fill.int_Scalar": index_fill_builder,
    "index_fill.int_Tensor": index_fill_builder,
    "masked_fill.Scalar": masked_fill_builder,
    "masked_fill.Tensor": masked_fill_builder,
    "masked_select": masked_select_builder,
    "take": take_builder,
    "nonzero": nonzero_builder,
    "argwhere": nonzero_builder,
    "searchsorted.Tensor": searchsorted_builder,
    "searchsorted.Scalar": searchsorted_builder,
    "bucketize.Tensor": bucketize_builder,
    "bucketize.Scalar": bucketize_builder,
    "bincount": bincount_builder,
    "histc": histc_builder,
    "masked_scatter": masked_scatter_builder,
    "take_along_dim": take_along_dim_builder,
    "put": put_builder,
    "index_put": index_put_builder,
    "_unique2": unique_builder,
    "unique_dim": unique_builder,
    "unique_consecutive": unique_builder,
}
