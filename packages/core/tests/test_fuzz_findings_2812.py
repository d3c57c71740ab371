"""Fuzz findings of seed 2812: PyTorch's values, exception types and messages where ember differed, and the
known-wrong entries of this round. Helpers are test_fuzz_findings_ops.py's."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402  (conftest.py registers it)

_FO = load("test_fuzz_findings_ops")
check_message = _FO.check_message
check, call, known_wrong = _FO.check, _FO.call, _FO.known_wrong


def meta_outcome(m: Any, f: Any) -> tuple:
    """f's plain answer (shapes, strides) or its exception's type and message: no values read."""
    try:
        return ("ok", f(m))
    except Exception as e:  # noqa: BLE001 - the exception is the result under test
        return ("raise", next(k.__name__ for k in _FO.KINDS + (Exception,) if isinstance(e, k)), str(e))


def check_meta(f: Any) -> None:
    t, e = meta_outcome(torch, f), meta_outcome(ember, f)
    assert t == e, f"torch {t} vs ember {e}"


def check_close(f: Any, ulps: float = 2.0) -> None:
    """The same dtype and shape, and values within a few units of the result dtype's last place (the
    reductions' summation orders differ; a result rounded to the input's dtype first is off by thousands)."""
    t, e = f(torch), f(ember)
    assert str(t.dtype) == str(e.dtype) and tuple(t.shape) == tuple(e.shape), f"torch {t} vs ember {e}"
    got = torch.tensor(e.tolist(), dtype=torch.float64)
    want = t.double()
    tol = ulps * torch.finfo(t.dtype).eps * want.abs().clamp_min(1e-30)
    assert bool(((got - want).abs() <= tol).all()), f"torch {want.tolist()} vs ember {got.tolist()}"


# ---- reductions with an out= of another float dtype: computed in out's dtype --------------------------

BASE = (torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(0)) * 3).tolist()
FLOATS = ["float16", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("op", ["var", "std", "mean", "nanmean"])
@pytest.mark.parametrize(("di", "do"), [p for p in itertools.product(FLOATS, FLOATS) if p[0] != p[1]])
def test_reduction_out_dtype_is_the_compute_dtype(op: str, di: str, do: str) -> None:
    """torch.var(float16[2, 3, 4], 1, out=float32[0]) is var of the input as float32 (seed 2812: ember's var
    was rounded to float16 first, 2000 float32 ulps off); std, mean, nanmean the same."""
    check_close(lambda m: getattr(m, op)(m.tensor(BASE, dtype=getattr(m, di)), 1, out=m.zeros(0, dtype=getattr(m, do))))


@pytest.mark.parametrize("f", call(
    lambda m: m.var(m.ones(2, 3, dtype=m.float16), 1, out=m.zeros(0, dtype=m.int64)),
    lambda m: m.var(m.ones(2, 3), 1, out=m.zeros(0, dtype=m.complex64)),
    lambda m: m.var(m.ones(6, dtype=m.float16), out=m.zeros(0)),  # std_var_all's dtype error
    lambda m: m.std(m.ones(2, 3, dtype=m.complex64), 1, out=m.zeros(0, dtype=m.float64)),
    lambda m: m.mean(m.ones(2, 3, dtype=m.float16), 1, out=m.zeros(0, dtype=m.int64)),
    lambda m: m.mean(m.ones(2, 3, dtype=m.int64), 1, out=m.zeros(0)),
    lambda m: m.nanmean(m.ones(2, 3), 1, out=m.zeros(0, dtype=m.complex64)),
    lambda m: m.nanmean(m.ones(2, 3), 1, out=m.zeros(0, dtype=m.int64)),
    lambda m: m.nanmean(m.ones(2, 3, dtype=m.int64), 1, out=m.zeros(0)),
    lambda m: m.nanmean(m.ones(2, 3, dtype=m.int64)),
))
def test_reduction_out_dtype_errors(f: Any) -> None:
    check_message(f)


def test_sum_prod_out_dtype_unchanged() -> None:
    for op, (di, do) in itertools.product(["sum", "prod", "nansum"], itertools.product(FLOATS, FLOATS)):
        check_close(lambda m: getattr(m, op)(m.tensor(BASE, dtype=getattr(m, di)), 1,  # noqa: B023
                                             out=m.zeros(0, dtype=getattr(m, do))), 4.0)  # noqa: B023


# ---- ctc_loss: a float target is its truncation throughout ---------------------------------------------

LOGITS = torch.randn(6, 2, 4, generator=torch.Generator().manual_seed(0)).tolist()


@pytest.mark.parametrize("targets", [[[0.5, 0.0, 3.5], [2.5, 1.5, 0.7]], [[0.5, 0, 3], [2, 1, 0]],
                                     [[1.5, 1.2, 3], [2, 1, 1]], [[1, 2, 3], [2, 2.9, 1]]])
@pytest.mark.parametrize("layout", ["contig", "step"])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_ctc_loss_float_targets_truncate(targets: list, layout: str, reduction: str) -> None:
    """Labels 0.5 and 0 are both class 0, a repeat (seed 2812: float32[2, 3] column-step targets; ember
    compared the float labels, so 0.5 then 0 could skip the blank between them)."""
    def f(m: Any) -> Any:
        t = m.tensor(targets)
        if layout == "step":
            t = m.stack([t, t], 2).reshape(2, 6)[:, ::2]
        return m.nn.functional.ctc_loss(m.tensor(LOGITS), t, m.tensor([6, 5]), m.tensor([3, 2]), blank=0,
                                        reduction=reduction, zero_infinity=False)
    check(f)


# ---- repeat_interleave: output_size against empty repeats ----------------------------------------------

@pytest.mark.parametrize("f", call(
    lambda m: m.repeat_interleave(m.zeros(0, dtype=m.int64), output_size=6),  # seed 2812
    lambda m: m.repeat_interleave(m.zeros(0, dtype=m.int64), output_size=-1),
    lambda m: m.repeat_interleave(m.ones(0), m.zeros(0, dtype=m.int64), output_size=6),
    lambda m: m.repeat_interleave(m.ones(0), m.tensor([2]), output_size=5),
    lambda m: m.repeat_interleave(m.ones(0, 3), m.tensor(2), 0, output_size=5),
    lambda m: m.repeat_interleave(m.tensor([1, 2]), output_size=6),
    lambda m: m.repeat_interleave(m.tensor([1, 2]), output_size=3),
    lambda m: m.repeat_interleave(m.tensor([0, 0]), output_size=2),
    lambda m: m.repeat_interleave(m.ones(3), m.tensor([1, 2, 0]), output_size=6),
    lambda m: m.repeat_interleave(m.ones(3, 0), m.tensor([1, 2, 0]), 0, output_size=6),
    lambda m: m.repeat_interleave(m.ones(3), 2, output_size=5),
    lambda m: m.repeat_interleave(m.ones(0), 2, output_size=5),
    lambda m: m.repeat_interleave(m.ones(2, 3), 2, 1, output_size=5),
    lambda m: m.repeat_interleave(m.ones(2, 3), 2, 1, output_size=6),
    lambda m: m.repeat_interleave(m.ones(3), -2, output_size=5),
))
def test_repeat_interleave_output_size(f: Any) -> None:
    check_message(f)


# ---- sizes with a dim past 2**62: numel in uint64 with a sticky overflow --------------------------------

H = 2**62


@pytest.mark.parametrize("f", call(
    lambda m: m.broadcast_to(m.tensor(1.0), (0, H, 4)),  # seed 2812 (the harness's error)
    lambda m: m.ones(4).broadcast_to((H, 0, 4)),
    lambda m: m.ones(4).broadcast_to((H, H, 0, 4)),
    lambda m: m.ones(1).expand(H, H, 0),
    lambda m: m.ones(1).expand(2, H, 2, 0),
    lambda m: m.ones(1).expand(3, H, 0),
    lambda m: m.ones(1).expand(2**63 - 1, 2, 0),
    lambda m: m.ones(0).reshape(H, H, 0),
    lambda m: m.ones(0).reshape(4, H, 0),
    lambda m: m.ones(0).reshape(3, H, 0),
    lambda m: m.ones(0).as_strided((H, H, 0), (0, 0, 0)),
    lambda m: m.empty_strided((H, H, 0), (0, 0, 0)),
    lambda m: m.tensor(1.0).expand(0, H, 4).permute(2, 1, 0).contiguous(),
    lambda m: m.tensor(1.0).expand(0, H, 4).reshape(0, 2, H),  # strides past int64: refused by both
    lambda m: m.ones(1).expand(H, H, 0).sum(),
))
def test_huge_dims_numel(f: Any) -> None:
    """aten multiplies the sizes in order in uint64 and fails on any overflow, a later 0 or not."""
    check_meta(lambda m: (tuple(f(m).shape), tuple(f(m).stride())))


def test_fuzz_call_broadcast_to_huge_empty() -> None:
    fp = load("fuzz_props")
    for variant in ("function", "method"):
        fp.check(fp.worker(), fp.Call(("op", "broadcast_to", "broadcast_to", variant),
                                      (fp.TS((), "float32"), (0, H, 4)), {}))


# ---- unfold / fold: a dilated extent past int64 (known wrong) -------------------------------------------

@pytest.mark.parametrize(("name", "args", "kwargs"), [
    ("unfold", ((2, 3, 5, 5), (2, 2)), {"dilation": 2**63 - 1, "padding": 0, "stride": 1}),  # seed 2812
    ("unfold", ((2, 3, 5, 5), (2, 2)), {"dilation": (1, 2**63 - 1)}),
    ("unfold", ((3, 5, 5), (3, 2)), {"dilation": 2**62}),
    ("fold", ((2, 12, 36), (5, 5), (2, 2)), {"dilation": 2**63 - 1}),
])
def test_im2col_extent_entry(name: str, args: tuple, kwargs: dict) -> None:
    shape, *rest = args
    targs = (torch.ones(shape), *rest)
    kw = known_wrong()
    entry = kw.lookup(name, targs, kwargs)
    assert entry is not None and entry.id == "im2col-dilated-extent-wraps"
    with pytest.raises(RuntimeError):
        kw.corrected(entry, None, name, targs, kwargs)
    with pytest.raises(RuntimeError):
        getattr(ember.nn.functional, name)(ember.ones(shape), *rest, **kwargs)


def test_im2col_extent_entry_scope() -> None:
    kw = known_wrong()
    x = torch.ones(2, 3, 5, 5)
    assert kw.lookup("unfold", (x, (2, 2)), {"dilation": 2**31}) is None  # PyTorch's own error
    assert kw.lookup("unfold", (x, (1, 1)), {"dilation": 2**63 - 1}) is None  # a 1-wide kernel spans 1
    assert kw.lookup("unfold", (x, (2, 2)), {"dilation": 0}) is None
    assert kw.lookup("unfold", (torch.ones(2, 0, 5, 5), (2, 2)), {"dilation": 2**63 - 1}) is None
    assert kw.lookup("fold", (torch.ones(2, 10, 36), (5, 5), (2, 2)), {"dilation": 2**63 - 1}) is None
    check(lambda m: m.nn.functional.unfold(m.ones(2, 3, 5, 5), (2, 2), dilation=2**31))


@pytest.mark.parametrize("f", call(
    lambda m: m.nn.functional.unfold(m.ones(0, 3, 5, 5), (2, 2), padding=2**31 - 1, stride=5),  # 3-minute rerun
    lambda m: m.nn.functional.unfold(m.ones(0, 3, 5, 5), (2, 2), padding=1, stride=2),
    lambda m: m.nn.functional.unfold(m.ones(0, 3, 5, 5, dtype=m.int64), (2, 2), padding=2**31 - 1, stride=5),
    lambda m: m.ones(0, 0, 0).unfold(0, 0, 2**62),  # Tensor.unfold: no padding entry
))
def test_unfold_empty_batch_huge_padding(f: Any) -> None:
    check_message(f)


def test_fuzz_call_unfold_dilation() -> None:
    fp = load("fuzz_props")
    fp.check(fp.worker(), fp.Call(("F", "unfold"), (fp.TS((2, 3, 5, 5), "float32"),),
                                  {"kernel_size": (2, 2), "dilation": 2**63 - 1, "padding": 0, "stride": 1}))


# ---- exception types and order ----------------------------------------------------------------------

@pytest.mark.parametrize("f", call(
    lambda m: m.nn.functional.cross_entropy(m.ones(1), m.tensor(0), weight=m.tensor(1.0)),  # seed 2812
    lambda m: m.nn.functional.nll_loss(m.ones(1), m.tensor(0), weight=m.tensor(1.0)),
    lambda m: m.nn.functional.cross_entropy(m.ones(2, 1), m.tensor([0, 0]), weight=m.tensor(1.0)),
    lambda m: m.nn.functional.cross_entropy(m.ones(2, 1), m.tensor([0, 0]), weight=m.ones(1, 1)),
    lambda m: m.nn.functional.cross_entropy(m.ones(2, 1, 3), m.zeros(2, 3, dtype=m.int64), weight=m.tensor(1.0)),
    lambda m: (m.ops.aten if m is torch else m._nn).nll_loss_forward(m.ones(1), m.tensor(0), m.tensor(1.0), 1,
                                                                      -100),
    lambda m: (m.ops.aten if m is torch else m._nn).nll_loss_backward(
        m.tensor(1.0), m.ones(1), m.tensor(0), m.tensor(1.0), 1, -100, m.tensor(1.0)),
))
def test_nll_loss_weight_rank(f: Any) -> None:
    check_message(f)


@pytest.mark.parametrize("dtype", ["bool", "float32", "int64"])
@pytest.mark.parametrize("p", [float("inf"), float("-inf"), 2.0])
@pytest.mark.parametrize("ceil_mode", [None, False, 1])
def test_lp_pool1d_abs_before_flag(dtype: str, p: float, ceil_mode: Any) -> None:
    """An infinite norm takes |x| before the max pool parses ceil_mode (seed 2812: a bool input is abs's
    NotImplementedError, not the flag's TypeError)."""
    check(lambda m: m.nn.functional.lp_pool1d(m.ones(2, 3, 8, dtype=getattr(m, dtype)), p, 2, stride=2,
                                              ceil_mode=ceil_mode))


@pytest.mark.parametrize(("dt", "odt"), [("bool", "float32"), ("float32", "float64"), ("int64", "float32"),
                                         ("bool", "bool"), ("complex64", "float32")])
@pytest.mark.parametrize("shapes", [((2, 3), (3, 4)), ((2, 0), (0, 4)), ((0, 3), (3, 4))])
def test_mm_out_dtype_before_dispatch(dt: str, odt: str, shapes: tuple) -> None:
    """mm's out= dtype check comes before its dtype dispatch (seed 2812: bool operands, a float32 out=)."""
    (sa, sb) = shapes
    check_message(lambda m: m.mm(m.ones(*sa, dtype=getattr(m, dt)), m.ones(*sb, dtype=getattr(m, dt)),
                                 out=m.zeros(0, dtype=getattr(m, odt))))


B63 = 2**63


@pytest.mark.parametrize("kwargs", [
    {"dim": (0, 1, B63)},  # seed 2812
    {"dim": [0, 1, -B63 - 1]}, {"dim": (0, B63), "p": "nuc"}, {"dim": (0, 1, 2)}, {"dim": (0, 1, 2), "p": "nuc"},
    {"dim": (0, 1, 2), "p": "bad"}, {"p": "bad"}, {"p": "nuc"}, {"dim": (0, 5), "p": "nuc"}, {"dim": (0, 1), "p": "nuc"},
    {"dim": (0, 1, 2), "p": 2},
])
def test_norm_string_orders_are_matrix_norms(kwargs: dict) -> None:
    """torch.norm with a string order other than a Frobenius norm over at most two dims is
    linalg.matrix_norm, whose parser refuses a dim past int64 (seed 2812)."""
    t, e = _FO.outcome(torch, lambda m: m.norm(m.ones(2, 3, 4), **kwargs)), \
        _FO.outcome(ember, lambda m: m.norm(m.ones(2, 3, 4), **kwargs))
    if t[0] == "raise":  # PyTorch's parser message carries its C++ traceback: the first line
        first = (lambda s: s.splitlines()[0].rstrip('"'))  # noqa: E731
        assert (t[1], first(t[2])) == (e[1], first(e[2])), f"torch {t} vs ember {e}"
    else:
        assert _FO.same(t, e), f"torch {t} vs ember {e}"


@pytest.mark.parametrize("f", call(
    lambda m: m.linalg.matrix_norm(m.ones(2, 3, 4), dim=(0, 5)),
    lambda m: m.linalg.matrix_norm(m.ones(2, 3, 4), dim=(-4, 0)),
    lambda m: m.linalg.matrix_norm(m.ones(2, 3, 4), "nuc", dim=(0, 2)),
))
def test_matrix_norm_dim_range(f: Any) -> None:
    check(f)


# ---- upsample backward: float types only, an empty gradient too ------------------------------------------

UPSAMPLE_BACKWARD = [
    ("upsample_nearest1d_backward", (6,), (2, 2, 3)), ("upsample_nearest2d_backward", (6, 8), (2, 2, 3, 4)),
    ("upsample_nearest3d_backward", (6, 8, 10), (2, 2, 3, 4, 5)),
    ("_upsample_nearest_exact1d_backward", (6,), (2, 2, 3)),
    ("_upsample_nearest_exact2d_backward", (6, 8), (2, 2, 3, 4)),
    ("_upsample_nearest_exact3d_backward", (6, 8, 10), (2, 2, 3, 4, 5)),
    ("upsample_linear1d_backward", (6,), (2, 2, 3)), ("upsample_bilinear2d_backward", (6, 8), (2, 2, 3, 4)),
]


@pytest.mark.parametrize(("name", "osz", "isz"), UPSAMPLE_BACKWARD)
@pytest.mark.parametrize("dtype", ["int64", "bool", "uint8", "complex64", "float16", "float32"])
@pytest.mark.parametrize("batch", [0, 1])
def test_upsample_backward_dtype(name: str, osz: tuple, isz: tuple, dtype: str, batch: int) -> None:
    """torch._nn.upsample_nearest3d_backward(int64[0, 2, 6, 8, 10], ...) is the backward's NotImplementedError
    (seed 2812: ember returned an empty result; with elements it named the forward)."""
    isz = (batch, *isz[1:])

    def f(m: Any) -> Any:
        fn = getattr(m.ops.aten if m is torch else m._nn, name)
        extra = (False,) if "linear" in name else ()
        return fn(m.zeros(batch, 2, *osz, dtype=getattr(m, dtype)), osz, isz, *extra)
    check_message(f)


# ---- the fused attention backward with a zero-batch gradient and a float64 mask (known wrong) ----------

def _sdpa_backward_args(m: Any, gb: int, mask_dtype: str) -> tuple:
    q, k, v = m.ones(1, 2, 4, 8), m.ones(1, 2, 5, 8), m.ones(1, 2, 5, 8)
    return ((m.ones(gb, 2, 4, 8), q, k, v, m.zeros(1, 2, 4, 8), m.zeros(1, 2, 4), 0.0, False),
            {"attn_mask": m.zeros(4, 5, dtype=getattr(m, mask_dtype))})


@pytest.mark.parametrize("mask_dtype", ["float64", "float16", "bfloat16"])
def test_sdpa_flash_backward_zero_batch_mask_entry(mask_dtype: str) -> None:
    """PyTorch's backward takes an attn_mask of any float dtype, and reads a grad_out of batch 0 by the
    query's batch: SIGSEGV (seed 2812); ember refuses the shapes, as the entry says."""
    name = "_scaled_dot_product_flash_attention_for_cpu_backward"
    args, kwargs = _sdpa_backward_args(torch, 0, mask_dtype)
    kw = known_wrong()
    entry = kw.lookup(name, args, kwargs)
    assert entry is not None and entry.id == "sdpa-flash-inconsistent-shapes"
    with pytest.raises(RuntimeError):
        kw.corrected(entry, None, name, args, kwargs)
    eargs, ekwargs = _sdpa_backward_args(ember, 0, mask_dtype)
    with pytest.raises(RuntimeError, match="grad_out"):
        getattr(ember._nn, name)(*eargs, **ekwargs)
    # consistent shapes with that mask: both compute (no entry)
    args, kwargs = _sdpa_backward_args(torch, 1, mask_dtype)
    assert kw.lookup(name, args, kwargs) is None
    check(lambda m: getattr(m.ops.aten if m is torch else m._nn, name)(*_sdpa_backward_args(m, 1, mask_dtype)[0],
                                                                       **_sdpa_backward_args(m, 1, mask_dtype)[1]))


def test_sdpa_flash_backward_int_mask_not_covered() -> None:
    """A mask neither bool nor float is the kernel's dtype error: no entry."""
    name = "_scaled_dot_product_flash_attention_for_cpu_backward"
    args, kwargs = _sdpa_backward_args(torch, 1, "int64")
    assert known_wrong().lookup(name, args, kwargs) is None
