"""Fuzz findings of issue 16 on seeds 3001-3004: PyTorch's exception types and values where ember
differed, and the torch_known_wrong entries and fuzz-harness rules for the calls where PyTorch's
answer is wrong or its build's choice. Helpers are test_fuzz_findings_ops.py's."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402  (conftest.py registers it)

_FO = load("test_fuzz_findings_ops")
outcome, same, check, call, known_wrong = _FO.outcome, _FO.same, _FO.check, _FO.call, _FO.known_wrong
NAN, INF = _FO.NAN, _FO.INF
EDGE = [-NAN, 1e-45, -5e-324, 1e-300, 65504.0, -65520.0, 1e300, -1e300, 2.0**53 + 2, -2.0**63, 0.1, -0.0, INF,
        6e-8, -INF, 300.0, -1.0, 255.9, 256.0, -129.0, 2.0**63, 2.0**64, 1e19, -3e9, 3e9, 2.0**32 + 7]


def _nn(m: Any) -> Any:
    return torch.ops.aten if m is torch else ember._nn


def _as_torch(t: Any) -> Any:
    return torch.tensor(t.tolist(), dtype=getattr(torch, str(t.dtype).split(".")[-1]))


def _corrected(entry_id: str, name: str, args: tuple, kwargs: dict | None = None) -> Any:
    kw = known_wrong()
    entry = kw.lookup(name, args, kwargs or {})
    assert entry is not None and entry.id == entry_id, entry
    return kw.corrected(entry, None, name, args, kwargs or {})


# ---- exception types ---------------------------------------------------------------------------

@pytest.mark.parametrize("f", call(
    # aten's std/var out= of a half input into a float/double out reducing to one element takes its
    # two-pass CPU path, which takes float and double only
    lambda m: m.std(m.ones(3, dtype=m.float16), out=m.empty(0)),
    lambda m: m.std(m.ones(2, 3, dtype=m.float16), 0, out=m.empty(0)),  # 3 outputs: computed
    lambda m: m.std(m.ones(3, 1, dtype=m.bfloat16), 0, out=m.empty(0, dtype=m.float64)),
    lambda m: m.var(m.ones(2, 3, dtype=m.bfloat16), (0, 1), keepdim=True, out=m.empty(0, dtype=m.float64)),
    lambda m: m.var(m.ones(0, 3, dtype=m.float16), out=m.empty(0)),  # no values: NaN, no error
    lambda m: m.std(m.ones((), dtype=m.float16), out=m.empty(0)),
    lambda m: m.std(m.ones(2, 3, dtype=m.float32), out=m.empty(0, dtype=m.float16)),
    # conv with padding='same' and a dilation past the input: the centre tap or padding only
    lambda m: m.conv3d(m.arange(120.0).reshape(1, 2, 3, 4, 5), m.ones(4, 2, 1, 2, 1), None, 1, "same",
                       [1, 2**63 - 1, 1]),
    lambda m: m.conv3d(m.arange(120.0).reshape(1, 2, 3, 4, 5), m.ones(4, 2, 1, 3, 1), None, 1, "same",
                       [1, 2**62, 1]),
    lambda m: m.conv2d(m.arange(40.0).reshape(2, 4, 5), m.ones(3, 2, 3, 2), m.ones(3), 1, "same", [2**61, 99]),
    lambda m: m.conv1d(m.arange(10.0).reshape(1, 2, 5), m.ones(1, 2, 4), None, 1, "same", 13),
    lambda m: m.conv1d(m.arange(10.0).reshape(1, 2, 5), m.ones(1, 2, 4), None, 1, "same", 2**62 + 1),
))
def test_fuzz_3001_checks(f: Callable[[Any], Any]) -> None:
    check(f)


@pytest.mark.parametrize("f", call(
    lambda m: m.conv3d(m.ones(1, 2, 3, 4, 5), m.ones(4, 2, 1, 2, 1), None, 1, 0, [1, 2**63 - 1, 1]),
    lambda m: m.conv1d(m.ones(1, 2, 5), m.ones(1, 2, 3), None, 1, 0, 2**62),
))
def test_conv_dilated_span_past_int64(f: Callable[[Any], Any]) -> None:
    """A dilated kernel of 2**63 or more is larger than any input: PyTorch wraps the span (and
    returns a shape cut to 32 bits), torch_known_wrong's conv-stride-dilation-past-int32 raises."""
    assert outcome(ember, f)[:2] == ("raise", "RuntimeError")


@pytest.mark.parametrize("src", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("n", [1, 3, 16])
def test_float_to_uint8_goes_through_int64(src: str, n: int) -> None:
    """c10 casts a float to uint8 through int64 (2**53 + 2 -> 2, 2**32 + 7 -> 7, out of range or NaN
    -> 0), in every loop -- ember's scalar loop went through int32."""
    check(lambda m: m.zeros(len(EDGE) * n, dtype=m.uint8).copy_(m.tensor(EDGE * n, dtype=getattr(m, src))))
    check(lambda m: m.tensor(EDGE * n, dtype=getattr(m, src)).to(m.uint8))
    check(lambda m: m.tensor(EDGE * n, dtype=getattr(m, src))[::2].to(m.uint8))


# ---- torch_known_wrong -------------------------------------------------------------------------

def test_nearest_backward_infinite_scale_is_the_adjoint() -> None:
    """scales_w = inf (1 / inf = 0): PyTorch's forward reads input 0 for every output column, its
    backward halves (out == 2 * in); ember's backward is the forward's adjoint."""
    g = torch.arange(120.0, dtype=torch.float64).reshape(1, 2, 3, 4, 5).repeat(1, 1, 2, 2, 2)
    kw = {"scales_d": 2.0, "scales_h": 2.0, "scales_w": INF}
    want = _corrected("upsample-nearest-backward-shortcut", "upsample_nearest3d_backward",
                      (g, (6, 8, 10), (1, 2, 3, 4, 5)), kw)
    x = torch.randn(1, 2, 3, 4, 5, dtype=torch.float64)
    y = torch._C._nn.upsample_nearest3d(x, (6, 8, 10), 2.0, 2.0, INF)
    torch.testing.assert_close((y * g).sum(), (x * want).sum())  # <F x, g> = <x, F* g>
    got = ember._nn.upsample_nearest3d_backward(ember.tensor(g.tolist(), dtype=ember.float64), (6, 8, 10),
                                                (1, 2, 3, 4, 5), **kw)
    assert torch.equal(_as_torch(got), want)


@pytest.mark.parametrize("a", [5, -7, 2**62, -2**63])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fmod_quotient_overflow(a: int, dtype: str) -> None:
    """fmod(a, b) where a / b overflows: PyTorch's vector loop gives NaN, its scalar tail the exact
    value, which ember gives everywhere."""
    b = torch.tensor(EDGE, dtype=getattr(torch, dtype))
    want = _corrected("fmod-quotient-overflow", "fmod", (torch.tensor(a), b))
    got = ember.fmod(ember.tensor(a), ember.tensor(EDGE, dtype=getattr(ember, dtype)))
    assert torch.equal(_as_torch(got).nan_to_num(7.0), want.nan_to_num(7.0))
    assert not want[1:2].isnan().any()  # 5 mod the smallest subnormal is 0, not NaN


@pytest.mark.parametrize("mode", ["upsample_bilinear2d", "upsample_bicubic2d"])
@pytest.mark.parametrize("align", [True, False])
def test_uint8_rgb_to_one_pixel(mode: str, align: bool) -> None:
    """PyTorch's AVX uint8 kernel asserts for 3 channels into 1 x 1; the value is its answer with a
    fourth channel added."""
    x = (torch.arange(120) * 7).reshape(2, 3, 4, 5).to(torch.uint8)
    want = _corrected("upsample-uint8-rgb-to-one-pixel", mode, (x, (1, 1), align))
    got = getattr(ember._nn, mode)(ember.tensor(x.tolist(), dtype=ember.uint8), (1, 1), align)
    assert torch.equal(_as_torch(got), want)


def test_flash_strided_value_with_nan_rows() -> None:
    """The strided-head entry's contiguous call meets sdpa-flash-nan-row: NaN rows stay NaN."""
    q = torch.randn(2, 3, 5, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    q[0, 0, 1, 2] = NAN
    k = torch.randn(2, 3, 6, 4, dtype=torch.float64)
    v = torch.randn(2, 3, 4, 6, dtype=torch.float64).transpose(-2, -1)
    name = "_scaled_dot_product_flash_attention_for_cpu"
    out, lse = _corrected("sdpa-flash-strided-head-dim", name, (q, k, v))
    assert out[0, 0, 1].isnan().all() and lse[0, 0, 1].isnan()
    e = ember._nn._scaled_dot_product_flash_attention_for_cpu(*(ember.tensor(t.tolist(), dtype=ember.float64)
                                                                for t in (q, k, v)))
    torch.testing.assert_close(_as_torch(e[0]), out, equal_nan=True)
    torch.testing.assert_close(_as_torch(e[1]), lse, equal_nan=True)


@pytest.mark.parametrize("q_dtype", ["float32", "float64"])
def test_flash_empty_query(q_dtype: str) -> None:
    """PyTorch's kernel divides by zero for a query of length 0 (before its dtype check)."""
    args = (torch.ones(2, 3, 0, 4, dtype=getattr(torch, q_dtype)), torch.ones(2, 3, 6, 4, dtype=torch.float64),
            torch.ones(2, 3, 6, 4, dtype=torch.float64))
    want = outcome(torch, lambda _m: _corrected("sdpa-flash-no-heads", "_scaled_dot_product_flash_attention_for_cpu",
                                                args))
    got = outcome(ember, lambda m: m._nn._scaled_dot_product_flash_attention_for_cpu(
        m.ones(2, 3, 0, 4, dtype=getattr(m, q_dtype)), m.ones(2, 3, 6, 4, dtype=m.float64),
        m.ones(2, 3, 6, 4, dtype=m.float64)))
    assert want[:2] == got[:2] if want[0] == "raise" else same(want, got), f"{want} vs {got}"


def test_hardtanh_backward_nan_bound_integer_input() -> None:
    g, x = torch.randn(3, 4), torch.arange(-6, 6).reshape(3, 4)
    want = _corrected("hardtanh-backward-nan", "hardtanh_backward", (g, x, -1.0, NAN))
    got = ember._nn.hardtanh_backward(ember.tensor(g.tolist()), ember.arange(-6, 6).reshape(3, 4), -1.0, NAN)
    assert torch.equal(_as_torch(got), want)


def test_group_norm_many_empty_groups() -> None:
    want = _corrected("group-norm-many-empty-groups", "group_norm", (torch.ones(1, 0), 2**31 - 1))
    for got in (ember.nn.functional.group_norm(ember.ones(1, 0), 2**31 - 1),
                ember.group_norm(ember.ones(1, 0), 2**31 - 1)):
        assert (got.dtype, tuple(got.shape)) == (ember.float32, tuple(want.shape))


# ---- fuzz harness rules --------------------------------------------------------------------------

def _props() -> Any:
    return load("fuzz_props")


def test_sum_order_rule() -> None:
    """aten sums 7 values in 4 ILP partial sums (1e300 absorbs the rest: 0), ember in its own order;
    both within the summation bound. A difference past the bound stays a failure."""
    fp = _props()
    S = fp.S
    vals = (65504.0, -65520.0, 1e300, -1e300, 2.0**53 + 2, -2.0**63, 0.1)
    c = S.Call(("op", "sum", "sum", "function"), (S.TS((7,), "float64", values=vals),), {})
    t = S.to_plain(torch.tensor(sum(vals), dtype=torch.float64))
    for e in (-9.214364837600035e18, 0.0):
        assert fp._within_sum_order(c, S.to_plain(torch.tensor(e, dtype=torch.float64)), t, "sum")
    c = S.Call(("op", "sum", "sum", "function"), (S.TS((3,), "float64", values=(1.0, 2.0, 3.0)),), {})
    assert not fp._within_sum_order(c, S.to_plain(torch.tensor(6.5, dtype=torch.float64)),
                                    S.to_plain(torch.tensor(6.0, dtype=torch.float64)), "sum")


def test_svd_of_nonfinite_is_dtype_and_shape_only() -> None:
    fp = _props()
    S = fp.S
    assert fp._nonfinite((S.TS((3, 3), "float64", values=(1.0, math.nan, 2.0)),))
    assert not fp._nonfinite((S.TS((3, 3), "float64"),))
    assert {"svd", "svdvals"} <= fp.NONFINITE_NOISE_OPS


def test_unfold_block_count_past_int64() -> None:
    """(2**32 + 2) ** 2 blocks: PyTorch wraps the count for an empty batch; ember raises."""
    args = (torch.zeros(0, 3, 5, 5), (2, 2))
    kw = {"dilation": 1, "padding": 2**31 - 1, "stride": 1}
    with pytest.raises(RuntimeError):
        _corrected("unfold-block-count-wraps", "unfold", args, kw)
    got = outcome(ember, lambda m: m.nn.functional.unfold(m.zeros(0, 3, 5, 5), (2, 2), **kw))
    assert got[:2] == ("raise", "RuntimeError"), got
    assert known_wrong().lookup("unfold", args, {**kw, "padding": 2**20}) is None
    # Tensor.unfold(dim, size, step) is a view: PyTorch's own answer
    assert known_wrong().lookup("unfold", (torch.zeros(0, 0, 2), 2, 2, 2**31 - 1), {}) is None
    check(lambda m: m.zeros(0, 0, 2).unfold(2, 2, 2**31 - 1))


@pytest.mark.parametrize("p", [INF, -INF])
def test_lp_pool1d_infinite_norm_huge_kernel(p: float) -> None:
    """norm_type +-inf is max_pool1d of |x|: a 2**53 window is PyTorch's crash, the size error here."""
    args = (torch.ones(2, 3, 8), p, 2**53)
    with pytest.raises(RuntimeError):
        _corrected("max-pool1d-kernel-past-int32", "lp_pool1d", args, {"stride": 2})
    got = outcome(ember, lambda m: m.nn.functional.lp_pool1d(m.ones(2, 3, 8), p, 2**53, stride=2))
    assert got[:2] == ("raise", "RuntimeError"), got


def test_loss_sum_order_rule() -> None:
    """poisson_nll_loss's mean over terms of +-5.4e18 that cancel: PyTorch's 0.2125 and ember's 0.1062
    are both within the summation bound of the exact 0.425."""
    fp = _props()
    S = fp.S
    c = S.Call(("F", "poisson_nll_loss"), (S.TS((), "float32"), S.TS((4, 4), "int64", "special", expands=(0,))),
               {"log_input": True, "full": False, "eps": 1e-8})
    t, e = (S.to_plain(torch.tensor(v)) for v in (0.21245941519737244, 0.10622970759868622))
    assert fp._within_sum_order(c, e, t, "poisson_nll_loss")
    c = S.Call(("F", "poisson_nll_loss"), (S.TS((), "float32"), S.TS((4, 4), "float32")), {"log_input": True})
    assert not fp._within_sum_order(c, S.to_plain(torch.tensor(0.5)), S.to_plain(torch.tensor(0.6)),
                                    "poisson_nll_loss")


def test_flash_backward_out_of_three_dims() -> None:
    """PyTorch's flash backward reads a 3-d out with 4-d indexing (out (0, 0, 0): a crash)."""
    f64 = {"dtype": torch.float64}
    args = (torch.ones(2, 3, 5, 4, **f64), torch.ones(2, 3, 5, 4, **f64), torch.ones(2, 3, 6, 4, **f64),
            torch.ones(2, 3, 6, 4, **f64), torch.ones(0, 0, 0, **f64), torch.ones(2, 3, 5, **f64), 0.0, False)
    with pytest.raises(RuntimeError):
        _corrected("sdpa-flash-inconsistent-shapes", "_scaled_dot_product_flash_attention_for_cpu_backward", args)
    e = [ember.ones(*t.shape, dtype=ember.float64) for t in args[:6]]
    got = outcome(ember, lambda m: m._nn._scaled_dot_product_flash_attention_for_cpu_backward(*e, 0.0, False))
    assert got[:2] == ("raise", "RuntimeError"), got


def test_hardtanh_backward_nan_bound_integer_gradient() -> None:
    """An int64 gradient with a float input: the float result meets the NaN bound as well."""
    g, x = torch.arange(12).reshape(3, 4), torch.linspace(-3, 3, 12).reshape(3, 4)
    want = _corrected("hardtanh-backward-nan", "hardtanh_backward", (g, x, -1.0, NAN))
    got = ember._nn.hardtanh_backward(ember.arange(12).reshape(3, 4), ember.tensor(x.tolist()), -1.0, NAN)
    assert torch.equal(_as_torch(got), want)
