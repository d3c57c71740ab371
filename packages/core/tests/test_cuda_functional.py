"""nn.functional's Python compositions on a GPU (issue 24): the ones that build index or noise
tensors of their own (unfold / fold, pdist, embedding_bag, ctc_loss, fractional max pooling,
multi_margin_loss, the chunked linear_cross_entropy, channel and alpha dropout, padding), and
core's compositions that do (nonzero_static, histograms, block_diag, einsum, quantiles, ...), make
them on the input's device; values and gradients against the same calls on the CPU. Run by the GPU
script (tools/gpu_check.sh, which puts ember-nn on the path) with a CUDA build; skipped elsewhere."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")
F = pytest.importorskip("ember.nn.functional")


def randn(*shape: int, seed: int = 0) -> ember.Tensor:
    return ember.randn(*shape, generator=ember.Generator().manual_seed(seed))


def both(fn: Callable[..., Any], *args: Any, grad: bool = True, tol: float = 1e-5) -> None:
    """fn on the CPU and on the GPU: results on the device, equal within tol, and the float
    arguments' gradients too."""
    def prep(a: Any, cuda: bool) -> Any:
        if not isinstance(a, ember.Tensor):
            return a
        t = a.cuda() if cuda else a.clone()
        return t.requires_grad_() if grad and t.is_floating_point() else t
    cpu, gpu = [prep(a, False) for a in args], [prep(a, True) for a in args]
    rc, rg = fn(*cpu), fn(*gpu)
    rc, rg = (rc if isinstance(rc, tuple) else (rc,)), (rg if isinstance(rg, tuple) else (rg,))
    for c, g in zip(rc, rg, strict=True):
        assert g.device.type == "cuda" and g.dtype == c.dtype and g.shape == c.shape, (g.device, g.dtype, c.dtype)
        assert bool(((g.cpu().double() - c.double()).abs() <= tol * (1 + c.double().abs())).all()), (g, c)
    if grad and rc[0].is_floating_point() and rc[0].requires_grad:
        rc[0].sum().backward()
        rg[0].sum().backward()
        for c, g in zip(cpu, gpu, strict=True):
            if isinstance(c, ember.Tensor) and c.grad is not None:
                assert g.grad is not None and g.grad.device.type == "cuda"
                assert bool(((g.grad.cpu() - c.grad).abs() <= tol * (1 + c.grad.abs())).all())


def test_unfold_fold() -> None:
    x = randn(2, 3, 7, 6)
    both(lambda t: F.unfold(t, 3, padding=1, stride=2), x)
    cols = randn(2, 3 * 4, 10)
    both(lambda t: F.fold(t, (5, 8), 2, stride=(2, 2), padding=(0, 1)), cols)


def test_pdist_embedding_bag_margin() -> None:
    both(lambda t: F.pdist(t), randn(6, 4))
    both(lambda t: F.pdist(t), randn(3, 0))
    w, idx = randn(10, 4), ember.tensor([1, 2, 4, 5, 4, 3, 2, 9])
    for mode in ("sum", "mean", "max"):
        both(lambda w, i, mode=mode: F.embedding_bag(i, w, ember.tensor([0, 3, 3, 5], device=i.device), mode=mode),
             w, idx)
        both(lambda w, i, mode=mode: F.embedding_bag(i.reshape(2, 4), w, mode=mode), w, idx)
    x, y = randn(5, 4), ember.tensor([0, 3, 1, 1, 2])
    both(lambda x, y: F.multi_margin_loss(x, y), x, y)
    both(lambda x, y: F.multi_margin_loss(x, y, p=2, weight=ember.ones(4, device=x.device)), x, y)


def test_ctc_loss() -> None:
    lp = randn(12, 3, 6).log_softmax(2)
    targets = ember.tensor([[1, 2, 2], [3, 1, 0], [5, 4, 3]])
    for reduction in ("mean", "sum", "none"):
        both(lambda lp, t, r=reduction: F.ctc_loss(lp, t, [12, 10, 8], [3, 2, 3], reduction=r), lp, targets,
             tol=1e-4)


def test_fractional_max_pool_and_linear_cross_entropy() -> None:
    x = randn(2, 3, 9, 9)
    samples = ember.rand(2, 3, 2, generator=ember.Generator().manual_seed(1))
    both(lambda x, s: F.fractional_max_pool2d(x, 2, output_size=(4, 5), _random_samples=s), x, samples)
    inp, w, y = randn(6, 5), randn(7, 5, seed=1), ember.tensor([0, 6, 3, -100, 2, 2])
    both(lambda i, w, y: F.linear_cross_entropy(i, w, y), inp, w, y, tol=1e-4)


def test_dropout_variants_and_padding() -> None:
    x = ember.ones(4, 6, 5, 5, device="cuda")
    for f in (F.dropout1d, F.dropout2d, F.dropout3d, F.feature_alpha_dropout, F.alpha_dropout):
        arg = x[:, :, 0] if f is F.dropout1d else x
        y = f(arg, 0.5, True)
        assert y.device.type == "cuda" and y.shape == arg.shape
    kept = F.dropout2d(x, 0.5, True)[:, :, 0, 0].cpu()
    assert bool(((kept == 0) | (kept == 2)).all())  # whole channels, the kept scaled by 1 / (1 - p)
    both(lambda t: F.pad(t, (1, 2, 0, 1), mode="reflect"), randn(2, 3, 4, 5))
    e = ember.empty(0, 3, 4, device="cuda")
    assert F.pad(e, (1, 1), mode="replicate").device.type == "cuda"


PADS = [  # (input shape, pad): 1-, 2- and 3-d, batched or not, negative (cropping) pads, a size-1 dim
    ((2, 3, 7), (2, 3)), ((3, 7), (0, 6)), ((2, 3, 5, 6), (1, 2, 4, 0)), ((2, 3, 5, 6), (-1, 2, 3, -2)),
    ((1, 2, 4, 5, 3), (1, 1, 2, 0, 3, 2)), ((2, 4, 3, 3), (2, 2, 1, 1)), ((2, 1, 1, 4), (3, 2, 0, 0)),
]


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape,pad", PADS, ids=[str(p[1]) for p in PADS])
def test_reflect_replicate_pad_kernels(mode: str, shape: tuple[int, ...], pad: tuple[int, ...]) -> None:
    """reflection / replication_pad{1,2,3}d's CUDA kernels: the CPU's values and, as the backward
    sums in the CPU's order, the CPU's gradient bits, in float64, float16, complex64 and channels-last."""
    def make(shape: tuple[int, ...], dtype: ember.dtype, seed: int) -> ember.Tensor:
        if dtype.is_complex:
            return ember.complex(randn(*shape, seed=seed), randn(*shape, seed=seed + 1))
        return (randn(*shape, seed=seed) * 4).to(dtype)

    for dtype in (ember.float64, ember.float16, ember.complex64):
        x = make(shape, dtype, 0)
        if len(shape) == 4 and dtype == ember.float64:
            x = x.contiguous(memory_format=ember.channels_last)
        cx, gx = x.clone().requires_grad_(), x.cuda().requires_grad_()
        cy, gy = F.pad(cx, pad, mode=mode), F.pad(gx, pad, mode=mode)
        assert gy.device.type == "cuda" and gy.stride() == cy.stride() and bool((gy.cpu() == cy).all())
        go = make(tuple(cy.shape), dtype, 2)
        cy.backward(go)
        gy.backward(go.cuda())
        assert gx.grad.stride() == cx.grad.stride() and bool((gx.grad.cpu() == cx.grad).all()), (gx.grad, cx.grad)
    with pytest.raises(NotImplementedError, match="pad"):
        F.pad(ember.ones(*shape, dtype=ember.bool, device="cuda"), pad, mode=mode)


COMPOSITES = {
    "nonzero_static": lambda x: ember.nonzero_static(x > 0, size=20),
    "histogramdd": lambda x: ember.histogramdd(x[:, :3].contiguous(), bins=[3, 3, 3])[0],
    "histogram": lambda x: ember.histogram(x.flatten(), 4)[0],
    "block_diag": lambda x: ember.block_diag(x[:2, :2], x),
    "combinations": lambda x: ember.combinations(x[0], 2),
    "combinations-none": lambda x: ember.combinations(x[0, :1], 3),
    "mvlgamma": lambda x: ember.mvlgamma(x.abs() + 3, 3),
    "einsum-diagonal": lambda x: ember.einsum("ii->i", x[:, :4]),
    "nanquantile": lambda x: ember.nanquantile(x, 0.3),
    "linalg.cross": lambda x: ember.linalg.cross(x[:, :3], x[:, 1:4]),
    "binomial-shape": lambda x: ember.binomial(ember.full_like(x, 10.0), ember.full_like(x, 0.3)).shape,
    "vander-N0": lambda x: ember.vander(x[0], N=0),
    "vander-N1": lambda x: ember.vander(x[0], N=1),
    "batch_norm_gather_stats": lambda x: ember.batch_norm_gather_stats(x, x[:2].abs(), x[2:].abs() + 1, None, None,
                                                                       0.1, 1e-5, 3)[1],
    "conv_tbc": lambda x: ember.conv_tbc(x[:, :3].reshape(2, 2, 3), x[:3, :3].reshape(3, 3, 1).expand(3, 3, 2),
                                         x[0, :2], 1),
    "native_batch_norm-eval": lambda x: ember.native_batch_norm(x, None, None, x[0], x[1].abs(), False, 0.1, 1e-5)[1],
    "embedding_bag-max": lambda x: ember.embedding_bag(x, ember.tensor([1, 2, 3, 0]).to(x.device),
                                                     ember.tensor([0, 2]).to(x.device), False, 2)[3],
}


@pytest.mark.parametrize("name", list(COMPOSITES))
def test_core_compositions_stay_on_the_device(name: str) -> None:
    # Python compositions in ember's core that build constants of their own (an eye, an index, edges)
    x = randn(4, 5)
    want, got = COMPOSITES[name](x), COMPOSITES[name](x.cuda())
    if not isinstance(want, ember.Tensor):
        assert got == want
        return
    assert got.device.type == "cuda" and got.dtype == want.dtype and got.shape == want.shape
    assert bool(((got.cpu().double() - want.double()).abs() <= 1e-5 * (1 + want.double().abs())).all())


def test_a_transformer_takes_a_causal_mask_on_the_device() -> None:
    # _is_causal_mask compared the mask with a CPU-made one (a device mismatch in every masked forward)
    nn = pytest.importorskip("ember.nn")
    ember.manual_seed(0)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, dropout=0.0), 2)
    x, mask = randn(2, 5, 8), nn.Transformer.generate_square_subsequent_mask(5)
    want = enc(x, mask=mask, is_causal=True)
    got = enc.cuda()(x.cuda(), mask=mask.cuda(), is_causal=True)
    assert got.device.type == "cuda"
    ember.testing.assert_close(got.cpu(), want, rtol=1e-5, atol=1e-5)


MODULES_WITH_DEVICE = [
    ("Linear", (3, 4), {}), ("Bilinear", (3, 3, 4), {}), ("LayerNorm", (4,), {}), ("RMSNorm", (4,), {}),
    ("GroupNorm", (2, 4), {}), ("BatchNorm1d", (4,), {}), ("BatchNorm3d", (4,), {}),
    ("InstanceNorm2d", (4,), {"affine": True, "track_running_stats": True}), ("PReLU", (), {}),
    ("Embedding", (10, 3), {}), ("EmbeddingBag", (10, 3), {}), ("MultiheadAttention", (4, 2), {"kdim": 3, "vdim": 3}),
    ("MultiheadAttention", (4, 2), {"add_bias_kv": True}), ("Conv2d", (2, 3, 3), {}),
    ("ConvTranspose1d", (2, 3, 3), {}), ("LSTM", (3, 4), {"proj_size": 2}), ("GRUCell", (3, 4), {}),
    ("TransformerEncoderLayer", (4, 2), {"dim_feedforward": 8}), ("TransformerDecoderLayer", (4, 2),
                                                                  {"dim_feedforward": 8}),
    ("Transformer", (), {"d_model": 4, "nhead": 2, "num_encoder_layers": 1, "num_decoder_layers": 1,
                         "dim_feedforward": 8}),
    ("AdaptiveLogSoftmaxWithLoss", (8, 10, [4]), {}), ("LinearCrossEntropyLoss", (4, 5), {}),
]


@pytest.mark.parametrize("name,args,kwargs", MODULES_WITH_DEVICE, ids=[c[0] for c in MODULES_WITH_DEVICE])
def test_module_device_argument(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """A module built with device="cuda" has every parameter and buffer there (several ignored it)."""
    nn = pytest.importorskip("ember.nn")
    m = getattr(nn, name)(*args, device="cuda", dtype=ember.float64, **kwargs)
    tensors = dict(m.named_parameters()) | dict(m.named_buffers())
    assert tensors
    for key, t in tensors.items():
        assert t.device.type == "cuda", key
        assert t.dtype == ember.float64 or not t.is_floating_point(), key


INITS = ["uniform_", "normal_", "trunc_normal_", "ones_", "zeros_", "eye_", "dirac_", "xavier_uniform_",
         "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_"]


@pytest.mark.parametrize("name", INITS)
def test_init_on_the_device(name: str) -> None:
    """nn.init fills a device weight in place (orthogonal_'s QR on the host: the backend has no LAPACK)."""
    init = pytest.importorskip("ember.nn.init")
    w = ember.empty(4, 3, 3, device="cuda") if name == "dirac_" else ember.empty(6, 4, device="cuda")
    out = getattr(init, name)(w, 0.5) if name == "sparse_" else getattr(init, name)(w)
    assert out is w and w.device.type == "cuda" and bool(ember.isfinite(w).all())
    if name == "orthogonal_":
        assert bool((w.t() @ w).cpu().allclose(ember.eye(4), atol=1e-5))
