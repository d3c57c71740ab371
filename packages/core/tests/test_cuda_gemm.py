"""Matrix products on a GPU (issue 24): mm, addmm, bmm, matmul, linear and their gradients on
cuBLAS, compared with the same product on the CPU; integer products raise aten's error. Run by the
GPU script (tools/gpu_check.sh) with a CUDA build; skipped elsewhere."""

from __future__ import annotations

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")

# relative to the largest |entry| (the GPU's summation order and its TF32 default are off here)
TOL = {ember.float32: 1e-4, ember.float64: 1e-12, ember.float16: 5e-3, ember.bfloat16: 3e-2,
       ember.complex64: 1e-4, ember.complex128: 1e-12}
DTYPES = list(TOL)


def check(got: ember.Tensor, want: ember.Tensor) -> None:
    assert got.device.type == "cuda" and got.dtype == want.dtype and got.shape == want.shape
    g, w = got.cpu(), want
    scale = float(w.abs().max()) if w.numel() else 1.0
    assert float((g - w).abs().max() if w.numel() else 0.0) <= TOL[want.dtype] * max(scale, 1.0)


def rand(*shape: int, dtype: ember.dtype, seed: int) -> ember.Tensor:
    g = ember.Generator().manual_seed(seed)
    if dtype.is_complex:
        return ember.complex(ember.randn(*shape, generator=g), ember.randn(*shape, generator=g)).to(dtype)
    return ember.randn(*shape, generator=g).to(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_mm_every_layout(dtype: ember.dtype) -> None:
    a, b = rand(37, 64, dtype=dtype, seed=1), rand(64, 29, dtype=dtype, seed=2)
    for x, y in ((a, b), (a.t().contiguous().t(), b), (a, b.t().contiguous().t()), (a[:, ::2], b[::2])):
        check(ember.mm(x.cuda(), y.cuda()), ember.mm(x, y))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_addmm_bmm_matmul(dtype: ember.dtype) -> None:
    c, a, b = rand(5, 7, dtype=dtype, seed=3), rand(5, 11, dtype=dtype, seed=4), rand(11, 7, dtype=dtype, seed=5)
    check(ember.addmm(c.cuda(), a.cuda(), b.cuda(), beta=0.5, alpha=2), ember.addmm(c, a, b, beta=0.5, alpha=2))
    p, q = rand(4, 6, 9, dtype=dtype, seed=6), rand(4, 9, 3, dtype=dtype, seed=7)
    check(ember.bmm(p.cuda(), q.cuda()), ember.bmm(p, q))
    check(ember.matmul(p.cuda(), q[0].cuda()), ember.matmul(p, q[0]))
    check(p[0].cuda() @ q[0, :, 0].cuda(), p[0] @ q[0, :, 0])
    check(ember.mm(a[:0].cuda(), b.cuda()), ember.mm(a[:0], b))  # empty result
    check(ember.mm(a[:, :0].cuda(), b[:0].cuda()), ember.mm(a[:, :0], b[:0]))  # K = 0: zeros


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_bmm_operand_layouts(dtype: ember.dtype) -> None:
    """One strided-batched GEMM reads each layout as it is stored (or from a contiguous copy)."""
    p, q = rand(5, 6, 9, dtype=dtype, seed=8), rand(5, 9, 4, dtype=dtype, seed=9)
    pt, qt = rand(5, 9, 6, dtype=dtype, seed=10).transpose(1, 2), rand(5, 4, 9, dtype=dtype, seed=11).transpose(1, 2)
    one = rand(1, 6, 9, dtype=dtype, seed=12).expand(5, 6, 9)  # the batch stride 0
    wide = rand(5, 6, 20, dtype=dtype, seed=13)[:, :, 3:12]  # rows 20 apart
    odd = rand(5, 12, 9, dtype=dtype, seed=14)[:, ::2]  # rows two rows apart
    cols = rand(9, 5, 4, dtype=dtype, seed=15).permute(1, 0, 2)  # the batch innermost but one
    for x, y in [(p, q), (pt, q), (p, qt), (pt, qt), (one, q), (wide, q), (odd, qt), (p, cols), (one, cols)]:
        check(ember.bmm(x.cuda(), y.cuda()), ember.bmm(x, y))
        check(ember.matmul(x.cuda(), y.cuda()), ember.matmul(x, y))
    check(ember.bmm(p[:, :0].cuda(), q.cuda()), ember.bmm(p[:, :0], q))  # M = 0
    check(ember.bmm(p[:, :, :0].cuda(), q[:, :0].cuda()), ember.bmm(p[:, :, :0], q[:, :0]))  # K = 0


def test_linear_layer_gradients_on_the_device() -> None:
    x, w, bias = rand(16, 32, dtype=ember.float32, seed=8), rand(8, 32, dtype=ember.float32, seed=9), \
        rand(8, dtype=ember.float32, seed=10)
    leaves = [t.clone().requires_grad_() for t in (x, w, bias)]
    dev = [t.cuda().requires_grad_() for t in (x, w, bias)]
    def linear(x: ember.Tensor, w: ember.Tensor, b: ember.Tensor) -> ember.Tensor:
        return ember.addmm(b, x, w.t())  # F.linear's product (ember-nn is not in the GPU check's install)

    linear(*leaves).square().sum().backward()
    linear(*dev).square().sum().backward()
    for d, c in zip(dev, leaves):
        assert d.grad is not None and c.grad is not None
        check(d.grad, c.grad)


def test_integer_products_raise_aten_error() -> None:
    a = ember.ones(2, 2, dtype=ember.int64).cuda()
    with pytest.raises(NotImplementedError, match="\"addmm_cuda\" not implemented for 'Long'"):
        ember.mm(a, a)


def test_mixed_devices_raise() -> None:
    a, b = ember.ones(2, 3), ember.ones(3, 2, device="cuda")
    # the @ operator skips the generated bindings: it checks its operands itself (a CPU operand
    # reached the host BLAS with a device pointer, or cuBLAS with a host one)
    for f in (lambda: ember.mm(b, a), lambda: a @ b, lambda: b @ a, lambda: a[None] @ b[None], lambda: b @ a[0]):
        with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
            f()


def test_tf32_only_when_allowed() -> None:
    g = ember.Generator().manual_seed(11)
    a, b = ember.randn(256, 512, generator=g), ember.randn(512, 128, generator=g)
    exact = (a.double() @ b.double())
    assert ember.get_float32_matmul_precision() == "highest"
    ieee = (a.cuda() @ b.cuda()).cpu().double()
    assert float((ieee - exact).abs().max()) < 1e-3  # float32 accuracy: no TF32 by default
    ember.set_float32_matmul_precision("high")
    try:
        tf32 = (a.cuda() @ b.cuda()).cpu().double()
        assert float((tf32 - exact).abs().max()) < 0.5  # TF32's 10-bit mantissa, still close
    finally:
        ember.set_float32_matmul_precision("highest")
