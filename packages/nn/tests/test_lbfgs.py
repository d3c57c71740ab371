"""ember.optim.LBFGS vs torch.optim.LBFGS: 20-step trajectories (with and without the
strong-Wolfe line search), state, stopping rules and errors."""

from __future__ import annotations

from typing import Any

import ember
import numpy as np
import pytest


def _problem(lib: Any, dtype: str) -> tuple[list[Any], Any]:
    """A small least-squares-plus-quartic problem (non-quadratic, so curvature pairs matter)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((12, 5))
    b = rng.standard_normal(12)
    dt = getattr(lib, dtype)
    w = lib.tensor(rng.standard_normal(5).tolist(), dtype=dt, requires_grad=True)
    c = lib.tensor([0.3], dtype=dt, requires_grad=True)
    A, B = lib.tensor(a.tolist(), dtype=dt), lib.tensor(b.tolist(), dtype=dt)

    def loss_fn() -> Any:
        r = A @ w + c - B
        return (r * r).mean() + 0.1 * (w**4).sum()

    return [w, c], loss_fn


def _run(lib: Any, kwargs: dict[str, Any], steps: int = 20, dtype: str = "float64") -> tuple[list, list, Any]:
    params, loss_fn = _problem(lib, dtype)
    opt = lib.optim.LBFGS(params, **kwargs)
    evals = {"n": 0}

    def closure() -> Any:
        evals["n"] += 1
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss

    losses = [float(opt.step(closure).detach()) for _ in range(steps)]
    return [p.detach().numpy().copy() for p in params], losses + [evals["n"]], opt


CONFIGS = [
    dict(),
    dict(line_search_fn="strong_wolfe"),
    dict(lr=0.5, max_iter=4, history_size=3),
    dict(lr=1, max_iter=3, history_size=2, line_search_fn="strong_wolfe"),
    dict(max_iter=5, max_eval=7, tolerance_change=1e-6),
    dict(max_iter=50, tolerance_grad=1e-3, line_search_fn="strong_wolfe"),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kwargs", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_twenty_steps_match_torch(torch: Any, kwargs: dict[str, Any], dtype: str) -> None:
    pe, le, oe = _run(ember, kwargs, dtype=dtype)
    pt, lt, ot = _run(torch, kwargs, dtype=dtype)
    rtol = 1e-5 if dtype == "float64" else 1e-4
    for a, b in zip(pe, pt, strict=False):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * 1e-1)
    np.testing.assert_allclose(le[:-1], lt[:-1], rtol=rtol)
    if dtype == "float64":
        assert le[-1] == lt[-1]  # same number of closure evaluations
        se, st = oe.state[oe._params[0]], ot.state[ot._params[0]]
        assert se["n_iter"] == st["n_iter"] and se["func_evals"] == st["func_evals"]
        assert len(se["old_dirs"]) == len(st["old_dirs"])


def test_state_dict_keys_match_torch(torch: Any) -> None:
    _, _, oe = _run(ember, dict(history_size=4), steps=2)
    _, _, ot = _run(torch, dict(history_size=4), steps=2)
    se, st = oe.state_dict(), ot.state_dict()
    assert sorted(se["state"][0]) == sorted(st["state"][0])
    assert se["param_groups"] == st["param_groups"]


def test_errors() -> None:
    w = ember.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        ember.optim.LBFGS([w], lr=-1)
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        ember.optim.LBFGS([{"params": [w]}, {"params": [ember.zeros(1, requires_grad=True)]}])
    opt = ember.optim.LBFGS([w], line_search_fn="armijo")

    def closure() -> Any:
        opt.zero_grad()
        loss = ((w - 1) ** 2).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


def test_converged_start_returns_immediately() -> None:
    w = ember.ones(3, requires_grad=True)
    opt = ember.optim.LBFGS([w])
    calls = []

    def closure() -> Any:
        calls.append(1)
        opt.zero_grad()
        loss = ((w - 1) ** 2).sum()
        loss.backward()
        return loss

    assert float(opt.step(closure)) == 0.0
    assert len(calls) == 1
