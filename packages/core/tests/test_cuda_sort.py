"""sort / argsort / msort, topk and kthvalue / median / nanmedian / mode on a GPU (issue 24),
compared with the same calls on the CPU: values, dtypes and indices (the GPU's sort is stable, as
the CPU's), NaN ordered as the largest value, rows longer than a shared-memory tile (merge
passes), non-contiguous inputs, empty tensors and gradients. Run by the GPU script
(tools/gpu_check.sh) with a CUDA build; skipped elsewhere."""

from __future__ import annotations

from typing import Any

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")

FLOATS = [ember.float16, ember.bfloat16, ember.float32, ember.float64]
INTS = [ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64]


def same(got: ember.Tensor, want: ember.Tensor) -> None:
    """got (on the GPU) equals want (NaN matching NaN), dtype and shape included."""
    assert got.device.type == "cuda", got.device
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    g = got.cpu()
    ok = g == want
    if want.is_floating_point():
        ok = ok | (g.isnan() & want.isnan())
    assert bool(ok.all()), f"mismatch:\n{g}\n{want}"


def sample(dtype: ember.dtype, shape: tuple[int, ...], seed: int = 0, spread: int = 8) -> ember.Tensor:
    """Values with many ties; floating ones with NaNs, infinities and signed zeros."""
    g = ember.Generator().manual_seed(seed)
    if dtype == ember.bool:
        return ember.randint(0, 2, shape, generator=g).bool()
    if dtype in INTS:
        lo = 0 if dtype == ember.uint8 else -spread
        return ember.randint(lo, spread, shape, generator=g).to(dtype)
    x = ember.randint(-spread, spread, shape, generator=g).double() / 2
    flat = x.view(-1)
    n = x.numel()
    if n > 8:
        for i, v in [(1, float("nan")), (n // 3, float("inf")), (n // 2, float("nan")), (n - 3, float("-inf")),
                     (n - 2, -0.0), (2, 0.0)]:
            flat[i] = v
    return x.to(dtype)


def both(fn: Any, x: ember.Tensor) -> tuple[Any, Any]:
    return fn(x), fn(x.cuda())


def same_pair(got: Any, want: Any) -> None:
    same(got[0], want[0])
    same(got[1], want[1])


# ---- sort ----


@pytest.mark.parametrize("dtype", [ember.bool, *INTS, *FLOATS, ember.uint16, ember.uint32, ember.uint64], ids=str)
@pytest.mark.parametrize("n", [1, 5, 64, 1000, 4096, 5000, 20000])
def test_sort_rows(dtype: ember.dtype, n: int) -> None:
    rows = 3 if n <= 5000 else 1
    x = sample(dtype, (rows, n), n) if dtype not in (ember.uint16, ember.uint32, ember.uint64) else \
        sample(ember.uint8, (rows, n), n).to(dtype)
    for descending in (False, True):
        want, got = both(lambda t: tuple(ember.sort(t, dim=-1, descending=descending)), x)
        same_pair(got, want)  # stable on both: tied values keep their index order


@pytest.mark.parametrize("dtype", [ember.int32, ember.float16, ember.float32], ids=str)
def test_sort_dims_layouts_and_forms(dtype: ember.dtype) -> None:
    x = sample(dtype, (6, 70, 5), 3)
    for dim in (0, 1, 2, -1):
        for descending in (False, True):
            same_pair(ember.sort(x.cuda(), dim, descending), ember.sort(x, dim, descending))
            same_pair(ember.sort(x.cuda().transpose(0, 2), stable=True, dim=dim, descending=descending),
                      ember.sort(x.transpose(0, 2), stable=True, dim=dim, descending=descending))
            same(ember.argsort(x.cuda(), dim, descending), ember.argsort(x, dim, descending))
    same(ember.msort(x.cuda()), ember.msort(x))
    same(ember.sort(x.cuda()[:, ::3, 1], 1).values, ember.sort(x[:, ::3, 1], 1).values)
    v, i = ember.empty(0, dtype=dtype, device="cuda"), ember.empty(0, dtype=ember.int64, device="cuda")
    ember.sort(x.cuda(), 1, out=(v, i))
    same_pair((v, i), ember.sort(x, 1))


def test_sort_edges() -> None:
    same_pair(ember.sort(ember.tensor(2.5, device="cuda")), ember.sort(ember.tensor(2.5)))
    same_pair(ember.sort(ember.empty(3, 0, device="cuda"), 1), ember.sort(ember.empty(3, 0), 1))
    same_pair(ember.sort(ember.empty(0, 4, device="cuda"), 1), ember.sort(ember.empty(0, 4), 1))
    nan, inf = float("nan"), float("inf")
    x = ember.tensor([nan, 1.0, -0.0, inf, 0.0, nan, -inf, 1.0, -0.0])
    for d in (False, True):
        same_pair(ember.sort(x.cuda(), descending=d), ember.sort(x, descending=d))
    with pytest.raises(RuntimeError, match="(?i)complex"):
        ember.sort(ember.zeros(3, dtype=ember.complex64, device="cuda"))
    many = ember.randn(2000, 33, generator=ember.Generator().manual_seed(1))  # many short rows
    same_pair(ember.sort(many.cuda(), 1), ember.sort(many, 1))


def test_sort_gradient() -> None:
    x = ember.randn(4, 300, generator=ember.Generator().manual_seed(2), dtype=ember.float64)
    w = ember.randn(4, 300, generator=ember.Generator().manual_seed(3), dtype=ember.float64)
    out = []
    for dev in ("cpu", "cuda"):
        xd = x.detach().clone().to(dev).requires_grad_()
        v = ember.sort(xd, 1, descending=True).values
        (v * w.to(dev)).sum().backward()
        out.append(xd.grad)
    same(out[1], out[0])


# ---- topk ----


@pytest.mark.parametrize("dtype", [*INTS, *FLOATS], ids=str)
@pytest.mark.parametrize("n,k", [(1, 1), (10, 3), (100, 100), (5000, 7), (9000, 4500)])
def test_topk(dtype: ember.dtype, n: int, k: int) -> None:
    x = sample(dtype, (3, n), n, spread=1000)
    for largest in (True, False):
        (wv, wi), (gv, gi) = both(lambda t: tuple(ember.topk(t, k, 1, largest, True)), x)
        same(gv, wv)  # the values are the CPU's; the indices point at them (ties may pick others)
        assert gi.dtype == ember.int64 and tuple(gi.shape) == tuple(wi.shape)
        same(_take(x, gi.cpu()).cuda(), wv)
        assert bool((gi.cpu().sort(1).values[:, 1:] != gi.cpu().sort(1).values[:, :-1]).all())  # distinct
        gv2 = ember.topk(x.cuda(), k, 1, largest, sorted=False).values
        same(gv2.sort(1, descending=largest).values, wv)


def _take(x: ember.Tensor, idx: ember.Tensor) -> ember.Tensor:
    """x's values at idx along dim 1, on the CPU."""
    return ember.gather(x, 1, idx)


def test_topk_distinct_values_match_indices() -> None:
    g = ember.Generator().manual_seed(5)
    x = ember.randperm(6000, generator=g).reshape(2, 3000).float()
    for largest in (True, False):
        same_pair(ember.topk(x.cuda(), 50, largest=largest), ember.topk(x, 50, largest=largest))
        same_pair(ember.topk(x.cuda().t(), 3, 0, largest), ember.topk(x.t(), 3, 0, largest))


def test_topk_edges_and_gradient() -> None:
    nan = float("nan")
    x = ember.tensor([[1.0, nan, 3.0, nan, -1.0, 2.0]])
    same_pair(ember.topk(x.cuda(), 3), ember.topk(x, 3))
    same(ember.topk(x.cuda(), 2, largest=False).values, ember.topk(x, 2, largest=False).values)
    same_pair(ember.topk(ember.tensor(4.0, device="cuda"), 1), ember.topk(ember.tensor(4.0), 1))
    same_pair(ember.topk(x.cuda(), 0), ember.topk(x, 0))
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        ember.topk(x.cuda(), 7)
    xs = ember.randn(3, 40, generator=ember.Generator().manual_seed(6), dtype=ember.float64)
    out = []
    for dev in ("cpu", "cuda"):
        xd = xs.detach().clone().to(dev).requires_grad_()
        v = ember.topk(xd, 5, 1).values
        (v * ember.arange(15.0, dtype=ember.float64).reshape(3, 5).to(dev)).sum().backward()
        out.append(xd.grad)
    same(out[1], out[0])


# ---- kthvalue / median / nanmedian / mode ----


@pytest.mark.parametrize("dtype", [*INTS, *FLOATS], ids=str)
@pytest.mark.parametrize("n", [1, 2, 7, 100, 5000])
def test_kthvalue_median_nanmedian(dtype: ember.dtype, n: int) -> None:
    x = sample(dtype, (4, n), n + 1)
    for k in sorted({1, (n + 1) // 2, n}):
        same_pair(ember.kthvalue(x.cuda(), k, 1), ember.kthvalue(x, k, 1))  # the CPU's quickselect: its indices
        same_pair(ember.kthvalue(x.cuda(), k, 1, True), ember.kthvalue(x, k, 1, True))
    same_pair(ember.median(x.cuda(), 1), ember.median(x, 1))
    same_pair(ember.nanmedian(x.cuda(), 1, True), ember.nanmedian(x, 1, True))
    same(ember.median(x.cuda()), ember.median(x))
    same(ember.nanmedian(x.cuda()), ember.nanmedian(x))
    same_pair(ember.median(x.cuda().t(), 0), ember.median(x.t(), 0))


@pytest.mark.parametrize("dtype", [ember.int32, ember.float32], ids=str)
def test_kthvalue_few_long_rows(dtype: ember.dtype) -> None:
    # rows past 32768 elements, when few, take the k-th of the parallel sort: the CPU's value, and
    # an index holding it (among ties, the stable order's)
    x = sample(dtype, (3, 70_000), 5)
    for k in (1, 12_345, 70_000):
        (wv, _), (gv, gi) = both(lambda t, k=k: tuple(ember.kthvalue(t, k, 1)), x)
        same(gv, wv)
        held = _take(x, gi.cpu().unsqueeze(1)).squeeze(1)
        assert bool(((held == wv) | (held.isnan() & wv.isnan())).all())
    v, i = ember.kthvalue(x[0].cuda(), 35_000)
    assert v.cpu() == ember.kthvalue(x[0], 35_000).values and x[0][i.cpu()] == v.cpu()


def test_median_nan_rows() -> None:
    nan = float("nan")
    x = ember.tensor([[1.0, nan, 2.0, nan], [nan, nan, nan, nan], [3.0, 1.0, 2.0, 2.0]])
    same_pair(ember.median(x.cuda(), 1), ember.median(x, 1))
    same_pair(ember.nanmedian(x.cuda(), 1), ember.nanmedian(x, 1))
    same_pair(ember.kthvalue(x.cuda(), 2, 1), ember.kthvalue(x, 2, 1))


@pytest.mark.parametrize("dtype", [ember.bool, *INTS, *FLOATS], ids=str)
def test_mode(dtype: ember.dtype) -> None:
    x = sample(dtype, (5, 300), 7) if dtype in (ember.bool, *INTS) else sample(ember.int8, (5, 300), 7).to(dtype)
    (wv, wi), (gv, gi) = both(lambda t: tuple(ember.mode(t, 1)), x)
    same(gv, wv)
    assert bool((_take(x, gi.cpu().unsqueeze(1)).squeeze(1) == wv).all())  # an index of the mode
    (wv, wi), (gv, gi) = both(lambda t: tuple(ember.mode(t, 0, True)), x)
    same(gv, wv)
    assert bool((ember.gather(x, 0, gi.cpu()) == wv).all())


def test_select_edges_and_errors() -> None:
    same_pair(ember.kthvalue(ember.tensor(3.0, device="cuda"), 1), ember.kthvalue(ember.tensor(3.0), 1))
    same_pair(ember.median(ember.empty(0, 3, device="cuda"), 1), ember.median(ember.empty(0, 3), 1))
    with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
        ember.median(ember.empty(3, 0, device="cuda"), 1)
    with pytest.raises(RuntimeError, match="selected number k out of range"):
        ember.kthvalue(ember.zeros(2, 3, device="cuda"), 4, 1)
    assert bool(ember.median(ember.empty(0, device="cuda")).cpu().isnan())


def test_kthvalue_median_gradients() -> None:
    x = ember.randn(3, 11, generator=ember.Generator().manual_seed(8), dtype=ember.float64)
    for f in (lambda t: ember.kthvalue(t, 4, 1).values, lambda t: ember.median(t, 0).values):
        out = []
        for dev in ("cpu", "cuda"):
            xd = x.detach().clone().to(dev).requires_grad_()
            (f(xd) * 3).sum().backward()
            out.append(xd.grad)
        same(out[1], out[0])
