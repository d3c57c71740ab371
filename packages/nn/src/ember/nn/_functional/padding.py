"""``F.pad``: constant padding is ``ember.constant_pad_nd``; reflect and replicate are aten's
``reflection_pad{1,2,3}d`` / ``replication_pad{1,2,3}d`` (``ember._nn``) on every device. Circular
padding gathers each padded dimension through an index (``index_select``), so autograd and double
backward come from the index ops."""

from __future__ import annotations

import math
from collections.abc import Sequence

import ember
from ember import Tensor
from ember._argcheck import parse_int64
from ember._toplevel_nn import as_aten_allocates

__all__ = ["pad"]

_MODES = ("constant", "reflect", "replicate", "circular")
_ATEN_PREFIX = {"reflect": "reflection", "replicate": "replication"}
_SUPPORTED = ("Supported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _circular_source(n: int, before: int, after: int) -> list[int]:
    """For each output position along a dim of size n, the input position circular padding copies."""
    # negative pads crop first; the wrap then reads the cropped part, as many times as the pad asks (aten
    # compares the pads with the uncropped size); a dim cropped to nothing has nothing to wrap
    start, stop = max(0, -before), n - max(0, -after)
    if stop <= start:
        raise RuntimeError("Padding value causes wrapping around more than once.")
    return [start + (j - max(before, 0)) % (stop - start) for j in range(n + before + after)]


def _check(input: Tensor, pad: Sequence[int], mode: str) -> None:
    k, nd = len(pad) // 2, input.dim()
    if k not in (1, 2, 3) or nd not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {nd}D input tensor.\n\n{_SUPPORTED}")
    if mode != "circular" and any(p < -2**62 for p in pad):  # entering aten's op: c10::SymInt's symbolic range
        raise RuntimeError("SymIntArrayRef expected to contain only concrete integers")
    if mode != "circular" and any(s == 0 for s in input.shape[nd - k - 1:]):  # an unbatched input has no batch dim
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {list(input.shape)}")
    if mode == "circular":  # aten's _pad_circular, outermost padded dim first: the wrap, then an empty size
        for i in reversed(range(k)):
            n, before, after = input.shape[nd - 1 - i], pad[2 * i], pad[2 * i + 1]
            if before > n or after > n:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if n + before + after < 0:  # exact (aten's int64 sum wraps past -2**63: torch_known_wrong)
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
    names = ("W", "H", "D")
    for i in range(k):
        d = nd - 1 - i
        n, before, after = input.shape[d], pad[2 * i], pad[2 * i + 1]
        if mode == "reflect" and (before >= n or after >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({before}, {after}) at dimension {d} of input {list(input.shape)}")
    # aten: too small only when every padded dim comes out empty; one negative size is empty()'s error
    ins = [input.shape[nd - 1 - i] for i in reversed(range(k))]
    for n, i in zip(ins, reversed(range(k)), strict=True):
        if n + pad[2 * i] + pad[2 * i + 1] >= 2**63:  # aten's sum wraps (to a small size, and reads garbage)
            raise RuntimeError(f"pad: the padded size {n + pad[2 * i] + pad[2 * i + 1]} of dimension "
                               f"{nd - 1 - i} overflows int64")
    # int64 sums, wrapping as aten's do
    outs = [(n + pad[2 * i] + pad[2 * i + 1] + 2**63) % 2**64 - 2**63 for n, i in zip(ins, reversed(range(k)),
                                                                                  strict=True)]
    if mode != "circular" and all(o < 1 for o in outs):
        dims = names[:k][::-1]
        raise RuntimeError(f"input ({', '.join(f'{d}: {n}' for d, n in zip(dims, ins, strict=True))}) is too small. "
                           f"Calculated output {' '.join(f'{d}: {o}' for d, o in zip(dims, outs, strict=True))}")
    shape = list(input.shape[:nd - k]) + outs
    if any(o < 0 for o in outs):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(outs)}: {shape}")
    if math.prod(shape) > 2**28:
        # aten allocates the output first: a size past memory is the allocator's error, before ember builds the
        # gather index (whose Python lists would take as long as the output is large)
        ember.empty(shape, dtype=input.dtype, device=input.device)
    if mode != "circular" and input.dtype == ember.bool:  # the pad kernels dispatch over all types but bool
        kernel = "reflection" if mode == "reflect" else "replication"
        raise NotImplementedError(f'"{kernel}_pad{k}d" not implemented for \'Bool\'')


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:
    """Pads the last ``len(pad) // 2`` dims: ``pad = (left, right, top, bottom, front, back)``."""
    # aten's pad: its parser, the mode's name, then the pad's length (every mode), then the value
    parse_int64(pad, "pad", "pad")
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.dim():
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.dim()}")
    if mode == "constant":
        return ember.constant_pad_nd(input, list(pad), 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    pad = [int(p) for p in pad]
    _check(input, pad, mode)
    k, nd = len(pad) // 2, input.dim()
    if mode != "circular":
        return getattr(ember._nn, f"{_ATEN_PREFIX[mode]}_pad{k}d")(input, pad)
    shape = list(input.shape[:nd - k]) + [input.shape[nd - 1 - i] + pad[2 * i] + pad[2 * i + 1]
                                          for i in reversed(range(k))]
    if math.prod(shape) == 0:  # nothing to gather (and no index the size of a huge empty dim to build)
        return ember.empty(shape, dtype=input.dtype, device=input.device)
    # One gather over the padded dims flattened together: a single copy forward, a single
    # index_add backward.
    sizes = [input.shape[nd - k + j] for j in range(k)]
    flat = ember.zeros(1, dtype=ember.int64, device=input.device)
    out_sizes = []
    for j in range(k):
        i = k - 1 - j  # pad pairs run from the last dim backwards
        src = _circular_source(sizes[j], pad[2 * i], pad[2 * i + 1])
        out_sizes.append(len(src))
        flat = (flat.unsqueeze(-1) * sizes[j] + ember.tensor(src, dtype=ember.int64, device=input.device)).reshape(-1)
    lead = list(input.shape[:nd - k])
    x = input.reshape(lead + [math.prod(sizes)]) if k > 1 else input
    return as_aten_allocates(input, x.index_select(nd - k, flat).reshape(lead + out_sizes))
