"""The foreach (multi-tensor) optimizer path: torch's _foreach_* ops and SGD/Adam/AdamW steps.

The core parity test compares every _foreach_* op with torch on many inputs; here: the
optimizers' foreach path equals their per-parameter path bit for bit, follows torch's
trajectory (foreach on and off), and foreach ops stay differentiable."""

from __future__ import annotations

from typing import Any

import ember
import numpy as np
import pytest

SHAPES = [(4, 3), (3,), (2, 2, 2), (5,)]


def _params(seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in SHAPES]


def _grads(step: int) -> list[np.ndarray]:
    rng = np.random.default_rng(100 + step)
    return [rng.standard_normal(s).astype(np.float32) for s in SHAPES]


def _run(lib: Any, cls_name: str, kwargs: dict[str, Any], steps: int = 8, skip_first: bool = False,
         dtype: str = "float32") -> list[np.ndarray]:
    dt = getattr(lib, dtype)
    ps = [lib.tensor(a.tolist(), dtype=dt, requires_grad=True) for a in _params()]
    opt = getattr(lib.optim, cls_name)(ps, **kwargs)
    for k in range(steps):
        for i, (p, g) in enumerate(zip(ps, _grads(k), strict=False)):
            # The last parameter gets no gradient on step 0: its step count lags the others.
            p.grad = None if (skip_first and k == 0 and i == len(ps) - 1) else lib.tensor(g.tolist(), dtype=dt)
        opt.step()
    return [p.detach().numpy().copy() for p in ps]


CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.2, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.5, amsgrad=True)),
]


@pytest.mark.parametrize("skip_first", [False, True])
@pytest.mark.parametrize("name, kwargs", CONFIGS)
def test_foreach_equals_per_parameter_bitwise(name: str, kwargs: dict[str, Any], skip_first: bool) -> None:
    fused = _run(ember, name, {**kwargs, "foreach": True}, skip_first=skip_first)
    loop = _run(ember, name, {**kwargs, "foreach": False}, skip_first=skip_first)
    for a, b in zip(fused, loop, strict=False):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("skip_first", [False, True])
@pytest.mark.parametrize("name, kwargs", CONFIGS)
def test_fused_within_1e6_of_per_parameter(name: str, kwargs: dict[str, Any], skip_first: bool, dtype: str) -> None:
    loop = _run(ember, name, {**kwargs, "foreach": False}, skip_first=skip_first, dtype=dtype)
    for extra in ({}, {"fused": True}):  # the default takes the fused kernels
        fused = _run(ember, name, {**kwargs, **extra}, skip_first=skip_first, dtype=dtype)
        for a, b in zip(fused, loop, strict=False):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7 if dtype == "float32" else 1e-15)


@pytest.mark.parametrize("torch_foreach", [False, True])
@pytest.mark.parametrize("name, kwargs", CONFIGS)
def test_foreach_trajectory_matches_torch(torch: Any, name: str, kwargs: dict[str, Any], torch_foreach: bool) -> None:
    ours = _run(ember, name, kwargs, skip_first=True)
    ref = _run(torch, name, {**kwargs, "foreach": torch_foreach}, skip_first=True)
    for a, b in zip(ours, ref, strict=False):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_foreach_state_matches_torch(torch: Any) -> None:
    e = [ember.tensor(a.tolist(), requires_grad=True) for a in _params()]
    t = [torch.tensor(a, requires_grad=True) for a in _params()]
    eo, to = ember.optim.Adam(e, lr=0.01, foreach=True), torch.optim.Adam(t, lr=0.01, foreach=True)
    for k in range(3):
        for pe, pt, g in zip(e, t, _grads(k), strict=False):
            pe.grad, pt.grad = ember.tensor(g.tolist()), torch.tensor(g)
        eo.step()
        to.step()
    for pe, pt in zip(e, t, strict=False):
        se, st = eo.state[pe], to.state[pt]
        assert sorted(se) == sorted(st)
        assert float(se["step"]) == float(st["step"]) == 3.0
        np.testing.assert_allclose(se["exp_avg_sq"].numpy(), st["exp_avg_sq"].numpy(), rtol=1e-6, atol=1e-9)


def test_foreach_ops_are_differentiable(torch: Any) -> None:
    xs = [np.arange(1.0, 4.0), np.arange(2.0, 6.0)]
    e = [ember.tensor(x.tolist(), dtype=ember.float64, requires_grad=True) for x in xs]
    t = [torch.tensor(x, requires_grad=True) for x in xs]
    for lib, ts in ((ember, e), (torch, t)):
        a = lib._foreach_mul(ts, ts)
        b = lib._foreach_addcdiv(list(a), ts, list(lib._foreach_add(ts, 1.0)), value=0.5)
        sum(x.sum() for x in lib._foreach_sqrt(list(b))).backward()
    for pe, pt in zip(e, t, strict=False):
        np.testing.assert_allclose(pe.grad.numpy(), pt.grad.numpy(), rtol=1e-12)


def test_inplace_foreach_returns_its_argument_and_bumps_versions() -> None:
    xs = [ember.ones(3), ember.ones(2)]
    v = [x._version for x in xs]
    assert ember._foreach_mul_(xs, 2.0) is xs
    assert [x._version for x in xs] == [n + 1 for n in v]
    np.testing.assert_array_equal(xs[0].numpy(), [2.0, 2.0, 2.0])


def test_foreach_errors_match_torch(torch: Any) -> None:
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="Tensor list must have at least one tensor"):
            lib._foreach_add_([], 1.0)
        with pytest.raises(RuntimeError, match="Tensor lists must have the same number of tensors, got 1 and 2"):
            lib._foreach_add_([lib.ones(2)], [lib.ones(2), lib.ones(2)])
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            lib._foreach_mul_([lib.ones(2, requires_grad=True)], 2.0)


def test_fused_flag_errors_match_torch(torch: Any) -> None:
    for lib in (ember, torch):
        p = [lib.zeros(2, requires_grad=True)]
        for cls in (lib.optim.Adam, lib.optim.AdamW, lib.optim.SGD):
            with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
                cls(p, lr=0.1, fused=True, foreach=True)
            with pytest.raises(RuntimeError, match="`fused` does not support `differentiable`"):
                cls(p, lr=0.1, fused=True, differentiable=True)
