"""A result shares its input's storage exactly where torch's does.

The calls are the degenerate ones, where an op has nothing to move (a factor of 1, zero padding, a
no-op dim list, p=0 dropout): a composed implementation then easily hands back a view of its input
where aten's kernel allocates, so a later in-place write would reach the input.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")
import ember  # noqa: E402


def _x(L: Any) -> Any:
    return L.arange(24.0).reshape(2, 3, 4)


def _x4(L: Any) -> Any:
    return L.arange(96.0).reshape(2, 3, 4, 4)


def _x1(L: Any) -> Any:
    return L.arange(5.0)


F = Callable[[Any, Any], Any]
CASES: dict[str, tuple[Callable[[Any], Any], F]] = {
    "pad_constant_0": (_x, lambda L, x: L.nn.functional.pad(x, (0, 0))),
    "pad_reflect_0": (_x, lambda L, x: L.nn.functional.pad(x, (0, 0), mode="reflect")),
    "pad_replicate_0": (_x, lambda L, x: L.nn.functional.pad(x, (0, 0), mode="replicate")),
    "pad_circular_0": (_x, lambda L, x: L.nn.functional.pad(x, (0, 0), mode="circular")),
    "ZeroPad2d_0": (_x4, lambda L, x: L.nn.ZeroPad2d(0)(x)),
    "interpolate_scale_1": (_x4, lambda L, x: L.nn.functional.interpolate(x, scale_factor=1)),
    "interpolate_same_size": (_x4, lambda L, x: L.nn.functional.interpolate(x, size=(4, 4), mode="bilinear")),
    "adaptive_avg_pool_same": (_x4, lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, 4)),
    "adaptive_max_pool_same": (_x4, lambda L, x: L.nn.functional.adaptive_max_pool2d(x, 4)),
    "avg_pool_1": (_x4, lambda L, x: L.nn.functional.avg_pool2d(x, 1)),
    "max_pool_1": (_x4, lambda L, x: L.nn.functional.max_pool2d(x, 1)),
    "dropout_p0": (_x, lambda L, x: L.nn.functional.dropout(x, 0.0)),
    "dropout_eval": (_x, lambda L, x: L.nn.functional.dropout(x, 0.5, training=False)),
    "dropout2d_p0": (_x4, lambda L, x: L.nn.functional.dropout2d(x, 0.0)),
    "dropout2d_eval": (_x4, lambda L, x: L.nn.functional.dropout2d(x, 0.5, training=False)),
    "alpha_dropout_p0": (_x, lambda L, x: L.nn.functional.alpha_dropout(x, 0.0, training=True)),
    "Dropout_eval": (_x, lambda L, x: L.nn.Dropout().eval()(x)),
    "unfold_1": (_x4, lambda L, x: L.nn.functional.unfold(x, 1)),
    "fold_1": (_x, lambda L, x: L.nn.functional.fold(x.reshape(2, 3, 4), (2, 2), 1)),
    "pixel_shuffle_1": (_x4, lambda L, x: L.nn.functional.pixel_shuffle(x, 1)),
    "pixel_unshuffle_1": (_x4, lambda L, x: L.nn.functional.pixel_unshuffle(x, 1)),
    "channel_shuffle_1": (_x4, lambda L, x: L.nn.functional.channel_shuffle(x, 1)),
    "native_channel_shuffle_1": (_x4, lambda L, x: L.native_channel_shuffle(x, 1)),
    "Identity": (_x, lambda L, x: L.nn.Identity()(x)),
    "Flatten_2d": (_x, lambda L, x: L.nn.Flatten()(x[0])),
    "flatten_1d": (_x1, lambda L, x: x.flatten()),
    "to_same_dtype": (_x, lambda L, x: x.to(L.float32)),
    "to_copy": (_x, lambda L, x: x.to(L.float32, copy=True)),
    "type_same": (_x, lambda L, x: x.type(L.float32)),
    "type_as": (_x, lambda L, x: x.type_as(x)),
    "cpu": (_x, lambda L, x: x.cpu()),
    "contiguous": (_x4, lambda L, x: x.contiguous()),
    "contiguous_channels_last": (_x4, lambda L, x: x.contiguous(memory_format=L.channels_last)),
    "repeat_1": (_x, lambda L, x: x.repeat(1, 1, 1)),
    "tile_1": (_x, lambda L, x: x.tile((1,))),
    "atleast_3d": (_x, lambda L, x: L.atleast_3d(x)),
    "cat_one": (_x, lambda L, x: L.cat([x])),
    "stack_one": (_x, lambda L, x: L.stack([x])),
    "hstack_one": (_x, lambda L, x: L.hstack([x])),
    "block_diag_one": (_x, lambda L, x: L.block_diag(x[0])),
    "real": (_x, lambda L, x: x.real),
    "conj_real": (_x, lambda L, x: L.conj(x)),
    "resolve_neg": (_x, lambda L, x: L.resolve_neg(x)),
    "positive": (_x, lambda L, x: L.positive(x)),
    "sum_no_dims": (_x, lambda L, x: x.sum(dim=())),
    "amax_no_dims": (_x, lambda L, x: x.amax(dim=())),
    "flip_no_dims": (_x, lambda L, x: L.flip(x, [])),
    "roll_0": (_x, lambda L, x: L.roll(x, 0, 0)),
    "rot90_0": (_x, lambda L, x: L.rot90(x, 0)),
    "rot90_4": (_x, lambda L, x: L.rot90(x, 4)),
    "narrow_full": (_x, lambda L, x: L.narrow(x, 0, 0, 2)),
    "movedim_same": (_x, lambda L, x: L.movedim(x, 0, 0)),
    "chunk_1": (_x, lambda L, x: L.chunk(x, 1)[0]),
    "tensor_split_1": (_x, lambda L, x: L.tensor_split(x, 1)[0]),
    "einsum_identity": (_x, lambda L, x: L.einsum("ijk->ijk", x)),
    "einsum_permute": (_x, lambda L, x: L.einsum("ijk->kji", x)),
    "broadcast_tensors_one": (_x, lambda L, x: L.broadcast_tensors(x)[0]),
    "as_tensor": (_x, lambda L, x: L.as_tensor(x)),
    "asarray_copy": (_x, lambda L, x: L.asarray(x, copy=True)),
    "fftshift_even": (_x, lambda L, x: L.fft.fftshift(x, dim=0)),
    "diff_0": (_x1, lambda L, x: L.diff(x, n=0)),
    "diff_0_prepend": (_x1, lambda L, x: L.diff(x, n=0, prepend=x[:2], append=x[:1])),
    "trunc_int": (_x, lambda L, x: L.trunc(x.long())),
    "lerp_weight_0": (_x, lambda L, x: L.lerp(x, x, 0.0)),
    "meshgrid_one": (_x1, lambda L, x: L.meshgrid(x, indexing="ij")[0]),
    "combinations_1": (_x1, lambda L, x: L.combinations(x, 1)),
    "sort_sorted": (_x1, lambda L, x: L.sort(x)[0]),
    "softmax_size_1": (_x, lambda L, x: L.softmax(x[:, :1], 1)),
    "cumsum_size_1": (_x, lambda L, x: L.cumsum(x[:, :1], 1)),
    "tril_all": (_x, lambda L, x: L.tril(x, 10)),
    "masked_fill_nothing": (_x, lambda L, x: x.masked_fill(L.zeros(2, 3, 4, dtype=L.bool), 0.0)),
    "clamp_wide": (_x, lambda L, x: L.clamp(x, min=-1e9)),
    "pad_sequence_one": (_x, lambda L, x: L.nn.utils.rnn.pad_sequence([x[0]])),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_result_aliases_input_as_torch(case: str) -> None:
    make, call = CASES[case]
    shares, values = [], []
    for L in (ember, torch):
        x = make(L)
        y = call(L, x)
        shares.append(y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
        values.append((tuple(y.shape), y.dtype.is_floating_point, y.flatten().tolist()))
    assert shares[0] == shares[1], f"{case}: ember shares storage {shares[0]}, torch {shares[1]}"
    assert values[0] == values[1]
