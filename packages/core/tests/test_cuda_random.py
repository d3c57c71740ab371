"""Random numbers on a GPU (issue 24): the Philox samplers' statistics on 1M draws, their ranges and
dtypes, reproducibility under ember.manual_seed / ember.cuda.manual_seed / torch.Generator(device=
"cuda"), the CUDA generators' state and offset, native_dropout's mask, scale and backward. The GPU
tests skip without a GPU and a CUDA build; the last ones check the no-CUDA build's no-op seeding."""

from __future__ import annotations

import math

import ember
import pytest

gpu = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")
N = 1_000_000
FLOATS = [ember.float32, ember.float64, ember.float16, ember.bfloat16]


def host(t: ember.Tensor) -> ember.Tensor:
    assert t.device.type == "cuda"
    return t.cpu().double()


def mean_var(t: ember.Tensor) -> tuple[float, float]:
    h = host(t)
    m = float(h.mean())
    return m, float(((h - m) ** 2).mean())


# ---- distributions --------------------------------------------------------------------------


@gpu
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_uniform(dtype: ember.dtype) -> None:
    x = ember.empty(N, dtype=dtype, device="cuda").uniform_(-2, 3)
    assert x.dtype == dtype and x.shape == (N,)
    h = host(x)
    assert float(h.min()) >= -2 and float(h.max()) < 3
    m, v = mean_var(x)
    assert abs(m - 0.5) < 0.01 and abs(v - 25 / 12) < 0.02
    r = ember.rand(N, device="cuda", dtype=dtype)
    assert float(host(r).min()) >= 0 and float(host(r).max()) < 1


@gpu
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_normal(dtype: ember.dtype) -> None:
    x = ember.empty(N, dtype=dtype, device="cuda").normal_(1.5, 2.0)
    m, v = mean_var(x)
    assert abs(m - 1.5) < 0.02 and abs(math.sqrt(v) - 2.0) < 0.02
    h = host(ember.randn(N, device="cuda", dtype=dtype))
    assert abs(float(h.mean())) < 0.01 and bool(h.isfinite().all())
    within = float(((h > -1) & (h < 1)).double().mean())  # 68.27% within one sigma
    assert abs(within - 0.6827) < 0.01


@gpu
def test_normal_tensor_parameters() -> None:
    mean = ember.tensor([0.0, 10.0, -5.0], device="cuda").repeat(N // 3)
    std = ember.tensor([1.0, 0.5, 2.0], device="cuda").repeat(N // 3)
    x = host(ember.normal(mean, std)).reshape(-1, 3)
    assert ember.allclose(x.mean(0), ember.tensor([0.0, 10.0, -5.0], dtype=ember.float64), atol=0.03)
    assert ember.allclose(x.std(0), ember.tensor([1.0, 0.5, 2.0], dtype=ember.float64), atol=0.03)
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        ember.normal(mean[:3], ember.tensor([1.0, -1.0, 1.0], device="cuda"))


@gpu
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=str)
def test_exponential_cauchy_log_normal(dtype: ember.dtype) -> None:
    e = ember.empty(N, dtype=dtype, device="cuda").exponential_(2.0)
    m, v = mean_var(e)
    assert float(host(e).min()) >= 0 and abs(m - 0.5) < 0.01 and abs(v - 0.25) < 0.01
    c = host(ember.empty(N, dtype=dtype, device="cuda").cauchy_(1.0, 2.0))
    assert abs(float(c.median()) - 1.0) < 0.02
    assert abs(float(((c > -1) & (c < 3)).double().mean()) - 0.5) < 0.01  # median +- sigma holds half
    ln = host(ember.empty(N, dtype=dtype, device="cuda").log_normal_(0.5, 0.75))
    assert float(ln.min()) > 0
    lg = ln.log()
    assert abs(float(lg.mean()) - 0.5) < 0.01 and abs(float(lg.std()) - 0.75) < 0.01


@gpu
@pytest.mark.parametrize("dtype", [ember.float32, ember.int64, ember.int32], ids=str)
def test_geometric(dtype: ember.dtype) -> None:
    x = ember.empty(N, dtype=dtype, device="cuda").geometric_(0.3)
    h = host(x)
    assert float(h.min()) >= 1 and bool((h == h.floor()).all())
    m, v = mean_var(x)
    assert abs(m - 1 / 0.3) < 0.03 and abs(v - 0.7 / 0.09) < 0.2


@gpu
@pytest.mark.parametrize("dtype", [ember.float32, ember.float16, ember.int64, ember.uint8, ember.bool], ids=str)
def test_bernoulli_scalar(dtype: ember.dtype) -> None:
    x = ember.empty(N, dtype=dtype, device="cuda").bernoulli_(0.3)
    h = host(x)
    assert bool(((h == 0) | (h == 1)).all())
    assert abs(float(h.mean()) - 0.3) < 0.005
    assert float(host(ember.empty(1000, device="cuda").bernoulli_(0.0)).sum()) == 0
    assert float(host(ember.empty(1000, device="cuda").bernoulli_(1.0)).sum()) == 1000


@gpu
@pytest.mark.parametrize("pdtype", [ember.float32, ember.float64, ember.float16], ids=str)
def test_bernoulli_tensor(pdtype: ember.dtype) -> None:
    p = ember.tensor([0.1, 0.5, 0.9, 0.0], dtype=pdtype, device="cuda").repeat(N // 4, 1)
    x = ember.bernoulli(p)
    assert x.dtype == pdtype and x.device.type == "cuda"
    cols = host(x).mean(0)
    assert ember.allclose(cols, ember.tensor([0.1, 0.5, 0.9, 0.0], dtype=ember.float64), atol=0.01)
    y = ember.zeros(N // 4, 4, dtype=ember.int64, device="cuda").bernoulli_(p.t().contiguous().t())  # strided p
    assert ember.allclose(host(y).mean(0), ember.tensor([0.1, 0.5, 0.9, 0.0], dtype=ember.float64), atol=0.01)
    with pytest.raises(RuntimeError, match="p_in >= 0 && p_in <= 1"):
        ember.bernoulli(ember.tensor([0.5, 1.5], device="cuda"))
    with pytest.raises(RuntimeError, match="p_in >= 0 && p_in <= 1"):
        ember.bernoulli(ember.tensor([0.5, float("nan")], device="cuda"))


@gpu
@pytest.mark.parametrize("dtype", [ember.int64, ember.int32, ember.int8, ember.uint8, ember.float32, ember.float64],
                         ids=str)
def test_randint(dtype: ember.dtype) -> None:
    x = ember.randint(-5 if dtype != ember.uint8 else 0, 7, (N,), device="cuda", dtype=dtype)
    assert x.dtype == dtype
    h = host(x)
    lo = -5 if dtype != ember.uint8 else 0
    assert float(h.min()) == lo and float(h.max()) == 6 and bool((h == h.floor()).all())
    assert abs(float(h.mean()) - (lo + 6) / 2) < 0.02
    big = host(ember.randint(0, 2**40, (N,), device="cuda", dtype=ember.int64))  # the 64-bit word path
    assert float(big.min()) >= 0 and float(big.max()) < 2**40 and abs(float(big.mean()) / 2**39 - 1) < 0.01


@gpu
def test_random_forms() -> None:
    i8 = host(ember.empty(N, dtype=ember.int8, device="cuda").random_())
    assert float(i8.min()) == 0 and float(i8.max()) == 127
    f = host(ember.empty(N, dtype=ember.float32, device="cuda").random_())
    assert float(f.min()) >= 0 and float(f.max()) <= 2**24
    b = host(ember.empty(N, dtype=ember.bool, device="cuda").random_())
    assert abs(float(b.mean()) - 0.5) < 0.005
    full = ember.empty(N, dtype=ember.int64, device="cuda").random_(-(2**63), None)
    hf = full.cpu()
    assert bool((hf < 0).any()) and bool((hf > 2**62).any())
    r = host(ember.empty(N, dtype=ember.int64, device="cuda").random_(10))
    assert float(r.min()) == 0 and float(r.max()) == 9


@gpu
@pytest.mark.parametrize("n", [1, 2, 1000, 100_003])
@pytest.mark.parametrize("dtype", [ember.int64, ember.int32, ember.float32], ids=str)
def test_randperm(n: int, dtype: ember.dtype) -> None:
    p = ember.randperm(n, device="cuda", dtype=dtype)
    assert p.device.type == "cuda" and p.dtype == dtype and p.shape == (n,)
    assert ember.equal(p.cpu().sort().values, ember.arange(n, dtype=dtype))
    if n > 100:
        assert not ember.equal(p.cpu(), ember.arange(n, dtype=dtype))
    out = ember.empty(0, dtype=ember.int64, device="cuda")
    ember.randperm(n, out=out)
    assert out.shape == (n,) and ember.equal(out.cpu().sort().values, ember.arange(n))


@gpu
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_multinomial_frequencies(dtype: ember.dtype) -> None:
    # with replacement: each category's share near its probability (a zero one never drawn); one
    # sample and without replacement: the exponential race, whose first draw has the same law
    p = ember.tensor([[0.1, 0.0, 0.3, 0.6], [0.5, 0.5, 0.0, 0.0]]).to(dtype).cuda()
    draws = ember.multinomial(p, 200_000, replacement=True)
    assert draws.dtype == ember.int64 and draws.shape == (2, 200_000) and draws.device.type == "cuda"
    draws = draws.cpu()
    share = ember.stack([(draws == c).double().mean(1) for c in range(4)], 1)
    assert bool((share - p.cpu().double()).abs().max() < 0.01), share
    first = ember.multinomial(p.repeat(50_000, 1), 1).cpu().reshape(50_000, 2)
    share = ember.stack([(first == c).double().mean(0) for c in range(4)], 1)
    assert bool((share - p.cpu().double()).abs().max() < 0.01), share


@gpu
def test_multinomial_without_replacement_and_errors() -> None:
    p = ember.tensor([1.0, 0.0, 2.0, 3.0, 0.5], device="cuda")
    for _ in range(20):
        s = ember.multinomial(p, 4)
        assert s.shape == (4,) and len(set(s.cpu().tolist())) == 4 and 1 not in s.cpu().tolist()
    all_five = ember.multinomial(p, 5).cpu()  # past the nonzero ones: the zero one comes last
    assert sorted(all_five.tolist()) == [0, 1, 2, 3, 4] and all_five[-1].item() == 1
    out = ember.empty(3, dtype=ember.int64, device="cuda")
    assert ember.multinomial(p, 3, generator=None, out=out) is out
    g1, g2 = (ember.Generator(device="cuda").manual_seed(9) for _ in range(2))
    assert ember.equal(ember.multinomial(p, 30, True, generator=g1), ember.multinomial(p, 30, True, generator=g2))
    for bad, message in ((ember.tensor([1.0, -1.0]), "element < 0"), (ember.tensor([1.0, float("nan")]), "nan"),
                         (ember.tensor([[1.0, 0.0], [0.0, 0.0]]), "sum of probabilities"),
                         (ember.tensor([1.0, float("inf")]), "inf")):
        for replacement in (False, True):
            with pytest.raises(RuntimeError, match=message):
                ember.multinomial(bad.cuda(), 2, replacement)
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist"):
        ember.multinomial(p, 6)


@gpu
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_poisson(dtype: ember.dtype) -> None:
    # mean and variance both near the rate, below 10 (products of uniforms) and above (rejection)
    for rate in (0.3, 4.0, 9.5, 10.0, 250.0):
        x = ember.poisson(ember.full((200_000,), rate, dtype=dtype, device="cuda"))
        assert x.dtype == dtype and x.device.type == "cuda"
        m, v = mean_var(x)
        assert abs(m - rate) < 0.02 * rate + 0.01 and abs(v - rate) < 0.05 * rate + 0.01, (rate, m, v)
        assert bool((host(x) == host(x).round()).all()) and bool((host(x) >= 0).all())
    rates = ember.tensor([[0.0, 1.0], [30.0, 0.0]], dtype=dtype, device="cuda")
    assert bool((ember.poisson(rates).cpu()[rates.cpu() == 0] == 0).all())
    g1, g2 = (ember.Generator(device="cuda").manual_seed(4) for _ in range(2))
    r = ember.full((1000,), 3.0, device="cuda")
    assert ember.equal(ember.poisson(r, g1), ember.poisson(r, g2))
    assert not ember.equal(ember.poisson(r, g1), ember.poisson(r, g2.manual_seed(5)))
    for bad in (-1.0, float("nan")):
        with pytest.raises(RuntimeError, match="invalid Poisson rate"):
            ember.poisson(ember.tensor([1.0, bad], device="cuda"))
    assert ember.poisson(ember.empty(0, device="cuda")).shape == (0,)


# ---- seeding, streams, generators ---------------------------------------------------------------


@gpu
def test_same_seed_same_numbers() -> None:
    for draw in (lambda: ember.rand(1000, device="cuda"), lambda: ember.randn(1000, device="cuda"),
                 lambda: ember.randint(0, 100, (1000,), device="cuda"), lambda: ember.randperm(1000, device="cuda")):
        ember.manual_seed(7)
        a = draw().cpu()
        b = draw().cpu()
        ember.manual_seed(7)
        assert ember.equal(draw().cpu(), a)
        assert not ember.equal(a, b)  # the offset moved on
        ember.manual_seed(8)
        assert not ember.equal(draw().cpu(), a)


@gpu
def test_values_do_not_depend_on_size_or_layout() -> None:
    # element i of a draw is a function of (seed, offset, i): a short draw is a prefix of a long one
    ember.cuda.manual_seed(3)
    long = ember.rand(N, device="cuda").cpu()
    ember.cuda.manual_seed(3)
    short = ember.rand(1000, device="cuda").cpu()
    assert ember.equal(long[:1000], short)
    # a non-contiguous target is filled in its iteration order, the same numbers as a dense one
    ember.cuda.manual_seed(3)
    t = ember.empty(64, 100, device="cuda").t().uniform_()
    assert not t.is_contiguous() and float(t.min()) >= 0 and float(t.max()) < 1
    assert abs(float(host(t).mean()) - 0.5) < 0.02


@gpu
def test_cuda_manual_seed_semantics() -> None:
    ember.manual_seed(11)  # seeds the CPU generator and every CUDA one
    assert ember.cuda.initial_seed() == 11 and ember.initial_seed() == 11
    ember.cuda.manual_seed(12)  # the current device's only; the CPU one keeps its seed
    assert ember.cuda.initial_seed() == 12 and ember.initial_seed() == 11
    ember.cuda.manual_seed_all(13)
    assert all(ember.cuda.random._generator(i).initial_seed() == 13 for i in range(ember.cuda.device_count()))
    s = ember.cuda.seed()
    assert s is None and ember.cuda.initial_seed() != 13
    cpu_state = ember.get_rng_state()
    ember.cuda.manual_seed(5)
    ember.rand(10, device="cuda")
    assert ember.equal(ember.get_rng_state(), cpu_state)  # CUDA draws leave the CPU stream alone


@gpu
def test_rng_state_and_offset() -> None:
    ember.cuda.manual_seed(21)
    st = ember.cuda.get_rng_state()
    assert st.dtype == ember.uint8 and st.shape == (16,) and st.device.type == "cpu"
    a = ember.randn(100, device="cuda").cpu()
    ember.cuda.set_rng_state(st)
    assert ember.equal(ember.randn(100, device="cuda").cpu(), a)
    g = ember.cuda.random._generator(ember.cuda.current_device())
    before = g.get_offset()
    ember.rand(10, device="cuda")
    assert g.get_offset() == before + 4 and g.get_offset() % 4 == 0
    with pytest.raises(RuntimeError, match="wrong size"):
        ember.cuda.set_rng_state(ember.zeros(5, dtype=ember.uint8))
    with ember.random.fork_rng():
        ember.rand(10, device="cuda")
    assert g.get_offset() == before + 4


@gpu
def test_cuda_generator_objects() -> None:
    g = ember.Generator(device="cuda")
    assert g.device.type == "cuda" and g.device.index == ember.cuda.current_device()
    assert g.initial_seed() == 67280421310721 and g.get_offset() == 0
    g.manual_seed(99)
    a = ember.rand(500, device="cuda", generator=g).cpu()
    assert g.get_offset() == 4
    g2 = ember.Generator(device="cuda").manual_seed(99)
    assert ember.equal(ember.rand(500, device="cuda", generator=g2).cpu(), a)
    g.set_offset(0)
    assert ember.equal(ember.rand(500, device="cuda", generator=g).cpu(), a)
    with pytest.raises(RuntimeError, match="multiple of 4"):
        g.set_offset(3)
    st = g.get_state()
    assert st.shape == (16,)
    b = ember.randn(50, device="cuda", generator=g).cpu()
    g.set_state(st)
    assert ember.equal(ember.randn(50, device="cuda", generator=g).cpu(), b)
    c = g.clone_state()
    assert c.device == g.device and c.get_offset() == g.get_offset()
    import pickle

    p = pickle.loads(pickle.dumps(g))
    assert p.device == g.device and p.initial_seed() == g.initial_seed() and p.get_offset() == g.get_offset()
    with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator but found 'cpu'"):
        ember.rand(5, device="cuda", generator=ember.Generator())
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator but found 'cuda'"):
        ember.rand(5, generator=g)


# ---- dropout ----------------------------------------------------------------------------------


@gpu
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16], ids=str)
def test_native_dropout_mask_scale_backward(dtype: ember.dtype) -> None:
    p = 0.3
    x = ember.randn(1000, 1000, device="cuda", dtype=dtype).requires_grad_()
    out, mask = ember.native_dropout(x, p, True)
    assert mask.dtype == ember.bool and mask.device.type == "cuda" and out.dtype == dtype
    keep = host(mask)
    assert abs(float(keep.mean()) - (1 - p)) < 0.005
    want = x.detach().cpu().double() * keep / (1 - p)
    tol = 1e-6 if dtype != ember.float16 else 2e-3
    assert bool(((host(out) - want).abs() <= tol * (1 + want.abs())).all())
    w = ember.randn(1000, 1000, device="cuda", dtype=dtype)
    (out * w).sum().backward()
    gw = host(w) * keep / (1 - p)
    assert bool(((host(x.grad) - gw).abs() <= tol * (1 + gw.abs())).all())


@gpu
def test_dropout_functional_and_edges() -> None:
    import ember.nn.functional as F

    ember.manual_seed(4)
    x = ember.ones(200_000, device="cuda")
    y = F.dropout(x, 0.5, training=True)
    h = host(y)
    assert bool(((h == 0) | (h == 2)).all()) and abs(float((h == 0).double().mean()) - 0.5) < 0.01
    ember.manual_seed(4)
    assert ember.equal(F.dropout(x, 0.5, training=True).cpu(), y.cpu())  # seeded by ember.manual_seed
    assert ember.equal(F.dropout(x, 0.5, training=False).cpu(), x.cpu())
    assert float(host(ember.native_dropout(x, 1.0, True)[0]).abs().sum()) == 0
    out, mask = ember.native_dropout(x, 0.0, True)
    assert bool(mask.cpu().all()) and ember.equal(out.cpu(), x.cpu())


# ---- the build without CUDA: PyTorch's no-op seeding ----------------------------------------------


@pytest.mark.skipif(ember.cuda.is_available(), reason="the no-GPU behaviour")
def test_seeding_without_cuda_is_a_no_op() -> None:
    ember.cuda.manual_seed(1)
    ember.cuda.manual_seed_all(1)
    ember.cuda.seed()
    ember.cuda.seed_all()
    ember.cuda.set_rng_state(ember.zeros(16, dtype=ember.uint8))
    assert ember.cuda.get_rng_state_all() == []
    g = ember.manual_seed(5)
    assert g.initial_seed() == 5
    with ember.random.fork_rng():
        ember.rand(3)
    with pytest.raises(RuntimeError, match="CPU Generator does not use offset"):
        ember.Generator().get_offset()
