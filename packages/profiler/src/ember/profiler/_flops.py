"""FLOP estimates for `with_flops=True`, from an op's input shapes and concrete arguments.

Formulas follow PyTorch's profiler: a multiply-add counts 2 FLOPs for matrix products and
convolutions; elementwise add/mul count one per element of the first input.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

# Like torch, only 2-D convolutions with explicit (numeric) stride/padding/dilation are counted.
_CONV = {"aten::conv2d"}


def _prod(xs: Sequence[int]) -> int:
    return math.prod(int(x) for x in xs)


def _arg(concrete: list[Any], i: int, default: Any) -> Any:
    v = concrete[i] if i < len(concrete) else None
    return default if v is None else v


def _per_dim(v: Any, n: int) -> list[int]:
    if isinstance(v, (list, tuple)):
        return [int(x) for x in v] * (n if len(v) == 1 else 1)
    return [int(v)] * n


def _conv(shapes: list[Any], concrete: list[Any]) -> int:
    x, w = shapes[0], shapes[1]
    if len(x) != 4 or len(w) != 4:
        return 0
    nd = 2
    # conv2d(input, weight, bias, stride, padding, dilation, groups); a string padding
    # ("same"/"valid") is not counted, as in torch.
    pad = _arg(concrete, 4, 0)
    if isinstance(pad, str):
        return 0
    stride = _per_dim(_arg(concrete, 3, 1), nd)
    p = _per_dim(pad, nd)
    dil = _per_dim(_arg(concrete, 5, 1), nd)
    groups = int(_arg(concrete, 6, 1))
    if len(stride) != nd or len(dil) != nd or len(p) != nd:
        return 0
    spatial_in, kernel = x[2:], w[2:]
    dims = zip(spatial_in, p, dil, kernel, stride, strict=True)
    out = [(i + 2 * pi - d * (k - 1) - 1) // s + 1 for i, pi, d, k, s in dims]
    if any(o <= 0 for o in out):
        return 0
    return 2 * x[0] * _prod(out) * _prod(kernel) * x[1] * w[0] // max(groups, 1)


def _matmul(a: list[int], b: list[int]) -> int:
    if not a or not b:
        return 0
    if len(a) == 1 and len(b) == 1:
        return 2 * a[0]
    m = 1 if len(a) == 1 else a[-2]
    k = a[-1]
    n = 1 if len(b) == 1 else b[-1]
    batch_a, batch_b = a[:-2], b[:-2]
    width = max(len(batch_a), len(batch_b))
    batch_a = [1] * (width - len(batch_a)) + list(batch_a)
    batch_b = [1] * (width - len(batch_b)) + list(batch_b)
    return 2 * _prod([max(p, q) for p, q in zip(batch_a, batch_b, strict=True)]) * m * k * n


def compute_flops(name: str, shapes: list[Any], concrete: list[Any]) -> int:
    """FLOPs of one op call, 0 when unknown (ops without a formula or missing shapes)."""
    try:
        if name == "aten::mm" and len(shapes) >= 2 and len(shapes[0]) == 2 and len(shapes[1]) == 2:
            return 2 * shapes[0][0] * shapes[0][1] * shapes[1][1]
        if name == "aten::addmm" and len(shapes) >= 3 and len(shapes[1]) == 2 and len(shapes[2]) == 2:
            return 2 * shapes[1][0] * shapes[1][1] * shapes[2][1]
        if name == "aten::bmm" and len(shapes) >= 2 and len(shapes[0]) == 3 and len(shapes[1]) == 3:
            return 2 * shapes[0][0] * shapes[0][1] * shapes[0][2] * shapes[1][2]
        if name == "aten::baddbmm" and len(shapes) >= 3 and len(shapes[1]) == 3 and len(shapes[2]) == 3:
            return 2 * shapes[1][0] * shapes[1][1] * shapes[1][2] * shapes[2][2]
        if name == "aten::matmul" and len(shapes) >= 2:
            return _matmul(shapes[0], shapes[1])
        if name == "aten::linear" and len(shapes) >= 2 and shapes[0] and len(shapes[1]) == 2:
            return 2 * _prod(shapes[0][:-1]) * shapes[1][1] * shapes[1][0]
        if name in _CONV and len(shapes) >= 2:
            return _conv(shapes, concrete)
        if name in ("aten::add", "aten::mul") and shapes:
            return _prod(shapes[0])
    except (TypeError, ValueError, IndexError):
        return 0
    return 0


def assign_flops(events: Sequence[Any]) -> None:
    """Set `flops` on every op. Composite ops (matmul, linear) that ran an mm/bmm/addmm child
    leave the count to the child, so totals never count a product twice."""
    for evt in events:
        if getattr(evt, "_kind", "op") != "op":
            continue
        evt.flops = compute_flops(evt.name, evt.input_shapes or [], getattr(evt, "concrete_inputs", None) or [])
    for evt in events:
        if evt.flops and evt.name in ("aten::matmul", "aten::linear") and _child_has_flops(evt):
            evt.flops = 0


def _child_has_flops(evt: Any) -> bool:
    return any((c.flops or 0) > 0 or _child_has_flops(c) for c in evt.cpu_children)
