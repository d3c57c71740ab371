"""The store-loop fast paths of fill_ and copy_ (a contiguous destination filled from one value:
a scalar, a fully expanded source, or an expanded innermost dim) give PyTorch's results and
errors, including a source that aliases the destination."""

from __future__ import annotations

import os
import subprocess
import sys

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int8", "bool", "float16", "bfloat16"])
def test_fill_and_zero(dtype: str) -> None:
    for value in (0, 1, -0.0 if dtype.startswith(("float", "bfloat")) else 0):
        e = ember.empty(3, 5, dtype=getattr(ember, dtype)).fill_(value)
        t = torch.empty(3, 5, dtype=getattr(torch, dtype)).fill_(value)
        assert e.tolist() == t.tolist()
    assert ember.zeros(7, dtype=getattr(ember, dtype)).tolist() == torch.zeros(7, dtype=getattr(torch, dtype)).tolist()


def test_negative_zero_keeps_its_sign() -> None:
    assert np.signbit(ember.empty(4).fill_(-0.0).numpy()).all()


@pytest.mark.parametrize("src_shape, dst_shape", [((), (4, 3)), ((1,), (4, 3)), ((1, 1), (4, 3)), ((4, 1), (4, 3)),
                                                  ((3,), (4, 3))])
def test_broadcast_copy_matches_torch(src_shape: tuple, dst_shape: tuple) -> None:
    src = np.arange(int(np.prod(src_shape)) or 1, dtype=np.float32).reshape(src_shape) + 2
    e, t = ember.zeros(dst_shape), torch.zeros(dst_shape)
    e.copy_(ember.tensor(src))
    t.copy_(torch.tensor(src))
    assert e.tolist() == t.tolist()
    ex = ember.tensor(src).expand(dst_shape).contiguous()
    assert ex.tolist() == torch.tensor(src).expand(dst_shape).contiguous().tolist()


def test_shape_errors_kept() -> None:
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        ember.zeros(()).copy_(ember.ones(1))
    with pytest.raises(RuntimeError):
        ember.zeros(4).copy_(ember.ones(1).expand(3))


def test_aliasing_source() -> None:
    x = ember.arange(12.0).reshape(3, 4)
    x.copy_(x[1, 2].expand(3, 4))
    assert x.tolist() == [[6.0] * 4] * 3
    y = ember.arange(12.0).reshape(3, 4)
    y.copy_(y[:, :1].expand(3, 4))
    assert y.tolist() == [[0.0] * 4, [4.0] * 4, [8.0] * 4]


def test_dtype_change_takes_the_cast() -> None:
    e = ember.zeros(2, 3, dtype=ember.int32)
    e.copy_(ember.tensor(2.7).expand(2, 3))
    assert e.tolist() == [[2] * 3] * 2


TILE_DTYPES = ["float32", "float64", "int8", "int16", "int32", "int64", "bfloat16", "bool", "complex64", "complex128"]


@pytest.mark.parametrize("dtype", TILE_DTYPES)
@pytest.mark.parametrize(("shape", "perm"), [((300, 257), (1, 0)), ((3, 70, 90), (0, 2, 1)), ((70, 3, 90), (2, 1, 0)),
                                             ((5, 64, 33, 2), (0, 2, 1, 3)), ((9, 130, 40), (2, 0, 1))])
def test_transposing_copy_in_tiles(dtype: str, shape: tuple, perm: tuple) -> None:
    """Copies whose source is strided along the destination's inner dim (the tiled path, with
    partial tiles at the edges, and batch dims around the tile plane) keep every value in place."""
    src = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) % 127
    e = ember.tensor(src.tolist(), dtype=getattr(ember, dtype)).permute(*perm).contiguous()
    t = torch.tensor(src.tolist(), dtype=getattr(torch, dtype)).permute(*perm).contiguous()
    assert e.is_contiguous() and tuple(e.shape) == tuple(t.shape)
    assert e.tolist() == t.tolist()
    dst = ember.zeros(tuple(t.shape), dtype=getattr(ember, dtype))
    dst[...] = ember.tensor(src.tolist(), dtype=getattr(ember, dtype)).permute(*perm)  # copy_ into a slice
    assert dst.tolist() == t.tolist()


@pytest.mark.parametrize("dtype", TILE_DTYPES)
def test_transposing_copy_of_sliced_and_flipped_sources(dtype: str) -> None:
    """The in-register transposes (transpose_tile.cpp) read rows at the source's own stride, of
    either sign: a sliced source (rows longer than the tile plane) and a flipped one."""
    src = np.arange(97 * 83, dtype=np.int64).reshape(97, 83) % 127
    e = ember.tensor(src.tolist(), dtype=getattr(ember, dtype))
    t = torch.tensor(src.tolist(), dtype=getattr(torch, dtype))
    for fe, ft in [(lambda x: x[3:90, 5:77].t(), lambda x: x[3:90, 5:77].t()),
                   (lambda x: x.flip(0).t(), lambda x: x.flip(0).t()),
                   (lambda x: x.flip(1)[::2].t(), lambda x: x.flip(1)[::2].t())]:
        assert fe(e).contiguous().tolist() == ft(t).contiguous().tolist()


def _inproc_tiles() -> None:
    for dtype in TILE_DTYPES:
        for shape, perm in [((300, 257), (1, 0)), ((70, 3, 90), (2, 1, 0))]:
            test_transposing_copy_in_tiles(dtype, shape, perm)
        test_transposing_copy_of_sliced_and_flipped_sources(dtype)


@pytest.mark.parametrize("cap", ["default", "avx2"])
def test_transposing_copy_on_narrower_kernels(cap: str) -> None:
    """The SSE and AVX2 block transposes (a no-op cap where the CPU lacks the wider ones)."""
    env = {**os.environ, "EMBER_CPU_CAPABILITY": cap}
    code = "import test_copy_fill as t; t._inproc_tiles()"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600,
                       cwd=os.path.dirname(__file__))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
