"""Parity inputs for the fused nn ops (ops/nn_norm.yaml); loaded by test_parity.py by path.

The generic forward test, the gradient parity test and gradcheck/gradgradcheck (float64)
all run on these cases. native_dropout's random masks are compared as meta (dtype/shape)
cases; p = 0 and p = 1 are deterministic and compared by value.
"""

from __future__ import annotations

from typing import Any

import parity_inputs as H

T, DT, Case = H.T, H.DT, H.Case


def C(id: str, *args: Any, m: bool = False, meta: bool = False, **kwargs: Any) -> Case:
    return Case(id, args, kwargs, method=m, inplace=False, out=False, meta=meta)


def I(*values: int, shape: tuple | None = None, dtype: str = "int64") -> T:  # noqa: E743
    return T(shape if shape is not None else (len(values),), dtype, values=tuple(values))


def softmax_builder(op: dict) -> list:
    return [
        C("last", T((3, 5)), 1, m=True),
        C("first", T((3, 5)), 0, m=True),
        C("middle", T((2, 3, 4)), 1, m=True),
        C("neg-dim", T((2, 3, 4)), -1),
        C("f64", T((4, 6), "float64"), 1),
        C("transposed", T((3, 4), view="t"), 1),
        C("permuted", T((2, 3, 4), view="permute"), 2),
        C("1d", T((7,)), 0),
        C("0d", T(()), 0),
        C("empty", T((0, 3)), 1),
        C("dtype", T((3, 4)), 1, dtype=DT("float64")),
        C("int-with-dtype", T((3, 4), "int64"), 1, dtype=DT("float32")),
        C("float16", T((3, 4), "float16"), 1),
        C("bfloat16", T((3, 4), "bfloat16"), 0),
        C("big-values", T((2, 4), values=(1000.0, 999.0, -1000.0, 0.0, 88.0, 89.0, 90.0, -3.0)), 1),
        C("neg-inf", T((2, 3), values=(float("-inf"), 0.0, 1.0, float("-inf"), float("-inf"), 2.0)), 1),
        C("int", T((3, 4), "int64"), 1),
        C("dim-out-of-range", T((3, 4)), 2),
    ]


def layer_norm_builder(op: dict) -> list:
    return [
        C("affine", T((4, 6)), [6], T((6,)), T((6,))),
        C("plain", T((3, 5)), [5]),
        C("weight-only", T((2, 3, 4)), [4], T((4,))),
        C("bias-only", T((2, 3, 4)), [4], None, T((4,))),
        C("two-dims", T((2, 3, 4)), [3, 4], T((3, 4)), T((3, 4)), 1e-3),
        C("f64", T((3, 8), "float64"), [8], T((8,), "float64"), T((8,), "float64")),
        # rows longer than one 256-element summation block, and a ragged last block
        C("long-rows", T((3, 700)), [700], T((700,)), T((700,))),
        C("many-rows", T((67, 33)), [33], T((33,)), T((33,))),
        C("transposed", T((4, 3), view="t"), [3], T((3,)), T((3,))),
        C("1d", T((5,)), [5], T((5,)), T((5,))),
        C("float16", T((2, 8), "float16"), [8]),
        C("empty-batch", T((0, 4)), [4], T((4,)), T((4,))),
        C("constant-rows", T((2, 3), values=(1.0,) * 6), [3], T((3,)), T((3,))),
        C("bad-shape", T((2, 3)), [4]),
        C("bad-weight", T((2, 3)), [3], T((4,))),
        C("int", T((2, 3), "int64"), [3]),
    ]


def batch_norm_builder(op: dict) -> list:
    f = (True, 0.1, 1e-5, False)
    e = (False, 0.1, 1e-5, False)
    return [
        C("train-2d", T((6, 3)), T((3,)), T((3,)), T((3,)), T((3,), dom="positive"), *f),
        C("train-4d", T((2, 3, 4, 5)), T((3,)), T((3,)), T((3,)), T((3,), dom="positive"), *f),
        C("train-3d-noaffine", T((4, 2, 5)), None, None, T((2,)), T((2,), dom="positive"), *f),
        C("train-no-running", T((4, 3)), T((3,)), T((3,)), None, None, *f),
        C("train-momentum", T((5, 2, 3)), T((2,)), T((2,)), T((2,)), T((2,), dom="positive"), True, 0.7, 1e-3,
          False),
        C("eval-2d", T((6, 3)), T((3,)), T((3,)), T((3,)), T((3,), dom="positive"), *e),
        C("eval-4d", T((2, 3, 2, 2)), T((3,)), T((3,)), T((3,)), T((3,), dom="positive"), *e),
        C("f64", T((4, 3, 2), "float64"), T((3,), "float64"), T((3,), "float64"), T((3,), "float64"),
          T((3,), "float64", dom="positive"), *f),
        C("permuted", T((2, 3, 4), view="permute"), T((3,)), T((3,)), T((3,)), T((3,), dom="positive"), *f),
        C("eval-no-running", T((4, 3)), None, None, None, None, *e),
        C("wrong-running-size", T((4, 3)), None, None, T((2,)), T((2,), dom="positive"), *f),
        C("1d", T((4,)), None, None, None, None, *f),
        C("int", T((4, 3), "int64"), None, None, None, None, *f),
    ]


def group_norm_builder(op: dict) -> list:
    return [
        C("affine", T((2, 4, 3)), 2, T((4,)), T((4,))),
        C("plain", T((3, 6, 2, 2)), 3),
        C("one-group", T((2, 4, 5)), 1, T((4,)), T((4,)), 1e-3),
        C("per-channel", T((2, 4, 3)), 4, T((4,))),
        C("2d", T((3, 4)), 2, T((4,)), T((4,))),
        C("f64", T((2, 6, 3), "float64"), 3, T((6,), "float64"), T((6,), "float64")),
        C("permuted", T((2, 4, 3), view="permute"), 2, T((3,)), T((3,))),
        C("indivisible", T((2, 3, 4)), 2),
        C("bad-weight", T((2, 4, 3)), 2, T((3,))),
        C("1d", T((4,)), 2),
    ]


def embedding_builder(op: dict) -> list:
    return [
        C("basic", T((5, 3)), I(0, 4, 2, 2)),
        C("2d-indices", T((6, 4)), I(1, 5, 0, 1, 3, 3, shape=(2, 3))),
        C("0d-index", T((4, 2)), T((), "int64", values=(3,))),
        C("padding", T((5, 3)), I(0, 2, 2, 4), 2),
        C("scale-freq", T((5, 3)), I(0, 2, 2, 4, 2), -1, True),
        C("padding-and-freq", T((5, 3)), I(1, 1, 3, 0), 1, True),
        C("int32", T((5, 3)), I(4, 1, dtype="int32")),
        C("f64", T((5, 3), "float64"), I(0, 1, 4)),
        C("transposed-weight", T((5, 3), view="t"), I(0, 2, 1)),
        C("empty", T((5, 3)), I()),
        C("out-of-range", T((5, 3)), I(5)),
        C("negative", T((5, 3)), I(-1)),
        C("float-indices", T((5, 3)), T((2,), "float32")),
        C("1d-weight", T((5,)), I(1)),
    ]


def native_dropout_builder(op: dict) -> list:
    return [
        C("p0", T((3, 4)), 0.0, True),
        C("p1", T((3, 4)), 1.0, True),
        C("eval", T((3, 4)), 0.5, False),
        C("train-none", T((3, 4)), 0.0, None),
        C("f64-p0", T((2, 5), "float64"), 0.0, True),
        C("random", T((8, 16)), 0.3, True, meta=True),
        C("random-f16", T((4, 4), "float16"), 0.5, True, meta=True),
        C("bad-p", T((3, 4)), 1.5, True),
        C("int", T((3, 4), "int64"), 0.5, True),
    ]


BUILDERS = {
    "softmax": softmax_builder,
    "log_softmax": softmax_builder,
    "layer_norm": layer_norm_builder,
    "batch_norm": batch_norm_builder,
    "group_norm": group_norm_builder,
    "embedding": embedding_builder,
    "native_dropout": native_dropout_builder,
}
