"""Core-op and functional fuzz findings of issue 16 from seed 1141 (and the calls the earlier runs
left open), each as the smallest call that showed it: PyTorch's check order and exception types,
the calls it accepts, its values, and the torch_known_wrong entries of the calls where PyTorch
answers wrong. Helpers are test_fuzz_findings_ops.py's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402  (conftest.py registers it)

_FO = load("test_fuzz_findings_ops")
outcome, same, check, call, known_wrong = _FO.outcome, _FO.same, _FO.check, _FO.call, _FO.known_wrong
NAN, INF = _FO.NAN, _FO.INF


def _f(m: Any) -> Any:
    return m.nn.functional


def _strided(m: Any) -> Any:
    """A (4, 3, 5) float32 input that is neither contiguous nor channels-last."""
    return m.linspace(-2.0, 3.0, 240).reshape(4, 6, 10)[:, ::2, ::2]


def _special(m: Any, n: int) -> Any:
    vals = [NAN, -INF, INF, 0.0, -0.0, 1.0, -1.5, 3e38, -3e38, 1e-40, 65504.0, 2.5]
    return m.tensor([vals[(i * 5) % len(vals)] for i in range(n)])


# ---- PyTorch's check order and exception types ----------------------------------------------

@pytest.mark.parametrize("f", call(
    # angle: the iterator's overlap check on out= before anything else
    lambda m: m.angle(m.ones(3, 4), out=m.empty(1).expand(2)),
    lambda m: m.angle(m.ones(3, 4), out=m.empty(1).expand(12)),
    lambda m: m.angle(m.ones(3, 4), out=m.empty(0)),
    # nansum: the dim before the out= dtype
    lambda m: m.nansum(m.tensor(1.0), 1, out=m.empty(0, dtype=m.int64)),
    lambda m: m.nansum(m.ones(2, 3), 2, out=m.empty(0, dtype=m.int64)),
    lambda m: m.nansum(m.ones(2, 3), 1, out=m.empty(0, dtype=m.int64)),
    # a lone int for an int[1] is the bare-int form: its overflow is the parser's ValueError
    lambda m: m.ones(3, 4, dtype=m.bool).var(2**63),
    lambda m: m.var(m.ones(3, 4), 2**63),
    lambda m: m.ones(3, 4).std(2**63),
    lambda m: m.ones(3, 4).var(2**63, correction=1),
    lambda m: m.ones(3, 4).count_nonzero(2**63),
    lambda m: m.ones(3, 4).count_nonzero(0, 1),
    lambda m: m.ones(3, 4).var(1),
    lambda m: m.ones(3, 4).var(m.tensor(1)),
    lambda m: m.ones(3, 4).count_nonzero(m.tensor(0)),
    lambda m: m.ones(3, 4).permute(2**63, 0),
    lambda m: m.ones(3, 4).flip(2**63),
    # batch_norm in evaluation on a strided input reads 1 / sqrt(running_var + eps), a tensor op:
    # an integer or bool running_var is promoted to float32 there (only a float32 input takes it)
    lambda m: _f(m).batch_norm(_strided(m), m.zeros(3), m.tensor([1, 2, 3]), m.ones(3), m.zeros(3)),
    lambda m: _f(m).batch_norm(_strided(m), m.zeros(3), m.tensor([True, False, True])),
    lambda m: _f(m).batch_norm(_strided(m).double(), m.zeros(3).double(), m.tensor([1, 2, 3])),
    lambda m: _f(m).batch_norm(_strided(m).contiguous(), m.zeros(3), m.tensor([1, 2, 3])),
    lambda m: _f(m).batch_norm(_strided(m), m.zeros(3), m.tensor([1, 2, 3]), training=True),
    lambda m: _f(m).batch_norm(_strided(m), m.zeros(3).double(), m.tensor([1, 2, 3])),
    lambda m: _f(m).batch_norm(_strided(m).half(), m.zeros(3).half(), m.tensor([1, 2, 3])),
    # ... and it reads each per-channel tensor as 1-d
    lambda m: _f(m).batch_norm(_strided(m), m.zeros(3), m.ones(3), m.ones(1, 3), m.zeros(3)),
    lambda m: _f(m).batch_norm(_strided(m), m.zeros(1, 3), m.ones(3)),
    lambda m: _f(m).batch_norm(_strided(m).contiguous(), m.zeros(3), m.ones(3), m.ones(1, 3), m.zeros(3)),
    # native_batch_norm in training: the kernel's dtype error before any statistic
    lambda m: (m.ops.aten.native_batch_norm if m is torch else m.native_batch_norm)(
        m.arange(6).reshape(2, 3), None, None, m.zeros(3), m.ones(3), True, 0.1, 1e-5),
    # angle of a complex input writes out= through a temporary: no overlap check
    lambda m: m.angle(m.ones(3, 4, dtype=m.complex64), out=m.empty(1).expand(2)),
    # index_put counts its indices first
    lambda m: m.index_put(m.zeros(()), (m.tensor(1, dtype=m.uint8),), m.tensor(5.0)),
    lambda m: m.index_put(m.zeros(2), (m.tensor([0]), m.tensor([0])), m.tensor(5.0)),
    # sdpa: the mask's shape is checked before the strides
    lambda m: _f(m).scaled_dot_product_attention(m.zeros(1, 2, 4, 0), m.zeros(1, 2, 5, 8),
                                                 m.zeros(1, 2, 8, 5).permute(0, 1, 3, 2), attn_mask=m.tensor(True)),
))
def test_seed_1141_order(f: Callable[[Any], Any]) -> None:
    check(f)


# ---- values ------------------------------------------------------------------------------------

@pytest.mark.parametrize("f", call(
    # isclose is aten's composite: |a - b| and atol + |rtol * b| in the input's dtype (integers
    # in float32)
    lambda m: m.isclose(_special(m, 12).reshape(12, 1), _special(m, 12).reshape(1, 12), rtol=1e300, atol=INF),
    lambda m: m.isclose(_special(m, 12), _special(m, 12).flip(0), rtol=1e-5, atol=1e-8, equal_nan=True),
    lambda m: m.isclose(m.tensor([3e38, 1.0, 0.0]), m.tensor([-3e38, 1.0 + 1e-7, 1e-9])),
    lambda m: m.isclose(m.tensor([1.0, 2.0]).half(), m.tensor([1.001, 2.01]).half(), rtol=1e-3),
    lambda m: m.isclose(m.tensor([-2**63, 0, 5]), m.tensor([2**63 - 1, 1, 5]), rtol=0.1, atol=1),
    lambda m: m.isclose(m.tensor([0, 200], dtype=m.uint8), m.tensor([255, 100], dtype=m.uint8), atol=2),
    lambda m: m.isclose(m.tensor([16777217, 7]), m.tensor([16777216, 8]), rtol=0.0, atol=0.5),
    lambda m: m.isclose(m.tensor([True, False]), m.tensor([True, True]), atol=1),
    lambda m: m.isclose(m.tensor([1.0]), m.tensor([1.0]), rtol=0.0, atol=0.0),
    # logspace's integer step: the difference wraps in the dtype (int8 and uint8 promote to int)
    lambda m: m.logspace(-2**63, 3, 4, dtype=m.int64),
    lambda m: m.logspace(-2**31, 3, 4, dtype=m.int32),
    lambda m: m.logspace(2**31 - 1, -2, 4, base=1.0000001, dtype=m.int32),
    lambda m: m.logspace(-128, 127, 4, base=1.01, dtype=m.int8),
    lambda m: m.logspace(0, 255, 5, base=1.02, dtype=m.uint8),
    lambda m: m.logspace(5, -3, 7, dtype=m.int8),
    # mean into a half type: a float32 sum of the input, divided, rounded once
    lambda m: m.mean(m.linspace(-1.3, 2.9, 12).reshape(3, 4), 1, dtype=m.float16),
    lambda m: m.mean(m.linspace(-1.3, 2.9, 12).reshape(3, 4).double(), dtype=m.bfloat16),
    lambda m: m.mean(m.linspace(-1.3, 2.9, 12).reshape(3, 4).half(), 0, dtype=m.float16),
    lambda m: m.nanmean(m.linspace(-1.3, 2.9, 12).reshape(3, 4), 1, dtype=m.float16),
))
def test_seed_1141_values(f: Callable[[Any], Any]) -> None:
    check(f)


def test_group_norm_group_of_one_is_the_bias() -> None:
    """A group of one element normalizes to 0: the output is the bias exactly, as PyTorch's float64
    computation says (its float32 x * scale + shift is off by ulps of x * scale, 1e-4 here)."""
    x = ember.linspace(-2.0, 3.0, 12).reshape(3, 4)
    w, b = ember.tensor([1.5, -2.0, 0.7, 3.0]), ember.tensor([0.25, -1.0, 2.0, 0.5])
    y = ember.group_norm(x, 4, w, b)
    assert y.tolist() == b.expand(3, 4).tolist()
    tx = torch.linspace(-2.0, 3.0, 12).reshape(3, 4).double()
    ty = torch.group_norm(tx, 4, torch.tensor(w.tolist()).double(), torch.tensor(b.tolist()).double())
    assert torch.allclose(ty.float(), torch.tensor(y.tolist()), rtol=1.3e-6, atol=1e-6)
    x2 = ember.linspace(-2.0, 3.0, 24).reshape(2, 4, 3)
    y2 = ember.group_norm(x2, 2, ember.ones(4), ember.zeros(4))
    t2 = torch.group_norm(torch.tensor(x2.tolist()).double(), 2, torch.ones(4).double(), torch.zeros(4).double())
    assert torch.allclose(t2.float(), torch.tensor(y2.tolist()), rtol=1.3e-6, atol=1e-6)


# ---- torch_known_wrong entries ----------------------------------------------------------------

@pytest.mark.parametrize("n", [2**31 - 1, 2**31, 2**32 + 1])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_polygamma_order_past_int32(n: int, dtype: str) -> None:
    """PyTorch's kernel takes the order as a C int (NaN at 2**31 - 1, trigamma's values at
    2**32 + 1): ember gives the entry's value, n! zeta(n + 1, x) in logs."""
    kw = known_wrong()
    vals = [0.5, 1.0, 2.0, 3.5, 1e9, 1e10, 65504.0, -0.3, -0.7, -0.5, -1.0, 0.0, INF, -INF, NAN, 1e-45,
            -1.2076, -2.8034, -1.5]
    if dtype in ("int64", "bool"):
        vals = [1, 2, 7, 0, -1, -3] if dtype == "int64" else [True, False]
    x = torch.tensor(vals, dtype=getattr(torch, dtype))
    entry = kw.lookup("polygamma", (n, x), {})
    assert entry is not None and entry.id == "polygamma-order-past-int32"
    want = outcome(torch, lambda _m: kw.corrected(entry, None, "polygamma", (n, x), {}))
    got = outcome(ember, lambda m: m.polygamma(n, m.tensor(vals, dtype=getattr(m, dtype))))
    assert same(want, got), f"{want} vs {got}"


@pytest.mark.parametrize("name", ["multi_margin_loss", "multilabel_margin_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_margin_loss_empty_batch(name: str, reduction: str, dtype: str) -> None:
    """PyTorch reduces an empty batch from a buffer it never wrote: ember's sum is 0, its mean NaN
    (and a dtype without a kernel its error, as for any other batch)."""
    kw = known_wrong()

    def args(m: Any) -> tuple:
        t = m.zeros(0, dtype=m.int64) if name == "multi_margin_loss" else m.zeros(0, 4, dtype=m.int64)
        return (m.zeros(0, 4, dtype=getattr(m, dtype)), t)

    entry = kw.lookup(name, args(torch), {"reduction": reduction})
    assert entry is not None and entry.id == "margin-loss-empty-batch"
    want = outcome(torch, lambda _m: kw.corrected(entry, None, name, args(torch), {"reduction": reduction}))
    got = outcome(ember, lambda m: getattr(_f(m), name)(*args(m), reduction=reduction))
    assert want[:2] == got[:2] if want[0] == "raise" else same(want, got), f"{want} vs {got}"


def test_sdpa_empty_value_nonfinite_query() -> None:
    """PyTorch spreads one NaN of one batch's key over every output once the value is empty: ember
    gives the weighted sum of no values, 0, as PyTorch does for finite inputs."""
    kw = known_wrong()

    def args(m: Any) -> tuple:
        k = m.linspace(-1.0, 1.0, 192).reshape(2, 3, 4, 8)
        k[0, 0, 0, 0] = NAN
        return (m.linspace(-2.0, 2.0, 192).reshape(2, 3, 4, 8), k, m.ones(0, 3, 4, 8))

    name = "scaled_dot_product_attention"
    entry = kw.lookup(name, args(torch), {"is_causal": True})
    assert entry is not None and entry.id == "sdpa-empty-value-nonfinite"
    want = outcome(torch, lambda _m: kw.corrected(entry, None, name, args(torch), {"is_causal": True}))
    got = outcome(ember, lambda m: _f(m).scaled_dot_product_attention(*args(m), is_causal=True))
    assert same(want, got), f"{want} vs {got}"


@pytest.mark.parametrize("mask", [(5, 6), (1, 6), (2, 3, 5, 6), None])
def test_sdpa_flash_empty_query_mask_first(mask: tuple | None) -> None:
    """aten's kernel views and expands the mask before it divides by the query blocks (SIGFPE for a
    length-0 query; torch_known_wrong's sdpa-flash-no-heads): a mask that cannot cover the query's
    rows is that expand's RuntimeError, else the outputs are empty."""
    kw = known_wrong()
    name = "_scaled_dot_product_flash_attention_for_cpu"

    def args(m: Any) -> tuple:
        kv = m.ones(2, 3, 6, 4, dtype=m.float64)
        return (m.ones(2, 3, 0, 4, dtype=m.float64), kv, kv)

    def kwargs(m: Any) -> dict:
        return {} if mask is None else {"attn_mask": m.ones(mask, dtype=m.float64)}

    entry = kw.lookup(name, args(torch), kwargs(torch))
    assert entry is not None and entry.id == "sdpa-flash-no-heads"
    want = outcome(torch, lambda _m: kw.corrected(entry, None, name, args(torch), kwargs(torch)))
    got = outcome(ember, lambda m: getattr(m._nn, name)(*args(m), **kwargs(m)))
    assert want[:2] == got[:2] if want[0] == "raise" else same(want, got), f"{want} vs {got}"


@pytest.mark.parametrize("grad", ["int64", "int32", "bool"])
def test_gelu_backward_int_grad_half_self(grad: str) -> None:
    """PyTorch's oneDNN path takes a float16 self only on CPUs with AVX512-FP16 (and then refuses
    an integer gradient): ember computes the value everywhere (gelu-backward-int-grad-half-self)."""
    kw = known_wrong()

    def args(m: Any) -> tuple:
        return (m.tensor([1, 0, 3]).to(getattr(m, grad)), m.tensor([0.5, -1.0, 2.0], dtype=m.float16))

    entry = kw.lookup("gelu_backward", args(torch), {})
    assert entry is not None and entry.id == "gelu-backward-int-grad-half-self"
    want = outcome(torch, lambda _m: kw.corrected(entry, None, "gelu_backward", args(torch), {}))
    got = outcome(ember, lambda m: m._nn.gelu_backward(*args(m)))
    assert same(want, got), f"{want} vs {got}"


@pytest.mark.parametrize("mask, value, accumulate", [
    ("bool", (3,), False), ("uint8", (3,), False), ("uint8", (), True), ("bool", (1, 3), True),
    ("false", (3,), False), ("false", (), True),
])
def test_index_put_0d_mask(mask: str, value: tuple, accumulate: bool) -> None:
    """A 0-d mask indexes a new leading dim, as setitem with it does; PyTorch's index_put fails an
    internal assert there (torch_known_wrong: index-put-0d-mask)."""
    kw = known_wrong()

    def args(m: Any) -> tuple:
        idx = {"bool": m.tensor(True), "uint8": m.tensor(1, dtype=m.uint8), "false": m.tensor(False)}[mask]
        return (m.arange(6.0).reshape(2, 3), (idx,), m.full(value, 5.0))

    entry = kw.lookup("index_put", (*args(torch), accumulate), {})
    assert entry is not None and entry.id == "index-put-0d-mask"
    want = outcome(torch, lambda _m: kw.corrected(entry, None, "index_put", (*args(torch), accumulate), {}))
    got = outcome(ember, lambda m: m.index_put(*args(m), accumulate))
    assert same(want, got), f"{want} vs {got}"
