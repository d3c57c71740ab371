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


# nn ops on a channels-last batch: the result's strides as torch's (aten keeps the layout where its
# kernels run on it, so a channels-last network stays channels-last).
CL_OPS = {
    "group_norm": lambda L, x: L.nn.functional.group_norm(x, 2, L.ones(4), L.zeros(4)),
    "group_norm_c1": lambda L, x: L.nn.functional.group_norm(x[:, :1], 1),
    "group_norm_3d": lambda L, x: L.nn.functional.group_norm(
        x.unsqueeze(2).contiguous(memory_format=L.channels_last_3d), 2),
    "batch_norm": lambda L, x: L.nn.functional.batch_norm(x, None, None, training=True),
    "conv2d": lambda L, x: L.nn.functional.conv2d(x, L.ones(3, 4, 3, 3), padding=1),
    "relu": lambda L, x: L.relu(x),
    "add": lambda L, x: x + 1,
    "max_pool2d": lambda L, x: L.nn.functional.max_pool2d(x, 2),
    "avg_pool2d": lambda L, x: L.nn.functional.avg_pool2d(x, 2),
    "adaptive_avg_pool2d": lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, 1),
    "interpolate_nearest": lambda L, x: L.nn.functional.interpolate(x, scale_factor=2),
    "interpolate_bilinear": lambda L, x: L.nn.functional.interpolate(x, scale_factor=2, mode="bilinear"),
    "interpolate_bicubic": lambda L, x: L.nn.functional.interpolate(x, size=(5, 7), mode="bicubic"),
    "interpolate_trilinear": lambda L, x: L.nn.functional.interpolate(_cl3d(L, x), scale_factor=2, mode="trilinear"),
    "conv2d_weight_cl": lambda L, x: L.nn.functional.conv2d(
        x.contiguous(), L.ones(3, 4, 3, 3).contiguous(memory_format=L.channels_last)),
    "conv_transpose2d": lambda L, x: L.nn.functional.conv_transpose2d(x, L.ones(4, 3, 3, 3), stride=2),
    "conv3d": lambda L, x: L.nn.functional.conv3d(_cl3d(L, x), L.ones(2, 4, 1, 3, 3)),
    "max_pool3d": lambda L, x: L.nn.functional.max_pool3d(_cl3d(L, x), (1, 2, 2)),
    "avg_pool3d": lambda L, x: L.nn.functional.avg_pool3d(_cl3d(L, x), (1, 2, 2)),
    "adaptive_max_pool2d": lambda L, x: L.nn.functional.adaptive_max_pool2d(x, 3),
    "adaptive_avg_pool2d_3": lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, 3),
    "max_pool2d_indices": lambda L, x: L.nn.functional.max_pool2d(x, 2, return_indices=True)[1].float() + x[:, :, :3, :3],
    "instance_norm": lambda L, x: L.nn.functional.instance_norm(x),
    "layer_norm": lambda L, x: L.nn.functional.layer_norm(x, (6, 6)),
    "pixel_shuffle": lambda L, x: L.nn.functional.pixel_shuffle(x, 2),
    "pixel_unshuffle": lambda L, x: L.nn.functional.pixel_unshuffle(x, 2),
    "channel_shuffle": lambda L, x: L.nn.functional.channel_shuffle(x, 2),
    "pad_constant": lambda L, x: L.nn.functional.pad(x, (1, 2, 0, 1), value=3.0),
    "pad_reflect": lambda L, x: L.nn.functional.pad(x, (1, 2, 0, 1), mode="reflect"),
    "pad_replicate": lambda L, x: L.nn.functional.pad(x, (1, 2, 0, 1), mode="replicate"),
    "max_unpool2d": lambda L, x: L.nn.functional.max_unpool2d(*L.nn.functional.max_pool2d(x, 2, return_indices=True), 2),
    "cat": lambda L, x: L.cat([x, x], 1),
    "softmax_dim1": lambda L, x: L.softmax(x, 1),
    "lp_pool2d": lambda L, x: L.nn.functional.lp_pool2d(x, 2, 2),
    "adaptive_avg_pool3d": lambda L, x: L.nn.functional.adaptive_avg_pool3d(_cl3d(L, x), 2),
    "adaptive_max_pool3d": lambda L, x: L.nn.functional.adaptive_max_pool3d(_cl3d(L, x), 2),
    "interpolate_nearest3d": lambda L, x: L.nn.functional.interpolate(_cl3d(L, x), scale_factor=2),
}


def _cl3d(L: Any, x: Any) -> Any:
    return x.unsqueeze(2).expand(2, 4, 2, 6, 6).contiguous(memory_format=L.channels_last_3d)


# Deliberately contiguous where aten's result is channels-last: ember's convolution and norm
# kernels compute in NC*, and converting each result back to channels-last (and the next layer's
# input in again) made a channels-last network twice as slow (docs/coming_from_pytorch.rst).
NC_RESULTS = {"group_norm", "group_norm_c1", "group_norm_3d", "batch_norm", "conv2d", "conv2d_weight_cl",
              "conv_transpose2d", "conv3d", "instance_norm"}


def _cl_run(L: Any, op: str) -> tuple[Any, Any]:
    x = L.arange(2 * 4 * 6 * 6, dtype=L.float32).reshape(2, 4, 6, 6).contiguous(memory_format=L.channels_last)
    y = CL_OPS[op](L, x.requires_grad_())
    y.sum().backward()
    return x, y


@pytest.mark.parametrize("op", [op for op in CL_OPS if op not in NC_RESULTS])
def test_nn_ops_keep_channels_last_as_torch(op: str) -> None:
    got = []
    for L in (ember, torch):
        x, y = _cl_run(L, op)
        got.append((y.shape, y.stride(), x.grad.stride()))
    assert got[0] == got[1]


@pytest.mark.parametrize("op", sorted(NC_RESULTS))
def test_conv_and_norm_results_are_contiguous(op: str) -> None:
    (ex, ey), (tx, ty) = _cl_run(ember, op), _cl_run(torch, op)
    assert ey.is_contiguous()  # the one difference, on purpose (torch's is channels-last)
    assert ex.grad.stride() == tx.grad.stride()  # a leaf's gradient takes its layout either way
    assert torch.allclose(torch.from_numpy(ey.detach().numpy()), ty.detach(), rtol=1e-4, atol=1e-3)


# Layouts suggest_memory_format reads differently from "is_contiguous(channels_last)": size-1 dims
# (both formats at once), a permuted non-channels-last tensor, and channels-last with one batch.
AMBIGUOUS = {
    "c1_contiguous": lambda L: L.arange(32.0).reshape(2, 1, 4, 4),
    "c1_channels_last": lambda L: L.arange(32.0).reshape(2, 1, 4, 4).contiguous(memory_format=L.channels_last),
    "n1_channels_last": lambda L: L.arange(48.0).reshape(1, 3, 4, 4).contiguous(memory_format=L.channels_last),
    "hw_permuted": lambda L: L.arange(96.0).reshape(2, 3, 4, 4).permute(0, 1, 3, 2),
    "w1_channels_last": lambda L: L.arange(24.0).reshape(2, 3, 4, 1).contiguous(memory_format=L.channels_last),
}
COMPOSED_OPS = {  # ops ember composes in Python from views and copies
    "channel_shuffle_1": lambda L, x: L.nn.functional.channel_shuffle(x, 1),
    "channel_shuffle_c": lambda L, x: L.nn.functional.channel_shuffle(x, x.shape[1]),
    "pad_reflect": lambda L, x: L.nn.functional.pad(x, (0, 0, 1, 1), mode="reflect"),
    "pad_replicate": lambda L, x: L.nn.functional.pad(x, (1, 1, 1, 1), mode="replicate"),
}


@pytest.mark.parametrize("layout", sorted(AMBIGUOUS))
@pytest.mark.parametrize("op", sorted(COMPOSED_OPS))
def test_composed_ops_allocate_as_aten(op: str, layout: str) -> None:
    got = []
    for L in (ember, torch):
        x = AMBIGUOUS[layout](L)
        y = COMPOSED_OPS[op](L, x)
        assert y.data_ptr() != x.data_ptr()  # a fresh result, never an alias of the input
        got.append((y.shape, y.stride(), y.flatten().tolist()))
    assert got[0] == got[1]
