"""Generic parity: every op declared in ops.yaml (``ember._op_list.OPS``) against PyTorch.

For each op the generator below derives cases from its schema and family (pointwise arity,
``wrap``, reduction ``dim`` / ``keepdim`` / ``dtype`` parameters, ...) plus a few op-specific
extras (value domains, rounding modes, shapes that linear algebra needs).  Each case runs as
one test per variant the op declares -- function, method, in-place (``x.name_``) and ``out=``
(several kinds of preallocated output) -- and:

* runs PyTorch first; if PyTorch raises, ember must raise the same exception type;
* otherwise compares dtype, shape and values (per-dtype tolerance, NaN positions equal);
* checks in-place / out= return the very object written to (as PyTorch does);
* re-compares every tensor argument after the call (catches wrong / missing writes);
* for view and layout ops also compares strides, storage offset and storage sharing.

Tolerances (parity_inputs.TOLS): float32 rtol 1.3e-6 / atol 1e-5, float16 rtol 1e-3,
bfloat16 rtol 1.6e-2, float64 1e-7, ints and bool exact -- for every op, transcendental ones
included (no loosening was needed against the current kernels).

Random ops (rand, randn) and uninitialised ones (empty*) compare dtype / shape (and strides)
only.  Nothing here is expected to fail by design: a failure is a parity bug in ember (or,
rarely, a PyTorch quirk -- see the report that accompanies this file).
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
import parity_inputs as H  # noqa: E402  (registered by conftest.py)
from ember._op_list import OPS  # noqa: E402

T, DT, Case = H.T, H.DT, H.Case
DTYPES, INT_DTYPES, FLOAT_DTYPES = H.DTYPES, H.INT_DTYPES, H.FLOAT_DTYPES

INF, NAN = math.inf, math.nan


def C(id: str, *args: Any, m: bool = False, ip: bool = True, out: bool = False,
      meta: bool = False, isolate: bool = False, **kwargs: Any) -> Case:
    """Shorthand: ``C("id", arg0, arg1, kw=..)``; m = also as a method, ip = also in-place,
    out = also with every out= kind; isolate = run in a forked child (crash-prone input)."""
    return Case(id, args, kwargs, method=m, inplace=ip, out=out, meta=meta, isolate=isolate)


def op_key(op: dict) -> str:
    return op["name"] + (f".{op['overload']}" if op["overload"] else "")


# Ops that define a memory layout (views, *_like, clone, ...): strides and storage offset are
# part of PyTorch's contract for these, so they are compared too.
VIEW_OPS = {
    "view", "view_as", "reshape", "reshape_as", "permute", "transpose", "t", "adjoint", "expand",
    "expand_as", "broadcast_to", "squeeze", "unsqueeze", "flatten", "ravel", "detach", "detach_",
    "alias", "contiguous",
}
LAYOUT_OPS = VIEW_OPS | {"clone", "empty_strided", "zeros_like", "ones_like", "empty_like",
                         "full_like", "empty", "zeros", "ones", "full"}

# Value domains per tensor argument, so results are finite where it matters (the "special"
# cases below check NaN/inf propagation separately).
UNARY_DOMAIN = {
    "log": "positive", "log2": "positive", "log10": "positive", "log1p": "positive",
    "sqrt": "positive", "rsqrt": "positive", "lgamma": "positive", "digamma": "positive", "reciprocal": "nonzero",
    "asin": "unit", "acos": "unit", "atanh": "unit", "acosh": "ge1", "erfinv": "unit",
    "ndtri": "prob", "entr": "positive",
}
BINARY_DOMAIN = {
    "div": ("default", "nonzero"), "true_divide": ("default", "nonzero"),
    "floor_divide": ("default", "nonzero"), "remainder": ("default", "nonzero"),
    "fmod": ("default", "nonzero"), "xlogy": ("default", "positive"),
    "bitwise_left_shift": ("small", "shift"), "bitwise_right_shift": ("small", "shift"),
    "pow": ("small", "small_nonneg"), "xlog1py": ("default", "positive"), "zeta": ("ge1", "positive"),
    "igamma": ("positive", "positive"), "igammac": ("positive", "positive"),
    "polar": ("positive", "default"),  # aten's polar_backward assumes abs >= 0 (sgn(result))
}
DIVISION_OPS = {"div", "true_divide", "floor_divide", "remainder", "fmod"}

LAYOUTS = [("t", (3, 4)), ("slice2", (3, 4)), ("permute", (2, 3, 4)), ("expand", (3, 4)),
           ("offset", (3, 4))]


# ============================================================================================
# Pointwise builders (derived from arity / wrap; shared by the custom pointwise ops)
# ============================================================================================

def unary_cases(dom: str = "default", kw: dict | None = None, specials: bool = True) -> list:
    kw = kw or {}
    cs = []
    for dt in DTYPES:  # every dtype: outside the kernel's set torch decides (raise or promote)
        cs.append(C(dt, T((3, 4), dt, dom), m=dt in ("float32", "int64", "bool"),
                    out=dt in ("float32", "int64"), **kw))
    for view, shape in LAYOUTS:
        cs.append(C(view, T(shape, "float32", dom, view), **kw))
    cs.append(C("int32-t", T((3, 4), "int32", dom, "t"), **kw))
    cs.append(C("0d", T((), "float32", dom), m=True, **kw))
    cs.append(C("0d-int64", T((), "int64", dom), **kw))
    cs.append(C("empty", T((0, 3), "float32", dom), **kw))
    cs.append(C("empty-3d", T((2, 0, 3), "int64", dom), **kw))
    if specials:
        for dt in DTYPES:
            cs.append(C(f"special-{dt}", T((12,), dt, "special"), **kw))
    return cs


MIXED_PAIRS = [("int64", "float32"), ("float32", "int64"), ("uint8", "int8"), ("int8", "uint8"),
               ("float16", "bfloat16"), ("bool", "int64"), ("int64", "bool"), ("bool", "float32"),
               ("int32", "float64"), ("float16", "float32"), ("uint8", "bool"), ("int16", "int32")]
# A 0-d tensor only promotes across categories (int < float), never within one.
ZERO_DIM_PAIRS = [("float32", "float64"), ("int32", "int64"), ("uint8", "int8"),
                  ("int64", "float32"), ("float16", "float64"), ("bool", "int64"),
                  ("int8", "float16")]
BROADCASTS = [((3, 1), (1, 4)), ((4,), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)),
              ((0, 4), (1, 4)), ((1,), (0,)), ((3, 4), ())]
MISMATCHES = [((3,), (4,)), ((2, 3), (3, 2))]
BINARY_LAYOUTS = [("t", "contig", (3, 4)), ("contig", "t", (3, 4)), ("slice2", "t", (3, 4)),
                  ("permute", "permute", (2, 3, 4)), ("expand", "contig", (3, 4)),
                  ("contig", "expand", (3, 4)), ("offset", "slice2", (3, 4))]


def binary_cases(name: str, wrap: bool, kw: dict | None = None) -> list:
    kw = kw or {}
    da, db = BINARY_DOMAIN.get(name, ("default", "default"))

    def P(sa: tuple, sb: tuple, ta: str = "float32", tb: str | None = None, va: str = "contig",
          vb: str = "contig", dom_b: str | None = None) -> tuple:
        return (T(sa, ta, da, va), T(sb, tb or ta, dom_b or db, vb))

    cs = []
    for dt in DTYPES:
        cs.append(C(dt, *P((3, 4), (3, 4), dt), m=dt in ("float32", "int64", "bool"),
                    out=dt in ("float32", "int64", "bool"), **kw))
    for a, b in MIXED_PAIRS:
        cs.append(C(f"{a}+{b}", *P((3, 4), (3, 4), a, b), out=(a, b) == ("int64", "float32"),
                    **kw))
    for a, b in ZERO_DIM_PAIRS:
        cs.append(C(f"{a}+0d-{b}", *P((3, 4), (), a, b), **kw))
        cs.append(C(f"0d-{b}+{a}", *P((), (3, 4), b, a), **kw))
    cs.append(C("0d+0d", *P((), ()), m=True, **kw))
    for sa, sb in BROADCASTS:
        cs.append(C(f"bcast-{sa}-{sb}", *P(sa, sb), **kw))
    for sa, sb in MISMATCHES:
        cs.append(C(f"mismatch-{sa}-{sb}", *P(sa, sb), **kw))
    for va, vb, shape in BINARY_LAYOUTS:
        cs.append(C(f"{va}-{vb}", *P(shape, shape, va=va, vb=vb), **kw))
    cs.append(C("int64-t-slice2", *P((3, 4), (3, 4), "int64", va="t", vb="slice2"), **kw))
    # NaN / inf / signed zero propagation: every special against every special.
    for dt in FLOAT_DTYPES:
        cs.append(C(f"special-{dt}", T((12, 1), dt, "special"), T((1, 12), dt, "special"), **kw))
    if db == "default":  # integer range limits (wrap-around) where no divisor is involved
        for dt in ("uint8", "int8", "int32", "int64"):
            cs.append(C(f"special-{dt}", T((6, 1), dt, "special"), T((1, 6), dt, "special"),
                        **kw))
    # Python scalars as `other` (accepted where the schema says wrap; TypeError elsewhere).
    scalars = [2, -3, 2.5, True] if db != "shift" else [2, 1, True]
    for s in scalars:
        for dt in ("float32", "int64", "uint8", "bool", "float16"):
            cs.append(C(f"{dt}-scalar-{s!r}", T((3, 4), dt, da), s,
                        m=dt == "float32" and s == 2, out=dt == "int64" and s == 2.5, **kw))
    cs.append(C("0d-int32-scalar-2.5", T((), "int32", da), 2.5, **kw))
    if wrap:  # numbers in the `input` position (function only) and in both
        cs.append(C("scalar-first", 3, T((3, 4), "float32", db), **kw))
        cs.append(C("scalar-first-int", 3, T((3, 4), "int8", db), **kw))
        cs.append(C("scalars", 5, 3, **kw))
    if name in DIVISION_OPS:  # integer division by zero raises in PyTorch; float gives inf/nan
        cs.append(C("int-div-by-zero", T((3,), "int64", values=(1, 2, 3)),
                    T((3,), "int64", values=(1, 0, 2)), isolate=True, **kw))
        cs.append(C("int-div-by-zero-scalar", T((3,), "int32", values=(1, 2, 3)), 0,
                    isolate=True, **kw))
        cs.append(C("float-div-by-zero", T((4,), "float32", values=(1.0, -1.0, 0.0, NAN)),
                    T((4,), "float32", values=(0.0, 0.0, 0.0, 0.0)), **kw))
        cs.append(C("int-negative-operands", T((8,), "int64", values=(7, -7, 7, -7, 1, -1, 0, 5)),
                    T((8,), "int64", values=(2, 2, -2, -2, -3, 3, 3, -5)), **kw))
        cs.append(C("float-negative-operands",
                    T((8,), "float32", values=(7.5, -7.5, 7.5, -7.5, 1, -1, 0, 5)),
                    T((8,), "float32", values=(2, 2, -2, -2, -3, 3, 3, -5)), **kw))
    if db == "shift":  # shift counts >= the bit width or negative
        cs.append(C("shift-out-of-range", T((5,), "int32", values=(1, -8, 5, 7, 3)),
                    T((5,), "int32", values=(31, 32, 40, -1, 0)), **kw))
        cs.append(C("shift-int8-big", T((4,), "int8", values=(1, -8, 5, 7)),
                    T((4,), "int8", values=(7, 8, 9, 100)), **kw))
    return cs


def ternary_cases(doms: tuple = ("default",) * 3, kw: dict | None = None,
                  wrap: bool = False) -> list:
    kw = kw or {}
    da, db, dc = doms

    def P(sa: tuple, sb: tuple, sc: tuple, ta: str = "float32", tb: str | None = None,
          tc: str | None = None, va: str = "contig", vb: str = "contig",
          vc: str = "contig") -> tuple:
        return (T(sa, ta, da, va), T(sb, tb or ta, db, vb), T(sc, tc or ta, dc, vc))

    s = (3, 4)
    cs = []
    for dt in DTYPES:
        cs.append(C(dt, *P(s, s, s, dt), m=dt in ("float32", "int64"),
                    out=dt in ("float32", "int64"), **kw))
    for a, b, c in [("float32", "int64", "int64"), ("int64", "float32", "int64"),
                    ("float16", "bfloat16", "float32"), ("bool", "bool", "int64"),
                    ("int32", "int32", "float64"), ("uint8", "int8", "int8")]:
        cs.append(C(f"{a}-{b}-{c}", *P(s, s, s, a, b, c), out=a == "int64", **kw))
    for sa, sb, sc in [((3, 4), (3, 1), (4,)), ((3, 1), (1, 4), (3, 4)), ((), (3, 4), (4,)),
                       ((2, 1, 4), (3, 1), (1,)), ((0, 4), (4,), (1, 4)), ((), (), ())]:
        cs.append(C(f"bcast-{sa}-{sb}-{sc}", *P(sa, sb, sc), **kw))
    cs.append(C("mismatch", *P((3,), (4,), (3,)), **kw))
    cs.append(C("0d-float64-others-float32", *P(s, s, (), "float32", "float32", "float64"), **kw))
    for va, vb, vc, shape in [("t", "contig", "slice2", s), ("permute", "permute", "contig",
                                                            (2, 3, 4)),
                              ("contig", "expand", "t", s), ("offset", "contig", "expand", s),
                              ("expand", "contig", "contig", s)]:
        cs.append(C(f"{va}-{vb}-{vc}", *P(shape, shape, shape, va=va, vb=vb, vc=vc), **kw))
    for dt in ("float32", "float16"):
        cs.append(C(f"special-{dt}", T((12, 1), dt, "special"), T((1, 12), dt, "special"),
                    T((12, 12), dt, "special"), **kw))
    if wrap:  # a number in each position (PyTorch accepts some positions only)
        for i in range(3):
            for val in (2, 0.5):
                args = list(P(s, s, s))
                args[i] = val
                cs.append(C(f"scalar{i}-{val!r}", *args, **kw))
        for dt in ("int64", "float16"):
            args = list(P(s, s, s, dt))
            args[2] = 0.5
            cs.append(C(f"{dt}-scalar2-0.5", *args, **kw))
    return cs


def pointwise_builder(op: dict) -> list:
    name = op["name"]
    # Custom ops routed here (addcdiv) have no kernel arity: count the Tensor parameters.
    arity = op["arity"] or sum(1 for p in op["params"] if p[0] == "Tensor")
    if arity == 1:
        return unary_cases(UNARY_DOMAIN.get(name, "default"))
    if arity == 2:
        cs = binary_cases(name, op["wrap"])
        if name == "add":
            cs += alpha_cases(name)
        return cs
    if arity == 3:
        doms = ("default", "default", "nonzero") if name == "addcdiv" else ("default",) * 3
        cs = ternary_cases(doms, wrap=op["wrap"])
        if name in ("addcmul", "addcdiv"):
            for dt in ("float32", "int64", "float16"):
                for v in (2, 0.5, -1):
                    cs.append(C(f"{dt}-value-{v}", T((3, 4), dt), T((3, 4), dt),
                                T((3, 4), dt, doms[2]), value=v, out=v == 2))
        return cs
    raise NotImplementedError(f"no pointwise builder for arity {arity}")


def alpha_cases(name: str) -> list:
    cs = []
    for dt in ("float32", "int64", "uint8", "bool", "float16"):
        for a in (2, 0.5, -1, True):
            cs.append(C(f"{dt}-alpha-{a!r}", T((3, 4), dt), T((3, 4), dt), alpha=a,
                        m=(dt, a) == ("float32", 2), out=(dt, a) == ("int64", 2)))
        cs.append(C(f"{dt}-scalar-other-alpha-2", T((3, 4), dt), 3, alpha=2))
    return cs


# ============================================================================================
# Custom pointwise ops
# ============================================================================================

def round_builder(op: dict) -> list:
    cs = unary_cases()
    halves = (0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1.25, 1.35, -2.675, 12345.678, 0.125, 99.5)
    for dt in ("float32", "float64", "float16", "bfloat16"):
        for d in (0, 1, 2, -1, -2):
            cs.append(C(f"{dt}-decimals-{d}", T((12,), dt, values=halves), decimals=d,
                        m=(dt, d) == ("float32", 1), out=(dt, d) == ("float32", 2)))
    for dt in ("int64", "int32", "uint8", "bool"):
        cs.append(C(f"{dt}-decimals-1", T((3, 4), dt), decimals=1))
        cs.append(C(f"{dt}-decimals-0", T((3, 4), dt), decimals=0))
    cs.append(C("special-decimals-1", T((12,), "float32", "special"), decimals=1))
    return cs


def threshold_backward_builder(op: dict) -> list:
    cs = []
    for dt in ("float32", "float64", "int64", "float16", "bfloat16"):
        for th in (0, 0.5, -1):
            cs.append(C(f"{dt}-threshold-{th}", T((3, 4), dt), T((3, 4), dt), th))
    cs.append(C("special", T((12,), "float32"), T((12,), "float32", "special"), 0.0))
    cs.append(C("broadcast", T((3, 4)), T((4,)), 0.0))
    cs.append(C("mixed-dtypes", T((3, 4), "float64"), T((3, 4)), 0.0))
    for view, shape in LAYOUTS:
        cs.append(C(f"{view}", T(shape, view=view), T(shape), 0.0))
    return cs


CLAMP_BOUNDS = [dict(min=-1), dict(max=1), dict(min=-1, max=1), dict(min=1, max=-1),
                dict(min=-0.5, max=0.5), dict(min=0.5), dict(min=NAN), dict(max=NAN),
                dict(min=True), dict(min=2, max=3), dict(), dict(min=None, max=None),
                dict(min=-1.5, max=None)]


def clamp_builder(op: dict) -> list:
    cs = []
    for b in CLAMP_BOUNDS:
        tag = ",".join(f"{k}={v!r}" for k, v in b.items()) or "none"
        for dt in ("float32", "int64", "uint8", "float16", "bfloat16", "bool", "int8"):
            cs.append(C(f"{dt}-{tag}", T((3, 4), dt), m=dt == "float32",
                        out=dt in ("float32", "int64") and tag == "min=-1,max=1", **b))
    cs.append(C("positional", T((3, 4)), -1, 1, m=True))
    cs.append(C("positional-int-float", T((3, 4), "int32"), -1.5, 1))
    for view, shape in LAYOUTS:
        cs.append(C(view, T(shape), min=-1, max=1))
    cs.append(C("0d", T(()), min=-1, max=1))
    cs.append(C("empty", T((0, 3)), min=-1, max=1))
    for dt in FLOAT_DTYPES:
        cs.append(C(f"special-{dt}", T((12,), dt, "special"), min=-1, max=1))
    return cs


def clamp_tensor_builder(op: dict) -> list:
    cs = []
    for dt in DTYPES:
        cs.append(C(f"{dt}-both", T((3, 4), dt), T((3, 4), dt), T((3, 4), dt),
                    m=dt in ("float32", "int64"), out=dt in ("float32", "int64")))
    for dt in ("float32", "int64"):
        cs.append(C(f"{dt}-min-only", T((3, 4), dt), min=T((3, 4), dt)))
        cs.append(C(f"{dt}-max-only", T((3, 4), dt), max=T((3, 4), dt)))
        cs.append(C(f"{dt}-min-bcast", T((3, 4), dt), min=T((4,), dt), max=T((3, 1), dt)))
        cs.append(C(f"{dt}-0d-bounds", T((3, 4), dt), T((), dt), T((), dt)))
    cs.append(C("neither", T((3, 4)), None, None))
    cs.append(C("int64-float-bounds", T((3, 4), "int64"), T((3, 4)), T((3, 4))))
    cs.append(C("float32-int-bounds", T((3, 4)), T((3, 4), "int64"), T((3, 4), "int64")))
    cs.append(C("float16-float32-bounds", T((3, 4), "float16"), T((3, 4)), T((3, 4))))
    cs.append(C("uint8-int8-bounds", T((3, 4), "uint8"), T((3, 4), "int8"), T((3, 4), "int8")))
    cs.append(C("bounds-bigger-than-input", T((4,)), T((3, 4)), T((3, 4))))
    cs.append(C("mismatch", T((3,)), T((4,)), None))
    for va, vb, vc, shape in [("t", "slice2", "contig", (3, 4)), ("contig", "expand", "t", (3, 4)),
                              ("permute", "contig", "permute", (2, 3, 4))]:
        cs.append(C(f"{va}-{vb}-{vc}", T(shape, view=va), T(shape, view=vb), T(shape, view=vc)))
    cs.append(C("special", T((12, 1), "float32", "special"), T((1, 12), "float32", "special"),
                T((12, 12), "float32", "special")))
    return cs


def clamp_scalar_builder(op: dict) -> list:
    cs = []
    for dt in DTYPES:
        cs.append(C(f"{dt}-int", T((3, 4), dt), 1, m=dt == "float32", out=dt in ("float32", "int64")))
    for dt in ("float32", "int64", "uint8", "float16"):
        cs.append(C(f"{dt}-float", T((3, 4), dt), 0.5, out=dt == "int64"))
        cs.append(C(f"{dt}-nan", T((3, 4), dt), NAN))
    for view, shape in LAYOUTS:
        cs.append(C(view, T(shape), 0.0))
    cs.append(C("0d", T(()), 0.0))
    cs.append(C("empty", T((0, 3)), 0.0))
    cs.append(C("special", T((12,), "float32", "special"), 0.5))
    cs.append(C("tensor-bound", T((3, 4)), T((3, 4))))
    return cs


def sub_builder(op: dict) -> list:
    return binary_cases(op["name"], True) + alpha_cases(op["name"])


def div_builder(op: dict) -> list:
    cs = binary_cases("div", True)
    for mode in ("trunc", "floor"):
        for dt in ("float32", "int64", "int32", "uint8", "int8", "bool", "float16", "bfloat16",
                   "float64", "int16"):
            cs.append(C(f"{dt}-{mode}", T((3, 4), dt), T((3, 4), dt, "nonzero"),
                        rounding_mode=mode, m=dt == "float32",
                        out=dt in ("float32", "int64")))
        cs.append(C(f"int64-float32-{mode}", T((3, 4), "int64"), T((3, 4), "float32", "nonzero"),
                    rounding_mode=mode))
        cs.append(C(f"int64-scalar-{mode}", T((3, 4), "int64"), -2, rounding_mode=mode))
        cs.append(C(f"int64-float-scalar-{mode}", T((3, 4), "int64"), 2.5, rounding_mode=mode))
        cs.append(C(f"negative-operands-{mode}",
                    T((8,), "int64", values=(7, -7, 7, -7, 1, -1, 0, 5)),
                    T((8,), "int64", values=(2, 2, -2, -2, -3, 3, 3, -5)), rounding_mode=mode))
        cs.append(C(f"float-negative-operands-{mode}",
                    T((8,), "float32", values=(7.5, -7.5, 7.5, -7.5, 1, -1, 0, 5)),
                    T((8,), "float32", values=(2, 2, -2, -2, -3, 3, 3, -5)), rounding_mode=mode))
        cs.append(C(f"special-{mode}", T((12, 1), "float32", "special"),
                    T((1, 12), "float32", "special"), rounding_mode=mode))
        cs.append(C(f"int-div-by-zero-{mode}", T((3,), "int64", values=(1, 2, 3)),
                    T((3,), "int64", values=(1, 0, 2)), rounding_mode=mode, isolate=True))
    cs.append(C("rounding-None", T((3, 4)), T((3, 4), "float32", "nonzero"), rounding_mode=None))
    cs.append(C("rounding-bad", T((3, 4)), T((3, 4), "float32", "nonzero"), rounding_mode="bad"))
    return cs


def pow_builder(op: dict) -> list:
    cs = binary_cases("pow", True)
    for dt in ("float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "int8",
               "bool"):
        for e in (2, 0.5, -1, -2, 0, 3, 1.5, True, False):
            cs.append(C(f"{dt}-exp-{e!r}", T((3, 4), dt, "positive"), e,
                        m=(dt, e) == ("float32", 2), out=(dt, e) == ("int64", 2)))
    for base in (2, 2.5, -1, 0, True):
        cs.append(C(f"scalar-base-{base!r}", base, T((3, 4), "float32", "small")))
        cs.append(C(f"scalar-base-{base!r}-int64", base, T((3, 4), "int64", "small_nonneg")))
    cs.append(C("int-negative-tensor-exponent", T((4,), "int64", values=(1, -1, 2, 0)),
                T((4,), "int64", values=(-1, -2, -1, 2))))
    cs.append(C("negative-base-fractional", T((4,), "float32", values=(-2, -0.5, -8, 2)), 0.5))
    cs.append(C("special-scalar-exp", T((12,), "float32", "special"), 0.5))
    return cs


def isclose_builder(op: dict) -> list:
    cs = []
    for dt in DTYPES:
        cs.append(C(dt, T((3, 4), dt), T((3, 4), dt), m=dt == "float32", ip=False))
    cs.append(C("near", T((4,), "float32", values=(1.0, 1.0, 0.0, 100.0)),
                T((4,), "float32", values=(1.00001, 1.001, 1e-9, 100.001)), ip=False))
    for kw in (dict(rtol=0.0, atol=0.0), dict(rtol=0.1), dict(atol=0.5), dict(equal_nan=True),
               dict(rtol=-1.0)):
        tag = ",".join(f"{k}={v}" for k, v in kw.items())
        cs.append(C(f"special-{tag}", T((12, 1), "float32", "special"),
                    T((1, 12), "float32", "special"), ip=False, **kw))
    cs.append(C("int64-float32", T((3, 4), "int64"), T((3, 4)), ip=False))
    cs.append(C("float32-float64", T((3, 4)), T((3, 4), "float64"), ip=False))
    cs.append(C("bcast", T((3, 1)), T((1, 4)), ip=False))
    cs.append(C("mismatch", T((3,)), T((4,)), ip=False))
    cs.append(C("same-values", T((3, 4), values=(1.0, 2.0)), T((3, 4), values=(1.0, 2.0)),
                ip=False))
    cs.append(C("0d", T(()), T(()), ip=False))
    cs.append(C("empty", T((0,)), T((0,)), ip=False))
    cs.append(C("t-slice2", T((3, 4), view="t"), T((3, 4), view="slice2"), ip=False))
    cs.append(C("scalar-other", T((3, 4)), 1.0, ip=False))
    return cs


def equal_builder(op: dict) -> list:
    cs = []
    for dt in DTYPES:
        cs.append(C(f"{dt}-same", T((3, 4), dt, values=(1, 0, 2)), T((3, 4), dt, values=(1, 0, 2)),
                    m=dt == "float32"))
        cs.append(C(f"{dt}-different", T((3, 4), dt), T((3, 4), dt)))
    cs.append(C("shape-differs", T((3, 4), values=(1.0,)), T((4, 3), values=(1.0,))))
    cs.append(C("bcastable-shape", T((3, 4), values=(1.0,)), T((4,), values=(1.0,))))
    cs.append(C("dtype-differs", T((3, 4), "float32", values=(1, 2)),
                T((3, 4), "int64", values=(1, 2))))
    cs.append(C("nan", T((2,), values=(NAN, 1.0)), T((2,), values=(NAN, 1.0))))
    cs.append(C("signed-zero", T((2,), values=(0.0, 1.0)), T((2,), values=(-0.0, 1.0))))
    cs.append(C("layouts", T((3, 4), view="t", values=(1.0,)), T((3, 4), view="slice2",
                                                                  values=(1.0,))))
    cs.append(C("0d", T((), values=(2.0,)), T((), values=(2.0,))))
    cs.append(C("empty", T((0,)), T((0,))))
    return cs


def where_builder(op: dict) -> list:
    cond = "bool"
    cs = []
    for dt in DTYPES:
        cs.append(C(dt, T((3, 4), cond), T((3, 4), dt), T((3, 4), dt), m=dt == "float32",
                    out=dt in ("float32", "int64")))
    for a, b in MIXED_PAIRS:
        cs.append(C(f"{a}-{b}", T((3, 4), cond), T((3, 4), a), T((3, 4), b),
                    out=(a, b) == ("int64", "float32")))
    for a, b in ZERO_DIM_PAIRS:
        cs.append(C(f"{a}-0d-{b}", T((3, 4), cond), T((3, 4), a), T((), b)))
    for sc, sa, sb in [((3, 1), (1, 4), (3, 4)), ((4,), (3, 1), ()), ((), (3, 4), (3, 4)),
                       ((2, 1, 4), (3, 1), (4,)), ((0, 4), (4,), (1,))]:
        cs.append(C(f"bcast-{sc}-{sa}-{sb}", T(sc, cond), T(sa), T(sb)))
    cs.append(C("mismatch", T((3,), cond), T((4,)), T((3,))))
    for vc, va, vb, shape in [("t", "slice2", "contig", (3, 4)), ("contig", "expand", "t", (3, 4)),
                              ("permute", "permute", "contig", (2, 3, 4)),
                              ("offset", "contig", "offset", (3, 4))]:
        cs.append(C(f"{vc}-{va}-{vb}", T(shape, cond, view=vc), T(shape, view=va),
                    T(shape, view=vb)))
    for x, y in [(T((3, 4)), 0.5), (0.5, T((3, 4))), (T((3, 4), "int64"), 0.5),
                 (T((3, 4), "int64"), 2), (T((3, 4), "uint8"), -1), (1.0, 0), (2, 3),
                 (T((3, 4), "float16"), 1e6), (True, T((3, 4), "bool"))]:
        cs.append(C(f"scalar-{x!r}-{y!r}", T((3, 4), cond), x, y))
    for cdt in ("uint8", "int64", "float32"):
        cs.append(C(f"cond-{cdt}", T((3, 4), cdt), T((3, 4)), T((3, 4))))
    cs.append(C("special", T((12, 12), cond), T((12, 1), "float32", "special"),
                T((1, 12), "float32", "special")))
    return cs


# ============================================================================================
# Creation, fills, copies
# ============================================================================================

SIZES = [((2, 3),), (2, 3), ([2, 3],), ((),), ((0,),), ((2, 0, 3),), (5,), ((-1,),), (2, -3)]


def size_id(size: tuple) -> str:
    return repr(size).replace(" ", "")


def factory_builder(op: dict) -> list:
    name = op["name"]
    meta = name == "empty"
    cs = []
    for size in SIZES:
        cs.append(C(f"size{size_id(size)}", *size, meta=meta,
                    out=size in (((2, 3),), ((0,),))))
    for dt in DTYPES:
        cs.append(C(f"dtype-{dt}", (2, 3), dtype=DT(dt), meta=meta))
    return cs


def full_builder(op: dict) -> list:
    cs = []
    for fill in (1.5, 2, True, -7, NAN, INF, 1e10):
        cs.append(C(f"fill-{fill!r}", (2, 3), fill, out=fill in (1.5, 2)))
    for dt in DTYPES:
        for fill in (2, 2.5, -1, True, 300):
            cs.append(C(f"{dt}-fill-{fill!r}", (2, 3), fill, dtype=DT(dt)))
    for size in [(), (0,), (2, 0), [3]]:
        cs.append(C(f"size{size_id(size)}", size, 4.0))
    cs.append(C("negative-size", (-1, 2), 1.0))
    return cs


def empty_strided_builder(op: dict) -> list:
    cs = []
    for size, stride in [((2, 3), (3, 1)), ((2, 3), (1, 2)), ((2,), (0,)), ((), ()),
                         ((0, 3), (3, 1)), ((2, 3), (3,)), ((2, 3), (6, 2))]:
        cs.append(C(f"{size_id(size)}-{size_id(stride)}", size, stride, meta=True))
    for dt in DTYPES:
        cs.append(C(f"dtype-{dt}", (2, 3), (1, 2), dtype=DT(dt), meta=True))
    return cs


def like_builder(op: dict) -> list:
    name = op["name"]
    meta = name == "empty_like"
    extra = (2.5,) if name == "full_like" else ()
    cs = []
    for dt in DTYPES:
        cs.append(C(dt, T((3, 4), dt), *extra, meta=meta))
    for view, shape in LAYOUTS:  # preserve_format keeps dense permuted strides
        cs.append(C(view, T(shape, view=view), *extra, meta=meta))
    for dt in ("int64", "float64", "bool", "float16"):
        cs.append(C(f"dtype-{dt}", T((3, 4)), *extra, dtype=DT(dt), meta=meta))
        cs.append(C(f"t-dtype-{dt}", T((3, 4), view="t"), *extra, dtype=DT(dt), meta=meta))
    cs.append(C("0d", T(()), *extra, meta=meta))
    cs.append(C("empty", T((0, 3)), *extra, meta=meta))
    if name == "full_like":
        for fill in (NAN, -1, True, 1e10, 300):
            for dt in ("int64", "uint8", "float16", "bool"):
                cs.append(C(f"{dt}-fill-{fill!r}", T((3,), dt), fill))
    return cs


def arange_builder(op: dict) -> list:
    cs = []
    for end in (5, 5.0, 0, 2.5, -1, 1e-3, True, 10):
        cs.append(C(f"end-{end!r}", end, out=end in (5, 5.0)))
    for dt in DTYPES:
        cs.append(C(f"dtype-{dt}", 5, dtype=DT(dt)))
    cs.append(C("inf", INF))
    cs.append(C("nan", NAN))
    return cs


def arange_start_builder(op: dict) -> list:
    cs = []
    for args in [(1, 5), (1, 5, 2), (5, 1, -1), (0, 1, 0.1), (1, 5, 0), (0, 10, 3), (0.5, 3),
                 (-3, 3, 1.5), (5, 1), (0, 2.5, 0.5), (10, 0, -3), (0, -1e-3, -1e-4),
                 (1, 1), (0, INF)]:
        cs.append(C(f"args{size_id(args)}", *args, out=args in ((1, 5), (0, 1, 0.1))))
    for dt in DTYPES:
        cs.append(C(f"dtype-{dt}", 1, 5, dtype=DT(dt)))
        cs.append(C(f"dtype-{dt}-frac", 0, 2.5, 0.5, dtype=DT(dt)))
    return cs


def linspace_builder(op: dict) -> list:
    name = op["name"]
    cs = []
    for args in [(0, 1, 5), (0, 1, 1), (0, 1, 0), (1, 0, 5), (-1, 1, 4), (0, 10, 7), (0, 1, -1),
                 (2, 2, 3), (0.5, 3.5, 8), (-5, 5, 11), (0, 1e3, 4)]:
        cs.append(C(f"args{size_id(args)}", *args, out=args == (0, 1, 5)))
    for dt in DTYPES:
        cs.append(C(f"dtype-{dt}", 0, 3, 4, dtype=DT(dt)))
        cs.append(C(f"dtype-{dt}-neg", 3, -3, 7, dtype=DT(dt)))
    if name == "logspace":
        for base in (2, 2.0, 0.5, 10, -2):
            cs.append(C(f"base-{base!r}", 0, 3, 4, base))
            cs.append(C(f"base-{base!r}-kw", -1, 2, 4, base=base, dtype=DT("float64")))
    return cs


def eye_builder(op: dict) -> list:
    cs = []
    # eye(n) and eye.m(n, m) are separate overloads, as in PyTorch (eye(3, None) is a TypeError).
    both = [(2, 4), (4, 2), (0, 3), (3, -1), (3, None)]
    for args in ([(3,), (0,), (1,), (-1,)] if op["overload"] != "m" else both):
        cs.append(C(f"args{size_id(args)}", *args, out=args in ((3,), (2, 4))))
    for dt in DTYPES:
        cs.append(C(f"dtype-{dt}", *((3,) if op["overload"] != "m" else (3, 2)), dtype=DT(dt)))
    return cs


def fill_builder(op: dict) -> list:
    cs = []
    for dt in DTYPES:
        for v in (2, 2.5, -1, True, 300, NAN, INF, 1e10):
            cs.append(C(f"{dt}-{v!r}", T((3, 4), dt), v, m=v == 2))
    for view, shape in LAYOUTS:
        cs.append(C(view, T(shape, view=view), 1.5, m=True))
    cs.append(C("0d", T(()), 3.0, m=True))
    cs.append(C("empty", T((0, 3)), 3.0))
    cs.append(C("tensor-value", T((3, 4)), T(())))
    return cs


def fill_tensor_builder(op: dict) -> list:
    cs = []
    for dt in DTYPES:
        cs.append(C(dt, T((3, 4), dt), T((), dt), m=dt == "float32"))
    for a, b in MIXED_PAIRS:
        cs.append(C(f"{a}-{b}", T((3, 4), a), T((), b)))
    cs.append(C("value-1d", T((3, 4)), T((1,))))
    cs.append(C("value-2d", T((3, 4)), T((3, 4))))
    for view, shape in LAYOUTS:
        cs.append(C(view, T(shape, view=view), T(()), m=True))
    cs.append(C("special", T((3,)), T((), values=(NAN,))))
    cs.append(C("scalar-value", T((3, 4)), 2.0))
    return cs


def zero_builder(op: dict) -> list:
    cs = [C(dt, T((3, 4), dt), m=True) for dt in DTYPES]
    cs += [C(view, T(shape, view=view), m=True) for view, shape in LAYOUTS]
    cs += [C("0d", T(()), m=True), C("empty", T((0, 3)), m=True)]
    return cs


def copy_builder(op: dict) -> list:
    cs = []
    for dt in DTYPES:
        cs.append(C(dt, T((3, 4), dt), T((3, 4), dt)))
    for a, b in MIXED_PAIRS + [("uint8", "int64"), ("int8", "int64"), ("bool", "float32"),
                               ("float16", "float64"), ("bfloat16", "float32"),
                               ("int64", "float64"), ("int32", "float16")]:
        cs.append(C(f"dst-{a}-src-{b}", T((3, 4), a), T((3, 4), b)))
    for sd, ss in [((3, 4), (4,)), ((3, 4), ()), ((3, 4), (3, 1)), ((4,), (3, 4)), ((3, 4), (3,)),
                   ((0, 4), (4,)), ((), (1,))]:
        cs.append(C(f"bcast-{sd}-{ss}", T(sd), T(ss)))
    for vd, vs, shape in [("t", "contig", (3, 4)), ("contig", "t", (3, 4)),
                          ("slice2", "permute", (2, 3, 4)), ("expand", "contig", (3, 4)),
                          ("offset", "expand", (3, 4)), ("permute", "slice2", (2, 3, 4))]:
        cs.append(C(f"dst-{vd}-src-{vs}", T(shape, view=vd), T(shape, view=vs)))
    cs.append(C("special-to-float16", T((12,), "float16"), T((12,), "float32", "special")))
    cs.append(C("big-to-float16", T((3,), "float16"), T((3,), "float32",
                                                         values=(1e5, -1e5, 65519.0))))
    cs.append(C("non-blocking", T((3, 4)), T((3, 4)), non_blocking=True))
    return cs


def clone_builder(op: dict) -> list:
    cs = [C(dt, T((3, 4), dt), m=dt == "float32") for dt in DTYPES]
    cs += [C(view, T(shape, view=view), m=True) for view, shape in LAYOUTS]
    cs += [C("0d", T(())), C("empty", T((0, 3))), C("empty-t", T((0, 3), view="t"))]
    return cs


# ============================================================================================
# Views
# ============================================================================================

def view_builder(op: dict) -> list:
    x = T((2, 3, 4))
    cs = [C("varargs", x, 6, 4), C("tuple", x, (6, 4)), C("list", x, [4, 6]), C("minus1", x, -1),
          C("minus1-mid", x, 4, -1, 2), C("two-minus1", x, -1, -1), C("bad-numel", x, 5, 5),
          C("same", x, 2, 3, 4), C("split-dim", x, 2, 3, 2, 2), C("merge-last", x, 2, 12),
          C("t-flat", T((3, 4), view="t"), 12), C("t-same", T((3, 4), view="t"), 3, 4),
          C("t-split-ok", T((3, 4), view="t"), 3, 2, 2),
          C("slice2-flat", T((3, 4), view="slice2"), 12),
          C("slice2-merge-ok", T((3, 4), view="slice2"), 3, 2, 2),
          C("expand-flat", T((3, 4), view="expand"), 12),
          C("expand-split", T((3, 4), view="expand"), 3, 2, 2),
          C("offset", T((3, 4), view="offset"), 12), C("0d-1", T(()), 1), C("0d-empty", T(()), ()),
          C("0d-minus1", T(()), -1), C("to-0d", T((1,)), ()), C("empty-minus1", T((0, 3)), -1),
          C("empty", T((0, 3)), 3, 0, 1), C("negative", x, -2, 12), C("int64", T((2, 6), "int64"),
                                                                       3, 4)]
    for c in cs:
        c.method = True
    return cs


def view_dtype_builder(op: dict) -> list:
    cs = []
    for a, b in [("float32", "int32"), ("float32", "int16"), ("float32", "float64"),
                 ("int8", "float32"), ("bool", "uint8"), ("uint8", "bool"), ("float16", "bfloat16"),
                 ("int64", "float64"), ("float32", "uint8"), ("float64", "int8")]:
        cs.append(C(f"{a}-{b}", T((3, 4), a), DT(b)))
    cs.append(C("odd-last-dim", T((3, 3)), DT("float64")))
    cs.append(C("t-same-size", T((3, 4), view="t"), DT("int32")))
    cs.append(C("t-smaller", T((3, 4), view="t"), DT("int16")))
    cs.append(C("slice2-bigger", T((3, 4), view="slice2"), DT("float64")))
    cs.append(C("0d-same-size", T(()), DT("int32")))
    cs.append(C("0d-smaller", T(()), DT("int16")))
    cs.append(C("empty", T((0, 4)), DT("int8")))
    return cs


def reshape_builder(op: dict) -> list:
    cs = view_builder(op)  # same shapes; non-viewable layouts copy instead of raising
    for c in cs:
        if len(c.args) > 2 or not isinstance(c.args[1], (tuple, list)):
            c.args = (c.args[0], tuple(c.args[1:]))  # torch.reshape has no varargs form
            c.id += "-as-tuple"
    cs += [C("varargs", T((2, 3, 4)), 6, 4, m=True), C("permute-flat", T((2, 3, 4),
                                                                       view="permute"), -1)]
    return cs


def as_builder(op: dict) -> list:
    cs = []
    for (sx, vx), so in [(((2, 3, 4), "contig"), (6, 4)), (((3, 4), "t"), (12,)),
                         (((3, 4), "t"), (3, 4)), (((3, 4), "contig"), (5,)),
                         (((), "contig"), (1,)), (((3, 4), "slice2"), (4, 3)),
                         (((3, 4), "contig"), (2, 6))]:
        cs.append(C(f"{sx}-{vx}-as-{so}", T(sx, view=vx), T(so, "int64"), m=True))
    return cs


def permute_builder(op: dict) -> list:
    x = T((2, 3, 4))
    cs = [C("tuple", x, (2, 0, 1), m=True), C("list", x, [1, 2, 0]), C("negative", x, (-1, 0, 1)),
          C("varargs", x, 2, 0, 1, m=True), C("identity", x, (0, 1, 2)),
          C("duplicate", x, (0, 0, 1)), C("too-few", x, (0, 1)), C("too-many", x, (0, 1, 2, 3)),
          C("out-of-range", x, (0, 1, 3)), C("0d", T(()), ()), C("1d", T((5,)), (0,)),
          C("t", T((3, 4), view="t"), (1, 0)), C("slice2", T((3, 4), view="slice2"), (1, 0)),
          C("permute", T((2, 3, 4), view="permute"), (2, 1, 0)),
          C("expand", T((3, 4), view="expand"), (1, 0)), C("empty", T((2, 0, 3)), (2, 0, 1)),
          C("offset", T((3, 4), view="offset"), (1, 0))]
    return cs


def transpose_builder(op: dict) -> list:
    x = T((2, 3, 4))
    cs = [C("0-1", x, 0, 1, m=True), C("neg", x, -1, 0, m=True), C("same", x, 1, 1),
          C("0-2", x, 0, 2), C("oor", x, 0, 3), C("oor-neg", x, -4, 0), C("0d", T(()), 0, 0),
          C("0d--1", T(()), -1, 0), C("0d-oor", T(()), 0, 1), C("1d", T((5,)), 0, -1),
          C("t", T((3, 4), view="t"), 0, 1), C("slice2", T((3, 4), view="slice2"), 0, 1),
          C("expand", T((3, 4), view="expand"), 0, 1), C("empty", T((0, 3)), 0, 1),
          C("offset", T((3, 4), view="offset"), 1, 0)]
    return cs


def t_builder(op: dict) -> list:
    return [C("2d", T((3, 4)), m=True), C("1d", T((5,)), m=True), C("0d", T(()), m=True),
            C("3d", T((2, 3, 4)), m=True), C("t", T((3, 4), view="t")),
            C("slice2", T((3, 4), view="slice2")), C("expand", T((3, 4), view="expand")),
            C("empty", T((0, 3))), C("int64", T((3, 4), "int64"))]


def adjoint_builder(op: dict) -> list:
    return [C("2d", T((3, 4)), m=True), C("3d", T((2, 3, 4)), m=True), C("1d", T((5,))),
            C("0d", T(())), C("t", T((3, 4), view="t")), C("permute", T((2, 3, 4), view="permute")),
            C("bool", T((3, 4), "bool"))]


def expand_builder(op: dict) -> list:
    cs = [C("varargs", T((3, 1)), 3, 4), C("tuple", T((3, 1)), (3, 4)),
          C("list", T((3, 1)), [3, 4]),
          C("minus1", T((3, 1)), -1, 4), C("new-dims", T((3, 1)), 2, 3, 4),
          C("new-dims-minus1", T((3, 1)), 2, -1, -1), C("bad-non1", T((3, 4)), 3, 5),
          C("fewer-dims", T((2, 3, 4)), 3, 4), C("0d", T(()), 3), C("0d-0", T(()), 0),
          C("1-to-0", T((1,)), 0), C("minus1-new-leading", T((3, 1)), -1, 3, 4),
          C("t", T((1, 4), view="t"), 4, 3), C("slice2", T((3, 1), view="slice2"), 3, 2),
          C("expand-again", T((3, 4), view="expand"), 2, 3, 4), C("same", T((3, 4)), 3, 4),
          C("negative", T((3, 1)), 3, -2)]
    for c in cs:
        c.method = True
    if op["name"] == "broadcast_to":  # function form takes one size sequence
        for c in cs:
            if len(c.args) > 2 or not isinstance(c.args[1], (tuple, list)):
                c.args = (c.args[0], tuple(c.args[1:]))
                c.id += "-as-tuple"
    return cs


def expand_as_builder(op: dict) -> list:
    return [C(f"{sx}-as-{so}", T(sx), T(so, "int64"), m=True)
            for sx, so in [((3, 1), (3, 4)), ((3, 1), (2, 3, 4)), ((3, 4), (3, 5)), ((), (2, 2)),
                           ((1,), (0,)), ((3, 4), (4,))]]


def squeeze_builder(op: dict) -> list:
    ov = op["overload"]
    x = T((1, 3, 1, 4))
    if ov == "":
        cs = [C("4d", x, m=True), C("0d", T(())), C("1", T((1,))), C("no-ones", T((3, 4))),
              C("all-ones", T((1, 1, 1))), C("empty", T((1, 0, 1))),
              C("t", T((1, 4), view="t")), C("expand", T((3, 4), view="expand"))]
    elif ov == "dim":
        cs = [C(f"dim{d}", x, d, m=d == 0) for d in (0, 1, 2, 3, -1, -2, -4, 4, -5)]
        cs += [C("0d-0", T(()), 0), C("0d--1", T(()), -1), C("0d-1", T(()), 1),
               C("t", T((1, 4), view="t"), 1), C("empty", T((1, 0)), 1)]
    else:
        cs = [C(f"dims{size_id(d)}", x, d, m=d == (0, 2))
              for d in [(0, 2), (0,), (), (0, 1), (-1, -2), (0, 0), (0, 4), [2], (1, 3)]]
        cs += [C("0d", T(()), (0,)), C("0d-empty", T(()), ())]
    return cs


def unsqueeze_builder(op: dict) -> list:
    x = T((2, 3, 4))
    cs = [C(f"dim{d}", x, d, m=d == 0) for d in (0, 1, 3, -1, -4, 4, -5)]
    cs += [C("0d-0", T(()), 0), C("0d--1", T(()), -1), C("0d-1", T(()), 1), C("0d--2", T(()), -2),
           C("t", T((3, 4), view="t"), 1), C("slice2", T((3, 4), view="slice2"), 2),
           C("expand", T((3, 4), view="expand"), 0), C("empty", T((0, 3)), 1)]
    return cs


def flatten_builder(op: dict) -> list:
    x = T((2, 3, 4))
    cs = [C("default", x, m=True), C("start1", x, 1), C("0-1", x, 0, 1), C("1--1", x, 1, -1),
          C("-2--1", x, -2, -1), C("start-after-end", x, 2, 1), C("same", x, 1, 1),
          C("oor", x, 0, 3), C("oor-start", x, 3), C("kw", x, start_dim=1, end_dim=2),
          C("0d", T(())), C("0d-0-0", T(()), 0, 0), C("0d--1", T(()), -1), C("empty", T((0, 3))),
          C("t", T((3, 4), view="t")), C("permute-partial", T((2, 3, 4), view="permute"), 1),
          C("slice2", T((3, 4), view="slice2")), C("expand", T((3, 4), view="expand")),
          C("1d", T((5,)))]
    return cs


def layout_sweep_builder(op: dict) -> list:
    """ravel / detach / detach_ / alias / contiguous: dtypes x layouts."""
    cs = [C(dt, T((3, 4), dt), m=dt == "float32") for dt in DTYPES]
    cs += [C(view, T(shape, view=view), m=True) for view, shape in LAYOUTS]
    cs += [C("0d", T(()), m=True), C("empty", T((0, 3)), m=True),
           C("empty-t", T((0, 3), view="t"))]
    return cs


# ============================================================================================
# Reductions and scans (derived from the dim / keepdim / dtype parameters of the schema)
# ============================================================================================

EXTRA_REDUCTION_KW = {
    # op -> list of extra keyword sets to try (op-specific Scalar / bool parameters)
    "var": [dict(correction=0), dict(correction=2), dict(correction=1.5), dict(correction=5)],
    "std": [dict(correction=0), dict(correction=2), dict(correction=1.5), dict(correction=5)],
    "var_mean": [dict(correction=0), dict(correction=2)],
    "std_mean": [dict(correction=0), dict(correction=2)],
    "var.unbiased": [dict(unbiased=False), dict(unbiased=True)],
    "std.unbiased": [dict(unbiased=False), dict(unbiased=True)],
    "var.dim_unbiased": [dict(unbiased=False), dict(unbiased=True)],
    "std.dim_unbiased": [dict(unbiased=False), dict(unbiased=True)],
    "norm": [dict(p=1), dict(p=0), dict(p=INF), dict(p=-INF), dict(p=3), dict(p=0.5),
             dict(p=-1), dict(p=2.0)],
    "vector_norm": [dict(ord=1), dict(ord=0), dict(ord=INF), dict(ord=-INF), dict(ord=3),
                    dict(ord=0.5), dict(ord=-1), dict(ord=2.0)],
}


def dim_values(dim_type: str, ndim: int) -> list:
    """Dim arguments for a (2, 3, 4) input: valid, negative, out-of-range, tuples, dup."""
    ints = [0, 1, 2, -1, -3, 3, -4]
    if dim_type in ("int", "int?"):
        return ints + ([None] if dim_type == "int?" else [])
    vals: list = ints + [(0, 2), (-1, 0), (0, 1, 2), (), [1], (1, 1), (0, 5), (2, -1)]
    if dim_type == "int[1]?":
        vals.append(None)
    return vals


def reduction_builder(op: dict) -> list:
    key = op_key(op)
    params = {p[1]: p for p in op["params"]}
    dimp = params.get("dim")
    has_keep = "keepdim" in params
    has_dtype = "dtype" in params
    cs: list = []

    def mk(id: str, x: T, d: Any = "default", m: bool = False, out: bool = False,
           **kw: Any) -> Case:
        args: tuple = (x,)
        kwargs = dict(kw)
        if dimp is not None and d != "default":
            if dimp[3] or op["params"].index(dimp) != 1:  # keyword-only (aminmax) or after p
                kwargs["dim"] = d
            else:
                args = (x, d)
        elif dimp is not None and dimp[2] is None:  # required dim: use 1 / (1,)
            args = (x, 1)
        return Case(id, args, kwargs, method=m, inplace=False, out=out)

    for dt in DTYPES:
        cs.append(mk(dt, T((3, 4), dt), m=dt in ("float32", "int64", "bool"),
                     out=dt in ("float32", "int64")))
    if dimp is not None:
        for d in dim_values(dimp[0].replace(" ", ""), 3):
            cs.append(mk(f"dim{size_id(d)}", T((2, 3, 4)), d, m=d == (0, 2),
                         out=d in (1, (0, 2))))
            if has_keep and d in (1, -1, (0, 2), None, ()):
                cs.append(mk(f"dim{size_id(d)}-keepdim", T((2, 3, 4)), d, keepdim=True,
                             out=d == 1))
        cs.append(Case("dim-kw", (T((2, 3, 4)),), dict(dim=1), method=True, inplace=False))
        for dt in ("int64", "bool", "float16", "uint8"):
            cs.append(mk(f"{dt}-dim1", T((2, 3, 4), dt), 1))
        cs.append(mk("0d-dim0", T(()), 0))
        cs.append(mk("0d-dim-1", T(()), -1))
        cs.append(mk("0d-dim1", T(()), 1))
        cs.append(mk("empty-dim0", T((0, 4)), 0))
        cs.append(mk("empty-dim1", T((0, 4)), 1))
        cs.append(mk("empty-trailing-dim1", T((3, 0)), 1))
        if has_keep:
            cs.append(mk("0d-dim0-keepdim", T(()), 0, keepdim=True))
    elif has_keep:
        cs.append(mk("keepdim", T((2, 3, 4)), keepdim=True))
    for view, shape in LAYOUTS:
        cs.append(mk(view, T(shape, view=view)))
        if dimp is not None:
            cs.append(mk(f"{view}-dim0", T(shape, view=view), 0))
    cs.append(mk("0d", T(()), m=True))
    cs.append(mk("empty", T((0, 4))))
    cs.append(mk("empty-int64", T((0, 4), "int64")))
    for dt in FLOAT_DTYPES:
        cs.append(mk(f"special-{dt}", T((4, 3), dt, "special")))
    if dimp is not None:
        cs.append(mk("special-dim1", T((4, 3), "float32", "special"), 1))
        cs.append(mk("special-int8-dim1", T((3, 2), "int8", "special"), 1))
    if has_dtype:
        for src, dst in [("float32", "float64"), ("int64", "float32"), ("bool", "int64"),
                         ("float32", "float16"), ("int8", "int32"), ("float16", "float32"),
                         ("int32", "int64"), ("float32", "int64")]:
            cs.append(mk(f"{src}-dtype-{dst}", T((3, 4), src), dtype=DT(dst)))
    for kw in EXTRA_REDUCTION_KW.get(key, EXTRA_REDUCTION_KW.get(op["name"], [])):
        tag = ",".join(f"{k}={v!r}" for k, v in kw.items())
        cs.append(mk(tag, T((3, 4)), m=True, **kw))
        if dimp is not None:
            cs.append(mk(f"{tag}-dim1", T((2, 3, 4)), 1, **kw))
            cs.append(mk(f"{tag}-single-element-dim", T((3, 1)), 1, **kw))
        cs.append(mk(f"{tag}-int64", T((3, 4), "int64"), **kw))
        cs.append(mk(f"{tag}-special", T((4, 3), "float32", "special"), **kw))
    return cs


def scan_builder(op: dict) -> list:
    cs = []
    for dt in DTYPES:
        cs.append(C(dt, T((3, 4), dt, "small"), 1, m=dt in ("float32", "int64"),
                    out=dt in ("float32", "int64", "int32")))
    for d in (0, 1, 2, -1, -3, 3, -4):
        cs.append(C(f"dim{d}", T((2, 3, 4), "float32", "small"), d, m=d == 0, out=d == 2))
    cs.append(C("dim-kw", T((3, 4), "float32", "small"), dim=1))
    for view, shape in LAYOUTS:
        cs.append(C(view, T(shape, "float32", "small", view), 0))
        cs.append(C(f"{view}-last", T(shape, "float32", "small", view), -1))
    for d in (0, -1, 1):
        cs.append(C(f"0d-dim{d}", T((), "float32", "small"), d))
    cs.append(C("empty", T((0, 4)), 0))
    cs.append(C("empty-dim1", T((0, 4)), 1))
    for dt in ("float32", "float16", "bfloat16"):
        cs.append(C(f"special-{dt}", T((12,), dt, "special"), 0))
    for src, dst in [("float32", "float64"), ("int64", "float32"), ("bool", "int64"),
                     ("int32", "int32"), ("int8", "int16"), ("float32", "int64"),
                     ("float16", "float32")]:
        cs.append(C(f"{src}-dtype-{dst}", T((3, 4), src, "small"), 1, dtype=DT(dst),
                    out=(src, dst) == ("int64", "float32")))
    cs.append(C("int8-overflow", T((3, 8), "int8", values=(100, 100, 100, 7)), 1))
    return cs


# ============================================================================================
# Linear algebra
# ============================================================================================

def matmul_shape_cases(pairs: list, dtypes: list = ("float32",)) -> list:
    cs = []
    for sa, sb in pairs:
        for dt in dtypes:
            cs.append(C(f"{dt}-{sa}@{sb}", T(sa, dt), T(sb, dt), ip=False))
    return cs


def linalg_binary_builder(op: dict) -> list:
    name = op["name"]
    good = {
        "matmul": [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                   ((5, 2, 3), (5, 3, 4)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)),
                   ((2, 1, 2, 3), (5, 3, 4)), ((3,), (5, 3, 4)), ((5, 2, 3), (3,)),
                   ((2, 0), (0, 3)), ((0, 3), (3, 2)), ((0,), (0,)), ((1, 2, 3), (4, 1, 3, 2))],
        "mm": [((2, 3), (3, 4)), ((2, 0), (0, 3)), ((0, 3), (3, 2)), ((1, 1), (1, 1)),
               ((4, 1), (1, 5))],
        "bmm": [((5, 2, 3), (5, 3, 4)), ((2, 2, 0), (2, 0, 3)), ((0, 2, 3), (0, 3, 4)),
                ((1, 3, 3), (1, 3, 3))],
        "mv": [((2, 3), (3,)), ((0, 3), (3,)), ((2, 0), (0,)), ((1, 1), (1,))],
        "dot": [((3,), (3,)), ((0,), (0,)), ((1,), (1,)), ((17,), (17,))],
        "outer": [((3,), (4,)), ((0,), (4,)), ((1,), (1,)), ((3,), (0,))],
    }[name]
    bad = {
        "matmul": [((2, 3), (4, 5)), ((), (3,)), ((3,), ()), ((3,), (4,)), ((5, 2, 3), (4, 3, 4))],
        "mm": [((2, 3), (4, 5)), ((3,), (3, 4)), ((2, 3, 4), (4, 2)), ((), ())],
        "bmm": [((5, 2, 3), (4, 3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (5, 4, 4))],
        "mv": [((2, 3), (4,)), ((3,), (3,)), ((2, 3), (3, 1))],
        "dot": [((3,), (4,)), ((2, 3), (2, 3)), ((), ())],
        "outer": [((3, 1), (4,)), ((), (3,))],
    }[name]
    sa, sb = good[0] if name != "matmul" else good[3]
    cs = []
    for dt in DTYPES:
        cs.append(C(dt, T(sa, dt, "small"), T(sb, dt, "small"), m=dt in ("float32", "int64"),
                    out=dt in ("float32", "int64"), ip=False))
    cs += matmul_shape_cases(good)
    cs += [C(f"bad-{a}@{b}", T(a), T(b), ip=False) for a, b in bad]
    cs.append(C("int64-float32", T(sa, "int64"), T(sb), ip=False))
    cs.append(C("float16-float32", T(sa, "float16"), T(sb), ip=False))
    cs.append(C("float32-float64", T(sa), T(sb, "float64"), ip=False))
    # Layouts BLAS must handle (transposed / strided operands).
    if len(sa) == 2:
        cs.append(C("a-t", T(sa, view="t"), T(sb), ip=False))
        cs.append(C("a-slice2", T(sa, view="slice2"), T(sb), ip=False))
        cs.append(C("a-offset", T(sa, view="offset"), T(sb), ip=False))
        cs.append(C("a-expand", T(sa, view="expand"), T(sb), ip=False))
        cs.append(C("int64-a-t", T(sa, "int64", "small", view="t"), T(sb, "int64", "small"),
                    ip=False))
        cs.append(C("float16-a-t", T(sa, "float16", view="t"), T(sb, "float16"), ip=False))
    if len(sb) == 2:
        cs.append(C("b-t", T(sa), T(sb, view="t"), ip=False))
        cs.append(C("b-slice2", T(sa), T(sb, view="slice2"), ip=False))
        cs.append(C("b-expand", T(sa), T(sb, view="expand"), ip=False))
    if len(sa) == 1:
        cs.append(C("a-slice2", T(sa, view="slice2"), T(sb), ip=False))
        cs.append(C("a-offset", T(sa, view="offset"), T(sb), ip=False))
    if len(sb) == 1:
        cs.append(C("b-slice2", T(sa), T(sb, view="slice2"), ip=False))
    if name in ("matmul", "bmm"):
        cs.append(C("batched-permute", T((2, 3, 4), view="permute"),
                    T((2, 4, 3), view="permute"), ip=False))
        cs.append(C("batched-expand", T((5, 2, 3), view="expand"), T((5, 3, 4)), ip=False))
    cs.append(C("special", T(sa, "float32", "special"), T(sb, "float32", "special"), ip=False))
    return cs


def addmm_builder(op: dict) -> list:
    name = op["name"]
    if name == "addmm":
        s_in, s1, s2 = (2, 4), (2, 3), (3, 4)
        bcast_in = [(4,), (1, 4), (), (2, 1)]
        bad = [((2, 4), (2, 3), (4, 4)), ((3, 4), (2, 3), (3, 4)), ((2, 4), (3,), (3, 4))]
    else:
        s_in, s1, s2 = (5, 2, 4), (5, 2, 3), (5, 3, 4)
        bcast_in = [(2, 4), (4,), (), (5, 1, 4)]
        bad = [((5, 2, 4), (5, 2, 3), (4, 3, 4)), ((5, 2, 4), (2, 3), (3, 4))]
    cs = []
    for dt in DTYPES:
        cs.append(C(dt, T(s_in, dt, "small"), T(s1, dt, "small"), T(s2, dt, "small"),
                    m=dt in ("float32", "int64"), out=dt in ("float32", "int64")))
    for b in bcast_in:
        cs.append(C(f"input-bcast-{b}", T(b), T(s1), T(s2)))
    for beta, alpha in [(0, 1), (2, 0.5), (0.5, -1), (1, 0), (0, 0), (2, 3)]:
        cs.append(C(f"beta{beta}-alpha{alpha}", T(s_in), T(s1), T(s2), beta=beta, alpha=alpha,
                    m=(beta, alpha) == (2, 0.5), out=(beta, alpha) == (2, 0.5)))
        cs.append(C(f"int64-beta{beta}-alpha{alpha}", T(s_in, "int64", "small"),
                    T(s1, "int64", "small"), T(s2, "int64", "small"), beta=beta, alpha=alpha))
    # beta == 0 must ignore NaN / inf in input (PyTorch documents this).
    cs.append(C("beta0-nan-input", T(s_in, values=(NAN, INF)), T(s1), T(s2), beta=0))
    for a, b, c in bad:
        cs.append(C(f"bad-{a}-{b}-{c}", T(a), T(b), T(c)))
    cs.append(C("mixed-dtype", T(s_in, "float64"), T(s1), T(s2)))
    cs.append(C("mixed-dtype-mats", T(s_in), T(s1, "float64"), T(s2)))
    if name == "addmm":
        cs.append(C("mat1-t", T(s_in), T(s1, view="t"), T(s2)))
        cs.append(C("mat2-slice2", T(s_in), T(s1), T(s2, view="slice2")))
        cs.append(C("input-t", T(s_in, view="t"), T(s1), T(s2)))
        cs.append(C("input-expand", T(s_in, view="expand"), T(s1), T(s2)))
        cs.append(C("empty-k", T(s_in), T((2, 0)), T((0, 4))))
    else:
        cs.append(C("batch1-permute", T(s_in), T(s1, view="permute"), T(s2)))
        cs.append(C("input-slice2", T(s_in, view="slice2"), T(s1), T(s2)))
        cs.append(C("empty-k", T(s_in), T((5, 2, 0)), T((5, 0, 4))))
    return cs


# ============================================================================================
# The registry: op key -> builder.  Pointwise ops use pointwise_builder unless listed.
# ============================================================================================

BUILDERS = {
    "round": round_builder, "round.decimals": round_builder, "clamp": clamp_builder,
    "threshold_backward": threshold_backward_builder,
    "clamp.Tensor": clamp_tensor_builder,
    "clamp_min": clamp_scalar_builder, "clamp_max": clamp_scalar_builder,
    "sub": sub_builder, "rsub": sub_builder, "div": div_builder, "pow": pow_builder,
    "isclose": isclose_builder, "allclose": isclose_builder, "equal": equal_builder,
    "addcdiv": pointwise_builder, "where.self": where_builder,
    "zeros": factory_builder, "ones": factory_builder, "empty": factory_builder,
    "full": full_builder, "empty_strided": empty_strided_builder,
    "zeros_like": like_builder, "ones_like": like_builder, "empty_like": like_builder,
    "full_like": like_builder, "arange": arange_builder, "arange.start": arange_start_builder,
    "linspace": linspace_builder, "logspace": linspace_builder, "eye": eye_builder,
    "fill_": fill_builder, "fill_.Tensor": fill_tensor_builder, "zero_": zero_builder,
    "copy_": copy_builder, "clone": clone_builder, "contiguous": layout_sweep_builder,
    "polygamma": lambda op: [C(f"n{n}-{dt}", n, T((3, 4), dt, dom="positive"), ip=False, out=True)
                             for n in (0, 1, 2, 3) for dt in ("float32", "float64", "int64")],
    "_to_copy": lambda op: [C(f"{a}-{b}", T((3, 4), a), dtype=DT(b), ip=False)
                            for a in ("float32", "int64", "bool") for b in ("float64", "int32", "float16")],
    "view": view_builder, "view.dtype": view_dtype_builder, "reshape": reshape_builder,
    "view_as": as_builder, "reshape_as": as_builder, "permute": permute_builder,
    "transpose": transpose_builder, "t": t_builder, "adjoint": adjoint_builder,
    "expand": expand_builder, "broadcast_to": expand_builder, "expand_as": expand_as_builder,
    "squeeze": squeeze_builder, "squeeze.dim": squeeze_builder, "squeeze.dims": squeeze_builder,
    "unsqueeze": unsqueeze_builder, "flatten": flatten_builder, "ravel": layout_sweep_builder,
    "detach": layout_sweep_builder, "detach_": layout_sweep_builder, "alias": layout_sweep_builder,
    "cumsum": scan_builder, "cumprod": scan_builder,
    "matmul": linalg_binary_builder, "mm": linalg_binary_builder, "bmm": linalg_binary_builder,
    "mv": linalg_binary_builder, "dot": linalg_binary_builder, "outer": linalg_binary_builder,
    "addmm": addmm_builder, "baddbmm": addmm_builder,
    "square": pointwise_builder, "relu": pointwise_builder, "lerp": pointwise_builder, "where.method": where_builder,
    "clamp_min.Tensor": lambda op: binary_cases(op["name"], False),
    "clamp_max.Tensor": lambda op: binary_cases(op["name"], False),
    "eye.m": eye_builder,
    "max.other": lambda op: binary_cases("max", False),
    "min.other": lambda op: binary_cases("min", False),
}
# Areas keep their builders in tests/parity_<area>.py (a BUILDERS dict, same signature), and for
# ember's private ops that PyTorch lacks, a TORCH_REFERENCES dict: name -> the same computation in torch ops.
TORCH_REFERENCES: dict[str, Any] = {}
for _path in sorted(Path(__file__).parent.glob("parity_*.py")):
    if _path.stem != "parity_inputs":
        _area = _path.stem
        _spec = importlib.util.spec_from_file_location(_area, _path)
        _mod = importlib.util.module_from_spec(_spec)
        _spec.loader.exec_module(_mod)
        BUILDERS.update(_mod.BUILDERS)
        TORCH_REFERENCES.update(getattr(_mod, "TORCH_REFERENCES", {}))  # ember-only (private) ops
        VIEW_OPS |= getattr(_mod, "VIEW_OPS", set())  # an area's view ops: layout compared too
        LAYOUT_OPS |= getattr(_mod, "VIEW_OPS", set())

REDUCTIONS = {"sum", "nansum", "mean", "nanmean", "prod", "max", "min", "amax", "amin",
              "aminmax", "argmax", "argmin", "all", "any", "count_nonzero", "var", "std",
              "var_mean", "std_mean", "logsumexp", "norm", "vector_norm"}
OUT_KINDS = ["same", "float64", "int64", "bool", "empty", "wrong-shape"]


def builder_for(op: dict) -> Any:
    key = op_key(op)
    if key in BUILDERS:
        return BUILDERS[key]
    if op["family"] == "pointwise":
        return pointwise_builder
    if op["name"] in REDUCTIONS:
        return reduction_builder
    return None


UNCOVERED: list[str] = []


def collect() -> list:
    """(op key, callable name, variant, case, out kind) for every test."""
    params = []
    for op in OPS:
        key = op_key(op)
        builder = builder_for(op)
        cases = builder(op) if builder else []
        if not cases:
            UNCOVERED.append(key)
            continue
        variants = op["variants"]
        tensor_first = [c for c in cases if isinstance(c.args[:1] and c.args[0], T)]
        for v in variants:
            if v == "function":
                sel = cases
            elif v == "method":
                sel = (tensor_first if "function" not in variants
                       else [c for c in tensor_first if c.method])
            elif v == "inplace":
                sel = [c for c in tensor_first if c.inplace]
            else:
                sel = [c for c in cases if c.out]
            for c in sel:
                for kind in (OUT_KINDS if v == "out" else [None]):
                    params.append((key, op["name"], v, c, kind))
            if v == "out" and sel:  # an out= that requires grad: once per op
                params.append((key, op["name"], v, sel[0], "requires-grad"))
        # Aliases: the op's first few cases under each alias name and variant.
        for alias in op["aliases"]:
            base = [c for c in tensor_first if c.id in ("float32", "int64", "float32-both")][:2]
            base = base or tensor_first[:1]
            for v in variants:
                for c in base:
                    params.append((key, alias, v, c, "same" if v == "out" else None))
    return params


PARAMS = collect()


def param_id(p: tuple) -> str:
    key, name, variant, case, kind = p
    head = key if name == key.split(".")[0] else f"{key}[{name}]"
    text = f"{head}-{variant}-{case.id}" + (f"-out:{kind}" if kind else "")
    return text.replace(" ", "")  # ids usable with -k


# ============================================================================================
# Running one case
# ============================================================================================

def resolve(lib: Any, op: dict, name: str) -> Any:
    if name in TORCH_REFERENCES:  # ember's private op (ember._C) against its torch composition
        return TORCH_REFERENCES[name] if lib is torch else getattr(ember._lib._C, name)
    mod = getattr(lib, op["namespace"]) if op["namespace"] else lib
    if lib is torch and name == "alias" and not hasattr(torch, "alias"):
        return torch.ops.aten.alias  # PyTorch only exposes alias as an aten op
    return getattr(mod, name)


# Methods whose `self` is not the schema's first argument: Tensor.where(condition, other) is
# torch.where(condition, self, other).
METHOD_SELF = {"where": 1}


def invoke(lib: Any, op: dict, name: str, variant: str, args: tuple, kwargs: dict) -> Any:
    if variant in ("function", "out"):
        return resolve(lib, op, name)(*args, **kwargs)
    if variant == "method":
        i = METHOD_SELF.get(op["name"], 0)
        return getattr(args[i], name)(*args[:i], *args[i + 1:], **kwargs)
    return getattr(args[0], name + "_")(*args[1:], **kwargs)


def make_out(ref: Any, kind: str) -> Any:
    """A preallocated torch ``out`` for a reference result, filled with a sentinel (3)."""
    if isinstance(ref, tuple):  # (values, indices)-style: only the first gets the odd kind
        return tuple(make_out(r, kind if i == 0 else "same") for i, r in enumerate(ref))
    dtype, shape = (ref.dtype, tuple(ref.shape)) if isinstance(ref, torch.Tensor) else (
        torch.float32, ())
    if kind in ("float64", "int64", "bool"):
        dtype = getattr(torch, kind)
    if kind == "empty":
        shape = (0,)
    elif kind == "wrong-shape":
        shape = (7,)
    out = torch.full(shape, 3, dtype=dtype)
    # aten refuses to write into an out= that requires grad (while grad mode is on)
    return out.requires_grad_() if kind == "requires-grad" and (dtype.is_floating_point or dtype.is_complex) else out


def out_pair(tout: Any) -> Any:
    if isinstance(tout, tuple):
        return tuple(out_pair(o) for o in tout)
    return H.torch_to_ember(tout.detach()).requires_grad_(tout.requires_grad)


def tensors_in(obj: Any) -> list:
    if isinstance(obj, (torch.Tensor, ember.Tensor)):
        return [obj]
    if isinstance(obj, (tuple, list)):
        return [t for o in obj for t in tensors_in(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in tensors_in(o)]
    return []


@pytest.mark.parametrize("key, name, variant, case, out_kind", PARAMS,
                         ids=[param_id(p) for p in PARAMS])
def test_parity(key: str, name: str, variant: str, case: Case, out_kind: str | None) -> None:
    if case.isolate:
        H.run_forked(lambda: check_case(key, name, variant, case, out_kind))
    else:
        check_case(key, name, variant, case, out_kind)


def check_case(key: str, name: str, variant: str, case: Case, out_kind: str | None) -> None:
    op = next(o for o in OPS if op_key(o) == key)
    H.TOL_SCALE[0] = H.LOOSE_OPS.get(op["name"], 1.0)
    m = H.Materializer(param_id((key, name, variant, case, out_kind)))
    targs, eargs = m.pair(case.args)
    tkw, ekw = m.pair(case.kwargs)

    tout = eout = None
    if variant == "out":
        ref, _ = H.run(lambda: invoke(torch, op, name, "function", targs, tkw))
        tout = make_out(ref, out_kind)
        eout = out_pair(tout)
        tkw, ekw = {**tkw, "out": tout}, {**ekw, "out": eout}

    t_res, t_exc = H.run(lambda: invoke(torch, op, name, variant, targs, tkw))
    e_res, e_exc = H.run(lambda: invoke(ember, op, name, variant, eargs, ekw))
    if H.check_exceptions(t_exc, e_exc):
        return
    H.assert_same(e_res, t_res, "result: ", case.meta)

    # Aliasing contract: in-place / trailing-underscore ops return self, out= returns out.
    if targs and isinstance(targs[0], torch.Tensor):
        assert (e_res is eargs[0]) == (t_res is targs[0]), (
            f"returns-self differs: torch {t_res is targs[0]}, ember {e_res is eargs[0]}")
    if variant == "out":
        if isinstance(tout, tuple):
            for i, (to, eo) in enumerate(zip(tout, eout, strict=True)):
                assert (e_res[i] is eo) == (t_res[i] is to), f"out[{i}] is not the result"
        else:
            assert (e_res is eout) == (t_res is tout), "out= result is not the out tensor"
        H.assert_same(eout, tout, "out tensor: ", case.meta)

    # Every tensor argument must end up equal too (in-place writes, no stray writes).
    tensor_args = zip(tensors_in((targs, tkw)), tensors_in((eargs, ekw)), strict=True)
    for i, (ta, ea) in enumerate(tensor_args):
        H.assert_same(ea, ta, f"argument {i} after the call: ", case.meta)

    if op["name"] in LAYOUT_OPS and isinstance(t_res, torch.Tensor):
        H.assert_layout_same(e_res, t_res, "result: ")
    # a result aliases its input exactly where torch's does (a no-op reshape, contiguous, to(same dtype))
    if (isinstance(t_res, torch.Tensor) and targs and isinstance(targs[0], torch.Tensor)
            and t_res.numel() and targs[0].numel() and e_res.device.type != "meta"):
        t_shares = H.storage_base(t_res) == H.storage_base(targs[0])
        e_shares = H.storage_base(e_res) == H.storage_base(eargs[0])
        assert t_shares == e_shares, (f"shares storage with input: torch {t_shares}, "
                                      f"ember {e_shares}")


def test_every_op_has_cases() -> None:
    """The generator must produce inputs for every op in OPS (the list names any it cannot)."""
    assert not UNCOVERED, f"no parity inputs for: {UNCOVERED}"


def test_every_variant_is_exercised() -> None:
    seen = {(p[0], p[2]) for p in PARAMS}
    missing = [f"{op_key(op)}:{v}" for op in OPS for v in op["variants"]
               if (op_key(op), v) not in seen]
    assert not missing, f"variants with no parity case: {missing}"
