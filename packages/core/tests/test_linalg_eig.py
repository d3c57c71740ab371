"""torch.linalg.eig / eigvals (issue 22 point 6) against PyTorch 2.13: dtypes, batches, errors,
out=, and gradients (gradcheck, and torch's values for losses that do not depend on the order of
the eigenvalues or the phase of the eigenvectors, which LAPACK builds may choose differently)."""

from __future__ import annotations

import ember
import pytest
from sibling import load  # conftest.py registers it

torch = pytest.importorskip("torch")


def mats(shape: tuple, dtype: str, seed: int = 0) -> tuple:
    g = torch.Generator().manual_seed(seed)
    t = torch.randn(shape, generator=g, dtype=getattr(torch, dtype))
    return ember.tensor(t.tolist(), dtype=getattr(ember, dtype)).reshape(shape), t


def to_torch(e: ember.Tensor) -> torch.Tensor:
    return torch.tensor(e.tolist(), dtype=getattr(torch, str(e.dtype).split(".")[-1])).reshape(tuple(e.shape))


def sorted_vals(L: torch.Tensor) -> torch.Tensor:
    # by real part, then imaginary part (rounded: conjugate pairs tie on the real part)
    key = L.real.round(decimals=4) * 1e6 + L.imag
    return torch.gather(L, -1, key.argsort(-1))


raises_like = load("raise_checks").raises_like


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (2, 3, 5, 5), (0, 3, 3), (2, 0, 0)])
def test_eig_values_and_vectors(dtype: str, shape: tuple) -> None:
    e, t = mats(shape, dtype)
    Le, Ve = ember.linalg.eig(e)
    Lt, Vt = torch.linalg.eig(t)
    assert type(ember.linalg.eig(e)).__name__ == "linalg_eig"
    assert str(Le.dtype) == str(Lt.dtype) and str(Ve.dtype) == str(Vt.dtype)
    assert tuple(Le.shape) == tuple(Lt.shape) and tuple(Ve.shape) == tuple(Vt.shape)
    if t.numel() == 0:
        return
    tol = 1e-4 if dtype in ("float32", "complex64") else 1e-10
    L, V = to_torch(Le), to_torch(Ve)
    torch.testing.assert_close(sorted_vals(L), sorted_vals(Lt), rtol=tol, atol=tol)
    A = t.to(V.dtype)
    torch.testing.assert_close(A @ V, V * L.unsqueeze(-2), rtol=tol * 10, atol=tol * 10)
    torch.testing.assert_close(torch.linalg.vector_norm(V, dim=-2), torch.ones(L.shape, dtype=L.real.dtype),
                               rtol=tol, atol=tol)
    Lv = to_torch(ember.linalg.eigvals(e))
    torch.testing.assert_close(sorted_vals(Lv), sorted_vals(Lt), rtol=tol, atol=tol)


def test_real_input_with_real_eigenvalues_matches_exactly() -> None:
    e = ember.tensor([[2.0, 1.0], [1.0, 3.0]])
    t = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
    L, V = ember.linalg.eig(e)
    Lt, Vt = torch.linalg.eig(t)
    torch.testing.assert_close(to_torch(L), Lt)
    torch.testing.assert_close(to_torch(V).abs(), Vt.abs())


@pytest.mark.parametrize("case", [
    lambda L: L.linalg.eig(L.ones(2, 3)), lambda L: L.linalg.eig(L.ones(3)),
    lambda L: L.linalg.eig(L.ones(2, 2, dtype=L.int64)), lambda L: L.linalg.eig(L.ones(0, 0, dtype=L.int64)),
    lambda L: L.linalg.eig(L.ones(2, 2, dtype=L.bool)), lambda L: L.linalg.eig(L.ones(2, 2, dtype=L.float16)),
    lambda L: L.linalg.eig(L.ones(2, 2, dtype=L.bfloat16)), lambda L: L.linalg.eigvals(L.ones(2, 3, dtype=L.int64)),
    lambda L: L.linalg.eigvals(L.ones(2, 2, dtype=L.float16)),
    lambda L: L.linalg.eig(L.tensor([[1.0, float("nan")], [0.0, 1.0]])),
    lambda L: L.linalg.eig(L.tensor([[1.0, float("inf")], [0.0, 1.0]])),
    lambda L: L.linalg.eig(L.eye(2), out=(L.empty(0), L.empty(0))),
    lambda L: L.linalg.eig(L.eye(2), out=(L.empty(0, dtype=L.complex64), L.empty(0))),
    lambda L: L.linalg.eig(L.eye(2), out=(L.empty(0, dtype=L.complex64),)),
    lambda L: L.linalg.eigvals(L.eye(2), out=L.empty(0)),
    lambda L: L.linalg.eig(L.eye(2, requires_grad=True),
                           out=(L.empty(0, dtype=L.complex64), L.empty(0, dtype=L.complex64))),
])
def test_errors(case) -> None:
    raises_like(lambda: case(ember), lambda: case(torch))


def test_eigvals_of_non_finite_input_is_nan() -> None:
    got = ember.linalg.eigvals(ember.tensor([[1.0, float("inf")], [0.0, 1.0]]))
    want = torch.linalg.eigvals(torch.tensor([[1.0, float("inf")], [0.0, 1.0]]))
    assert str(got.dtype) == str(want.dtype)
    assert all(v != v for v in got.tolist())  # NaN, as PyTorch (never a crash)


def test_out() -> None:
    A = ember.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=ember.float64)
    oL, oV = ember.empty(0, dtype=ember.complex128), ember.empty(0, dtype=ember.complex128)
    r = ember.linalg.eig(A, out=(oL, oV))
    assert r.eigenvalues is oL and r.eigenvectors is oV and tuple(oV.shape) == (2, 2)
    L = ember.linalg.eig(A).eigenvalues
    assert oL.tolist() == pytest.approx(L.tolist())
    o = ember.empty(0, dtype=ember.complex64)  # complex128 results cast down, as PyTorch allows
    assert ember.linalg.eigvals(A, out=o) is o and tuple(o.shape) == (2,)


def _grad(lib, x0, loss):
    x = x0.detach().clone().requires_grad_(True)
    loss(lib, *lib.linalg.eig(x)).backward()
    return x.grad


LOSSES = [
    lambda L, w, V: w.abs().sum(), lambda L, w, V: (w * w).real.sum() + w.imag.abs().sum(),
    lambda L, w, V: V.abs().sum(), lambda L, w, V: (V.abs() ** 2 * w.abs().unsqueeze(-2)).sum(),
    lambda L, w, V: w.abs().sum() + V.abs().pow(3).sum(),
]


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("k", range(len(LOSSES)))
def test_gradients_match_torch(dtype: str, k: int) -> None:
    e, t = mats((2, 4, 4), dtype, seed=3)
    ge = _grad(ember, e, LOSSES[k])
    gt = _grad(torch, t, LOSSES[k])
    torch.testing.assert_close(to_torch(ge), gt, rtol=1e-6, atol=1e-8)


def test_eigvals_gradient_goes_through_eig() -> None:
    e, t = mats((3, 3), "float64", seed=1)
    xe, xt = e.requires_grad_(), t.requires_grad_()
    Le, Lt = ember.linalg.eigvals(xe), torch.linalg.eigvals(xt)
    assert type(Le.grad_fn).__name__ == type(Lt.grad_fn).__name__ == "LinalgEigBackward0"
    Le.abs().sum().backward()
    Lt.abs().sum().backward()
    torch.testing.assert_close(to_torch(xe.grad), xt.grad)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradcheck(dtype: str) -> None:
    e, _ = mats((3, 3), dtype, seed=5)
    x = e.requires_grad_()
    assert ember.autograd.gradcheck(lambda a: ember.linalg.eigvals(a).abs(), (x,))
    assert ember.autograd.gradcheck(lambda a: ember.linalg.eig(a)[1].abs(), (x,))
    assert ember.autograd.gradgradcheck(lambda a: ember.linalg.eigvals(a).abs().sum(), (x,))


def test_phase_dependent_loss_raises_as_torch() -> None:
    e, t = mats((3, 3), "complex128", seed=2)
    raises_like(lambda: _grad(ember, e, lambda L, w, V: V.sum().abs()),
                lambda: _grad(torch, t, lambda L, w, V: V.sum().abs()))
