"""Fuzz findings of seed 6203: Python numbers past int64 promoted as PyTorch's UInt64, movedim's repeated dims
on a 0-d tensor, a norm over a strided dim in PyTorch's order, nanmean / mean with an out= PyTorch refuses,
and this round's known-wrong entries (dilated convolution's int32 padding, diag_embed's wrapped offset, the
remainder and unfold entries narrowed). Helpers are test_fuzz_findings_ops.py's."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402  (conftest.py registers it)

_FO = load("test_fuzz_findings_ops")
_KW = load("torch_known_wrong")
check, call, check_message = _FO.check, _FO.call, _FO.check_message


# ---- numbers alone: an int in [2**63, 2**64) is a UInt64, which promotes with floats only -----------

@pytest.mark.parametrize("f", call(
    lambda m: m.div(2**63, 3),
    lambda m: m.add(2**63, 3),
    lambda m: m.add(3, 2**63),
    lambda m: m.mul(2**63, 2),
    lambda m: m.sub(2**64 - 1, 1),
    lambda m: m.add(2**63, True),
    lambda m: m.add(True, 2**63),
    lambda m: m.div(2**63, 3, rounding_mode="floor"),
    lambda m: m.add(2**63, 3, alpha=2),
    lambda m: m.result_type(2**63, 3),
    lambda m: m.result_type(3, 2**63),
    lambda m: m.add(2**63, 2.5),  # a float number: the float result
    lambda m: m.mul(2**63, 1.0),
    lambda m: m.add(2**63, m.tensor(3)),  # beside a tensor the number wraps, in PyTorch too
    lambda m: m.div(2**63, m.tensor(3)),
))
def test_uint64_numbers(f: Any) -> None:
    check_message(f)


# ---- movedim: repeated dims are refused for a 0-d tensor too, every source dim before the destinations --

@pytest.mark.parametrize("f", call(
    lambda m: m.movedim(m.tensor(1.0), [0, 0], [0, 0]),
    lambda m: m.movedim(m.tensor(1.0), [0, -1], [-1, 0]),
    lambda m: m.movedim(m.ones(2, 3, 4), [0, 1, 1], [2, 2, 0]),
    lambda m: m.movedim(m.tensor(1.0), [0], [0]),
    lambda m: m.movedim(m.tensor(1.0), [0, 0], [0, 1]),
))
def test_movedim_repeated(f: Any) -> None:
    check_message(f)


# ---- a norm over a strided dim sums rounded squares, as a contiguous one does (no fused multiply-add) ------

def test_norm_strided_dim_matches() -> None:
    g = torch.Generator().manual_seed(0)
    d = torch.randn(64, 4, generator=g) * 3 + 65504
    want = torch.linalg.vector_norm(d.t().contiguous().t(), 2, -1)
    got = ember.linalg.vector_norm(ember.tensor(d.tolist()).t().contiguous().t(), 2, -1)
    assert got.tolist() == want.tolist()


def test_triplet_margin_loss_strided() -> None:
    """Seed 6203's call: distances near 131008 cancel in margin + d(a, p) - d(a, n), so a last-bit difference
    of one norm showed as 1e-3 in the loss."""
    kw = {"margin": 1.0, "p": 2.0, "eps": 65504.0, "swap": False}
    for seed in range(20):
        g = torch.Generator().manual_seed(seed)
        a, p, n = torch.randn(4, 3, generator=g), torch.randn(3, 4, generator=g), torch.randn(6, 4, generator=g)
        want = torch.nn.functional.triplet_margin_loss(a.t(), p, n[::2], **kw)
        got = ember.nn.functional.triplet_margin_loss(ember.tensor(a.tolist()).t(), ember.tensor(p.tolist()),
                                                      ember.tensor(n.tolist())[::2], **kw)
        assert got.item() == want.item(), seed


# ---- nanmean / mean with an out= of an integer dtype --------------------------------------------------

@pytest.mark.parametrize("f", call(
    lambda m: m.nanmean(m.ones(0, 4), out=m.zeros(0, dtype=m.int64)),
    lambda m: m.nanmean(m.ones(0, 4), 1, out=m.zeros(0, dtype=m.bool)),
    lambda m: m.nanmean(m.ones(0, 4, dtype=m.float64), out=m.zeros(0, dtype=m.int32)),
    lambda m: m.nanmean(m.ones(0, 4), 1, out=m.zeros(0, dtype=m.complex128)),
    lambda m: m.nanmean(m.ones(2, 4), out=m.zeros(0, dtype=m.int64)),
    lambda m: m.nanmean(m.ones(2, 4), out=m.zeros(0, dtype=m.complex64)),
    lambda m: m.mean(m.ones(2, 3, 4), 3, keepdim=True, out=m.zeros(0, dtype=m.int64)),
    lambda m: m.mean(m.ones(2, 3, 4), 1, keepdim=True, out=m.zeros(0, dtype=m.int64)),
))
def test_mean_out_integer(f: Any) -> None:
    check_message(f)


# ---- known wrong ---------------------------------------------------------------------------------------

def test_conv_dilated_padding_known_wrong() -> None:
    args = (torch.ones(1, 2, 5, 6), torch.ones(3, 2, 3, 2), None, (1, 2), (0, 2**32), (2, 1))
    entry = _KW.lookup("conv2d", args, {})
    assert entry is not None and entry.id == "conv-dilated-padding-wraps-int32"
    with pytest.raises(RuntimeError, match="allocate"):
        entry.correct("conv2d", args, {})
    with pytest.raises(RuntimeError, match="allocate"):
        ember.conv2d(ember.ones(1, 2, 5, 6), ember.ones(3, 2, 3, 2), None, (1, 2), (0, 2**32), (2, 1))
    # no dilation: PyTorch's own allocation error, its answer stands
    assert _KW.lookup("conv2d", (*args[:5], 1), {}) is None


def test_diag_embed_offset_known_wrong() -> None:
    args = (torch.ones(0, 3), 2**62, 2, 0)
    entry = _KW.lookup("diag_embed", args, {})
    assert entry is not None and entry.id == "diag-embed-empty-offset-wraps"
    want = entry.correct("diag_embed", args, {})
    got = ember.diag_embed(ember.ones(0, 3), 2**62, 2, 0)
    assert tuple(got.shape) == tuple(want.shape) == (2**62 + 3, 0, 2**62 + 3)
    assert _KW.lookup("diag_embed", (torch.ones(0, 3), 2**61, 2, 0), {}) is None  # no wrap: PyTorch's answer


def test_remainder_inplace_known_wrong_checks_shape() -> None:
    """The entry's corrected value goes through aten's in-place rules: a broadcast past self's shape is refused."""
    a, b = torch.ones(12, 1), torch.full((1, 12), 1e-45)
    a[0, 0] = 3e38
    entry = _KW.lookup("remainder", (a, b), {})
    assert entry is not None and entry.id == "remainder-quotient-overflow" and entry.iterator
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        _KW.corrected(entry, "inplace", "remainder", (a, b), {})


def test_unfold_entry_leaves_parser_errors() -> None:
    kw = {"kernel_size": (2, 2**63), "dilation": 1, "padding": 2**62, "stride": 1}
    assert _KW.lookup("unfold", (torch.ones(2, 3, 5, 5),), kw) is None
    check(lambda m: m.nn.functional.unfold(m.ones(2, 3, 5, 5), **kw))


def test_nanmean_empty_complex_out() -> None:
    got = ember.nanmean(ember.ones(0, 4), 0, out=ember.zeros(0, dtype=ember.complex128))
    want = torch.nanmean(torch.ones(0, 4), 0, out=torch.zeros(0, dtype=torch.complex128))
    assert got.dtype == ember.complex128 and tuple(got.shape) == tuple(want.shape) == (4,)
    assert bool(got.real.isnan().all()) and bool(got.imag.isnan().all())  # 0 / 0 in complex: nan+nanj


# ---- rerun findings ----------------------------------------------------------------------------------

def test_unfold_huge_padding_without_padded_copy() -> None:
    """Padding 2**31 - 1 with stride 2**31: 3 x 3 blocks; ember padded the input first (2**32 rows)."""
    check(lambda m: m.nn.functional.unfold(m.ones(2, 3, 5, 5), (2, 2), 1, 2**31 - 1, 2**31))
    check(lambda m: m.nn.functional.unfold(m.arange(150.0).reshape(2, 3, 5, 5), (2, 3), (1, 2), (2, 1), (2, 1)))


def test_unfold_padding_gradient() -> None:
    x = torch.randn(2, 3, 5, 4, dtype=torch.float64, requires_grad=True)
    ex = ember.tensor(x.tolist(), dtype=ember.float64, requires_grad=True)
    y = torch.nn.functional.unfold(x, (2, 3), (2, 1), (3, 2), (1, 2))
    g = torch.randn(y.shape, dtype=torch.float64)
    y.backward(g)
    ember.nn.functional.unfold(ex, (2, 3), (2, 1), (3, 2), (1, 2)).backward(ember.tensor(g.tolist(),
                                                                                         dtype=ember.float64))
    assert torch.allclose(torch.tensor(ex.grad.tolist(), dtype=torch.float64), x.grad)


def test_conv_dilated_padded_size_known_wrong() -> None:
    args = (torch.ones(1, 2, 5, 6), torch.ones(3, 2, 3, 2), None, (1,), (0, 2**31 - 1), (2, 1))
    entry = _KW.lookup("conv2d", args, {})
    assert entry is not None and entry.id == "conv-dilated-padding-wraps-int32"
    assert _KW.lookup("conv2d", (*args[:4], (0, 2**29), (2, 1)), {}) is None


def test_div_int_min_inplace_entry_checks_shape() -> None:
    a, b = torch.tensor(-2**63), torch.full((3, 4), -1)
    entry = _KW.lookup("div", (a, b), {"rounding_mode": "trunc"})
    assert entry is not None and entry.iterator
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        _KW.corrected(entry, "inplace", "div", (a, b), {"rounding_mode": "trunc"})
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        ember.tensor(-2**63).div_(ember.full((3, 4), -1), rounding_mode="trunc")
