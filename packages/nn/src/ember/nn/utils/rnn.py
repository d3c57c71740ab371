"""Packed and padded variable-length sequences (``torch.nn.utils.rnn``).

A PackedSequence stores the time steps of a batch of sequences back to back: step ``t`` holds
``batch_sizes[t]`` rows, the sequences still running at ``t`` (sorted longest first). The
packing / padding functions are built from index_select and cat, so gradients flow through.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from typing import Any

import ember
from ember import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]

_PackedSequenceBase = namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    return ember.argsort(permutation)


class PackedSequence(_PackedSequenceBase):
    """Data and per-step batch sizes of a packed batch of sequences (see module docstring)."""

    def __new__(cls, data: Tensor, batch_sizes: Tensor | None = None, sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> PackedSequence:
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be "
                                 "created manually. They should be instantiated by functions like pack_sequence "
                                 "and pack_padded_sequences in nn.utils.rnn. "
                                 "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        # PackedSequence((data, batch_sizes)): the pair as one argument
        if not (isinstance(data, (list, tuple)) and len(data) == 2):
            raise TypeError("PackedSequence expects data and batch_sizes, or a (data, batch_sizes) pair")
        return super().__new__(cls, data[0], data[1], sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """data moved / cast as Tensor.to; the index tensors follow data's device (batch_sizes stays on CPU)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        dev = data.device
        sorted_indices = None if self.sorted_indices is None else self.sorted_indices.to(dev)
        unsorted_indices = None if self.unsorted_indices is None else self.unsorted_indices.to(dev)
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def double(self) -> PackedSequence:
        return self.to(dtype=ember.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=ember.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=ember.float16)

    def bfloat16(self) -> PackedSequence:
        return self.to(dtype=ember.bfloat16)

    def long(self) -> PackedSequence:
        return self.to(dtype=ember.int64)

    def int(self) -> PackedSequence:
        return self.to(dtype=ember.int32)

    def short(self) -> PackedSequence:
        return self.to(dtype=ember.int16)

    def char(self) -> PackedSequence:
        return self.to(dtype=ember.int8)

    def byte(self) -> PackedSequence:
        return self.to(dtype=ember.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.device.type == "cuda"

    def is_pinned(self) -> bool:
        return False


def _lengths_list(lengths: Tensor | Sequence[int]) -> list[int]:
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D "
                               f"{str(lengths.dtype).replace('ember.', '')} tensor")
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def _batch_sizes(lengths: list[int]) -> list[int]:
    """batch_sizes[t] = how many (decreasingly sorted) lengths exceed t."""
    out, k = [], len(lengths)
    for t in range(lengths[0] if lengths else 0):
        while k and lengths[k - 1] <= t:
            k -= 1
        out.append(k)
    return out


def pack_padded_sequence(input: Tensor, lengths: Tensor | list[int], batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` if batch_first) of sequences of ``lengths``."""
    lens = _lengths_list(lengths)
    sorted_indices = None
    if enforce_sorted:
        if any(lens[i] < lens[i + 1] for i in range(len(lens) - 1)):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
    else:
        order = sorted(range(len(lens)), key=lambda i: -lens[i])  # stable, as torch.sort(descending=True)
        sorted_indices = ember.tensor(order, dtype=ember.int64)
        lens = [lens[i] for i in order]
        input = input.index_select(0 if batch_first else 1, sorted_indices.to(input.device))
    if batch_first:
        input = input.transpose(0, 1)
    if input.dim() < 2:
        raise RuntimeError(f"pack_padded_sequence: expected a tensor with at least 2 dimensions, got {input.dim()}")
    T, B = input.shape[0], input.shape[1]
    if len(lens) != B:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
                           f"(batch_size={B})")
    if lens and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if lens and lens[0] > T:
        raise RuntimeError(f"pack_padded_sequence: a length ({lens[0]}) is longer than the padded sequence "
                           f"({T} steps)")
    sizes = _batch_sizes(lens)
    # row t * B + b of the flattened input, for every running sequence b at every step t
    index = [t * B + b for t, bs in enumerate(sizes) for b in range(bs)]
    flat = input.reshape((T * B,) + tuple(input.shape[2:]))
    data = flat.index_select(0, ember.tensor(index, dtype=ember.int64).to(input.device))
    return PackedSequence(data, ember.tensor(sizes, dtype=ember.int64), sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """Inverse of pack_padded_sequence: ``(padded, lengths)`` in the original batch order."""
    data, batch_sizes = sequence.data, [int(v) for v in sequence.batch_sizes.tolist()]
    max_len = len(batch_sizes)
    if total_length is not None:
        if total_length < max_len:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_len}")
        T = total_length
    else:
        T = max_len
    B = batch_sizes[0] if batch_sizes else 0
    feat = tuple(data.shape[1:])
    n = data.shape[0]
    # every (t, b) cell of the padded output reads a data row, or row n: one padding row
    index, offset = [], 0
    for t in range(T):
        bs = batch_sizes[t] if t < max_len else 0
        index.extend(offset + b if b < bs else n for b in range(B))
        offset += bs
    pad = ember.full((1,) + feat, padding_value, dtype=data.dtype, device=data.device)
    padded = ember.cat([data, pad]).index_select(0, ember.tensor(index, dtype=ember.int64).to(data.device))
    padded = padded.reshape((T, B) + feat)
    lengths = [sum(1 for bs in batch_sizes if bs > b) for b in range(B)]
    lengths_t = ember.tensor(lengths, dtype=ember.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices.to(data.device))
        lengths_t = lengths_t[sequence.unsorted_indices.cpu()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, lengths_t


def pad_sequence(sequences: Tensor | list[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of different lengths ``(L_i, *)`` into ``(T, B, *)`` (``(B, T, *)`` if batch_first)."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0))
    seqs = list(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    T = max(s.shape[0] for s in seqs)
    padded = []
    for s in seqs:
        extra = T - s.shape[0]
        if extra:
            pad = ember.full((extra,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
            s = ember.cat([s, pad] if padding_side == "right" else [pad, s])
        padded.append(s)
    return ember.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list[Tensor]:
    """Split a padded batch back into its sequences (the inverse of pad_sequence)."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences, _lengths_list(lengths), strict=True)]


def pack_sequence(sequences: list[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences ``(L_i, *)`` (longest first unless enforce_sorted=False)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)

