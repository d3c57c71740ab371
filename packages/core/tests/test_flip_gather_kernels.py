"""flip's strided-gather kernel (one copy loop per element size: plain rows, reversed rows,
strided rows) and gather's contiguous-row path (the whole row prefetched when the picks cover
it), against PyTorch 2.13 over every element size, layouts and shapes that pick each branch."""

from __future__ import annotations

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int16", "float16", "bfloat16", "float32", "int64", "float64", "complex128"]


def pair(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = np.asarray(rng.standard_normal(shape) * 50)
    if dtype == "complex128":
        a = np.asarray(a + 1j * rng.standard_normal(shape))
    t = torch.from_numpy(a).to(getattr(torch, dtype))
    return ember.from_numpy(t.numpy() if dtype != "bfloat16" else t.float().numpy()).to(getattr(ember, dtype)), t


def same(e, t):
    assert tuple(e.shape) == tuple(t.shape) and str(e.dtype) == str(t.dtype)
    if t.dtype == torch.bfloat16:
        e, t = e.float(), t.float()
    assert e.tolist() == t.tolist()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dims", [
    ((7,), [0]), ((3, 37), [1]), ((3, 37), [0]), ((3, 37), [0, 1]), ((2, 3, 33), [2]), ((2, 3, 33), [0, 2]),
    ((4, 1), [1]), ((1, 65), [-1]), ((0, 5), [1]), ((), []), ((2, 2, 2, 2, 2, 3), [1, 5]),
])
def test_flip_matches_torch(dtype, shape, dims):
    e, t = pair(shape, dtype)
    same(ember.flip(e, dims), torch.flip(t, dims))


@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64", "complex128"])
@pytest.mark.parametrize("view", [
    lambda x: x.t(), lambda x: x[:, ::3], lambda x: x[::2, 1:], lambda x: x.flip(1), lambda x: x[:1].expand(5, 40),
])
def test_flip_of_strided_views(dtype, view):
    e, t = pair((5, 40), dtype, seed=1)
    for dims in ([0], [1], [0, 1]):
        same(ember.flip(view(e), dims), torch.flip(view(t), dims))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int16", "uint8"])
@pytest.mark.parametrize("rows,cols,picks", [(64, 1024, 256), (8, 1024, 16), (5, 4096, 4096), (3, 7, 9)])
def test_gather_rows_matches_torch(dtype, rows, cols, picks):
    e, t = pair((rows, cols), dtype, seed=2)
    idx = np.random.default_rng(3).integers(0, cols, (rows, picks))
    same(ember.gather(e, 1, ember.from_numpy(idx)), torch.gather(t, 1, torch.from_numpy(idx)))
    same(ember.gather(e.t(), 0, ember.from_numpy(idx.T.copy()) % rows),
         torch.gather(t.t(), 0, torch.from_numpy(idx.T.copy()) % rows))


def test_gather_out_of_range_still_raises():
    e, t = pair((4, 1024), "float32")
    idx = np.random.default_rng(4).integers(0, 1024, (4, 256))
    idx[2, 100] = 1024
    with pytest.raises(RuntimeError) as ee:
        ember.gather(e, 1, ember.from_numpy(idx))
    with pytest.raises(RuntimeError) as te:
        torch.gather(t, 1, torch.from_numpy(idx))
    assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("shape,dim", [((3, 1), 0), ((2, 3, 1), 1), ((2, 3, 1), 0), ((4, 1, 1), 0)])
def test_gather_along_another_dim_when_the_last_has_size_one(shape, dim):
    # a size-1 last dim has unit strides too: the last-dim fast path must check the dim itself
    e, t = pair(shape, "float64", seed=5)
    idx = np.random.default_rng(6).integers(0, shape[dim], shape)
    same(ember.gather(e, dim, ember.from_numpy(idx)), torch.gather(t, dim, torch.from_numpy(idx)))
    expanded = np.broadcast_to(idx[..., :1], shape)  # lu_solve's expanded permutation index
    same(ember.gather(e, dim, ember.from_numpy(expanded.copy()).expand(*shape)),
         torch.gather(t, dim, torch.from_numpy(expanded.copy()).expand(*shape)))
