"""float16 / bfloat16 computed as PyTorch computes them (issue 16, point 2): in float32 ("opmath") and
rounded once. Each case runs the same half-precision inputs through ember and torch 2.13 and through
float64; ember's error against float64 (in units of the half type's precision) must not exceed torch's
by more than one unit, and ember must not overflow or turn NaN where torch does not."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ember
import ember.nn.functional as EF
import pytest

torch = pytest.importorskip("torch")
TF = torch.nn.functional

HALF = ["float16", "bfloat16"]
EPS = {"float16": 2.0**-10, "bfloat16": 2.0**-7}
TINY = {"float16": 2.0**-14, "bfloat16": 2.0**-126}


def _to_ember(t: Any) -> Any:
    return ember.from_numpy(t.detach().double().numpy()).to(getattr(ember, str(t.dtype).split(".")[1]))


def _to_torch(e: Any) -> Any:
    return torch.from_numpy(e.detach().double().numpy())


def _ulps(y: Any, ref: Any, dtype: str) -> Any:
    """|y - ref| in units of the half type's precision at ref (NaN where exactly one of them is NaN)."""
    y, ref = y.double(), ref.double()
    both_nan = y.isnan() & ref.isnan()
    same_inf = y.isinf() & (y == ref)
    err = (y - ref).abs() / (EPS[dtype] * ref.abs().clamp(min=TINY[dtype]))
    return torch.where(both_nan | same_inf, torch.zeros_like(err), err)


def _check(name: str, dtype: str, fn: Callable[[Any, list], Any], inputs: list, slack: float = 1.0) -> None:
    """fn(lib, inputs) in half for ember and torch and in float64 for the reference."""
    dt = getattr(torch, dtype)
    ts = [x.to(dt) for x in inputs]
    ref = fn(TF, [x.double() for x in ts])
    got_t = fn(TF, ts)
    got_e = fn(EF, [_to_ember(x) for x in ts])
    assert str(got_e.dtype).split(".")[1] == str(got_t.dtype).split(".")[1], (got_e.dtype, got_t.dtype)
    err_t = _ulps(got_t, ref, dtype)
    err_e = _ulps(_to_torch(got_e), ref, dtype)
    assert not err_e.isnan().any(), f"{name}: ember NaN where torch/float64 is not"
    worst_t, worst_e = err_t.max().item(), err_e.max().item()
    assert worst_e <= worst_t + slack, f"{name} {dtype}: ember {worst_e:.2f} ulp vs torch {worst_t:.2f} ulp"


def _randn(*shape: int, scale: float = 1.0, seed: int = 0) -> Any:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64) * scale


def _act(call: Callable[[Any, Any], Any]) -> Callable[[Any, list], Any]:
    return lambda F, xs: call(F, xs[0])


ACTIVATIONS = {
    "gelu": _act(lambda F, x: F.gelu(x)),
    "gelu-tanh": _act(lambda F, x: F.gelu(x, approximate="tanh")),
    "silu": _act(lambda F, x: F.silu(x)),
    "mish": _act(lambda F, x: F.mish(x)),
    "elu": _act(lambda F, x: F.elu(x, 0.7)),
    "selu": _act(lambda F, x: F.selu(x)),
    "celu": _act(lambda F, x: F.celu(x, 0.3)),
    "softplus": _act(lambda F, x: F.softplus(x, 2.0, 3.0)),
    "logsigmoid": _act(lambda F, x: F.logsigmoid(x)),
    "hardswish": _act(lambda F, x: F.hardswish(x)),
    "hardsigmoid": _act(lambda F, x: F.hardsigmoid(x)),
    "leaky_relu": _act(lambda F, x: F.leaky_relu(x, 0.1)),
    "hardtanh": _act(lambda F, x: F.hardtanh(x, -0.3, 0.7)),
    "threshold": _act(lambda F, x: F.threshold(x, 0.1, 0.3)),
    "glu": _act(lambda F, x: F.glu(x, -1)),
    "softshrink": _act(lambda F, x: F.softshrink(x, 0.1)),  # lambd not representable in half
    "rrelu-eval": _act(lambda F, x: F.rrelu(x, 0.1, 0.3)),  # the slope neither
}


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_rounds_once(name: str, dtype: str) -> None:
    _check(name, dtype, ACTIVATIONS[name], [_randn(64, 32, scale=3.0)])


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("name", ["gelu", "gelu-tanh", "silu", "mish", "elu", "softplus", "hardsigmoid", "glu",
                                  "logsigmoid", "hardswish", "leaky_relu"])
def test_activation_grad_in_float(name: str, dtype: str) -> None:
    """The gradient too is computed in float32 and rounded once."""
    def grad(F: Any, xs: list) -> Any:
        lib = ember if F is EF else torch
        x = xs[0].detach().requires_grad_(True)
        y = ACTIVATIONS[name](F, [x])
        return lib.autograd.grad(y, x, xs[1].to(y.dtype))[0]
    _check(name, dtype, grad, [_randn(32, 16, scale=3.0), _randn(32, 16 if name != "glu" else 8, seed=1)])


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("weight", [False, True])
@pytest.mark.parametrize("eps", [None, 1e-5])
@pytest.mark.parametrize("scale", [1.0, 1e-3])
def test_rms_norm(dtype: str, weight: bool, eps: float | None, scale: float) -> None:
    def fn(F: Any, xs: list) -> Any:
        return F.rms_norm(xs[0], (16,), xs[1] if weight else None, eps)
    _check("rms_norm", dtype, fn, [_randn(8, 16, scale=scale), _randn(16, seed=2)])


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("scale", [1.0, 100.0])
def test_cosine_similarity_no_nan(dtype: str, scale: float) -> None:
    """|x|^2 of ordinary fp16 values overflows half; the norm in float32 keeps the similarity finite."""
    fn = lambda F, xs: F.cosine_similarity(xs[0], xs[1], dim=-1)  # noqa: E731
    _check("cosine_similarity", dtype, fn, [_randn(16, 64, scale=scale), _randn(16, 64, scale=scale, seed=3)],
           slack=2.0)


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("ord", [2, 3, 1, math.inf, 0.5])
@pytest.mark.parametrize("dim", [None, 1])
def test_vector_norm_no_overflow(dtype: str, ord: float, dim: int | None) -> None:
    fn = lambda F, xs: (ember if F is EF else torch).linalg.vector_norm(xs[0], ord, dim)  # noqa: E731
    _check("vector_norm", dtype, fn, [_randn(8, 64, scale=300.0 if dtype == "float16" else 1e30)])
    fn2 = lambda F, xs: xs[0].norm(dim=dim)  # noqa: E731
    _check("norm", dtype, fn2, [_randn(8, 64, scale=300.0 if dtype == "float16" else 1e30)])


SDPA_SHAPES = [(2, 3, 8, 16), (3, 8, 16), (2, 2, 5, 8)]


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("shape", SDPA_SHAPES)
@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_small_values(dtype: str, shape: tuple, causal: bool) -> None:
    """Attention on values near 0.004: products and sums in half precision lose them."""
    def fn(F: Any, xs: list) -> Any:
        return F.scaled_dot_product_attention(xs[0], xs[1], xs[2], is_causal=causal)
    _check("sdpa", dtype, fn, [_randn(*shape, scale=3.0), _randn(*shape, scale=3.0, seed=4),
                               _randn(*shape, scale=0.004, seed=5).abs() + 0.002], slack=1.5)


@pytest.mark.parametrize("dtype", HALF)
def test_sdpa_float_mask(dtype: str) -> None:
    def fn(F: Any, xs: list) -> Any:
        return F.scaled_dot_product_attention(xs[0], xs[1], xs[2], attn_mask=xs[3])
    shape = (2, 3, 8, 16)
    _check("sdpa-mask", dtype, fn, [_randn(*shape), _randn(*shape, seed=6), _randn(*shape, scale=0.01, seed=7),
                                    _randn(8, 8, seed=8)], slack=1.5)


@pytest.mark.parametrize("dtype", HALF)
def test_floor_divide_tensors(dtype: str) -> None:
    fn = lambda F, xs: (ember if F is EF else torch).floor_divide(xs[0], xs[1])  # noqa: E731
    a, b = _randn(64, scale=100.0), _randn(64, seed=9) * 3 + 0.5
    dt = getattr(torch, dtype)
    ref = torch.floor(a.to(dt).double() / b.to(dt).double()).to(dt)
    got = _to_torch(fn(EF, [_to_ember(a.to(dt)), _to_ember(b.to(dt))])).to(dt)
    # ember computes in float32 (exact enough here); torch 2.13 rounds (a - fmod(a, b)) to half first
    # and can be one off, so the reference is the exactly rounded floor of the quotient.
    assert torch.equal(got, ref)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_signbit_and_sign_bits_of_nan(dtype: str) -> None:
    """Bit-level ops see the sign of a NaN in every float dtype (a negative quiet NaN by its bits)."""
    ibits = {"float16": ("int16", -512), "bfloat16": ("int16", -64), "float32": ("int32", -4194304),
             "float64": ("int64", -2**51)}[dtype]
    vals = [ibits[1]] * 40
    e = ember.tensor(vals, dtype=getattr(ember, ibits[0])).view(getattr(ember, dtype))
    t = torch.tensor(vals, dtype=getattr(torch, ibits[0])).view(getattr(torch, dtype))
    for op in ("signbit", "isnan", "isfinite", "isinf", "isneginf"):
        assert getattr(ember, op)(e).tolist() == getattr(torch, op)(t).tolist(), op
        assert getattr(ember, op)(e[::3]).tolist() == getattr(torch, op)(t[::3]).tolist(), op


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("shape", [(64, 32), (16, 7), (4, 300)])
def test_softmax_lastdim_rounds_once(dtype: str, shape: tuple) -> None:
    """PyTorch keeps the exps of a half-precision lastdim softmax in float: each output rounds once
    (storing them rounded and scaling after would round twice, up to a unit off)."""
    _check("softmax", dtype, lambda F, xs: F.softmax(xs[0], -1), [_randn(*shape, scale=2.0)], slack=0.25)


# Normalization layers, resampling, two-step contractions and bag sums: one rounding at the end
# (PyTorch itself computes batch/instance norm and linear/bicubic interpolation in the half type on
# the CPU, so there ember is the more accurate one; the check is only "not worse than torch").
LAYERS = {
    "batch_norm": lambda F, xs: F.batch_norm(xs[0], None, None, training=True),
    "batch_norm_affine": lambda F, xs: F.batch_norm(xs[0], None, None, xs[1][0, :16], xs[1][1, :16], training=True),
    "instance_norm": lambda F, xs: F.instance_norm(xs[0]),
    "group_norm": lambda F, xs: F.group_norm(xs[0], 4),
    "layer_norm": lambda F, xs: F.layer_norm(xs[0], (xs[0].shape[-1],)),
    "interpolate_linear": lambda F, xs: F.interpolate(xs[0], scale_factor=1.7, mode="linear"),
    "interpolate_bicubic": lambda F, xs: F.interpolate(xs[0][:1, :, :16, None].expand(1, 16, 16, 16).contiguous(),
                                                       scale_factor=1.7, mode="bicubic"),
    "bilinear": lambda F, xs: F.bilinear(xs[0][0, :, :8], xs[0][1, :, :8], xs[1][:4, :64].reshape(4, 8, 8)),
    "embedding_bag_mean": lambda F, xs: F.embedding_bag(xs[2], xs[1], xs[3], mode="mean"),
    "embedding_bag_sum": lambda F, xs: F.embedding_bag(xs[2], xs[1], xs[3], mode="sum"),
}


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layers_round_once(name: str, dtype: str) -> None:
    x, w = _randn(4, 16, 65, scale=3.0, seed=1), _randn(64, 257, scale=3.0, seed=2)
    idx, offsets = torch.tensor([0, 1, 2, 3, 4, 5, 6, 7, 8]), torch.tensor([0, 3, 4])

    def fn(F: Any, xs: list) -> Any:
        lib = ember if F is EF else torch
        ints = [lib.tensor(idx.tolist()), lib.tensor(offsets.tolist())]
        return LAYERS[name](F, [*xs, *ints])

    _check(name, dtype, fn, [x, w])
