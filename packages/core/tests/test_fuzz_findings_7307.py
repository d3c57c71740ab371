"""Fuzz findings of seed 7307: a number past int64 beside an integer tensor with a float out=, integer floor /
trunc division of an empty tensor by 0, upsample backward's allocation before its dtype error, and the
adaptive-pool and slogdet checks of the fuzz properties. Helpers are test_fuzz_findings_ops.py's."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402  (conftest.py registers it)

_FO = load("test_fuzz_findings_ops")
_KW = load("torch_known_wrong")
check, call, check_message = _FO.check, _FO.call, _FO.check_message


# ---- an out= takes no part in the result's type: the number wraps beside an integer input -----------

@pytest.mark.parametrize("f", call(
    lambda m: m.pow(m.tensor([1, 2, 3]), 2**63, out=m.zeros(0)),
    lambda m: m.pow(m.tensor([1, 2, 3]), 2**63),
    lambda m: m.tensor([1, 2, 3]).pow_(2**63),
    lambda m: m.pow(m.tensor([1, 2, 3]), 2**63 - 1),
    lambda m: m.add(m.tensor([2**62, 3]), 2**63, out=m.zeros(0)),
    lambda m: m.mul(m.tensor([1, 2, 3]), 2**63, out=m.zeros(0)),
    lambda m: m.sub(m.tensor([2**62, 3]), 2**63, out=m.zeros(0, dtype=m.float64)),
    lambda m: m.add(m.tensor([1.0, 2.0]), 2**63, out=m.zeros(0, dtype=m.float64)),  # beside a float: its value
))
def test_uint64_number_with_out(f: Any) -> None:
    check_message(f)


# ---- integer division by zero of an empty tensor: no element, no error ------------------------------

@pytest.mark.parametrize("f", call(
    lambda m: m.zeros(0, 0, 0, dtype=m.int64).div_(0, rounding_mode="floor"),
    lambda m: m.div(m.zeros(0, 0, 0, dtype=m.int64), 0, rounding_mode="floor"),
    lambda m: m.zeros(0, dtype=m.int64).div_(0, rounding_mode="trunc"),
    lambda m: m.div(m.zeros(0, 3, dtype=m.int32), m.zeros(3, dtype=m.int32), rounding_mode="trunc"),
    lambda m: m.zeros(2, dtype=m.int64).div_(0, rounding_mode="floor"),
    lambda m: m.div(m.zeros(2, dtype=m.int64), m.zeros(3, dtype=m.int64), rounding_mode="floor"),
))
def test_int_div_by_zero_empty(f: Any) -> None:
    check_message(f)


# ---- upsample backward: the input's gradient is allocated before the dtype dispatch -------------------

@pytest.mark.parametrize("mode", ["upsample_nearest2d_backward", "_upsample_nearest_exact2d_backward"])
def test_upsample_backward_allocation_first(mode: str) -> None:
    def f(m: Any) -> Any:
        ns = m.ops.aten if m is torch else m._nn
        return getattr(ns, mode)(m.ones(2, 3, 8, 10, dtype=m.int64), (8, 10), (2, 3, 4, 2**31 - 1))
    check(f)  # out of memory in both (a RuntimeError), not the dtype's NotImplementedError
    check(lambda m: getattr(m.ops.aten if m is torch else m._nn, mode)(m.ones(2, 3, 8, 10, dtype=m.int64),
                                                                       (8, 10), (2, 3, 4, 5)))


# ---- the fuzz properties: adaptive pooling's entry leaves the parser's error; slogdet's bound -----------

def test_adaptive_empty_entry_leaves_parser_errors() -> None:
    args = (torch.ones(1, 1, 0, 0, 0), (2, 0, 2**63))
    assert _KW.lookup("adaptive_max_pool3d", args, {}) is None
    assert _KW.lookup("adaptive_max_pool3d", (torch.ones(1, 1, 0, 0, 0), (2**40, 2, 0)), {}) is None
    check(lambda m: (m._C._nn if m is torch else m._nn).adaptive_max_pool3d(m.ones(1, 1, 0, 0, 0), (2, 0, 2**63)))


def test_slogdet_within_lu_bound() -> None:
    """An ill-conditioned float32 matrix: the log of |det| from two LUs differs within 2 n cond eps."""
    fp = load("fuzz_props")
    g = torch.Generator().manual_seed(0)
    a = torch.randn(5, 5, generator=g)
    a[4] = a[3] + 1e-3 * torch.randn(5, generator=g)
    call_ = fp.S.Call(("op", "slogdet", "slogdet", "function"),
                      (fp.S.TS((5, 5), "float32", values=tuple(a.flatten().tolist())),), {}, False)
    t = torch.linalg.slogdet(a)
    e = ember.linalg.slogdet(ember.tensor(a.tolist()))
    got = tuple(fp.S.TR("float32", (), torch.tensor(v.item())) for v in e)
    want = tuple(fp.S.TR("float32", (), v) for v in t)
    assert fp._within_det_bound(call_, got, want, "slogdet")
    far = (got[0], fp.S.TR("float32", (), torch.tensor(e[1].item() + 0.1)))
    assert not fp._within_det_bound(call_, far, want, "slogdet")


# ---- pow of float32 by a number float32 would round: the double exponent, as aten reads it ------------------

@pytest.mark.parametrize("e", [5e-324, 1e-46, 16777217.0, -16777217.0, 0.1, 1 / 3, 1e39, 3.0])
def test_pow_float32_number_exponent(e: float) -> None:
    vals = [-2.0, -0.5, 2.0, 0.5, 1.5, 0.0, -0.0, float("inf"), float("-inf"), float("nan")]
    check(lambda m: m.pow(m.tensor(vals), e))
    check(lambda m: m.tensor(vals).pow_(e))


@pytest.mark.parametrize("odt", ["float32", "float64", "float16", "int64"])  # (complex: same() has no complex NaN)
@pytest.mark.parametrize("e", [5e-324, 0.1, 16777217.0])
def test_pow_int_base_float_exponent_out(e: float, odt: str) -> None:
    """The result type float32 computed as pow does (the double exponent), then cast into out=."""
    check_message(lambda m: m.pow(m.tensor([[-3, -1, 0, 1, 2]]), e, out=m.zeros(0, dtype=getattr(m, odt))))
