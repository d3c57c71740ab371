"""Parity inputs for the convolution / padding ops (ops/nn_conv.yaml).

The first float case of each op is small: the gradient tests run gradcheck and gradgradcheck
(float64) on it. Channel counts stay small so float32 sums agree within the generic tolerances.
"""

from __future__ import annotations

from typing import Any

import parity_inputs as H
import torch

T, Case = H.T, H.Case

# conv sums a few dozen products: float32 rounding differs from oneDNN's order a little
H.LOOSE_OPS.update({name: 10.0 for name in (
    "convolution", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")})


H.install_torch_nn()


def C(id: str, *args: Any, meta: bool = False, **kwargs: Any) -> Case:
    return Case(id, args, kwargs, method=False, inplace=False, out=False, meta=meta)


def _conv_cases(nsp: int) -> list:
    sp = (5, 6, 4)[:nsp]
    k = (3, 2, 2)[:nsp]
    f32 = "float32"

    def x(n: int, c: int, dt: str = f32, s: tuple = sp, view: str = "contig") -> T:
        return T((n, c) + tuple(s), dt, view=view)

    def w(o: int, c: int, dt: str = f32, kk: tuple = k) -> T:
        return T((o, c) + tuple(kk), dt)

    b3 = T((3,), f32)
    cs = [
        C("small", x(2, 2, "float64"), w(3, 2, "float64"), T((3,), "float64"), stride=2, padding=1),
        C("float32", x(2, 2), w(3, 2), b3),
        C("no-bias", x(2, 2), w(3, 2)),
        C("stride-pad-dil", x(2, 2), w(3, 2), b3, stride=2, padding=1, dilation=2),
        C("tuple-args", x(1, 2), w(3, 2), None, stride=(1, 2, 1)[:nsp], padding=(0, 1, 2)[:nsp],
          dilation=(2, 1, 1)[:nsp]),
        C("groups", x(2, 4), w(6, 2), T((6,), f32), groups=2),
        C("depthwise", x(2, 3), w(3, 1), groups=3, padding=1),
        C("unbatched", T((2,) + sp, f32), w(3, 2), b3, padding=1),
        C("1x1", x(2, 3), w(4, 3, kk=(1,) * nsp)),
        C("float64", x(2, 2, "float64"), w(3, 2, "float64"), T((3,), "float64"), padding=1),
        C("int64", x(1, 2, "int64"), w(2, 2, "int64")),
        C("bfloat16", x(1, 2, "bfloat16"), w(2, 2, "bfloat16")),
        C("float16", x(1, 2, "float16"), w(2, 2, "float16"), T((2,), "float16")),
        C("bool", x(1, 2, "bool"), w(2, 2, "bool")),
        C("empty-batch", x(0, 2), w(3, 2), b3),
        # errors
        C("bad-input-dim", T((2, 3), f32), w(3, 2)),
        C("channels", x(2, 3), w(3, 2)),
        C("groups-divide", x(2, 4), w(3, 2), groups=2),
        C("kernel-too-big", T((1, 2) + (1,) * nsp, f32), w(3, 2)),
        C("bias-size", x(2, 2), w(3, 2), T((4,), f32)),
        C("stride-0", x(2, 2), w(3, 2), stride=0),
        C("neg-padding", x(2, 2), w(3, 2), padding=-1),
        C("dilation-0", x(2, 2), w(3, 2), dilation=0),
        C("groups-0", x(2, 2), w(3, 2), groups=0),
        C("dtype-mismatch", x(2, 2), w(3, 2, "float64")),
        C("bias-dtype", x(2, 2), w(3, 2), T((3,), "float64")),
        C("stride-len", x(2, 2), w(3, 2), stride=(1,) * (nsp + 1)),
    ]
    return cs


def _conv_str_cases(nsp: int) -> list:
    sp = (6, 5, 4)[:nsp]
    f32 = "float32"
    x = T((2, 2) + sp, f32)
    return [
        C("same-odd", T((2, 2) + sp, "float64"), T((3, 2) + (3,) * nsp, "float64"), T((3,), "float64"),
          padding="same"),
        C("same-even", x, T((3, 2) + (2, 3, 4)[:nsp], f32), padding="same"),
        C("same-dilated", x, T((3, 2) + (2, 2, 2)[:nsp], f32), None, 1, "same", 2),
        C("valid", x, T((3, 2) + (3,) * nsp, f32), T((3,), f32), padding="valid"),
        C("same-groups-unbatched", T((4,) + sp, f32), T((4, 2) + (2,) * nsp, f32), padding="same", groups=2),
        C("same-strided", x, T((3, 2) + (3,) * nsp, f32), stride=2, padding="same"),
        C("bad-string", x, T((3, 2) + (3,) * nsp, f32), padding="full"),
    ]


def _conv_transpose_cases(nsp: int) -> list:
    sp = (3, 4, 3)[:nsp]
    k = (3, 2, 2)[:nsp]
    f32 = "float32"

    def x(n: int, c: int, dt: str = f32) -> T:
        return T((n, c) + sp, dt)

    def w(c: int, o: int, dt: str = f32) -> T:
        return T((c, o) + k, dt)

    return [
        C("small", x(2, 2, "float64"), w(2, 3, "float64"), T((3,), "float64"), 2, 1, 1),
        C("float32", x(2, 2), w(2, 3), T((3,), f32)),
        C("stride-outpad", x(2, 2), w(2, 3), None, stride=2, padding=1, output_padding=1),
        C("groups-dilation", x(2, 4), w(4, 1), T((2,), f32), stride=2, groups=2, dilation=2),
        C("outpad-below-dilation", x(1, 2), w(2, 2), None, stride=1, output_padding=1, dilation=2),
        C("unbatched", T((2,) + sp, f32), w(2, 3), padding=1),
        C("int64", x(1, 2, "int64"), w(2, 2, "int64")),
        C("empty-batch", x(0, 2), w(2, 3)),
        C("channels", x(2, 3), w(2, 3)),
        C("outpad-too-big", x(2, 2), w(2, 3), stride=2, output_padding=2),
        C("bias-size", x(2, 2), w(2, 3), T((2,), f32)),
        C("too-small", x(1, 2), w(2, 3), padding=4),
    ]


def convolution_cases(op: dict) -> list:
    f32, f64 = "float32", "float64"
    x2, w2 = T((2, 2, 5, 4), f32), T((3, 2, 3, 2), f32)
    return [
        C("small", T((2, 2, 5), f64), T((3, 2, 3), f64), T((3,), f64), [2], [1], [1], False, [0], 1),
        C("conv2d", x2, w2, T((3,), f32), [1, 2], [1, 0], [1, 1], False, [0, 0], 1),
        C("single-values", x2, w2, None, [1], [1], [2], False, [0], 1),
        C("transposed", T((2, 3, 4, 3), f32), T((3, 2, 3, 2), f32), T((2,), f32), [2, 1], [1, 0], [1, 1],
          True, [1, 0], 1),
        C("transposed-groups", T((1, 4, 3), f32), T((4, 1, 2), f32), None, [2], [0], [1], True, [1], 2),
        C("conv3d", T((1, 2, 3, 4, 3), f32), T((2, 2, 2, 2, 2), f32), None, [1], [0], [1], False, [0], 1),
        C("unbatched-error", T((2, 5, 4), f32), w2, None, [1], [0], [1], False, [0], 1),
    ]


def pad_cases(op: dict) -> list:
    f32 = "float32"
    return [
        C("small", T((2, 3), "float64"), [1, 2]),
        C("float32", T((2, 3, 4), f32), [1, 2, 0, 1]),
        C("value", T((2, 3), f32), [1, 1, 2, 2], 1.5),
        C("int-value", T((2, 3), "int64"), [2, 0], 7),
        C("negative", T((3, 4), f32), [-1, 2, 1, -2]),
        C("crop-all", T((3, 4), f32), [-2, -2]),
        C("all-dims", T((2, 2, 2), f32), [1, 1, 1, 1, 1, 1]),
        C("view", T((4, 3), f32, view="t"), [1, 0]),
        C("bool", T((2, 2), "bool"), [1, 1], True),
        C("empty", T((0, 3), f32), [1, 1, 1, 1]),
        C("odd-length", T((2, 3), f32), [1, 2, 3]),
        C("too-long", T((2, 3), f32), [1, 1, 1, 1, 1, 1]),
        C("negative-size", T((2, 3), f32), [-3, -1]),
    ]


# reflection_pad{1,2,3}d / replication_pad{1,2,3}d (F.pad's reflect / replicate on the CPU):
# batched and not, crops (negative pads), views, dtypes and aten's errors
def _pad_mode_shapes(k: int) -> tuple[tuple, tuple]:
    sp = (3, 4, 5)[3 - k:]
    return (2, 3) + sp, (3,) + sp


def _pad_mode_cases(k: int, reflect: bool):  # noqa: ANN202
    def build(op: dict) -> list:
        f32 = "float32"
        batched, unbatched = _pad_mode_shapes(k)
        pad = [1, 2, 2, 1, 1, 0][:2 * k]
        crop = [-1, 2, 1, -2, 0, 1][:2 * k]
        widest = [n - 1 for n in reversed(batched[2:]) for _ in (0, 1)] if reflect else [7, 5, 4, 6, 3, 2][:2 * k]
        cases = [
            C("small", T(unbatched, "float64"), pad),
            C("float32", T(batched, f32), pad),
            C("crop", T(batched, f32), crop),
            C("widest", T(unbatched, "float64"), widest),
            C("int64", T(unbatched, "int64"), pad),
            C("float16", T(batched, "float16"), pad),
            C("bfloat16", T(unbatched, "bfloat16"), crop),
            C("complex64", T(unbatched, "complex64"), pad),
            C("expand", T(batched, f32, view="expand"), pad),
            C("offset", T(batched, f32, view="offset"), crop),
            C("empty-batch", T((0,) + batched[1:], f32), pad),
            C("bool", T(unbatched, "bool"), pad),
            C("uint16", T(unbatched, "uint16"), pad),
            C("pad-length", T(batched, f32), pad + [1]),
            C("rank", T(batched[-k:], f32), pad),
            C("empty-dim", T((2, 0) + batched[2:], f32), pad),
            C("too-small", T(unbatched, f32), [-n for n in reversed(unbatched[1:]) for _ in (0, 1)]),
        ]
        if k == 1 or k == 2:
            cases.append(C("permute", T(batched if k == 1 else unbatched, f32, view="permute"), pad))
        if reflect:
            cases.append(C("pad-past-dim", T(batched, f32), [batched[-1]] + pad[1:]))
        return cases
    return build


def _pad_mode_backward_cases(k: int, reflect: bool):  # noqa: ANN202
    forward = getattr(torch._C._nn, f"{'reflection' if reflect else 'replication'}_pad{k}d")

    def grad_of(x: T, pad: list, dt: str | None = None, view: str = "contig") -> T:
        return T(tuple(forward(torch.zeros(x.shape), pad).shape), dt or x.dtype, view=view)

    def build(op: dict) -> list:
        batched, unbatched = _pad_mode_shapes(k)
        pad = [1, 2, 2, 1, 1, 0][:2 * k]
        crop = [-1, 2, 1, -2, 0, 1][:2 * k]
        x64, x32, xb = T(unbatched, "float64"), T(batched, "float32"), T(batched, "bfloat16")
        bigger = list(grad_of(x32, pad).shape)
        bigger[-1] += 1
        return [
            C("small", grad_of(x64, pad), x64, pad),
            C("float32", grad_of(x32, pad), x32, pad),
            C("crop", grad_of(x32, crop), x32, crop),
            C("bfloat16", grad_of(xb, pad), xb, pad),
            C("complex128", grad_of(T(unbatched, "complex128"), pad), T(unbatched, "complex128"), pad),
            C("expanded-grad", grad_of(x32, pad, view="expand"), x32, pad),
            C("int64", grad_of(T(unbatched, "int64"), pad), T(unbatched, "int64"), pad),
            C("dtype-mismatch", grad_of(x32, pad, "float64"), x32, pad),
            C("width-mismatch", T(tuple(bigger), "float32"), x32, pad),
        ]
    return build


def shuffle_cases(op: dict) -> list:
    f32 = "float32"
    if op["name"] == "pixel_shuffle":
        return [
            C("small", T((1, 4, 2, 3), "float64"), 2),
            C("float32", T((2, 8, 3, 2), f32), 2),
            C("batch-dims", T((2, 1, 9, 2, 2), f32), 3),
            C("unbatched", T((4, 2, 2), "int64"), 2),
            C("factor-1", T((2, 3, 2), f32), 1),
            C("not-divisible", T((1, 5, 2, 2), f32), 2),
            C("2d", T((4, 2), f32), 2),
            C("factor-0", T((1, 4, 2, 2), f32), 0),
        ]
    return [
        C("small", T((1, 1, 4, 2), "float64"), 2),
        C("float32", T((2, 2, 4, 6), f32), 2),
        C("batch-dims", T((2, 1, 1, 6, 3), f32), 3),
        C("unbatched", T((1, 4, 4), "int64"), 2),
        C("height", T((1, 1, 3, 4), f32), 2),
        C("width", T((1, 1, 4, 3), f32), 2),
        C("factor-1", T((2, 3, 2), f32), 1),
        C("factor-0", T((1, 1, 4, 4), f32), 0),
    ]


BUILDERS = {
    "convolution": convolution_cases,
    "conv1d": lambda op: _conv_cases(1),
    "conv2d": lambda op: _conv_cases(2),
    "conv3d": lambda op: _conv_cases(3),
    "conv1d.padding": lambda op: _conv_str_cases(1),
    "conv2d.padding": lambda op: _conv_str_cases(2),
    "conv3d.padding": lambda op: _conv_str_cases(3),
    "conv_transpose1d": lambda op: _conv_transpose_cases(1),
    "conv_transpose2d.input": lambda op: _conv_transpose_cases(2),
    "conv_transpose3d.input": lambda op: _conv_transpose_cases(3),
    "constant_pad_nd": pad_cases,
    **{f"{m}_pad{k}d{b}": (_pad_mode_backward_cases if b else _pad_mode_cases)(k, m == "reflection")
       for m in ("reflection", "replication") for k in (1, 2, 3) for b in ("", "_backward")},
    "pixel_shuffle": shuffle_cases,
    "pixel_unshuffle": shuffle_cases,
}
