"""Index ops and embedding on a GPU (issue 24): embedding / one_hot, index_select, gather / scatter
(every reduction), index_add / index_copy / index_fill, take / put_, advanced indexing (get, put,
accumulate), masked_fill / masked_select / masked_scatter / nonzero, compared with the same calls on
the CPU, gradients too where the op has one. Run by the GPU script (tools/gpu_check.sh, which puts
ember-nn on the path) with a CUDA build; skipped elsewhere.

Atomic adds make a float sum's order the device's: sums compare within a tolerance. A plain write
to one place from two indices keeps either on CUDA (as in PyTorch), so those cases have none."""

from __future__ import annotations

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")

TOL = {ember.float32: 1e-5, ember.float64: 1e-12, ember.float16: 1e-2, ember.bfloat16: 5e-2}
FLOATS = list(TOL)


def check(got: ember.Tensor, want: ember.Tensor, tol: float | None = None) -> None:
    assert got.device.type == "cuda", got.device
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    if not (want.dtype.is_floating_point or want.dtype.is_complex):
        assert bool((got.cpu() == want).all())
        return
    t = TOL.get(want.dtype, 1e-5) if tol is None else tol
    g, w = got.cpu(), want
    if want.dtype.is_complex:
        g, w = ember.view_as_real(g).double(), ember.view_as_real(w).double()
    else:
        g, w = g.double(), w.double()
    close = ((g - w).abs() <= t * (1 + w.abs())) | (g == w) | (g.isnan() & w.isnan())
    assert bool(close.all()), (g, w)


def rand(*shape: int, dtype: ember.dtype = ember.float32, seed: int = 0) -> ember.Tensor:
    g = ember.Generator().manual_seed(seed)
    return ember.randn(shape, generator=g).to(dtype)


def perm(n: int, seed: int = 0) -> ember.Tensor:
    return ember.randperm(n, generator=ember.Generator().manual_seed(seed))


def randint(hi: int, shape: tuple[int, ...], seed: int = 0) -> ember.Tensor:
    return ember.randint(0, hi, shape, generator=ember.Generator().manual_seed(seed))


# ---- embedding / one_hot ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("padding_idx", [-1, 3])
@pytest.mark.parametrize("scale", [False, True])
def test_embedding_forward_and_backward(dtype: ember.dtype, padding_idx: int, scale: bool) -> None:
    w = rand(20, 7, dtype=dtype)
    idx = randint(20, (6, 5), seed=1)
    idx[0, 0] = 3
    wc, wd = w.clone().requires_grad_(), w.cuda().requires_grad_()
    yc = ember.embedding(wc, idx, padding_idx, scale, False)
    yd = ember.embedding(wd, idx.cuda(), padding_idx, scale, False)
    check(yd, yc, 0.0)
    gy = rand(6, 5, 7, dtype=dtype, seed=2)
    yc.backward(gy)
    yd.backward(gy.cuda())
    assert wd.grad is not None and wc.grad is not None
    check(wd.grad, wc.grad)


@pytest.mark.parametrize("idx_dtype", [ember.int32, ember.int64], ids=str)
def test_embedding_large_and_int32(idx_dtype: ember.dtype) -> None:
    w = rand(5000, 64)
    idx = randint(5000, (4000,), seed=3).to(idx_dtype)
    wc, wd = w.clone().requires_grad_(), w.cuda().requires_grad_()
    yc, yd = ember.embedding(wc, idx, -1, False, False), ember.embedding(wd, idx.cuda(), -1, False, False)
    check(yd, yc, 0.0)
    yc.sum().backward()
    yd.sum().backward()
    check(wd.grad, wc.grad)


def test_embedding_odd_row_bytes_and_errors() -> None:
    w = rand(9, 3, dtype=ember.float16)  # 6-byte rows: the gather's 2-byte words
    idx = ember.tensor([[8, 0, 4], [1, 1, 2]])
    check(ember.embedding(w.cuda(), idx.cuda(), -1, False, False), ember.embedding(w, idx, -1, False, False), 0.0)
    # the kernel checks the indices (the op does not wait): the IndexError comes at the next wait
    bad = ember.embedding(w.cuda(), ember.tensor([0, 9]).cuda(), -1, False, False)
    with pytest.raises(IndexError, match="index out of range in self"):
        bad.cpu()
    assert bad.cpu()[1].abs().sum().item() == 0  # the bad row was never read
    with pytest.raises(IndexError, match="index out of range in self"):
        ember.embedding(w.cuda(), ember.tensor([-1]).cuda(), -1, False, False)
        ember.cuda.synchronize()
    wd = w.cuda().requires_grad_()
    ember.embedding(wd, ember.tensor([2, 9]).cuda(), -1, False, False).sum().backward()
    with pytest.raises(IndexError, match="index out of range in self"):
        ember.cuda.synchronize()
    assert wd.grad is not None and wd.grad.cpu()[2].tolist() == [1.0, 1.0, 1.0]


def test_one_hot() -> None:
    F = pytest.importorskip("ember.nn.functional")
    idx = randint(6, (4, 5), seed=4)
    check(F.one_hot(idx.cuda()), F.one_hot(idx))
    check(F.one_hot(idx.cuda(), 9), F.one_hot(idx, 9))
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        F.one_hot(idx.cuda(), 3)
    with pytest.raises(RuntimeError, match="non-negative"):
        F.one_hot(ember.tensor([1, -1]).cuda(), 3)


# ---- index_select / gather / scatter ----------------------------------------------------------


@pytest.mark.parametrize("dtype", [ember.float32, ember.float16, ember.float64, ember.int64, ember.bool], ids=str)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select(dtype: ember.dtype, dim: int) -> None:
    x = (rand(6, 7, 8) * 3).to(dtype)
    idx = ember.tensor([5, 0, 2, 2, 1])
    check(ember.index_select(x.cuda(), dim, idx.cuda()), ember.index_select(x, dim, idx), 0.0)
    xt = x.transpose(0, 2)  # non-contiguous
    check(ember.index_select(xt.cuda(), dim, idx.cuda()), ember.index_select(xt, dim, idx), 0.0)


def test_index_select_backward_and_errors() -> None:
    x = rand(50, 30)
    idx = randint(50, (200,), seed=5)
    xc, xd = x.clone().requires_grad_(), x.cuda().requires_grad_()
    gy = rand(200, 30, seed=6)
    ember.index_select(xc, 0, idx).backward(gy)
    ember.index_select(xd, 0, idx.cuda()).backward(gy.cuda())
    check(xd.grad, xc.grad)
    # the kernel checks the indices (the op does not wait): the error comes at the next wait, a bad
    # row reads as 0 and the good ones are copied
    bad = ember.index_select(x.cuda(), 0, ember.tensor([0, 50]).cuda())
    with pytest.raises(IndexError, match="index out of range in self"):
        bad.cpu()
    assert bool((bad.cpu()[0] == x[0]).all()) and bad.cpu()[1].abs().sum().item() == 0
    with pytest.raises(RuntimeError, match="INDICES element is out of DATA bounds, id=7 axis_dim=3"):
        ember.index_select(rand(2, 3).cuda(), 1, ember.tensor([0, 7]).cuda())
        ember.cuda.synchronize()
    with pytest.raises(IndexError, match="index out of range in self"):  # a 1-d self of no elements
        ember.index_select(ember.empty(0).cuda(), 0, ember.tensor([0]).cuda()).cpu()
    with pytest.raises(RuntimeError, match="self indexing axis dim should be positive"):
        ember.index_select(ember.empty(2, 0).cuda(), 1, ember.tensor([0]).cuda())
    with pytest.raises(RuntimeError, match="INDICES element is out of DATA bounds, id=4 axis_dim=3"):
        ember.index_select(ember.empty(0, 3).cuda(), 1, ember.tensor([4]).cuda())  # checked at once: no kernel


@pytest.mark.parametrize("dtype", [ember.float32, ember.bfloat16, ember.int32, ember.complex64], ids=str)
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_gather(dtype: ember.dtype, dim: int) -> None:
    x = (rand(5, 6, 7) * 4).to(dtype)
    idx = randint(x.shape[dim], (4, 5, 6), seed=dim)
    check(ember.gather(x.cuda(), dim, idx.cuda()), ember.gather(x, dim, idx), 0.0)
    xt = x.permute(2, 0, 1).contiguous().permute(1, 2, 0)  # same values, strided
    check(ember.gather(xt.cuda(), dim, idx.cuda()), ember.gather(xt, dim, idx), 0.0)


def test_gather_backward_and_errors() -> None:
    x = rand(40, 30)
    idx = randint(30, (40, 50), seed=7)
    xc, xd = x.clone().requires_grad_(), x.cuda().requires_grad_()
    gy = rand(40, 50, seed=8)
    ember.gather(xc, 1, idx).backward(gy)
    ember.gather(xd, 1, idx.cuda()).backward(gy.cuda())
    check(xd.grad, xc.grad)
    # the kernel checks the indices (the op does not wait): the error comes at the next wait
    bad = ember.gather(x.cuda(), 1, ember.tensor([[0, 30]]).cuda())
    with pytest.raises(RuntimeError, match="index 30 is out of bounds for dimension 1 with size 30"):
        bad.cpu()
    assert bad.cpu().tolist() == [[x[0, 0].item(), 0.0]]


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.int64, ember.uint8], ids=str)
def test_scatter_and_scatter_value(dtype: ember.dtype) -> None:
    # no two indices of one line meet: a plain write is then deterministic
    x = (rand(6, 8) * 5).to(dtype)
    idx = ember.stack([perm(8, seed=s)[:5] for s in range(4)])
    src = (rand(4, 5, seed=9) * 5).to(dtype)
    check(ember.scatter(x.cuda(), 1, idx.cuda(), src.cuda()), ember.scatter(x, 1, idx, src), 0.0)
    check(ember.scatter(x.cuda(), 1, idx.cuda(), 3), ember.scatter(x, 1, idx, 3), 0.0)
    idx0 = ember.stack([perm(6, seed=s)[:4] for s in range(8)], 1)
    check(ember.scatter(x.cuda(), 0, idx0.cuda(), 2), ember.scatter(x, 0, idx0, 2), 0.0)
    y = x.cuda().t()  # in place through strides
    y.scatter_(0, idx.t().cuda(), src.t().cuda())
    check(y.t().contiguous(), ember.scatter(x, 1, idx, src), 0.0)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16, ember.int64,
                                   ember.int32, ember.int8], ids=str)
def test_scatter_add_with_duplicates(dtype: ember.dtype) -> None:
    x = (rand(5, 7) * 3).to(dtype)
    idx = randint(5, (9, 7), seed=10)
    src = (rand(9, 7, seed=11) * 3).to(dtype)
    check(ember.scatter_add(x.cuda(), 0, idx.cuda(), src.cuda()), ember.scatter_add(x, 0, idx, src))


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.int64, ember.int16], ids=str)
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(dtype: ember.dtype, reduce: str, include_self: bool) -> None:
    x = (rand(4, 6, seed=12) * 2).to(dtype)
    idx = randint(4, (10, 6), seed=13)
    src = (rand(10, 6, seed=14) * 2).to(dtype)
    if reduce == "prod" and dtype.is_floating_point:  # factors near 1: a product of a few stays in range
        src = (1 + rand(10, 6, seed=14) / 4).to(dtype)
    want = ember.scatter_reduce(x, 0, idx, src, reduce, include_self=include_self)
    got = ember.scatter_reduce(x.cuda(), 0, idx.cuda(), src.cuda(), reduce, include_self=include_self)
    check(got, want)


def test_scatter_reduce_nan_and_legacy_reduce() -> None:
    x = ember.tensor([[1.0, float("nan"), 3.0]])
    src = ember.tensor([[float("nan"), 5.0, 0.5]])
    idx = ember.tensor([[0, 0, 0]])
    for r in ["amax", "amin"]:
        check(ember.scatter_reduce(x.cuda(), 0, idx.cuda(), src.cuda(), r), ember.scatter_reduce(x, 0, idx, src, r))
    y, i2 = rand(3, 4), randint(3, (5, 4), seed=15)
    s2 = 1 + rand(5, 4, seed=16) / 4
    for r in ["add", "multiply"]:
        check(ember.scatter(y.cuda(), 0, i2.cuda(), s2.cuda(), reduce=r), ember.scatter(y, 0, i2, s2, reduce=r))


def test_scatter_errors() -> None:
    # the kernel skips a bad index and records it: the RuntimeError comes at the next wait
    xc = rand(3, 4)
    x = xc.cuda()
    x.scatter_(0, ember.tensor([[0, 3]]).cuda(), ember.full((1, 2), 7.0).cuda())
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 0 with size 3"):
        ember.cuda.synchronize()
    assert x.cpu()[0, 0].item() == 7.0 and bool((x.cpu()[:, 1] == xc[:, 1]).all())
    with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 1 with size 4"):
        x.scatter_add_(1, ember.tensor([[-1]]).cuda(), rand(1, 1).cuda())
        x.sum().item()


# ---- index_add / index_copy / index_fill ------------------------------------------------------


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.int64, ember.complex64], ids=str)
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("alpha", [1, 2])
def test_index_add(dtype: ember.dtype, dim: int, alpha: int) -> None:
    x = (rand(6, 5, 4) * 3).to(dtype)
    idx = ember.tensor([0, 2, 2, 4, 0, 1, 2])[: x.shape[dim] + 1]
    shape = list(x.shape)
    shape[dim] = idx.numel()
    src = (rand(*shape, seed=17) * 3).to(dtype)
    check(ember.index_add(x.cuda(), dim, idx.cuda(), src.cuda(), alpha=alpha), ember.index_add(x, dim, idx, src, alpha=alpha))


def test_index_add_errors() -> None:
    # checked in the kernel: a bad index adds nothing, the error comes at the next wait
    x = rand(3).cuda()
    x.index_add_(0, ember.tensor([3, 1]).cuda(), ember.ones(2).cuda())
    with pytest.raises(IndexError, match="index out of range in self"):
        ember.cuda.synchronize()
    check(x, rand(3) + ember.tensor([0.0, 1.0, 0.0]))
    with pytest.raises(IndexError, match="index out of range in self"):
        rand(3, 2).cuda().index_add_(0, ember.tensor([-1]).cuda(), rand(1, 2).cuda(), alpha=2).cpu()
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0 with size 3"):
        rand(3, 2).cuda().index_add_(0, ember.tensor([5]).cuda(), rand(1, 2).cuda()).cpu()


@pytest.mark.parametrize("dtype", [ember.float32, ember.int16, ember.bool, ember.complex128], ids=str)
def test_index_copy_and_fill(dtype: ember.dtype) -> None:
    x = (rand(5, 6) * 3).to(dtype)
    idx = ember.tensor([4, 0, 2])
    src = (rand(5, 3, seed=18) * 3).to(dtype)
    check(ember.index_copy(x.cuda(), 1, idx.cuda(), src.cuda()), ember.index_copy(x, 1, idx, src), 0.0)
    neg = ember.tensor([-1, 1, 1])
    check(ember.index_fill(x.cuda(), 0, neg.cuda(), 1), ember.index_fill(x, 0, neg, 1), 0.0)
    check(ember.index_fill(x.t().cuda(), 1, neg.cuda(), 0), ember.index_fill(x.t(), 1, neg, 0), 0.0)
    # the kernels check the indices: a bad one writes nothing, the error comes at the next wait
    filled = ember.index_fill(x.cuda(), 1, ember.tensor([-7, 2]).cuda(), 1)
    with pytest.raises(IndexError, match="index -7 is out of bounds for dimension 1 with size 6"):
        ember.cuda.synchronize()
    check(filled, ember.index_fill(x, 1, ember.tensor([2]), 1), 0.0)
    with pytest.raises(IndexError, match="index_copy_\\(\\): index -1 is out of bounds for dimension 1 with size 6"):
        ember.index_copy(x.cuda(), 1, ember.tensor([-1, 0, 1]).cuda(), src.cuda()).cpu()
    with pytest.raises(IndexError, match="index 6 is out of bounds for dimension 0 with size 5"):
        xe = x[:1].cuda().expand(5, 6)  # an expanded self: the indices read on the host, at once
        xe.index_fill_(0, ember.tensor([6]).cuda(), 1)


# ---- take / put_ ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [ember.float32, ember.float16, ember.int64, ember.complex64], ids=str)
def test_take_and_put(dtype: ember.dtype) -> None:
    x = (rand(4, 5) * 3).to(dtype)
    idx = ember.tensor([[0, -1, 7], [19, 3, -20]])
    check(ember.take(x.cuda(), idx.cuda()), ember.take(x, idx), 0.0)
    check(ember.take(x.t().cuda(), idx.cuda()), ember.take(x.t(), idx), 0.0)
    p = ember.tensor([0, -1, 7, 12])  # no duplicates: a plain put is deterministic
    src = (rand(4, seed=19) * 3).to(dtype)
    check(x.cuda().put_(p.cuda(), src.cuda()), x.clone().put_(p, src), 0.0)
    dup = ember.tensor([1, 1, -19, 4])  # -19 is 1 too
    check(x.cuda().put_(dup.cuda(), src.cuda(), accumulate=True), x.clone().put_(dup, src, accumulate=True))
    # the kernels check the indices: a bad take reads 0, a bad put writes nothing, the error comes
    # at the next wait
    taken = ember.take(x.cuda(), ember.tensor([20, 3]).cuda())
    with pytest.raises(IndexError, match="out of range: tried to access index 20 on a tensor of 20 elements."):
        ember.cuda.synchronize()
    check(taken, ember.stack([ember.zeros((), dtype=dtype), x.flatten()[3]]), 0.0)
    xp = x.cuda()
    xp.put_(ember.tensor([-21, 2]).cuda(), src[:2].cuda())
    with pytest.raises(IndexError, match="out of range: tried to access index -21 on a tensor of 20 elements."):
        xp.cpu()
    check(xp, x.clone().put_(ember.tensor([2]), src[1:2]), 0.0)


def test_take_backward() -> None:
    x = rand(6, 7)
    idx = randint(42, (30,), seed=20)
    xc, xd = x.clone().requires_grad_(), x.cuda().requires_grad_()
    gy = rand(30, seed=21)
    ember.take(xc, idx).backward(gy)
    ember.take(xd, idx.cuda()).backward(gy.cuda())
    check(xd.grad, xc.grad)


# ---- advanced indexing ------------------------------------------------------------------------


def test_advanced_index_get() -> None:
    x = rand(6, 7, 8)
    i = ember.tensor([[0, 5], [3, 3]])
    j = ember.tensor([1, -1])
    xd = x.cuda()
    for key in [(i,), (i, j), (slice(None), i), (i, slice(None), j), (slice(None), slice(1, 5), j)]:
        dkey = tuple(k.cuda() if isinstance(k, ember.Tensor) else k for k in key)
        check(xd[dkey], x[key], 0.0)
        check(xd.transpose(0, 2)[dkey], x.transpose(0, 2)[key], 0.0)
    check(xd[i], x[i], 0.0)  # CPU index tensors index a CUDA tensor too
    check(xd[:, j], x[:, j], 0.0)
    m = x[:, :, 0] > 0
    check(xd[m.cuda()], x[m], 0.0)
    check(xd[m], x[m], 0.0)
    # the offsets kernel checks the indices (the op does not wait): the IndexError comes at the next
    # wait, the bad positions read as 0 and never touch memory
    bad = xd[ember.tensor([0, 6, 2]).cuda()]
    with pytest.raises(IndexError, match="index 6 is out of bounds for dimension 0 with size 6"):
        bad.cpu()
    assert bad.cpu()[1].abs().sum().item() == 0 and bool((bad.cpu()[2] == x[2]).all())
    with pytest.raises(IndexError, match="index -9 is out of bounds for dimension 1 with size 7"):
        xd[:, ember.tensor([-9]).cuda()]
        ember.cuda.synchronize()
    with pytest.raises(IndexError, match="index 8 is out of bounds for dimension 1 with size 8"):
        xd[i.cuda(), 0, ember.tensor([8, 0]).cuda()].sum().item()  # the first dim's indices are fine
    empty = xd[ember.tensor([], dtype=ember.int64).cuda()]  # an empty result checks nothing
    assert empty.shape == (0, 7, 8)
    ember.cuda.synchronize()
    xp = x.cuda()
    xp[ember.tensor([1, 9]).cuda()] = 5.0  # a put skips a bad position, writes the rest
    with pytest.raises(IndexError, match="index 9 is out of bounds for dimension 0 with size 6"):
        ember.cuda.synchronize()
    assert bool((xp.cpu()[1] == 5).all()) and bool((xp.cpu()[0] == x[0]).all())


@pytest.mark.parametrize("dtype", [ember.float32, ember.float16, ember.int64, ember.bool], ids=str)
def test_advanced_index_put(dtype: ember.dtype) -> None:
    x = (rand(6, 7) * 3).to(dtype)
    i = ember.tensor([0, 5, 2])
    j = ember.tensor([1, -1, 3])
    v = (rand(3, seed=22) * 3).to(dtype)
    xd, xc = x.cuda(), x.clone()
    xd[i.cuda(), j.cuda()] = v.cuda()
    xc[i, j] = v
    check(xd, xc, 0.0)
    xd[:, j.cuda()] = 1
    xc[:, j] = 1
    check(xd, xc, 0.0)
    rows = (rand(3, 7, seed=23) * 3).to(dtype)
    check(ember.index_put(x.cuda(), (i.cuda(),), rows.cuda()), ember.index_put(x, (i,), rows), 0.0)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.int64], ids=str)
def test_advanced_index_put_accumulate(dtype: ember.dtype) -> None:
    x = (rand(5, 4) * 3).to(dtype)
    i = ember.tensor([0, 4, 0, 0, 2, -1])
    v = (rand(6, 4, seed=24) * 3).to(dtype)
    check(ember.index_put(x.cuda(), (i.cuda(),), v.cuda(), True), ember.index_put(x, (i,), v, True))
    j = ember.tensor([1, 1, 1, 3, 0, 1])
    v2 = (rand(6, seed=25) * 3).to(dtype)
    check(ember.index_put(x.cuda(), (i.cuda(), j.cuda()), v2.cuda(), True), ember.index_put(x, (i, j), v2, True))


def test_advanced_index_backward() -> None:
    x = rand(8, 9)
    i = randint(8, (20,), seed=26)
    j = randint(9, (20,), seed=27)
    xc, xd = x.clone().requires_grad_(), x.cuda().requires_grad_()
    gy = rand(20, seed=28)
    xc[i, j].backward(gy)
    xd[i.cuda(), j.cuda()].backward(gy.cuda())
    check(xd.grad, xc.grad)
    xc.grad, xd.grad = None, None
    m = x > 0
    gm = rand(int(m.sum()), seed=29)
    xc[m].backward(gm)
    xd[m.cuda()].backward(gm.cuda())
    check(xd.grad, xc.grad)


# ---- masks ------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(), (7,), (3, 4, 5), (1000, 1003)])
def test_nonzero_and_masked_select(shape: tuple[int, ...]) -> None:
    x = rand(*shape, seed=30)
    m = x > 0.3
    check(ember.nonzero(m.cuda()), ember.nonzero(m))
    check(ember.nonzero(x.cuda()), ember.nonzero(x))
    check(ember.argwhere(m.cuda()), ember.argwhere(m))
    check(ember.masked_select(x.cuda(), m.cuda()), ember.masked_select(x, m), 0.0)
    check(ember.masked_select(x.cuda(), ember.zeros_like(m).cuda()), ember.masked_select(x, ember.zeros_like(m)), 0.0)


def test_masked_select_broadcast_and_backward() -> None:
    x = rand(4, 6)
    m = rand(6, seed=31) > 0
    check(ember.masked_select(x.cuda(), m.cuda()), ember.masked_select(x, m), 0.0)
    xc, xd = x.clone().requires_grad_(), x.cuda().requires_grad_()
    gy = rand(4 * int(m.sum()), seed=32)
    ember.masked_select(xc, m).backward(gy)
    ember.masked_select(xd, m.cuda()).backward(gy.cuda())
    check(xd.grad, xc.grad)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float16, ember.int64, ember.bool, ember.complex128], ids=str)
def test_masked_fill(dtype: ember.dtype) -> None:
    x = (rand(5, 6) * 3).to(dtype)
    m = rand(5, 6, seed=33) > 0
    check(ember.masked_fill(x.cuda(), m.cuda(), 1), ember.masked_fill(x, m, 1), 0.0)
    row = m[0]
    check(ember.masked_fill(x.cuda(), row.cuda(), 0), ember.masked_fill(x, row, 0), 0.0)
    check(x.t().cuda().masked_fill_(m.t().cuda(), 1), x.t().clone().masked_fill_(m.t(), 1), 0.0)
    v = ember.tensor(1).to(dtype)
    check(ember.masked_fill(x.cuda(), m.cuda(), v.cuda()), ember.masked_fill(x, m, v), 0.0)


@pytest.mark.filterwarnings("ignore")  # PyTorch deprecates writing through an expanded self
def test_masked_fill_expanded_self() -> None:
    base = rand(1, 6)
    m = rand(4, 6, seed=34) > 0
    yd, yc = base.cuda().expand(4, 6), base.clone().expand(4, 6)
    yd.masked_fill_(m.cuda(), 2.0)
    yc.masked_fill_(m, 2.0)
    check(yd.contiguous(), yc.contiguous(), 0.0)


@pytest.mark.parametrize("n", [10, 100_000])
def test_masked_scatter(n: int) -> None:
    x = rand(n, seed=35)
    m = rand(n, seed=36) > 0
    src = rand(n, seed=37)
    check(ember.masked_scatter(x.cuda(), m.cuda(), src.cuda()), ember.masked_scatter(x, m, src), 0.0)
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        ember.masked_scatter(x.cuda(), ember.ones_like(m).cuda(), src[:1].cuda())


# ---- searchsorted / bucketize / bincount / histc ------------------------------------------------


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("out_int32", [False, True])
def test_searchsorted_and_bucketize(right: bool, out_int32: bool) -> None:
    b = ember.sort(rand(3, 50, seed=40)).values
    v = rand(3, 20, seed=41)
    v[0, 0] = float("nan")
    v[1, 1] = b[1, 5]  # a value on a boundary: right decides
    kw = {"right": right, "out_int32": out_int32}
    check(ember.searchsorted(b.cuda(), v.cuda(), **kw), ember.searchsorted(b, v, **kw))
    check(ember.searchsorted(b[0].cuda(), v.cuda(), **kw), ember.searchsorted(b[0], v, **kw))
    check(ember.bucketize(v.cuda(), b[0].cuda(), **kw), ember.bucketize(v, b[0], **kw))
    ints = randint(100, (40,), seed=42)
    bi = ember.sort(randint(100, (30,), seed=43)).values
    check(ember.searchsorted(bi.cuda(), ints.cuda(), **kw), ember.searchsorted(bi, ints, **kw))


def test_searchsorted_sorter() -> None:
    b = rand(2, 30, seed=44)
    order = ember.argsort(b)
    v = rand(2, 7, seed=45)
    check(ember.searchsorted(b.cuda(), v.cuda(), sorter=order.cuda()), ember.searchsorted(b, v, sorter=order))
    bad = order.clone()
    bad[1, 3] = 30
    with pytest.raises(RuntimeError, match="sorter index out of range"):
        ember.searchsorted(b.cuda(), v.cuda(), sorter=bad.cuda())


def test_bincount() -> None:
    x = randint(20, (500,), seed=46)
    check(ember.bincount(x.cuda()), ember.bincount(x))
    check(ember.bincount(x.cuda(), minlength=40), ember.bincount(x, minlength=40))
    for dt in [ember.float32, ember.float64, ember.float16]:
        w = rand(500, seed=47).to(dt)
        check(ember.bincount(x.cuda(), w.cuda()), ember.bincount(x, w))
    check(ember.bincount(ember.tensor([], dtype=ember.int64).cuda()), ember.bincount(ember.tensor([], dtype=ember.int64)))
    with pytest.raises(RuntimeError, match="non-negative"):
        ember.bincount(ember.tensor([1, -1]).cuda())


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16], ids=str)
def test_histc(dtype: ember.dtype) -> None:
    x = rand(2000, seed=48).to(dtype)
    check(ember.histc(x.cuda(), 17, -2, 2), ember.histc(x, 17, -2, 2), 0.0)
    check(ember.histc(x.cuda(), 10), ember.histc(x, 10), 0.0)  # the data's own range
    check(ember.histc(x.cuda(), 5, 0.5, 0.5), ember.histc(x, 5, 0.5, 0.5), 0.0)
