"""svd_lowrank / pca_lowrank (ember/_linalg_lowrank.py) against PyTorch 2.13: under the same seed
both draw the same Gaussian test matrix, so the factors agree to rounding; plus shapes, dtypes,
the wide-matrix path, M, batches, errors and gradients."""

from __future__ import annotations

import ember
import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")


def _both(fn, data, **kw):
    outs = []
    for m in (ember, torch):
        m.manual_seed(0)
        A = m.tensor(data)
        outs.append([t.numpy() for t in fn(m)(A, **kw)])
    return outs


def _data(shape, dtype=np.float64, seed=3):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("shape,kw", [
    ((20, 8), {}), ((8, 20), {"q": 4}), ((3, 12, 7), {"q": 5, "niter": 1}), ((10, 10), {"q": 10, "niter": 0}),
    ((30, 6), {"q": 3, "niter": None}),
])
def test_svd_lowrank_matches_torch(shape, kw):
    (ue, se, ve), (ut, st, vt) = _both(lambda m: m.svd_lowrank, _data(shape), **kw)
    assert ue.shape == ut.shape and se.shape == st.shape and ve.shape == vt.shape
    np.testing.assert_allclose(se, st, rtol=1e-9, atol=1e-10)
    # singular vectors up to sign (LAPACK's QR/SVD sign choices may differ)
    sign = np.sign(np.sum(ue * ut, axis=-2, keepdims=True))
    np.testing.assert_allclose(ue * sign, ut, atol=1e-8)
    np.testing.assert_allclose(ve * sign, vt, atol=1e-8)


def test_svd_lowrank_with_M_and_float32():
    data = _data((15, 9), np.float32)
    outs = []
    for m in (ember, torch):
        m.manual_seed(1)
        A = m.tensor(data)
        U, S, V = m.svd_lowrank(A, q=4, M=A.mean(0, keepdim=True))
        assert U.dtype == m.float32
        outs.append(S.numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-4)


@pytest.mark.parametrize("shape,kw", [((20, 8), {}), ((20, 8), {"q": 3, "center": False}), ((2, 9, 5), {"q": 2})])
def test_pca_lowrank_matches_torch(shape, kw):
    (ue, se, ve), (ut, st, vt) = _both(lambda m: m.pca_lowrank, _data(shape), **kw)
    np.testing.assert_allclose(se, st, rtol=1e-9, atol=1e-10)
    assert ue.shape == ut.shape and ve.shape == vt.shape


@pytest.mark.parametrize("kw", [{"q": 9}, {"q": -1}, {"niter": -1}])
def test_pca_lowrank_errors(kw):
    msgs = []
    for m in (ember, torch):
        with pytest.raises(ValueError) as e:
            m.pca_lowrank(m.ones(8, 4), **kw)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_svd_lowrank_is_differentiable():
    A = ember.tensor(_data((6, 4)), requires_grad=True)
    ember.manual_seed(0)
    U, S, V = ember.svd_lowrank(A, q=4)
    S.sum().backward()
    At = torch.tensor(_data((6, 4)), requires_grad=True)
    torch.linalg.svdvals(At).sum().backward()  # q = full rank: the nuclear norm's gradient
    np.testing.assert_allclose(A.grad.numpy(), At.grad.numpy(), atol=1e-8)


def _spd(m, seed=0, batch=()):
    g = np.random.default_rng(seed)
    M = g.standard_normal((*batch, m, m))
    return M @ np.swapaxes(M, -1, -2) + np.eye(m)


@pytest.mark.parametrize("kw", [{}, {"k": 2}, {"k": 3, "largest": False}, {"k": 4}, {"n": 3, "k": 2},
                                {"k": 2, "method": "basic"}, {"k": 2, "B": "2I"}, {"k": 2, "iK": "I"}])
def test_lobpcg_matches_torch(kw):
    A = _spd(12)
    outs = []
    for m in (ember, torch):
        m.manual_seed(0)
        k = {n: (2 * m.eye(12, dtype=m.float64) if v == "2I" else m.eye(12, dtype=m.float64)) if isinstance(v, str)
             and v.endswith("I") else v for n, v in kw.items()}
        E, X = m.lobpcg(m.tensor(A), **k)
        outs.append((E.numpy(), X.numpy()))
    (ee, xe), (et, xt) = outs
    assert ee.shape == et.shape and xe.shape == xt.shape
    np.testing.assert_allclose(ee, et, rtol=1e-9)
    np.testing.assert_allclose(np.abs(np.sum(xe * xt, axis=0)) if "B" not in kw else 1.0, 1.0, atol=1e-6)


def test_lobpcg_batched_float32_and_errors():
    A = _spd(15, batch=(2,))
    E, X = ember.lobpcg(ember.tensor(A, dtype=ember.float32), k=2)
    assert E.shape == (2, 2) and X.shape == (2, 15, 2) and E.dtype == ember.float32
    want = np.sort(np.linalg.eigvalsh(A), -1)[..., ::-1][..., :2]
    np.testing.assert_allclose(E.numpy(), want, rtol=1e-4)
    for m in (ember, torch):
        with pytest.raises(ValueError, match=r"number of A rows \(=12\) is smaller than 3 x the number of requested "
                                             r"eigenpairs \(=5\)"):
            m.lobpcg(m.tensor(_spd(12)), k=5)
        with pytest.raises(AssertionError, match="A must be square"):
            m.lobpcg(m.ones(12, 10), k=1)
