"""The `_foreach_*` ops beyond the optimizers' own: the unary ops, clamp_min / clamp_max / minimum /
pow / max, and PyTorch's other argument forms (a number per tensor, a 1-d tensor of them, a tensor
beside the list, a number raised to each tensor), compared with torch: values, dtypes, in-place
results (the same list back), errors."""

from __future__ import annotations

from typing import Any

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")

UNARY = ["abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor", "frac",
         "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "sigmoid", "sign", "sin", "sinh",
         "sqrt", "tan", "tanh", "trunc"]


def _inputs(L: Any, dtype: str = "float32") -> list[Any]:
    vals = [[0.25, -0.5, 0.75], [[0.1, 0.9], [-0.3, 0.6]], [1.5]]
    return [L.tensor(v, dtype=getattr(L, dtype)) for v in vals]


def _as_lists(r: Any) -> Any:
    if isinstance(r, (list, tuple)):
        return [_as_lists(x) for x in r]
    return (str(r.dtype).split(".")[-1], np.asarray(r.tolist(), dtype=complex if r.is_complex() else float))


def _same(a: Any, b: Any) -> None:
    a, b = _as_lists(a), _as_lists(b)
    assert len(a) == len(b)
    for (da, va), (db, vb) in zip(a, b, strict=True):
        assert da == db
        np.testing.assert_allclose(va, vb, rtol=1e-6, atol=1e-7, equal_nan=True)


def _outcome(L: Any, call: Any) -> Any:
    try:
        return call(L)
    except Exception as e:  # noqa: BLE001 -- the error is what is compared
        return f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary(op: str, dtype: str) -> None:
    outs = [getattr(L, f"_foreach_{op}")(_inputs(L, dtype)) for L in (ember, torch)]
    _same(outs[0], outs[1])
    for L in (ember, torch):
        ts = _inputs(L, dtype)
        back = getattr(L, f"_foreach_{op}_")(ts)
        assert back is None or back is ts
        outs.append(ts)
    _same(outs[2], outs[3])


@pytest.mark.parametrize("op", ["exp", "sign", "abs", "floor"])
def test_unary_on_integers(op: str) -> None:
    outs = [_outcome(L, lambda L: getattr(L, f"_foreach_{op}")([L.tensor([1, -2, 3])])) for L in (ember, torch)]
    if isinstance(outs[1], str):
        assert outs[0] == outs[1]
    else:
        _same(outs[0], outs[1])


FORMS = [
    ("add ScalarList", lambda L, ts: L._foreach_add(ts, [1.0, 2, 0.5])),
    ("sub ScalarList", lambda L, ts: L._foreach_sub(ts, (1.0, 2.0, 3.0))),
    ("mul ScalarList", lambda L, ts: L._foreach_mul(ts, [2.0, -1.0, 0.5])),
    ("div ScalarList", lambda L, ts: L._foreach_div(ts, [2.0, 4.0, 8.0])),
    ("maximum ScalarList", lambda L, ts: L._foreach_maximum(ts, [0.0, 0.2, 2.0])),
    ("minimum ScalarList", lambda L, ts: L._foreach_minimum(ts, [0.0, 0.2, 2.0])),
    ("clamp_min ScalarList", lambda L, ts: L._foreach_clamp_min(ts, [0.0, 0.2, 2.0])),
    ("clamp_max ScalarList", lambda L, ts: L._foreach_clamp_max(ts, [0.0, 0.2, 2.0])),
    ("pow ScalarList", lambda L, ts: L._foreach_pow(ts, [2.0, 3.0, 0.5])),
    ("addcmul ScalarList", lambda L, ts: L._foreach_addcmul(ts, ts, ts, [1.0, 2.0, -0.5])),
    ("addcdiv ScalarList", lambda L, ts: L._foreach_addcdiv(ts, ts, ts, [1.0, 2.0, -0.5])),
    ("addcdiv 1-d tensor", lambda L, ts: L._foreach_addcdiv(ts, ts, ts, L.tensor([1.0, 2.0, -0.5]))),
    ("lerp ScalarList", lambda L, ts: L._foreach_lerp(ts, [t * 3 for t in ts], [0.5, 0.25, 1.0])),
    ("mul 0-d tensor", lambda L, ts: L._foreach_mul(ts, L.tensor(3.0))),
    ("add 0-d tensor alpha", lambda L, ts: L._foreach_add(ts, L.tensor(3.0), alpha=2)),
    ("pow number first", lambda L, ts: L._foreach_pow(2.0, ts)),
    ("pow Scalar", lambda L, ts: L._foreach_pow(ts, 2)),
    ("pow List", lambda L, ts: L._foreach_pow(ts, [t + 1 for t in ts])),
    ("clamp_min Scalar", lambda L, ts: L._foreach_clamp_min(ts, 0.2)),
    ("clamp_max List", lambda L, ts: L._foreach_clamp_max(ts, [t * 0 for t in ts])),
    ("minimum Scalar", lambda L, ts: L._foreach_minimum(ts, 0.2)),
    ("minimum List", lambda L, ts: L._foreach_minimum(ts, [t * 0 for t in ts])),
    ("max", lambda L, ts: L._foreach_max(ts)),
    ("wrong ScalarList length", lambda L, ts: L._foreach_mul(ts, [1.0, 2.0])),
    ("empty ScalarList", lambda L, ts: L._foreach_mul(ts, [])),
    ("empty tensor list", lambda L, ts: L._foreach_mul([], [])),
    ("1-d tensor scalars wrong length", lambda L, ts: L._foreach_addcdiv(ts, ts, ts, L.tensor([1.0, 2.0]))),
    ("mul 1-d tensor", lambda L, ts: L._foreach_mul(ts, L.ones(2))),
    ("mixed list", lambda L, ts: L._foreach_add(ts, [L.ones(3), 2.0, 1.0])),
    ("numbers with alpha", lambda L, ts: L._foreach_add(ts, [1.0, 2.0, 3.0], alpha=3)),
    ("lerp mixed weights", lambda L, ts: L._foreach_lerp(ts, ts, [L.ones(3), 1.0, 1.0])),
    ("addcmul 0-d scalars", lambda L, ts: L._foreach_addcmul(ts, ts, ts, L.tensor(2.0))),
    ("addcmul 2-d scalars", lambda L, ts: L._foreach_addcmul(ts, ts, ts, L.ones(3, 1))),
    ("max of an empty tensor", lambda L, ts: L._foreach_max([L.ones(0)])),
    ("clamp_min complex numbers", lambda L, ts: L._foreach_clamp_min(ts, [1, 2 + 1j, 3])),
    ("int div by zero", lambda L, ts: L._foreach_div([L.ones(1, dtype=L.int64)], [0])),
    ("exp of integers in place", lambda L, ts: L._foreach_exp_([L.ones(2, dtype=L.int64)])),
]


@pytest.mark.parametrize("name,call", FORMS, ids=[f[0] for f in FORMS])
def test_argument_forms(name: str, call: Any) -> None:
    outs = [_outcome(L, lambda L: call(L, _inputs(L))) for L in (ember, torch)]
    if isinstance(outs[1], str):
        assert outs[0] == outs[1]
    else:
        _same(outs[0], outs[1])


INPLACE = [
    ("add_ ScalarList", lambda L, ts: L._foreach_add_(ts, [1.0, 2.0, 0.5])),
    ("mul_ ScalarList", lambda L, ts: L._foreach_mul_(ts, [2.0, -1.0, 0.5])),
    ("maximum_ ScalarList", lambda L, ts: L._foreach_maximum_(ts, [0.0, 0.2, 2.0])),
    ("pow_ ScalarList", lambda L, ts: L._foreach_pow_(ts, [2.0, 3.0, 0.5])),
    ("addcdiv_ ScalarList", lambda L, ts: L._foreach_addcdiv_(ts, [t + 1 for t in ts], [t + 2 for t in ts],
                                                              [1.0, 2.0, -0.5])),
    ("lerp_ ScalarList", lambda L, ts: L._foreach_lerp_(ts, [t * 3 for t in ts], [0.5, 0.25, 1.0])),
    ("clamp_max_ Scalar", lambda L, ts: L._foreach_clamp_max_(ts, 0.2)),
    ("minimum_ List", lambda L, ts: L._foreach_minimum_(ts, [t * 0 for t in ts])),
    ("pow_ List", lambda L, ts: L._foreach_pow_(ts, [t + 1 for t in ts])),
]


@pytest.mark.parametrize("name,call", INPLACE, ids=[f[0] for f in INPLACE])
def test_inplace_forms(name: str, call: Any) -> None:
    lists = []
    for L in (ember, torch):
        ts = _inputs(L)
        back = call(L, ts)
        assert back is None or back is ts
        lists.append(ts)
    _same(lists[0], lists[1])


def test_adam_style_step_sizes() -> None:
    """PyTorch's own foreach Adam passes a list of step sizes to addcdiv_ (one per parameter)."""
    lists = []
    for L in (ember, torch):
        ps, m, v = _inputs(L), [t * 0.1 for t in _inputs(L)], [t * t + 1 for t in _inputs(L)]
        denom = L._foreach_sqrt(v)
        L._foreach_add_(denom, 1e-8)
        L._foreach_addcdiv_(ps, m, denom, [-0.001 / (1 - 0.9 ** k) for k in (1, 2, 3)])
        lists.append(ps)
    _same(lists[0], lists[1])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("scalar", [0.9989, 0.1234567, 3.3333])
def test_inplace_mul_number_rounding(dtype: str, scalar: float) -> None:
    """aten's in-place foreach mul reads the number rounded to a half type (its out-of-place form
    and Tensor.mul_ do not): SGD's momentum buffers in float16 follow it bit for bit."""
    a = np.random.default_rng(0).standard_normal(300).astype("float32")
    got = []
    for L in (ember, torch):
        t = L.from_numpy(a.copy()).to(getattr(L, dtype))
        u = L.from_numpy(a.copy()).to(getattr(L, dtype))
        L._foreach_mul_([t], scalar)
        (v,) = L._foreach_mul([u], scalar)
        got.append((t.float().numpy(), v.float().numpy()))
    np.testing.assert_array_equal(got[0][0], got[1][0])
    np.testing.assert_array_equal(got[0][1], got[1][1])
