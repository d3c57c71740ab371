"""Fused attention and the recurrent cells' gate passes on a GPU (issue 24): scaled_dot_product_attention
(the fused kernel and its backward) and nn.LSTM / nn.GRU / the cells, forward and backward, compared
with the same calls on the CPU. Run by the GPU script (tools/gpu_check.sh, which puts ember-nn on the
path) with a CUDA build; skipped elsewhere."""

from __future__ import annotations

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")

TOL = {ember.float32: 5e-5, ember.float64: 1e-11, ember.float16: 3e-3, ember.bfloat16: 2e-2}


def check(got: ember.Tensor, want: ember.Tensor, dtype: ember.dtype | None = None) -> None:
    assert got.device.type == "cuda" and got.dtype == want.dtype and got.shape == want.shape
    g, w = got.detach().cpu().double(), want.detach().double()
    tol = TOL[dtype or want.dtype]
    same = ((g - w).abs() <= tol * (1 + w.abs())) | (g == w) | (g.isnan() & w.isnan())
    assert bool(same.all()), float((g - w).abs().nan_to_num(0).max())


def sdpa_both(q: ember.Tensor, k: ember.Tensor, v: ember.Tensor, **kw: object) -> None:
    F = pytest.importorskip("ember.nn.functional")
    mask = kw.pop("attn_mask", None)
    outs, grads = [], []
    g = ember.Generator().manual_seed(9)
    w = ember.randn(*q.shape[:-1], v.shape[-1], generator=g).to(q.dtype)
    for dev in ("cpu", "cuda"):
        qs = [t.detach().clone().to(dev).requires_grad_() for t in (q, k, v)]  # leaves of their own
        m = None if mask is None else mask.to(dev)
        out = F.scaled_dot_product_attention(*qs, attn_mask=m, **kw)
        (out * w.to(dev)).sum().backward()
        outs.append(out)
        grads.append([t.grad for t in qs])
    assert type(outs[0].grad_fn).__name__ == type(outs[1].grad_fn).__name__  # the same (fused) path
    check(outs[1], outs[0])
    for gd, gc in zip(grads[1], grads[0]):
        check(gd, gc)


def qkv(B: int, H: int, L: int, S: int, E: int, Ev: int, dtype: ember.dtype) -> tuple[ember.Tensor, ...]:
    g = ember.Generator().manual_seed(L * 1000 + S)
    return tuple(ember.randn(B, H, n, e, generator=g).to(dtype) for n, e in ((L, E), (S, E), (S, Ev)))


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=str)
@pytest.mark.parametrize("causal", [False, True])
# (B, H, L, S, E, Ev): E != Ev takes the math path (matmul, softmax), the others the fused kernels
# (tiled up to head size 256, the simple per-row ones past it)
@pytest.mark.parametrize("shape", [(2, 3, 37, 53, 16, 16), (1, 2, 150, 150, 64, 64), (2, 1, 1, 300, 8, 8),
                                   (2, 3, 37, 53, 16, 24), (1, 2, 70, 90, 128, 128), (1, 1, 20, 45, 320, 320)])
def test_sdpa_forward_backward(dtype: ember.dtype, causal: bool, shape: tuple[int, ...]) -> None:
    sdpa_both(*qkv(*shape, dtype), is_causal=causal)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=str)
def test_sdpa_masks_and_scale(dtype: ember.dtype) -> None:
    q, k, v = qkv(2, 2, 40, 70, 16, 16, dtype)
    g = ember.Generator().manual_seed(4)
    sdpa_both(q, k, v, attn_mask=ember.randn(2, 2, 40, 70, generator=g).to(dtype))  # a full additive mask
    sdpa_both(q, k, v, attn_mask=ember.randn(40, 70, generator=g).to(dtype), scale=0.3)  # broadcast over B, H
    keep = ember.rand(40, 70, generator=g) > 0.3
    keep[5] = False  # a fully masked row: zeros, and no NaN in any gradient
    sdpa_both(q, k, v, attn_mask=keep)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=str)
@pytest.mark.parametrize("E", [16, 320])
def test_sdpa_nan_and_inf(dtype: ember.dtype, E: int) -> None:
    q, k, v = qkv(1, 2, 40, 50, E, E, dtype)
    q[0, 0, 3, 1] = float("nan")  # its row's output, and every gradient it reaches, NaN
    v[0, 1, 7, 0] = float("inf")  # met by masked keys' zeros (NaN), by the others' weights (inf)
    keep = ember.ones(40, 50, dtype=ember.bool)
    keep[:20, 7] = False
    keep[30] = False  # a fully masked row
    sdpa_both(q, k, v, attn_mask=keep)
    sdpa_both(q, k, v, is_causal=True)


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16], ids=str)
def test_sdpa_half_types(dtype: ember.dtype) -> None:
    sdpa_both(*qkv(2, 2, 33, 33, 16, 16, dtype), is_causal=True)


def test_sdpa_lse_and_non_contiguous_inputs() -> None:
    q, k, v = qkv(2, 3, 20, 30, 8, 8, ember.float32)
    op = ember._nn._scaled_dot_product_flash_attention_for_cpu
    oc, lc = op(q, k, v, 0.0, False)
    od, ld = op(q.cuda(), k.cuda(), v.cuda(), 0.0, False)
    check(od, oc)
    check(ld, lc)
    # a transposed (B, L, H, E) layout with unit stride in the last dim takes the fused path too
    qt, kt, vt = (t.transpose(1, 2).contiguous().transpose(1, 2) for t in (q, k, v))
    assert not qt.is_contiguous()
    sdpa_both(qt, kt, vt)
    sdpa_both(qt, kt[:, :1].expand(-1, 3, -1, -1), vt, is_causal=True)  # keys broadcast over heads (stride 0)


# ---- recurrent layers and cells -------------------------------------------------------------------


def layer_both(mode: str, dtype: ember.dtype, **kw: object) -> None:
    nn = pytest.importorskip("ember.nn")
    ember.manual_seed(1)
    cls = getattr(nn, mode)
    model = cls(10, 20, **kw).to(dtype)
    twin = cls(10, 20, **kw).to(dtype)
    twin.load_state_dict(model.state_dict())
    twin = twin.to("cuda")
    bf = bool(kw.get("batch_first", False))
    g = ember.Generator().manual_seed(2)
    x = ember.randn(*((4, 7) if bf else (7, 4)), 10, generator=g).to(dtype)
    results = []
    for m, dev in ((model, "cpu"), (twin, "cuda")):
        xd = x.detach().clone().to(dev).requires_grad_()
        out, hidden = m(xd)
        hs = list(hidden) if isinstance(hidden, tuple) else [hidden]
        loss = (out * out).sum() + sum((h * h).sum() for h in hs)
        loss.backward()
        results.append([out, *hs, xd.grad, *[p.grad for p in m.parameters()]])
    for gd, gc in zip(results[1], results[0]):
        check(gd, gc)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=str)
@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_lstm_gru_layers(mode: str, dtype: ember.dtype) -> None:
    layer_both(mode, dtype)
    layer_both(mode, dtype, num_layers=2, bidirectional=True, batch_first=True)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=str)
def test_rnn_layers(dtype: ember.dtype) -> None:
    layer_both("RNN", dtype)
    layer_both("RNN", dtype, nonlinearity="relu", num_layers=2)
    layer_both("LSTM", dtype, proj_size=5)  # the per-step path with a projection


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=str)
@pytest.mark.parametrize("cell", ["LSTMCell", "GRUCell", "RNNCell", "RNNCell-relu"])
def test_cells(cell: str, dtype: ember.dtype) -> None:
    nn = pytest.importorskip("ember.nn")
    name, _, act = cell.partition("-")
    kw = {"nonlinearity": act} if act else {}
    ember.manual_seed(3)
    model = getattr(nn, name)(6, 9, **kw).to(dtype)
    twin = getattr(nn, name)(6, 9, **kw).to(dtype)
    twin.load_state_dict(model.state_dict())
    twin = twin.to("cuda")
    g = ember.Generator().manual_seed(5)
    x, h = ember.randn(5, 6, generator=g).to(dtype), ember.randn(5, 9, generator=g).to(dtype)
    c = ember.randn(5, 9, generator=g).to(dtype)
    results = []
    for m, dev in ((model, "cpu"), (twin, "cuda")):
        xd, hd, cd = (t.detach().clone().to(dev).requires_grad_() for t in (x, h, c))
        out = m(xd, (hd, cd)) if name == "LSTMCell" else m(xd, hd)
        outs = list(out) if isinstance(out, tuple) else [out]
        sum((o * o).sum() for o in outs).backward()
        results.append([*outs, xd.grad, hd.grad, *[p.grad for p in m.parameters()]])
    for gd, gc in zip(results[1], results[0]):
        check(gd, gc)
