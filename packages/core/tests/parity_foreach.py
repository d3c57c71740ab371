"""Parity inputs for the foreach area (ops/foreach.yaml): torch's multi-tensor ``_foreach_*`` ops.

In-place forms get their ``self`` list as a tuple: PyTorch returns the very object it was given,
and the generic comparison walks tuples element by element."""

from __future__ import annotations

from typing import Any

import parity_inputs as H

T, DT, Case = H.T, H.DT, H.Case


def C(id: str, *args: Any, **kwargs: Any) -> Case:
    return Case(id, args, kwargs, method=False, inplace=False, out=False)


SHAPES = [(3, 4), (5,), (2, 3, 2)]


def tl(dtype: str = "float32", dom: str = "default", view: str = "contig", shapes: list | None = None) -> list:
    return [T(s, dtype, dom, view if len(s) == 2 else "contig") for s in (shapes or SHAPES)]


def _self(op: dict, lst: list) -> Any:
    return tuple(lst) if op["name"].endswith("_") else lst


def scalar_builder(op: dict) -> list:
    dom = "nonzero" if op["name"].startswith("_foreach_div") else "default"
    S = lambda *a, **k: _self(op, tl(*a, **k))  # noqa: E731
    cases = [C("f32", S(), 2.5), C("f64", S("float64"), -0.75), C("int-scalar", S(), 3),
             C("f32-t", S(view="t"), 1.5), C("f16", S("float16"), 0.5), C("single", _self(op, [T((4,))]), 2.0),
             C("empty-list", _self(op, []), 1.0), C("int-list-int", S("int64"), 2)]
    if not op["name"].startswith("_foreach_div"):
        cases.append(C("int-list-float", S("int64"), 1.5))  # in-place: cast error, as torch
    if dom == "nonzero":
        cases.append(C("by-zero", S(), 0.0))
    return cases


def list_builder(op: dict) -> list:
    name = op["name"]
    dom = "nonzero" if name.startswith("_foreach_div") else "default"
    S = lambda *a, **k: _self(op, tl(*a, **k))  # noqa: E731
    cases = [C("f32", S(), tl(dom=dom)), C("f64", S("float64"), tl("float64", dom)),
             C("mixed", S(), tl("float64", dom)), C("views", S(view="t"), tl(dom=dom, view="slice2")),
             C("broadcast", _self(op, [T((3, 4))]), [T((4,), "float32", dom)]),
             C("len-mismatch", S(), tl(dom=dom)[:2]),
             C("shape-mismatch", _self(op, [T((3,))]), [T((4,), "float32", dom)]),
             C("empty-list", _self(op, []), [])]
    if name.startswith(("_foreach_add", "_foreach_sub")):
        cases += [C("alpha", S(), tl(), alpha=-0.5), C("alpha-int", S("int64"), tl("int64"), alpha=3)]
    return cases


# the unary ops' input domains where the default one (standard normal) is outside theirs
_UNARY_DOMAIN = {"sqrt": "positive", "log": "positive", "log10": "positive", "log2": "positive", "acos": "unit",
                 "asin": "unit", "reciprocal": "nonzero", "log1p": "positive"}


def unary_builder(op: dict) -> list:
    dom = _UNARY_DOMAIN.get(op["name"][len("_foreach_"):].rstrip("_"), "default")
    S = lambda *a, **k: _self(op, tl(*a, **k))  # noqa: E731
    return [C("f32", S(dom=dom)), C("f64", S("float64", dom)), C("t", S(dom=dom, view="t")),
            C("empty-list", _self(op, []))] + ([C("negative", S())] if dom == "positive" else [])


def addc_builder(op: dict) -> list:
    dom = "nonzero" if "addcdiv" in op["name"] else "default"
    S = lambda *a, **k: _self(op, tl(*a, **k))  # noqa: E731
    return [C("default-value", S(), tl(), tl(dom=dom)), C("value", S(), tl(), tl(dom=dom), -0.25),
            C("kw", S("float64"), tl("float64"), tl("float64", dom), value=2),
            C("views", S(view="t"), tl(view="slice2"), tl(dom=dom)),
            C("len-mismatch", S(), tl(), tl(dom=dom)[:1])]


def lerp_scalar_builder(op: dict) -> list:
    S = lambda *a, **k: _self(op, tl(*a, **k))  # noqa: E731
    return [C("w0.1", S(), tl(), 0.1), C("w0.9", S(), tl(), 0.9), C("f64", S("float64"), tl("float64"), 0.5),
            C("len-mismatch", S(), tl()[:2], 0.5)]


def lerp_list_builder(op: dict) -> list:
    S = lambda *a, **k: _self(op, tl(*a, **k))  # noqa: E731
    return [C("f32", S(), tl(), tl(dom="unit")), C("f64", S("float64"), tl("float64"), tl("float64", "unit")),
            C("len-mismatch", S(), tl(), tl()[:1])]


def copy_builder(op: dict) -> list:
    return [C("f32", tuple(tl()), tl()), C("cast", tuple(tl()), tl("float64")), C("int", tuple(tl()), tl("int64")),
            C("views", tuple(tl(view="t")), tl(view="slice2")), C("broadcast", (T((3, 4)),), [T((4,))]),
            C("non-blocking", tuple(tl()), tl(), non_blocking=True), C("len-mismatch", tuple(tl()), tl()[:1])]


def norm_builder(op: dict) -> list:
    return [C("default", tl()), C("ord1", tl(), 1), C("inf", tl(), float("inf")), C("ord3", tl("float64"), 3.0),
            C("dtype", tl(), dtype=DT("float64")), C("empty-list", [])]


BUILDERS: dict[str, Any] = {"_foreach_norm.Scalar": norm_builder, "_foreach_copy_": copy_builder,
                            "_foreach_lerp.Scalar": lerp_scalar_builder, "_foreach_lerp_.Scalar": lerp_scalar_builder,
                            "_foreach_lerp.List": lerp_list_builder, "_foreach_lerp_.List": lerp_list_builder,
                            "_foreach_zero_": unary_builder}
for _n in ("add", "sub", "mul", "div", "maximum"):
    for _s in ("", "_"):
        BUILDERS[f"_foreach_{_n}{_s}.Scalar"] = scalar_builder
        BUILDERS[f"_foreach_{_n}{_s}.List"] = list_builder
for _n in ("addcmul", "addcdiv"):
    for _s in ("", "_"):
        BUILDERS[f"_foreach_{_n}{_s}.Scalar"] = addc_builder
for _n in ("sqrt", "neg", "abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
           "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "reciprocal", "round", "sigmoid", "sign", "sin",
           "sinh", "tan", "tanh", "trunc"):
    BUILDERS[f"_foreach_{_n}"] = BUILDERS[f"_foreach_{_n}_"] = unary_builder
BUILDERS["_foreach_max"] = unary_builder
for _n in ("clamp_min", "clamp_max", "minimum", "pow"):
    for _s in ("", "_"):
        BUILDERS[f"_foreach_{_n}{_s}.Scalar"] = scalar_builder
        BUILDERS[f"_foreach_{_n}{_s}.List"] = list_builder


# ---- fused optimizer steps: every state tensor is compared after the call --------------------

def _adam_lists(n_amsgrad: bool, dtype: str = "float32") -> tuple:
    p, g = tl(dtype), tl(dtype)
    m, v = tl(dtype), tl(dtype, "positive")
    mx = tl(dtype, "positive") if n_amsgrad else []
    steps = [T((), "float32", "positive") for _ in SHAPES]
    return p, g, m, v, mx, steps


def fused_adam_builder(op: dict) -> list:
    kw = dict(lr=1e-2, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)
    cases = [C("plain", *_adam_lists(False), **kw),
             C("f64", *_adam_lists(False, "float64"), **kw),
             C("wd", *_adam_lists(False), **{**kw, "weight_decay": 0.1}),
             C("amsgrad", *_adam_lists(True), **{**kw, "amsgrad": True}),
             C("maximize", *_adam_lists(False), **{**kw, "maximize": True, "beta1": 0.5}),
             C("grad-scale", *_adam_lists(False), **kw, grad_scale=T((), "float32", "positive")),
             C("found-inf", *_adam_lists(False), **kw, found_inf=T((), "float32", values=(1.0,))),
             C("len-mismatch", tl(), tl()[:2], tl(), tl(), [], [T((), "float32", "positive")] * 3, **kw)]
    return cases


def fused_sgd_builder(op: dict) -> list:
    kw = dict(weight_decay=0.0, momentum=0.9, lr=0.1, dampening=0.0, nesterov=False, maximize=False,
              is_first_step=False)
    return [C("momentum", tl(), tl(), tl(), **kw), C("first", tl(), tl(), tl(), **{**kw, "is_first_step": True}),
            C("f64", tl("float64"), tl("float64"), tl("float64"), **kw),
            C("nesterov-wd", tl(), tl(), tl(), **{**kw, "nesterov": True, "weight_decay": 0.01}),
            C("dampening-max", tl(), tl(), tl(), **{**kw, "dampening": 0.3, "maximize": True}),
            C("no-momentum", tl(), tl(), [], **{**kw, "momentum": 0.0}),
            C("grad-scale", tl(), tl(), tl(), **kw, grad_scale=T((), "float32", "positive"))]


BUILDERS.update({"_fused_adam_": fused_adam_builder, "_fused_adamw_": fused_adam_builder,
                 "_fused_sgd_": fused_sgd_builder})
