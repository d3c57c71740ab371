"""Convolution, padding, fold and pixel-shuffle layers against torch: same weights and inputs give
the same outputs and gradients (input and every parameter); reprs, parameter shapes, init
statistics, state_dict loading and error types match."""

from __future__ import annotations

import math
from typing import Any

import ember
import ember.nn as nn
import ember.nn.functional as F
import numpy as np
import pytest
from _nn_testutil import close, copy_params


def _pair_rand(torch: Any, shape: tuple, seed: int = 0, dtype: str = "float32") -> tuple[Any, Any]:
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return ember.from_numpy(a.copy()).requires_grad_(), torch.from_numpy(a.copy()).requires_grad_()


def _check_module(torch: Any, me: Any, mt: Any, shape: tuple, atol: float = 1e-5, **fwd: Any) -> None:
    """Copy torch's parameters into ember, run both, compare output, input grad and parameter grads."""
    assert repr(me) == repr(mt)
    assert [(n, tuple(p.shape)) for n, p in me.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in mt.named_parameters()]
    copy_params(mt, me)
    xe, xt = _pair_rand(torch, shape)
    ye, yt = me(xe, **fwd), mt(xt, **fwd)
    assert tuple(ye.shape) == tuple(yt.shape)
    close(ye, yt, atol=atol, rtol=1e-4)
    g = np.random.default_rng(1).standard_normal(tuple(yt.shape)).astype("float32")
    ye.backward(ember.from_numpy(g.copy()))
    yt.backward(torch.from_numpy(g.copy()))
    close(xe.grad, xt.grad, atol=atol, rtol=1e-4)
    for (n, pe), (_, pt) in zip(me.named_parameters(), mt.named_parameters(), strict=True):
        close(pe.grad, pt.grad, atol=atol * 10, rtol=1e-4), n


CONV = [
    ("Conv1d", (3, 4, 3), {}, (2, 3, 9)),
    ("Conv1d", (4, 6, 2), dict(stride=2, padding=1, dilation=2, groups=2, bias=False), (2, 4, 11)),
    ("Conv1d", (3, 4, 4), dict(padding="same", padding_mode="reflect"), (2, 3, 8)),
    ("Conv1d", (3, 4, 3), dict(padding="valid"), (3, 7)),
    ("Conv2d", (3, 5, 3), {}, (2, 3, 8, 7)),
    ("Conv2d", (4, 6, (3, 2)), dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2), (2, 4, 9, 8)),
    ("Conv2d", (3, 4, 3), dict(padding=1, padding_mode="circular"), (2, 3, 6, 6)),
    ("Conv2d", (3, 4, 3), dict(padding=2, padding_mode="replicate"), (3, 6, 5)),
    ("Conv2d", (3, 4, 3), dict(padding=1, padding_mode="reflect"), (2, 3, 6, 5)),
    ("Conv2d", (3, 4, (2, 4)), dict(padding="same", dilation=(2, 1)), (2, 3, 7, 6)),
    ("Conv2d", (4, 4, 3), dict(groups=4, padding=1), (1, 4, 5, 5)),
    ("Conv3d", (2, 3, 2), {}, (2, 2, 4, 5, 4)),
    ("Conv3d", (2, 4, (2, 3, 2)), dict(stride=2, padding=(1, 0, 1), padding_mode="replicate"), (1, 2, 5, 6, 5)),
    ("ConvTranspose1d", (3, 4, 3), dict(stride=2, padding=1, output_padding=1), (2, 3, 6)),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, output_padding=1, groups=2, dilation=2), (2, 4, 4, 5)),
    ("ConvTranspose2d", (3, 2, (2, 3)), dict(bias=False, padding=(0, 1)), (3, 4, 4)),
    ("ConvTranspose3d", (2, 3, 2), dict(stride=(1, 2, 2)), (1, 2, 3, 3, 2)),
]


@pytest.mark.parametrize("name,args,kw,shape", CONV, ids=[f"{c[0]}-{i}" for i, c in enumerate(CONV)])
def test_conv_module_matches_torch(torch: Any, name: str, args: tuple, kw: dict, shape: tuple) -> None:
    _check_module(torch, getattr(nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw), shape)


def test_conv_transpose_output_size(torch: Any) -> None:
    me, mt = nn.ConvTranspose2d(3, 2, 3, stride=3), torch.nn.ConvTranspose2d(3, 2, 3, stride=3)
    _check_module(torch, me, mt, (1, 3, 4, 4), output_size=[13, 14])
    _check_module(torch, me, mt, (1, 3, 4, 4), output_size=(1, 2, 14, 12))
    xe = ember.zeros(1, 3, 4, 4)
    with pytest.raises(ValueError):
        me(xe, output_size=[20, 20])
    with pytest.raises(ValueError):
        me(xe, output_size=[12])


def test_conv_init_statistics(torch: Any) -> None:
    m = nn.Conv2d(16, 32, 3)
    bound = 1 / math.sqrt(16 * 9)  # kaiming_uniform_(a=√5) and the bias both give U(-1/√fan_in, 1/√fan_in)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert w.shape == (32, 16, 3, 3) and b.shape == (32,)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound
    t = nn.ConvTranspose2d(4, 6, 3, groups=2)
    assert tuple(t.weight.shape) == (4, 3, 3, 3) and tuple(t.bias.shape) == (6,)
    assert np.abs(t.weight.detach().numpy()).max() <= 1 / math.sqrt(3 * 9)


def test_conv_state_dict_from_torch(torch: Any) -> None:
    mt = torch.nn.Conv2d(3, 4, 3, bias=True)
    me = nn.Conv2d(3, 4, 3)
    sd = {k: ember.from_numpy(v.detach().numpy().copy()) for k, v in mt.state_dict().items()}
    me.load_state_dict(sd)
    assert list(me.state_dict()) == list(mt.state_dict())
    close(me.weight, mt.weight)
    nb = nn.Conv2d(3, 4, 3, bias=False)
    assert list(nb.state_dict()) == ["weight"] and nb.bias is None


@pytest.mark.parametrize("kw", [dict(groups=0), dict(groups=2), dict(padding="full"), dict(padding_mode="zero"),
                                dict(padding="same", stride=2)])
def test_conv_constructor_errors(torch: Any, kw: dict) -> None:
    with pytest.raises(ValueError):
        torch.nn.Conv2d(3, 4, 3, **kw)
    with pytest.raises(ValueError):
        nn.Conv2d(3, 4, 3, **kw)


def test_conv_transpose_padding_mode_error(torch: Any) -> None:
    with pytest.raises(ValueError, match="zeros"):
        nn.ConvTranspose2d(3, 4, 3, padding_mode="reflect")


def test_conv_forward_errors(torch: Any) -> None:
    m = nn.Conv2d(3, 4, 3)
    with pytest.raises(RuntimeError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\) input to conv2d"):
        m(ember.zeros(3, 5))
    with pytest.raises(RuntimeError, match="expected input\\[1, 2, 5, 5\\] to have 3 channels"):
        m(ember.zeros(1, 2, 5, 5))
    with pytest.raises(RuntimeError, match="Kernel size can't be greater than actual input size"):
        m(ember.zeros(1, 3, 2, 2))


PADS = [
    ("ZeroPad1d", (2,), (2, 3, 4)), ("ZeroPad2d", ((1, 0, 2, 1),), (1, 2, 3, 4)), ("ZeroPad3d", (1,), (1, 2, 2, 3, 2)),
    ("ConstantPad1d", ((1, 2), 3.5), (2, 4)), ("ConstantPad2d", (1, -1.0), (2, 3, 3)),
    ("ConstantPad3d", ((1, 0, 0, 1, 1, 1), 2.0), (1, 1, 2, 2, 2)),
    ("ReflectionPad1d", ((2, 1),), (2, 3, 4)), ("ReflectionPad2d", (2,), (1, 2, 3, 4)),
    ("ReflectionPad3d", (1,), (1, 2, 2, 3, 2)), ("ReplicationPad1d", (3,), (2, 3)),
    ("ReplicationPad2d", ((1, 2, 3, 0),), (1, 2, 3, 4)), ("ReplicationPad3d", (2,), (1, 1, 2, 2, 3)),
    ("CircularPad1d", ((2, 1),), (2, 3, 4)), ("CircularPad2d", (1,), (2, 3, 4)),
    ("CircularPad3d", ((1, 0, 1, 2, 0, 1),), (1, 2, 2, 3, 2)), ("ReflectionPad2d", ((-1, 2, 1, -1),), (1, 2, 4, 4)),
    ("CircularPad1d", ((-1, 2),), (1, 2, 5)), ("ReplicationPad1d", ((2, -2),), (1, 2, 5)),
]


@pytest.mark.parametrize("name,args,shape", PADS, ids=[f"{p[0]}-{i}" for i, p in enumerate(PADS)])
def test_padding_module_matches_torch(torch: Any, name: str, args: tuple, shape: tuple) -> None:
    _check_module(torch, getattr(nn, name)(*args), getattr(torch.nn, name)(*args), shape)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
def test_pad_float64_gradgradcheck(mode: str) -> None:
    x = ember.randn(1, 2, 4, 3, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradgradcheck(lambda a: F.pad(a, (1, 2, 2, 1), mode=mode), (x,))


@pytest.mark.parametrize("args,kw", [
    (((1, 2, 3, 3), (3, 3)), dict(mode="reflect")),  # pad size 2 on 4-D: unsupported combination
    (((1, 2, 3, 3), (3, 3, 1, 1)), dict(mode="reflect")),
    (((1, 2, 3, 3), (4, 4, 1, 1)), dict(mode="circular")),
    (((1, 2, 3, 3), (1, 1, 1)), dict(mode="reflect")),
    (((1, 2, 3, 3), (1, 1, 1, 1)), dict(mode="reflect", value=2.0)),
    (((1, 2, 3, 3), (1, 1, 1, 1)), dict(mode="wrap")),
    (((1, 0, 3), (1, 1)), dict(mode="replicate")),
    (((2, 2, 3), (-2, -1)), dict(mode="reflect")),
    (((2, 3), (1, 2, 3)), {}),
])
def test_pad_errors_match_torch(torch: Any, args: tuple, kw: dict) -> None:
    shape, pad = args
    with pytest.raises(Exception) as te:
        torch.nn.functional.pad(torch.zeros(shape), pad, **kw)
    with pytest.raises(Exception) as ee:
        F.pad(ember.zeros(*shape), pad, **kw)
    assert type(ee.value) is type(te.value), (te.value, ee.value)


FOLD = [
    dict(kernel_size=3), dict(kernel_size=(2, 3), dilation=(2, 1), padding=(1, 2), stride=(2, 1)),
    dict(kernel_size=2, stride=2),
]


@pytest.mark.parametrize("kw", FOLD)
def test_unfold_fold_match_torch(torch: Any, kw: dict) -> None:
    _check_module(torch, nn.Unfold(**kw), torch.nn.Unfold(**kw), (2, 3, 7, 6))
    _check_module(torch, nn.Unfold(**kw), torch.nn.Unfold(**kw), (3, 7, 6))  # unbatched
    cols = torch.nn.functional.unfold(torch.zeros(2, 3, 7, 6), **kw).shape
    _check_module(torch, nn.Fold((7, 6), **kw), torch.nn.Fold((7, 6), **kw), tuple(cols))
    _check_module(torch, nn.Fold((7, 6), **kw), torch.nn.Fold((7, 6), **kw), tuple(cols)[1:])


@pytest.mark.parametrize("fn,args", [
    ("unfold", ((1, 2, 3, 3), 4)), ("unfold", ((1, 2, 3, 3), 2, 1, 0, 0)), ("unfold", ((1, 2, 1, 3, 3), 2)),
    ("fold", ((1, 7, 4), (3, 3), 2)), ("fold", ((1, 8, 5), (3, 3), 2)), ("fold", ((1, 1, 8, 4), (3, 3), 2)),
])
def test_fold_errors_match_torch(torch: Any, fn: str, args: tuple) -> None:
    shape, *rest = args
    with pytest.raises(Exception) as te:
        getattr(torch.nn.functional, fn)(torch.zeros(shape), *rest)
    with pytest.raises(Exception) as ee:
        getattr(F, fn)(ember.zeros(*shape), *rest)
    assert type(ee.value) is type(te.value), (te.value, ee.value)


def test_fold_unfold_gradgradcheck() -> None:
    x = ember.randn(1, 2, 5, 4, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradgradcheck(lambda a: F.unfold(a, (2, 3), padding=1, stride=(2, 1)), (x,))
    c = ember.randn(1, 8, 9, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradgradcheck(lambda a: F.fold(a, (4, 4), 2, padding=1, stride=2), (c,))


def test_pixel_shuffle_modules(torch: Any) -> None:
    _check_module(torch, nn.PixelShuffle(2), torch.nn.PixelShuffle(2), (2, 8, 3, 4))
    _check_module(torch, nn.PixelUnshuffle(3), torch.nn.PixelUnshuffle(3), (1, 2, 6, 9))
    _check_module(torch, nn.PixelShuffle(3), torch.nn.PixelShuffle(3), (9, 2, 2))


def test_conv_double_backward_matches_torch(torch: Any) -> None:
    """create_graph=True: the gradient of a gradient-norm penalty agrees with torch's."""
    me, mt = nn.Conv2d(2, 3, 3, stride=2, padding=1, groups=1), torch.nn.Conv2d(2, 3, 3, stride=2, padding=1)
    copy_params(mt, me)
    xe, xt = _pair_rand(torch, (2, 2, 6, 5))
    ge = ember.autograd.grad(me(xe).pow(2).sum(), [xe, me.weight], create_graph=True)
    gt = torch.autograd.grad(mt(xt).pow(2).sum(), [xt, mt.weight], create_graph=True)
    (ge[0].pow(2).sum() + ge[1].pow(2).sum()).backward()
    (gt[0].pow(2).sum() + gt[1].pow(2).sum()).backward()
    close(xe.grad, xt.grad, atol=1e-3, rtol=1e-4)
    close(me.weight.grad, mt.weight.grad, atol=1e-3, rtol=1e-4)
    close(me.bias.grad, mt.bias.grad, atol=1e-3, rtol=1e-4)


def test_module_in_sequential_trains(torch: Any) -> None:
    """A tiny conv net's loss goes down under SGD (parameters receive gradients end to end)."""
    ember.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.ReflectionPad2d(1), nn.Conv2d(4, 1, 3))
    x, y = ember.randn(4, 1, 6, 6), ember.randn(4, 1, 6, 6)
    opt = ember.optim.SGD(net.parameters(), lr=0.05)
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = ((net(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
