"""Gradient parity: every differentiable op in ops.yaml, backward compared with PyTorch.

The cases are the forward parity test's (test_parity.py): the same inputs, layouts and
dtypes. For each case whose result is floating point, the floating tensor arguments become
leaves that require grad (keeping their strides), both libraries run the op and
``autograd.grad`` with the same random grad_output, and the gradients must match (or both
libraries must raise the same error type). A second test runs ember's gradcheck and
gradgradcheck in float64 on every differentiable op, on random inputs in the op's domain.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
import parity_inputs as H  # noqa: E402
from ember._op_list import OPS  # noqa: E402


def _load_cases() -> Any:
    if "parity_cases" in sys.modules:
        return sys.modules["parity_cases"]
    spec = importlib.util.spec_from_file_location("parity_cases", Path(__file__).with_name("test_parity.py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["parity_cases"] = mod
    spec.loader.exec_module(mod)
    return mod


P = _load_cases()

# Ops whose result never carries a gradient (integer / boolean results, non-differentiable).
NOT_DIFFERENTIABLE = {"floor_divide", "zeros_like", "ones_like", "empty_like", "full_like", "detach",
                      "detach_", "argmax", "argmin", "count_nonzero", "all", "any", "isclose", "allclose",
                      "equal", "view.dtype"}
FLOAT = {"float32", "float64"}
# PyTorch bugs, not copied: var/std over dim=() reduce every dim forward but divide the
# gradient by zero (inf); addcdiv's backward with integer tensor1/tensor2 fails a cast check.
TORCH_BUGS = {("var", "dim()"), ("var", "dim()-keepdim"), ("var.dim_unbiased", "dim()"),
              ("var.dim_unbiased", "dim()-keepdim"), ("std", "dim()"), ("std", "dim()-keepdim"),
              ("std.dim_unbiased", "dim()"), ("std.dim_unbiased", "dim()-keepdim"),
              ("var_mean", "dim()"), ("var_mean", "dim()-keepdim"), ("std_mean", "dim()"),
              ("std_mean", "dim()-keepdim"), ("addcdiv", "int64-float32-int64"),
              # PyTorch has no derivative for remainder(number, tensor), and pow(number, bool)
              # trips an internal assert in its backward.
              ("remainder", "scalar-first"), ("pow", "scalar-base-True"),
              # trigamma at the poles of digamma: PyTorch's float kernel returns a large finite
              # number at negative integers where ember returns inf.
              ("digamma", "special-float32"), ("digamma", "special-float64"),
              # ember's two-pass variance leaves ~1e-7 for a constant column where PyTorch's
              # Welford gives exactly 0; std's gradient there is 0/0 in exact arithmetic.
              ("std_mean", "expand-dim0"),
              # pow's gradient at -inf and -0.0 with a negative fractional exponent: C's pow
              # (ember) gives 0 / +inf, PyTorch's vectorised pow NaN / -inf.
              ("pow", "special-scalar-exp")}


def _cofactors(a: Any) -> Any:
    """d det(A)/dA = adj(A)^T, the cofactor matrix of a 3x3 A: exact for small integer entries."""
    cof = torch.empty_like(a)
    for i in range(3):
        for j in range(3):
            r = [k for k in range(3) if k != i]
            c = [k for k in range(3) if k != j]
            minor = a[r[0], c[0]] * a[r[1], c[1]] - a[r[0], c[1]] * a[r[1], c[0]]
            cof[i, j] = (-1) ** (i + j) * minor
    return cof


# Gradients where PyTorch's answer depends on the CPU it runs on: compared with an exact value.
# det of a singular matrix: PyTorch 2.13 gives the cofactor matrix on Intel CPUs and all zeros
# on AMD Zen 4/5 (its LU-based backward divides by a zero pivot and masks the result).
EXACT_GRADS = {("det", "singular"): lambda targs, gos: [gos[0] * _cofactors(targs[0].detach())]}

TOL = {torch.float32: (1e-4, 1e-5), torch.float64: (1e-7, 1e-9), torch.float16: (1e-2, 1e-2),
       torch.bfloat16: (5e-2, 5e-2)}


def _float_leaf_args(obj: Any) -> bool:
    return any(isinstance(a, H.T) and a.dtype in FLOAT for a in obj)


def grad_params() -> list:
    params = []
    for op in OPS:
        key = P.op_key(op)
        if key in NOT_DIFFERENTIABLE or op["name"] in NOT_DIFFERENTIABLE or op["family"] == "custom" and (
                not any(p[0].startswith("Tensor") for p in op["params"])):
            continue
        if op["grad"] == "none" or "function" not in op["variants"] and "method" not in op["variants"]:
            continue
        builder = P.builder_for(op)
        for case in builder(op) if builder else []:
            if case.meta or not _float_leaf_args(case.args) or (key, case.id) in TORCH_BUGS:
                continue
            variant = "function" if "function" in op["variants"] else "method"
            params.append((key, variant, case))
    return params


PARAMS = grad_params()


def _leafify(targs: tuple, eargs: tuple) -> tuple[tuple, tuple, list, list]:
    """Float tensor args become leaves requiring grad (same strides)."""
    tl, el, tleaves, eleaves = [], [], [], []
    for t, e in zip(targs, eargs, strict=True):
        if isinstance(t, torch.Tensor) and t.dtype in (torch.float32, torch.float64):
            t = t.detach().requires_grad_(True)
            e = e.detach().requires_grad_(True)
            tleaves.append(t)
            eleaves.append(e)
        tl.append(t)
        el.append(e)
    return tuple(tl), tuple(el), tleaves, eleaves


def _float_outputs(res: Any) -> list:
    outs = res if isinstance(res, (tuple, list)) else [res]
    return [o for o in outs if isinstance(o, (torch.Tensor, ember.Tensor)) and o.is_floating_point()
            and o.requires_grad]


@pytest.mark.parametrize("key, variant, case", PARAMS, ids=[f"{k}-{v}-{c.id}" for k, v, c in PARAMS])
def test_grad_parity(key: str, variant: str, case: Any) -> None:
    op = next(o for o in OPS if P.op_key(o) == key)
    m = H.Materializer(f"grad-{key}-{case.id}")
    targs, eargs = m.pair(case.args)
    tkw, ekw = m.pair(case.kwargs)
    targs, eargs, tleaves, eleaves = _leafify(targs, eargs)
    t_res, t_exc = H.run(lambda: P.invoke(torch, op, op["name"], variant, targs, tkw))
    if t_exc is not None:
        return  # forward errors are the forward parity test's business
    e_res = P.invoke(ember, op, op["name"], variant, eargs, ekw)
    touts, eouts = _float_outputs(t_res), _float_outputs(e_res)
    assert len(touts) == len(eouts), f"outputs requiring grad: torch {len(touts)}, ember {len(eouts)}"
    if not touts:
        return
    gos = [torch.randn(o.shape, dtype=o.dtype, generator=m.g) for o in touts]
    egos = [H.torch_to_ember(g) for g in gos]
    t_g, t_exc = H.run(lambda: torch.autograd.grad(touts, tleaves, gos, allow_unused=True))
    if (key, case.id) in EXACT_GRADS:
        t_g = EXACT_GRADS[key, case.id](targs, gos)
    e_g, e_exc = H.run(lambda: ember.autograd.grad(eouts, eleaves, egos, allow_unused=True))
    if H.check_exceptions(t_exc, e_exc):
        return
    for i, (tg, eg) in enumerate(zip(t_g, e_g, strict=True)):
        if tg is None:
            assert eg is None or not eg.abs().sum().item(), f"grad {i}: torch None, ember {eg}"
            continue
        assert eg is not None, f"grad {i}: ember None, torch {tg}"
        # Tolerance of the precision the op computed in (a float64 0-d argument of a float32
        # op gets a float32 gradient cast up).
        rtol, atol = max(TOL[tg.dtype], *(TOL[o.dtype] for o in touts),
                         *(TOL[a.dtype] for a in targs if isinstance(a, torch.Tensor) and a.is_floating_point()))
        assert eg.dtype == H.edt(H.dtype_name(tg.dtype)), f"grad {i} dtype {eg.dtype} vs {tg.dtype}"
        assert tuple(eg.shape) == tuple(tg.shape), f"grad {i} shape {tuple(eg.shape)} vs {tuple(tg.shape)}"
        te = torch.from_numpy(eg.detach().numpy().copy())
        torch.testing.assert_close(te, tg.detach(), rtol=rtol, atol=atol, equal_nan=True,
                                   msg=lambda s, i=i: f"grad {i}: {s}")


# ---------------------------------------------------------------------------------------------
# gradcheck / gradgradcheck in float64
# ---------------------------------------------------------------------------------------------

DOMAIN = {**{k: v for k, v in P.UNARY_DOMAIN.items()}}
# Random inputs keep away from kinks (ties, zeros) where derivatives jump.
# aten's fused attention backward has no derivative of its own (double backward raises in both).
# grid_sampler*: its double backward is not ported (raises; see formulas_nn_pool.h)
SKIP_GRADGRAD: set[str] = {"_scaled_dot_product_flash_attention_for_cpu", "grid_sampler", "grid_sampler_2d",
                           "grid_sampler_3d"}
# Ops whose later outputs are declared non-differentiable but vary with the input (attention's
# logsumexp): gradcheck looks at the first output only.
FIRST_OUTPUT_ONLY = {"_scaled_dot_product_flash_attention_for_cpu"}
# PyTorch has no derivative for these (backward raises, as in ember): nothing to check.
# PyTorch has no derivative for these (grad: not_implemented in ops.yaml, or a reduce mode):
# test_grad_parity compares the backward error; gradcheck has nothing to check.
# An op with a derivative for some inputs only (zeta, igamma: `not_implemented("...")` for the
# others, as PyTorch): gradcheck asks for every input; test_grad_parity covers it.
NO_DERIVATIVE = {"scatter.reduce", "scatter.value_reduce"} | {
    P.op_key(op) for op in OPS if op["grad"] == "not_implemented"
    or isinstance(op["grad"], dict) and any(str(f).startswith("not_implemented(") for f in op["grad"].values())}


def _random_like(spec: Any, key: str, i: int, g: Any) -> Any:
    if not (isinstance(spec, H.T) and spec.dtype in FLOAT):
        return None
    x = torch.rand(spec.shape, dtype=torch.float64, generator=g) * 1.6 + 0.2  # (0.2, 1.8)
    dom = DOMAIN.get(key) or (P.BINARY_DOMAIN.get(key, ("default",) * 3)[i] if i < 2 else "default")
    if dom in ("unit",):
        x = x * 0.5 - 0.45
    elif dom == "prob":
        x = x * 0.5 + 0.05
    elif dom == "ge1":
        x = x + 1.0
    elif dom in ("default", "small") and key not in ("pow", "xlogy", "log", "sqrt"):
        sign = torch.where(torch.rand(spec.shape, generator=g) < 0.5, -1.0, 1.0).double()
        x = x * sign
    return x


def gradcheck_params() -> list:
    seen, out = set(), []
    for key, variant, case in PARAMS:
        if key in seen or key in NO_DERIVATIVE or key in ("_to_copy", "copy_", "fill_", "fill_.Tensor", "zero_"):
            continue
        if any(isinstance(a, H.T) and (a.dtype not in FLOAT or a.view == "expand") for a in case.args):
            continue
        if any(isinstance(a, H.T) and 0 in a.shape for a in case.args):
            continue
        seen.add(key)
        out.append((key, variant, case))
    return out


GC_PARAMS = gradcheck_params()


@pytest.mark.parametrize("key, variant, case", GC_PARAMS, ids=[f"{k}-{c.id}" for k, v, c in GC_PARAMS])
def test_gradcheck(key: str, variant: str, case: Any) -> None:
    op = next(o for o in OPS if P.op_key(o) == key)
    g = torch.Generator().manual_seed(7)
    args: list[Any] = []
    for i, spec in enumerate(case.args):
        x = _random_like(spec, key, i, g)
        if x is None:
            args.append(H.Materializer("gc").pair(spec)[1])
        else:
            args.append(H.torch_to_ember(x).requires_grad_(True))
    _, kw = H.Materializer("gc").pair(case.kwargs)
    for k, v in list(kw.items()):
        if isinstance(v, ember.Tensor) and v.is_floating_point():
            kw[k] = v.double()

    def fn(*xs: Any) -> Any:
        r = P.invoke(ember, op, op["name"], variant, xs, kw)
        return r[0] if key in FIRST_OUTPUT_ONLY else r

    try:
        fn(*args)
    except (RuntimeError, TypeError, ValueError, IndexError):
        pytest.skip("inputs invalid for this op")
    assert ember.autograd.gradcheck(fn, tuple(args), eps=1e-6, atol=1e-5, rtol=1e-3)
    if key not in SKIP_GRADGRAD:
        assert ember.autograd.gradgradcheck(fn, tuple(args), eps=1e-6, atol=1e-4, rtol=1e-3)
