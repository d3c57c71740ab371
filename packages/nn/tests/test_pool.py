"""Pooling / upsampling functionals and modules against PyTorch: values, indices, gradients, reprs, errors."""

from __future__ import annotations

from typing import Any

import ember.nn as nn
import ember.nn.functional as F
import numpy as np
import pytest
from _nn_testutil import close, pair, to_np

RNG = np.random.default_rng(11)


def _run(torch: Any, fn: str, shape: tuple, *args: Any, dtype: str = "float64", **kw: Any) -> None:
    """F.<fn> on the same data in ember and torch: outputs (and indices) and input gradients agree."""
    xe, xt = pair(torch, RNG.normal(size=shape), requires_grad=True, dtype=dtype)
    ye = getattr(F, fn)(xe, *args, **kw)
    yt = getattr(torch.nn.functional, fn)(xt, *args, **kw)
    if isinstance(yt, tuple):
        assert isinstance(ye, tuple) and len(ye) == 2
        np.testing.assert_array_equal(to_np(ye[1]), to_np(yt[1]))
        ye, yt = ye[0], yt[0]
    assert tuple(ye.shape) == tuple(yt.shape)
    tol = 1e-10 if dtype == "float64" else 1e-5
    close(ye, yt, atol=tol, rtol=tol)
    ge = RNG.normal(size=tuple(yt.shape))
    ye.backward(pair(torch, ge, dtype=dtype)[0])
    yt.backward(torch.tensor(ge, dtype=getattr(torch, dtype)))
    close(xe.grad, xt.grad, atol=tol, rtol=tol)


POOL_CASES = [
    ("max_pool1d", (2, 3, 11), (3,), {"stride": 2, "padding": 1}),
    ("max_pool1d", (3, 11), (2,), {"dilation": 2, "ceil_mode": True, "return_indices": True}),
    ("max_pool2d", (2, 3, 7, 9), (3,), {"stride": 2, "padding": 1, "return_indices": True}),
    ("max_pool2d", (3, 7, 9), ((2, 3),), {"ceil_mode": True}),
    ("max_pool3d", (1, 2, 5, 6, 7), (2,), {"stride": 1, "dilation": 2}),
    ("max_pool3d", (2, 5, 6, 7), (3,), {"stride": 2, "padding": 1, "return_indices": True}),
    ("avg_pool1d", (2, 3, 11), (3,), {"stride": 2, "padding": 1, "count_include_pad": False}),
    ("avg_pool1d", (3, 11), (4,), {"ceil_mode": True}),
    ("avg_pool2d", (2, 3, 7, 9), (3,), {"stride": 2, "padding": 1}),
    ("avg_pool2d", (3, 7, 9), (3,), {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}),
    ("avg_pool2d", (1, 2, 6, 6), (2,), {"divisor_override": 3}),
    ("avg_pool3d", (1, 2, 5, 6, 7), (3,), {"stride": 2, "padding": 1, "count_include_pad": False}),
    ("adaptive_avg_pool1d", (2, 3, 11), (4,), {}),
    ("adaptive_avg_pool2d", (2, 3, 7, 9), ((3, None),), {}),
    ("adaptive_avg_pool2d", (3, 7, 9), (1,), {}),
    ("adaptive_avg_pool3d", (1, 2, 5, 6, 7), ((2, 3, 4),), {}),
    ("adaptive_max_pool1d", (2, 3, 11), (4,), {"return_indices": True}),
    ("adaptive_max_pool2d", (2, 3, 7, 9), ((None, 4),), {"return_indices": True}),
    ("adaptive_max_pool3d", (2, 5, 6, 7), (3,), {}),
    ("lp_pool1d", (2, 3, 11), (2.0, 3), {"stride": 2}),
    ("lp_pool2d", (2, 3, 7, 9), (2.0, (2, 3)), {}),  # p=3: ember.pow's grad for 1/3 is float-rounded (core)
]


@pytest.mark.parametrize("fn, shape, args, kw", POOL_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(POOL_CASES)])
def test_pool_functional(torch: Any, fn: str, shape: tuple, args: tuple, kw: dict) -> None:
    _run(torch, fn, shape, *args, **kw)


def test_pool_float32(torch: Any) -> None:
    _run(torch, "max_pool2d", (2, 3, 8, 8), 2, dtype="float32")
    _run(torch, "avg_pool2d", (2, 3, 8, 8), 3, 2, 1, dtype="float32")


INTERP_CASES = [
    ((2, 3, 5), {"scale_factor": 2}),
    ((2, 3, 5), {"size": 12, "mode": "linear"}),
    ((2, 3, 5), {"scale_factor": 1.7, "mode": "linear", "align_corners": True}),
    ((2, 3, 4, 5), {"scale_factor": 2, "mode": "bilinear"}),
    ((2, 3, 4, 5), {"size": (7, 3), "mode": "bilinear", "align_corners": True}),
    ((2, 3, 4, 5), {"scale_factor": (1.5, 2.5), "mode": "bilinear", "recompute_scale_factor": True}),
    ((2, 3, 4, 5), {"scale_factor": 2, "mode": "bicubic"}),
    ((2, 3, 4, 5), {"size": (9, 11), "mode": "bicubic", "align_corners": True}),
    ((2, 3, 4, 5), {"scale_factor": 0.6, "mode": "bicubic"}),
    ((2, 3, 4, 5), {"scale_factor": 3}),
    ((2, 3, 4, 5), {"size": (6, 7), "mode": "nearest"}),
    ((2, 3, 4, 5), {"scale_factor": 1.5, "mode": "nearest-exact"}),
    ((2, 3, 6, 9), {"size": (4, 5), "mode": "area"}),
    ((2, 3, 6, 9), {"scale_factor": 0.5, "mode": "area"}),
    ((1, 2, 3, 4, 5), {"scale_factor": 2, "mode": "trilinear"}),
    ((1, 2, 3, 4, 5), {"size": (4, 5, 6), "mode": "trilinear", "align_corners": True}),
    ((1, 2, 3, 4, 5), {"scale_factor": (2, 1.5, 1), "mode": "nearest"}),
    ((1, 2, 3, 4, 5), {"size": 4, "mode": "nearest-exact"}),
]


@pytest.mark.parametrize("shape, kw", INTERP_CASES, ids=[str(i) for i in range(len(INTERP_CASES))])
def test_interpolate(torch: Any, shape: tuple, kw: dict) -> None:
    _run(torch, "interpolate", shape, **kw)


@pytest.mark.parametrize("kw", [
    {"size": 4, "scale_factor": 2}, {}, {"size": (3, 4, 5)}, {"scale_factor": (2, 2, 2)},
    {"size": 4, "mode": "nearest", "align_corners": True}, {"size": 4, "mode": "linear"},
    {"size": 4, "mode": "trilinear"}, {"size": 4, "recompute_scale_factor": True}, {"size": 4, "mode": "bogus"},
    {"size": (4.0, 5)},
])
def test_interpolate_errors(torch: Any, kw: dict) -> None:
    xe, xt = pair(torch, RNG.normal(size=(1, 2, 3, 4)))
    with pytest.raises(Exception) as te:
        torch.nn.functional.interpolate(xt, **kw)
    with pytest.raises(type(te.value)) as ee:
        F.interpolate(xe, **kw)
    assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("fn, args", [
    ("max_pool2d", (3, 1, 2)), ("max_pool2d", (5,)), ("max_pool2d", ((2, 2, 2),)), ("avg_pool2d", (3, 1, 2)),
    ("avg_pool2d", (5,)), ("max_pool3d", (2,)),
])
def test_pool_errors(torch: Any, fn: str, args: tuple) -> None:
    xe, xt = pair(torch, RNG.normal(size=(1, 4, 4)))
    with pytest.raises(Exception) as te:
        getattr(torch.nn.functional, fn)(xt, *args)
    with pytest.raises(type(te.value)) as ee:
        getattr(F, fn)(xe, *args)
    assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("fn, shape, args", [
    ("max_pool1d", (1, 1, 4, 4), (2,)), ("max_pool1d", (4,), (2,)), ("avg_pool1d", (4,), (2,)),
    ("max_pool1d", (1, 4), ((2, 2),)), ("avg_pool1d", (1, 4), ((2, 2),)), ("adaptive_avg_pool1d", (4,), (2,)),
    ("adaptive_max_pool1d", (4,), (2,)), ("avg_pool2d", (4, 4), (2,)),
])
def test_pool_1d_errors(torch: Any, fn: str, shape: tuple, args: tuple) -> None:
    xe, xt = pair(torch, RNG.normal(size=shape))
    with pytest.raises(Exception) as te:
        getattr(torch.nn.functional, fn)(xt, *args)
    with pytest.raises(type(te.value)) as ee:
        getattr(F, fn)(xe, *args)
    assert str(ee.value) == str(te.value)


def test_max_unpool_roundtrip(torch: Any) -> None:
    for n, shape in ((1, (2, 3, 8)), (2, (2, 3, 6, 8)), (3, (1, 2, 4, 6, 4))):
        xe, xt = pair(torch, RNG.normal(size=shape), dtype="float64")
        ye, ie = getattr(F, f"max_pool{n}d")(xe, 2, return_indices=True)
        yt, it = getattr(torch.nn.functional, f"max_pool{n}d")(xt, 2, return_indices=True)
        ye.requires_grad_(True)
        yt.requires_grad_(True)
        ue = getattr(F, f"max_unpool{n}d")(ye, ie, 2)
        ut = getattr(torch.nn.functional, f"max_unpool{n}d")(yt, it, 2)
        close(ue, ut)
        g = RNG.normal(size=tuple(ut.shape))
        ue.backward(pair(torch, g, dtype="float64")[0])
        ut.backward(torch.tensor(g))
        close(ye.grad, yt.grad)
        sized_e = getattr(F, f"max_unpool{n}d")(ye, ie, 2, output_size=[s + 1 for s in shape[2:]])
        sized_t = getattr(torch.nn.functional, f"max_unpool{n}d")(yt, it, 2, output_size=[s + 1 for s in shape[2:]])
        close(sized_e, sized_t)
    xe, _ = pair(torch, RNG.normal(size=(1, 1, 2, 2)))
    with pytest.raises(ValueError, match="invalid output_size"):
        F.max_unpool2d(xe, xe.long(), 2, output_size=(9, 9))


MODULES = [
    ("MaxPool1d", (3,), {}), ("MaxPool2d", (3, 2, 1), {"return_indices": True}), ("MaxPool3d", ((2, 2, 2),), {}),
    ("AvgPool1d", (3,), {}), ("AvgPool2d", (3,), {"ceil_mode": True}), ("AvgPool3d", (2, 1), {"divisor_override": 3}),
    ("AdaptiveAvgPool1d", (3,), {}), ("AdaptiveAvgPool2d", ((None, 3),), {}), ("AdaptiveAvgPool3d", (2,), {}),
    ("AdaptiveMaxPool1d", (3, True), {}), ("AdaptiveMaxPool2d", ((2, 3),), {}), ("AdaptiveMaxPool3d", (2,), {}),
    ("MaxUnpool1d", (2,), {}), ("MaxUnpool2d", (2, 1), {}), ("MaxUnpool3d", (3,), {"padding": 1}),
    ("LPPool1d", (2, 3), {}), ("LPPool2d", (2.0, (3, 2), 1), {}),
    ("Upsample", (), {"scale_factor": 2}), ("Upsample", (), {"size": (3, 4), "mode": "bilinear"}),
    ("Upsample", (), {"scale_factor": (2, 3), "mode": "nearest"}), ("UpsamplingNearest2d", (), {"scale_factor": 2}),
    ("UpsamplingBilinear2d", (), {"size": 3}),
]


@pytest.mark.parametrize("name, args, kw", MODULES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)])
def test_module_repr(torch: Any, name: str, args: tuple, kw: dict) -> None:
    me, mt = getattr(nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw)
    assert repr(me) == repr(mt)
    for k, v in vars(mt).items():
        if not k.startswith("_") and k != "training":
            assert getattr(me, k) == v, k


@pytest.mark.parametrize("name, args, kw, shape", [
    ("MaxPool2d", (3, 2, 1), {"return_indices": True}, (2, 3, 7, 9)),
    ("AvgPool1d", (3,), {}, (2, 3, 10)),
    ("AdaptiveAvgPool2d", ((None, 3),), {}, (2, 3, 7, 9)),
    ("AdaptiveMaxPool1d", (3, True), {}, (2, 3, 10)),
    ("LPPool2d", (2.0, (3, 2), 1), {}, (2, 3, 7, 9)),
    ("Upsample", (), {"scale_factor": 2, "mode": "bilinear"}, (2, 3, 4, 5)),
    ("UpsamplingBilinear2d", (), {"size": 7}, (2, 3, 4, 5)),
    ("UpsamplingNearest2d", (), {"scale_factor": 3}, (2, 3, 4, 5)),
])
def test_module_forward(torch: Any, name: str, args: tuple, kw: dict, shape: tuple) -> None:
    data = np.abs(RNG.normal(size=shape)) + 0.1  # positive: LPPool of a negative sum is NaN in both
    xe, xt = pair(torch, data, dtype="float64")
    ye, yt = getattr(nn, name)(*args, **kw)(xe), getattr(torch.nn, name)(*args, **kw)(xt)
    if isinstance(yt, tuple):
        np.testing.assert_array_equal(to_np(ye[1]), to_np(yt[1]))
        ye, yt = ye[0], yt[0]
    close(ye, yt, atol=1e-10, rtol=1e-10)


def test_double_backward(torch: Any) -> None:
    """Second derivatives through the pooling / upsampling backward ops."""
    import ember

    for fn, args in (("avg_pool2d", (3, 2, 1)), ("max_pool2d", (2,)), ("adaptive_avg_pool2d", ((3, 2),))):
        x = ember.tensor(RNG.normal(size=(1, 2, 6, 5)).tolist(), dtype=ember.float64, requires_grad=True)
        assert ember.autograd.gradgradcheck(lambda t, f=fn, a=args: getattr(F, f)(t, *a), (x,))
    x = ember.tensor(RNG.normal(size=(1, 2, 3, 4)).tolist(), dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradgradcheck(
        lambda t: F.interpolate(t, scale_factor=2, mode="bicubic", align_corners=False), (x,))
