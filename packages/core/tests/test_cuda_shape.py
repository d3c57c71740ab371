"""The shape copies, ranges, arg-reductions and scans on a GPU (issue 24): repeat_interleave, cat / stack, flip,
tril / triu, arange / linspace / logspace / eye, argmax / argmin / max.dim / min.dim, cumsum /
cumprod, logcumsumexp and cummax / cummin, compared with the same calls on the CPU (values,
dtypes, shapes, indices, errors and gradients). Run by the GPU script (tools/gpu_check.sh) with a
CUDA build; skipped elsewhere."""

from __future__ import annotations

from typing import Any

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")

FLOATS = [ember.float16, ember.bfloat16, ember.float32, ember.float64]
INTS = [ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64]
ALL = [ember.bool, *INTS, *FLOATS]


def same(got: ember.Tensor, want: ember.Tensor, tol: float = 0.0) -> None:
    """got (on the GPU) has want's dtype and shape, and its values: exactly (NaN matching NaN) or
    within tol relative to 1 + |want|."""
    assert got.device.type == "cuda", got.device
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    g = got.cpu()
    inexact = want.is_floating_point() or want.is_complex()
    ok = g == want
    if inexact:
        ok = ok | (g.isnan() & want.isnan())
        if tol:
            w = want.to(ember.complex128 if want.is_complex() else ember.float64)
            ok = ok | ((g.to(w.dtype) - w).abs() <= tol * (1 + w.abs()))
    assert bool(ok.all()), f"mismatch:\n{g}\n{want}"


def sample(dtype: ember.dtype, shape: tuple[int, ...], seed: int = 0, nan: bool = True) -> ember.Tensor:
    """Values with many ties (and a few NaNs and infinities for floating dtypes)."""
    g = ember.Generator().manual_seed(seed)
    if dtype == ember.bool:
        return ember.randint(0, 2, shape, generator=g).bool()
    if dtype in INTS:
        lo = 0 if dtype == ember.uint8 else -20
        return ember.randint(lo, 20, shape, generator=g).to(dtype)
    x = ember.randint(-8, 8, shape, generator=g).double() / 4
    if nan and x.numel() > 4:
        flat = x.view(-1)
        flat[1], flat[x.numel() // 2] = float("nan"), float("inf")
        flat[-2] = float("-inf")
    return x.to(dtype)


def both(fn: Any, *xs: ember.Tensor) -> tuple[Any, Any]:
    """fn on the CPU tensors and on their GPU copies."""
    return fn(*xs), fn(*[x.cuda() for x in xs])


def grads(fn: Any, x: ember.Tensor, seed: int = 9) -> tuple[ember.Tensor, ember.Tensor]:
    """d(sum(fn(x) * w))/dx on the CPU and on the GPU, for a fixed random w."""
    out = []
    for dev in ("cpu", "cuda"):
        xd = x.detach().clone().to(dev).requires_grad_()
        y = fn(xd)
        w = ember.randn(tuple(y.shape), generator=ember.Generator().manual_seed(seed), dtype=y.dtype).to(dev)
        (y * w).sum().backward()
        assert xd.grad is not None
        out.append(xd.grad)
    return out[0], out[1]


# ---- repeat_interleave ----


@pytest.mark.parametrize("dtype", [ember.bool, ember.int64, ember.float16, ember.float32], ids=str)
def test_repeat_interleave(dtype: ember.dtype) -> None:
    # one gather on the device (int repeats, a repeats tensor, one repeat for all, zeros, dims)
    x = sample(dtype, (5, 3, 4), nan=False)
    reps = ember.tensor([2, 0, 1, 3, 1])
    for fn in (lambda t: ember.repeat_interleave(t, 3), lambda t: t.repeat_interleave(2, dim=1),
               lambda t: ember.repeat_interleave(t, 0, dim=0), lambda t: ember.repeat_interleave(t, ember.tensor(2), 2),
               lambda t: t.repeat_interleave(ember.tensor([3], device=t.device), dim=-1)):
        cpu, gpu = both(fn, x)
        same(gpu, cpu)
    same(ember.repeat_interleave(x.cuda(), reps.cuda(), dim=0), ember.repeat_interleave(x, reps, dim=0))
    same(ember.repeat_interleave(x.cuda(), reps.int().cuda(), dim=0, output_size=7),
         ember.repeat_interleave(x, reps, dim=0))
    flat = ember.arange(4, device="cuda")
    same(ember.repeat_interleave(flat, ember.tensor([1, 2, 0, 3], device="cuda")),
         ember.repeat_interleave(flat.cpu(), ember.tensor([1, 2, 0, 3])))
    same(ember.repeat_interleave(ember.tensor([2, 0, 3], device="cuda")), ember.tensor([0, 0, 2, 2, 2]))


def test_repeat_interleave_errors_and_gradients() -> None:
    x = ember.randn(4, 3, device="cuda")
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        ember.repeat_interleave(x, ember.tensor([1, -1, 2, 0], device="cuda"), dim=0)
    with pytest.raises(RuntimeError, match="allocated size does not match"):
        ember.repeat_interleave(x, ember.tensor([1, 1, 2, 0], device="cuda"), dim=0, output_size=5)
    with pytest.raises(RuntimeError, match="repeats must have the same size"):
        ember.repeat_interleave(x, ember.tensor([1, 2], device="cuda"), dim=0)
    reps = ember.tensor([2, 0, 1, 3])
    for fn in (lambda t: ember.repeat_interleave(t, 3, dim=1), lambda t: ember.repeat_interleave(t, 2),
               lambda t: ember.repeat_interleave(t, reps.to(t.device), dim=0)):
        gc, gg = grads(fn, x.cpu())
        same(gg, gc, 1e-6)


# ---- cat / stack ----


@pytest.mark.parametrize("dtype", [*ALL, ember.complex64, ember.complex128], ids=str)
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_cat_and_stack(dtype: ember.dtype, dim: int) -> None:
    a, b, c = (sample(ember.float64, s, i, nan=False).to(dtype) for i, s in enumerate([(3, 4, 5)] * 3))
    for f in (lambda *t: ember.cat(t, dim), lambda *t: ember.stack(t, dim)):
        want, got = both(f, a, b, c)
        same(got, want)


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_cat_sizes_layouts_and_promotion(dim: int) -> None:
    a = sample(ember.float32, (4, 6, 5), 1)
    b = sample(ember.float32, (6, 4, 5), 2).transpose(0, 1)  # not contiguous
    sizes = [4, 6, 5]
    sizes[dim] = 3
    c = sample(ember.float64, tuple(sizes), 3)  # promotes the result to float64
    e = ember.empty(0)  # a 1-d empty tensor is skipped
    z = sample(ember.float32, tuple(0 if i == dim else s for i, s in enumerate([4, 6, 5])), 4)  # empty along dim
    want, got = both(lambda *t: ember.cat(t, dim), a, b, z, e)
    same(got, want)
    want, got = both(lambda *t: ember.cat(t, dim), a, c)
    same(got, want)
    odd = sample(ember.int8, (3, 7, 5), 5)  # odd byte counts: the narrowest copy word
    want, got = both(lambda t: ember.cat([t, t[:, :3]], 1), odd)
    same(got, want)
    big = sample(ember.float32, (2, 300, 1000), 6)
    want, got = both(lambda t: ember.cat([t, t[:, :7], t], 1), big)
    same(got, want)


def test_cat_out_and_errors() -> None:
    a = sample(ember.float32, (2, 3), 1)
    out = ember.empty(4, 3, device="cuda")
    r = ember.cat([a.cuda(), a.cuda()], 0, out=out)
    assert r is out
    same(out, ember.cat([a, a], 0))
    with pytest.raises(RuntimeError, match="Sizes of tensors must match"):
        ember.cat([a.cuda(), ember.zeros(2, 4, device="cuda")], 0)
    with pytest.raises(RuntimeError, match="same device"):
        ember.cat([a.cuda(), a], 0)


def test_cat_and_stack_gradients() -> None:
    x = sample(ember.float32, (4, 6), 7, nan=False)

    def f(t: ember.Tensor) -> ember.Tensor:
        return ember.cat([t * 2, t[:, 1:].sin(), ember.stack([t, t.t().t() * 3], 1).flatten(1)], 1)

    gc, gd = grads(f, x)
    same(gd, gc, 1e-6)


# ---- flip / tril / triu ----


@pytest.mark.parametrize("dtype", [*ALL, ember.complex128], ids=str)
@pytest.mark.parametrize("dims", [(0,), (-1,), (0, 2), (1, 2), (0, 1, 2)])
def test_flip(dtype: ember.dtype, dims: tuple[int, ...]) -> None:
    x = sample(ember.float64, (3, 5, 4), 1).to(dtype)
    want, got = both(lambda t: ember.flip(t, dims), x)
    same(got, want)
    want, got = both(lambda t: ember.flip(t.transpose(0, 2), dims), x)  # not contiguous
    same(got, want)


def test_flip_edge_cases() -> None:
    same(ember.flip(ember.tensor(3.5, device="cuda"), [0]), ember.tensor(3.5))
    same(ember.flip(ember.empty(0, 3, device="cuda"), [1]), ember.empty(0, 3))
    x = sample(ember.float32, (1000, 33), 3)
    want, got = both(lambda t: t.flip(0, 1).fliplr().flipud(), x)
    same(got, want)


@pytest.mark.parametrize("dtype", [ember.bool, ember.int32, ember.float16, ember.float64, ember.complex64], ids=str)
@pytest.mark.parametrize("k", [-7, -2, -1, 0, 1, 3, 8])
def test_tril_triu(dtype: ember.dtype, k: int) -> None:
    x = sample(ember.float64, (2, 3, 5, 6), 4).to(dtype)
    for f in (ember.tril, ember.triu):
        want, got = both(lambda t: f(t, k), x)
        same(got, want)
        want, got = both(lambda t: f(t.transpose(-1, -2), k), x)  # not contiguous
        same(got, want)
        xc, xd = x.clone(), x.cuda()
        getattr(xc, f.__name__ + "_")(k)
        getattr(xd, f.__name__ + "_")(k)
        same(xd, xc)


def test_tril_triu_in_place_on_expanded_rows() -> None:
    # rows sharing memory: masked in place through the strides (the memory as the CPU leaves it)
    base = sample(ember.float32, (1, 5), 2, nan=False)
    xc = base.expand(5, 5)
    xd = base.cuda().expand(5, 5)
    xc.triu_(1)
    xd.triu_(1)
    same(xd.contiguous(), xc.contiguous())
    bc = sample(ember.float32, (3, 1, 4), 2, nan=False)
    xc, xd = bc.expand(3, 4, 4), bc.cuda().expand(3, 4, 4)
    xc.tril_(-1)
    xd.tril_(-1)
    same(xd.contiguous(), xc.contiguous())


def test_tril_gradient() -> None:
    gc, gd = grads(lambda t: t.tril(1) + t.triu(2), sample(ember.float64, (4, 6), 5, nan=False))
    same(gd, gc)


# ---- arange / linspace / logspace / eye ----


@pytest.mark.parametrize("dtype", [*INTS, *FLOATS], ids=str)
def test_arange(dtype: ember.dtype) -> None:
    for args in [(10,), (3, 17, 2), (20, -5, -3), (0.5, 9.0, 0.25), (-1.0, 1.0, 0.1), (0, 300, 1)]:
        if dtype in INTS and any(isinstance(a, float) for a in args):
            continue
        if dtype == ember.uint8 and any(a < 0 for a in args):
            continue
        same(ember.arange(*args, dtype=dtype, device="cuda"), ember.arange(*args, dtype=dtype))
    same(ember.arange(0, 1000, 7, device="cuda"), ember.arange(0, 1000, 7))
    same(ember.arange(0.0, 1.0, 1e-4, device="cuda"), ember.arange(0.0, 1.0, 1e-4))
    same(ember.arange(5, 5, device="cuda"), ember.arange(5, 5))
    out = ember.empty(4, device="cuda")
    same(ember.arange(4.0, out=out), ember.arange(4.0))
    assert out.device.type == "cuda"
    with pytest.raises(RuntimeError):
        ember.arange(0, 10, -1, device="cuda")


@pytest.mark.parametrize("dtype", [*INTS, *FLOATS], ids=str)
@pytest.mark.parametrize("steps", [0, 1, 2, 7, 100, 1001])
def test_linspace_and_logspace(dtype: ember.dtype, steps: int) -> None:
    for start, end in [(0, 10), (5, -3), (-2.5, 3.25), (1, 1)]:
        if dtype in INTS and (isinstance(start, float) or (dtype == ember.uint8 and min(start, end) < 0)):
            continue
        same(ember.linspace(start, end, steps, dtype=dtype, device="cuda"),
             ember.linspace(start, end, steps, dtype=dtype))
        # CUDA's pow is within an ulp or two of the CPU's (an integer dtype may round across)
        tol = 1e-14 if dtype == ember.float64 else 1e-6 if dtype == ember.float32 else 1e-2
        got = ember.logspace(start, end, steps, base=2.0, dtype=dtype, device="cuda")
        want = ember.logspace(start, end, steps, base=2.0, dtype=dtype)
        if dtype in INTS:
            assert got.dtype == want.dtype and bool(((got.cpu().long() - want.long()).abs() <= 1).all())
        else:
            same(got, want, tol)


@pytest.mark.parametrize("dtype", [*ALL, ember.complex64, ember.complex128], ids=str)
def test_eye(dtype: ember.dtype) -> None:
    for shape in [(0,), (1,), (4,), (3, 5), (6, 2), (0, 3)]:
        same(ember.eye(*shape, dtype=dtype, device="cuda"), ember.eye(*shape, dtype=dtype))
    out = ember.empty(2, 2, dtype=dtype, device="cuda")
    same(ember.eye(3, 4, dtype=dtype, out=out), ember.eye(3, 4, dtype=dtype))


# ---- argmax / argmin / max.dim / min.dim ----


@pytest.mark.parametrize("dtype", [*INTS, *FLOATS], ids=str)
@pytest.mark.parametrize("shape", [(7,), (5, 9), (3, 200, 4), (2, 3000)])
def test_argmax_argmin(dtype: ember.dtype, shape: tuple[int, ...]) -> None:
    x = sample(dtype, shape, 2)  # ties, NaN and infinities in the float rows
    for f in (ember.argmax, ember.argmin):
        want, got = both(f, x)
        same(got, want)
        for dim in range(-len(shape), len(shape)):
            for keepdim in (False, True):
                want, got = both(lambda t: f(t, dim, keepdim), x)
                same(got, want)
    for f in (ember.max, ember.min):
        for dim in range(len(shape)):
            (wv, wi), (gv, gi) = both(lambda t: tuple(f(t, dim)), x)
            same(gv, wv)
            same(gi, wi)
            (wv, wi), (gv, gi) = both(lambda t: tuple(f(t.transpose(0, -1), dim, True)), x)
            same(gv, wv)
            same(gi, wi)


def test_arg_reduce_nan_and_ties() -> None:
    nan = float("nan")
    x = ember.tensor([[1.0, 3.0, 3.0, nan, 5.0, nan], [2.0, 2.0, -1.0, -1.0, 0.0, 2.0], [nan] * 6])
    for f in (ember.argmax, ember.argmin):
        same(f(x.cuda(), 1), f(x, 1))
        same(f(x.cuda()), f(x))
    long_row = ember.zeros(5000)
    long_row[[17, 4000]] = 3.0
    long_row[[99, 4500]] = -3.0
    same(ember.argmax(long_row.cuda()), ember.argmax(long_row))
    same(ember.argmin(long_row.cuda()), ember.argmin(long_row))
    long_row[2500] = nan
    long_row[4999] = nan
    same(ember.argmax(long_row.cuda()), ember.argmax(long_row))
    same(ember.max(long_row.cuda(), 0).values, ember.max(long_row, 0).values)


def test_arg_reduce_edges() -> None:
    b = sample(ember.bool, (4, 5), 1)
    (wv, wi), (gv, gi) = both(lambda t: tuple(ember.max(t, 1)), b)
    same(gv, wv)
    same(gi, wi)
    s = ember.tensor(2.5)
    same(ember.argmax(s.cuda()), ember.argmax(s))
    (wv, wi), (gv, gi) = both(lambda t: tuple(ember.max(t, 0)), s)
    same(gv, wv)
    same(gi, wi)
    e = ember.empty(0, 4)
    (wv, wi), (gv, gi) = both(lambda t: tuple(ember.max(t, 1)), e)
    same(gv, wv)
    same(gi, wi)
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        ember.max(e.cuda(), 0)
    with pytest.raises(IndexError):
        ember.argmax(e.cuda())


def test_max_dim_gradient() -> None:
    x = sample(ember.float32, (5, 7), 3, nan=False)
    for f in (lambda t: ember.max(t, 1).values, lambda t: ember.min(t, 0, True).values):
        gc, gd = grads(f, x)
        same(gd, gc)


# ---- cumsum / cumprod ----


@pytest.mark.parametrize("dtype", [*INTS, *FLOATS, ember.complex64, ember.complex128], ids=str)
@pytest.mark.parametrize("shape", [(9,), (4, 6), (3, 50, 4)])
def test_cumsum_cumprod(dtype: ember.dtype, shape: tuple[int, ...]) -> None:
    x = (sample(ember.float64, shape, 5, nan=False) / 2 + 1).to(dtype) if dtype in FLOATS else sample(dtype, shape, 5)
    if dtype in (ember.complex64, ember.complex128):
        x = ember.complex(sample(ember.float64, shape, 5, nan=False), sample(ember.float64, shape, 6, nan=False))
        x = (x / 4).to(dtype)
    tol = 1e-6 if dtype == ember.complex64 else 1e-14 if dtype == ember.complex128 else 0.0
    for f in (ember.cumsum, ember.cumprod):
        for dim in range(-len(shape), len(shape)):
            want, got = both(lambda t: f(t, dim), x)
            same(got, want, tol)
            want, got = both(lambda t: f(t.transpose(0, -1), dim), x)
            same(got, want, tol)


def test_cumulative_dtypes_and_edges() -> None:
    b = sample(ember.bool, (3, 4), 1)
    same(ember.cumsum(b.cuda(), 1), ember.cumsum(b, 1))  # int64 result
    i8 = ember.full((40,), 100, dtype=ember.int8)  # wraps in its own width
    same(ember.cumsum(i8.cuda(), 0, dtype=ember.int8), ember.cumsum(i8, 0, dtype=ember.int8))
    same(ember.cumprod(i8.cuda(), 0), ember.cumprod(i8, 0))
    f = ember.full((5000,), 0.1)  # float32 accumulates in double, as the CPU
    same(ember.cumsum(f.cuda(), 0), ember.cumsum(f, 0))
    same(ember.cumsum(f.cuda(), 0, dtype=ember.float16), ember.cumsum(f, 0, dtype=ember.float16))
    same(ember.cumsum(ember.tensor(3.0, device="cuda"), 0), ember.cumsum(ember.tensor(3.0), 0))
    same(ember.cumsum(ember.empty(0, 3, device="cuda"), 1), ember.cumsum(ember.empty(0, 3), 1))
    xc, xd = f.clone(), f.cuda()
    xc.cumsum_(0)
    xd.cumsum_(0)
    same(xd, xc)


@pytest.mark.parametrize("n", [512, 1000, 5000])
def test_long_rows_scan_by_block(n: int) -> None:
    # a block per row (a tile of 1024 elements a step): integers and float32 (summed in double)
    # agree exactly with the CPU's order; float64 and the half types within rounding
    for dtype in (ember.int64, ember.int32, ember.int8, ember.uint8):
        x = sample(dtype, (3, n), 7)
        for f in (ember.cumsum, ember.cumprod):
            want, got = both(lambda t, f=f: f(t, 1), x)
            same(got, want)
    q = ember.randint(-8, 8, (2, n), generator=ember.Generator().manual_seed(8)).float() / 4  # exact sums
    want, got = both(lambda t: ember.cumsum(t, 1), q)
    same(got, want)
    s = (sample(ember.float64, (2, n), 9, nan=False) / 1e3 + 1)
    for dtype, tol in ((ember.float64, 1e-12), (ember.float32, 1e-6), (ember.float16, 2e-3), (ember.bfloat16, 2e-2)):
        for f in (ember.cumsum, ember.cumprod):
            want, got = both(lambda t, f=f: f(t, 1), s.to(dtype))
            same(got, want, tol * (n if f is ember.cumsum and dtype in (ember.float16, ember.bfloat16) else 1))
    with_nan = s.clone()
    with_nan[0, n // 2] = float("nan")
    want, got = both(lambda t: ember.cumsum(t, 1), with_nan)
    same(got, want, 1e-12)


def test_cumsum_cumprod_gradients() -> None:
    x = sample(ember.float64, (4, 6), 4, nan=False) / 2 + 1
    for f in (lambda t: t.cumsum(1), lambda t: t.cumsum(0), lambda t: t.cumprod(1)):
        gc, gd = grads(f, x)
        same(gd, gc, 1e-12)
    x[1, 2] = 0.0  # cumprod's backward through a zero
    gc, gd = grads(lambda t: t.cumprod(1), x)
    same(gd, gc, 1e-12)


# ---- logcumsumexp / cummax / cummin ----


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_logcumsumexp(dtype: ember.dtype) -> None:
    x = sample(ember.float64, (4, 30, 3), 6).to(dtype)  # with NaN and infinities
    tol = {ember.float64: 1e-13, ember.float32: 1e-6}.get(dtype, 1e-2)
    for dim in (0, 1, 2, -1):
        want, got = both(lambda t: ember.logcumsumexp(t, dim), x)
        same(got, want, tol)
    inf = float("inf")
    edge = ember.tensor([-inf, -inf, 1.0, inf, inf, -inf, float("nan"), 2.0], dtype=dtype)
    want, got = both(lambda t: ember.logcumsumexp(t, 0), edge)
    same(got, want, tol)
    same(ember.logcumsumexp(ember.empty(0, 2, device="cuda"), 0), ember.logcumsumexp(ember.empty(0, 2), 0))


def test_logcumsumexp_gradient() -> None:
    gc, gd = grads(lambda t: ember.logcumsumexp(t, 1), sample(ember.float64, (3, 9), 2, nan=False) / 8)
    same(gd, gc, 1e-12)


@pytest.mark.parametrize("dtype", [ember.bool, *INTS, *FLOATS], ids=str)
def test_cummax_cummin_values_and_indices(dtype: ember.dtype) -> None:
    from ember._lib import _C

    x = sample(dtype, (5, 40, 3), 8)  # ties (the last wins) and NaN (which sticks)
    for dim in (0, 1, 2):
        for greater in (True, False):
            for view in (lambda t: t, lambda t: t.transpose(0, 2)):
                (want_v, want_i), (got_v, got_i) = both(lambda t: _C._cum_extreme(view(t), dim, greater), x)
                same(got_i, want_i)
                same(got_v, want_v)


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_hash_tensor(dtype: ember.dtype) -> None:
    # the xor of 64-bit patterns (ReduceKind::XorSum), NaN bits included, over every dim choice
    x = sample(dtype, (5, 40, 3), 8)
    for dim in (None, 0, 1, 2, (0, 2)):
        for keepdim in (False, True):
            want, got = both(lambda t: ember.hash_tensor(t, dim, keepdim=keepdim), x)
            same(got, want)


def test_cummax_cummin() -> None:
    x = sample(ember.float32, (4, 10), 3)
    try:
        for f in (ember.cummax, ember.cummin):
            (wv, wi), (gv, gi) = both(lambda t: tuple(f(t, 1)), x)
            same(gv, wv)
            same(gi, wi)
        (wv, wi), (gv, gi) = both(lambda t: tuple(ember.cummax(t, 0)), ember.tensor(1.5))
        same(gv, wv)
        same(gi, wi)
    except NotImplementedError as e:  # the values are a gather (the CUDA index kernels)
        pytest.skip(str(e))
