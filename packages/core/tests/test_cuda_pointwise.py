"""ops.yaml's pointwise kernels and the copy/cast and where kernels on a GPU (issue 24), compared
with the same op on the CPU: the functors are one source compiled for both, so values agree to
rounding. Run by the GPU script (tools/gpu_check.sh) with a CUDA build; skipped elsewhere."""

from __future__ import annotations

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")

FLOATS = [ember.float32, ember.float64, ember.float16, ember.bfloat16]
ALL = [*FLOATS, ember.int64, ember.int32, ember.int16, ember.int8, ember.uint8, ember.bool, ember.complex64,
       ember.complex128]
TOL = {ember.float32: 2e-6, ember.float64: 1e-13, ember.float16: 1e-3, ember.bfloat16: 8e-3}

# ops whose bodies are one ops.yaml kernel (composites of several ops need more CUDA families)
UNARY = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh",
         "sigmoid", "asin", "acos", "atan", "sinh", "cosh", "asinh", "erf", "erfc", "erfinv", "lgamma",
         "digamma", "reciprocal", "frac", "abs", "neg", "square", "relu", "floor", "ceil", "trunc", "round",
         "sign", "deg2rad", "rad2deg", "i0", "isnan", "isfinite", "signbit"]
SPECIAL = ["i0e", "i1", "i1e", "ndtr", "log_ndtr", "ndtri", "erfcx", "entr", "bessel_j0", "bessel_j1",
           "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_k0", "scaled_modified_bessel_k1",
           "airy_ai", "spherical_bessel_j0"]
BINARY = ["add", "sub", "mul", "div", "remainder", "fmod", "pow", "maximum", "minimum", "fmax", "fmin", "atan2",
          "hypot", "logaddexp", "logaddexp2", "xlogy", "copysign", "floor_divide", "heaviside"]
COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]


def close(got: ember.Tensor, want: ember.Tensor, dtype: ember.dtype) -> None:
    assert got.device.type == "cuda" and got.dtype == want.dtype and got.shape == want.shape
    g, w = got.cpu(), want
    if not w.is_floating_point():
        assert g.equal(w)
        return
    g, w = g.double(), w.double()
    same_nan = g.isnan() == w.isnan()
    assert bool(same_nan.all())
    ok = ((g - w).abs() <= TOL[dtype] * (1 + w.abs())) | (g == w) | g.isnan()
    assert bool(ok.all()), (g[~ok][:5].tolist(), w[~ok][:5].tolist())


def sample(dtype: ember.dtype, shape: tuple[int, ...] = (37, 29), lo: float = -3.0, hi: float = 3.0) -> ember.Tensor:
    g = ember.Generator().manual_seed(sum(shape))
    return (ember.rand(shape, generator=g, dtype=ember.float64) * (hi - lo) + lo).to(dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name", UNARY)
def test_unary(name: str, dtype: ember.dtype) -> None:
    x = sample(dtype, hi=0.95 if name == "erfinv" else 3.0)
    fn = getattr(ember, name)
    close(fn(x.cuda()), fn(x), dtype)


@pytest.mark.parametrize("name", SPECIAL)
def test_special(name: str) -> None:
    for dtype in (ember.float32, ember.float64):
        x = sample(dtype, lo=0.01, hi=0.99 if name == "ndtri" else 6.0)
        fn = getattr(ember.special, name)
        close(fn(x.cuda()), fn(x), dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name", BINARY + COMPARE)
def test_binary_broadcast_and_layouts(name: str, dtype: ember.dtype) -> None:
    fn = getattr(ember, name)
    a = sample(dtype, (6, 5, 7))
    b = sample(dtype, (5, 1), lo=0.5, hi=2.5)
    for x, y in ((a, b), (a.transpose(0, 2), sample(dtype, (7, 5, 1), 0.5, 2.5)), (a[:, ::2], b[::2])):
        close(fn(x.cuda(), y.cuda()), fn(x, y), dtype)


@pytest.mark.parametrize("dtype", [ember.int64, ember.int32, ember.uint8, ember.int8], ids=str)
def test_integer_ops_wrap_as_on_the_cpu(dtype: ember.dtype) -> None:
    a = (ember.arange(-50, 50) * 37).to(dtype)
    b = (ember.arange(100) % 9 + 1).to(dtype)
    for name in ("add", "sub", "mul", "remainder", "floor_divide", "bitwise_and", "bitwise_xor", "maximum", "eq"):
        fn = getattr(ember, name)
        assert fn(a.cuda(), b.cuda()).cpu().equal(fn(a, b)), name


def test_numbers_and_cpu_scalars_ride_along() -> None:
    x = sample(ember.float16, (100,))
    xc = x.cuda()
    close(xc * 0.1, x * 0.1, ember.float16)  # kept in op-math, as on the CPU
    close(xc + 3, x + 3, ember.float16)
    close(2 ** xc, 2**x, ember.float16)
    close(xc / ember.tensor(3.0), x / ember.tensor(3.0), ember.float16)  # a CPU 0-d tensor
    close(ember.where(xc > 0, xc, 0.0), ember.where(x > 0, x, 0.0), ember.float16)
    i = ember.arange(10).cuda()
    assert (i + 0.5).dtype == ember.float32 and (i + 0.5).cpu().equal(ember.arange(10) + 0.5)


def test_promotion_in_place_and_out() -> None:
    a, b = ember.arange(12).reshape(3, 4), sample(ember.float32, (4,))
    close(a.cuda() * b.cuda(), a * b, ember.float32)
    y = b.cuda().clone()
    y.mul_(2).add_(ember.ones(4).cuda(), alpha=3)
    close(y, b * 2 + 3, ember.float32)
    out = ember.empty(3, 4, dtype=ember.float64, device="cuda")
    ember.add(a.cuda(), b.cuda(), out=out)
    close(out, (a + b).double(), ember.float64)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        ember.add(a.cuda(), b.cuda(), out=ember.empty(3, 4, dtype=ember.int64, device="cuda"))


def test_operands_on_two_devices_raise_pytorchs_error() -> None:
    a = ember.ones(3, device="cuda")
    msg = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    for call in (lambda: a + ember.ones(3), lambda: ember.ones(3) + a, lambda: ember.mul(a, a, out=ember.empty(3))):
        with pytest.raises(RuntimeError, match=msg):
            call()


@pytest.mark.parametrize("src", ALL, ids=str)
def test_casts_between_every_dtype_pair(src: ember.dtype) -> None:
    x = (ember.arange(-20, 20) * 0.75).to(src)
    xc = x.cuda()
    for dst in ALL:
        got = xc.to(dst)
        assert got.device.type == "cuda" and got.dtype == dst
        assert got.cpu().equal(x.to(dst)), (src, dst)


def test_where_and_masked_ops() -> None:
    for dtype in (ember.float32, ember.float64, ember.int64, ember.bool, ember.complex64):
        a, b = (ember.arange(20) % 3).to(dtype), (ember.arange(20) % 5).to(dtype)
        c = ember.arange(20) % 2 == 0
        assert ember.where(c.cuda(), a.cuda(), b.cuda()).cpu().equal(ember.where(c, a, b))


def test_pointwise_autograd_on_the_device() -> None:
    x = sample(ember.float32, (50,)).requires_grad_()
    xc = x.detach().cuda().requires_grad_()
    (x.sin() * x.exp()).backward(ember.ones(50))
    (xc.sin() * xc.exp()).backward(ember.ones(50, device="cuda"))
    assert xc.grad is not None and xc.grad.device.type == "cuda"
    close(xc.grad, x.grad, ember.float32)


def test_printing_a_cuda_tensor() -> None:
    x = ember.tensor([1.5, 2.0]).cuda()
    assert repr(x) == "tensor([1.5000, 2.0000], device='cuda:0')"


@pytest.mark.parametrize("dtype", [ember.float32, ember.float16, ember.bfloat16], ids=str)
@pytest.mark.parametrize("n", [1, 3, 4, 1027, 4099])
def test_contiguous_launcher_tails_offsets_and_values(dtype: ember.dtype, n: int) -> None:
    # dense float / half operands take the 4-wide contiguous kernel: every length's tail, an operand
    # not aligned for it (a view one element in: the strided kernel), numbers in the arguments,
    # in place, three operands
    x, y, z = sample(dtype, (n + 1,)), sample(dtype, (n + 1,), 0.5, 2.0), sample(dtype, (n + 1,), -1.0, 1.0)
    xc, yc, zc = x.cuda(), y.cuda(), z.cuda()
    close(xc[:n] + yc[:n], x[:n] + y[:n], dtype)
    close(xc[1:] * yc[:n], x[1:] * y[:n], dtype)
    close(xc[:n] * 0.5 - 1, x[:n] * 0.5 - 1, dtype)
    close(ember.exp(xc[:n]), ember.exp(x[:n]), dtype)
    close(ember.addcmul(xc[:n], yc[:n], zc[:n], value=0.25), ember.addcmul(x[:n], y[:n], z[:n], value=0.25), dtype)
    w = xc[:n].clone()
    w.mul_(yc[:n]).add_(2.0)
    close(w, x[:n] * y[:n] + 2.0, dtype)
    out = ember.empty(n, dtype=dtype, device="cuda")
    ember.div(xc[:n], yc[:n], out=out)
    close(out, x[:n] / y[:n], dtype)
