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


@pytest.mark.parametrize("n", [3, 64])  # the scalar tail and the vector body of ember's conversion loop
def test_bfloat16_nan_keeps_sign_and_top_payload(n: int) -> None:
    # PyTorch 2.13 writes 0xffff for every NaN in its vector path (a positive NaN turns negative)
    # and 0x7fc0 in its scalar path; ember keeps the sign and the top payload bits, quieted, as the
    # AVX-512 BF16 instruction does: (bits >> 16) | 0x40.
    for bits in NANS:
        e = ember.tensor([_f32(bits)] * n, dtype=ember.float32).to(ember.bfloat16)
        want = ((bits >> 16) | 0x40) - (1 << 16 if bits >> 31 else 0)
        assert e.view(ember.int16).tolist() == [want] * n, hex(bits)
        assert ember.signbit(e).tolist() == [bits >> 31 == 1] * n


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_negated_nan_has_its_sign(dt: str) -> None:
    e = (-ember.full((64,), float("nan"))).to(getattr(ember, dt))
    t = (-torch.full((64,), float("nan"))).to(getattr(torch, dt))
    assert ember.signbit(e).tolist() == torch.signbit(t).tolist() == [True] * 64


def test_bfloat16_rounding_bits_as_torch() -> None:
    # Every non-NaN float32 pattern class in one vectorised pass: ties to even, carries into the
    # exponent, overflow to inf, subnormals; then the exact widening back.
    g = torch.Generator().manual_seed(0)
    bits = torch.randint(-(2**31), 2**31 - 1, (4096,), dtype=torch.int64, generator=g)
    bits[:256] = (bits[:256] & ~0xFFFF) | 0x8000  # exact ties
    bits[256:512] = (bits[256:512] & ~0xFFFF) | 0x7FFF
    src = bits.to(torch.int32).view(torch.float32)
    src = torch.where(src.isnan(), torch.zeros_like(src), src)
    e = ember.tensor(src.tolist(), dtype=ember.float32).to(ember.bfloat16)
    t = src.to(torch.bfloat16)
    assert e.view(ember.int16).tolist() == t.view(torch.int16).tolist()
    assert e.to(ember.float32).tolist() == t.to(torch.float32).tolist()
