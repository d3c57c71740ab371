"""The SyncBatchNorm statistics functions (ember/_batch_norm_sync.py). PyTorch 2.13 runs only
batch_norm_update_stats on the CPU (the others are CUDA kernels), so that one is compared with
torch directly and the others by what they are for: SyncBatchNorm's forward and backward over a
batch split between simulated processes must give F.batch_norm's output, running statistics and
gradients on the whole batch (computed by torch)."""

from __future__ import annotations

import ember
import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")


def _e(t):
    return ember.tensor(t.detach().numpy())


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(a.detach().float().numpy(), b.detach().float().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("shape,split", [((6, 3, 5), [2, 4]), ((8, 4), [3, 3, 2]), ((4, 2, 3, 3), [1, 3])])
def test_sync_batch_norm_steps_match_batch_norm_on_the_whole_batch(shape, split):
    torch.manual_seed(0)
    x = torch.randn(shape, dtype=torch.float64) * 3 + 1
    w, b = torch.randn(shape[1], dtype=torch.float64), torch.randn(shape[1], dtype=torch.float64)
    go = torch.randn(shape, dtype=torch.float64)
    eps, momentum = 1e-5, 0.1
    # torch: batch norm on the whole batch
    xt, wt, bt = x.clone().requires_grad_(), w.clone().requires_grad_(), b.clone().requires_grad_()
    rm_t, rv_t = torch.zeros(shape[1], dtype=torch.float64), torch.ones(shape[1], dtype=torch.float64)
    yt = torch.nn.functional.batch_norm(xt, rm_t, rv_t, wt, bt, True, momentum, eps)
    yt.backward(go)
    # ember: each "process" has a slice; its stats are gathered, the reductions all-reduced
    parts = [_e(p) for p in x.split(split)]
    gos = [_e(g) for g in go.split(split)]
    we, be = _e(w), _e(b)
    stats = [ember.batch_norm_stats(p, eps) for p in parts]
    mean_all = ember.stack([s[0] for s in stats])
    invstd_all = ember.stack([s[1] for s in stats])
    counts = ember.tensor([float(p.numel() // p.shape[1]) for p in parts], dtype=ember.float64)
    rm_e, rv_e = ember.zeros(shape[1], dtype=ember.float64), ember.ones(shape[1], dtype=ember.float64)
    mean, invstd = ember.batch_norm_gather_stats_with_counts(parts[0], mean_all, invstd_all, rm_e, rv_e, momentum,
                                                             eps, counts)
    ys = [ember.batch_norm_elemt(p, we, be, mean, invstd, eps) for p in parts]
    _close(ember.cat(ys), yt, 1e-10)
    _close(rm_e, rm_t, 1e-10)
    _close(rv_e, rv_t, 1e-10)
    reds = [ember.batch_norm_backward_reduce(g, p, mean, invstd, we, True, True, True) for g, p in zip(gos, parts)]
    sum_dy = sum(r[0] for r in reds)
    sum_dy_xmu = sum(r[1] for r in reds)
    _close(sum(r[2] for r in reds), wt.grad, 1e-10)
    _close(sum(r[3] for r in reds), bt.grad, 1e-10)
    count_i = ember.tensor([p.numel() // p.shape[1] for p in parts], dtype=ember.int32)
    gx = [ember.batch_norm_backward_elemt(g, p, mean, invstd, we, sum_dy, sum_dy_xmu, count_i)
          for g, p in zip(gos, parts)]
    _close(ember.cat(gx), xt.grad, 1e-10)


def test_stats_of_low_precision_input_are_float32():
    x = ember.randn(4, 3, 5).to(ember.float16)
    mean, invstd = ember.batch_norm_stats(x, 1e-5)
    assert mean.dtype == invstd.dtype == ember.float32
    xf = x.float()
    _close(mean, xf.mean((0, 2)))
    _close(invstd, 1 / (xf.var((0, 2), correction=0) + 1e-5).sqrt(), 1e-4)
    y = ember.batch_norm_elemt(x, None, None, mean, invstd, 1e-5)
    assert y.dtype == ember.float16


def test_gather_stats_with_equal_counts():
    means, invstds = ember.tensor([[0.0, 1.0], [2.0, 3.0]]), ember.tensor([[1.0, 2.0], [0.5, 1.0]])
    a = ember.batch_norm_gather_stats(ember.empty(0), means, invstds, None, None, 0.1, 1e-5, 7)
    b = ember.batch_norm_gather_stats_with_counts(ember.empty(0), means, invstds, None, None, 0.1, 1e-5,
                                                  ember.tensor([7.0, 7.0]))
    assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()


def test_backward_reduce_leaves_out_what_is_not_asked_for():
    x, g = ember.randn(4, 3), ember.randn(4, 3)
    mean, invstd = ember.batch_norm_stats(x, 1e-5)
    r = ember.batch_norm_backward_reduce(g, x, mean, invstd, None, False, False, False)
    assert r == (None, None, None, None)
    r = ember.batch_norm_backward_reduce(g, x, mean, invstd, ember.ones(3, dtype=ember.float64), True, True, False)
    assert r[2].dtype == ember.float64 and r[3] is None and r[0].dtype == ember.float32


def test_stats_errors():
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.batch_norm_stats(ember.randn(3), 1e-5)
    with pytest.raises(RuntimeError, match="at least one element"):
        ember.batch_norm_stats(ember.randn(0, 3), 1e-5)


@pytest.mark.parametrize("make", [
    lambda m: (m.randn(4, 3, 5), m.zeros(3), m.ones(3)), lambda m: (m.randn(4, 3, 5), None, None),
    lambda m: (m.randn(4, 3, 5, dtype=m.float64), m.zeros(3, dtype=m.float64), None),
    lambda m: (m.randn(4, 3, 5).half(), None, None), lambda m: (m.randn(4, 3, 5).bfloat16(), m.zeros(3), m.ones(3)),
    lambda m: (m.randn(1, 3), m.zeros(3), m.ones(3)), lambda m: (m.randn(6, 2), None, m.ones(2)),
])
def test_update_stats_matches_torch(make):
    torch.manual_seed(1)
    xt, rmt, rvt = make(torch)
    xe = ember.tensor(xt.float().numpy()).to(getattr(ember, str(xt.dtype).split(".")[1]))
    rme = None if rmt is None else _e(rmt)
    rve = None if rvt is None else _e(rvt)
    mt, vt = torch.batch_norm_update_stats(xt, rmt, rvt, 0.1)
    me, ve = ember.batch_norm_update_stats(xe, rme, rve, 0.1)
    assert (str(me.dtype), str(ve.dtype)) == (str(mt.dtype), str(vt.dtype))
    tol = 1e-2 if xt.dtype in (torch.float16, torch.bfloat16) else 1e-5
    _close(me, mt, tol)
    _close(ve, vt, tol)
    for e, t in ((rme, rmt), (rve, rvt)):
        if t is not None:
            np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("make", [lambda m: m.randn(3), lambda m: m.randn(4, 3).long(), lambda m: m.randn(0, 3)])
def test_update_stats_errors_match_torch(make):
    def run(m):
        try:
            m.batch_norm_update_stats(make(m), None, None, 0.1)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)

    assert run(ember) == run(torch)
