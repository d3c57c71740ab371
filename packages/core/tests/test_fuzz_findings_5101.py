"""Fuzz findings of seed 5101: circular padding past a negative pad's crop, max pooling of integer input with a
dilated kernel past int32 (both PyTorch-wrong: known-wrong entries), and an empty crop's error in ember.
Helpers are test_fuzz_findings_ops.py's."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402  (conftest.py registers it)

_FO = load("test_fuzz_findings_ops")
_KW = load("torch_known_wrong")
check, call, check_message = _FO.check, _FO.call, _FO.check_message


def _ember_pad(x: Any, pad: tuple) -> Any:
    return ember.nn.functional.pad(ember.tensor(x.tolist(), dtype=ember.float32), pad, mode="circular")


# ---- circular padding: a pad past what the other side's crop leaves wraps it again --------------

@pytest.mark.parametrize("shape, pad", [((4, 2, 5), (4, -2)), ((4, 2, 5), (5, -1)), ((1, 5), (-2, 4)),
                                        ((1, 3), (-1, 3)), ((1, 3, 4), (1, 1, -2, 2)), ((4, 2, 5), (4, -4))])
def test_circular_pad_past_crop_known_wrong(shape: tuple, pad: tuple) -> None:
    x = torch.arange(1.0, 1.0 + torch.Size(shape).numel()).reshape(shape)
    kwargs = {"mode": "circular"}
    entry = _KW.lookup("pad", (x, pad), kwargs)
    assert entry is not None and entry.id == "pad-circular-wrap-past-crop"
    assert _ember_pad(x, pad).tolist() == entry.correct("pad", (x, pad), kwargs).tolist()


def test_circular_pad_past_crop_is_periodic() -> None:
    x = torch.arange(1.0, 6.0).reshape(1, 1, 5)
    assert _ember_pad(x, (4, -2)).tolist() == [[[3.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0]]]
    # PyTorch's own right-side wrap past the crop, where its overlap check lets it through
    want = torch.nn.functional.pad(torch.arange(1.0, 41.0).reshape(4, 2, 5), (-2, 4), mode="circular")
    assert _ember_pad(torch.arange(1.0, 41.0).reshape(4, 2, 5), (-2, 4)).tolist() == want.tolist()


@pytest.mark.parametrize("shape, pad", [((4, 2, 5), (-5, 1)), ((1, 2, 3), (-3, 1, 0, 0)), ((1, 3, 4), (0, 0, 1, -3))])
def test_circular_pad_cropped_to_nothing(shape: tuple, pad: tuple) -> None:
    x = torch.ones(shape)
    entry = _KW.lookup("pad", (x, pad), {"mode": "circular"})
    assert entry is not None and entry.id == "pad-circular-wrap-past-crop"
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        entry.correct("pad", (x, pad), {"mode": "circular"})
    with pytest.raises(RuntimeError, match="wrapping around more than once"):  # was a ZeroDivisionError
        _ember_pad(x, pad)


@pytest.mark.parametrize("f", call(
    lambda m: m.nn.functional.pad(m.ones(4, 2, 5), (-6, 1), mode="circular"),  # an empty result: nothing read
    lambda m: m.nn.functional.pad(m.ones(2, 4, 3), (-3, 3, -4, 0), mode="circular"),
    lambda m: m.nn.functional.pad(m.arange(40.0).reshape(4, 2, 5), (2, -1), mode="circular"),
    lambda m: m.nn.functional.pad(m.arange(40.0).reshape(4, 2, 5), (-3, 1), mode="circular"),
    lambda m: m.nn.functional.pad(m.arange(40.0).reshape(4, 2, 5), (6, -1), mode="circular"),
))
def test_circular_pad_within_crop(f: Any) -> None:
    check(f)


# ---- max pooling: a dilated kernel past int32 wraps in aten whatever the input's dtype ---------------

@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool", "float16"])
def test_max_pool_dilated_kernel_any_dtype_known_wrong(dtype: str) -> None:
    args = (torch.ones(2, 5, 6, 7, dtype=getattr(torch, dtype)), (2, 3, 2**31 - 1), (1, 2, 2), (1, 1, 0), (2, 1, 4),
            True)
    entry = _KW.lookup("max_pool3d_with_indices", args, {})
    assert entry is not None and entry.id == "max-pool-dilated-kernel-int-overflow"
    with pytest.raises(RuntimeError, match="Output size is too small"):
        ember._nn.max_pool3d_with_indices(ember.ones(2, 5, 6, 7, dtype=getattr(ember, dtype)), *args[1:])


# ---- out= order: index_copy wraps dim before out='s dtype and runs on out='s storage; gather resizes first --

@pytest.mark.parametrize("f", call(
    lambda m: m.index_copy(m.ones(4, 3, dtype=m.int32), 2, m.tensor([0]), m.ones(1, 3, dtype=m.int32),
                           out=m.zeros(0)),
    lambda m: m.index_copy(m.ones(4, 3, dtype=m.int32), 0, m.tensor([0]), m.ones(1, 2, dtype=m.int32),
                           out=m.zeros(0)),
    lambda m: m.index_copy(m.ones(4, 3, dtype=m.int32), 0, m.tensor([9]), m.ones(1, 3, dtype=m.int32),
                           out=m.zeros(0, dtype=m.int32)),
    lambda m: m.index_copy(m.ones(0, 3), 0, m.tensor([3, 1]), m.ones(2, 3), out=m.zeros(3)),
    lambda m: m.index_copy(m.ones(0, 3), 0, m.tensor([3, 1]), m.ones(2, 3), out=m.zeros(0)),
    lambda m: m.index_copy(m.ones(4, 3), 0, m.tensor([1]), m.full((1, 3), 2.0), out=m.zeros(1).expand(12)),
    lambda m: m.gather(m.ones(3, 4), 1, m.tensor([[0, 3], [1, 1], [2, 2]]), out=m.zeros(1).expand(2)),
    lambda m: m.gather(m.ones(3, 4), 1, m.tensor([[0, 3], [1, 1], [2, 2]]), out=m.zeros(1).expand(3, 2)),
    lambda m: m.mean(m.ones(2, 3, 4), 3, keepdim=True, out=m.zeros(0, dtype=m.int64)),
))
def test_out_check_order(f: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the resize of a non-empty out= warns in both
        check_message(f)


# ---- rerun findings: replicate padding past int64; 3-d max pooling indices in channels-last memory ---------

def test_pad_replicate_size_overflow() -> None:
    """The padded size 2**64 + 1: ember built an index of that many entries (a hang); PyTorch wraps it to 1."""
    args, kwargs = (torch.ones(1, 2, 3, 4), (1, 1, 2**63 - 1, 2**63 - 1)), {"mode": "replicate"}
    entry = _KW.lookup("pad", args, kwargs)
    assert entry is not None and entry.id == "pad-replicate-size-wraps"
    with pytest.raises(RuntimeError, match="overflows int64"):
        ember.nn.functional.pad(ember.ones(1, 2, 3, 4), args[1], **kwargs)
    # pads that fit: PyTorch's answers stand
    assert _KW.lookup("pad", (torch.ones(1, 2, 3, 4), (1, 1, 2, 2)), kwargs) is None
    check(lambda m: m.nn.functional.pad(m.arange(24.0).reshape(1, 2, 3, 4), (1, 1, 2, 2), mode="replicate"))


def test_max_pool3d_channels_last_neginf_known_wrong() -> None:
    x = torch.full((1, 2, 4, 4, 4), float("-inf")).contiguous(memory_format=torch.channels_last_3d)
    entry = _KW.lookup("max_pool3d_with_indices", (x, 2, 2), {"return_indices": True})
    assert entry is not None and entry.id == "max-pool3d-channels-last-neginf-index"
    want = entry.correct("max_pool3d_with_indices", (x, 2, 2), {"return_indices": True})[1]
    ex = ember.full((1, 2, 4, 4, 4), float("-inf")).contiguous(memory_format=ember.channels_last_3d)
    got = ember.nn.functional.max_pool3d_with_indices(ex, 2, 2, return_indices=True)[1]
    assert got.tolist() == want.tolist()
    assert want[0, 0].flatten().tolist() == [0, 2, 8, 10, 32, 34, 40, 42]
