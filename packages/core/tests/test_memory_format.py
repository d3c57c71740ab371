"""Memory formats as PyTorch lays them out: empty / empty_like / clone / contiguous with
channels_last(_3d) give its strides, is_contiguous(memory_format=...) answers its question
(size-1 dims skipped), and the wrong rank or preserve_format raise its errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402


def outcome(m: Any, f: Callable[[Any], Any]) -> tuple:
    try:
        r = f(m)
    except Exception as e:  # noqa: BLE001 - the exception is the result under test
        return ("raise", type(e).__name__, str(e))
    if isinstance(r, (torch.Tensor, ember.Tensor)):
        return ("ok", tuple(r.shape), r.stride(), r.is_contiguous())
    return ("ok", r)


SHAPES = [(2, 3, 4, 5), (1, 3, 1, 1), (2, 1, 4, 5), (2, 0, 4, 1), (0, 3, 2, 2), (2, 3, 4, 5, 6), (2, 3, 4), (3,)]
FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


def base(m: Any, shape: tuple, layout: str) -> Any:
    x = m.arange(int(torch.Size(shape).numel()), dtype=m.float32).reshape(shape)
    if layout == "transposed" and x.dim() >= 2:
        return x.transpose(0, -1)
    if layout == "channels_last" and x.dim() in (4, 5):
        return x.permute(0, *range(2, x.dim()), 1).contiguous().permute(0, x.dim() - 1, *range(1, x.dim() - 1))
    if layout == "sliced" and x.dim() >= 3:
        return x[:, :, :1]
    return x


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("layout", ["plain", "transposed", "channels_last", "sliced"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("how", ["is_contiguous", "contiguous", "clone", "empty_like", "empty"])
def test_memory_format_matches_torch(how: str, shape: tuple, layout: str, fmt: str) -> None:
    def f(m: Any) -> Any:
        x, mf = base(m, shape, layout), getattr(m, fmt)
        if how == "empty":
            return m.empty(*shape, memory_format=mf) if layout == "plain" else None
        if how == "empty_like":
            return m.empty_like(x, memory_format=mf)
        if how == "clone":
            return x.clone(memory_format=mf)
        if how == "contiguous":
            r = x.contiguous(memory_format=mf)
            return (r is x, outcome(m, lambda _: r))
        return x.is_contiguous(memory_format=mf)

    got, want = outcome(ember, f), outcome(torch, f)
    if want[0] == "raise":
        assert got[:2] == want[:2] and got[2] == want[2], (got, want)
    else:
        assert got == want, (got, want)


def test_contiguous_channels_last_keeps_values_and_grad() -> None:
    x = ember.randn(2, 3, 4, 5, requires_grad=True)
    y = x.contiguous(memory_format=ember.channels_last)
    assert y.stride() == (60, 1, 15, 3) and ember.equal(y, x)
    (y * ember.arange(5.0)).sum().backward()
    assert ember.equal(x.grad, ember.arange(5.0).expand(2, 3, 4, 5))
