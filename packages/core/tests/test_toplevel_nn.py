"""Top-level nn ops (torch.max_pool2d, torch.dropout, torch.native_layer_norm, torch.kl_div, ...) against
PyTorch: values and gradients on the same inputs, aten's signatures, the dropout family by its
statistics, and PyTorch's errors. Ops composed in ember-nn skip without it."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

import ember  # noqa: E402

try:
    import ember.nn  # noqa: F401

    HAS_NN = True
except ModuleNotFoundError:
    HAS_NN = False
needs_nn = pytest.mark.skipif(not HAS_NN, reason="composed in ember-nn, which is not installed")


def rand(*shape: int, seed: int = 0, dtype: Any = None, grad: bool = False, low: float = -2.0,
         high: float = 2.0) -> Any:
    g = torch.Generator().manual_seed(seed)
    t = (torch.rand(shape, generator=g, dtype=torch.float64) * (high - low) + low).to(dtype or torch.float64)
    return t.requires_grad_(grad)


def to_e(x: Any) -> Any:
    """The same value on ember's side: tensors become fresh leaves; sequences are converted item by item."""
    if isinstance(x, torch.Tensor):
        e = ember.from_numpy(x.detach().numpy().copy())
        return e.requires_grad_(True) if x.requires_grad else e
    if isinstance(x, (list, tuple)):
        return type(x)(to_e(v) for v in x)
    return x


def to_t(e: Any) -> Any:
    return torch.from_numpy(np.array(e.detach().numpy()))


def close(e: Any, t: Any, rtol: float = 1e-7, atol: float = 1e-9) -> None:
    if isinstance(t, (tuple, list)):
        assert isinstance(e, (tuple, list)) and len(e) == len(t)
        for a, b in zip(e, t, strict=True):
            close(a, b, rtol, atol)
        return
    assert tuple(e.shape) == tuple(t.shape), (e.shape, t.shape)
    assert str(e.dtype) == str(t.dtype), (e.dtype, t.dtype)
    torch.testing.assert_close(to_t(e), t.detach(), rtol=rtol, atol=atol, equal_nan=True)


def leaves(x: Any) -> list:
    if isinstance(x, (list, tuple)):
        return [leaf for v in x for leaf in leaves(v)]
    return [x] if getattr(x, "requires_grad", False) else []


def outputs(out: Any) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def compare(name: str, *args: Any, rtol: float = 1e-7, atol: float = 1e-9, grad: bool = True, **kwargs: Any) -> Any:
    """ember.<name> and torch.<name> on the same arguments: the outputs, then the gradients of a weighted sum."""
    e_args = to_e(args)
    e_kwargs = {k: to_e(v) for k, v in kwargs.items()}
    t_out = getattr(torch, name)(*args, **kwargs)
    e_out = getattr(ember, name)(*e_args, **e_kwargs)
    close(e_out, t_out, rtol, atol)
    t_leaves, e_leaves = leaves(args) + leaves(list(kwargs.values())), leaves(e_args) + leaves(list(e_kwargs.values()))
    pairs = [(e, t) for e, t in zip(outputs(e_out), outputs(t_out), strict=True) if t.requires_grad]
    assert [e.requires_grad for e in outputs(e_out)] == [t.requires_grad for t in outputs(t_out)]
    if grad and pairs and t_leaves:
        t_loss = sum((t * torch.linspace(-1, 2, t.numel(), dtype=t.dtype).reshape(t.shape)).sum() for _, t in pairs)
        e_loss = sum((e * to_e(torch.linspace(-1, 2, e.numel(), dtype=t.dtype).reshape(t.shape))).sum()
                     for e, t in pairs)
        t_grads = torch.autograd.grad(t_loss, t_leaves, allow_unused=True)
        e_grads = ember.autograd.grad(e_loss, e_leaves, allow_unused=True)
        for eg, tg in zip(e_grads, t_grads, strict=True):
            if tg is None:
                assert eg is None or not bool(eg.abs().sum())
            else:
                close(eg, tg, rtol=max(rtol, 1e-6), atol=max(atol, 1e-8))
    return e_out


def same_error(fn: Callable[[Any], Any], *args: Any) -> None:
    """fn(torch, *args) and fn(ember, *ember args) raise the same exception type and message."""
    with pytest.raises(Exception) as t_err:
        fn(torch, *args)
    with pytest.raises(t_err.type) as e_err:
        fn(ember, *to_e(args))
    assert str(e_err.value) == str(t_err.value)


# ------------------------------------------------------------------ pooling


@pytest.mark.parametrize("args,kwargs", [
    ((3,), {}),
    ((3, 2, 1), {}),
    ((2,), {"stride": 1, "dilation": 2, "ceil_mode": True}),
    (([3], [2], [1], [1], True), {}),
])
def test_max_pool1d(args: tuple, kwargs: dict) -> None:
    x = rand(2, 3, 9, grad=True)
    compare("max_pool1d", x, *args, **kwargs)
    compare("max_pool1d_with_indices", x, *args, **kwargs)
    compare("max_pool1d", rand(3, 9, grad=True), *args, **kwargs)


def test_max_pool2d_3d() -> None:
    compare("max_pool2d", rand(2, 3, 7, 7, grad=True), 3, 2, 1)
    compare("max_pool2d", rand(2, 3, 7, 7, grad=True), (2, 3), dilation=2, ceil_mode=True)
    compare("max_pool2d", rand(3, 6, 6, grad=True), 2)
    compare("max_pool3d", rand(1, 2, 5, 5, 5, grad=True), 2)
    compare("max_pool3d", rand(1, 2, 5, 6, 5, grad=True), (2, 3, 2), (1, 2, 1), 1)


@pytest.mark.parametrize("kwargs", [{}, {"stride": 2, "padding": 1}, {"padding": 1, "count_include_pad": False},
                                    {"stride": 2, "ceil_mode": True}])
def test_avg_pool1d(kwargs: dict) -> None:
    compare("avg_pool1d", rand(2, 3, 9, grad=True), 3, **kwargs)


def test_adaptive_pool1d() -> None:
    for size in (1, 4, 10, [3]):
        compare("adaptive_avg_pool1d", rand(2, 3, 10, grad=True), size)
        compare("adaptive_max_pool1d", rand(2, 3, 10, grad=True), size)
    assert type(ember.adaptive_max_pool1d(ember.randn(1, 2, 4), 2)) is tuple


def test_pool_errors() -> None:
    x = rand(2, 3, 8)
    same_error(lambda m, a: m.max_pool1d(a, 2), rand(2, 2, 3, 8))
    same_error(lambda m, a: m.max_pool1d(a, [2, 2]), x)
    same_error(lambda m, a: m.max_pool1d(a, 0), x)
    same_error(lambda m, a: m.max_pool1d(a, 2, 1, 2), x)
    for name in ("max_pool1d_with_indices", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d"):
        same_error(lambda m, a, n=name: getattr(m, n)(a, 2), rand(8))
    same_error(lambda m, a: m.adaptive_max_pool1d(a, [2, 2]), x)


# ------------------------------------------------------------------ dropout family

DROPOUTS = ["dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout"]
ALL_DROPOUTS = DROPOUTS + [n + "_" for n in DROPOUTS]


@pytest.mark.parametrize("name", ALL_DROPOUTS)
def test_dropout_identity_and_edges(name: str) -> None:
    x = ember.randn(4, 3, 5)
    assert getattr(ember, name)(x, 0.5, False) is x  # eval mode: the input itself, as PyTorch
    assert getattr(ember, name)(x, 0.0, True) is x
    zero = getattr(ember, name)(x.clone(), 1.0, True)
    assert bool((zero == 0).all()) and tuple(zero.shape) == (4, 3, 5)
    for p in (-0.1, 1.5):
        same_error(lambda m, a, n=name, q=p: getattr(m, n)(a, q, True), rand(2, 3))
    with pytest.raises(TypeError):
        getattr(ember, name)(x, 0.5)  # train is required, as in aten


@pytest.mark.parametrize("name", ["feature_dropout", "feature_alpha_dropout"])
def test_feature_dropout_needs_2d(name: str) -> None:
    same_error(lambda m, a: getattr(m, name)(a, 0.5, True), rand(3))


@pytest.mark.parametrize("inplace", [False, True])
def test_dropout_statistics(inplace: bool) -> None:
    p = 0.3
    x = ember.ones(400, 500)
    y = (ember.dropout_ if inplace else ember.dropout)(x, p, True)
    assert (y is x) == inplace
    kept = y != 0
    assert abs(float(kept.float().mean()) - (1 - p)) < 0.01
    assert bool((y[kept] == 1 / (1 - p)).all())


def test_dropout_grad_is_the_mask() -> None:
    x = ember.ones(1000, requires_grad=True)
    y = ember.dropout(x, 0.4, True)
    (g,) = ember.autograd.grad(y.sum(), x)
    assert bool((g == y.detach()).all())


@pytest.mark.parametrize("inplace", [False, True])
def test_feature_dropout_statistics(inplace: bool) -> None:
    p = 0.25
    x = ember.ones(300, 100, 3, 2)
    y = (ember.feature_dropout_ if inplace else ember.feature_dropout)(x, p, True)
    assert (y is x) == inplace
    per_channel = y.reshape(300, 100, 6)
    assert bool((per_channel == per_channel[..., :1]).all())  # whole channels kept or dropped
    kept = per_channel[..., 0] != 0
    assert abs(float(kept.float().mean()) - (1 - p)) < 0.01
    assert bool((per_channel[..., 0][kept] == 1 / (1 - p)).all())


@pytest.mark.parametrize("p", [0.2, 0.5, 0.7])
def test_alpha_dropout_values_match_torch(p: float) -> None:
    # on zeros, kept units become b = alpha*a*p and dropped ones -alpha*a*(1-p): PyTorch's two constants
    t = torch.alpha_dropout(torch.zeros(20000), p, True)
    e = ember.alpha_dropout(ember.zeros(20000), p, True)
    t_vals, e_vals = sorted(set(t.tolist())), sorted(set(e.tolist()))
    assert len(e_vals) == 2
    np.testing.assert_allclose(e_vals, t_vals, rtol=1e-6)
    kept = e == max(e_vals)
    assert abs(float(kept.float().mean()) - (1 - p)) < 0.015


def test_alpha_dropout_keeps_mean_and_variance() -> None:
    ember.manual_seed(0)
    x = ember.randn(200000)
    for fn in (ember.alpha_dropout, lambda a, p, t: ember.feature_alpha_dropout(a.reshape(20000, 10), p, t)):
        y = fn(x, 0.3, True)
        assert abs(float(y.mean())) < 0.02 and abs(float(y.std()) - 1.0) < 0.02


def test_feature_alpha_dropout_per_channel_and_inplace() -> None:
    x = ember.zeros(50, 40, 4)
    y = ember.feature_alpha_dropout_(x, 0.5, True)
    assert y is x
    assert bool((y == y[..., :1]).all())
    assert sorted(set(y.reshape(-1).tolist())) == pytest.approx(
        sorted(set(torch.alpha_dropout(torch.zeros(1000), 0.5, True).tolist())))


# ------------------------------------------------------------------ normalization


@pytest.mark.parametrize("use_input_stats", [True, False])
def test_instance_norm(use_input_stats: bool) -> None:
    x, w, b = rand(2, 3, 5, 4, grad=True), rand(3, seed=1, grad=True), rand(3, seed=2, grad=True)
    rm, rv = rand(3, seed=3), rand(3, seed=4, low=0.5, high=2.0)
    erm, erv = to_e(rm), to_e(rv)
    t = torch.instance_norm(x, w, b, rm, rv, use_input_stats, 0.1, 1e-5, False)
    e = ember.instance_norm(to_e(x), to_e(w), to_e(b), erm, erv, use_input_stats, 0.1, 1e-5, False)
    close(e, t)
    close(erm, rm)
    close(erv, rv)
    compare("instance_norm", x, w, b, None, None, True, 0.1, 1e-5, False)
    same_error(lambda m, a: m.instance_norm(a, None, None, None, None, False, 0.1, 1e-5, False), x.detach())


def test_native_layer_norm() -> None:
    x = rand(2, 3, 4, grad=True)
    compare("native_layer_norm", x, [3, 4], rand(3, 4, seed=1, grad=True), rand(3, 4, seed=2, grad=True), 1e-5)
    compare("native_layer_norm", x, [4], None, None, 1e-3)
    compare("native_layer_norm", x.float(), (4,), None, None, 1e-5, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm(training: bool) -> None:
    x = rand(4, 3, 5, grad=True)
    rm, rv = rand(3, seed=3), rand(3, seed=4, low=0.5, high=2.0)
    erm, erv = to_e(rm), to_e(rv)
    w, b = rand(3, seed=1, grad=True), rand(3, seed=2, grad=True)
    t = torch.native_batch_norm(x, w, b, rm, rv, training, 0.2, 1e-5)
    e = ember.native_batch_norm(to_e(x), to_e(w), to_e(b), erm, erv, training, 0.2, 1e-5)
    close(e, t)
    close(erm, rm)
    close(erv, rv)
    if training:
        compare("native_batch_norm", x, w, b, None, None, True, 0.1, 1e-5)


def test_native_group_norm() -> None:
    x = rand(2, 4, 3, 3, grad=True)
    compare("native_group_norm", x, rand(4, seed=1, grad=True), rand(4, seed=2, grad=True), 2, 4, 9, 2, 1e-5)
    compare("native_group_norm", rand(3, 6, grad=True), None, None, 3, 6, 1, 3, 1e-5)


@needs_nn
def test_rms_norm() -> None:
    x = rand(2, 3, 4, grad=True)
    compare("rms_norm", x, [4], rand(4, seed=1, grad=True), 1e-5)
    compare("rms_norm", x, (3, 4))
    compare("rms_norm", x.float(), [4], rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ embedding_bag


@needs_nn
@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding_idx", [None, 2])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_embedding_bag(mode: int, padding_idx: Any, dtype: Any) -> None:
    w = rand(10, 3, dtype=dtype, grad=True)
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
    for offsets, last in ((torch.tensor([0, 4, 4, 6]), False), (torch.tensor([0, 2, 2, 5, 8]), True)):
        compare("embedding_bag", w, idx, offsets, False, mode, False, None, last, padding_idx, rtol=1e-5, atol=1e-6)


@needs_nn
def test_embedding_bag_per_sample_weights() -> None:
    w, psw = rand(10, 3, grad=True), rand(8, seed=1, grad=True)
    idx, offsets = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 3, 5])
    compare("embedding_bag", w, idx, offsets, False, 0, False, psw)


# ------------------------------------------------------------------ activations


@needs_nn
def test_activations() -> None:
    x = rand(3, 4, grad=True)
    compare("prelu", rand(2, 3, 4, grad=True), rand(3, seed=1, grad=True))
    compare("prelu", x, rand(1, seed=1, grad=True))
    compare("selu", x)
    compare("celu", x)
    compare("celu", x, 0.7)
    compare("threshold", x, 0.1, -2.0)
    compare("threshold", torch.tensor([1, 2, 3]), 2, 0)
    compare("hardshrink", x)
    compare("hardshrink", x, 0.9)
    compare("rrelu", x)  # eval: the mean slope
    compare("rrelu", x, 0.2, 0.4, False)


@needs_nn
@pytest.mark.parametrize("name,args", [("selu_", ()), ("celu_", (0.5,)), ("threshold_", (0.2, 7.0)),
                                       ("relu_", ()), ("rrelu_", (0.1, 0.3, False))])
def test_inplace_activations(name: str, args: tuple) -> None:
    base = rand(3, 4, grad=True)
    t_in = base * 1.0
    t_out = getattr(torch, name)(t_in, *args)
    e_base = to_e(base)
    e_in = e_base * 1.0
    e_out = getattr(ember, name)(e_in, *args)
    assert e_out is e_in
    close(e_out, t_out)
    close(ember.autograd.grad(e_out.sum(), e_base)[0], torch.autograd.grad(t_out.sum(), base)[0])


def test_rrelu_training() -> None:
    x = -ember.ones(20000)
    lo, hi = 0.1, 0.3
    y = ember.rrelu(x, lo, hi, True)
    slopes = -y
    assert float(slopes.min()) >= lo and float(slopes.max()) <= hi
    assert abs(float(slopes.mean()) - (lo + hi) / 2) < 0.005
    pos = ember.rrelu(ember.ones(5), lo, hi, True)
    assert bool((pos == 1).all())
    g1, g2 = ember.Generator().manual_seed(7), ember.Generator().manual_seed(7)
    assert ember.equal(ember.rrelu(x, lo, hi, True, g1), ember.rrelu(x, lo, hi, True, g2))
    xg = ember.tensor([-2.0, 3.0], requires_grad=True)
    y = ember.rrelu(xg, lo, hi, True)
    (g,) = ember.autograd.grad(y.sum(), xg)
    assert float(g[1]) == 1.0 and float(g[0]) == pytest.approx(float(y[0]) / -2.0)
    same_error(lambda m, a: m.rrelu(a, 0.5, 0.1, True), rand(3))
    same_error(lambda m, a: m.rrelu(a, 0.1, 0.3, True), torch.ones(3, dtype=torch.long))


def test_channel_shuffle() -> None:
    for name in ("channel_shuffle", "native_channel_shuffle"):
        grad = name == "channel_shuffle"  # PyTorch has no derivative for native_channel_shuffle (ember has)
        compare(name, rand(2, 6, 3, grad=grad), 3)
        compare(name, rand(2, 6, 2, 2, grad=grad), 2)
        compare(name, torch.arange(24).reshape(1, 4, 6), 4)
        same_error(lambda m, a, n=name: getattr(m, n)(a, 2), rand(2, 5, 3))
        same_error(lambda m, a, n=name: getattr(m, n)(a, 0), rand(2, 4, 3))
        same_error(lambda m, a, n=name: getattr(m, n)(a, 2), rand(2, 4))


# ------------------------------------------------------------------ linear maps and distances


@needs_nn
def test_bilinear() -> None:
    w = rand(5, 2, 4, seed=2, grad=True)
    compare("bilinear", rand(3, 2, grad=True), rand(3, 4, seed=1, grad=True), w, rand(5, seed=3, grad=True))
    compare("bilinear", rand(2, 3, 2, grad=True), rand(2, 3, 4, seed=1, grad=True), w)


@needs_nn
def test_cosine_similarity() -> None:
    a, b = rand(4, 5, grad=True), rand(4, 5, seed=1, grad=True)
    compare("cosine_similarity", a, b)
    compare("cosine_similarity", a, b, 0, 1e-3)
    compare("cosine_similarity", rand(2, 1, 5, grad=True), rand(3, 5, seed=1, grad=True), -1)
    zero = torch.zeros(2, 3, dtype=torch.float64).requires_grad_()
    compare("cosine_similarity", zero, rand(2, 3, grad=True))  # clamped norms: finite, PyTorch's gradient
    compare("cosine_similarity", torch.tensor([[1, 2, 3]]), torch.tensor([[1.0, 0.0, 2.0]]))
    same_error(lambda m, x, y: m.cosine_similarity(x, y), torch.ones(2, 3, dtype=torch.long),
               torch.ones(2, 3, dtype=torch.long))


@needs_nn
@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, math.inf])
def test_pairwise_distance_and_pdist(p: float) -> None:
    compare("pairwise_distance", rand(4, 5, grad=True), rand(4, 5, seed=1, grad=True), p)
    compare("pairwise_distance", rand(4, 5, grad=True), rand(5, seed=1, grad=True), p, 1e-3, True)
    compare("pdist", rand(5, 3, grad=True), p)


@needs_nn
def test_pdist_edges() -> None:
    compare("pdist", rand(1, 3, grad=True))
    x = torch.tensor([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]], dtype=torch.float64, requires_grad=True)
    compare("pdist", x)  # two equal rows: distance 0, gradient 0
    compare("pdist", rand(4, 3), 0.0)
    same_error(lambda m, a: m.pdist(a), rand(2, 3, 3))
    same_error(lambda m, a: m.pdist(a, -1.0), rand(3, 3))


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.5, math.inf])
def test_cdist(p: float) -> None:
    compare("cdist", rand(4, 3, grad=True), rand(5, 3, seed=1, grad=True), p, grad=p != 0.0)
    compare("cdist", rand(2, 4, 3, grad=True), rand(5, 3, seed=1, grad=True), p, grad=p != 0.0)


def test_cdist_edges() -> None:
    x = rand(3, 2, grad=True)
    compare("cdist", x, x.detach().clone().requires_grad_())  # zero distances: gradient 0, as PyTorch
    compare("cdist", rand(3, 2, dtype=torch.float32), rand(4, 2, seed=1, dtype=torch.float32),
            compute_mode="donot_use_mm_for_euclid_dist", rtol=1e-5, atol=1e-6)
    same_error(lambda m, a, b: m.cdist(a, b), rand(3), rand(3))
    same_error(lambda m, a, b: m.cdist(a, b), rand(2, 3), rand(2, 4))
    same_error(lambda m, a, b: m.cdist(a, b, -1.0), rand(2, 3), rand(2, 3))
    same_error(lambda m, a, b: m.cdist(a, b), torch.ones(2, 2, dtype=torch.long), torch.ones(2, 2, dtype=torch.long))
    same_error(lambda m, a, b: m.cdist(a, b, compute_mode="x"), rand(2, 3), rand(2, 3))


# ------------------------------------------------------------------ losses (int reduction)


@needs_nn
@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_losses(reduction: int) -> None:
    x, y = rand(4, 5, grad=True), rand(4, 5, seed=1, grad=True)
    pos = rand(4, 5, seed=2, low=0.1, high=3.0)
    sign = torch.tensor([1.0, -1.0, 1.0, -1.0], dtype=torch.float64)
    compare("kl_div", x, rand(4, 5, seed=1, low=0.1, high=1.0), reduction)
    compare("kl_div", x, y, reduction, log_target=True)
    compare("binary_cross_entropy_with_logits", x, rand(4, 5, seed=1, low=0, high=1), None, None, reduction)
    compare("binary_cross_entropy_with_logits", x, rand(4, 5, seed=1, low=0, high=1), rand(4, 5, seed=3),
            rand(5, seed=4, low=0.5, high=2), reduction)
    for log_input in (True, False):
        inp = x if log_input else rand(4, 5, seed=5, low=0.1, high=3, grad=True)
        for full in (False, True):
            compare("poisson_nll_loss", inp, pos * 2, log_input, full, 1e-8, reduction)
    compare("triplet_margin_loss", x, y, rand(4, 5, seed=6, grad=True), 1.0, 2.0, 1e-6, False, reduction)
    compare("triplet_margin_loss", x, y, rand(4, 5, seed=6, grad=True), 0.5, 1.0, 1e-6, True, reduction)
    compare("margin_ranking_loss", x[:, 0], y[:, 0], sign, 0.3, reduction)
    compare("cosine_embedding_loss", x, y, sign, 0.2, reduction)
    compare("hinge_embedding_loss", x, torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0], dtype=torch.float64), 0.8,
            reduction)


@needs_nn
def test_loss_aten_semantics() -> None:
    x, y = rand(3, grad=True), rand(3, 1, seed=1, grad=True)
    compare("margin_ranking_loss", x, y, torch.ones(3, dtype=torch.float64), 0.0, 1)  # broadcasts (F refuses)
    a = rand(3, 2, grad=True)
    compare("triplet_margin_loss", a, rand(3, 2, seed=1), rand(3, 2, seed=2), 0.0)  # margin 0: F refuses
    compare("kl_div", a, rand(3, 2, seed=1, low=0.1, high=1.0), 5)  # an unknown enum reduces nothing
    # PyTorch's Python binding reads the schemas' Mean default as 0: an omitted reduction reduces nothing
    compare("kl_div", a, rand(3, 2, seed=1, low=0.1, high=1.0))
    compare("hinge_embedding_loss", a, torch.ones(3, 2))
    compare("triplet_margin_loss", a, rand(3, 2, seed=1), rand(3, 2, seed=2))
    compare("ctc_loss", *_ctc_case())
    compare("cosine_embedding_loss", rand(2, grad=True), rand(2, seed=1), torch.tensor(1.0, dtype=torch.float64))
    same_error(lambda m, a, b, c: m.cosine_embedding_loss(a, b, c), rand(3, 2), rand(3, 2), torch.ones(3, 2))
    same_error(lambda m, a, b, c: m.triplet_margin_loss(a, b, c), rand(3, 2), rand(3, 2), rand(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # aten's kl_div 'mean' does not warn (F's does)
        ember.kl_div(to_e(a), to_e(a), 1)


def _ctc_case(seed: int = 0, concat: bool = False) -> tuple:
    g = torch.Generator().manual_seed(seed)
    lp = torch.randn(12, 3, 5, generator=g, dtype=torch.float64)
    targets = torch.tensor([[1, 2, 2, 3], [4, 4, 1, 0], [2, 0, 0, 0]])
    tgt_lens, in_lens = [4, 3, 1], [12, 9, 5]
    if concat:
        targets = torch.cat([targets[b, :n] for b, n in enumerate(tgt_lens)])
    return lp, targets, in_lens, tgt_lens


@needs_nn
@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("concat", [False, True])
def test_ctc_loss(reduction: int, concat: bool) -> None:
    logits, targets, in_lens, tgt_lens = _ctc_case(concat=concat)
    logits.requires_grad_()
    # through log_softmax (the usual input) and on raw log-probabilities (PyTorch's own gradient formula)
    for lp in (logits.log_softmax(2), logits):
        t = torch.ctc_loss(lp, targets, in_lens, tgt_lens, 0, reduction, False)
        e_logits = to_e(logits)
        e_lp = e_logits.log_softmax(2) if lp is not logits else e_logits
        e = ember.ctc_loss(e_lp, to_e(targets), in_lens, tgt_lens, 0, reduction, False)
        close(e, t, rtol=1e-9, atol=1e-9)
        close(ember.autograd.grad(e.sum(), e_logits)[0], torch.autograd.grad(t.sum(), logits)[0], rtol=1e-7,
              atol=1e-9)
    compare("ctc_loss", logits.log_softmax(2), targets, torch.tensor(in_lens), torch.tensor(tgt_lens), 0, reduction)


@needs_nn
def test_ctc_loss_impossible_and_unbatched() -> None:
    logits = torch.randn(3, 2, 4, dtype=torch.float64, requires_grad=True)
    targets = torch.tensor([[1, 1, 1], [1, 2, 0]])  # sample 0 needs 5 steps: impossible in 3
    lp = logits.log_softmax(2)
    close(ember.ctc_loss(to_e(lp), to_e(targets), [3, 3], [3, 2], 0, 0, False),
          torch.ctc_loss(lp, targets, [3, 3], [3, 2], 0, 0, False))
    compare("ctc_loss", lp, targets, [3, 3], [3, 2], 0, 1, True)  # zero_infinity: 0 loss, 0 gradient
    compare("ctc_loss", logits[:, 0].log_softmax(1), torch.tensor([2, 3]), torch.tensor(3), torch.tensor(2), 1, 0)
    same_error(lambda m, a, b: m.ctc_loss(a, b, [3, 3], [3, 2], 4), lp.detach(), targets)
    same_error(lambda m, a, b: m.ctc_loss(a, b, [4, 3], [3, 2]), lp.detach(), targets)
    same_error(lambda m, a, b: m.ctc_loss(a, b, [3, 3], [4, 2]), lp.detach(), targets)
    same_error(lambda m, a, b: m.ctc_loss(a, b, [3, 3], [3, 3]), lp.detach(), torch.tensor([1, 1, 1, 1, 2]))
    same_error(lambda m, a, b: m.ctc_loss(a, b, [3], [3, 2]), lp.detach(), targets)


# ------------------------------------------------------------------ numeric functions


def test_logit() -> None:
    x = rand(3, 4, low=0.02, high=0.98, grad=True)
    compare("logit", x)
    compare("logit", x, 0.2)  # clamped: zero gradient outside [eps, 1 - eps]
    compare("logit", torch.tensor([0.0, 0.5, 1.0], dtype=torch.float64))
    compare("logit", torch.tensor([0, 1]))
    out = ember.empty(0)
    assert ember.logit(ember.tensor([0.25]), out=out) is out and float(out[0]) == pytest.approx(math.log(1 / 3))


@pytest.mark.parametrize("name", ["trapezoid", "cumulative_trapezoid"])
def test_trapezoid(name: str) -> None:
    y = rand(4, 5, grad=True)
    compare(name, y)
    compare(name, y, dim=0)
    compare(name, y, dx=0.5)
    compare(name, y, rand(5, seed=1, grad=True))
    compare(name, y, rand(4, seed=1, grad=True), dim=0)
    compare(name, y, rand(4, 5, seed=1, grad=True), dim=0)
    compare(name, y, rand(1, 5, seed=1))
    compare(name, torch.tensor([1, 2, 4]))
    compare(name, torch.zeros(3, 0, dtype=torch.float64))
    same_error(lambda m, a, b: getattr(m, name)(a, b), rand(4), rand(3))
    same_error(lambda m, a: getattr(m, name)(a), torch.tensor([True, False]))
    with pytest.raises(TypeError):
        getattr(ember, name)(ember.ones(3), ember.ones(3), dx=1.0)


def test_trapezoid_scalar_input() -> None:
    same_error(lambda m, a: m.trapezoid(a), torch.tensor(3.0, dtype=torch.float64))


def test_deprecated_norms() -> None:
    x = rand(2, 3, 4, grad=True)
    with pytest.warns(UserWarning, match="frobenius_norm is deprecated"):
        compare("frobenius_norm", x, [1, 2])
    with pytest.warns(UserWarning):
        compare("frobenius_norm", x, 0, True)
        compare("frobenius_norm", x, [])
        compare("nuclear_norm", x)
        compare("nuclear_norm", x, True)
        compare("nuclear_norm", x, [0, 2], True)
        same_error(lambda m, a: m.frobenius_norm(a, [0, 1, 2]), x.detach())
        same_error(lambda m, a: m.nuclear_norm(a), rand(3))


def test_native_norm_is_sparse_only() -> None:
    # PyTorch implements native_norm for sparse tensors alone: a strided one is an error there too.
    for args in ((), (3, [1], True, None)):
        with pytest.raises(NotImplementedError) as t_err:
            torch.native_norm(torch.ones(2, 3), *args)
        with pytest.raises(NotImplementedError) as e_err:
            ember.native_norm(ember.ones(2, 3), *args)
        assert str(e_err.value).split(". This")[0] == str(t_err.value).split(". This")[0]


# ------------------------------------------------------------------ packaging


def test_top_level_ops_without_ember_nn() -> None:
    # A core-only install: kernel-backed ops work; ops composed in ember-nn name the distribution.
    code = textwrap.dedent("""
        import sys
        sys.path[:] = [p for p in sys.path if not p.rstrip('/').endswith('nn/src')]
        import ember
        x = ember.randn(2, 3, 8)
        ember.max_pool1d(x, 2); ember.max_pool2d(x, 2); ember.dropout(x, 0.5, True)
        ember.native_layer_norm(x, [8], None, None, 1e-5); ember.cdist(x, x); ember.channel_shuffle(x, 3)
        ember.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False)
        try:
            ember.cosine_similarity(x, x)
        except ModuleNotFoundError as e:
            print(e.name, '|', e)
        print('ember.nn' in sys.modules)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    first, second = r.stdout.strip().splitlines()
    assert first.startswith("ember.nn | ember.cosine_similarity is composed in ember.nn.functional")
    assert first.endswith("pip install ember-nn")
    assert second == "False"


def test_import_stays_lazy() -> None:
    r = subprocess.run([sys.executable, "-c", "import sys, ember; ember.max_pool2d; print('ember.nn' in sys.modules, "
                        "'ember._nn' in sys.modules, 'ember.linalg' in sys.modules)"], capture_output=True, text=True)
    assert r.stdout.split() == ["False", "False", "False"], r.stdout + r.stderr
