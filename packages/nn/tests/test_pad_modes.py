"""reflection_pad{1,2,3}d / replication_pad{1,2,3}d (ember._nn, under F.pad's reflect and replicate
modes on the CPU): values, layouts, gradients, node names and aten's errors against PyTorch."""

from __future__ import annotations

import itertools
import random
import zlib

import ember
import ember.nn.functional as EF
import pytest
from _nn_testutil import ember_of, float64_of, same_error

torch = pytest.importorskip("torch")
TF = torch.nn.functional

OPS = [f"{m}_pad{k}d" for m in ("reflection", "replication") for k in (1, 2, 3)]


def k_of(name: str) -> int:
    return int(name[-2])


def random_pads(rng: random.Random, name: str, spatial: tuple) -> list:
    """Pads aten accepts for these spatial sizes (W first), crops included."""
    pads = []
    for n in reversed(spatial):
        hi = n - 1 if name.startswith("reflection") else n + 3
        lo = -((n - 1) // 2)  # crops that leave something
        pads += [rng.randint(lo, hi), rng.randint(lo, hi)]
    return pads


def layouts(x: torch.Tensor) -> dict:
    out = {"contiguous": x, "sliced": x[..., ::1][:, :].clone()[..., :]}
    out["transposed"] = x.transpose(-1, -2).contiguous().transpose(-1, -2)
    out["offset"] = torch.cat([x.flatten()[:1], x.flatten()]).narrow(0, 1, x.numel()).view(x.shape)
    if x.dim() == 4:
        out["channels_last"] = x.contiguous(memory_format=torch.channels_last)
    if x.dim() == 5:
        out["channels_last_3d"] = x.contiguous(memory_format=torch.channels_last_3d)
    return out


def ember_like(t: torch.Tensor) -> ember.Tensor:
    """t's values in ember with t's strides (ember_of gives a contiguous copy)."""
    base = ember_of(t.contiguous())
    return ember.empty_strided(tuple(t.shape), t.stride(), dtype=base.dtype).copy_(base)


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bfloat16", "complex64"])
def test_forward_values_and_layout(name: str, batched: bool, dtype: str) -> None:
    rng = random.Random(zlib.crc32(f"{name}{batched}{dtype}".encode()))
    k = k_of(name)
    spatial = tuple(rng.randint(2, 6) for _ in range(k))
    shape = ((2, 3) if batched else (3,)) + spatial
    x = (torch.randn(shape, dtype=torch.complex64) if dtype == "complex64"
         else (torch.randn(shape) * 10).to(getattr(torch, dtype)))
    for (label, xt), _ in itertools.product(layouts(x).items(), range(3)):
        pads = random_pads(rng, name, spatial)
        want = getattr(torch._C._nn, name)(xt, pads)
        got = getattr(ember._nn, name)(ember_like(xt), pads)
        assert tuple(got.shape) == tuple(want.shape), (label, pads)
        assert tuple(got.stride()) == want.stride(), (label, pads)
        assert got.dtype == getattr(ember, dtype)
        if dtype == "complex64":
            assert torch.equal(torch.from_numpy(got.numpy()), want), (label, pads)
        else:
            assert torch.equal(float64_of(torch, got), want.double()), (label, pads)


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16", "float16"])
def test_gradient_matches_torch(name: str, dtype: str) -> None:
    rng = random.Random(zlib.crc32(f"{name}{dtype}".encode()))
    k = k_of(name)
    spatial = tuple(rng.randint(2, 5) for _ in range(k))
    x = torch.randn((2, 3) + spatial).to(getattr(torch, dtype))
    for label, xt in layouts(x).items():
        pads = random_pads(rng, name, spatial)
        xt = xt.detach().requires_grad_()
        yt = getattr(torch._C._nn, name)(xt, pads)
        gt = torch.randn(yt.shape).to(yt.dtype)
        yt.backward(gt)
        xe = ember_like(xt.detach()).requires_grad_()
        ye = getattr(ember._nn, name)(xe, pads)
        assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__
        ye.backward(ember_of(gt))
        assert tuple(xe.grad.stride()) == xt.grad.stride(), (label, pads)
        # the sums run in aten's order: equal in every dtype
        assert torch.equal(float64_of(torch, xe.grad), xt.grad.double()), (label, pads)


@pytest.mark.parametrize("name", OPS)
def test_backward_op_with_expanded_grad(name: str) -> None:
    k = k_of(name)
    x = torch.randn((2, 3) + (4,) * k, dtype=torch.float64)
    pads = [1, 2] * k
    y = getattr(torch._C._nn, name)(x, pads)
    g = torch.randn((1,) + y.shape[1:], dtype=torch.float64).expand(y.shape)
    want = getattr(torch.ops.aten, name + "_backward")(g, x, pads)
    got = getattr(ember._nn, name + "_backward")(ember_of(g).expand(*g.shape), ember_of(x), pads)
    assert torch.equal(float64_of(torch, got), want)


@pytest.mark.parametrize("name", OPS)
def test_double_backward(name: str) -> None:
    k = k_of(name)
    x = ember.randn(*((1, 2) + (3,) * k), dtype=ember.float64, requires_grad=True)
    pads = [2, -1, 1, 0, 0, 1][:2 * k]
    fn = getattr(ember._nn, name)
    assert ember.autograd.gradcheck(lambda a: fn(a, pads), (x,))
    assert ember.autograd.gradgradcheck(lambda a: fn(a, pads), (x,))
    g = ember.randn(*fn(x, pads).shape, dtype=ember.float64, requires_grad=True)
    (gx,) = ember.autograd.grad(fn(x, pads), x, g, create_graph=True)
    assert type(gx.grad_fn).__name__ == type(fn(x, pads).grad_fn).__name__.replace("Backward0", "BackwardBackward0")


def test_threads_agree_with_one_thread() -> None:
    x = ember.randn(4, 8, 70, 90)
    xl = x.contiguous(memory_format=ember.channels_last)
    g = ember.randn(4, 8, 75, 93)
    before = ember.get_num_threads()
    results = []
    try:
        for n in (1, 2):
            ember.set_num_threads(n)
            row = []
            for name, src in (("reflection_pad2d", x), ("replication_pad2d", xl)):
                a = src.detach().requires_grad_()
                y = getattr(ember._nn, name)(a, [1, 2, 3, 2])
                y.backward(g)
                row += [y, a.grad]
            results.append(row)
    finally:
        ember.set_num_threads(before)
    for a, b in zip(*results, strict=True):
        assert ember.equal(a, b)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_f_pad_uses_the_kernels(mode: str) -> None:
    x = torch.randn(2, 3, 6, 5, requires_grad=True)
    yt = TF.pad(x, (2, 1, -1, 3), mode=mode)
    xe = ember_of(x.detach()).requires_grad_()
    ye = EF.pad(xe, (2, 1, -1, 3), mode=mode)
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__
    assert torch.equal(float64_of(torch, ye), yt.double())
    m = EF.pad(ember.empty(2, 3, 6, 5, device="meta"), (2, 1, -1, 3), mode=mode)
    assert m.device.type == "meta" and tuple(m.shape) == tuple(yt.shape)


ERRORS = [
    ("reflection_pad1d", (2, 3, 4), [4, 1]), ("reflection_pad1d", (2, 3, 4), [1, 2, 3]),
    ("reflection_pad1d", (3, 4), [-2, -2]), ("reflection_pad1d", (3, 4), [-3, -2]),
    ("reflection_pad1d", (2, 0, 4), [1, 1]), ("reflection_pad1d", (4,), [1, 1]),
    ("reflection_pad1d", (1, 2, 3, 4), [1, 1]), ("reflection_pad2d", (2, 3, 4, 5), [1, 2, 4, 3]),
    ("reflection_pad2d", (3, 4, 5), [-2, -3, -2, -2]), ("reflection_pad2d", (3, 0, 5), [1, 1, 1, 1]),
    ("reflection_pad2d", (3, 4, 5), [5, 5, 4, 4]), ("reflection_pad2d", (3, 4, 5), [1, 2, 3]),
    ("reflection_pad3d", (2, 3, 4, 5, 6), [1, 2, 3, 3, 4, 1]), ("reflection_pad3d", (3, 4, 5, 6), [1, 1, 5, 5, 4, 4]),
    ("reflection_pad3d", (3, 4, 5, 6), [-6, 0, -5, 0, -4, 0]), ("reflection_pad3d", (3, 4, 5, 6), [-5, -2, 0, 0, 0, 0]),
    ("reflection_pad3d", (3, 0, 4, 5), [1, 1, 1, 1, 1, 1]), ("replication_pad1d", (3, 4), [-5, 1]),
    ("replication_pad1d", (2, 0, 4), [1, 1]), ("replication_pad1d", (3, 4), [1, 2, 3]),
    ("replication_pad2d", (3, 4, 5), [-3, -2, -4, 0]), ("replication_pad2d", (3, 4, 5), [-6, 0, 0, 0]),
    ("replication_pad2d", (3, 4, 5), [1, 2, 3]), ("replication_pad3d", (3, 4, 5, 6), [-6, 0, -5, 0, -4, 0]),
    ("replication_pad3d", (3, 4, 5, 6), [-6, 0, 0, 0, -5, 0]), ("replication_pad3d", (3, 0, 4, 5), [1] * 6),
]


@pytest.mark.parametrize(("name", "shape", "pads"), ERRORS, ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_errors_match_torch(name: str, shape: tuple, pads: list) -> None:
    same_error(lambda: getattr(ember._nn, name)(ember.zeros(*shape), pads),
               lambda: getattr(torch._C._nn, name)(torch.zeros(shape), pads))


@pytest.mark.parametrize("name", ["reflection_pad1d", "replication_pad2d", "reflection_pad3d"])
@pytest.mark.parametrize("dtype", ["bool", "uint16"])
def test_dtype_errors_match_torch(name: str, dtype: str) -> None:
    shape = (2, 3) + (4,) * k_of(name)
    same_error(lambda: getattr(ember._nn, name)(ember.zeros(*shape, dtype=getattr(ember, dtype)), [1] * 2 * k_of(name)),
               lambda: getattr(torch._C._nn, name)(torch.zeros(shape, dtype=getattr(torch, dtype)), [1] * 2 * k_of(name)))


BACKWARD_ERRORS = [
    ("reflection_pad1d", (2, 3, 9), (2, 3, 5), [1, 2]), ("replication_pad1d", (2, 3, 9), (2, 3, 5), [1, 2]),
    ("reflection_pad2d", (2, 3, 8, 8), (2, 3, 5, 5), [1, 2, 1, 1]),
    ("replication_pad2d", (2, 3, 8, 8), (2, 3, 5, 5), [1, 2, 1, 1]),
    ("reflection_pad3d", (2, 3, 4, 7, 8), (2, 3, 5, 5, 5), [1, 2, 1, 1, 0, 0]),
    ("replication_pad3d", (2, 3, 4, 7, 8), (2, 3, 5, 5, 5), [1, 2, 1, 1, 0, 0]),
    ("replication_pad3d", (2, 4, 5, 7, 8), (2, 3, 5, 5, 5), [1, 2, 1, 1, 0, 0]),
    ("reflection_pad1d", (3, 8), (2, 3, 5), [1, 2]), ("reflection_pad1d", (2, 3, 8), (2, 3, 5), [5, 2]),
    *[(name, (4,) * (k_of(name) + 1), (3,) * sd, [1] * 2 * k_of(name))
      for name in OPS for sd in range(k_of(name) + 1)],  # too few dims: aten's IndexError (or its check)
    ("reflection_pad3d", (4, 4, 4, 4), (3,) * 6, [1] * 6),
    ("replication_pad3d", (0,), (3, 3, 4, 5), [1, 2, 2, 1, 1, 0]),
]


@pytest.mark.parametrize(("name", "gshape", "shape", "pads"), BACKWARD_ERRORS,
                         ids=[f"{e[0]}-{i}" for i, e in enumerate(BACKWARD_ERRORS)])
def test_backward_errors_match_torch(name: str, gshape: tuple, shape: tuple, pads: list) -> None:
    same_error(lambda: getattr(ember._nn, name + "_backward")(ember.zeros(gshape), ember.zeros(shape), pads),
               lambda: getattr(torch.ops.aten, name + "_backward")(torch.zeros(gshape), torch.zeros(shape), pads))


def test_backward_dtype_errors_match_torch() -> None:
    g, x = torch.zeros(2, 3, 8), torch.zeros(2, 3, 5)
    same_error(lambda: ember._nn.reflection_pad1d_backward(ember_of(g), ember_of(x).half(), [1, 2]),
               lambda: torch.ops.aten.reflection_pad1d_backward(g, x.half(), [1, 2]))
    same_error(lambda: ember._nn.replication_pad1d_backward(ember_of(g).long(), ember_of(x).long(), [1, 2]),
               lambda: torch.ops.aten.replication_pad1d_backward(g.long(), x.long(), [1, 2]))
    same_error(lambda: ember._nn.replication_pad1d_backward(ember_of(g).long(), ember_of(x), [1, 2]),
               lambda: torch.ops.aten.replication_pad1d_backward(g.long(), x, [1, 2]))


@pytest.mark.parametrize("name", OPS)
def test_backward_of_an_empty_channel_dim(name: str) -> None:
    k = k_of(name)
    x, pads = torch.zeros((3, 0) + (3,) * k), [1] * 2 * k
    g = torch.zeros((3, 0) + (5,) * k)
    fe = lambda: getattr(ember._nn, name + "_backward")(ember_of(g), ember_of(x), pads)  # noqa: E731
    ft = lambda: getattr(torch.ops.aten, name + "_backward")(g, x, pads)  # noqa: E731
    if name == "replication_pad3d":
        same_error(fe, ft)
    else:
        assert tuple(fe().shape) == tuple(ft().shape)


def test_short_padding_raises() -> None:
    # aten's reflection backward kernels read past a short pad list; ember refuses it first
    with pytest.raises(RuntimeError, match="padding size is expected to be 4, but got: 3"):
        ember._nn.reflection_pad2d_backward(ember.zeros(()), ember.zeros(3, 4, 5), [1, 2, 2])


def test_mismatched_channels_raise() -> None:
    # aten reads a grad_output with other batch or channel sizes as if it fit; ember refuses it
    with pytest.raises(RuntimeError, match="channel unexpected"):
        ember._nn.reflection_pad1d_backward(ember.zeros(2, 2, 8), ember.zeros(2, 3, 5), [1, 2])
    with pytest.raises(RuntimeError, match="batch unexpected"):
        ember._nn.reflection_pad2d_backward(ember.zeros(1, 3, 7, 8), ember.zeros(2, 3, 5, 5), [1, 2, 1, 1])
