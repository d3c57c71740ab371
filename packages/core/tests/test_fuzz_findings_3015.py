"""Fuzz findings of issue 16 from seeds 3015-3017: PyTorch's values, dtypes, exception types and messages
where ember differed, the known-wrong entry of this round, and the comparison's det bound. Helpers are
test_fuzz_findings_ops.py's."""

from __future__ import annotations

import time
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402  (conftest.py registers it)

_FO = load("test_fuzz_findings_ops")
check_message = _FO.check_message
check, call, known_wrong = _FO.check, _FO.call, _FO.known_wrong
NAN = _FO.NAN


# ---- matmul: aten's should_fold decides which product's checks a batched call meets ------------

MATMUL_SHAPES = [((3,), (0, 3, 0)), ((3,), (2, 3, 0)), ((0, 3, 0), (3,)), ((2, 4, 2), (3,)), ((3, 3, 4), (4,)),
                 ((4,), (3, 3, 4)), ((4, 2), (3, 3, 4)), ((3,), (2, 4, 2)), ((2, 3), (0, 4, 0)),
                 ((0, 4, 0), (2, 3)), ((3, 3, 4), (5, 2)), ((0, 3, 4), (5,)), ((5, 2), (0, 3, 4))]


@pytest.mark.parametrize(("sa", "sb"), MATMUL_SHAPES)
@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "float32"), ("float32", "float64")])
def test_matmul_fold_errors(sa: tuple, sb: tuple, dtypes: tuple) -> None:
    """float64[3] @ float32[0, 3, 0]: aten folds an empty batched operand into one mv, whose dtype check
    refuses it (seed 3015: ember returned an empty result); a folded mm / mv names its own shapes, the
    bmm path the folded batch."""
    da, db = dtypes
    check_message(lambda m: m.matmul(m.ones(*sa, dtype=getattr(m, da)), m.ones(*sb, dtype=getattr(m, db))))


@pytest.mark.parametrize("f", call(
    # batch dims that do not fold without a copy: the bmm path (its dtype message)
    lambda m: m.matmul(m.ones(3, 4, 2).transpose(0, 1), m.ones(2, dtype=m.float64)),
    lambda m: m.matmul(m.ones(3, 4, 2).transpose(0, 1), m.ones(2, 5, dtype=m.float64)),
    lambda m: m.matmul(m.ones(3, 4, 2).transpose(0, 1), m.ones(2, 5)),
    lambda m: m.matmul(m.ones(2, 3, 4), m.ones(2, 4, 5)),
))
def test_matmul_unfolded(f: Any) -> None:
    check_message(f)


# ---- conj_physical out=: the iterator's overlap check before the resize -----------------------------

@pytest.mark.parametrize("f", call(
    lambda m: m.conj_physical(m.ones(3, 4), out=m.zeros(1).expand(2)),
    lambda m: m.conj_physical(m.ones(2), out=m.zeros(1).expand(2)),
    lambda m: m.conj_physical(m.ones(2), out=m.zeros(1, dtype=m.int64).expand(2)),
    lambda m: m.conj_physical(m.ones(2, dtype=m.complex64), out=m.zeros(1, dtype=m.complex64).expand(2)),
    lambda m: m.conj_physical(m.ones(3), out=m.zeros(0)),
))
def test_conj_physical_out_overlap(f: Any) -> None:
    check_message(f)


# ---- pdist / ldl_factor / channel_shuffle: empty inputs answered before the dtype dispatch --------

@pytest.mark.parametrize("shape", [(4, 0), (1, 0), (0, 0), (2, 3)])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_pdist_without_columns(shape: tuple, dtype: str) -> None:
    """_pdist_forward fills n(n-1)/2 zeros when the rows have no coordinates, before its float/double
    dispatch (seed 3015: float16[4, 0])."""
    check(lambda m: m.nn.functional.pdist(m.ones(*shape, dtype=getattr(m, dtype)), p=2.0))


def test_pdist_without_columns_keeps_the_graph() -> None:
    x = ember.ones(3, 0, dtype=ember.float16, requires_grad=True)
    y = ember.nn.functional.pdist(x)
    assert y.requires_grad and y.shape == (3,)
    y.sum().backward()
    assert x.grad is not None and x.grad.shape == (3, 0)


@pytest.mark.parametrize("shape", [(0, 0), (3, 0, 0), (0, 2, 2), (2, 2)])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("fn", ["ldl_factor_ex", "ldl_factor"])
def test_ldl_factor_empty_half(shape: tuple, dtype: str, fn: str) -> None:
    """An empty input returns before sytrf's dtype dispatch (seed 3015: float16[0, 0])."""
    check(lambda m: getattr(m.linalg, fn)(m.ones(*shape, dtype=getattr(m, dtype))))


@pytest.mark.parametrize(("shape", "groups"), [((0, 0, 0, 2), 2**62), ((1, 0, 0, 2), 2**62), ((0, 4, 0, 2), 2**62),
                                               ((0, 4, 3), 2), ((2, 4, 3), 2)])
def test_channel_shuffle_empty_is_an_alias(shape: tuple, groups: int) -> None:
    """An empty input is aten's alias, no reshape into (N, g, C/g, ...) whose strides overflow (seed 3017)."""
    check(lambda m: m.nn.functional.channel_shuffle(m.ones(*shape), groups))


# ---- max_pool3d of an unbatched input laid out channels-last -------------------------------------

@pytest.mark.parametrize("f", call(
    lambda m: m.nn.functional.max_pool3d(m.arange(16).reshape(1, 2, 2, 4).permute(0, 3, 1, 2), 2),
    lambda m: m.nn.functional.max_pool3d(m.arange(16.).reshape(1, 2, 2, 4).permute(0, 3, 1, 2), 1,
                                         return_indices=True),
    lambda m: m.nn.functional.max_pool3d(m.arange(16.).reshape(1, 2, 2, 4).permute(0, 3, 1, 2)[:, :1], 1),
    lambda m: m.nn.functional.max_pool3d(m.arange(16.).reshape(1, 2, 2, 4).permute(0, 3, 1, 2).to(m.bool), 1),
    # contiguous, N111-like and 5-d inputs pool
    lambda m: m.nn.functional.max_pool3d(m.arange(16.).reshape(1, 2, 2, 4), 1),
    lambda m: m.nn.functional.max_pool3d(m.arange(4.).reshape(4, 1, 1, 1), 1),
    lambda m: m.nn.functional.max_pool3d(m.arange(32.).reshape(1, 2, 2, 2, 4).permute(0, 4, 1, 2, 3), 1),
))
def test_max_pool3d_channels_last_unbatched(f: Any) -> None:
    """aten's 3-d kernel takes Contiguous or ChannelsLast3d; a 4-d input whose suggested format is
    ChannelsLast is refused before the dtype dispatch (seed 3017: int64[1, 2, 2, 2] permuted)."""
    check_message(f)


# ---- linear: the fused addmm only for a contiguous bias (multi_head_attention_forward) ------------

@pytest.mark.parametrize("bias", ["contig", "step", "0d", "expand", "2d", None])
@pytest.mark.parametrize(("xdt", "wdt", "bdt"), [("float32", "float32", "float64"), ("float64", "float32", "float32"),
                                                 ("bool", "float32", "float32"), ("float32", "float64", "float32")])
@pytest.mark.parametrize("layout", ["contig", "transposed", "1d", "2d"])
def test_linear_dtype_errors_follow_aten_paths(bias: str | None, xdt: str, wdt: str, bdt: str, layout: str) -> None:
    """aten's linear checks no dtype itself: a contiguous input and bias take one addmm (its self / mat1
    messages), others matmul then add_ (seed 3016: a strided float64 in_proj_bias beside float32 inputs
    is a float32 result; seed 3017: a permuted bool query is bmm's NotImplementedError)."""
    def f(m: Any) -> Any:
        dt = lambda s: getattr(m, s)  # noqa: E731
        x = {"contig": lambda: m.ones(3, 2, 4, dtype=dt(xdt)), "transposed": lambda: m.ones(2, 3, 4, dtype=dt(xdt))
             .transpose(0, 1), "1d": lambda: m.ones(4, dtype=dt(xdt)), "2d": lambda: m.ones(2, 4, dtype=dt(xdt))}[layout]()
        b = {None: lambda: None, "contig": lambda: m.ones(5, dtype=dt(bdt)), "step": lambda: m.ones(10, dtype=dt(bdt))[::2],
             "0d": lambda: m.ones((), dtype=dt(bdt)), "expand": lambda: m.ones(1, dtype=dt(bdt)).expand(5),
             "2d": lambda: m.ones(1, 5, dtype=dt(bdt))}[bias]()
        return m.nn.functional.linear(x, m.ones(5, 4, dtype=dt(wdt)), b)
    check_message(f)


@pytest.mark.parametrize("case", ["strided-f64-bias", "permuted-bool-query"])
def test_mha_fuzz_calls(case: str) -> None:
    fp = load("fuzz_props")
    TS = fp.TS
    f32 = TS((3, 2, 4), "float32")
    q = TS((3, 2, 4), "bool", perm=(0, 2, 1)) if case == "permuted-bool-query" else f32
    b = TS((12,), "float64", steps=(0,)) if case == "strided-f64-bias" else TS((12,), "float32")
    args = (q, f32, f32, 4, 2, TS((12, 4), "float32"), b, None, None, False, 0.0, TS((4, 4), "float32"),
            TS((4,), "float32"))
    fp.check(fp.worker(), fp.Call(("F", "multi_head_attention_forward"), args, {"need_weights": True}))


# ---- the shifted Chebyshev polynomials at a tiny x and a huge degree (known wrong) ---------------

SHIFTED = [f"shifted_chebyshev_polynomial_{k}" for k in "tuvw"]


@pytest.mark.parametrize("name", SHIFTED)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_shifted_chebyshev_tiny_x_entry(name: str, dtype: str) -> None:
    """PyTorch runs the recurrence 2**31 times where 2x - 1 rounds to -1 (6 s an element, seeds 3015 and
    3017); every step there is the one at x = 0, whose value PyTorch returns at once: the entry's."""
    dt = getattr(torch, dtype)
    x = torch.tensor([1e-45, 0.0, 0.3, NAN, 2.0, -5e-324], dtype=dt)
    n = 2**31 - 1
    start = time.monotonic()
    kw = known_wrong()
    entry = kw.lookup(name, (x, n), {})
    assert entry is not None and entry.id == "shifted-chebyshev-tiny-x-huge-degree"
    want = kw.corrected(entry, None, name, (x, n), {})
    assert time.monotonic() - start < 2.0
    fn = getattr(torch.special, name)
    # the entry's premise at a degree PyTorch loops through quickly: a tiny x is x = 0
    assert fn(x[:1], 100001).item() == fn(x[1:2], 100001).item()
    torch.testing.assert_close(want[1:3], fn(x[1:3], n))  # 0 and 0.3: PyTorch's own closed forms
    assert bool(want[3].isnan())
    assert want[0].item() == want[1].item()
    got = getattr(ember.special, name)(ember.tensor(x.tolist(), dtype=getattr(ember, dtype)), n)
    torch.testing.assert_close(torch.tensor(got.tolist(), dtype=dt), want, equal_nan=True)


def test_shifted_chebyshev_entry_scope() -> None:
    kw = known_wrong()
    n = 2**31 - 1
    assert kw.lookup("shifted_chebyshev_polynomial_v", (torch.tensor([0.3, 0.0, NAN]), 100), {}).id != \
        "shifted-chebyshev-tiny-x-huge-degree"
    assert kw.lookup("shifted_chebyshev_polynomial_v", (torch.tensor([0.3, 0.0]), n), {}) is None
    assert kw.lookup("chebyshev_polynomial_t", (torch.tensor([1e-45]), n), {}) is None


def test_fuzz_call_shifted_chebyshev_tiny_x() -> None:
    fp = load("fuzz_props")
    fp.check(fp.worker(), fp.Call(("op", "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_v",
                                   "function"), (fp.TS((3, 4), "float64", "edge"), 2**31 - 1), {}))


# ---- harness: ember's complex32 results; det's condition-number bound -----------------------------

def test_complex_half_result_travels() -> None:
    """complex() of float16 parts is complex32 in ember too: its values reach the client as complex64
    (seed 3016: unpickling a complex32 tensor raised AttributeError in the client)."""
    fp = load("fuzz_props")
    TS = fp.TS
    fp.check(fp.worker(), fp.Call(("op", "complex", "complex", "function"),
                                  (TS((5, 3), "float16", perm=(1, 0), offset=True), TS((), "float16")), {}))


def test_det_within_condition_bound() -> None:
    """A float32 5x5 of condition 1282: PyTorch's det is 6.5e-6 off float64's, ember's 2.5e-5, both within
    n cond eps (seed 3016's red); a wrong determinant is not."""
    fp = load("fuzz_props")
    c = fp.Call(("op", "det", "det", "function"), (fp.TS((5, 5), "float32", seed=1),), {})
    fp.check(fp.worker(), c)
    a = fp.S.materialize(c.args, torch)[0]
    ref = torch.linalg.det(a.double()).float()
    want = fp.S.TR("float32", (), torch.linalg.det(a))
    assert fp._within_det_bound(c, fp.S.TR("float32", (), ref), want, "det")
    assert not fp._within_det_bound(c, fp.S.TR("float32", (), ref * 1.01), want, "det")
    assert not fp._within_det_bound(c, fp.S.TR("float32", (), -ref), want, "det")


# ---- seed 3018: take out='s checks before its resize; cosine_similarity's half eps -----------------

@pytest.mark.parametrize("f", call(
    lambda m: m.take(m.ones(3, 4), m.tensor([0, 11, 5, 5]), out=m.zeros(1).expand(2)),
    lambda m: m.take(m.ones(3), m.tensor([0], dtype=m.int32), out=m.zeros(1, dtype=m.int64)),
    lambda m: m.take(m.ones(0), m.tensor([0]), out=m.zeros(1).expand(2)),
    lambda m: m.take(m.ones(0), m.tensor([0])),
    lambda m: m.take(m.ones(0), m.tensor([], dtype=m.int64)),
    lambda m: m.take(m.ones(3), m.tensor([5]), out=m.zeros(1).expand(2)),
    lambda m: (lambda x: m.take(x, m.tensor([0, 1]), out=x[:2]))(m.ones(3)),
    lambda m: (lambda i: m.take(m.ones(3, dtype=m.int64), i, out=i))(m.tensor([0, 1])),
    lambda m: m.take(m.ones(3), m.tensor([0, 2]), out=m.zeros(5)),
))
def test_take_out_checks(f: Any) -> None:
    """aten's take_out checks the written tensor's overlaps before resizing it (seed 3018: an expanded
    out= of another shape was resized and written), and an empty source before the index range."""
    check_message(f)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("eps", [65536.0, 1e5, 1e38, 1e39, 1e-8])
def test_cosine_similarity_half_eps(dtype: str, eps: float) -> None:
    """The norms of float16 / bfloat16 inputs clamp in float32: eps = 65536 is no float16 overflow error
    (seed 3018), 1e39 is float's."""
    check_message(lambda m: m.nn.functional.cosine_similarity(m.full((3, 4), 3e4, dtype=getattr(m, dtype)),
                                                              m.ones(3, 4), dim=1, eps=eps))
    check_message(lambda m: m.nn.functional.cosine_similarity(m.ones(3, 4, dtype=getattr(m, dtype)),
                                                              m.ones(3, 4, dtype=getattr(m, dtype)), dim=1, eps=eps))


# ---- arange: aten's int64 size arithmetic wraps (known wrong) ------------------------------------

@pytest.mark.parametrize(("args", "kwargs"), [
    ((0, 2**63 - 1, 2.0**53), {"out": "int64"}),  # seed 3018's red
    ((0, 2**63 - 1, 2**53), {"out": "int64"}),
    ((-2**63, 2**63 - 1, 2**62), {"out": "int64"}),  # PyTorch: an empty result
    ((2**63 - 1, -2**63, -2**62), {"out": "int64"}),
])
def test_arange_size_overflow_entry(args: tuple, kwargs: dict) -> None:
    """PyTorch's int64 arange sizes as (end - start + step - 1) / step in int64, which wraps: an error or an
    empty result; the range's ceil((end - start) / step) values, start + i step, are ember's."""
    tkw = {k: (torch.zeros(0, dtype=getattr(torch, v)) if k == "out" else getattr(torch, v)) for k, v in kwargs.items()}
    start, end, step = (int(v) for v in args)
    n = -((start - end) // step)
    try:
        wrong = torch.arange(*args, **{k: v.clone() if k == "out" else v for k, v in tkw.items()}).shape != (n,)
    except RuntimeError as e:
        wrong = "possible overflow" in str(e)
    assert wrong
    kw = known_wrong()
    entry = kw.lookup("arange", args, tkw)
    assert entry is not None and entry.id == "arange-int64-size-overflow"
    want = kw.corrected(entry, None, "arange", args, tkw)
    assert torch.equal(want, torch.tensor([start + i * step for i in range(n)], dtype=torch.int64))
    ekw = {k: (ember.zeros(0, dtype=getattr(ember, v)) if k == "out" else getattr(ember, v)) for k, v in kwargs.items()}
    got = ember.arange(*args, **ekw)
    assert str(got.dtype) == str(want.dtype) and got.tolist() == want.tolist()


def test_arange_entries_scope() -> None:
    kw = known_wrong()
    assert kw.lookup("arange", (-2**63 + 1, 5, 2, 0), {}) is None  # the binding's TypeError
    assert kw.lookup("arange", (0, 2**63 - 1, 2**53), {}).id == "arange-int64-span-wraps"
    assert kw.lookup("arange", (0, 2**62, 2.0**53), {"out": torch.zeros(0, dtype=torch.int64)}) is None
    assert kw.lookup("arange", (0, 2**63 - 1, 2.0**53), {"dtype": torch.float64}) is None
    assert kw.lookup("arange", (0, 2**63 - 1, 2**53), {"dtype": torch.int32}) is None  # sized in double
    check(lambda m: m.arange(-2**63 + 1, 5, 2, 0))


# ---- seed 3019: multi_margin_loss reads margin as its float type -----------------------------------

@pytest.mark.parametrize("f", call(
    lambda m: m.nn.functional.multi_margin_loss(m.ones(3, 4), m.tensor([1, 0, 3]), p=1, margin=1e300),
    lambda m: m.nn.functional.multi_margin_loss(m.ones(3, 4), m.tensor([1, 0, 7]), p=1, margin=1e300),
    lambda m: m.nn.functional.multi_margin_loss(m.ones(3, 4), m.tensor([1, 0, 3]), p=2, margin=-1e300),
    lambda m: m.nn.functional.multi_margin_loss(m.ones(3, 4, dtype=m.float64), m.tensor([1, 0, 3]), margin=1e300),
    lambda m: m.nn.functional.multi_margin_loss(m.ones(3, 4), m.tensor([1, 0, 3]), margin=float("inf")),
))
def test_multi_margin_loss_margin_overflow(f: Any) -> None:
    """aten's kernel converts margin to float (checked) before its target range check (seed 3019: 1e300)."""
    check_message(f)
