"""complex64 / complex128 on a GPU (issue 24): complex() / polar(), conj_physical, angle, abs and
the arithmetic kernels (c10::complex's formulas, as the CPU's) against the same calls on the CPU,
a rotary embedding's forward and backward (polar, a complex product, view_as_real / complex), and
PyTorch's errors for the complex kernels the GPU lacks (the transcendental functions). Run by the
GPU script (tools/gpu_check.sh) with a CUDA build; skipped elsewhere."""

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
        return  # (complex32 has no CUDA copy_ for out=)
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


@pytest.mark.parametrize("dtype", DTYPES)
def test_ternary(dtype: ember.dtype) -> None:
    a, b, c = cx(3, 4, dtype=dtype), cx(3, 4, dtype=dtype, seed=2), cx(4, dtype=dtype, seed=4)
    tol = tol_of(dtype)
    same(ember.addcmul(a.cuda(), b.cuda(), c.cuda(), value=0.5 + 1j),
         ember.addcmul(a, b, c, value=0.5 + 1j), tol)
    same(ember.addcdiv(a.cuda(), b.cuda(), c.cuda(), value=2), ember.addcdiv(a, b, c, value=2), tol)
    w = ember.complex(ember.tensor([0.1, 0.7, -0.2, 2.0]), ember.tensor([0.1, 0.0, 0.3, -1.0])).to(dtype)
    same(ember.lerp(a.cuda(), b.cuda(), w.cuda()), ember.lerp(a, b, w), tol)  # both sides of |w| = 0.5


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
    for f in (ember.exp, ember.log, ember.sqrt, ember.sin, ember.tanh, ember.sigmoid):
        with pytest.raises(NotImplementedError, match=rf"^Could not run 'aten::{f.__name__}' with arguments from "
                                                      r"the 'CUDA' backend"):
            f(z.cuda())
    for f in (ember.floor, ember.sign):  # PyTorch's own refusals, on every device
        with pytest.raises(NotImplementedError) as cpu:
            f(z)
        with pytest.raises(NotImplementedError) as gpu:
            f(z.cuda())
        assert str(gpu.value) == str(cpu.value)
    with pytest.raises(RuntimeError, match="deg2rad is not supported for complex tensors"):
        ember.deg2rad(z.cuda())
    c32 = ember.complex(randn(3).half(), randn(3, seed=1).half()).cuda()
    with pytest.raises(NotImplementedError, match=r"^Could not run 'aten::mul' with arguments from the 'CUDA'"):
        ember.mul(c32, c32)
