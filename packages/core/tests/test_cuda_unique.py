"""unique / unique_consecutive on a GPU (issue 24): elements and slices along a dim, every output,
compared with the same calls on the CPU. The device composes its groups from sort, comparisons and
scans (ops/index/index_unique.cpp). Run by the GPU script (tools/gpu_check.sh) with a CUDA build;
skipped elsewhere."""

from __future__ import annotations

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")


def same(got: tuple[ember.Tensor, ...] | ember.Tensor, want: tuple[ember.Tensor, ...] | ember.Tensor) -> None:
    got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.device.type == "cuda" and g.dtype == w.dtype and g.shape == w.shape, (g, w)
        gc = g.cpu()
        assert bool(((gc == w) | (gc.isnan() & w.isnan()) if w.dtype.is_floating_point else gc == w).all()), (g, w)


def samples() -> list[ember.Tensor]:
    g = ember.Generator().manual_seed(4)
    ints = ember.randint(-20, 20, (7, 300), generator=g)
    floats = (ember.randn(500, generator=g) * 4).round() / 2
    floats[[3, 77, 400]] = float("nan")
    return [ints, ints.to(ember.uint8), ints.to(ember.int16), ints > 3, floats, floats.half(), ints.to(ember.uint16),
            ember.tensor(5.0), ember.empty(0), ember.full((4, 6), 2), ints.t()]


@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("counts", [False, True])
def test_unique_elements(inverse: bool, counts: bool) -> None:
    for x in samples():
        same(ember.unique(x.cuda(), return_inverse=inverse, return_counts=counts),
             ember.unique(x, return_inverse=inverse, return_counts=counts))
        same(ember.unique_consecutive(x.cuda(), return_inverse=inverse, return_counts=counts),
             ember.unique_consecutive(x, return_inverse=inverse, return_counts=counts))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_slices(dim: int) -> None:
    g = ember.Generator().manual_seed(8)
    base = ember.randint(0, 3, (40, 3), generator=g)
    rows = ember.cat([base, base[:17], base.flip(0)])  # repeated rows, out of order
    for x in (rows, rows.t().contiguous(), rows.to(ember.float32), rows[:96].reshape(16, 6, 3)[:, ::2]):
        if dim >= x.dim():
            continue
        same(ember.unique(x.cuda(), dim=dim, return_inverse=True, return_counts=True),
             ember.unique(x, dim=dim, return_inverse=True, return_counts=True))
        same(ember.unique_consecutive(x.cuda(), dim=dim, return_inverse=True, return_counts=True),
             ember.unique_consecutive(x, dim=dim, return_inverse=True, return_counts=True))
    for x, d in ((ember.empty(0, 4, dtype=ember.int64), 0), (ember.empty(3, 0), 1)):  # no slices
        same(ember.unique(x.cuda(), dim=d, return_inverse=True, return_counts=True),
             ember.unique(x, dim=d, return_inverse=True, return_counts=True))


def test_unique_errors_match_the_cpu() -> None:
    for x, dim, message in ((ember.zeros(2, 0, 3), 2, "aren't selected"), (ember.zeros(2, 0, 0), 1, "more than one")):
        for d in (x, x.cuda()):
            with pytest.raises(RuntimeError, match=message):
                ember.unique(d, dim=dim)
    with pytest.raises(IndexError):
        ember.unique(ember.tensor(1.0).cuda(), dim=0)
