"""Parity inputs for the ops of ops/nn_activation.yaml (aten's gelu, threshold, hardtanh, hardsigmoid,
softplus, silu, hardswish, elu / celu, leaky_relu, the shrinks, log_sigmoid, _prelu_kernel, glu and their backward ops), compared with ``torch._C._nn`` / ``torch.ops.aten`` through
parity_inputs' ``torch._nn`` shim."""

from __future__ import annotations

from typing import Any

import ember._nn  # noqa: F401  (makes ember._nn an attribute of ember)
import parity_inputs as H

H.install_torch_nn()
T, Case = H.T, H.Case

NAN, INF = float("nan"), float("inf")
FLOATS = ("float32", "float64", "float16", "bfloat16")
ALL = FLOATS + ("int64", "int32", "int8", "uint8", "bool")
LAYOUTS = [("t", (3, 4)), ("slice2", (3, 4)), ("permute", (2, 3, 4)), ("expand", (3, 4)), ("offset", (3, 4))]
# torch's own wrong answer (gelu(+inf) is NaN in its vectorised erf, float16 included on CPUs
# with AVX512-FP16) is in torch_known_wrong.py; these values stay clear of it in every dtype
# (1e30 would round to inf in float16, hence float16's largest finite value).
EDGES = (NAN, -INF, -1e30, -3.0, -0.0, 0.0, 1e-30, 3.0, 6.0, 1e30, 0.5, -0.5)


def C(id: str, *args: Any, **kwargs: Any) -> Case:
    return Case(id, args, kwargs, method=False, inplace=False, out=False)


def unary(extra: tuple = (), edges: tuple = EDGES, **kw: Any) -> list:
    """One input of every dtype and layout (torch decides raise or compute), plus edge values."""
    cs = [C(dt, T((3, 4), dt), *extra, **kw) for dt in ALL]
    cs += [C(v, T(s, view=v), *extra, **kw) for v, s in LAYOUTS]
    cs += [C("0d", T(()), *extra, **kw), C("empty", T((0, 3)), *extra, **kw)]
    cs += [C(f"edges-{dt}", T((12,), dt, values=_finite(edges, dt)), *extra, **kw) for dt in FLOATS]
    return cs


def _finite(edges: tuple, dt: str) -> tuple:
    return tuple(65504.0 if v == 1e30 else v for v in edges) if dt == "float16" else edges


def backward(extra: tuple = (), mixed: bool = True, edges: tuple = EDGES, **kw: Any) -> list:
    """(grad_output, self) pairs: float dtypes, mixed, broadcast, layouts, edge values of self."""
    cs = [C(dt, T((3, 4), dt), T((3, 4), dt), *extra, **kw) for dt in FLOATS + ("int64",)]
    cs += [C(v, T(s), T(s, view=v), *extra, **kw) for v, s in LAYOUTS]
    if mixed:  # torch's gelu_backward sends mixed dtypes and broadcasts to oneDNN, which raises
        cs.append(C("mixed", T((3, 4), "float64"), T((3, 4)), *extra, **kw))
        cs.append(C("broadcast", T((3, 4)), T((4,)), *extra, **kw))
    cs += [C(f"edges-{dt}", T((12,), dt), T((12,), dt, values=_finite(edges, dt)), *extra, **kw) for dt in FLOATS]
    return cs


def gelu_cases(op: dict) -> list:
    cs = unary() + unary(approximate="tanh")
    cs.append(C("bad-approximate", T((3, 4)), approximate="erf"))
    return cs


def gelu_backward_cases(op: dict) -> list:
    return backward(mixed=False) + backward(approximate="tanh", mixed=False) + [C("bad", T(), T(), approximate="x")]


def threshold_cases(op: dict) -> list:
    cs = []
    for th, v in ((0.5, -2.0), (0, 0), (1.5, 0.5), (-1, 7), (NAN, 1.0), (0.0, NAN), (INF, 3)):
        cs += [C(f"{dt}-{th}-{v}", T((3, 4), dt), th, v) for dt in ALL if not (dt != "float32" and th == INF)]
    return cs + unary((0.0, -1.0))


def hardtanh_cases(op: dict) -> list:
    # No NaN: the gradient at a NaN (input or bound) is torch's position- and CPU-dependent answer (see
    # bounds_backward_cases); test_activation_ieee.py checks the values.
    edges = tuple(v for v in EDGES if v == v)
    cs = unary(edges=edges) + unary((-0.5, 0.25), edges=edges) + unary((0, 6), edges=edges)
    for dt in ("int64", "int32", "int8", "uint8", "int16"):
        cs.append(C(f"{dt}-float-bounds", T((3, 4), dt), -1.5, 2.5))
    cs.append(C("uint8-negative", T((3, 4), "uint8"), -1.0, 2.0))
    return cs


def bounds_backward_cases(op: dict) -> list:
    # NaN left out: torch's vectorised path gives 0 there, its scalar tail grad (which one depends on the
    # element's position and the CPU); test_activation_ieee.py checks ember's 0 on a long tensor.
    edges = tuple(v for v in EDGES if v == v)
    return backward((-1.0, 1.0), edges=edges) + backward((0, 6), edges=edges)


def hardsigmoid_backward_cases(op: dict) -> list:
    # Half types only: PyTorch has no derivative of hardsigmoid_backward (ember has: it is linear in
    # grad_output and flat in self), so the float32/64 leaves of the gradient parity test would compare
    # against its error. Its float32/64 values are covered through hardsigmoid's own gradient.
    cs = [c for c in backward() if all(isinstance(a, T) and a.dtype in ("float16", "bfloat16") for a in c.args)]
    return cs + [C("int64", T((3, 4), "int64"), T((3, 4), "int64"))]


def softplus_cases(op: dict) -> list:
    cs = unary() + unary((2.0, 5.0))
    for beta, th in ((1e30, 20.0), (1.0, NAN), (-1.0, 20.0), (0.5, INF), (1e39, 20.0), (1.0, 1e39)):
        for dt in ("float32", "float64", "float16"):
            cs.append(C(f"{dt}-beta{beta}-th{th}", T((12,), dt, values=EDGES), beta, th))
    return cs


def softplus_backward_cases(op: dict) -> list:
    return backward((1.0, 20.0)) + backward((2.0, 1.0)) + backward((1.0, NAN))


def hardswish_backward_cases(op: dict) -> list:
    # No NaN self: torch's vectorised path gives NaN there, its scalar tail grad (ember: grad, on every position)
    return backward(edges=tuple(v for v in EDGES if v == v))


def silu_backward_cases(op: dict) -> list:
    # Half types only, as hardsigmoid_backward: torch's aten::silu_backward has no derivative (its silu
    # differentiates a composite when create_graph is set); test_activation_kernels.py compares silu's
    # second derivative, which ember's silu_backward derivative gives, with torch's.
    cs = [c for c in backward(mixed=False) if all(isinstance(a, T) and a.dtype in ("float16", "bfloat16")
                                                  for a in c.args)]
    return cs + [C("int64", T((3, 4), "int64"), T((3, 4), "int64"))]


# (alpha, scale, input_scale): non-finite, negative, zero and out-of-float-range coefficients
ELU_PARAMS = ((INF, 1.0, 1.0), (-0.5, 1.0, 2.0), (NAN, 1.0, 1.0), (1.0, 1.0, INF), (1.0, 0.0, -1.0), (0.0, 2.0, 1.0),
              (1e39, 1.0, 1.0), (1.0, 1e39, 1.0), (1.0, 1.0, 1e39))


def elu_cases(op: dict) -> list:
    cs = unary() + unary((0.3,)) + unary((2.0, 3.0, 0.5))
    for p in ELU_PARAMS:
        cs += [C(f"{dt}-{p}", T((12,), dt, values=EDGES), *p) for dt in ("float32", "float64", "float16")]
    return cs


def elu_backward_cases(op: dict) -> list:
    cs = []
    for is_result in (False, True):
        cs += backward((1.0, 1.0, 1.0, is_result)) + backward((2.0, 3.0, 0.5, is_result))
        cs += [C(f"params-{p}-{is_result}", T((12,)), *p, is_result, T((12,), values=EDGES)) for p in ELU_PARAMS]
    # a negative alpha cannot be recovered from the result (aten's in-place elu backward error)
    return [_elu_backward_order(c) for c in cs] + [C("negative-slope-result", T((3,)), -1.0, 1.0, 1.0, True, T((3,)))]


def _elu_backward_order(c: Case) -> Case:
    # backward() puts (grad_output, self) first; aten's signature is (grad_output, alpha, scale,
    # input_scale, is_result, self_or_result)
    g, x, *rest = c.args
    return C(c.id, g, *rest, x) if len(c.args) > 2 else c


def celu_cases(op: dict) -> list:
    cs = unary() + unary((0.7,)) + unary((-1.5,))
    for alpha in (INF, -INF, NAN, 1e-39, 1e39, 0.0, -0.0):
        cs += [C(f"{dt}-{alpha}", T((12,), dt, values=EDGES), alpha) for dt in ("float32", "float64", "float16")]
    return cs


def leaky_relu_cases(op: dict) -> list:
    cs = unary() + unary((0.2,)) + unary((-0.5,))
    for slope in (INF, NAN, 0.0, 1e39):
        cs += [C(f"{dt}-{slope}", T((12,), dt, values=EDGES), slope) for dt in ("float32", "float64", "float16")]
    return cs


def leaky_relu_backward_cases(op: dict) -> list:
    cs = []
    for is_result in (False, True):
        cs += backward((0.01, is_result)) + backward((2.0, is_result))
    # a negative slope cannot be recovered from the result (aten's in-place leaky_relu backward error)
    return cs + [C("negative-slope-result", T((3,)), T((3,)), -1.0, True)]


def shrink_cases(op: dict) -> list:
    # lambd: 0, large, past the dtype (hardshrink converts it to the dtype; softshrink checks the range),
    # negative and NaN (softshrink refuses them)
    # No NaN input (nor a NaN lambd for hardshrink, which takes it): the gradient there is torch's position-
    # and CPU-dependent answer (torch_known_wrong's shrink-backward-nan); test_activation_kernels checks values.
    edges = tuple(v for v in EDGES if v == v)
    cs = unary(edges=edges) + unary((0.0,), edges=edges) + unary((2.5,), edges=edges)
    for lambd in (-1.0, INF, 1e5, 1e39) + ((NAN,) if op["name"] == "softshrink" else ()):
        cs += [C(f"{dt}-{lambd}", T((12,), dt, values=edges), lambd) for dt in FLOATS]
    if "method" in op["variants"]:
        cs.append(Case("method", (T((3, 4)), 0.3), {}, method=True, inplace=False, out=False))
    return cs


def shrink_backward_cases(op: dict) -> list:
    # No NaN self: torch's vectorised path gives 0 there, its scalar tail grad (ember: 0 everywhere)
    edges = tuple(v for v in EDGES if v == v)
    return backward((0.5,), edges=edges) + backward((0.0,), edges=edges) + backward((1e39,), edges=edges)


def log_sigmoid_backward_cases(op: dict) -> list:
    # (grad_output, self, buffer): the buffer as aten's forward makes it, e^-|x|, or any values
    cs = [C(dt, T((3, 4), dt), T((3, 4), dt), T((3, 4), dt)) for dt in FLOATS + ("int64",)]
    cs += [C(v, T(s), T(s, view=v), T(s)) for v, s in LAYOUTS]
    cs += [C(f"edges-{dt}", T((12,), dt), T((12,), dt, values=_finite(EDGES, dt)), T((12,), dt)) for dt in FLOATS]
    cs.append(C("broadcast-buffer", T((3, 4)), T((3, 4)), T((4,))))
    # aten's iterator wants self's dtype everywhere
    cs += [C("mixed-grad", T((3, 4), "float64"), T((3, 4)), T((3, 4))),
           C("mixed-self", T((3, 4)), T((3, 4), "float64"), T((3, 4)))]
    return cs


# _prelu_kernel(self, weight): F.prelu's weight view along dim 1, a shared slope, edges, dtypes
def prelu_cases(op: dict) -> list:
    cs = [C(dt, T((2, 3, 4), dt), T((1, 3, 1), dt, values=(0.25, -0.5, 2.0))) for dt in ALL]
    cs += [C("shared", T((3, 4)), T((1, 1), values=(0.1,))), C("0d", T(()), T((), values=(0.3,))),
           C("mixed", T((3, 4)), T((1, 4), "float64")), C("strided", T((4, 3), view="t"), T((1, 3))),
           C("bad-broadcast", T((3, 4)), T((3,)))]
    cs += [C(f"edges-{dt}", T((12,), dt, values=_finite(EDGES, dt)), T((1,), dt, values=(0.2,))) for dt in FLOATS]
    return cs


# _prelu_kernel_backward(grad_output, self, weight): two gradients, grad_weight in the broadcast shape
def prelu_backward_cases(op: dict) -> list:
    cs = [C(dt, T((2, 3, 4), dt), T((2, 3, 4), dt), T((1, 3, 1), dt)) for dt in FLOATS + ("int64",)]
    cs += [C("shared", T((3, 4)), T((3, 4)), T((1, 1))), C("0d", T(()), T(()), T(())),
           C("strided", T((4, 3)), T((4, 3), view="t"), T((1, 3)))]
    cs += [C(f"edges-{dt}", T((12,), dt), T((12,), dt, values=_finite(EDGES, dt)), T((1,), dt)) for dt in FLOATS]
    return cs


# glu(self, dim): halves along dim (even sizes; odd, 0-d and out-of-range dims raise), dtypes, layouts, edges
def glu_cases(op: dict) -> list:
    cs = [C(dt, T((3, 4), dt)) for dt in ALL]
    cs += [C(v, T(s, view=v), 0 if v == "permute" else -1) for v, s in LAYOUTS]
    cs += [C("dim0", T((4, 3)), 0), C("dim1", T((2, 6, 3)), 1), C("empty", T((0, 4))), C("empty-dim", T((4, 0)), 0),
           C("odd", T((3, 5))), C("0d", T(())), C("bad-dim", T((3, 4)), 2), C("neg-dim", T((4, 3)), -2)]
    cs += [C(f"edges-{dt}", T((2, 12), dt, values=_finite(EDGES, dt)), 0) for dt in FLOATS]
    # glu.out (castable out=, as aten's structured binary ops)
    cs += [Case(f"out-{dt}", (T((3, 4), dt), 1), {}, method=False, inplace=False, out=True)
           for dt in ("float32", "float64", "bfloat16")]
    return cs


# glu_backward(grad_output, self, dim): aten's order of errors (sigmoid's cast, the iterator's shapes, dtypes)
def glu_backward_cases(op: dict) -> list:
    cs = [C(dt, T((3, 2), dt), T((3, 4), dt), 1) for dt in FLOATS]
    cs += [C("int-self", T((3, 2)), T((3, 4), "int64"), 1), C("int-grad", T((3, 2), "int64"), T((3, 4)), 1),
           C("mixed", T((3, 2), "float64"), T((3, 4)), 1), C("broadcast", T((1, 2)), T((3, 4)), 1),
           C("bad-shape", T((3, 3)), T((3, 4)), 1), C("too-wide", T((2, 3, 2)), T((3, 4)), 1),
           C("odd", T((3, 2)), T((3, 5)), 1), C("0d", T(()), T(()), 0), C("strided", T((2, 3)), T((4, 3), view="t"), 0),
           C("dim0", T((2, 3)), T((4, 3)), 0), C("empty", T((0, 2)), T((0, 4)), 1)]
    cs += [C(f"edges-{dt}", T((1, 12), dt), T((2, 12), dt, values=_finite(EDGES, dt)), 0) for dt in FLOATS]
    return cs


BUILDERS = {
    "glu": glu_cases, "glu_backward": glu_backward_cases,
    "_prelu_kernel": prelu_cases, "_prelu_kernel_backward": prelu_backward_cases,
    "gelu": gelu_cases, "gelu_backward": gelu_backward_cases,
    "threshold": threshold_cases, "hardtanh": hardtanh_cases, "hardtanh_backward": bounds_backward_cases,
    "hardsigmoid": lambda op: unary(), "hardsigmoid_backward": hardsigmoid_backward_cases,
    "softplus": softplus_cases, "softplus_backward": softplus_backward_cases,
    "silu": lambda op: unary(), "silu_backward": silu_backward_cases,
    "hardswish": lambda op: unary(), "hardswish_backward": hardswish_backward_cases,
    "leaky_relu": leaky_relu_cases, "leaky_relu_": leaky_relu_cases, "leaky_relu_backward": leaky_relu_backward_cases,
    "hardshrink": shrink_cases, "softshrink": shrink_cases, "hardshrink_backward": shrink_backward_cases,
    "softshrink_backward": shrink_backward_cases,
    "log_sigmoid": lambda op: unary(), "log_sigmoid_backward": log_sigmoid_backward_cases,
    "elu": elu_cases, "elu_": elu_cases, "elu_backward": elu_backward_cases, "celu": celu_cases, "celu_": celu_cases,
}
