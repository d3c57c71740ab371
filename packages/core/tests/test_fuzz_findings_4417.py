"""Fuzz findings of seed 4417: gaussian_nll_loss at an infinite variance, cross_entropy's and nll_loss's
check orders and messages, resize_'s size arithmetic, and the known differences and known-wrong entries of
this round. Helpers are test_fuzz_findings_ops.py's."""

from __future__ import annotations

import math
import time
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402  (conftest.py registers it)

_FO = load("test_fuzz_findings_ops")
_KW = load("torch_known_wrong")
check, call, check_message = _FO.check, _FO.call, _FO.check_message
INF = float("inf")


# ---- gaussian_nll_loss: an infinite variance is clamped, not turned into inf - inf -----------

@pytest.mark.parametrize("f", call(
    lambda m: m.nn.functional.gaussian_nll_loss(m.zeros(3, 4), m.ones(3, 4), m.tensor([INF]).expand(3, 4)),
    lambda m: m.nn.functional.gaussian_nll_loss(m.zeros(3, 4), m.ones(3, 4), m.full((3, 4), INF), reduction="none"),
    lambda m: m.nn.functional.gaussian_nll_loss(m.zeros(3, 4), m.ones(3, 4), m.full((3, 1), INF), reduction="sum"),
    lambda m: m.nn.functional.gaussian_nll_loss(m.zeros(3, 4), m.ones(3, 4), m.full((3,), INF), full=True),
    lambda m: m.nn.functional.gaussian_nll_loss(m.zeros(3), m.zeros(3), m.ones(3, dtype=m.int64)),
))
def test_gaussian_nll_infinite_var(f: Any) -> None:
    check(f)


def test_gaussian_nll_clamp_gradient() -> None:
    """The clamp is invisible to autograd: var's gradient is the unclamped formula's, in both libraries."""
    grads = []
    for m in (torch, ember):
        v = m.tensor([1e-9, 2.0, 3.0], requires_grad=True)
        x = m.tensor([1.0, 2.0, 3.5], requires_grad=True)
        m.nn.functional.gaussian_nll_loss(x, m.zeros(3), v).backward()
        grads.append((v.grad.tolist(), x.grad.tolist()))
    assert _FO.same(grads[0], grads[1]), grads


# ---- cross_entropy: the probability-target checks, then the class dim, then label_smoothing ----

@pytest.mark.parametrize("f", call(
    lambda m: m.nn.functional.cross_entropy(m.tensor(1.0), m.tensor(1.0), label_smoothing=INF),
    lambda m: m.nn.functional.cross_entropy(m.tensor(1.0), m.tensor(1.0), label_smoothing=0.5),
    lambda m: m.nn.functional.cross_entropy(m.tensor(1.0), m.tensor(1), label_smoothing=INF),
    lambda m: m.nn.functional.cross_entropy(m.tensor(1.0), m.ones(3, dtype=m.int64), label_smoothing=INF),
    lambda m: m.nn.functional.cross_entropy(m.ones(3), m.ones(3, dtype=m.int64), label_smoothing=2.0),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 2), m.ones(3, 2), label_smoothing=2.0, ignore_index=3),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 2), m.ones(3, dtype=m.int64), label_smoothing=2.0),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 2), m.ones(3, dtype=m.int64), label_smoothing=1.0000001),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 2), m.ones(3, dtype=m.int64), label_smoothing=2.0**53),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 2), m.ones(3, dtype=m.int64), label_smoothing=1e300),
))
def test_cross_entropy_smoothing_order(f: Any) -> None:
    check_message(f)


# ---- cross_entropy with label smoothing: the weight's dtype, a Byte target's weighted mean ------

@pytest.mark.parametrize("f", call(
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 2, dtype=m.float64), m.tensor([0, 1, 0]), weight=m.ones(2),
                                            label_smoothing=0.5),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 2), m.tensor([0, 5, 0]), weight=m.ones(2, dtype=m.float64),
                                            label_smoothing=0.5, reduction="none"),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 2, 4), m.zeros(3, 4, dtype=m.uint8),
                                            weight=m.ones(2, dtype=m.float64), label_smoothing=0.5),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 2), m.ones(3, dtype=m.uint8), weight=m.ones(2),
                                            label_smoothing=0.5),
    lambda m: m.nn.functional.cross_entropy(m.ones(2), m.tensor(1, dtype=m.uint8), weight=m.ones(2),
                                            label_smoothing=0.5),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 2), m.ones(3, dtype=m.uint8), weight=m.ones(2),
                                            label_smoothing=0.5, ignore_index=1),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 2), m.ones(3, dtype=m.uint8), weight=m.ones(2),
                                            label_smoothing=0.5, reduction="sum"),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 2), m.full((3,), 200, dtype=m.uint8), weight=m.ones(2),
                                            label_smoothing=0.5),
))
def test_cross_entropy_smoothing_weight(f: Any) -> None:
    check_message(f)


# ---- nll_loss of (N, C, d1, ...): nll_loss_nd's checks, then nll_loss2d's, in aten's order -----

def _nll_nd(m: Any, nd: int, defects: set) -> Any:
    n, c, sp = 3, 2, [4, 5, 6][:nd - 2]
    tdt = m.int32 if "int32" in defects else m.uint8 if "uint8" in defects else m.int64
    target = m.zeros([n + ("batch" in defects)] + [s + ("tsize" in defects) for s in sp], dtype=tdt)
    weight = m.ones(c + ("wnum" in defects), dtype=m.float64 if "wdt" in defects else m.float32)
    x = m.ones([n, c] + sp, dtype=m.int64 if "xint" in defects else m.float32)
    return m.nn.functional.nll_loss(x, target, weight=weight.reshape(1, -1) if "w2d" in defects else weight)


_DEFECTS = ["int32", "uint8", "tsize", "batch", "wnum", "wdt", "w2d", "xint"]


@pytest.mark.parametrize("nd", [3, 4, 5])
@pytest.mark.parametrize("pair", [(a, b) for i, a in enumerate(_DEFECTS) for b in _DEFECTS[i:]
                                  if {a, b} != {"int32", "uint8"}])
def test_nll_loss_nd_check_order(nd: int, pair: tuple) -> None:
    check_message(lambda m: _nll_nd(m, nd, set(pair)))


@pytest.mark.parametrize("f", call(
    lambda m: m.nn.functional.nll_loss(m.ones(3, 2, 4, 5), m.zeros(3, 4, dtype=m.int64)),
    lambda m: m.nn.functional.nll_loss(m.ones(3, 2, 4, 5), m.zeros(3, 4, 5, 1, dtype=m.int64)),
    lambda m: m.nn.functional.nll_loss(m.ones(0, 0, 4), m.zeros(0, 4, dtype=m.int64)),
    lambda m: m.nn.functional.nll_loss(m.ones(3, 0, 0), m.zeros(3, 0, dtype=m.int64)),
    lambda m: m.nn.functional.nll_loss(m.ones(3, 0, 4), m.zeros(3, 4, dtype=m.int64)),
    lambda m: m.nn.functional.nll_loss(m.ones(3, 0, 4, 5, 6), m.zeros(3, 4, 5, 6, dtype=m.int64), weight=m.ones(0)),
    lambda m: m.nn.functional.nll_loss(m.ones(3, 0, 4), m.zeros(3, 4, dtype=m.int64), weight=m.ones(1)),
    lambda m: m.nn.functional.nll_loss(m.ones(3, 2, 4, 5, dtype=m.bool), m.zeros(3, 4, 5, dtype=m.int64)),
    lambda m: m.nn.functional.nll_loss(m.ones(3, 2, 4, dtype=m.complex64), m.zeros(3, 4, dtype=m.int64)),
    lambda m: m.nn.functional.nll_loss(m.ones(3, 2, 4, 5), m.zeros(3, 4, 5, dtype=m.int64),
                                       weight=m.ones(2, dtype=m.complex64)),
    lambda m: m.nn.functional.nll_loss(m.ones(3, 2, 0), m.zeros(3, 0, dtype=m.int64), reduction="none"),
    lambda m: m.nn.functional.nll_loss(m.ones(3, 2, 4, 5, 6), m.full((3, 4, 5, 6), 5, dtype=m.int64)),
))
def test_nll_loss_nd_edges(f: Any) -> None:
    check_message(f)


# ---- resize_: PyTorch's parser, then c10's numel, stride and storage-size arithmetic -------------

@pytest.mark.parametrize("size", [(2, 2**62, 2, 0), (4, 2**62, 0), (2, 2**62, 0), (0, 2**62, 2**62), (2**61, 4),
                                  (2**62, 2), (2**62,), (2**61, 2), (2**62, 3, 0), (3, 2**62, 0)])
def test_resize_size_arithmetic(size: tuple) -> None:
    check_message(lambda m: m.tensor(m.empty(3).resize_(*size).stride()))
    check_message(lambda m: m.tensor(m.empty(3).resize_(list(size)).stride()))


@pytest.mark.parametrize("f", call(
    lambda m: m.empty(3).resize_(2, 2**63),
    lambda m: m.empty(3).resize_((2**64, 1)),
    lambda m: m.empty(0, requires_grad=True).resize_(2**63),
))
def test_resize_int64_overflow(f: Any) -> None:
    t, e = _FO.outcome(torch, f), _FO.outcome(ember, f)
    # PyTorch appends the C++ source location to this message: its first line is compared
    assert t[:2] == e[:2] == ("raise", "TypeError") and e[2].startswith(t[2].splitlines()[0]), (t, e)


@pytest.mark.parametrize("f", call(
    lambda m: m.empty(3).resize_((2, 1.5)),
    lambda m: m.empty(3).resize_(2, 1.5),
    lambda m: m.empty(3).resize_(1.5, 2),
    lambda m: m.empty(3).resize_("a"),
    lambda m: m.empty(3).resize_([2, None]),
    lambda m: m.empty(3).resize_(),
    lambda m: m.empty(3).resize_(m.tensor(2.5)),
    lambda m: m.empty(3, requires_grad=True).resize_(1.5),
    lambda m: m.empty(3).resize_(2, 3, memory_format=m.preserve_format),
    lambda m: m.empty(3).resize_((2, 3), memory_format=m.channels_last),
    lambda m: m.tensor(m.empty(3).resize_(m.tensor(2), 3).stride()),
    lambda m: m.tensor(m.empty(3).resize_((3, 2, 0, 1), memory_format=m.channels_last).stride()),
    lambda m: m.tensor(m.empty(3).resize_((3, 0, 4, 5), memory_format=m.channels_last).stride()),
    lambda m: m.tensor(m.empty(3).resize_((2, 0, 4, 5, 6), memory_format=m.channels_last_3d).stride()),
    lambda m: m.tensor(m.empty(3).resize_((2, 3, 4, 5, 6), memory_format=m.channels_last_3d).stride()),
))
def test_resize_arguments(f: Any) -> None:
    check_message(f)


# ---- adaptive average pooling to all ones: a mean, whose order of summation is the kernel's ------

def test_adaptive_avg_pool_ones_is_a_sum_order_op() -> None:
    """aten's lanes give 0 for this channel (1e300 and -1e300 meet after the rest is absorbed), ember's
    in-order sum the mean of the exact values: a known difference the fuzz properties bound (SUM_ORDER_OPS)."""
    vals = [1e300, -1e300, 9007199254740994.0, -9.223372036854776e18, 0.1, -0.0]
    got = ember._nn.adaptive_avg_pool3d(ember.tensor(vals, dtype=ember.float64).reshape(1, 1, 1, 2, 3), (1, 1, 1))
    assert got.item() == pytest.approx(math.fsum(vals[2:]) / 6, rel=1e-15)
    fp = load("fuzz_props")
    assert {"adaptive_avg_pool2d", "adaptive_avg_pool3d"} <= fp.SUM_ORDER_OPS


# ---- known wrong: a Byte target's IndexError as a character; adaptive pools' loops to nothing ----

@pytest.mark.parametrize("name, make", [
    ("nll_loss", lambda m: ((m.ones(3, 2), m.tensor([1, 5, 200], dtype=m.uint8)), {"reduction": "none"})),
    ("cross_entropy", lambda m: ((m.ones(3, 2), m.tensor([1, 0, 200], dtype=m.uint8)),
                                 {"reduction": "none", "label_smoothing": 0.3})),
])
def test_nll_byte_target_known_wrong(name: str, make: Any) -> None:
    args, kwargs = make(torch)
    entry = _KW.lookup(name, args, kwargs)
    assert entry is not None and entry.id == "nll-loss-byte-target-as-char"
    with pytest.raises(IndexError, match="Target 5 is out of bounds|Target 200 is out of bounds"):
        entry.correct(name, args, kwargs)
    eargs, ekwargs = make(ember)
    with pytest.raises(IndexError, match=r"Target \d+ is out of bounds"):
        getattr(ember.nn.functional, name)(*eargs, **ekwargs)
    # a reduced loss names the value as a number in PyTorch too: its answer stands
    assert _KW.lookup(name, args, {**kwargs, "reduction": "sum"}) is None


@pytest.mark.parametrize("name, size", [("adaptive_avg_pool3d", (2**32, 2, 0)), ("adaptive_max_pool3d", (2**30, 2, 0)),
                                        ("adaptive_max_pool2d", (2**40, 0))])
def test_adaptive_pool_empty_output_known_wrong(name: str, size: tuple) -> None:
    x = torch.ones(2, 5, 6, 7) if name.endswith("3d") else torch.ones(2, 5, 6)
    entry = _KW.lookup(name, (x, size), {})
    assert entry is not None and entry.id == "adaptive-pool-empty-output-loops"
    want = entry.correct(name, (x, size), {})
    start = time.monotonic()
    got = getattr(ember._nn, name)(ember.ones(*x.shape), size)
    assert time.monotonic() - start < 1.0
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    assert [(tuple(t.shape), str(t.dtype)[6:]) for t in want] == [(tuple(t.shape), str(t.dtype)[6:]) for t in got]
    # sizes whose product overflows: PyTorch raises at once, its answer stands
    assert _KW.lookup("adaptive_avg_pool3d", (torch.ones(2, 5, 6, 7), (2**62, 2, 0)), {}) is None


# ---- cross_entropy: a 1-D input's size-1 target with smoothing; no classes at all ---------------------

@pytest.mark.parametrize("f", call(
    lambda m: m.nn.functional.cross_entropy(m.ones(5), m.tensor([2]), label_smoothing=0.1, reduction="none"),
    lambda m: m.nn.functional.cross_entropy(m.ones(5), m.tensor([2]), label_smoothing=0.1, weight=m.ones(5)),
    lambda m: m.nn.functional.cross_entropy(m.ones(2), m.tensor([1], dtype=m.uint8), label_smoothing=0.3,
                                            weight=m.ones(2)),
    lambda m: m.nn.functional.cross_entropy(m.ones(2), m.tensor([5]), label_smoothing=0.3),  # bounds first
    lambda m: m.nn.functional.cross_entropy(m.ones(5), m.tensor(2), label_smoothing=0.1, reduction="none"),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 0), m.full((3,), 1), ignore_index=1, label_smoothing=0.5),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 0), m.full((3,), 1), ignore_index=1, label_smoothing=0.5,
                                            reduction="none"),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 0), m.ones(3, 0), label_smoothing=0.5),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 0), m.ones(3, 0), reduction="sum"),
    lambda m: m.nn.functional.cross_entropy(m.ones(3, 0), m.ones(3, 0), label_smoothing=0.5, reduction="none"),
))
def test_cross_entropy_unbatched_and_classless(f: Any) -> None:
    check_message(f)

