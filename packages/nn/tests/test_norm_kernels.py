"""Fused nn kernels through ember.nn: normalization, embedding, dropout and loss modules against
torch with the same weights and inputs (outputs, input/parameter gradients, running statistics)."""

from __future__ import annotations

from typing import Any

import ember
import ember.nn as nn
import ember.nn.functional as F
import numpy as np
import pytest
from _nn_testutil import close, copy_params

RNG = np.random.default_rng(0)


def _pair(torch: Any, shape: tuple, scale: float = 1.0, shift: float = 0.0) -> tuple[Any, Any]:
    a = (RNG.standard_normal(shape) * scale + shift).astype("float32")
    return (ember.from_numpy(a.copy()).requires_grad_(True), torch.from_numpy(a.copy()).requires_grad_(True))


def _check_module(torch: Any, em: Any, tm: Any, shape: tuple, steps: int = 3, atol: float = 1e-5) -> None:
    copy_params(tm, em)
    for step in range(steps):
        xe, xt = _pair(torch, shape, 2.0, 0.5 * step)
        ye, yt = em(xe), tm(xt)
        close(ye, yt, atol=atol, rtol=1e-4)
        ge = RNG.standard_normal(tuple(yt.shape)).astype("float32")
        ye.backward(ember.from_numpy(ge.copy()))
        yt.backward(torch.from_numpy(ge.copy()))
        close(xe.grad, xt.grad, atol=atol * 10, rtol=1e-3)
    for (_, pe), (_, pt) in zip(em.named_parameters(), tm.named_parameters(), strict=True):
        close(pe.grad, pt.grad, atol=1e-4, rtol=1e-3)
    for (_, be), (_, bt) in zip(em.named_buffers(), tm.named_buffers(), strict=True):
        close(be, bt, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("cls, shape", [("BatchNorm1d", (8, 4)), ("BatchNorm1d", (6, 4, 5)),
                                        ("BatchNorm2d", (4, 4, 3, 3)), ("BatchNorm3d", (2, 4, 2, 3, 2))])
@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm_train_then_eval(torch: Any, cls: str, shape: tuple, momentum: Any) -> None:
    em, tm = getattr(nn, cls)(4, momentum=momentum), getattr(torch.nn, cls)(4, momentum=momentum)
    _check_module(torch, em, tm, shape)
    close(em.running_mean, tm.running_mean)
    close(em.running_var, tm.running_var, rtol=1e-4)
    assert int(em.num_batches_tracked) == int(tm.num_batches_tracked) == 3
    em.eval()
    tm.eval()
    _check_module(torch, em, tm, shape, steps=1)
    assert em(ember.ones(*shape)).grad_fn.name() == "NativeBatchNormBackward0"


def test_batch_norm_no_affine_no_tracking(torch: Any) -> None:
    _check_module(torch, nn.BatchNorm2d(3, affine=False, track_running_stats=False),
                  torch.nn.BatchNorm2d(3, affine=False, track_running_stats=False), (2, 3, 4, 4))


def test_batch_norm_one_value_per_channel(torch: Any) -> None:
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        nn.BatchNorm1d(3)(ember.ones(1, 3))


@pytest.mark.parametrize("shape, norm", [((4, 6), 6), ((2, 5, 8), 8), ((2, 3, 4), (3, 4))])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm(torch: Any, shape: tuple, norm: Any, affine: bool) -> None:
    em, tm = nn.LayerNorm(norm, elementwise_affine=affine), torch.nn.LayerNorm(norm, elementwise_affine=affine)
    if affine:
        with torch.no_grad():
            tm.weight.normal_()
            tm.bias.normal_()
    _check_module(torch, em, tm, shape)


def test_layer_norm_grad_fn_and_double_backward(torch: Any) -> None:
    xe, xt = _pair(torch, (3, 5))
    we, wt = _pair(torch, (5,))
    ye, yt = F.layer_norm(xe, [5], we), torch.nn.functional.layer_norm(xt, [5], wt)
    assert ye.grad_fn.name() == "NativeLayerNormBackward0"
    (ge,) = ember.autograd.grad((ye * ye).sum(), xe, create_graph=True)
    (gt,) = torch.autograd.grad((yt * yt).sum(), xt, create_graph=True)
    close(ge, gt, atol=1e-4, rtol=1e-3)
    ge.sum().backward()
    gt.sum().backward()
    close(we.grad, wt.grad, atol=1e-4, rtol=1e-3)


@pytest.mark.parametrize("groups, shape", [(2, (3, 4, 5)), (1, (2, 6, 2, 2)), (6, (2, 6, 3))])
def test_group_norm(torch: Any, groups: int, shape: tuple) -> None:
    em, tm = nn.GroupNorm(groups, shape[1]), torch.nn.GroupNorm(groups, shape[1])
    with torch.no_grad():
        tm.weight.normal_()
        tm.bias.normal_()
    _check_module(torch, em, tm, shape)


@pytest.mark.parametrize("cls, shape", [("InstanceNorm1d", (2, 3, 6)), ("InstanceNorm2d", (2, 3, 4, 4)),
                                        ("InstanceNorm3d", (2, 3, 2, 3, 2)), ("InstanceNorm1d", (3, 6))])
@pytest.mark.parametrize("affine, track", [(False, False), (True, True)])
def test_instance_norm(torch: Any, cls: str, shape: tuple, affine: bool, track: bool) -> None:
    em = getattr(nn, cls)(3, affine=affine, track_running_stats=track)
    tm = getattr(torch.nn, cls)(3, affine=affine, track_running_stats=track)
    _check_module(torch, em, tm, shape)
    em.eval()
    tm.eval()
    _check_module(torch, em, tm, shape, steps=1)


@pytest.mark.parametrize("eps", [None, 1e-3])
def test_rms_norm(torch: Any, eps: Any) -> None:
    em, tm = nn.RMSNorm([3, 4], eps=eps), torch.nn.RMSNorm([3, 4], eps=eps)
    with torch.no_grad():
        tm.weight.normal_()
    _check_module(torch, em, tm, (2, 3, 4))


def test_local_response_norm(torch: Any) -> None:
    _check_module(torch, nn.LocalResponseNorm(3, alpha=0.5), torch.nn.LocalResponseNorm(3, alpha=0.5), (2, 5, 4))
    _check_module(torch, nn.LocalResponseNorm(2), torch.nn.LocalResponseNorm(2), (2, 4, 3, 3))


# ------------------------------------------------------------------ embedding

@pytest.mark.parametrize("kw", [{}, {"padding_idx": 2}, {"padding_idx": -1}, {"scale_grad_by_freq": True},
                                {"padding_idx": 0, "scale_grad_by_freq": True}])
def test_embedding(torch: Any, kw: dict) -> None:
    em, tm = nn.Embedding(7, 4, **kw), torch.nn.Embedding(7, 4, **kw)
    copy_params(tm, em)
    idx = np.array([[0, 2, 2, 6], [1, 6, 0, 3]])
    ye, yt = em(ember.tensor(idx.tolist())), tm(torch.tensor(idx))
    close(ye, yt)
    assert ye.grad_fn.name() == "EmbeddingBackward0"
    g = RNG.standard_normal(tuple(yt.shape)).astype("float32")
    ye.backward(ember.from_numpy(g.copy()))
    yt.backward(torch.from_numpy(g.copy()))
    close(em.weight.grad, tm.weight.grad)


def test_embedding_max_norm_renorms_in_place(torch: Any) -> None:
    em, tm = nn.Embedding(6, 3, max_norm=1.0), torch.nn.Embedding(6, 3, max_norm=1.0)
    copy_params(tm, em)
    idx = [4, 1, 1]
    close(em(ember.tensor(idx)), tm(torch.tensor(idx)), atol=1e-6)
    close(em.weight, tm.weight, atol=1e-6)


def test_embedding_from_pretrained_and_errors(torch: Any) -> None:
    w = np.arange(12, dtype="float32").reshape(4, 3)
    em = nn.Embedding.from_pretrained(ember.from_numpy(w.copy()))
    assert not em.weight.requires_grad
    close(em(ember.tensor([3, 0])), w[[3, 0]])
    with pytest.raises(IndexError, match="index out of range in self"):
        em(ember.tensor([4]))
    with pytest.raises(IndexError):
        em(ember.tensor([-1]))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("kw", [{}, {"include_last_offset": True}, {"padding_idx": 1}])
def test_embedding_bag(torch: Any, mode: str, kw: dict) -> None:
    em, tm = nn.EmbeddingBag(6, 3, mode=mode, **kw), torch.nn.EmbeddingBag(6, 3, mode=mode, **kw)
    copy_params(tm, em)
    # with include_last_offset the last offset is len(input), as documented
    idx, off = [1, 2, 4, 5, 4, 3, 1, 0], [0, 2, 2, 5] + ([8] if kw.get("include_last_offset") else [])
    ye, yt = em(ember.tensor(idx), ember.tensor(off)), tm(torch.tensor(idx), torch.tensor(off))
    close(ye, yt)
    ye.sum().backward()
    yt.sum().backward()
    close(em.weight.grad, tm.weight.grad)
    # 2-D input: fixed-length bags
    idx2 = [[1, 2, 3], [5, 1, 1]]
    close(em(ember.tensor(idx2)), tm(torch.tensor(idx2)))


def test_embedding_bag_per_sample_weights(torch: Any) -> None:
    em, tm = nn.EmbeddingBag(5, 2, mode="sum"), torch.nn.EmbeddingBag(5, 2, mode="sum")
    copy_params(tm, em)
    psw = [0.5, 2.0, -1.0, 1.0]
    ye = em(ember.tensor([0, 4, 4, 2]), ember.tensor([0, 1]), per_sample_weights=ember.tensor(psw))
    yt = tm(torch.tensor([0, 4, 4, 2]), torch.tensor([0, 1]), per_sample_weights=torch.tensor(psw))
    close(ye, yt)


# ------------------------------------------------------------------ dropout

def test_dropout_statistics_and_grad(torch: Any) -> None:
    x = ember.ones(20000, requires_grad=True)
    y = F.dropout(x, 0.3, training=True)
    assert y.grad_fn.name() == "NativeDropoutBackward0"
    kept = (y != 0).float().mean().item()
    assert abs(kept - 0.7) < 0.02
    vals = np.unique(y.detach().numpy())
    assert len(vals) == 2 and vals[0] == 0.0 and abs(vals[1] - 1 / 0.7) < 1e-6
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy())
    assert F.dropout(x, 0.3, training=False) is x
    z = ember.ones(10)
    assert F.dropout(z, 1.0, inplace=True) is z and float(z.abs().sum()) == 0.0
    with pytest.raises(ValueError, match="dropout probability"):
        F.dropout(x, 1.5)


@pytest.mark.parametrize("name", ["AlphaDropout", "FeatureAlphaDropout"])
def test_alpha_dropouts(torch: Any, name: str) -> None:
    m = getattr(nn, name)(0.2)
    x = ember.randn(400, 50)
    y = m(x)
    assert abs(float(y.mean())) < 0.05 and abs(float(y.std()) - 1.0) < 0.05
    m.eval()
    assert m(x) is x


# ------------------------------------------------------------------ losses on the fused kernels

@pytest.mark.parametrize("kw", [{}, {"reduction": "sum"}, {"reduction": "none"}, {"ignore_index": 1},
                                {"label_smoothing": 0.2}, {"weight": [0.2, 1.0, 3.0, 0.5]}])
@pytest.mark.parametrize("shape", [(6, 4), (2, 4, 3), (4,)])
def test_cross_entropy(torch: Any, kw: dict, shape: tuple) -> None:
    xe, xt = _pair(torch, shape)
    tgt = RNG.integers(0, 4, size=(shape[0],) + shape[2:] if len(shape) > 1 else ())
    kwe = {k: (ember.tensor(v) if k == "weight" else v) for k, v in kw.items()}
    kwt = {k: (torch.tensor(v) if k == "weight" else v) for k, v in kw.items()}
    le = F.cross_entropy(xe, ember.tensor(tgt.tolist()), **kwe)
    lt = torch.nn.functional.cross_entropy(xt, torch.tensor(tgt), **kwt)
    close(le, lt, atol=1e-5)
    le.sum().backward()
    lt.sum().backward()
    close(xe.grad, xt.grad, atol=1e-5)


def test_nll_loss_out_of_range_target(torch: Any) -> None:
    x = ember.randn(3, 4)
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        F.nll_loss(x, ember.tensor([0, 4, 1]))
    with pytest.raises(IndexError, match="Target -2 is out of bounds"):
        F.cross_entropy(x, ember.tensor([0, -2, 1]))
    # ignore_index entries may hold any value
    close(F.nll_loss(x, ember.tensor([0, -100, 1])), (-(x[0, 0] + x[2, 1]) / 2).reshape(()))


def test_softmax_grad_fns(torch: Any) -> None:
    x = ember.randn(3, 4, requires_grad=True)
    assert F.softmax(x, 1).grad_fn.name() == "SoftmaxBackward0"
    assert F.log_softmax(x, 1).grad_fn.name() == "LogSoftmaxBackward0"
    assert x.softmax(0).dtype == ember.float32
    assert ember.softmax(x, 1, dtype=ember.float64).dtype == ember.float64


@pytest.mark.parametrize("fn", ["layer_norm", "group_norm", "batch_norm", "instance_norm"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_input_float32_params(torch: Any, fn: str, dtype: str) -> None:
    # aten's mixed type: a half-type input with float32 weight and bias computes in float32; the
    # output keeps the input's dtype, the parameter gradients are float32
    x = RNG.standard_normal((4, 2, 6)).astype("float32") * 3
    w, b = RNG.standard_normal(2).astype("float32"), RNG.standard_normal(2).astype("float32")
    g = RNG.standard_normal((4, 2, 6)).astype("float32")
    if fn == "layer_norm":
        w, b = RNG.standard_normal(6).astype("float32"), RNG.standard_normal(6).astype("float32")
    out = []
    for lib, F_ in ((ember, F), (torch, torch.nn.functional)):
        xt = lib.from_numpy(x.copy()).to(getattr(lib, dtype)).requires_grad_(True)
        wt, bt = lib.from_numpy(w.copy()).requires_grad_(True), lib.from_numpy(b.copy()).requires_grad_(True)
        call = {"layer_norm": lambda: F_.layer_norm(xt, (6,), wt, bt),
                "group_norm": lambda: F_.group_norm(xt, 2, wt, bt),
                "batch_norm": lambda: F_.batch_norm(xt, None, None, wt, bt, training=True),
                "instance_norm": lambda: F_.instance_norm(xt, weight=wt, bias=bt)}[fn]
        y = call()
        y.backward(lib.from_numpy(g.copy()).to(y.dtype))
        out.append((y, xt.grad, wt.grad, bt.grad))
    for e, t in zip(out[0], out[1], strict=True):
        assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        tol = 2e-2 if dtype == "bfloat16" else 3e-3
        close(e.float(), t.float(), atol=tol * 10, rtol=tol)


def test_batch_norm_running_stats_update_in_channel_order(torch: Any) -> None:
    # channels sharing one running element each update it in turn (PyTorch on one thread; on more
    # its updates race: torch_known_wrong's batch-norm-shared-running-stats)
    rm, rv = ember.zeros(1).expand(3), ember.ones(1).expand(3)
    F.batch_norm(ember.arange(12.0).reshape(4, 3), rm, rv, training=True)
    m, v = 0.0, 1.0
    for c in range(3):
        m = 0.1 * (4.5 + c) + 0.9 * m
        v = 0.1 * 15.0 + 0.9 * v
    close(rm, torch.full((3,), m), atol=1e-6, rtol=1e-6)
    close(rv, torch.full((3,), v), atol=1e-6, rtol=1e-6)


def test_batch_norm_expanded_input_equal_values(torch: Any) -> None:
    # aten normalizes a non-contiguous input as ((x - mean) * rstd) * w + b, where equal values give
    # the bias exactly (x * scale + shift, its contiguous form, leaves a rounding residue)
    row = [2.5289173126220703, -1.3748527765274048, 0.3207625150680542]
    xe, xt = ember.tensor([row]).expand(4, 3), torch.tensor([row]).expand(4, 3)
    ye = F.batch_norm(xe, None, None, ember.tensor(row), ember.tensor(row), training=True)
    yt = torch.nn.functional.batch_norm(xt, None, None, torch.tensor(row), torch.tensor(row), training=True)
    close(ye, yt, atol=0, rtol=0)
    close(ye, torch.tensor([row] * 4), atol=0, rtol=0)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_layer_norm_half_equal_row_is_zero(torch: Any, dtype: str) -> None:
    # a row equal to its mean normalizes to exactly 0 (PyTorch's half kernel leaves ~1e-5 there:
    # torch_known_wrong's layer-norm-half-equal-row); other rows match PyTorch
    x = torch.tensor([[0.7] * 8, [0.1 * i for i in range(8)]], dtype=getattr(torch, dtype))
    ye = F.layer_norm(ember.tensor(x.float().tolist(), dtype=getattr(ember, dtype)), [8])
    assert ye[0].float().abs().max().item() == 0.0
    ref = torch.nn.functional.layer_norm(x.double(), [8]).to(x.dtype)
    close(ye.float(), ref.float(), atol=1e-5, rtol=2e-2 if dtype == "bfloat16" else 1e-3)


@pytest.mark.parametrize("params", ["float16", "float32"])
def test_batch_norm_strided_half_input(torch: Any, params: str) -> None:
    # aten's non-contiguous transform in the parameters' dtype: half parameters round the
    # statistics and each step to half, float32 ones (mixed type) compute in float
    a = RNG.standard_normal((6, 3, 10)).astype("float16")
    w, b = RNG.standard_normal(3).astype(params), RNG.standard_normal(3).astype(params)
    xe, xt = ember.from_numpy(a.copy())[:, :, ::2], torch.from_numpy(a.copy())[:, :, ::2]
    ye = F.batch_norm(xe, None, None, ember.from_numpy(w.copy()), ember.from_numpy(b.copy()), training=True)
    yt = torch.nn.functional.batch_norm(xt, None, None, torch.from_numpy(w), torch.from_numpy(b), training=True)
    close(ye.float(), yt.float(), atol=1e-5, rtol=1e-3)
