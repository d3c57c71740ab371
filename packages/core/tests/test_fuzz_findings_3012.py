"""Fuzz findings of issue 16 on the reds left by seed 3011 and seeds 3012 on: PyTorch's values, dtypes
and exception types where ember differed, and the torch_known_wrong entries of this round (each
checked against ember and, where it can be, against PyTorch's own right path). Helpers are
test_fuzz_findings_ops.py's."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402  (conftest.py registers it)

_FO = load("test_fuzz_findings_ops")
check, call, known_wrong = _FO.check, _FO.call, _FO.known_wrong
NAN, INF = _FO.NAN, _FO.INF


def _entry(entry_id: str, name: str, args: tuple, kwargs: dict | None = None) -> Any:
    """The known-wrong entry's value for the call (asserting that entry is the one that applies)."""
    kw = known_wrong()
    entry = kw.lookup(name, args, kwargs or {})
    assert entry is not None and entry.id == entry_id, entry
    return kw.corrected(entry, None, name, args, kwargs or {})


def _e(t: torch.Tensor) -> Any:
    return ember.tensor(t.tolist(), dtype=getattr(ember, str(t.dtype).split(".")[-1]))


def _t(t: Any) -> torch.Tensor:
    return torch.tensor(t.float().tolist() if t.dtype == ember.bfloat16 else t.tolist(),
                        dtype=getattr(torch, str(t.dtype).split(".")[-1]))


# ---- gelu_backward: an infinite gradient times the float derivative ----------------------------

GELU_X = [-5.0, -6.0, -6.5, -9.9, -10.0, -12.0, -14.0, -14.2, -15.0, -20.0, -40.0, 0.5, 3.0]


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_gelu_backward_infinite_grad(dtype: str) -> None:
    """oneDNN's float32 / bfloat16 gelu backward flushes the derivative to 0 below x = -6.152, so an
    infinite gradient gives NaN there; the float32 derivative is nonzero down to -14.1 (inf * it =
    -inf), as aten's formula (oneDNN disabled) and PyTorch's float16 path give (seed 3011's red)."""
    dt = getattr(torch, dtype)
    x = torch.tensor(GELU_X, dtype=dt)
    g = torch.full_like(x, INF)
    want = _entry("gelu-backward-onednn-flush", "gelu_backward", (g, x))
    # the float64 derivative agrees on every sign down to -14.1 (below it float32's underflows to 0)
    d64 = torch.ops.aten.gelu_backward(torch.ones(len(GELU_X), dtype=torch.float64), x.double())
    assert bool((want[:8] == d64[:8].sign() * INF).all())
    got = _t(ember._nn.gelu_backward(_e(g), _e(x)))
    torch.testing.assert_close(got, want, equal_nan=True, rtol=0, atol=0)
    assert not bool(want[3:7].isnan().any()) and bool(want[8:11].isnan().all())


def test_gelu_autograd_infinite_grad() -> None:
    """F.gelu's autograd runs gelu_backward: the same value as the entry's (PyTorch's oneDNN: NaN)."""
    x = torch.tensor(GELU_X)
    want = _entry("gelu-backward-onednn-flush", "gelu_backward", (torch.full_like(x, INF), x))
    xe = _e(x).requires_grad_()
    ember.nn.functional.gelu(xe).backward(ember.full_like(xe, INF))
    torch.testing.assert_close(_t(xe.grad), want, equal_nan=True, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["float16", "float64"])
def test_gelu_backward_infinite_grad_aten_paths(dtype: str) -> None:
    """float64 takes aten's formula in PyTorch too, float16 where the CPU lacks AVX512-FP16 (oneDNN's
    flush otherwise, gelu-backward-onednn-flush): ember equals PyTorch's formula with oneDNN off."""
    x = torch.tensor(GELU_X, dtype=getattr(torch, dtype))
    g = torch.full_like(x, -INF)
    with torch.backends.mkldnn.flags(enabled=False):
        want = torch.ops.aten.gelu_backward(g, x)
    torch.testing.assert_close(_t(ember._nn.gelu_backward(_e(g), _e(x))), want, equal_nan=True, rtol=0, atol=0)


def test_gelu_backward_mixed_entry_uses_the_float_derivative() -> None:
    """The broadcast / mixed-dtype entry computes the same value (no oneDNN flush, no float64 product)."""
    x = torch.tensor([-9.9, -12.0, -20.0, 1.0])
    g = torch.tensor(INF, dtype=torch.float16)  # 0-d: broadcast, self's dtype
    want = _entry("gelu-backward-broadcast-or-mixed", "gelu_backward", (g.expand(4), x))
    got = _t(ember._nn.gelu_backward(_e(g).expand(4), _e(x)))
    torch.testing.assert_close(got, want, equal_nan=True)
    assert want[:2].isneginf().all() and want[2].isnan()


# ---- layer_norm: rows whose squares overflow ---------------------------------------------------

LN_ROWS = [[1e300, -1e300, 1e300, -1e300], [1e300] * 4, [1e300, 1.0, 2.0, 3.0], [1e200, -1e200, 5.0, 6.0],
           [1e160, -1e160, 1.0, 1.0], [1e154, -1e154, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0], [-2.0**63, 0.1, 65504.0, 0.0]]


def test_layer_norm_float64_overflowing_rows() -> None:
    """PyTorch's moments overflow (NaN or 0 rows); the row normalised is scale-free and finite: the
    entry's value (the row scaled by a power of two), which ember's kernel now computes too."""
    x = torch.tensor(LN_ROWS, dtype=torch.float64)
    w, b = torch.linspace(0.5, 2.0, 4, dtype=torch.float64), torch.linspace(-1, 1, 4, dtype=torch.float64)
    want = _entry("layer-norm-overflow", "layer_norm", (x, [4], w, b))
    assert bool(torch.isfinite(want).all())
    # the scale-free answer: the same rows divided by 1e290 (no overflow) normalise alike
    small = torch.nn.functional.layer_norm(x / 1e290, [4], w, b, eps=0.0)
    rows = [0, 2, 3]  # the constant row 1 is 0 / 0 with eps 0: it normalises to 0, so to the bias
    torch.testing.assert_close(want[rows], small[rows], rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(want[1], b, rtol=0, atol=0)
    got = _t(ember.layer_norm(_e(x), [4], _e(w), _e(b)))
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    # a row that does not overflow: PyTorch's own value
    torch.testing.assert_close(got[6:], torch.layer_norm(x[6:], [4], w, b), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_layer_norm_float_overflowing_rows(dtype: str) -> None:
    dt = getattr(torch, dtype)
    x = torch.tensor([[1e20, -1e20, 1e20, -3e19], [1e20] * 4, [3e38, -3e38, 0.0, 0.0], [1.0, 2.0, 3.0, 4.0]],
                     dtype=dt)
    # a half-type batch with an equal row is layer-norm-half-equal-row's (float64 too: the same value)
    want = _entry("layer-norm-overflow" if dtype == "float32" else "layer-norm-half-equal-row", "layer_norm", (x, [4]))
    assert bool(torch.isfinite(want).all())
    got = _t(ember.layer_norm(_e(x), [4]))
    torch.testing.assert_close(got, want, rtol=1e-2 if dtype == "bfloat16" else 1e-5, atol=1e-5)


def test_layer_norm_overflow_entry_scope() -> None:
    kw = known_wrong()
    assert kw.lookup("layer_norm", (torch.randn(3, 4, dtype=torch.float64), [4]), {}) is None
    assert kw.lookup("layer_norm", (torch.tensor([[60000.0, -60000.0]], dtype=torch.float16), [2]), {}) is None
    assert kw.lookup("layer_norm", (torch.tensor([[1e300, 1.0]], dtype=torch.float64), [3]), {}) is None


def test_layer_norm_overflowing_row_backward_is_finite() -> None:
    """The backward recomputes the row's rstd the same way: finite gradients (PyTorch: NaN)."""
    x = ember.tensor([[1e300, -1e300, 1e300, -1e300], [1.0, 2.0, 3.0, 5.0]], dtype=ember.float64,
                     requires_grad=True)
    y = ember.layer_norm(x, [4])
    (y * ember.tensor([1.0, 2.0, 3.0, 4.0], dtype=ember.float64)).sum().backward()
    assert bool(ember.isfinite(x.grad).all())
    xs = torch.tensor([[1.0, -1.0, 1.0, -1.0], [1.0, 2.0, 3.0, 5.0]], dtype=torch.float64, requires_grad=True)
    (torch.layer_norm(xs, [4], eps=0.0) * torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)).sum().backward()
    torch.testing.assert_close(_t(x.grad)[0] * 1e300, xs.grad[0], rtol=1e-9, atol=1e-9)


# ---- attention whose keys and values differ in length ------------------------------------------

@pytest.mark.parametrize(("S_k", "S_v"), [(1, 4), (4, 5), (5, 4)])
@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_key_value_lengths_refused(S_k: int, S_v: int, causal: bool) -> None:
    """PyTorch's fused CPU kernel takes the key count from value (reading past key's end, or dropping
    keys); its math backend and ember refuse the call (seed 3011's red: causal, keys of length 1)."""
    g = torch.Generator().manual_seed(S_k * 10 + S_v)
    q, k, v = (torch.randn(2, 3, n, 8, generator=g) for n in (4, S_k, S_v))
    with pytest.raises(RuntimeError, match="batch2"):
        _entry("sdpa-key-value-lengths", "scaled_dot_product_attention", (q, k, v), {"is_causal": causal})
    with pytest.raises(RuntimeError, match="key length"):
        ember.nn.functional.scaled_dot_product_attention(_e(q), _e(k), _e(v), is_causal=causal)


# ---- convolutions with non-finite weights: the entry's own checks ------------------------------

@pytest.mark.parametrize("f", call(
    # an empty transposed output: aten's native path refuses it, PyTorch's oneDNN path returns it
    lambda m: m.nn.functional.conv_transpose1d(m.ones(2, 3, 3), m.full((3, 4, 3), NAN), m.ones(4), stride=2,
                                               padding=4, output_padding=1),
    # a stride past int32: the native path reads it as int32 ("stride should be greater than zero")
    lambda m: m.convolution(m.ones(1, 4, 3), m.full((4, 1, 2), INF), None, [2147483648], [2147483647], [1], True,
                            [1], 2),
))
def test_conv_nonfinite_entry_keeps_pytorchs_checks(f: Any) -> None:
    check(f)


def test_conv_nonfinite_half_sums_in_float() -> None:
    """aten's float16 transposed convolution adds partial sums in float16 (an overflow to +inf, then a
    -inf term: NaN); the entry adds in float32 and rounds once, as ember does."""
    g = torch.Generator().manual_seed(7)
    x = (torch.rand(1, 2, 3, 3, 3, generator=g) * 60000).half()
    w = torch.tensor([65504.0, -65520.0, 1.0, -INF, 0.5, 6e-8, INF, 2.0] * 4).reshape(2, 2, 2, 2, 2).half()
    want = _entry("conv-nonfinite-weight-onednn", "conv_transpose3d", (x, w), {"stride": 1})
    got = _t(ember.nn.functional.conv_transpose3d(_e(x), _e(w), stride=1))
    torch.testing.assert_close(got, want, equal_nan=True, rtol=2e-3, atol=1e-3)


# ---- attention whose sums overflow as the GEMM's order falls (harness) ---------------------------

def test_attention_overflow_rows_compared_on_shape_only() -> None:
    """Keys and values of +-3.4e38 (float32): a score's partial sums overflow to inf - inf = NaN or not
    as the accumulation order falls (PyTorch 0, ember NaN in seed 3011's red); those query rows (here
    all: three values of 3.4e38 sum past float32) are compared on dtype and shape only; a call of
    ordinary values has no such row."""
    fp = load("fuzz_props")
    TS, Call = fp.TS, fp.Call
    kv = TS((1, 2, 3, 4), "float32", values=(3.4e38, -3.4e38))
    q = TS((1, 2, 3, 4), "float32", values=(1.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    rows = fp._attention_overflow_rows("scaled_dot_product_attention", (q, kv, kv), {})
    assert rows is not None and rows.shape == (1, 2, 3)
    plain = fp._attention_overflow_rows("scaled_dot_product_attention",
                                        (q, TS((1, 2, 3, 4), "float32"), TS((1, 2, 3, 4), "float32")), {})
    assert plain is None
    fp.check(fp.worker(), Call(("F", "scaled_dot_product_attention"), (q, kv, kv), {}))


# ---- transposed convolution: slow_conv_transpose's int32 geometry --------------------------------

def test_conv_transpose_huge_dilation_is_a_result() -> None:
    """PyTorch's slow_conv_transpose2d shape check reads dilation 2**31 as int32 -2**31 and refuses the
    call; the output size is (4 - 1) 2 - 2 (2**31 - 1) + 2**31 2 + 1 + 1 = 10 (seed 3011's red)."""
    g = torch.Generator().manual_seed(3)
    x, w = torch.randn(1, 3, 4, 4, generator=g), torch.randn(3, 2, 3, 3, generator=g)
    kw = {"stride": 2, "padding": 2**31 - 1, "output_padding": 1, "groups": 1, "dilation": 2**31}
    with pytest.raises(RuntimeError, match="dilation should be greater than zero"):
        torch.nn.functional.conv_transpose2d(x, w, **kw)
    want = _entry("conv-transpose-int32-geometry", "conv_transpose2d", (x, w), kw)
    assert want.shape == (1, 2, 10, 10)
    got = _t(ember.nn.functional.conv_transpose2d(_e(x), _e(w), **kw))
    torch.testing.assert_close(got, want, rtol=1.3e-6, atol=1e-5)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
def test_conv_transpose_huge_dilation_of_integers(dtype: str) -> None:
    """The same geometry on integer tensors: int64's result exactly (10 x 10); the other integer dtypes
    have no kernel (NotImplementedError, after the output's allocation). PyTorch refuses all of them
    through its int32 dilation."""
    dt = getattr(torch, dtype)
    x = torch.arange(48).reshape(1, 3, 4, 4).remainder(5).to(dt)
    w = torch.arange(54).reshape(3, 2, 3, 3).remainder(3).to(dt)
    kw = {"stride": 2, "padding": 2**31 - 1, "output_padding": 1, "groups": 1, "dilation": 2**31}
    with pytest.raises(RuntimeError, match="dilation should be greater than zero"):
        torch.nn.functional.conv_transpose2d(x, w, **kw)
    if dtype != "int64":
        with pytest.raises(NotImplementedError, match="slow_conv_transpose2d_out_cpu"):
            _entry("conv-transpose-int32-geometry", "conv_transpose2d", (x, w), kw)
        with pytest.raises(NotImplementedError, match="slow_conv_transpose2d_out_cpu"):
            ember.nn.functional.conv_transpose2d(_e(x), _e(w), **kw)
        return
    want = _entry("conv-transpose-int32-geometry", "conv_transpose2d", (x, w), kw)
    assert want.shape == (1, 2, 10, 10) and want.dtype == torch.int64
    assert torch.equal(_t(ember.nn.functional.conv_transpose2d(_e(x), _e(w), **kw)), want)


@pytest.mark.parametrize("dtype", ["int32", "int8"])
@pytest.mark.parametrize("arg", ["stride", "dilation"])
def test_conv_transpose_integer_output_too_large_to_allocate(dtype: str, arg: str) -> None:
    """A stride or dilation of 2**40 (PyTorch truncates it to int32: 0) on an integer dtype without a kernel: aten allocates the output
    (structured kernel) before its dispatch, so the allocation's error, as for float32."""
    dt = getattr(torch, dtype)
    x, w = torch.ones(1, 2, 5, dtype=dt), torch.ones(2, 3, 3, dtype=dt)
    with pytest.raises(RuntimeError, match="can't allocate memory"):
        _entry("conv-transpose-int32-geometry", "conv_transpose1d", (x, w), {arg: 2**40})
    with pytest.raises(RuntimeError, match="can't allocate memory"):
        ember.nn.functional.conv_transpose1d(_e(x), _e(w), **{arg: 2**40})


def test_conv_transpose_int32_entry_matches_pytorch_on_ordinary_sizes() -> None:
    """The entry's tap-by-tap value against PyTorch's own kernel where PyTorch's geometry is exact."""
    kw_ = known_wrong()
    g = torch.Generator().manual_seed(5)
    for stride, padding, op, dilation, groups in [(2, 1, 1, 1, 1), (3, 2, 1, 2, 3), (2, 0, 1, 3, 3)]:
        x = torch.randn(2, 3, 5, 4, generator=g, dtype=torch.float64)
        w = torch.randn(3, 2, 3, 2, generator=g, dtype=torch.float64)
        b = torch.randn(2 * groups, generator=g, dtype=torch.float64)
        kw = {"stride": stride, "padding": padding, "output_padding": op, "groups": groups, "dilation": dilation}
        want = torch.nn.functional.conv_transpose2d(x, w, b, **kw)
        parts = kw_._conv_t_parts("conv_transpose2d", (x, w, b), kw)
        assert parts is not None and not kw_._conv_t_int32_applies("conv_transpose2d", (x, w, b), kw)
        torch.testing.assert_close(_tap_by_tap(kw_, x, w, b, kw), want)


def _tap_by_tap(kw_: Any, x: Any, w: Any, b: Any, kw: dict) -> Any:
    """The entry's own computation, PyTorch's kernel bypassed (it would answer first)."""
    real = torch.conv_transpose2d

    def refuse(*a: Any, **k: Any) -> Any:
        raise RuntimeError("bypassed")
    torch.conv_transpose2d = refuse
    try:
        return kw_._conv_t_int32_correct("conv_transpose2d", (x, w, b), kw)
    finally:
        torch.conv_transpose2d = real


def test_conv_transpose_int32_entry_scope() -> None:
    """Floating calls of one dtype only (an integer input meets the dtype checks, in the kernel's order);
    an empty batch whose output shape has no int64 strides is torch.empty's error, not PyTorch's
    tensor of wrapped strides."""
    kw_ = known_wrong()
    args = (torch.ones(2, 3, 4, 3, dtype=torch.int32), torch.ones(3, 2, 3, 2), torch.ones(2), [2, 1], [1, 0],
            [1, 2**31 - 1], True, [1, 0], 1)
    assert kw_.lookup("convolution", args, {}) is None
    x, w = torch.ones(0, 4, 3, 4, 3), torch.ones(4, 1, 3, 2, 2)
    kw = {"stride": 2, "groups": 2, "dilation": 2**32}
    with pytest.raises(RuntimeError, match="Stride calculation overflowed"):
        _entry("conv-transpose-int32-geometry", "conv_transpose3d", (x, w, torch.ones(2)), kw)
    with pytest.raises(RuntimeError, match="Stride calculation overflowed"):
        ember.conv_transpose3d(ember.ones(0, 4, 3, 4, 3), ember.ones(4, 1, 3, 2, 2), ember.ones(2), **kw)


# ---- transposed convolution: oneDNN's bfloat16 path refuses a bias of another dtype -------------

@pytest.mark.parametrize("bias", ["float32", "float64", "float16"])
@pytest.mark.parametrize("batch", [1, 2])
def test_conv_transpose_bfloat16_bias_dtype(bias: str, batch: int) -> None:
    """aten picks mkldnn for bfloat16 wherever the CPU has AVX-512 BW/VL/DQ, whose check refuses a bias
    of another dtype (seed 3011: a float32 bias beside bfloat16 input and weight); float32's message
    names the bias (or weight) that differs."""
    check(lambda m: m.conv_transpose1d(m.ones(batch, 2, 3, dtype=m.bfloat16), m.ones(2, 3, 3, dtype=m.bfloat16),
                                       m.ones(3, dtype=getattr(m, bias))))
    check(lambda m: m.conv_transpose1d(m.ones(batch, 2, 3), m.ones(2, 3, 3), m.ones(3, dtype=m.float64)))


# ---- the fused attention's dropout check comes before it divides by an empty query --------------

def test_flash_attention_dropout_checked_before_empty_query() -> None:
    q, k = torch.ones(2, 3, 0, 4, dtype=torch.float64), torch.ones(2, 3, 6, 4, dtype=torch.float64)
    name = "_scaled_dot_product_flash_attention_for_cpu"
    with pytest.raises(RuntimeError, match="dropout > 0"):
        _entry("sdpa-flash-no-heads", name, (q, k, k, 0.1))
    with pytest.raises(RuntimeError, match="dropout > 0"):
        qe, ke = ember.ones(2, 3, 0, 4, dtype=ember.float64), ember.ones(2, 3, 6, 4, dtype=ember.float64)
        ember._nn._scaled_dot_product_flash_attention_for_cpu(qe, ke, ke, 0.1)


# ---- harness: the float64 referee with an integer argument; a None is_causal ---------------------

@pytest.mark.parametrize("seed", [1, 2])
def test_referee_accepts_unchanged_integer_arguments(seed: int) -> None:
    """gelu_backward(float32 gradient, int64 self): PyTorch's float32 value is off by 1.6e-3 where ember
    is float64's (seed 3011 rerun); the referee compared the int64 argument after the call as a float
    and never accepted it."""
    fp = load("fuzz_props")
    fp.check(fp.worker(), fp.Call(("op", "gelu_backward", "gelu_backward", "function"),
                                  (fp.TS((3, 4), "float32", "edge"), fp.TS((3, 4), "int64", seed=seed)), {}))


def test_flash_nan_row_entry_reads_none_causal_as_false() -> None:
    q = torch.ones(1, 1, 2, 4, dtype=torch.bfloat16)
    q[0, 0, 0, 1] = NAN
    k = torch.ones(1, 1, 3, 4, dtype=torch.bfloat16)
    kw_ = known_wrong()
    entry = kw_.lookup("_scaled_dot_product_flash_attention_for_cpu", (q, k, k, 0.0, None), {})
    assert entry is not None and entry.id == "sdpa-flash-nan-row"


# ---- unfold: the block count's size error before the dtype's ------------------------------------

@pytest.mark.parametrize("dtype", ["int64", "float32"])
def test_unfold_block_count_past_int64_before_dtype(dtype: str) -> None:
    """aten's im2col sizes its output before the dtype dispatch: an int64 input whose block count is
    past int64 gets the size error (known-wrong unfold-block-count-wraps), not NotImplementedError
    (seed 3012)."""
    x = torch.ones(2, 3, 5, 5, dtype=getattr(torch, dtype))
    kw = {"kernel_size": (2, 2), "dilation": 1, "padding": 2**31 - 1, "stride": 1}
    with pytest.raises(RuntimeError, match="Stride calculation overflowed"):
        _entry("unfold-block-count-wraps", "unfold", (x,), kw)
    with pytest.raises(RuntimeError, match="Stride calculation overflowed"):
        ember.nn.functional.unfold(ember.ones(2, 3, 5, 5, dtype=getattr(ember, dtype)), **kw)


@pytest.mark.parametrize("mask", ["0-d", "3-d", "int64"])
def test_flash_attention_mask_checks_before_shapes(mask: str) -> None:
    """The fused forward checks the mask's dtype and rank before its kernel reads (and before the
    inconsistent-shapes entry's view): a 0-d mask is its 'Attention mask dim in {2, 4}' (seed 3014:
    the entry's view raised IndexError)."""
    q, k, v = torch.ones(2, 3, 5, 4, dtype=torch.float64), torch.ones(2, 3, 6, 4, dtype=torch.float64), \
        torch.ones(0, 3, 6, 4, dtype=torch.float64)
    m = {"0-d": torch.ones((), dtype=torch.float64), "3-d": torch.ones(2, 5, 6, dtype=torch.bool),
         "int64": torch.ones(5, 6, dtype=torch.int64)}[mask]
    name = "_scaled_dot_product_flash_attention_for_cpu"
    with pytest.raises(RuntimeError, match="Attention mask"):
        _entry("sdpa-flash-inconsistent-shapes", name, (q, k, v), {"attn_mask": m})
    with pytest.raises(RuntimeError, match="Attention mask"):
        getattr(ember._nn, name)(ember.ones(2, 3, 5, 4, dtype=ember.float64), ember.ones(2, 3, 6, 4, dtype=ember.float64),
                                 ember.ones(0, 3, 6, 4, dtype=ember.float64), attn_mask=_e(m) if m.dim() else
                                 ember.ones((), dtype=ember.float64))


def test_gelu_backward_cancellation_bound() -> None:
    """Below x = -3 the erf form's two terms cancel: with a gradient of 9e15 ember's float32 value and
    PyTorch's oneDNN one differ by more than the parity tolerance, each within 4 |dy| eps of the other
    (the erfs' absolute rounding), which the property accepts (seed 3011's red); a wrong derivative is
    off by far more."""
    fp = load("fuzz_props")
    xs = tuple(-6.0 + 0.37 * i for i in range(12))
    call = fp.Call(("op", "gelu_backward", "gelu_backward", "function"),
                   (fp.TS((12,), "float32", values=(9.007199254740994e15,)), fp.TS((12,), "float32", values=xs)), {})
    fp.check(fp.worker(), call)
    want = fp.S.TR("float32", (12,), torch.full((12,), 1e9))
    got = fp.S.TR("float32", (12,), torch.full((12,), 1e11))
    assert not fp._within_gelu_bound(call, got, want, "gelu_backward")


@pytest.mark.parametrize("call_", [
    # an int64 key beside an empty value: PyTorch's fused kernel dies of SIGFPE before its dtype check
    ("op", "_scaled_dot_product_flash_attention_for_cpu", ((2, 3, 5, 4), "float64"), ((2, 3, 6, 4), "int64"),
     ((2, 3, 0, 4), "float64"), {}),
    # values of no keys: not the key-value-lengths entry's (PyTorch's own paths answer)
    ("F", "scaled_dot_product_attention", ((2, 3, 4, 8), "float32"), ((2, 3, 5, 8), "float32"),
     ((2, 3, 0, 8), "float32"), {}),
])
def test_fuzz_3011_rerun_attention_scopes(call_: tuple) -> None:
    fp = load("fuzz_props")
    kind, name, *specs, kwargs = call_
    target = ("op", name, name, "function") if kind == "op" else ("F", name)
    fp.check(fp.worker(), fp.Call(target, tuple(fp.TS(shape, dt) for shape, dt in specs), kwargs))


def test_conv_transpose_int32_entry_defers_to_the_parser() -> None:
    """groups past int64: the parser's ValueError, not the entry's geometry."""
    kw_ = known_wrong()
    args = (torch.ones(1, 3, 4, 4), torch.ones(3, 2, 3, 3))
    kw = {"stride": 2, "padding": 1, "output_padding": 2**31 - 1, "groups": 2**63, "dilation": 1}
    entry = kw_.lookup("conv_transpose2d", args, kw)
    assert entry is None or entry.id != "conv-transpose-int32-geometry"


@pytest.mark.parametrize("sizes", [(4, 2147483644, 2147483654, 0), (2**62, 4, 0), (2**62, 3, 0), (2**63 - 1, 2, 0),
                                   (0, 4, 2147483644, 2147483654), (2**62, 2, 1, 0), (3, 0)])
@pytest.mark.parametrize("factory", ["empty", "zeros"])
def test_zero_size_storage_overflow_as_c10(sizes: tuple, factory: str) -> None:
    # c10 multiplies the sizes in order in uint64 with a sticky overflow flag: a prefix past 2**64 fails
    # although the zero that follows makes the element count 0 (found beside seed 3014)
    def outcome(lib: Any) -> Any:
        try:
            return tuple(getattr(lib, factory)(*sizes).shape)
        except RuntimeError as e:
            return str(e)

    assert outcome(ember) == outcome(torch)


# ---- F.pad circular: aten's checks on exact sizes ---------------------------------------------

@pytest.mark.parametrize("pad", [(-4, 0), (-3, 0), (-2, -1), (-2**63, 0), (2**62, 0), (-2**62, -2**62)])
def test_pad_circular_negative_sizes_match_torch(pad: tuple) -> None:
    """Cropping past the whole dim is aten's own negative-padding error (was empty()'s negative-dimension one)."""
    check(lambda L: L.nn.functional.pad(L.ones(1, 2, 3), pad, mode="circular"))


def test_pad_circular_size_wraps() -> None:
    """A padded size below -2**63: torch's int64 sum wraps to 3 and it returns a tensor; ember raises aten's error."""
    args = (torch.ones(1, 2, 3), (-2**63, -2**63))
    with pytest.raises(RuntimeError, match="Negative padding value is resulting in an empty dimension"):
        _entry("pad-circular-size-wraps", "pad", args, {"mode": "circular"})
    with pytest.raises(RuntimeError, match="Negative padding value is resulting in an empty dimension"):
        ember.nn.functional.pad(ember.ones(1, 2, 3), (-2**63, -2**63), mode="circular")
    assert tuple(torch.nn.functional.pad(*args, mode="circular").shape) == (1, 2, 3)  # torch's wrapped answer
