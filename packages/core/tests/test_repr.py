"""Tensor printing must match PyTorch's ``repr`` character for character.

Every case builds the same tensor in ember and in torch (from identical Python
data) and compares ``repr``/``str``.  Skipped when either library is missing.
"""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
ember = pytest.importorskip("ember")
ts = pytest.importorskip("ember._tensor_str")

NAN, INF = math.nan, math.inf


def _randn(*shape: int, seed: int = 0, scale: float = 1.0) -> list:
    """Random nested-list data (float64 values) shared by both libraries."""
    gen = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=gen, dtype=torch.float64) * scale).tolist()


def _ints(n: int, lo: int, hi: int, seed: int = 0) -> list:
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(lo, hi, (n,), generator=gen).tolist()


def _T(data, dtype: str | None = None, **kw):
    """Case builder: ``L`` is the library (torch or ember)."""
    return lambda L: L.tensor(data, **({"dtype": getattr(L, dtype)} if dtype else {}), **kw)


def _zeros(*shape: int, dtype: str = "float32"):
    return lambda L: L.zeros(*shape, dtype=getattr(L, dtype))


# (case id, builder, print options)
CASES = [
    # basics and dtype suffixes
    ("float", _T([1.5, 2.0]), {}),
    ("float_integral", _T([1.0, 2.0, -3.0]), {}),
    ("int64", _T([1, 2, -30]), {}),
    ("bool", _T([True, False, True]), {}),
    ("scalar_float", _T(1.0), {}),
    ("scalar_frac", _T(1.5), {}),
    ("scalar_int", _T(7), {}),
    ("scalar_bool", _T(False), {}),
    ("scalar_f64", _T(2.5, "float64"), {}),
    ("float64", _T([1.5, 2.0], "float64"), {}),
    ("float16", _T([0.1, 0.2, 65504.0], "float16"), {}),
    ("bfloat16", _T([1.1, 2.0, -3.3], "bfloat16"), {}),
    ("uint8", _T([0, 7, 255], "uint8"), {}),
    ("int8", _T([-128, 0, 127], "int8"), {}),
    ("int16", _T([-32768, 5, 32767], "int16"), {}),
    ("int32", _T([-(2**31), 0, 2**31 - 1], "int32"), {}),
    ("int64_extremes", _T([-(2**63), 0, 2**63 - 1]), {}),
    # empty tensors
    ("empty_1d", _T([]), {}),
    ("empty_int64", _T([], "int64"), {}),
    ("empty_bool", _T([], "bool"), {}),
    ("empty_2d", _zeros(0, 3), {}),
    ("empty_2d_int32", _zeros(2, 0, dtype="int32"), {}),
    ("empty_3d_f64", _zeros(3, 0, 2, dtype="float64"), {}),
    # special values and notation choice
    ("nan_inf", _T([0.5, NAN, -INF, INF]), {}),
    ("nan_integral", _T([0.0, NAN, 1000.0]), {}),
    ("only_zeros_nan", _T([0.0, -0.0, NAN]), {}),
    ("neg_zero", _T([-0.0, 1.5]), {}),
    ("sci_small", _T([1e-8, 1.0]), {}),
    ("sci_large", _T([1e9, 1.0]), {}),
    ("sci_ratio", _T([1.0, 1001.0]), {}),
    ("no_sci_ratio_1000", _T([1.0, 1000.0]), {}),
    ("sci_1e8", _T([1e8 + 8]), {}),
    ("fixed_1e8", _T([1e8]), {}),
    ("sci_boundary_1e-4_f32", _T([1e-4]), {}),
    ("fixed_boundary_1e-4_f64", _T([1e-4], "float64"), {}),
    ("sci_huge_int", _T([1e20, 1.0]), {}),
    ("sci_nan", _T([NAN, 1e-8, 100.0]), {}),
    ("mixed_scales", _T(_randn(4, 5, seed=3, scale=1e5)), {}),
    ("f16_tiny", _T([6e-8, 1.0, 1e-5], "float16"), {}),
    # multi-dim nesting and wrapping
    ("2d", _T(_randn(3, 4, seed=1)), {}),
    ("3d", _T(_randn(2, 3, 4, seed=2), "float64"), {}),
    ("4d", _T([[[[1.0, 1.0]]], [[[1.0, 1.0]]]]), {}),
    ("long_row", _T([float(i) for i in range(30)]), {}),
    ("long_row_f64_suffix", _T([1000.0 + i for i in range(14)], "float64"), {}),
    ("long_row_int", _T(_ints(200, -(10**6), 10**6, seed=4)), {}),
    ("wide_2d", _T(_randn(3, 40, seed=5, scale=100.0)), {}),
    # summarization
    ("summ_1000_full", _T([float(i) / 7 for i in range(1000)]), {}),
    ("summ_1001", _T([float(i) for i in range(1001)]), {}),
    ("summ_int", _T(list(range(2000))), {}),
    ("summ_bool", _T([i % 3 == 0 for i in range(1500)]), {}),
    ("summ_2d", _T(_randn(40, 50, seed=6)), {}),
    ("summ_3d", _T(_randn(10, 20, 20, seed=7, scale=1e3)), {}),
    ("summ_tall", _T(_randn(1001, 2, seed=8), "float16"), {}),
    ("summ_zeros_big", _zeros(300, 500), {}),
    # print options
    ("opt_precision2", _T(_randn(5, seed=9)), {"precision": 2}),
    ("opt_precision0", _T([1.5, 2.5, 3.0]), {"precision": 0}),
    ("opt_threshold", _T(list(range(10))), {"threshold": 5}),
    ("opt_edgeitems", _T(_randn(10, 10, seed=10)), {"threshold": 5, "edgeitems": 1}),
    ("opt_edgeitems0", _T(list(range(10))), {"edgeitems": 0, "threshold": 5}),
    ("opt_edgeitems0_small", _T([[0.0, 1.0], [2.0, 3.0]]), {"edgeitems": 0}),
    (
        "opt_linewidth30",
        _T([1.5 * i for i in range(200)]),
        {"linewidth": 30, "edgeitems": 10, "threshold": 10},
    ),
    ("opt_linewidth40_suffix", _T([[0.0025], [-0.0044]], "float16"), {"linewidth": 40}),
    ("opt_sci_true", _T([0.0, 1.0]), {"sci_mode": True}),
    ("opt_sci_false", _T([1e10, NAN, 0.5]), {"sci_mode": False}),
    ("opt_short", _T(_randn(20, 200, seed=11)), {"profile": "short"}),
    ("opt_full", _T(list(range(1200))), {"profile": "full"}),
    # autograd leaf
    ("requires_grad", _T([1.0, 2.0], requires_grad=True), {}),
    ("requires_grad_f64_2d", _T(_randn(2, 3, seed=12), "float64", requires_grad=True), {}),
    ("requires_grad_scalar", _T(2.0, requires_grad=True), {}),
]


@pytest.fixture(autouse=True)
def _reset_printoptions():
    torch.set_printoptions(profile="default")
    ts.set_printoptions(profile="default")
    yield
    torch.set_printoptions(profile="default")
    ts.set_printoptions(profile="default")


def _check(build, opts: dict) -> None:
    t = build(torch)
    e = build(ember)
    torch.set_printoptions(**opts)
    ts.set_printoptions(**opts)
    assert repr(e) == repr(t)
    assert str(e) == str(t)


@pytest.mark.parametrize("build,opts", [pytest.param(b, o, id=i) for i, b, o in CASES])
def test_repr_matches_torch(build, opts):
    _check(build, opts)


@pytest.mark.parametrize(
    "build",
    [
        _T([1.0, 2.0]),
        _T([1.5], "float32"),
        _T([1.5], "float64"),
        _T([]),
        _T([], "float32"),
        _T([1, 2]),
        _T(3.25),
    ],
)
def test_repr_default_dtype_float64(build):
    torch.set_default_dtype(torch.float64)
    ember.set_default_dtype(ember.float64)
    try:
        _check(build, {})
    finally:
        torch.set_default_dtype(torch.float32)
        ember.set_default_dtype(ember.float32)


def _has_autograd_ops() -> bool:
    try:
        return (ember.ones(1, requires_grad=True) * 2).grad_fn is not None
    except Exception:
        return False


@pytest.mark.parametrize(
    "op",
    [
        pytest.param(lambda x: x * 2, id="mul"),
        pytest.param(lambda x: x + 1, id="add"),
        # Integer-valued inputs: float32 sums are exact whatever the summation order.
        pytest.param(lambda x: x.round().sum(), id="sum"),
        pytest.param(lambda x: x[0], id="select"),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_repr_grad_fn(op, dtype):
    if not _has_autograd_ops():
        pytest.skip("ember autograd ops not available yet")
    build = _T(_randn(2, 14, seed=13, scale=1000.0), dtype, requires_grad=True)
    _check(lambda L: op(build(L)), {})


def test_printoptions_state():
    ts.set_printoptions(precision=2, sci_mode=True)
    assert ts.get_printoptions() == {
        "precision": 2,
        "threshold": 1000,
        "edgeitems": 3,
        "linewidth": 80,
        "sci_mode": True,
    }
    ts.set_printoptions(linewidth=100)  # sci_mode is reset by every call
    assert ts.get_printoptions()["sci_mode"] is None
    ts.set_printoptions(profile="short")
    assert ts.get_printoptions() == {
        "precision": 2,
        "threshold": 1000,
        "edgeitems": 2,
        "linewidth": 80,
        "sci_mode": None,
    }
    ts.set_printoptions(profile="full", precision=3)
    opts = ts.get_printoptions()
    assert opts["threshold"] == math.inf and opts["precision"] == 3
    ts.set_printoptions(profile="default")
    before = ts.get_printoptions()
    with ts.printoptions(precision=1, threshold=5):
        assert ts.get_printoptions()["precision"] == 1
        assert repr(ember.tensor([1.25, 2.0])) == "tensor([1.2, 2.0])"
    assert ts.get_printoptions() == before


def test_big_tensor_prints_fast():
    import time

    e = ember.zeros(4096, 4096)
    start = time.perf_counter()
    text = repr(e)
    assert time.perf_counter() - start < 1.0
    assert text == repr(torch.zeros(4096, 4096))
