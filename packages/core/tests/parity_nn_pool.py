"""Parity inputs for the pooling / upsampling ops (ops/nn_pool.yaml).

The ops carry PyTorch's ``torch._C._nn`` names (namespace ``_nn``).  PyTorch has no
``torch._nn`` module, so this file installs one for the parity tests: ``torch._C._nn`` with
``torch.ops.aten`` behind it for the ``*_backward`` ops (which PyTorch only exposes as aten ops).
Backward-op cases get their grad_output shapes (and max_unpool its indices) from PyTorch.
"""

from __future__ import annotations

from typing import Any

import ember._nn  # noqa: F401  (makes ember._nn an attribute of ember)
import parity_inputs as H
import torch

T, Case = H.T, H.Case


H.install_torch_nn()


def C(id: str, *args: Any, meta: bool = False, **kwargs: Any) -> Case:
    return Case(id, args, kwargs, method=False, inplace=False, out=False, meta=meta)


def _out_shape(fn: str, shape: tuple, *args: Any) -> tuple:
    r = getattr(torch._C._nn, fn)(torch.zeros(shape, dtype=torch.float64), *args)
    return tuple((r[0] if isinstance(r, tuple) else r).shape)


# ------------------------------------------------------------------------------------------
# windowed pooling
# ------------------------------------------------------------------------------------------

def max_pool2d_cases(op: dict) -> list:
    return [
        C("float32", T((2, 3, 7, 9)), 3, 2, 1),
        C("float64", T((2, 3, 6, 6), "float64"), 2),
        C("unbatched-dilated-ceil", T((3, 7, 9), "float64"), (3, 2), (2, 1), (1, 0), (2, 1), True),
        C("ceil", T((1, 2, 5, 5)), 2, ceil_mode=True),
        C("ceil-pad", T((1, 2, 6, 6)), 3, 2, 1, ceil_mode=True),
        C("permute", T((3, 5, 6), view="permute"), 2),
        C("int64", T((1, 4, 4), "int64"), 2),
        C("batch0", T((0, 2, 4, 4)), 2),
        C("pad-too-big", T((1, 4, 4)), 3, 1, 2),
        C("too-small", T((1, 2, 2)), 3),
        C("bad-kernel", T((1, 4, 4)), (2, 2, 2)),
        C("bad-stride", T((1, 4, 4)), 2, (1, 1, 1)),
        C("2d-input", T((4, 4)), 2),
        C("empty-channel", T((1, 0, 4, 4)), 2),
        C("stride0", T((1, 4, 4)), 2, 0),
        C("kernel0", T((1, 4, 4)), 0, 1),
        C("dilation0", T((1, 4, 4)), 2, 1, 0, 0),
    ]


def max_pool3d_cases(op: dict) -> list:
    return [
        C("float32", T((1, 2, 5, 6, 7)), 3, 2, 1),
        C("float64", T((2, 2, 4, 4, 4), "float64"), 2),
        C("unbatched-dilated-ceil", T((2, 5, 6, 7), "float64"), (2, 3, 2), (1, 2, 2), (1, 1, 0), (2, 1, 1), True),
        C("int64", T((1, 2, 2, 2), "int64"), 2),
        C("too-small", T((1, 2, 2, 2)), 3),
        C("bad-kernel", T((1, 4, 4, 4)), (2, 2)),
        C("3d-input", T((4, 4, 4)), 2),
    ]


def avg_pool2d_cases(op: dict) -> list:
    return [
        C("float32", T((2, 3, 7, 9)), 3, 2, 1),
        C("float64", T((2, 3, 6, 6), "float64"), 2),
        C("unbatched", T((3, 7, 9), "float64"), (3, 2), (2, 1), (1, 0)),
        C("ceil-exclude-pad", T((1, 2, 6, 7), "float64"), 3, 2, 1, True, False),
        C("ceil-include-pad", T((1, 2, 6, 7), "float64"), 3, 2, 1, True, True),
        C("divisor", T((1, 2, 6, 7), "float64"), 3, 2, 1, False, True, 5),
        C("permute", T((3, 5, 6), view="permute"), 2),
        C("int64", T((1, 4, 4), "int64"), 2),
        C("batch0", T((0, 2, 4, 4)), 2),
        C("divisor0", T((1, 4, 4)), 2, divisor_override=0),
        C("pad-too-big", T((1, 4, 4)), 3, 1, 2),
        C("too-small", T((1, 2, 2)), 3),
        C("bad-kernel", T((1, 4, 4)), (2, 2, 2)),
        C("stride0", T((1, 4, 4)), 2, 0),
    ]


def avg_pool3d_cases(op: dict) -> list:
    return [
        C("float32", T((1, 2, 5, 6, 7)), 3, 2, 1),
        C("float64", T((2, 2, 4, 4, 4), "float64"), 2),
        C("unbatched-ceil-exclude", T((2, 5, 6, 7), "float64"), (2, 3, 2), (1, 2, 2), (1, 1, 0), True, False),
        C("divisor", T((1, 1, 4, 5, 6), "float64"), 3, 2, 1, False, True, 7),
        C("too-small", T((1, 2, 2, 2)), 3),
        C("4d-wrong", T((4, 4, 4)), 2),
    ]


def _avg_backward(n: int) -> Any:
    fn = f"avg_pool{n}d"

    def build(op: dict) -> list:
        out = []
        for c in (avg_pool2d_cases if n == 2 else avg_pool3d_cases)(op):
            x = c.args[0]
            if x.dtype not in ("float32", "float64") or 0 in x.shape or c.kwargs:
                continue
            full = list(c.args[1:]) + [[], 0, False, True, None][len(c.args) - 2:]
            try:
                gshape = _out_shape(fn, x.shape, *full)
            except RuntimeError:
                continue
            out.append(C(c.id, T(gshape, x.dtype), x, *full))
        x = T((1, 4, 4) if n == 2 else (1, 4, 4, 4), "float64")
        out.append(C("grad-shape-mismatch", T((1, 3, 3) if n == 2 else (1, 3, 3, 3), "float64"), x, 2, 2, 0,
                     False, True, None))
        return out

    return build


# ------------------------------------------------------------------------------------------
# adaptive pooling and unpooling
# ------------------------------------------------------------------------------------------

def adaptive2d_cases(op: dict) -> list:
    return [
        C("float32", T((2, 3, 7, 9)), (3, 4)),
        C("float64", T((2, 3, 6, 6), "float64"), (4, 5)),
        C("unbatched", T((3, 7, 9), "float64"), (2, 3)),
        C("to-1x1", T((2, 3, 5, 5), "float64"), (1, 1)),
        C("upscale", T((1, 2, 3, 4), "float64"), (5, 7)),
        C("single-int", T((1, 2, 6, 6), "float64"), 3),
        C("permute", T((3, 5, 6), view="permute"), (2, 2)),
        C("batch0", T((0, 2, 4, 4)), (2, 2)),
        C("int64", T((1, 4, 4), "int64"), (2, 2)),
        C("2d-input", T((4, 4)), (2, 2)),
        C("empty-channel", T((1, 0, 4, 4)), (2, 2)),
        C("bad-size", T((1, 4, 4)), (2, 2, 2)),
    ]


def adaptive3d_cases(op: dict) -> list:
    return [
        C("float32", T((1, 2, 5, 6, 7)), (2, 3, 4)),
        C("float64", T((2, 2, 4, 4, 4), "float64"), (3, 3, 3)),
        C("unbatched", T((2, 5, 6, 7), "float64"), (4, 2, 3)),
        C("to-1", T((1, 2, 3, 4, 5), "float64"), 1),
        C("int64", T((1, 2, 2, 2), "int64"), (1, 1, 1)),
        C("3d-input", T((4, 4, 4)), (2, 2, 2)),
    ]


def _adaptive_backward(n: int) -> Any:
    def build(op: dict) -> list:
        out = []
        for c in (adaptive2d_cases if n == 2 else adaptive3d_cases)(op):
            x = c.args[0]
            if x.dtype not in ("float32", "float64") or 0 in x.shape:
                continue
            try:
                gshape = _out_shape(f"adaptive_avg_pool{n}d", x.shape, c.args[1])
            except (RuntimeError, TypeError):
                continue
            out.append(C(c.id, T(gshape, x.dtype), x))
        return out

    return build


def max_unpool2d_cases(op: dict) -> list:
    idx = (0, 3, 9, 14, 5, 6, 8, 11)  # distinct per-plane positions in a 4x4 output
    return [
        C("float32", T((1, 2, 2, 2)), T((1, 2, 2, 2), "int64", values=idx), (4, 4)),
        C("float64-unbatched", T((2, 2, 2), "float64"), T((2, 2, 2), "int64", values=idx), (4, 4)),
        C("bigger-output", T((1, 2, 2, 2), "float64"), T((1, 2, 2, 2), "int64", values=idx), (5, 5)),
        C("index-out-of-range", T((1, 1, 2, 2)), T((1, 1, 2, 2), "int64", values=(0, 1, 2, 16)), (4, 4)),
        C("int32-indices", T((1, 1, 2, 2)), T((1, 1, 2, 2), "int32", values=(0, 1, 2, 3)), (4, 4)),
        C("shape-mismatch", T((1, 1, 2, 2)), T((1, 1, 1, 4), "int64", values=(0, 1, 2, 3)), (4, 4)),
        C("bad-output-size", T((1, 1, 2, 2)), T((1, 1, 2, 2), "int64", values=(0, 1, 2, 3)), (4, 4, 4)),
    ]


def max_unpool3d_cases(op: dict) -> list:
    idx = (0, 7, 9, 20, 33, 42, 50, 63)  # distinct positions in a 4x4x4 output
    return [
        C("float32", T((1, 1, 2, 2, 2)), T((1, 1, 2, 2, 2), "int64", values=idx), (4, 4, 4), (2, 2, 2), (0, 0, 0)),
        C("float64-unbatched", T((1, 2, 2, 2), "float64"), T((1, 2, 2, 2), "int64", values=idx), (4, 4, 4),
          (2, 2, 2), (0, 0, 0)),
        C("index-out-of-range", T((1, 1, 1, 1, 2)), T((1, 1, 1, 1, 2), "int64", values=(0, 64)), (4, 4, 4),
          (2, 2, 2), (0, 0, 0)),
    ]


# ------------------------------------------------------------------------------------------
# upsampling
# ------------------------------------------------------------------------------------------

SCALE_NAMES = {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h", "scales_w")}


def _upsample_spec(name: str) -> tuple[int, bool]:
    n = int(name.rstrip("d")[-1])
    return n, "nearest" not in name


def upsample_cases(op: dict) -> list:
    name = op["name"]
    n, has_ac = _upsample_spec(name)
    base = {1: (2, 3, 5), 2: (2, 3, 4, 5), 3: (1, 2, 3, 4, 5)}[n]
    sp = base[2:]
    up = tuple(2 * s for s in sp)
    odd = tuple(s * 3 // 2 + 1 for s in sp)
    down = tuple(max(1, s // 2) for s in sp)
    ac = (False,) if has_ac else ()
    act = (True,) if has_ac else ()
    cs = [
        C("float32", T(base), up, *ac),
        C("float64-odd", T(base, "float64"), odd, *ac),
        C("float64-down", T(base, "float64"), down, *ac),
        C("scales", T(base, "float64"), up, *ac, **{k: 2.0 for k in SCALE_NAMES[n]}),
        C("odd-scales", T(base, "float64"), odd, *ac, **{k: 1.7 for k in SCALE_NAMES[n]}),
        C("same-size", T(base, "float64"), sp, *ac),
        C("batch0", T((0,) + base[1:]), up, *ac),
        C("zero-output", T(base), (0,) * n, *ac),
        C("wrong-rank", T(base[1:]), up, *ac),
        C("bad-size", T(base), up + (2,), *ac),
    ]
    if has_ac:
        cs += [C("align-corners", T(base, "float64"), odd, *act),
               C("align-corners-down", T(base, "float64"), down, *act),
               C("align-corners-1", T(base, "float64"), (1,) * n, *act)]
    if n == 1:
        cs.append(C("permute", T((3, 4, 5), view="permute"), (9,), *ac))
    if not has_ac:
        cs.append(C("uint8", T(base, "uint8"), odd))
        cs.append(C("int64", T(base, "int64"), odd))
    return cs


def upsample_backward_cases(op: dict) -> list:
    fwd = {"name": op["name"][: -len("_backward")]}
    out = []
    for c in upsample_cases(fwd):
        x, size = c.args[0], c.args[1]
        if x.dtype not in ("float32", "float64") or 0 in x.shape or 0 in size or len(size) != len(x.shape) - 2:
            continue
        out.append(C(c.id, T(x.shape[:2] + tuple(size), x.dtype), size, x.shape, *c.args[2:], **c.kwargs))
    x = out[0].args[0]
    out.append(C("grad-shape-mismatch", T(x.shape[:2] + (7,) * (len(x.shape) - 2), x.dtype), *out[0].args[1:]))
    return out


BUILDERS = {
    "max_pool2d_with_indices": max_pool2d_cases,
    "max_pool3d_with_indices": max_pool3d_cases,
    "avg_pool2d": avg_pool2d_cases,
    "avg_pool3d": avg_pool3d_cases,
    "avg_pool2d_backward": _avg_backward(2),
    "avg_pool3d_backward": _avg_backward(3),
    "adaptive_avg_pool2d": adaptive2d_cases,
    "adaptive_avg_pool3d": adaptive3d_cases,
    "_adaptive_avg_pool2d_backward": _adaptive_backward(2),
    "_adaptive_avg_pool3d_backward": _adaptive_backward(3),
    "adaptive_max_pool2d": adaptive2d_cases,
    "adaptive_max_pool3d": adaptive3d_cases,
    "max_unpool2d": max_unpool2d_cases,
    "max_unpool3d": max_unpool3d_cases,
}
for _n in ("upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d", "_upsample_nearest_exact1d",
           "_upsample_nearest_exact2d", "_upsample_nearest_exact3d", "upsample_linear1d", "upsample_bilinear2d",
           "upsample_bicubic2d", "upsample_trilinear3d"):
    BUILDERS[_n] = upsample_cases
    BUILDERS[_n + "_backward"] = upsample_backward_cases


# ------------------------------------------------------------------------------------------
# grid_sampler (F.grid_sample's ops): mode 0 bilinear / 1 nearest / 2 bicubic, padding 0 zeros /
# 1 border / 2 reflection
# ------------------------------------------------------------------------------------------

def _grid_cases(dims: int, fixed: str | None) -> list:
    x = T((2, 3, 5, 6)) if dims == 2 else T((2, 2, 3, 4, 5))
    g = T((2, 4, 3, 2)) if dims == 2 else T((2, 2, 3, 2, 3))
    x64, g64 = T(x.shape, "float64"), T(g.shape, "float64")
    modes = (0, 1, 2) if dims == 2 else (0, 1)
    cs = [C(f"m{m}-p{p}-ac{int(a)}", x64, g64, m, p, a) for m in modes for p in (0, 1, 2) for a in (False, True)]
    cs += [
        C("float32", x, g, 0, 0, False),
        C("batch0", T((0,) + x.shape[1:]), T((0,) + g.shape[1:]), 0, 0, False),
        C("empty-grid", x, T(g.shape[:1] + (0,) + g.shape[2:]), 0, 0, False),
        C("dtype-mismatch", x, g64, 0, 0, False),
        C("batch-mismatch", x, T((3,) + g.shape[1:]), 0, 0, False),
        C("last-dim", x, T(g.shape[:-1] + (1,)), 0, 0, False),
        C("int64", T(x.shape, "int64"), T(g.shape, "int64"), 0, 0, False),
    ]
    if fixed != "3d":
        cs.append(C("rank-mismatch", x, T((2, 1, 4, 3, 2)), 0, 0, False))
    if fixed != "2d" and dims == 3:
        cs.append(C("bicubic-5d", x64, g64, 2, 0, False))
    return cs


def grid_sampler_cases(op: dict) -> list:
    name = op["name"]
    if name == "grid_sampler":
        return _grid_cases(2, None) + _grid_cases(3, None)
    return _grid_cases(2 if name.endswith("2d") else 3, name[-2:])


BUILDERS.update({"grid_sampler": grid_sampler_cases, "grid_sampler_2d": grid_sampler_cases,
                 "grid_sampler_3d": grid_sampler_cases})
