"""Layers and activations: same weights and inputs as torch → same outputs, gradients and repr."""

from __future__ import annotations

from typing import Any

import ember
import ember.nn as nn
import ember.nn.functional as F
import numpy as np
import pytest
from _nn_testutil import close, copy_params, pair

X = np.array([[-30.0, -3.0, -1.5, -0.5, 0.0, 0.3, 1.0, 2.5, 3.0, 7.0, 25.0]], dtype="float32")

ACTIVATIONS = [
    ("ReLU", ()), ("ReLU6", ()), ("LeakyReLU", (0.2,)), ("ELU", (0.7,)), ("SELU", ()), ("CELU", (1.3,)),
    ("GELU", ()), ("GELU", ("tanh",)), ("SiLU", ()), ("Mish", ()), ("Sigmoid", ()), ("Tanh", ()),
    ("Softplus", ()), ("Softplus", (2.0, 5.0)), ("Softsign", ()), ("Hardtanh", (-2.0, 1.5)), ("Hardsigmoid", ()),
    ("Hardswish", ()), ("LogSigmoid", ()), ("Tanhshrink", ()), ("Threshold", (0.4, -2.0)), ("Softshrink", ()),
    ("Hardshrink", (1.2,)), ("GLU", (0,)), ("Softmax", (1,)), ("LogSoftmax", (1,)), ("Softmin", (1,)),
    ("Softmax", (0,)), ("PReLU", ()),
]


@pytest.mark.parametrize("name,args", ACTIVATIONS)
def test_activation_matches_torch(torch: Any, name: str, args: tuple[Any, ...]) -> None:
    data = np.concatenate([X, X[:, ::-1] * 0.5], 0)
    xe, xt = pair(torch, data, requires_grad=True)
    me, mt = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(me) == repr(mt)
    ye, yt = me(xe), mt(xt)
    close(ye, yt, atol=1e-5)
    gseed = np.linspace(-1, 1, yt.numel(), dtype="float32").reshape(tuple(yt.shape))
    ye.backward(ember.from_numpy(gseed))
    yt.backward(torch.from_numpy(gseed))
    assert np.isfinite(xe.grad.numpy()).all()
    close(xe.grad, xt.grad, atol=1e-5)


def test_prelu_per_channel_matches_torch(torch: Any) -> None:
    me, mt = nn.PReLU(3, 0.1), torch.nn.PReLU(3, 0.1)
    with torch.no_grad():
        mt.weight.copy_(torch.tensor([0.1, -0.5, 2.0]))
    me.load_state_dict({"weight": ember.tensor([0.1, -0.5, 2.0])})
    assert repr(me) == repr(mt)
    xe, xt = pair(torch, np.linspace(-2, 2, 24).reshape(2, 3, 4), requires_grad=True)
    ye, yt = me(xe), mt(xt)
    close(ye, yt)
    (ye * ye).sum().backward()
    (yt * yt).sum().backward()
    close(xe.grad, xt.grad)
    close(me.weight.grad, mt.weight.grad, atol=1e-5)


def test_softmax2d(torch: Any) -> None:
    xe, xt = pair(torch, np.linspace(-3, 3, 24).reshape(2, 3, 2, 2))
    close(nn.Softmax2d()(xe), torch.nn.Softmax2d()(xt))
    close(nn.Softmax2d()(xe[0]), torch.nn.Softmax2d()(xt[0]))
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D instead"):
        nn.Softmax2d()(ember.ones(2, 2))


def test_inplace_activations(torch: Any) -> None:
    xe, _ = pair(torch, X)
    nn.ReLU(inplace=True)(xe)
    assert float(xe.min().item()) == 0.0
    ye, yt = pair(torch, X)
    F.leaky_relu(ye, 0.1, inplace=True)
    torch.nn.functional.leaky_relu(yt, 0.1, inplace=True)
    close(ye, yt)


def test_softmax_implicit_dim_warns() -> None:
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        y = F.softmax(ember.ones(2, 3))
    close(y.sum(1), ember.ones(2))


def test_linear_matches_torch(torch: Any) -> None:
    ember.manual_seed(0)
    torch.manual_seed(0)
    me, mt = nn.Linear(4, 3), torch.nn.Linear(4, 3)
    close(me.weight, mt.weight, atol=0)  # same default init stream
    close(me.bias, mt.bias, atol=0)
    assert repr(me) == repr(mt) and repr(nn.Linear(2, 2, bias=False)) == repr(torch.nn.Linear(2, 2, bias=False))
    for shape in [(4,), (2, 4), (2, 3, 4)]:
        data = np.arange(np.prod(shape), dtype="float32").reshape(shape) / 7 - 1
        xe, xt = pair(torch, data, requires_grad=True)
        ye, yt = me(xe), mt(xt)
        close(ye, yt, atol=1e-5)
        (ye * ye).sum().backward()
        (yt * yt).sum().backward()
        close(xe.grad, xt.grad, atol=1e-5)
    close(me.weight.grad, mt.weight.grad, atol=1e-4)
    close(me.bias.grad, mt.bias.grad, atol=1e-4)
    for bad, tbad in [(ember.ones(2, 5), torch.ones(2, 5)), (ember.ones(2, 2, 5), torch.ones(2, 2, 5)),
                      (ember.ones(2, 4, dtype=ember.float64), torch.ones(2, 4, dtype=torch.float64))]:
        with pytest.raises(RuntimeError) as ee:
            me(bad)
        with pytest.raises(RuntimeError) as te:
            mt(tbad)
        assert str(ee.value) == str(te.value)


def test_bilinear_matches_torch(torch: Any) -> None:
    te = torch.nn.Bilinear(3, 2, 4)
    ee = nn.Bilinear(3, 2, 4)
    copy_params(te, ee)
    ae, at = pair(torch, np.linspace(-1, 1, 15).reshape(5, 3), requires_grad=True)
    be, bt = pair(torch, np.linspace(-2, 1, 10).reshape(5, 2))
    ye, yt = ee(ae, be), te(at, bt)
    close(ye, yt, atol=1e-5)
    ye.sum().backward()
    yt.sum().backward()
    close(ae.grad, at.grad, atol=1e-5)
    close(ee.weight.grad, te.weight.grad, atol=1e-5)
    assert repr(ee) == repr(te)


def test_identity_flatten_unflatten(torch: Any) -> None:
    x = ember.ones(2, 3, 4)
    assert nn.Identity(1, a=2)(x) is x
    assert nn.Flatten()(x).shape == (2, 12) and nn.Flatten(0, 1)(x).shape == (6, 4)
    assert nn.Unflatten(1, (3, 1))(x).shape == (2, 3, 1, 4)
    assert nn.Unflatten(-1, (2, -1))(x).shape == (2, 3, 2, 2)
    assert repr(nn.Flatten()) == repr(torch.nn.Flatten())
    assert repr(nn.Unflatten(1, (2, 2))) == repr(torch.nn.Unflatten(1, (2, 2)))


def test_dropout() -> None:
    d = nn.Dropout(0.25)
    x = ember.ones(2000)
    y = d(x)
    kept = y != 0
    assert 0.6 < float(kept.float().mean().item()) < 0.9
    close(y[kept.numpy()].numpy() if False else ember.where(kept, y, 4 / 3), ember.full((2000,), 4 / 3))
    assert d.eval()(x) is x
    assert float(F.dropout(x, 1.0).sum().item()) == 0.0
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)
    assert repr(d) == "Dropout(p=0.25, inplace=False)"


def test_layernorm_matches_torch(torch: Any) -> None:
    te, ee = torch.nn.LayerNorm((3, 4)), nn.LayerNorm((3, 4))
    with torch.no_grad():
        te.weight.uniform_()
        te.bias.uniform_()
    copy_params(te, ee)
    assert repr(ee) == repr(te)
    xe, xt = pair(torch, np.random.default_rng(0).normal(size=(2, 3, 4)), requires_grad=True)
    ye, yt = ee(xe), te(xt)
    close(ye, yt, atol=1e-5)
    (ye * ye).sum().backward()
    (yt * yt).sum().backward()
    close(xe.grad, xt.grad, atol=1e-4)
    close(ee.weight.grad, te.weight.grad, atol=1e-4)


@pytest.mark.parametrize("momentum", [0.1, None])
def test_batchnorm1d_matches_torch(torch: Any, momentum: Any) -> None:
    te, ee = torch.nn.BatchNorm1d(3, momentum=momentum), nn.BatchNorm1d(3, momentum=momentum)
    assert repr(ee) == repr(te)
    assert list(ee.state_dict()) == list(te.state_dict())
    rng = np.random.default_rng(1)
    for shape in [(5, 3), (4, 3, 2)]:
        xe, xt = pair(torch, rng.normal(size=shape), requires_grad=True)
        ye, yt = ee(xe), te(xt)
        close(ye, yt, atol=1e-5)
        (ye * ye * xe).sum().backward()
        (yt * yt * xt).sum().backward()
        close(xe.grad, xt.grad, atol=1e-4)
    close(ee.running_mean, te.running_mean)
    close(ee.running_var, te.running_var)
    assert ee.num_batches_tracked.item() == 2 and ee.num_batches_tracked.dtype == ember.int64
    ee.eval()
    te.eval()
    xe, xt = pair(torch, rng.normal(size=(2, 3)))
    close(ee(xe), te(xt), atol=1e-5)
    ee.train()
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        ee(ember.ones(1, 3))
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        ee(ember.ones(3))
    sd = ee.state_dict()
    del sd["num_batches_tracked"]
    with pytest.raises(RuntimeError, match="num_batches_tracked"):
        nn.BatchNorm1d(3).load_state_dict(sd)
    sd._metadata[""]["version"] = 1
    nn.BatchNorm1d(3).load_state_dict(sd)
    assert ee.double().num_batches_tracked.dtype == ember.int64


@pytest.mark.parametrize("cls,shape", [("BatchNorm2d", (3, 2, 4, 5)), ("BatchNorm3d", (2, 2, 3, 2, 2))])
def test_batchnorm_nd_matches_torch(torch: Any, cls: str, shape: tuple[int, ...]) -> None:
    te, ee = getattr(torch.nn, cls)(2, momentum=0.3), getattr(nn, cls)(2, momentum=0.3)
    assert repr(ee) == repr(te)
    xe, xt = pair(torch, np.random.default_rng(2).normal(size=shape), requires_grad=True)
    ye, yt = ee(xe), te(xt)
    close(ye, yt, atol=1e-5)
    (ye * ye * xe).sum().backward()
    (yt * yt * xt).sum().backward()
    close(xe.grad, xt.grad, atol=1e-4)
    close(ee.running_var, te.running_var)
    ee.eval()
    te.eval()
    close(ee(xe), te(xt), atol=1e-5)
    with pytest.raises(ValueError, match=r"expected \dD input \(got 2D input\)"):
        ee(ember.ones(2, 2))
