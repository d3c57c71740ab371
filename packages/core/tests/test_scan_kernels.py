"""cummax / cummin indices and logcumsumexp's forward in one C++ pass (kernels/cpu/scan), against torch:
every dim of a 3-d input (lines walked in chunks of 64 side by side, so inner sizes past 64), a
non-contiguous input, ties, NaN and infinities, the half dtypes, integers and bool (cummax), empty inputs; and
logcumsumexp's gradient, which the composite still records."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402

INF, NAN = float("inf"), float("nan")


def _pair(t: torch.Tensor) -> tuple[torch.Tensor, ember.Tensor]:
    return t, ember.tensor(t.tolist(), dtype=getattr(ember, str(t.dtype).split(".")[1]))


def _same(got: ember.Tensor, want: torch.Tensor, **tol: float) -> None:
    g = torch.tensor(got.tolist(), dtype=want.dtype).reshape(want.shape)
    torch.testing.assert_close(g, want, equal_nan=True, **tol)


def _base(dt: str) -> torch.Tensor:
    g = torch.Generator().manual_seed(0)
    if dt in ("int64", "int32", "uint8"):
        return torch.randint(0, 5, (3, 70, 5), generator=g).to(getattr(torch, dt))  # many ties
    if dt == "bool":
        return torch.randint(0, 2, (3, 70, 5), generator=g).bool()
    t = torch.randn(3, 70, 5, generator=g).round(decimals=1)  # ties
    t[0, 5, 1], t[1, 40, 2], t[2, 3, 0], t[2, 9, 0] = NAN, INF, -INF, NAN
    return t.to(getattr(torch, dt))


@pytest.mark.parametrize("dt", ["float32", "float64", "bfloat16", "float16", "int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cum_extreme(op: str, dt: str) -> None:
    t, e = _pair(_base(dt))
    for src_t, src_e in ((t, e), (t.transpose(0, 2), e.transpose(0, 2))):
        for dim in range(3):
            want = getattr(torch, op)(src_t, dim)
            got = getattr(ember, op)(src_e, dim)
            assert torch.equal(torch.tensor(got.indices.tolist()), want.indices), (op, dt, dim)
            _same(got.values, want.values)


@pytest.mark.parametrize("dt", ["float32", "float64", "float16"])
@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cum_extreme_nan_runs(op: str, dt: str) -> None:
    # contiguous lines (the one-line loop): a NaN first, NaN after NaN, values after a NaN, ties
    rows = [[NAN, 1.0, NAN, 2.0, -INF, INF], [1.0, NAN, 3.0, NAN, -1.0, 5.0], [2.0, 2.0, -1.0, 2.0, 7.0, 7.0]]
    t, e = _pair(torch.tensor(rows * 3, dtype=getattr(torch, dt)))
    for src_t, src_e in ((t, e), (t.t(), e.t())):
        want, got = getattr(torch, op)(src_t, -1), getattr(ember, op)(src_e, -1)
        assert torch.equal(torch.tensor(got.indices.tolist()), want.indices), (op, dt)
        _same(got.values, want.values)


def test_cum_extreme_grad_and_empty() -> None:
    t = torch.randn(4, 6, dtype=torch.float64, requires_grad=True)
    e = ember.tensor(t.tolist(), dtype=ember.float64, requires_grad=True)
    torch.cummax(t, 1).values.sum().backward()
    ember.cummax(e, 1).values.sum().backward()
    _same(e.grad, t.grad)
    got = ember.cummin(ember.empty(0, 3), 0)
    assert tuple(got.values.shape) == (0, 3) and got.indices.dtype == ember.int64


@pytest.mark.parametrize("dt", ["float32", "float64", "bfloat16", "float16"])
def test_logcumsumexp(dt: str) -> None:
    t, e = _pair(_base(dt) * 10)
    tol = {"float32": 1e-5, "float64": 1e-12, "bfloat16": 1.6e-2, "float16": 2e-3}[dt]
    for src_t, src_e in ((t, e), (t.transpose(0, 2), e.transpose(0, 2))):
        for dim in range(3):
            _same(ember.logcumsumexp(src_e, dim), torch.logcumsumexp(src_t, dim), rtol=tol, atol=tol)
    edge = torch.tensor([[-INF, -INF, 0.0, INF, 1.0, INF], [1.0, NAN, 2.0, -INF, 3.0, 4.0]])
    _same(ember.logcumsumexp(_pair(edge)[1], 1), torch.logcumsumexp(edge, 1))
    assert tuple(ember.logcumsumexp(ember.empty(0, 4), 0).shape) == (0, 4)


def test_logcumsumexp_grad() -> None:
    t = torch.randn(3, 9, dtype=torch.float64, requires_grad=True)
    e = ember.tensor(t.tolist(), dtype=ember.float64, requires_grad=True)
    w = torch.randn(3, 9, dtype=torch.float64)
    (torch.logcumsumexp(t, 1) * w).sum().backward()
    (ember.logcumsumexp(e, 1) * ember.tensor(w.tolist(), dtype=ember.float64)).sum().backward()
    _same(e.grad, t.grad)
