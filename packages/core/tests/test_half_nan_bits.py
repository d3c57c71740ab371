"""float16/bfloat16 conversion keeps a NaN's sign and top payload bits, quieted (issue 16, point 2),
as the F16C / AVX-512 conversions PyTorch's vector paths use: signbit of a negative NaN is True."""

from __future__ import annotations

import struct

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402

NANS = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FC12345, 0xFFBFFFFF]


def _f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


@pytest.mark.parametrize("n", [1, 64])  # the scalar tail and the vector body of torch's conversion
def test_float16_nan_bits_as_torch(n: int) -> None:
    for bits in NANS:
        src = [_f32(bits)] * n
        t = torch.tensor(src, dtype=torch.float32).to(torch.float16)
        e = ember.tensor(src, dtype=ember.float32).to(ember.float16)
        assert e.view(ember.int16).tolist() == t.view(torch.int16).tolist(), hex(bits)
        assert ember.signbit(e).tolist() == [bits >> 31 == 1] * n


def test_bfloat16_nan_keeps_sign_and_top_payload() -> None:
    # PyTorch 2.13 writes 0xffff for every NaN in its vector path (a positive NaN turns negative)
    # and 0x7fc0 in its scalar path; ember keeps the sign and the top payload bits, quieted, as the
    # AVX-512 BF16 instruction does: (bits >> 16) | 0x40.
    for bits in NANS:
        e = ember.tensor([_f32(bits)] * 3, dtype=ember.float32).to(ember.bfloat16)
        want = ((bits >> 16) | 0x40) - (1 << 16 if bits >> 31 else 0)
        assert e.view(ember.int16).tolist() == [want] * 3, hex(bits)
        assert ember.signbit(e).tolist() == [bits >> 31 == 1] * 3


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_negated_nan_has_its_sign(dt: str) -> None:
    e = (-ember.full((64,), float("nan"))).to(getattr(ember, dt))
    t = (-torch.full((64,), float("nan"))).to(getattr(torch, dt))
    assert ember.signbit(e).tolist() == torch.signbit(t).tolist() == [True] * 64
