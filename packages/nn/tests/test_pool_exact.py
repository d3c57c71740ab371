"""Pooling / upsampling results bit for bit against PyTorch where its arithmetic order shows, and
the fuzz findings on their checks (one deterministic case each)."""

from __future__ import annotations

from typing import Any

import ember
import ember.nn.functional as F
import numpy as np
import pytest

RNG = np.random.default_rng(5)


def _data(shape: tuple, dtype: str) -> np.ndarray:
    # a third of the values large, so a different summation order shows in the low bits
    x = RNG.standard_normal(shape).astype(np.float32)
    big = RNG.random(shape) < 0.3
    x[big] *= 3000.0 if dtype == "float16" else 1e7
    return x


def _same(torch: Any, fn: str, x: np.ndarray, dtype: str, *args: Any, rtol: float = 0.0, **kw: Any) -> None:
    """F.<fn> in ember and torch on the same data: equal bits (NaN where NaN); rtol > 0: finite
    values within it, non-finite ones and the signs of zeros equal."""
    t = getattr(torch.nn.functional, fn)(torch.from_numpy(x).to(getattr(torch, dtype)), *args, **kw)
    e = getattr(F, fn)(ember.tensor(x).to(getattr(ember, dtype)), *args, **kw)
    assert tuple(e.shape) == tuple(t.shape)
    a, b = t.float().numpy(), e.float().numpy()
    same = (a == b) | (np.isnan(a) & np.isnan(b)) | (np.isfinite(a) & (np.abs(a - b) <= rtol * np.abs(a)))
    assert same.all(), f"{fn}{args}{kw} {dtype}: {(~same).sum()} of {a.size} differ"
    assert (np.signbit(a) == np.signbit(b))[same & (a == 0)].all()


DTYPES = ["float16", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("args,kw", [
    ((3, 1, 1), {}), ((3, 2, 1), {"ceil_mode": True}), ((3, 2, 1), {"count_include_pad": False}),
    ((2, 2), {}), (((2, 4), (1, 3), (1, 2)), {"divisor_override": 7}),
])
def test_avg_pool2d_window_order(torch: Any, dtype: str, args: tuple, kw: dict) -> None:
    # aten sums each window row-major in the op-math type, then divides once
    _same(torch, "avg_pool2d", _data((2, 3, 9, 11), dtype), dtype, *args, **kw)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", [(3, 4), 7, (2, 1), 4])
def test_adaptive_avg_pool2d_window_order(torch: Any, dtype: str, size: Any) -> None:
    # row-major sum in the op-math type, then / kh / kw (two roundings)
    _same(torch, "adaptive_avg_pool2d", _data((2, 3, 7, 9), dtype), dtype, size)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", [(3, 4, 4), 2, (1, 3, 2)])
def test_adaptive_avg_pool3d_sums_in_input_type(torch: Any, dtype: str, size: Any) -> None:
    # aten's 3-d frame sums and divides in the input type (float16: rounded at every step)
    _same(torch, "adaptive_avg_pool3d", _data((2, 3, 5, 7, 6), dtype), dtype, size)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_avg_pool3d_and_1d_order(torch: Any, dtype: str) -> None:
    _same(torch, "avg_pool3d", _data((2, 3, 5, 7, 6), dtype), dtype, 3, 2, 1)
    _same(torch, "avg_pool1d", _data((2, 3, 17), dtype), dtype, 3, 2, 1)
    _same(torch, "adaptive_avg_pool1d", _data((2, 3, 17), dtype), dtype, 5)


def test_adaptive_avg_pool2d_cancellation(torch: Any) -> None:
    # the fuzz finding: 65504 and -65520 cancel only in PyTorch's order (-3.975, not -3.9746)
    x = np.zeros((1, 1, 2, 2), np.float32)
    x[0, 0] = [[65504.0, 0.1], [-65520.0, 0.0]]
    x = np.tile(x, (1, 1, 3, 3))
    _same(torch, "adaptive_avg_pool2d", x, "float32", 3)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int32", "uint8"])
def test_avg_pool3d_dtypes(torch: Any, dtype: str) -> None:
    # aten's avg_pool3d_out_frame takes float32, float64 and int64 only
    x = ember.ones((1, 2, 4, 4, 4), dtype=getattr(ember, dtype))
    with pytest.raises(NotImplementedError, match="avg_pool3d_out_frame"):
        F.avg_pool3d(x, 2)


def test_avg_pool3d_input_smaller_than_kernel() -> None:
    with pytest.raises(RuntimeError, match=r"input image \(T: 5 H: 6 W: 7\) smaller than kernel size"):
        F.avg_pool3d(ember.ones((1, 2, 5, 6, 7)), 6, 2, 1)


def test_adaptive_avg_pool3d_backward_dtype_order() -> None:
    # the input's dtype is dispatched first (NotImplementedError), then the gradient's is compared
    with pytest.raises(NotImplementedError, match="adaptive_avg_pool3d_backward_cpu"):
        ember._nn._adaptive_avg_pool3d_backward(ember.ones((2, 4, 2, 3), dtype=ember.float64),
                                                 ember.ones((2, 5, 6, 7), dtype=ember.int64))
    with pytest.raises(RuntimeError, match="expected scalar type Double but found Long"):
        ember._nn._adaptive_avg_pool3d_backward(ember.ones((2, 4, 2, 3), dtype=ember.int64),
                                                 ember.ones((2, 5, 6, 7), dtype=ember.float64))


@pytest.mark.parametrize("mode,shape,size", [
    ("linear", (1, 2, 5), 5), ("linear", (1, 2, 5), 7), ("bilinear", (1, 2, 4, 5), (4, 5)),
    ("bilinear", (1, 2, 4, 5), (6, 3)), ("bicubic", (1, 2, 4, 5), (6, 7)), ("trilinear", (1, 1, 3, 4, 5), (3, 5, 5)),
])
def test_interpolate_nonfinite(torch: Any, mode: str, shape: tuple, size: Any) -> None:
    # every tap's weight multiplies, a zero one too (inf * 0 = NaN); an unscaled dim reads
    # input o twice with weights (1, 0); sums start from the first product (-0 kept)
    x = RNG.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[::3] = np.inf
    flat[1::7] = -np.inf
    flat[2::11] = np.nan
    flat[4::5] = -0.0
    # (finite values within 1e-5: aten's bilinear weights round differently in the last bits)
    _same(torch, "interpolate", x, "float32", size=size, mode=mode, rtol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode,channels,size", [
    ("bilinear", 2, (4, 5)), ("bilinear", 3, (9, 6)), ("bilinear", 8, (4, 5)), ("bilinear", 17, (7, 3)),
    ("bilinear", 2, (70, 70)), ("linear", 3, 9), ("trilinear", 2, (4, 5, 6)),
])
@pytest.mark.parametrize("align", [False, True])
def test_interpolate_linear_bit_exact(torch: Any, dtype: str, mode: str, channels: int, size: Any,
                                      align: bool) -> None:
    # aten's sums as its x86-64 build fuses them: the non-separable kernel (weights stored in the
    # input's dtype, fma(t0, w0, t1 * w1) per dim), and for bilinear with H + W <= 128 its
    # channels-last kernel (products of the lambdas, its vector loop's order below the last
    # multiple of the lane count, its scalar tail's above). Its channels-last kernel on float16 /
    # bfloat16 still differs in the last bit now and then (within one unit there).
    shape = {"linear": (2, channels, 5), "trilinear": (1, channels, 3, 4, 5)}.get(mode, (2, channels, 5, 4))
    rtol = {"float16": 1e-3, "bfloat16": 8e-3}.get(dtype, 0.0) if mode == "bilinear" else 0.0
    _same(torch, "interpolate", _data(shape, dtype), dtype, size=size, mode=mode, align_corners=align, rtol=rtol)


def test_upsample_bilinear_cancellation(torch: Any) -> None:
    # the fuzz finding: edge values whose weighted sum cancels, exact only in aten's fused order
    x = np.array([65504.0, -65504.0, 1e30, -1e30, 1.5, -2.5, 3.4e38, -3.4e38, 0.1], np.float32)
    x = np.tile(x, 2).reshape(1, 2, 3, 3)
    _same(torch, "upsample_bilinear", x, "float32", size=(4, 5))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("channels", [2, 6])
@pytest.mark.parametrize("size,align", [((4, 5), False), ((7, 3), True), ((3, 3), False), ((2, 9), True)])
def test_interpolate_uint8(torch: Any, mode: str, channels: int, size: tuple, align: bool) -> None:
    # aten's integer path: int16 weights, W then H through a uint8 buffer, exact
    x = RNG.integers(0, 256, (2, channels, 5, 6)).astype(np.uint8)
    t = torch.nn.functional.interpolate(torch.from_numpy(x), size=size, mode=mode, align_corners=align)
    e = F.interpolate(ember.tensor(x), size=size, mode=mode, align_corners=align)
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_interpolate_uint8_modes_without_kernel() -> None:
    for mode, shape in (("linear", (1, 2, 5)), ("trilinear", (1, 2, 3, 3, 3))):
        with pytest.raises(NotImplementedError, match="compute_indices_weights_linear"):
            F.interpolate(ember.zeros(shape, dtype=ember.uint8), scale_factor=2.0, mode=mode)


def test_max_pool1d_int64_arguments(torch: Any) -> None:
    # aten's max_pool1d takes int64 arguments (the 2-d kernel C ints): a stride past int32 with
    # one window, and torch's own messages for the others
    x = RNG.standard_normal((2, 3, 8)).astype(np.float32)
    for stride, ceil in ((2**31, False), (2**63 - 1, True)):
        t = torch.nn.functional.max_pool1d(torch.from_numpy(x), 3, stride, 1, ceil_mode=ceil)
        e = F.max_pool1d(ember.tensor(x), 3, stride, 1, ceil_mode=ceil)
        np.testing.assert_array_equal(e.numpy(), t.numpy())
    with pytest.raises(RuntimeError, match="Invalid computed output size"):
        F.max_pool1d(ember.tensor(x), 3, 2, 1, dilation=2**31)
    with pytest.raises(RuntimeError, match="padding should be at most half of kernel size"):
        F.max_pool1d(ember.tensor(x), 3, 2, 2**31)


def test_pool1d_parser_overflow_first() -> None:
    # torch's parser reads the numbers (ValueError) before the kernel checks the rank
    with pytest.raises(ValueError):
        F.adaptive_max_pool1d(ember.tensor(1.0), 2**63)
    with pytest.raises(ValueError):
        F.max_pool1d(ember.tensor(1.0), 3, 2, 1, dilation=2**63)
