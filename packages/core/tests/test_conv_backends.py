"""Convolution's backend selection as aten does it on CPU (fuzz findings): an empty batch goes
through no kernel (no dtype checks, the dtypes promote), a zero-size spatial input is an error,
each native kernel's shape checks and dtype support (transposed and dilated: floating and int64
only; bool nowhere), conv1d/2d/3d's bias dtype check first, inf weights without phantom products
in a transposed convolution."""

from __future__ import annotations

import math

import ember
import pytest

torch = pytest.importorskip("torch")

# (function, input shape, input dtype, weight shape, weight dtype, bias shape, bias dtype, kwargs)
CASES = [
    ("conv_transpose3d", (1, 2, 3, 0, 3), "float32", (2, 2, 2, 2, 2), "float32", None, None, {}),
    ("conv_transpose3d", (1, 2, 3, 3, 3), "int32", (2, 2, 2, 2, 2), "int32", None, None, {}),
    ("conv_transpose1d", (1, 2, 3), "int64", (2, 2, 2), "int64", None, None, {}),
    ("conv_transpose2d", (1, 2, 3, 3), "bool", (2, 2, 2, 2), "float32", None, None, {}),
    ("conv_transpose2d", (0, 2, 3, 3), "int16", (2, 2, 2, 2), "float32", None, None, {}),
    ("conv_transpose2d", (1, 2, 3, 3), "float32", (2, 2, 2, 2), "float32", (2,), "int64", {}),
    ("conv_transpose3d", (1, 2, 3, 3, 3), "float32", (2, 2, 2, 2, 2), "float32", (2,), "float64", {}),
    ("conv_transpose1d", (1, 2, 3), "float32", (2, 0, 2), "float32", None, None, {}),
    ("conv_transpose1d", (2, 2, 3), "float32", (2, 3, 3), "float32", None, None,
     {"stride": 2, "padding": 4, "output_padding": 1}),
    ("conv_transpose1d", (2, 3, 5), "int32", (3, 4, 3), "float32", None, None,
     {"stride": 2, "padding": 7, "output_padding": 1}),
    ("conv_transpose1d", (0, 2, 3), "float32", (2, 3, 3), "float32", None, None, {"stride": 2, "output_padding": 2}),
    ("conv1d", (0, 2, 3), "float32", (2, 2, 2), "float64", (2,), "float32", {}),
    ("conv1d", (0, 2, 5), "float32", (3, 2, 3), "float32", None, None, {"dilation": 0}),
    ("conv2d", (0, 2, 3, 3), "bool", (2, 2, 2, 2), "bool", (2,), "bool", {}),
    ("conv2d", (0, 2, 5, 6), "float32", (3, 2, 0, 2), "float32", (3,), "float32", {}),
    ("conv2d", (1, 2, 0, 3), "int32", (2, 2, 2, 2), "float32", None, None, {"padding": 1}),
    ("conv2d", (1, 3, 3, 3), "int32", (2, 2, 2, 2), "float32", (2,), "float32", {}),
    ("conv2d", (1, 2, 3, 3), "int32", (2, 2, 2, 2), "int32", None, None, {"dilation": 2}),
    ("conv2d", (1, 2, 3, 3), "float32", (2, 2, 2, 2), "float32", (2,), "float64", {"padding": "same"}),
    ("conv3d", (1, 2, 3, 3, 3), "bool", (2, 2, 2, 2, 2), "float32", None, None, {}),
    ("conv3d", (1, 2, 3, 3, 3), "int8", (2, 2, 2, 2, 2), "int8", None, None, {}),
]


def _make(lib, shape, dtype):
    n = math.prod(shape)
    return (lib.arange(n, dtype=lib.float64).reshape(shape) % 3 - 1).to(getattr(lib, dtype))


def _call(lib, case):
    fn, xs, xd, ws, wd, bs, bd, kw = case
    try:
        bias = None if bs is None else _make(lib, bs, bd)
        return getattr(lib.nn.functional, fn)(_make(lib, xs, xd), _make(lib, ws, wd), bias, **kw)
    except Exception as exc:  # noqa: BLE001 - the exception type is the result
        return exc


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}{c[1]}{c[2]}-{c[4]}")
def test_conv_backend_like_torch(case):
    want, got = _call(torch, case), _call(ember, case)
    if isinstance(want, Exception) or isinstance(got, Exception):
        assert type(got).__name__ == type(want).__name__, f"torch {want!r} vs ember {got!r}"
        return
    assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
    torch.testing.assert_close(torch.from_numpy(got.double().numpy()), want.double())


def test_transposed_conv_nonfinite_weight_has_no_phantom_products():
    # aten's native kernel (GEMM + col2im): an output no input reaches stays 0 with an inf weight
    x = torch.ones(1, 2, 3, 3, 3)
    w = torch.ones(2, 2, 2, 2, 2)
    w[0, 0, 0, 0, 0] = math.inf
    w[1, 1, 1, 1, 1] = -math.inf
    with torch.backends.mkldnn.flags(enabled=False):
        want = torch.nn.functional.conv_transpose3d(x, w)
    got = ember.nn.functional.conv_transpose3d(ember.from_numpy(x.numpy()), ember.from_numpy(w.numpy()))
    torch.testing.assert_close(torch.from_numpy(got.numpy()), want, equal_nan=True)


def test_conv_zero_input_channels_is_the_bias():
    # torch_known_wrong conv-zero-input-channels: aten's output has 0 channels
    out = ember.nn.functional.conv2d(ember.ones(2, 0, 3, 3), ember.ones(2, 0, 2, 2), ember.tensor([1.0, 2.0]))
    assert tuple(out.shape) == (2, 2, 2, 2)
    assert out[:, 0].eq(1).all() and out[:, 1].eq(2).all()


def test_conv_huge_stride():
    x, w = torch.randn(2, 2, 5, 6, dtype=torch.float64), torch.randn(3, 2, 3, 2, dtype=torch.float64)
    got = ember.conv2d(ember.from_numpy(x.numpy()), ember.from_numpy(w.numpy()), stride=2**63 - 1, padding=1)
    torch.testing.assert_close(torch.from_numpy(got.numpy()), torch.conv2d(x, w, stride=7, padding=1))
