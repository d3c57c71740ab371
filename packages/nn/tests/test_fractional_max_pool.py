"""F.fractional_max_pool2d / 3d (and _with_indices, nn.FractionalMaxPool2d / 3d) against PyTorch:
given the same _random_samples, the same windows, values, indices and input gradients."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from _nn_testutil import same_error

torch = pytest.importorskip("torch")


def _both(x: np.ndarray, u: np.ndarray, n: int, k, out, dtype: str = "float64") -> None:
    res = []
    for lib in (torch, ember):
        xt = lib.tensor(x.astype(dtype), requires_grad=True)
        ut = lib.tensor(u.astype(dtype))
        fn = getattr(lib.nn.functional, f"fractional_max_pool{n}d")
        y, i = fn(xt, k, output_size=out, return_indices=True, _random_samples=ut)
        w = lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)).astype(dtype))
        (y * w).sum().backward()
        res.append((y.detach().numpy(), i.numpy(), xt.grad.numpy()))
    (yt, it, gt), (ye, ie, ge) = res
    np.testing.assert_array_equal(ie, it)
    np.testing.assert_array_equal(ye, yt)
    np.testing.assert_allclose(ge, gt, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape,k,out", [
    ((2, 3, 9, 11), 2, (4, 5)),
    ((2, 3, 9, 11), (3, 2), (5, 7)),
    ((3, 10, 10), 3, 8),
    ((1, 2, 7, 7), 2, 6),
    ((1, 1, 5, 5), 1, 1),
    ((1, 2, 6, 7), 2, (1, 3)),
])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_fractional_max_pool2d(shape: tuple, k, out, dtype: str) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape)
    nb = shape[0] if len(shape) == 4 else 1
    u = rng.uniform(0, 1, (nb, shape[-3], 2))
    _both(x, u, 2, k, out, dtype)


@pytest.mark.parametrize("shape,k,out", [
    ((2, 2, 7, 8, 9), 2, (3, 4, 5)),
    ((2, 6, 6, 6), (1, 2, 3), 3),
])
def test_fractional_max_pool3d(shape: tuple, k, out) -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape)
    nb = shape[0] if len(shape) == 5 else 1
    u = rng.uniform(0, 1, (nb, shape[-4], 3))
    _both(x, u, 3, k, out)


def test_ties_and_nan() -> None:
    x = np.zeros((1, 2, 6, 6))
    x[0, 1, 2, 3] = np.nan
    x[0, 1, 4, 1] = np.nan
    u = np.full((1, 2, 2), 0.3)
    _both(x, u, 2, 2, 4)


def test_output_ratio_and_modules() -> None:
    x = ember.randn(2, 3, 10, 12)
    y = ember.nn.functional.fractional_max_pool2d(x, 2, output_ratio=0.5)
    assert tuple(y.shape) == (2, 3, 5, 6)
    u = ember.rand(2, 3, 2)
    m = ember.nn.FractionalMaxPool2d(3, output_size=(4, 5), return_indices=True, _random_samples=u)
    tm = torch.nn.FractionalMaxPool2d(3, output_size=(4, 5), return_indices=True,
                                      _random_samples=torch.tensor(u.numpy()))
    a, b = m(x), tm(torch.tensor(x.numpy()))
    np.testing.assert_array_equal(a[1].numpy(), b[1].numpy())
    m3 = ember.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 0.5))
    assert tuple(m3(ember.randn(1, 2, 4, 6, 8)).shape) == (1, 2, 2, 3, 4)
    with pytest.raises(ValueError):
        ember.nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError):
        ember.nn.FractionalMaxPool2d(2, output_ratio=1.5)



@pytest.mark.parametrize("case", [
    ((2, 3, 9, 9), 3, {}),
    ((2, 3, 9, 9), 3, {"output_size": 8}),
    ((2, 3, 9, 9), 3, {"output_ratio": (0.5, 0.5, 0.5)}),
    ((2, 3, 9, 9), (3, 3, 3), {"output_size": 4}),
    ((2, 3, 0, 9), 3, {"output_size": 4}),
    ((9, 9), 3, {"output_size": 4}),
    ((2, 3, 9, 9), 3, {"output_size": 4, "_random_samples": "double"}),
    ((2, 3, 9, 9), 3, {"output_size": 4, "_random_samples": (1, 3, 2)}),
    ((2, 3, 9, 9), 3, {"output_size": 4, "_random_samples": (2, 3, 3)}),
    ((2, 3, 9, 9), 3, {"output_size": 4, "_random_samples": (2, 2, 2)}),
    ((2, 3, 9, 9), 3, {"output_size": 4, "_random_samples": (2, 3)}),
])
def test_errors(case: tuple) -> None:
    shape, k, kw = case

    def call(lib):
        kw2 = dict(kw)
        s = kw2.get("_random_samples")
        if s == "double":
            kw2["_random_samples"] = lib.rand(2, 3, 2, dtype=lib.float64)
        elif isinstance(s, tuple):
            kw2["_random_samples"] = lib.rand(*s)
        return lambda: lib.nn.functional.fractional_max_pool2d(lib.zeros(shape), k, **kw2)

    same_error(call(ember), call(torch))


def test_errors_3d() -> None:
    for shape, k, out in [((2, 3, 3, 9, 9), 3, (4, 4, 4)), ((2, 3, 9, 9, 9), (3, 3), 4)]:
        same_error(lambda: ember.nn.functional.fractional_max_pool3d(ember.zeros(shape), k, output_size=out),
                    lambda: torch.nn.functional.fractional_max_pool3d(torch.zeros(shape), k, output_size=out))


@pytest.mark.parametrize("k", [0, -1, (2, 0), -(2**31) + 1, -(2**31)])
@pytest.mark.parametrize("n", [2, 3])
def test_nonpositive_kernel_raises(k, n: int) -> None:
    # aten has no lower bound: -inf at indices outside the plane, a hang near -2**31 (torch_known_wrong
    # fractional-max-pool-nonpositive-kernel); ember raises before any window is formed
    if n == 3 and isinstance(k, tuple):
        k = (2, 2, 0)
    f = getattr(ember.nn.functional, f"fractional_max_pool{n}d")
    x = ember.ones((2, 3) + (6,) * n)
    with pytest.raises(RuntimeError, match="kernel_size must be greater than zero"):
        f(x, k, output_size=2, _random_samples=ember.full((2, 3, n), 0.5))


def test_empty_batch_of_integers() -> None:
    # aten returns the empty result before its float-only dispatch
    outs = [lib.nn.functional.fractional_max_pool2d(lib.zeros(0, 3, 6, 6, dtype=lib.int64), 2, output_size=2,
                                                    _random_samples=lib.zeros(2, 3, 2, dtype=lib.int64))
            for lib in (torch, ember)]
    assert str(outs[1].dtype) == str(outs[0].dtype) and tuple(outs[1].shape) == tuple(outs[0].shape)
