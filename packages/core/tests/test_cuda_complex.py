"""complex64 / complex128 on a GPU (issue 24): complex() / polar(), conj_physical, angle, abs, the
arithmetic kernels (c10::complex's formulas, as the CPU's) and the transcendental functions
(kernels/complex_math.h; the CPU's are glibc's) against the same calls on the CPU, C99 Annex G's
special values included, a rotary embedding's forward and backward (polar, a complex product,
view_as_real / complex), complex32's few kernels and casts, and PyTorch's errors for the complex
kernels the GPU lacks (complex32's division and transcendental functions). Run by the GPU script
(tools/gpu_check.sh) with a CUDA build; skipped elsewhere."""

from __future__ import annotations

from collections.abc import Callable

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")

DTYPES = [ember.complex64, ember.complex128]


def randn(*shape: int, seed: int = 0) -> ember.Tensor:
    return ember.randn(*shape, generator=ember.Generator().manual_seed(seed), dtype=ember.float64)


def cx(*shape: int, dtype: ember.dtype = ember.complex128, seed: int = 0) -> ember.Tensor:
    return ember.complex(randn(*shape, seed=seed), randn(*shape, seed=seed + 1)).to(dtype)


def same(g: ember.Tensor, c: ember.Tensor, tol: float = 0.0) -> None:
    """g (on the GPU) as c: device, dtype, shape, and values within tol relative (NaN where NaN)."""
    assert g.device.type == "cuda" and g.dtype == c.dtype and g.shape == c.shape, (g.device, g.dtype, c.dtype)
    g = g.cpu()
    if c.dtype == ember.bool:
        assert bool((g == c).all()), (g, c)
        return
    if c.is_complex():
        g, c = ember.view_as_real(g), ember.view_as_real(c)
    g, c = g.double(), c.double()
    nan = c.isnan()
    assert bool((g.isnan() == nan).all()), (g, c)
    g, c = g.masked_fill(nan, 0), c.masked_fill(nan, 0)
    assert bool(((g == c) | ((g - c).abs() <= tol * (1 + c.abs()))).all()), (g, c)  # (infinities: equal)


def tol_of(dtype: ember.dtype) -> float:
    return 1e-6 if dtype in (ember.complex64, ember.float32) else 1e-14


@pytest.mark.parametrize("dtype", [ember.float16, ember.float32, ember.float64])
def test_complex_polar_from_parts(dtype: ember.dtype) -> None:
    a, b = randn(5, 7).to(dtype), randn(1, 7, seed=1).to(dtype)  # broadcast
    same(ember.complex(a.cuda(), b.cuda()), ember.complex(a, b))
    if dtype != ember.float16:  # aten's polar has no float16 form
        same(ember.polar(a.abs().cuda(), b.cuda()), ember.polar(a.abs(), b), tol_of(dtype))
    else:
        with pytest.raises(NotImplementedError):
            ember.polar(a.cuda(), b.cuda())
    out = ember.empty(0, dtype=ember.complex(a, b).dtype, device="cuda")
    same(ember.complex(a.cuda(), b.cuda(), out=out), ember.complex(a, b))


@pytest.mark.parametrize("dtype", DTYPES)
def test_conj_angle_abs(dtype: ember.dtype) -> None:
    z = cx(4, 6, dtype=dtype)
    z[0, 0], z[0, 1], z[0, 2] = complex("nan"), complex(0, float("-inf")), 0
    zg = z.cuda()
    same(ember.conj_physical(zg), ember.conj_physical(z))
    same(zg.t().conj().resolve_conj(), z.t().conj().resolve_conj())
    same(ember.angle(zg), ember.angle(z), tol_of(dtype))
    same(zg.abs(), z.abs(), tol_of(dtype))
    r = ember.tensor([-2.0, 0.0, -0.0, 3.0, float("nan"), float("-inf")])
    for t in (ember.float32, ember.float64, ember.float16, ember.bfloat16):
        same(ember.angle(r.to(t).cuda()), ember.angle(r.to(t)))
    c32 = ember.complex(randn(3).half(), randn(3, seed=1).half())
    same(ember.conj_physical(c32.cuda()), ember.conj_physical(c32))
    same(c32.cuda().abs(), c32.abs(), 1e-3)


BINARY: dict[str, Callable[..., ember.Tensor]] = {
    "add": ember.add, "sub": ember.sub, "mul": ember.mul, "div": ember.div, "eq": ember.eq, "ne": ember.ne,
    "add-alpha": lambda a, b: ember.add(a, b, alpha=2 - 1j), "sub-alpha": lambda a, b: ember.sub(a, b, alpha=3),
    "logical_and": ember.logical_and, "logical_or": ember.logical_or, "logical_xor": ember.logical_xor,
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary(name: str, dtype: ember.dtype) -> None:
    f = BINARY[name]
    a, b = cx(3, 5, dtype=dtype), cx(5, dtype=dtype, seed=2)
    a[0, :2] = b[:2]  # equal elements for eq / ne
    a[1, 0], b[3] = 0, 0  # zeros for the logical ops (and a division by zero)
    tol = tol_of(dtype)
    same(f(a.cuda(), b.cuda()), f(a, b), tol)
    if not name.startswith("logical"):  # (torch's logical ops take no number either)
        same(f(a.cuda(), 1.5 - 2j), f(a, 1.5 - 2j), tol)  # a Python number rides in the arguments
    same(f(a.cuda().t(), b.cuda()[:, None]), f(a.t(), b[:, None]), tol)  # strided operands
    if name in ("add", "mul", "div"):
        same(f(a.cuda(), randn(5).cuda()), f(a, randn(5)), tol)  # a real operand promotes
        ga = a.cuda()
        getattr(ga, name + "_")(b.cuda())
        same(ga, getattr(a.clone(), name + "_")(b), tol)


UNARY: dict[str, Callable[[ember.Tensor], ember.Tensor]] = {
    "neg": ember.neg, "square": ember.square, "reciprocal": ember.reciprocal, "isnan": ember.isnan,
    "isinf": ember.isinf, "isfinite": ember.isfinite, "logical_not": ember.logical_not,
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary(name: str, dtype: ember.dtype) -> None:
    z = cx(4, 5, dtype=dtype)
    z[0, 0], z[0, 1], z[0, 2], z[0, 3] = complex("nan"), complex(1, float("inf")), 0, complex(float("-inf"), 0)
    same(UNARY[name](z.cuda()), UNARY[name](z), tol_of(dtype))


TRANSCENDENTAL: dict[str, Callable[[ember.Tensor], ember.Tensor]] = {
    n: getattr(ember, n) for n in ("exp", "log", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos",
                                   "atan", "asinh", "acosh", "atanh", "exp2", "expm1", "log2", "log10", "log1p",
                                   "rsqrt", "sigmoid")
} | {"silu": ember._nn.silu}
# The parts of the special values: Annex G's infinities, NaNs and signed zeros, the branch points and
# cuts (+-1, +-i), and magnitudes where the naive formulas overflow or cancel.
PARTS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 1e-7, 1.0 + 1e-9, 30.0, -100.0, 1e10, float("inf"), float("-inf"),
         float("nan")]


def specials(dtype: ember.dtype) -> ember.Tensor:
    re = ember.tensor([a for a in PARTS for _ in PARTS], dtype=ember.float64)
    im = ember.tensor([b for _ in PARTS for b in PARTS], dtype=ember.float64)
    return ember.complex(re, im).to(dtype)


def close(g: ember.Tensor, c: ember.Tensor, rtol: float) -> None:
    """torch.isclose's rule for complex numbers (|g - c| <= rtol |c|, a NaN part NaN on both sides,
    infinities equal; subnormal results within the smallest normal), the GPU's math against glibc's."""
    assert g.device.type == "cuda" and g.dtype == c.dtype and g.shape == c.shape
    tiny = ember.finfo(g.real.dtype).tiny
    g = g.cpu().to(ember.complex128)
    c = c.to(ember.complex128)
    nan_g = g.real.isnan() | g.imag.isnan()
    nan_c = c.real.isnan() | c.imag.isnan()
    assert bool((nan_g == nan_c).all()), (g[nan_g != nan_c], c[nan_g != nan_c])
    g, c = g[~nan_c], c[~nan_c]
    inf = c.real.isinf() | c.imag.isinf()
    gi, ci = ember.view_as_real(g[inf]), ember.view_as_real(c[inf])  # part by part: the infinities equal
    part_ok = (gi == ci) | ((gi - ci).abs() <= rtol * ci.abs() + tiny)
    assert bool(part_ok.all()), (g[inf], c[inf])
    bad = (g[~inf] - c[~inf]).abs() > rtol * c[~inf].abs() + tiny
    assert not bool(bad.any()), (g[~inf][bad], c[~inf][bad])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(TRANSCENDENTAL))
def test_transcendental(name: str, dtype: ember.dtype) -> None:
    f = TRANSCENDENTAL[name]
    rtol = 2e-6 if dtype == ember.complex64 else 1e-12
    z = ember.cat([cx(64, dtype=dtype), 3 * cx(64, dtype=dtype, seed=3), specials(dtype)])
    close(f(z.cuda()), f(z), rtol)
    close(f(z.cuda()[::3]), f(z[::3]), rtol)  # strided


@pytest.mark.parametrize("dtype", DTYPES)
def test_pow_and_logaddexp(dtype: ember.dtype) -> None:
    a, b = cx(6, 7, dtype=dtype), cx(7, dtype=dtype, seed=2)
    rtol = 2e-6 if dtype == ember.complex64 else 1e-12
    close(ember.pow(a.cuda(), b.cuda()), ember.pow(a, b), rtol)
    close(a.cuda() ** 2, a ** 2, rtol)
    close(ember.logaddexp(a.cuda(), b.cuda()), ember.logaddexp(a, b), rtol)
    s = specials(dtype)
    close(ember.logaddexp(s.cuda(), s.flip(0).cuda()), ember.logaddexp(s, s.flip(0)), rtol)


def test_transcendental_backward() -> None:
    z = cx(5, 3)
    zc, zg = z.clone().requires_grad_(), z.cuda().requires_grad_()
    for f in (ember.exp, ember.tanh, ember.sqrt, ember.log, ember.asin):
        zc.grad = zg.grad = None
        f(zc).abs().sum().backward()
        f(zg).abs().sum().backward()
        close(zg.grad, zc.grad, 1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
def test_ternary(dtype: ember.dtype) -> None:
    a, b, c = cx(3, 4, dtype=dtype), cx(3, 4, dtype=dtype, seed=2), cx(4, dtype=dtype, seed=4)
    tol = tol_of(dtype)
    same(ember.addcmul(a.cuda(), b.cuda(), c.cuda(), value=0.5 + 1j),
         ember.addcmul(a, b, c, value=0.5 + 1j), tol)
    same(ember.addcdiv(a.cuda(), b.cuda(), c.cuda(), value=2), ember.addcdiv(a, b, c, value=2), tol)
    w = ember.complex(ember.tensor([0.1, 0.7, -0.2, 2.0]), ember.tensor([0.1, 0.0, 0.3, -1.0])).to(dtype)
    same(ember.lerp(a.cuda(), b.cuda(), w.cuda()), ember.lerp(a, b, w), tol)  # both sides of |w| = 0.5


@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions(dtype: ember.dtype) -> None:
    z = cx(40, 33, dtype=dtype) * 0.2 + 1  # products of modest magnitude
    zg, tol = z.cuda(), 100 * tol_of(dtype)  # (the GPU multiplies in a tree, the CPU in a line)
    for dims in ((), (0,), (1,), (0, 1)):
        same(zg.prod(dims[0]) if len(dims) == 1 else zg.prod(), z.prod(dims[0]) if len(dims) == 1 else z.prod(), tol)
        same(zg.sum(dims), z.sum(dims), tol)
        same(zg.mean(dims), z.mean(dims), tol)
    out = ember.empty(0, dtype=dtype, device="cuda")  # out= (the pairs' sum written into it)
    same(ember.sum(zg, 1, out=out), z.sum(1), tol)
    same(ember.mean(zg, 0, out=out.resize_(0)), z.mean(0), tol)
    same(zg.cumprod(0), z.cumprod(0), tol)
    # nansum / nanmean (CUDA's, not the CPU's refusal): a number with a NaN part counts as 0
    z[3, 4], z[5, 6] = complex(float("nan"), 1), complex(2, float("nan"))
    zg = z.cuda()
    ok = ~(z.real.isnan() | z.imag.isnan())
    same(ember.nansum(zg), ember.where(ok, z, 0).sum(), tol)
    same(ember.nanmean(zg, 0), ember.where(ok, z, 0).sum(0) / ok.sum(0), tol)
    with pytest.raises(RuntimeError, match="nansum on CPU does not support complex inputs"):
        ember.nansum(z)


CAST_DTYPES = [ember.bool, ember.uint8, ember.int8, ember.int32, ember.int64, ember.float16, ember.bfloat16,
               ember.float32, ember.float64, ember.complex32, ember.complex64, ember.complex128]


@pytest.mark.filterwarnings("ignore:Casting complex values to real")
@pytest.mark.parametrize("src", CAST_DTYPES)
def test_complex32_casts(src: ember.dtype) -> None:
    """Casts into and out of complex32 on the GPU: the CPU's bits (float16 parts rounded from float)."""
    z = ember.cat([cx(12) * 40, ember.tensor([0, 1e-30, 7e4, complex("nan"), complex(0, float("-inf"))])])
    x = z.to(src) if src.is_complex else z.real.to(src)
    c32 = x.to(ember.complex32)
    same(x.cuda().to(ember.complex32), c32)
    same(x.cuda()[::2].to(ember.complex32), c32[::2])  # strided
    same(c32.cuda().to(src), c32.to(src))


def rotary(x: ember.Tensor, theta: ember.Tensor) -> ember.Tensor:
    """A rotary position embedding as LLaMA's reference code writes it (complex rotation)."""
    seq, half = x.shape[1], x.shape[-1] // 2
    freqs = ember.outer(ember.arange(seq, dtype=ember.float32, device=x.device), theta[:half])
    freqs_cis = ember.polar(ember.ones_like(freqs), freqs).view(1, seq, 1, half)
    xc = ember.view_as_complex(x.float().reshape(*x.shape[:-1], half, 2))
    return ember.view_as_real(xc * freqs_cis).flatten(3).type_as(x)


def test_rotary_embedding_forward_backward() -> None:
    x = randn(2, 6, 3, 8).float()
    theta = 1.0 / (10000 ** (ember.arange(0, 8, 2).float() / 8))
    w = randn(2, 6, 3, 8, seed=5).float()
    xc, xg = x.clone().requires_grad_(), x.cuda().requires_grad_()
    yc, yg = rotary(xc, theta), rotary(xg, theta.cuda())
    same(yg, yc.detach(), 1e-6)
    (yc * w).sum().backward()
    (yg * w.cuda()).sum().backward()
    same(xg.grad, xc.grad, 1e-6)


def test_kernels_the_gpu_lacks_raise() -> None:
    z = cx(3, dtype=ember.complex64)
    c32 = z.to(ember.complex32)
    for f in (ember.exp, ember.log, ember.sqrt, ember.sin, ember.tanh, ember.sigmoid):
        with pytest.raises(NotImplementedError, match=rf"^Could not run 'aten::{f.__name__}' with arguments from "
                                                      r"the 'CUDA' backend"):
            f(c32.cuda())
    for f in (ember.floor, ember.sign):  # PyTorch's own refusals, on every device
        with pytest.raises(NotImplementedError) as cpu:
            f(z)
        with pytest.raises(NotImplementedError) as gpu:
            f(z.cuda())
        assert str(gpu.value) == str(cpu.value)
    with pytest.raises(RuntimeError, match="deg2rad is not supported for complex tensors"):
        ember.deg2rad(z.cuda())
    c32 = ember.complex(randn(3).half(), randn(3, seed=1).half()).cuda()
    with pytest.raises(NotImplementedError, match=r"^Could not run 'aten::div' with arguments from the 'CUDA'"):
        ember.div(c32, c32)  # (the CPU has no complex32 division either)


def test_complex32_arithmetic() -> None:
    """complex32's kernels (add / sub with alpha, mul, eq / ne, neg, the predicates, addcmul): the
    CPU's bits, each step rounded to float16 parts."""
    a = ember.complex(randn(6, 5).half(), randn(6, 5, seed=1).half())
    b = ember.complex(randn(5, seed=2).half(), randn(5, seed=3).half())
    a[0, 0], a[0, 1], b[2] = complex("nan"), complex(float("inf"), 1), a[1, 2]
    calls: list[Callable[..., ember.Tensor]] = [
        ember.add, ember.mul, ember.eq, ember.ne, lambda x, y: ember.sub(x, y, alpha=2),
        lambda x, y: ember.add(x, y, alpha=0.5 - 1j), lambda x, y: x * (1.5 - 2j), lambda x, y: -x,
        lambda x, y: x.isnan(), lambda x, y: x.isinf(), lambda x, y: x.isfinite(),
        lambda x, y: ember.addcmul(x, y, x, value=0.5j), lambda x, y: x.t() + y[:, None],
    ]
    for f in calls:
        same(f(a.cuda(), b.cuda()), f(a, b))
    g = a.cuda()
    g += b.cuda()
    same(g, a + b)
