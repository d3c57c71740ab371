"""Autocast (PyTorch's CPU op lists, nesting, enabled=False, decorator, cache, autograd through the
casts) and GradScaler, against PyTorch 2.13 on the same inputs and the same training loop."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")


def both(fn):
    """fn(lib) for ember and torch."""
    return fn(ember), fn(torch)


def arr(lib, *shape, seed=0, dtype="float32"):
    rng = np.random.default_rng(seed + len(shape))
    a = rng.uniform(0.5, 1.5, size=shape).astype(np.float32)
    return lib.tensor(a.tolist(), dtype=getattr(lib, dtype))


def dtype_name(t):
    return str(t.dtype).split(".")[-1]


def to_np(t):
    return np.asarray(t.detach().float().tolist(), dtype=np.float64)


LOWER_OPS = {
    "mm": lambda L, d: L.mm(arr(L, 3, 4, dtype=d), arr(L, 4, 5, dtype=d)),
    "matmul": lambda L, d: L.matmul(arr(L, 2, 3, 4, dtype=d), arr(L, 4, 5, dtype=d)),
    "@": lambda L, d: arr(L, 3, 4, dtype=d) @ arr(L, 4, 2, dtype=d),
    "Tensor.mm": lambda L, d: arr(L, 3, 4, dtype=d).mm(arr(L, 4, 2, dtype=d)),
    "bmm": lambda L, d: L.bmm(arr(L, 2, 3, 4, dtype=d), arr(L, 2, 4, 3, dtype=d)),
    "addmm": lambda L, d: L.addmm(arr(L, 3, 3, dtype=d), arr(L, 3, 4, dtype=d), arr(L, 4, 3, dtype=d)),
    "baddbmm": lambda L, d: L.baddbmm(arr(L, 2, 3, 3, dtype=d), arr(L, 2, 3, 4, dtype=d), arr(L, 2, 4, 3, dtype=d)),
    "linear": lambda L, d: L.nn.functional.linear(arr(L, 3, 4, dtype=d), arr(L, 5, 4, dtype=d), arr(L, 5, dtype=d)),
    "linear3d": lambda L, d: L.nn.functional.linear(arr(L, 2, 3, 4, dtype=d), arr(L, 5, 4, dtype=d)),
    "conv1d": lambda L, d: L.nn.functional.conv1d(arr(L, 1, 2, 7, dtype=d), arr(L, 3, 2, 3, dtype=d)),
    "conv2d": lambda L, d: L.nn.functional.conv2d(arr(L, 1, 2, 5, 5, dtype=d), arr(L, 3, 2, 3, 3, dtype=d),
                                                  arr(L, 3, dtype=d)),
    "conv_transpose2d": lambda L, d: L.nn.functional.conv_transpose2d(arr(L, 1, 2, 4, 4, dtype=d),
                                                                      arr(L, 2, 3, 3, 3, dtype=d)),
    "prelu": lambda L, d: L.nn.functional.prelu(arr(L, 2, 3, dtype=d) - 1, arr(L, 3, dtype=d)),
    "sdpa": lambda L, d: L.nn.functional.scaled_dot_product_attention(arr(L, 1, 2, 3, dtype=d), arr(L, 1, 2, 3, dtype=d),
                                                                     arr(L, 1, 2, 3, dtype=d)),
    "einsum": lambda L, d: L.einsum("ij,jk->ik", arr(L, 3, 4, dtype=d), arr(L, 4, 2, dtype=d)),
    "nn.Linear": lambda L, d: _seeded(L, lambda: L.nn.Linear(4, 3))(arr(L, 2, 4, dtype=d)),
}
FP32_OPS = {
    "mse_loss": lambda L, d: L.nn.functional.mse_loss(arr(L, 3, dtype=d), arr(L, 3, seed=1, dtype=d)),
    "l1_loss": lambda L, d: L.nn.functional.l1_loss(arr(L, 3, dtype=d), arr(L, 3, seed=1, dtype=d)),
    "smooth_l1_loss": lambda L, d: L.nn.functional.smooth_l1_loss(arr(L, 3, dtype=d), arr(L, 3, seed=1, dtype=d)),
    "huber_loss": lambda L, d: L.nn.functional.huber_loss(arr(L, 3, dtype=d), arr(L, 3, seed=1, dtype=d)),
    "cross_entropy": lambda L, d: L.nn.functional.cross_entropy(arr(L, 2, 3, dtype=d), L.tensor([0, 2])),
    "nll_loss": lambda L, d: L.nn.functional.nll_loss(arr(L, 2, 3, dtype=d), L.tensor([0, 2])),
    "bce": lambda L, d: L.nn.functional.binary_cross_entropy(arr(L, 3, dtype=d) / 2, arr(L, 3, seed=1, dtype=d) / 2),
    "bce_logits": lambda L, d: L.nn.functional.binary_cross_entropy_with_logits(arr(L, 3, dtype=d),
                                                                                arr(L, 3, seed=1, dtype=d) / 2),
    "kl_div": lambda L, d: L.nn.functional.kl_div(arr(L, 3, dtype=d), arr(L, 3, seed=1, dtype=d), reduction="sum"),
    "margin_ranking": lambda L, d: L.nn.functional.margin_ranking_loss(arr(L, 3, dtype=d), arr(L, 3, seed=1, dtype=d),
                                                                       arr(L, 3, seed=2, dtype=d)),
    "prod": lambda L, d: arr(L, 3, dtype=d).prod(),
    "trace": lambda L, d: L.trace(arr(L, 3, 3, dtype=d)),
    "cdist": lambda L, d: L.cdist(arr(L, 3, 3, dtype=d), arr(L, 2, 3, seed=1, dtype=d)),
    "linalg.inv": lambda L, d: L.linalg.inv(L.eye(3, dtype=getattr(L, d)) * 2),
    "linalg.svdvals": lambda L, d: L.linalg.svdvals(L.eye(3, dtype=getattr(L, d))),
    "adaptive_avg_pool3d": lambda L, d: L.nn.functional.adaptive_avg_pool3d(arr(L, 1, 1, 4, 4, 4, dtype=d), 2),
}
UNLISTED_OPS = {
    "exp": lambda L, d: L.exp(arr(L, 3, dtype=d)),
    "sum": lambda L, d: arr(L, 3, dtype=d).sum(),
    "softmax": lambda L, d: L.softmax(arr(L, 3, dtype=d), 0),
    "relu": lambda L, d: L.relu(arr(L, 3, dtype=d)),
    "mv": lambda L, d: L.mv(arr(L, 3, 3, dtype=d), arr(L, 3, dtype=d)),
    "layer_norm": lambda L, d: L.nn.functional.layer_norm(arr(L, 2, 3, dtype=d), (3,)),
}


def _seeded(L, make):
    L.manual_seed(0)
    m = make()
    with L.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(arr(L, *p.shape, seed=10 + i))
    return m


@pytest.mark.parametrize("low", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", list(LOWER_OPS))
def test_lower_precision_list(name, low):
    def run(L):
        with L.autocast("cpu", dtype=getattr(L, low)):
            return LOWER_OPS[name](L, "float32")

    e, t = both(run)
    assert dtype_name(e) == dtype_name(t) == low
    tol = 2e-2 if low == "bfloat16" else 2e-3
    np.testing.assert_allclose(to_np(e), to_np(t), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", list(FP32_OPS))
def test_fp32_list(name):
    def run(L):
        with L.autocast("cpu", dtype=L.bfloat16):
            return FP32_OPS[name](L, "bfloat16")

    e, t = both(run)
    assert dtype_name(e) == dtype_name(t) == "float32"
    np.testing.assert_allclose(to_np(e), to_np(t), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", list(UNLISTED_OPS))
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_unlisted_ops_keep_their_dtype(name, dtype):
    def run(L):
        with L.autocast("cpu"):
            return UNLISTED_OPS[name](L, dtype)

    e, t = both(run)
    assert dtype_name(e) == dtype_name(t) == dtype


def test_promote_list_and_eligibility():
    def run(L):
        b, f, d = L.ones(2, dtype=L.bfloat16), L.ones(2), L.ones(2, dtype=L.float64)
        with L.autocast("cpu"):
            return [L.cat([b, f]).dtype, L.stack([b, f]).dtype, L.cat([b, d]).dtype, L.cat([b, b]).dtype,
                    L.cat([b, L.ones(2, dtype=L.int64)]).dtype,
                    L.index_copy(b, 0, L.tensor([0]), L.ones(1)).dtype,
                    L.mm(L.ones(2, 2, dtype=L.float64), L.ones(2, 2, dtype=L.float64)).dtype,
                    L.mm(L.ones(2, 2, dtype=L.int64), L.ones(2, 2, dtype=L.int64)).dtype,
                    L.mm(L.ones(2, 2, dtype=L.float16), L.ones(2, 2)).dtype]

    e, t = both(run)
    assert [str(x) for x in e] == [str(x) for x in t]
    for L in (ember, torch):  # float16 among bfloat16 in a promote op: PyTorch's error
        with L.autocast("cpu"), pytest.raises(RuntimeError, match="Unexpected floating ScalarType"):
            L.cat([L.ones(2, dtype=L.float16), L.ones(2, dtype=L.bfloat16)])


def test_out_and_inplace_forms_are_not_autocast():
    for L in (ember, torch):
        a, out = L.ones(2, 2), L.empty(2, 2)
        with L.autocast("cpu"):
            assert L.mm(a, a, out=out).dtype == L.float32
            assert L.ones(2, 2).addmm_(a, a).dtype == L.float32


def test_state_nesting_enabled_false_and_decorator():
    def run(L):
        seen = [L.is_autocast_enabled("cpu"), str(L.get_autocast_dtype("cpu")), L.is_autocast_enabled()]
        a = L.ones(2, 2)
        with L.autocast("cpu"):
            seen += [L.is_autocast_enabled("cpu"), str((a @ a).dtype), L.is_autocast_cache_enabled()]
            with L.autocast("cpu", enabled=False):
                seen += [L.is_autocast_enabled("cpu"), str((a @ a).dtype)]
            with L.autocast("cpu", dtype=L.float16):
                seen += [str((a @ a).dtype), str(L.get_autocast_dtype("cpu"))]
            seen += [str((a @ a).dtype), str(L.get_autocast_dtype("cpu"))]
            with L.amp.autocast("cpu", cache_enabled=False):
                seen += [L.is_autocast_cache_enabled()]
        seen += [L.is_autocast_enabled("cpu"), str((a @ a).dtype), str(L.get_autocast_dtype("cpu")),
                 str(L.get_autocast_dtype("cuda"))]

        @L.autocast("cpu")
        def f(x):
            return x @ x

        @L.amp.autocast("cpu", dtype=L.float16)
        def g(x):
            return x @ x

        seen += [str(f(a).dtype), str(g(a).dtype), f.__name__, L.is_autocast_enabled("cpu")]
        return seen

    e, t = both(run)
    assert e == t


def test_autocast_warnings_and_errors():
    for args in [("cpu", "float64"), ("cpu", "int32"), ("cpu", "float32"), ("cuda", None)]:
        def run(L, args=args):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                dt = getattr(L, args[1]) if args[1] else None
                with L.autocast(args[0], dtype=dt):
                    on = L.is_autocast_enabled("cpu")
                    res = (L.ones(2, 2) @ L.ones(2, 2)).dtype
            return on, str(res), [str(x.message) for x in w]

        assert run(ember) == run(torch)
    for bad in (3,):
        with pytest.raises(ValueError) as e:
            ember.autocast(bad)
        with pytest.raises(ValueError) as t:
            torch.autocast(bad)
        assert str(e.value) == str(t.value)
    with pytest.raises(RuntimeError, match="Expected one of"):
        ember.autocast("xyz")


def test_deprecated_cpu_amp_spellings():
    with pytest.warns(FutureWarning, match=r"torch.cpu.amp.autocast\(args...\)` is deprecated"):
        with ember.cpu.amp.autocast():
            assert (ember.ones(2, 2) @ ember.ones(2, 2)).dtype == ember.bfloat16
    assert issubclass(ember.cpu.amp.autocast, ember.amp.autocast)


def test_autograd_through_the_casts():
    def run(L):
        m = _seeded(L, lambda: L.nn.Sequential(L.nn.Linear(4, 8), L.nn.ReLU(), L.nn.Linear(8, 3)))
        x = arr(L, 5, 4)
        with L.autocast("cpu", dtype=L.bfloat16):
            out = m(x)
            loss = L.nn.functional.cross_entropy(out, L.tensor([0, 1, 2, 0, 1]))
        loss.backward()
        return out, loss, [p.grad for p in m.parameters()], type(out.grad_fn).__name__

    (eo, el, eg, en), (to, tl, tg, tn) = run(ember), run(torch)
    assert dtype_name(eo) == dtype_name(to) == "bfloat16" and dtype_name(el) == dtype_name(tl) == "float32"
    assert en == tn
    np.testing.assert_allclose(to_np(el), to_np(tl), rtol=2e-2)
    for a, b in zip(eg, tg):
        assert dtype_name(a) == dtype_name(b) == "float32"
        np.testing.assert_allclose(to_np(a), to_np(b), rtol=5e-2, atol=5e-3)


def test_weight_cast_cache_reuses_one_cast_per_region():
    w = ember.ones(3, 3, requires_grad=True)
    x = ember.ones(2, 3)
    with ember.autocast("cpu"):
        a = ember.nn.functional.linear(x, w)
        b = ember.nn.functional.linear(x, w)
        # both products hang off the same cast node of w (PyTorch's cache of leaf weights): w.t() of one cast
        cast_a = a.grad_fn.next_functions[1][0].next_functions[0][0]
        cast_b = b.grad_fn.next_functions[1][0].next_functions[0][0]
        assert type(cast_a).__name__ == "ToCopyBackward0" and cast_a is cast_b
    with ember.autocast("cpu", cache_enabled=False):
        c = ember.nn.functional.linear(x, w)
        d = ember.nn.functional.linear(x, w)
        assert c.grad_fn.next_functions[1][0].next_functions[0][0] is not d.grad_fn.next_functions[1][0].next_functions[0][0]
    (a.sum() + b.sum()).backward()
    assert w.grad.dtype == ember.float32 and w.grad.tolist() == [[4.0] * 3] * 3


# ---------------------------------------------------------------- GradScaler
def _scaler_loop(L, inject_inf_at=(2,), steps=6, autocast=False):
    m = _seeded(L, lambda: L.nn.Linear(4, 2))
    opt = L.optim.SGD(m.parameters(), lr=0.1)
    scaler = L.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=2)
    x, y = arr(L, 8, 4), arr(L, 8, 2, seed=3)
    trace = []
    for step in range(steps):
        opt.zero_grad()
        with L.autocast("cpu", enabled=autocast):
            loss = L.nn.functional.mse_loss(m(x), y)
        scaler.scale(loss).backward()
        if step in inject_inf_at:
            m.weight.grad[0, 0] = float("inf")
        scaler.step(opt)
        scaler.update()
        trace.append((scaler.get_scale(), scaler._get_growth_tracker(), loss.item()))
    return trace, [p.detach() for p in m.parameters()], scaler.state_dict()


def test_grad_scaler_matches_torch_on_the_same_loop():
    (et, ep, esd), (tt, tp, tsd) = _scaler_loop(ember), _scaler_loop(torch)
    assert [s[:2] for s in et] == [s[:2] for s in tt]  # backoff on the inf step, growth after 2 clean ones
    np.testing.assert_allclose([s[2] for s in et], [s[2] for s in tt], rtol=1e-5)
    for a, b in zip(ep, tp):
        np.testing.assert_allclose(to_np(a), to_np(b), rtol=1e-5, atol=1e-6)
    assert esd == tsd


def test_training_step_under_autocast_with_scaler():
    (et, ep, _), (tt, tp, _) = _scaler_loop(ember, inject_inf_at=(), autocast=True), \
        _scaler_loop(torch, inject_inf_at=(), autocast=True)
    assert [s[:2] for s in et] == [s[:2] for s in tt]
    np.testing.assert_allclose([s[2] for s in et], [s[2] for s in tt], rtol=3e-2)
    assert et[-1][2] < et[0][2]  # it trains


def test_grad_scaler_api_and_errors():
    def run(L):
        out = []
        s = L.amp.GradScaler("cpu")
        out.append((s.get_scale(), s.is_enabled(), s.state_dict(), s.get_growth_factor(), s.get_backoff_factor(),
                    s.get_growth_interval()))
        m = L.nn.Linear(2, 1)
        opt = L.optim.SGD(m.parameters(), lr=0.1)
        for call in (lambda: s.unscale_(opt), lambda: s.step(opt), lambda: s.update()):
            try:
                call()
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        s.scale(m(L.ones(1, 2)).sum()).backward()
        s.unscale_(opt)
        for call in (lambda: s.unscale_(opt), lambda: s.step(opt, closure=lambda: 0)):
            try:
                call()
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        s.step(opt)
        try:
            s.unscale_(opt)
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
        s.update(new_scale=8.0)
        out.append(s.get_scale())
        s2 = L.amp.GradScaler("cpu")
        s2.load_state_dict(s.state_dict())
        out.append(s2.state_dict())
        s3 = L.amp.GradScaler("cpu", enabled=False)
        out.append((s3.get_scale(), s3.state_dict(), s3.scale(L.ones(1)).item()))
        try:
            s.load_state_dict({})
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out.append(L.amp.GradScaler().is_enabled())
        out.append([str(x.message) for x in w])
        out.append([type(v).__name__ for v in s.scale([L.ones(1), (L.ones(1), L.ones(1))])])
        return out

    assert run(ember) == run(torch)
