"""Fuzz findings of issue 16 on the reds left by seeds 3006-3007 and seeds 3008 on: PyTorch's values,
dtypes and exception types where ember differed, and the torch_known_wrong entries of this round.
Helpers are test_fuzz_findings_ops.py's."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402  (conftest.py registers it)

_FO = load("test_fuzz_findings_ops")
outcome, same, check, call, known_wrong = _FO.outcome, _FO.same, _FO.check, _FO.call, _FO.known_wrong
NAN, INF = _FO.NAN, _FO.INF


# ---- causal flash attention: a skipped key's inf / NaN value is 0 * inf in P V -------------------

@pytest.mark.parametrize(("L", "S", "key"), [(3, 3, 2), (3, 5, 4), (5, 3, 2), (40, 40, 35), (200, 200, 100),
                                             (130, 130, 64)])
@pytest.mark.parametrize("bad", [INF, NAN, -INF])
def test_causal_attention_masked_nonfinite_value(L: int, S: int, key: int, bad: float) -> None:
    """Every PyTorch path (the CPU flash kernel, the math path, softmax(QK^T + mask) @ V) multiplies a
    masked key's probability 0 by its value: NaN in that column for each query that does not see the
    key. ember skipped the masked keys past a query block (seed 3006's red)."""
    g = torch.Generator().manual_seed(L * 1000 + S)
    q, k, v = (torch.randn(1, 2, n, 3, generator=g) for n in (L, S, S))
    v[0, 1, key, 1] = bad
    want = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    got = ember.nn.functional.scaled_dot_product_attention(*(ember.tensor(t.tolist()) for t in (q, k, v)),
                                                           is_causal=True)
    torch.testing.assert_close(torch.tensor(got.tolist()), want, rtol=1e-5, atol=1e-5, equal_nan=True)


# ---- addmm / baddbmm: an alpha that overflows an operand ---------------------------------------

def _gemm_entry(name: str, args: tuple, kwargs: dict) -> Any:
    kw = known_wrong()
    entry = kw.lookup(name, args, kwargs)
    assert entry is not None and entry.id == "gemm-alpha-folded"
    return kw.corrected(entry, None, name, args, kwargs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("alpha", "beta"), [(INF, 1), (-INF, 0), (INF, 0.5), (None, 1)])
def test_addmm_alpha_scales_the_product(alpha: float | None, beta: float, dtype: str) -> None:
    """MKL folds alpha into an operand (inf * 0 = NaN terms), so PyTorch's float32 / float64 addmm of
    eye(3) @ eye(3) with alpha = inf is all NaN where its float16 path, its small baddbmm kernel and
    the formula beta * input + alpha * (mat1 @ mat2) give inf on the diagonal: the known-wrong entry's
    value, which ember gives."""
    dt = getattr(torch, dtype)
    alpha = torch.finfo(dt).max if alpha is None else alpha  # finite, but 2 * alpha overflows
    a = torch.tensor([[2.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]], dtype=dt)
    b = torch.tensor([[1.0, 0.0, 0.5], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], dtype=dt)
    inp = torch.tensor([[1.0, 2.0, 3.0]], dtype=dt)
    want = _gemm_entry("addmm", (inp, a, b), {"beta": beta, "alpha": alpha})
    em = (ember.tensor(t.tolist(), dtype=getattr(ember, dtype)) for t in (inp, a, b))
    got = torch.tensor(ember.addmm(*em, beta=beta, alpha=alpha).tolist(), dtype=dt)
    torch.testing.assert_close(got, want, equal_nan=True)
    if alpha in (INF, -INF):
        assert bool(torch.isinf(want.diagonal()).all())  # not MKL's NaN


def test_addmm_alpha_entry_scope() -> None:
    """The entry applies to the MKL dtypes and a K > 0 product only: K = 0 is beta * input in both
    libraries, a NaN alpha NaN in both, and the half types scale the product as the formula."""
    kw = known_wrong()
    z = torch.zeros(2, 2)
    assert kw.lookup("addmm", (z, torch.ones(2, 0), torch.ones(0, 2)), {"alpha": INF}) is None
    assert kw.lookup("addmm", (z, z, z), {"alpha": NAN}) is None
    assert kw.lookup("addmm", (z.half(), z.half(), z.half()), {"alpha": INF}) is None
    assert kw.lookup("addmm", (z, z, z), {"alpha": 2.0}) is None
    check(lambda m: m.addmm(m.ones(2, 2), m.ones(2, 0), m.ones(0, 2), alpha=INF))
    check(lambda m: m.addmm(m.ones(2, 2, dtype=m.float16), m.eye(2, dtype=m.float16), m.eye(2, dtype=m.float16),
                            alpha=INF))


@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "uint8"])
@pytest.mark.parametrize(("alpha", "beta"), [(2**53 + 1, 0), (2**53 + 1, 3), (3, 2**62 + 1), (-2**63, 1)])
def test_addmm_integer_scalars_exact(alpha: int, beta: int, dtype: str) -> None:
    """aten casts an integer alpha / beta to the dtype exactly (checked: past a narrow dtype's range
    the overflow error) and scales in its wrapping arithmetic; ember passed them through the GEMM's
    double arguments (2**53 + 1 -> 2**53: seed 3006)."""
    check(lambda m: m.addmm(m.tensor([[1, -2, 3, 4]], dtype=getattr(m, dtype)),
                            m.tensor([[1, 2, 3], [-4, 5, 6]], dtype=getattr(m, dtype)),
                            m.tensor([[1, 0, 2, 1], [3, -1, 0, 2], [1, 1, 1, 1]], dtype=getattr(m, dtype)),
                            beta=beta, alpha=alpha))


# ---- layer_norm of a constant row ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_norm_constant_rows_are_zero(dtype: str) -> None:
    """aten's Welford moments keep a constant row's mean exactly, so the row normalises to 0; ember's
    float sum (5 c / 5 rounded) left (x - mean) * rstd at 1e-5 (seed 3006: an expanded input)."""
    g = torch.Generator().manual_seed(0)
    c = torch.randn(64, 1, generator=g).to(getattr(torch, dtype))
    want = torch.layer_norm(c.expand(64, 5), [5])
    got = ember.layer_norm(ember.tensor(c.float().tolist(), dtype=getattr(ember, dtype)).expand(64, 5), [5])
    assert want.abs().max().item() == 0
    assert got.abs().max().item() == 0


# ---- error order and dtypes ----------------------------------------------------------------------

@pytest.mark.parametrize("f", call(
    # baddbmm's meta compares input with batch1 only; the result has batch2's dtype, and the kernel
    # (dispatched on batch1's dtype, Bool not implemented) reads batch2 as that type (seed 3006)
    lambda m: m.baddbmm(m.ones(5, 2, 4, dtype=m.bool), m.ones(5, 2, 3, dtype=m.bool), m.ones(5, 3, 4)),
    lambda m: m.baddbmm(m.ones(2, 2, 2), m.ones(2, 2, 2), m.ones(2, 2, 2, dtype=m.bool)),
    lambda m: m.baddbmm(m.ones(2, 2, 2), m.ones(2, 2, 2), m.ones(2, 2, 2, dtype=m.float64)),
    lambda m: m.baddbmm(m.ones(2, 2, 2), m.ones(2, 2, 0), m.ones(2, 0, 2, dtype=m.float64), beta=3),
    lambda m: m.baddbmm(m.ones(1, 2, 2), m.ones(2, 2, 0), m.ones(2, 0, 2, dtype=m.float64), beta=0),
    lambda m: m.baddbmm(m.ones(0, 2, 2), m.ones(0, 2, 3), m.ones(0, 3, 2, dtype=m.float64)),
    lambda m: m.baddbmm(m.ones(2, 2, 2, dtype=m.int32), m.ones(2, 2, 2, dtype=m.int32), m.ones(2, 2, 2)),
    lambda m: m.baddbmm(m.ones(2, 2, 2), m.ones(2, 2, 2, dtype=m.float64), m.ones(2, 2, 2, dtype=m.float64)),
    lambda m: m.ones(2, 2, 2).baddbmm_(m.ones(2, 2, 0), m.ones(2, 0, 2, dtype=m.float64)),
    lambda m: m.baddbmm(m.ones(2, 2, 2), m.ones(2, 2, 0), m.ones(2, 0, 2, dtype=m.float64), out=m.ones(2, 2, 2)),
    # addmm reads an integer alpha / beta checked to the dtype, past an empty or K = 0 product
    lambda m: m.addmm(m.ones(2, 2, dtype=m.int8), m.ones(2, 2, dtype=m.int8), m.ones(2, 2, dtype=m.int8), alpha=300),
    lambda m: m.addmm(m.ones(2, 2, dtype=m.uint8), m.ones(2, 2, dtype=m.uint8), m.ones(2, 2, dtype=m.uint8), alpha=-255),
    lambda m: m.addmm(m.ones(2, 2, dtype=m.uint8), m.ones(2, 2, dtype=m.uint8), m.ones(2, 2, dtype=m.uint8), beta=-256),
    lambda m: m.addmm(m.ones(2, 2, dtype=m.int8), m.ones(2, 0, dtype=m.int8), m.ones(0, 2, dtype=m.int8), alpha=300),
    lambda m: m.addmm(m.ones(2, 2, dtype=m.int64), m.ones(2, 2, dtype=m.int64), m.ones(2, 2, dtype=m.int64),
                      alpha=2**63),
    lambda m: m.addmm(m.ones(2, 2, dtype=m.int64), m.ones(2, 2, dtype=m.int64), m.ones(2, 2, dtype=m.int64),
                      beta=2**53 + 1, alpha=0.5),
    lambda m: m.addmm(m.ones(2, 2, dtype=m.int64), m.ones(2, 2, dtype=m.int64), m.ones(2, 2, dtype=m.int64),
                      beta=0.5, alpha=2**53 + 1),
    # arange reads an integer dtype's start and step as int64, checked, after the length (seed 3006)
    lambda m: m.arange(0, 2.5, INF, dtype=m.uint8),
    lambda m: m.arange(0, 2.5, INF, dtype=m.int32),
    lambda m: m.arange(0, 2.5, -INF, dtype=m.uint8),
    lambda m: m.arange(2.0**70, 2.0**71, 2.0**69, dtype=m.int32),
    lambda m: m.arange(0, 2.5, 2.0**70, dtype=m.int16),
    lambda m: m.arange(0, 5, 0.5, dtype=m.int32),
    # view_as_complex: a dim of size 1 may have an odd stride (seed 3006: float32[1, 2] transposed)
    lambda m: m.view_as_complex(m.ones(2, 1).T),
    lambda m: m.view_as_complex(m.as_strided(m.arange(20.0), (3, 1, 2), (4, 3, 1))),
    lambda m: m.view_as_complex(m.as_strided(m.arange(20.0), (0, 2), (3, 1))),
    lambda m: m.view_as_complex(m.as_strided(m.arange(20.0), (3, 2, 2), (4, 3, 1))),
))
def test_fuzz_3006_checks(f: Any) -> None:
    check(f)


def test_view_as_complex_size_one_stride() -> None:
    """aten halves a size-1 dim's stride rounding down (3 -> 1)."""
    for m in (torch, ember):
        v = m.view_as_complex(m.as_strided(m.arange(20.0), (3, 1, 2), (4, 3, 1)))
        assert tuple(v.stride()) == (2, 1)


@pytest.mark.parametrize("f", call(
    # F.lp_pool* raise x.pow(norm_type)'s errors before their pool's argument TypeError (seed 3008)
    lambda m: m.nn.functional.lp_pool2d(m.ones(2, 3, 6, 6, dtype=m.float16), 65536.0, 2, stride=2, ceil_mode=None),
    lambda m: m.nn.functional.lp_pool1d(m.ones(2, 3, 6, dtype=m.float16), 65536.0, 2, ceil_mode=None),
    lambda m: m.nn.functional.lp_pool2d(m.ones(2, 3, 6, 6), 2.0, 2, stride=2, ceil_mode=None),
))
def test_fuzz_3008_checks(f: Any) -> None:
    check(f)


def test_conv_huge_entry_defers_to_the_parser() -> None:
    """The known-wrong conv-stride-dilation-past-int32 entry leaves a call with an int past int64 in
    any list argument (output_padding included: seed 3008) to PyTorch, whose parser refuses it."""
    x, w = torch.ones(2, 2, 5, 4), torch.ones(3, 2, 3, 2)
    args = (x, w, torch.ones(3), [1, 2], [1, 0], [1, 2**31], False, [0, 2**63], 1)
    assert known_wrong().lookup("convolution", args, {}) is None
    assert known_wrong().lookup("convolution", args[:7] + ([0, 0], 1), {}) is not None


@pytest.mark.parametrize("f", call(
    # complex() / polar()'s out= must be exactly the inputs' complex type, checked first (seed 3009)
    lambda m: m.complex(m.ones(3, 4, dtype=m.float16), m.ones(3, 4, dtype=m.float16), out=m.ones(0)),
    lambda m: m.polar(m.ones(3, dtype=m.float16), m.ones(3, dtype=m.float16), out=m.ones(0)),
    lambda m: m.complex(m.ones(2), m.ones(2), out=m.ones(0, dtype=m.complex128)),
    lambda m: m.complex(m.ones(2, dtype=m.float64), m.ones(2, dtype=m.float64), out=m.ones(0, dtype=m.complex64)),
    lambda m: m.complex(m.ones(2), m.ones(3), out=m.ones(0)),
    lambda m: m.complex(m.ones(2), m.ones(2, dtype=m.float64), out=m.ones(0)),
    lambda m: m.complex(m.ones(2), m.ones(2), out=m.ones(0, dtype=m.complex64)),
))
def test_fuzz_3009_checks(f: Any) -> None:
    check(f)


@pytest.mark.parametrize(("args", "kwargs", "n"), [
    ((1, -2**63, -2**53), {}, 1025),
    ((-10, 2**63 - 1, 2**62), {}, 3),
    ((2**63 - 1, -10, -2**62), {}, 3),
    ((4, 2.5, -2.0**63), {"dtype": "int64"}, 1),  # seed 3009: -2.0**63 is INT64_MIN
])
def test_arange_int64_span_past_int64(args: tuple, kwargs: dict, n: int) -> None:
    """aten's int64 length (end - start + step - sign) / step wraps when the span passes int64: the
    known-wrong entry's range holds every start + i * step before end, as ember's 128-bit length."""
    tkw = {k: getattr(torch, v) for k, v in kwargs.items()}
    want = known_wrong().corrected(known_wrong().lookup("arange", args, tkw), None, "arange", args, tkw)
    got = ember.arange(*args, **{k: getattr(ember, v) for k, v in kwargs.items()})
    assert want.numel() == n and got.tolist() == want.tolist()
    assert known_wrong().lookup("arange", (0, 10, 3), {}) is None
    assert known_wrong().lookup("arange", (0, 5, 2.0**63), {"dtype": torch.int64}) is None  # PyTorch's [] stands


def test_complex32_gap_is_narrow() -> None:
    """ember has no complex32: where PyTorch returns one, ember's NotImplementedError naming it is
    the known gap (fuzz_props._complex32_gap); any other error or a result is still a finding."""
    fp = load("fuzz_props")
    tr = fp.S.TR("complex32", (3,), None)
    assert fp._complex32_gap(tr, ("raise", "NotImplementedError", "ember has no complex32 (ComplexHalf) dtype"))
    assert not fp._complex32_gap(tr, ("raise", "RuntimeError", "complex32"))
    assert not fp._complex32_gap(fp.S.TR("complex64", (3,), None),
                                 ("raise", "NotImplementedError", "ember has no complex32 (ComplexHalf) dtype"))


def test_lp_pool_flag_before_int_overflow() -> None:
    """After the pow, the pool's parser: a wrong-typed ceil_mode is the TypeError before a kernel size
    past int64 (test_fuzz_functional[lp_pool1d])."""
    for m in (torch, ember):
        with pytest.raises(TypeError):
            m.nn.functional.lp_pool1d(m.ones(2, 2, 8), 2.0, -2**64, stride=2, ceil_mode=0)


@pytest.mark.filterwarnings("ignore::UserWarning")  # PyTorch's resized-output deprecation warning
@pytest.mark.parametrize("f", call(
    # special.ndtr(out=) is aten's: result first, cast check, out resized, copied (seed 3011: an expanded
    # out= of another shape is resized, not refused for its overlap)
    lambda m: m.special.ndtr(m.ones(3, 4, dtype=m.int64), out=m.zeros(1).expand(2)),
    lambda m: m.special.ndtr(m.ones(3, 4, dtype=m.int64), out=m.zeros(1).expand(12)),
    lambda m: m.special.ndtr(m.ones(3, 4), out=m.zeros(0, dtype=m.int64)),
    lambda m: m.special.ndtr(m.ones(3, 4), out=m.zeros(3, 4, dtype=m.float64)),
    lambda m: m.special.ndtr(m.ones(3, 4), out=m.zeros(1).expand(3, 4)),
))
def test_fuzz_3011_checks(f: Any) -> None:
    check(f)


@pytest.mark.filterwarnings("ignore::UserWarning")  # PyTorch's ComplexHalf-is-experimental warning
@pytest.mark.parametrize("f", call(
    # the integer baddbmm kernel reads alpha / beta in its dtype: torch's overflow error (a longer 3011 rerun)
    lambda m: m.ones(2, 2, 2, dtype=m.int64).baddbmm_(m.ones(2, 2, 2, dtype=m.int64), m.ones(2, 2, 2, dtype=m.int64),
                                                      alpha=INF),
    lambda m: m.baddbmm(m.ones(2, 2, 2, dtype=m.int32), m.ones(2, 2, 2, dtype=m.int32), m.ones(2, 2, 2, dtype=m.int32),
                        beta=2**40),
    lambda m: m.baddbmm(m.ones(2, 2, 2, dtype=m.int64), m.ones(2, 2, 2, dtype=m.int64), m.ones(2, 2, 2, dtype=m.int64),
                        alpha=1.5),
    lambda m: m.baddbmm(m.ones(2, 2, 2, dtype=m.int64), m.ones(2, 2, 0, dtype=m.int64), m.ones(2, 0, 2, dtype=m.int64),
                        alpha=INF),
    # complex(): the broadcast error before the (missing) complex32 dtype
    lambda m: m.complex(m.zeros(0, 0, 0, 0, dtype=m.float16), m.zeros(3, 4, dtype=m.float16)),
    # a transposed integer convolution adds its bias in place: a float bias cannot be cast to it
    lambda m: m.convolution(m.ones(1, 1, 3, dtype=m.int64), m.ones(1, 1, 2, dtype=m.int64), m.ones(1), [1], [0], [1],
                            True, [0], 1),
    lambda m: m.convolution(m.ones(1, 1, 3, dtype=m.int64), m.ones(1, 1, 2, dtype=m.int64), m.ones(1), [1], [0], [1],
                            False, [0], 1),
    lambda m: m.convolution(m.ones(1, 1, 3, dtype=m.int64), m.ones(1, 1, 2, dtype=m.int64),
                            m.ones(1, dtype=m.int64), [1], [0], [1], True, [0], 1),
))
def test_fuzz_3011_rerun_checks(f: Any) -> None:
    check(f)
