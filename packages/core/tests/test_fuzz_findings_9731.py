"""Fuzz findings of seed 9731: PyTorch's exception types and messages where ember differed, and the
known-wrong entries of this round. Helpers are test_fuzz_findings_ops.py's."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402  (conftest.py registers it)

_FO = load("test_fuzz_findings_ops")
_KW = load("torch_known_wrong")
check, call, check_message = _FO.check, _FO.call, _FO.check_message


# ---- conv_transpose1d with an empty weight: both refuse it (the seed's 'torch succeeded' did not reproduce) --

def test_conv_transpose1d_empty_weight() -> None:
    check_message(lambda m: m.conv_transpose1d(m.ones(2, 2, 3, dtype=m.float64), m.ones(0, 0, 0, dtype=m.float64),
                                               m.ones(0, dtype=m.float64), 2147483647, 1, 1))


# ---- nll_loss / cross_entropy: empty classes, 1-d input with a 1-d target, integer logits -----

@pytest.mark.parametrize("f", call(
    lambda m: m.nn.functional.nll_loss(m.ones(2, 0, 2, 2), m.tensor([0, 1, 2, 1]).reshape(2, 2, 1).expand(2, 2, 2),
                                       weight=m.ones(0)),
    lambda m: m.nn.functional.nll_loss(m.ones(0), m.zeros(1, dtype=m.int64)),
    lambda m: m.nn.functional.nll_loss(m.ones(0), m.tensor([-100]), reduction="sum"),
    lambda m: m.nn.functional.nll_loss(m.tensor([-1.0, -2.0]), m.tensor([1])),
    lambda m: m.nn.functional.nll_loss(m.tensor([-1.0, -2.0]), m.tensor([1]), reduction="none"),
    lambda m: m.nn.functional.cross_entropy(m.tensor([-1.0, -2.0]), m.tensor([1])),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 0, dtype=m.int64), m.zeros(3, dtype=m.int64),
                                            label_smoothing=0.1),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 0, dtype=m.int32), m.full((3,), -100),
                                            label_smoothing=0.1, reduction="none"),
    lambda m: m.nn.functional.cross_entropy(m.ones(0, dtype=m.int64), m.zeros(1, dtype=m.int64)),
))
def test_nll_loss_edges(f: Any) -> None:
    check_message(f)


# ---- lerp: a 0-d or number weight promotes and casts into out= (its dtype dispatch after) ----


@pytest.mark.parametrize("f", call(
    lambda m: m.lerp(m.ones(3, 4, dtype=m.int64), m.ones(3, 4, dtype=m.int64), m.tensor(1), out=m.zeros(0)),
    lambda m: m.lerp(m.ones(3, 4, dtype=m.int64), m.ones(3, 4, dtype=m.int64), m.tensor(1), out=m.zeros(3, 4)),
    lambda m: m.lerp(m.ones(3, 4, dtype=m.int64), m.ones(3, 4, dtype=m.int64), m.tensor(1),
                     out=m.zeros(0, dtype=m.bool)),
    lambda m: m.lerp(m.ones(3, 4, dtype=m.int64), m.ones(3, 4, dtype=m.int64), 1.5, out=m.zeros(0, dtype=m.bool)),
    lambda m: m.lerp(m.ones(3, 4, dtype=m.int64), m.ones(3, 4, dtype=m.int64), m.ones(3, 4, dtype=m.int64),
                     out=m.zeros(0)),
    lambda m: m.lerp(m.ones(3, 4), m.ones(3, 4), m.tensor(0.25), out=m.zeros(0, dtype=m.float64)),
    lambda m: m.lerp(m.ones(3, 4), m.ones(3, 4), 0.25, out=m.zeros(0, dtype=m.float16)),
    lambda m: m.lerp(m.ones(3, 4), m.ones(3, 4), m.tensor(0.25), out=m.zeros(0, dtype=m.int64)),
    lambda m: m.lerp(m.ones(3, 4), m.ones(3, 4), m.tensor(0.5, dtype=m.complex64), out=m.zeros(0)),
    lambda m: m.lerp(m.ones(3, 4), m.ones(3, 4), m.ones(3, 4), out=m.zeros(0, dtype=m.float64)),
))
def test_lerp_out_dtype_order(f: Any) -> None:
    check_message(f)


# ---- lp_pool's flag error names the avg pool it forwards to ------------------------------------

@pytest.mark.parametrize("f", call(
    lambda m: m.nn.functional.lp_pool1d(m.ones(2, 3, 5), 2, 2, ceil_mode=1),
    lambda m: m.nn.functional.lp_pool1d(m.ones(2, 3, 5), 2, 2, 2, 1),
    lambda m: m.nn.functional.lp_pool2d(m.ones(2, 3, 5, 5), 2, 2, ceil_mode=1),
))
def test_lp_pool_flag_message(f: Any) -> None:
    check_message(f)


# ---- known wrong: reductions into an out= whose elements share memory; unfold's int32 block count --

def _kw_raises(entry_id: str, name: str, args: tuple, kwargs: dict, ember_call: Any) -> None:
    entry = _KW.lookup(name, args, kwargs)
    assert entry is not None and entry.id == entry_id
    with pytest.raises(Exception) as want:  # noqa: PT011 - the type is compared below
        entry.correct(name, args, kwargs)
    with pytest.raises(Exception) as got:  # noqa: PT011
        ember_call()
    assert type(want.value).__name__ == type(got.value).__name__, f"{want.value!r} vs {got.value!r}"


@pytest.mark.parametrize("op", ["prod", "sum", "nansum", "amax"])
def test_reduction_out_overlap_known_wrong(op: str) -> None:
    src = torch.arange(1, 13).reshape(3, 4)
    dtype = torch.int64 if op == "amax" else torch.float32
    _kw_raises("reduction-out-internal-overlap", op, (src, 0), {"out": torch.zeros(1, dtype=dtype).expand(4)},
               lambda: getattr(ember, op)(ember.arange(1, 13).reshape(3, 4), 0,
                                          out=ember.zeros(1, dtype=getattr(ember, str(dtype)[6:])).expand(4)))


def test_reduction_out_overlap_resized_is_torchs() -> None:
    # an out= of another shape is resized to fresh memory: PyTorch's answer stands
    assert _KW.lookup("prod", (torch.ones(3, 4), 0), {"out": torch.zeros(1).expand(3)}) is None


@pytest.mark.parametrize("dtype", ["int64", "float32"])
def test_unfold_int32_block_count_known_wrong(dtype: str) -> None:
    x = torch.ones(2, 3, 5, 5, dtype=getattr(torch, dtype))
    kw = {"kernel_size": (2, 2), "dilation": 2**31 - 1, "padding": 2**31 - 1}
    _kw_raises("unfold-block-count-wraps-int32", "unfold", (x,), kw,
               lambda: ember.nn.functional.unfold(ember.ones(2, 3, 5, 5, dtype=getattr(ember, dtype)), **kw))
