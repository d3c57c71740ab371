"""Core-op fuzz findings of issue 16, each as the smallest call that showed it: ember must
raise PyTorch's exception type (in PyTorch's check order) or give PyTorch's dtype, shape and
values. Where PyTorch's own answer is wrong (fused optimizer steps on non-contiguous tensors)
the right value is computed another way, as torch_known_wrong.py does."""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402

NAN, INF = float("nan"), float("inf")
KINDS = (NotImplementedError, IndexError, TypeError, ValueError, RuntimeError)


def outcome(m: Any, f: Callable[[Any], Any]) -> tuple:
    try:
        r = f(m)
    except Exception as e:  # noqa: BLE001 - the exception is the result under test
        return ("raise", next(k.__name__ for k in KINDS + (Exception,) if isinstance(e, k)), str(e))
    rs = r if isinstance(r, (tuple, list)) else (r,)
    return ("ok", [(str(t.dtype).split(".")[-1], tuple(t.shape), t.tolist()) for t in rs])


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):  # LAPACK may round the last bit otherwise
        return a == b or (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-6 * abs(a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def check(f: Callable[[Any], Any]) -> None:
    t, e = outcome(torch, f), outcome(ember, f)
    assert t[:2] == e[:2] if t[0] == "raise" else same(t, e), f"torch {t} vs ember {e}"


def check_message(f: Callable[[Any], Any]) -> None:
    """The same outcome, and where both raise, the same message."""
    t, e = outcome(torch, f), outcome(ember, f)
    assert t == e if t[0] == "raise" else same(t, e), f"torch {t} vs ember {e}"


def call(*cases: Callable[[Any], Any]) -> list:
    return list(cases)


# ---- where: a Python number is read with the checked conversion to the result dtype ----------

@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "int64", "float16", "float32", "bool"])
@pytest.mark.parametrize("v", [2147483647, 300, -1, -300, 2**40, 2**63, 1e10, 1e300, True])
def test_where_number_checked(dtype: str, v: Any) -> None:
    check(lambda m: m.where(m.tensor([True, False]), m.ones(2, dtype=getattr(m, dtype)), v))
    check(lambda m: m.where(m.tensor([True, False]), v, m.ones(2, dtype=getattr(m, dtype))))


# ---- index_add / index_copy / index_fill: aten's order and wording ---------------------------

@pytest.mark.parametrize("f", call(
    lambda m: m.index_add(m.zeros(0, 3), 0, m.tensor([0, 2, 0]), m.ones(3, 3)),
    lambda m: m.index_add(m.zeros(4, 3), 0, m.tensor([5, 0, 1], dtype=m.int32), m.ones(3, 3)),
    lambda m: m.zeros(2).index_add_(0, m.tensor([5]), m.ones(1)),
    lambda m: m.zeros(2, 3).index_add_(0, m.tensor([5]), m.ones(1, 3)),
    lambda m: m.zeros(2, 3).index_add_(0, m.tensor([5]), m.ones(1, 3), alpha=2.0),
    lambda m: m.zeros(2, 3).index_add_(0, m.tensor([5]), m.ones(1, 3), alpha=True),
    lambda m: m.zeros(3).index_add_(0, m.tensor(1), m.tensor(2.0)),
    lambda m: m.index_copy(m.zeros(0, 3), 0, m.tensor([3, 1]), m.ones(2, 3)),
    lambda m: m.zeros(4, 3)[:0].index_copy_(0, m.tensor([3]), m.ones(1, 3)),
    lambda m: m.zeros(0, 3).index_copy_(1, m.tensor([3]), m.ones(0, 1)),
    lambda m: m.zeros(1, 1).expand(1, 3).index_copy_(0, m.tensor([3, 1]), m.ones(2, 3)),
    lambda m: m.zeros(3).expand(4, 3).index_copy_(2, m.tensor([3, 1]), m.ones(2, 3)),  # dim before overlap
    lambda m: m.zeros(0, 3).index_fill_(0, m.tensor([3]), 1.0),
    lambda m: m.index_fill(m.zeros(4, 3), 0, m.tensor([3, 1, 3]), 1e300),
    lambda m: m.index_fill(m.zeros(4, 3, dtype=m.uint8), 0, m.tensor([1]), m.tensor(300.0)),
))
def test_index_dim_ops(f: Callable[[Any], Any]) -> None:
    check(f)


# ---- matmul family, reductions, shapes: which check comes first -------------------------------

def z(m: Any, shape: tuple, dtype: str = "float32") -> Any:
    return m.zeros(*shape, dtype=getattr(m, dtype))


@pytest.mark.parametrize("f", call(
    lambda m: m.bmm(z(m, (5, 2, 3), "bool"), z(m, (5, 3, 4), "uint8")),
    lambda m: m.bmm(z(m, (5, 2, 3), "int32"), z(m, (5, 3, 4), "uint8")),
    lambda m: m.bmm(z(m, (5, 2, 3), "bool"), z(m, (5, 3, 4), "uint8"), out=z(m, (5, 2, 4))),
    lambda m: m.bmm(z(m, (5, 0, 3)), z(m, (5, 3, 4), "int32")),
    lambda m: m.bmm(z(m, (5, 2, 0), "bool"), z(m, (5, 0, 4), "bool")),
    lambda m: m.baddbmm(z(m, (0, 2, 4), "bool"), z(m, (5, 2, 3), "bool"), z(m, (5, 3, 4), "bool")),
    lambda m: m.baddbmm(z(m, (5, 2, 4)), z(m, (5, 2, 3), "bool"), z(m, (5, 3, 4), "bool")),
    lambda m: m.histc(m.tensor(2**63 - 1), bins=3),
    lambda m: m.round(z(m, (3, 1), "int64").expand(3, 4), decimals=2, out=z(m, (3, 1), "int64").expand(3, 4)),
    lambda m: z(m, (3, 1), "int64").expand(3, 4).round_(decimals=2),
    lambda m: m.mode(z(m, (2, 0)), out=(z(m, (0,)), z(m, (0,)))),
    lambda m: m.constant_pad_nd(z(m, (2, 3)), [1, 1, 2, -3], 1.5),
    lambda m: m.constant_pad_nd(z(m, (2, 3)), [-3, 1]),
    lambda m: m.bucketize(z(m, (3, 4), "bool"), z(m, (4,), "bool"), out=z(m, (0,))),
    lambda m: m.arange(0, 2.5, 2.0**63, dtype=m.uint8),
    lambda m: m.arange(0, 5, 2.0**63),
))
def test_check_order(f: Callable[[Any], Any]) -> None:
    check(f)


def nll_backward(m: Any) -> Any:
    return m.ops.aten.nll_loss_backward if m is torch else m._nn.nll_loss_backward


@pytest.mark.parametrize("args", [
    ("go", (), "float64", (3, 4), [0, 1, 7], None, 1, ()),       # grad_output dtype, then targets
    ("tw", (), "float32", (3, 4), [0, 1, 7], None, 1, (2,)),     # total_weight size first
    ("go0d", (), "float32", (3, 4), [0, 1, 2], None, 0, ()),     # reduction none wants (N,)
    ("w", (), "float32", (3, 4), [0, 1, 7], (4,), 1, ()),        # weight dtype (float64)
    ("int", (), "float32", (3, 4), [0, 1, 2], None, 1, ()),      # int64 input
])
def test_nll_loss_backward_order(args: tuple) -> None:
    kind, go_shape, go_dtype, shape, target, w, reduction, tw_shape = args

    def f(m: Any) -> Any:
        x = m.zeros(*shape).long() if kind == "int" else m.zeros(*shape)
        weight = m.ones(*w, dtype=m.float64) if w else None
        go = m.ones(*go_shape, dtype=getattr(m, go_dtype))
        return nll_backward(m)(go, x, m.tensor(target), weight, reduction, -100, m.ones(*tw_shape))
    check(f)


def test_nll_loss_forward_weight_dtype() -> None:
    def f(m: Any) -> Any:
        fwd = m.ops.aten.nll_loss_forward if m is torch else m._nn.nll_loss_forward
        return fwd(m.zeros(4, 5, dtype=m.float64), m.tensor([0, 3, 1, -100]), m.ones(5), 2, -100)
    check(f)


# ---- values: aten's tie order ----------------------------------------------------------

@pytest.mark.parametrize("k", [1, 2, 3, 5, 6])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted_", [True, False])
def test_topk_ties_follow_aten(k: int, largest: bool, sorted_: bool) -> None:
    rows = [[1.0, 2, 1, 2, 1, 2], [0.0] * 6, [3.0, 1, 3, 1, 3, 1], [NAN, 1, NAN, 1, 0, 0]]
    check(lambda m: m.topk(m.tensor(rows), k, largest=largest, sorted=sorted_))
    check(lambda m: m.topk(m.tensor([float(i % 7) for i in range(500)]), k, largest=largest, sorted=sorted_))


# ---- linalg: which triangle, which check, an empty right-hand side ----------------------------

@pytest.mark.parametrize("f", call(
    lambda m: m.linalg.cholesky(m.tensor([[4.0], [1.0], [0.5]], dtype=m.float64).expand(3, 3), upper=True),
    lambda m: m.linalg.cholesky(m.tensor([[4.0], [1.0], [0.5]], dtype=m.float64).expand(3, 3)),
    lambda m: m.linalg.qr(z(m, (3, 3), "float16"), "x"),
    lambda m: m.linalg.solve(m.ones(4, 4, dtype=m.float64), z(m, (0, 4), "float64"), left=False),
))
def test_linalg_order(f: Callable[[Any], Any]) -> None:
    check(f)


# ---- fused optimizer steps: any layout, the step of contiguous copies ------------------------

def stepped(m: Any, t: Any) -> Any:
    b = m.zeros(4, 12)
    b[:, ::2] = t
    return b[:, ::2]


LAYOUTS = {"t": lambda m, t: t.t().contiguous().t(), "step": stepped}


@pytest.mark.parametrize("name", ["_fused_adam_", "_fused_adamw_", "_fused_sgd_"])
@pytest.mark.parametrize("layout", ["t", "step"])
@pytest.mark.parametrize("which", [0, 1, 2])
def test_fused_step_any_layout(name: str, layout: str, which: int) -> None:
    g = torch.Generator().manual_seed(which)
    base = [torch.randn(4, 6, generator=g) for _ in range(3)] + [torch.rand(4, 6, generator=g)] * 2
    kw: dict = (dict(weight_decay=0.1, momentum=0.9, lr=0.1, dampening=0.0, nesterov=False, maximize=False,
                     is_first_step=False) if name == "_fused_sgd_" else
                dict(lr=0.1, beta1=0.9, beta2=0.99, weight_decay=0.1, eps=1e-8, amsgrad=True, maximize=False,
                     grad_scale=None))
    n = 3 if name == "_fused_sgd_" else 5
    want = [t.clone() for t in base[:n]]
    getattr(torch, name)(*[[t] for t in want], *([] if n == 3 else [[torch.tensor(3.0)]]), **kw)
    got = [ember.tensor(t.tolist()) for t in base[:n]]
    got[which] = LAYOUTS[layout](ember, got[which])
    assert not got[which].is_contiguous()
    getattr(ember, name)(*[[t] for t in got], *([] if n == 3 else [[ember.tensor(3.0)]]), **kw)
    for w, e in zip(want, got, strict=True):  # PyTorch is right on contiguous tensors
        torch.testing.assert_close(torch.tensor(e.tolist()), w, rtol=1e-6, atol=1e-7)


def test_fused_step_expanded_param_is_overlap_error() -> None:
    p = ember.zeros(3, 1).expand(3, 4)
    lists = [[p]] + [[ember.zeros(3, 4)] for _ in range(3)] + [[], [ember.tensor(1.0)]]
    with pytest.raises(RuntimeError, match="single memory location"):
        ember._fused_adam_(*lists, lr=0.1, beta1=0.9, beta2=0.99, weight_decay=0.0, eps=1e-8, amsgrad=False,
                           maximize=False)


# ---- the allocator gives its cache back before it fails --------------------------------------

def test_allocation_retries_without_the_cache() -> None:
    """A block freed into the cache holds address space: under a limit that leaves room for one
    large block, the next large allocation must still succeed (the cache is dropped first)."""
    code = textwrap.dedent("""
        import resource, ember
        vm = int(open('/proc/self/statm').read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (vm + (1200 << 20), vm + (1200 << 20)))
        a = ember.empty(700 << 20, dtype=ember.uint8)
        del a                                  # cached, still mapped
        b = ember.empty(900 << 20, dtype=ember.uint8)
        print('ok', b.numel())
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.stdout.startswith("ok"), r.stderr[-2000:]


# ---- nansum / nanmean: an empty input meets no dtype dispatch; nanmean rounds its sum ---------

@pytest.mark.parametrize("f", call(
    lambda m: m.nansum(m.ones(0), 0, out=m.empty(0, dtype=m.int64)),
    lambda m: m.nansum(m.ones(2, 0), 0, out=m.empty(0, dtype=m.int64)),
    lambda m: m.nansum(m.ones(3), 0, out=m.empty(0, dtype=m.int64)),
    lambda m: m.nanmean(m.tensor([65504.0, 65504.0, NAN], dtype=m.float16)),
    lambda m: m.nanmean(m.tensor([[65504.0, 65504.0, NAN]], dtype=m.float16), 1),
    lambda m: m.mean(m.tensor([65504.0, 65504.0], dtype=m.float16)),
))
def test_nan_reductions(f: Callable[[Any], Any]) -> None:
    check(f)


# ---- bucketize of a Python number (bucketize.Scalar) ------------------------------------------

@pytest.mark.parametrize("v", [2.5, -1, 0.0, 3, INF, NAN, True])
def test_bucketize_number(v: Any) -> None:
    check(lambda m: m.bucketize(v, m.tensor([1.0, 2.0, 3.0])))
    check(lambda m: m.bucketize(v, m.tensor([1, 2, 3]), right=True, out_int32=True))


def test_cosine_similarity_infinite_norm() -> None:
    check(lambda m: m.nn.functional.cosine_similarity(m.tensor([[1e-30, 1e30]]), m.tensor([[1e30, 1e-30]])))


# ---- amax / amin: an empty reduced dim is reported before a repeated one -----------------------

@pytest.mark.parametrize("op", ["amax", "amin"])
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (2, 3)])
@pytest.mark.parametrize("dim", [(0, 0), (0, 1, 0), (1, -1)])
def test_amax_empty_dim_before_repeated(op: str, shape: tuple, dim: tuple) -> None:
    check(lambda m: getattr(m, op)(m.ones(*shape), dim))


@pytest.mark.parametrize("op", ["amax", "amin"])
@pytest.mark.parametrize("shape", [(0, 3, 4), (2, 3)])
@pytest.mark.parametrize("dim", [0, ()])
def test_amax_out_dtype_first(op: str, shape: tuple, dim: Any) -> None:
    # aten's meta compares the out= dtype with the input's before its empty-input checks
    check(lambda m: getattr(m, op)(m.ones(*shape, dtype=m.float64), dim, out=m.zeros(0)))


# ---- index_add: the indexing dim is checked against the source's rank first --------------------

@pytest.mark.parametrize("f", call(
    lambda m: m.index_add(m.ones(3, 3), 1, m.tensor([0]), m.tensor(1.0)),
    lambda m: m.index_add(m.ones(3, 3), -1, m.tensor([0]), m.tensor(1.0)),
    lambda m: m.index_add(m.ones(3, 3), 1, m.tensor([0]), m.ones(1)),
    lambda m: m.index_add(m.ones(3, 3, 3), 2, m.tensor([0]), m.ones(2, 1)),
    lambda m: m.index_add(m.ones(3, 3), 0, m.tensor([0]), m.tensor(1.0)),
    lambda m: m.index_add(m.ones(3, 3), 1, m.tensor([0]), m.ones(1, dtype=m.int64)),
))
def test_index_add_dim_against_source(f: Callable[[Any], Any]) -> None:
    check(f)


@pytest.mark.parametrize("eps", [1e300, 1e-8, 0.0, 3e38])
def test_cosine_similarity_eps_conversion(eps: float) -> None:
    check(lambda m: m.nn.functional.cosine_similarity(m.ones(1, 2), m.ones(1, 2), eps=eps))


# ---- upsample: nearest's scale rule per dimension count, sums in float, no out-of-range cast ------

def nn_op(m: Any, name: str) -> Any:
    return getattr(torch._C._nn, name) if m is torch else getattr(ember._nn, name)


@pytest.mark.parametrize("f", call(
    # aten's 1-d and 3-d nearest apply a given scale even where out == in or out == 2 * in; 2-d copies
    lambda m: nn_op(m, "upsample_nearest1d")(m.arange(4.0).reshape(1, 1, 4), [4], 2.0),
    lambda m: nn_op(m, "upsample_nearest1d")(m.arange(3.0).reshape(1, 1, 3), [6], 2.2),
    lambda m: nn_op(m, "upsample_nearest3d")(m.arange(64.0).reshape(1, 1, 4, 4, 4), [4, 8, 8], 2.0, 3.0, 2.0),
    lambda m: nn_op(m, "upsample_nearest2d")(m.arange(16.0).reshape(1, 1, 4, 4), [4, 8], 2.0, 3.0),
    lambda m: m.nn.functional.interpolate(m.arange(3.0).reshape(1, 1, 3), scale_factor=2.2),
))
def test_upsample_nearest_scale_rule(f: Callable[[Any], Any]) -> None:
    check(f)


def test_upsample_nearest_backward_is_the_forward_adjoint() -> None:
    """ember's backward follows its (aten's) forward; aten's 1-d backward takes the shortcut."""
    x = ember.arange(3.0).reshape(1, 1, 3).requires_grad_()
    y = ember.nn.functional.interpolate(x, scale_factor=2.2)  # picks inputs [0, 0, 0, 1, 1, 2]
    y.backward(ember.ones_like(y))
    assert x.grad.tolist() == [[[3.0, 2.0, 1.0]]]


def test_upsample_backward_half_sums_in_float() -> None:
    g = torch.randn(1, 2, 6, 8, 10, generator=torch.Generator().manual_seed(0)).half() * 100
    want = torch.ops.aten.upsample_nearest3d_backward(g, (6, 8, 10), (1, 2, 3, 4, 5))
    got = ember._nn.upsample_nearest3d_backward(ember.tensor(g.tolist(), dtype=ember.float16), (6, 8, 10),
                                                (1, 2, 3, 4, 5))
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("mode", ["upsample_bicubic2d", "upsample_bilinear2d"])
def test_upsample_scale_overflow_is_the_last_input(mode: str) -> None:
    """1 / 5e-324 = inf: every source index is past the input, so the last column (aten casts inf to
    int64 there: torch_known_wrong's upsample-scale-overflow)."""
    x = ember.arange(20.0, dtype=ember.float64).reshape(1, 1, 4, 5)
    y = getattr(ember._nn, mode)(x, (4, 7), False, scales_h=None, scales_w=5e-324)
    assert y.tolist() == [[[[v] * 7 for v in (4.0, 9.0, 14.0, 19.0)]]]
    y = ember._nn.upsample_nearest1d(ember.arange(5.0).reshape(1, 1, 5), (3,), scales=5e-324)
    assert y.tolist() == [[[0.0, 4.0, 4.0]]]  # output 0: 0 * inf = NaN, read as index 0



# ---- mse_loss_backward: aten's iterator computes in the operands' result type ----------------

def _mse_bw(m: Any, g: Any, s: Any, t: Any, red: int) -> Any:
    f = torch.ops.aten.mse_loss_backward if m is torch else ember._nn.mse_loss_backward  # aten's binding
    return f(g(m), s(m), t(m), red)


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch: its out= resize of a 0-d self
@pytest.mark.parametrize("red", [0, 1, 2])
@pytest.mark.parametrize("case", call(
    # a 0-d float64 self and target give way to a dimensioned float16 grad: float16 arithmetic
    (lambda m: m.tensor([1.5, 1e-5, 3.0], dtype=m.float16), lambda m: m.tensor(5735.753, dtype=m.float64),
     lambda m: m.tensor(4209.74, dtype=m.float64)),
    (lambda m: m.tensor([1.0, 2.0, 0.5], dtype=m.float16), lambda m: m.tensor(2.0**31, dtype=m.float64),
     lambda m: m.tensor(INF, dtype=m.float64)),
    # integers stay integers: the mean's 2 / numel truncates
    (lambda m: m.tensor(3), lambda m: m.ones(4, 5, dtype=m.int64) * 3, lambda m: m.zeros(4, 5, dtype=m.int64)),
    (lambda m: m.tensor(3, dtype=m.int8), lambda m: m.tensor([1, 5], dtype=m.int8), lambda m: m.tensor([4, 2], dtype=m.int8)),
    (lambda m: m.tensor(True), lambda m: m.tensor([True, False]), lambda m: m.tensor([False, False])),
    (lambda m: m.tensor(3.0), lambda m: m.tensor([[1, 5]]), lambda m: m.tensor([[4, 2]])),
))
def test_mse_loss_backward_result_type(case: tuple, red: int) -> None:
    check(lambda m: _mse_bw(m, *case, red))


@pytest.mark.parametrize("op", ["laguerre_polynomial_l", "legendre_polynomial_p"])
@pytest.mark.parametrize("n", [2**20 + 1, 2**31 - 1, 2**62, 9.0e18])
def test_polynomial_huge_degree_raises(op: str, n: float) -> None:
    # PyTorch runs the recurrence n times (it does not return); ember names the degree at once
    x = ember.tensor([0.3, -0.5, 2.0])
    with pytest.raises(RuntimeError, match=rf"{op}: the degree n = {int(n)} is too large"):
        getattr(ember.special, op)(x, n)
    with pytest.raises(RuntimeError, match="too large"):
        getattr(ember.special, op)(x, ember.tensor([3.0, n, 1.0]))


@pytest.mark.parametrize("op", ["laguerre_polynomial_l", "legendre_polynomial_p"])
@pytest.mark.parametrize("n", [0, 7, 2**10, 2**63, 1e30, -4, NAN])
def test_polynomial_degrees_kept(op: str, n: float) -> None:
    # in-range degrees, and those PyTorch answers without a loop (beyond int64, negative, NaN: 0)
    x = [0.3, -0.5, 1.0, 0.0]
    def f(m: Any) -> Any:
        return getattr(m.special, op)(m.tensor(x, dtype=m.float64), m.tensor(n, dtype=m.float64))

    got, want = outcome(ember, f), outcome(torch, f)
    assert same(got, want), (got, want)


# ---- var / std: equal values have deviations of exactly 0 (NaN past the degrees of freedom) ----

@pytest.mark.parametrize("f", call(
    lambda m: m.var(m.tensor([[0.1], [1.7], [-2.3]], dtype=m.float32).expand(3, 3), 1, correction=5),
    lambda m: m.var(m.tensor([[0.1], [1.7], [-2.3]], dtype=m.float32).expand(3, 3), 1),
    lambda m: m.std(m.tensor([[0.1], [1.7]], dtype=m.float64).expand(2, 7), 1, correction=9),
    lambda m: m.var_mean(m.tensor([[1.1, 2.0, 0.3]], dtype=m.float32).expand(3, 3), 0, correction=4),
    lambda m: m.var_mean(m.ones(0, 3), correction=-1),  # no values: NaN whatever the correction
    lambda m: m.std(m.ones(0, 3), 0, correction=-2),
))
def test_var_of_equal_values(f: Callable[[Any], Any]) -> None:
    check(f)


def test_var_over_all_equal_values_is_nan() -> None:
    # PyTorch's reduction over all elements leaves a residue here (inf: torch_known_wrong's
    # var-all-equal-values); equal values have no spread, so past the degrees of freedom: 0 / 0
    x = ember.tensor([0.34597599506378174]).expand(7)
    assert math.isnan(ember.var(x, correction=7).item()) and math.isnan(ember.std(x, 0, correction=8).item())


# ---- a Python int in [2**63, 2**64) beside an integer tensor of a float op is its value ---------

@pytest.mark.parametrize("f", call(
    lambda m: m.special.zeta(m.tensor([1, 2, 3, 4]), 2**63),
    lambda m: m.special.zeta(m.tensor([2, 3]), 2**64 - 1),
    lambda m: m.add(m.tensor([1, 2]), 2**63),  # an integer result: the bits wrap, as in PyTorch
    lambda m: m.true_divide(m.tensor([1, 2]), 2**63),
))
def test_uint64_number_in_float_ops(f: Callable[[Any], Any]) -> None:
    check(f)


# ---- modified Bessel K at the ends of the float range -------------------------------------------

@pytest.mark.parametrize("op", ["modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
                                "scaled_modified_bessel_k1"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bessel_k_extremes(op: str, dtype: str) -> None:
    # large x: e^x K(x) -> sqrt(pi / 2x) (cosh t - 1 cancelled there); tiny x: K_0 = -ln(x/2) - gamma,
    # K_1 = 1/x; at the smallest subnormal PyTorch is wrong (torch_known_wrong's
    # bessel-k-smallest-subnormal), just above it right
    tiny = 2.0**-149 if dtype == "float32" else 2.0**-1074
    x = [tiny * 4, 1e-30, 1e-8, 0.1, 30.0, 1e4, 2.0**53 + 2, 1e30]
    got = getattr(ember.special, op)(ember.tensor(x, dtype=getattr(ember, dtype)))
    want = getattr(torch.special, op)(torch.tensor(x, dtype=getattr(torch, dtype)))
    assert same(got.tolist(), want.tolist()) or torch.allclose(
        torch.tensor(got.tolist(), dtype=want.dtype), want, rtol=2e-6, atol=0), (got.tolist(), want.tolist())
    at_tiny = getattr(ember.special, op)(ember.tensor([tiny], dtype=getattr(ember, dtype))).item()
    k0 = -(math.log(tiny) - math.log(2.0) + 0.5772156649015329)
    assert at_tiny == (INF if op.endswith("k1") else pytest.approx(k0, rel=1e-6))


# ---- grid sampling of a half-type input: float32 arithmetic, one rounding ------------------------

@pytest.mark.parametrize("dims", [2, 3])
def test_grid_sampler_half_rounds_once(dims: int) -> None:
    # PyTorch's half-type kernels round every step (torch_known_wrong's grid-sampler-half-arithmetic);
    # the right answer is the float64 one rounded to float16
    g = torch.Generator().manual_seed(3)
    x = torch.randn((2, 2) + (3, 4, 5)[:dims], generator=g).half()
    grid = (torch.rand((2, 2, 3, 2)[:dims + 1] + (dims,), generator=g) * 2.4 - 1.2).half()
    f = "grid_sampler_2d" if dims == 2 else "grid_sampler_3d"
    want = getattr(torch, f)(x.double(), grid.double(), 0, 0, False).half()
    got = getattr(ember, f)(ember.tensor(x.tolist(), dtype=ember.float16),
                            ember.tensor(grid.tolist(), dtype=ember.float16), 0, 0, False)
    torch.testing.assert_close(torch.tensor(got.tolist(), dtype=torch.float16), want, rtol=1e-3, atol=1e-5)

# ---- seed 1129: writes through stride-0 dims, int64 bounds, argument checks in aten's order ------

def expanded(m: Any, shape: tuple, dim: int, dtype: str = "float32") -> Any:
    """A tensor of ``shape`` whose dim ``dim`` is stride 0 (distinct values elsewhere)."""
    base = m.arange(math.prod(shape[:dim] + shape[dim + 1:]), dtype=getattr(m, dtype)) % 7 - 3
    return base.reshape(shape[:dim] + (1,) + shape[dim + 1:]).expand(*shape)


def bmm_args(m: Any, b: int, n: int, k: int, p: int) -> tuple:
    return ((m.arange(b * n * k, dtype=m.float32).reshape(b, n, k) % 5 - 2) / 4,
            (m.arange(b * k * p, dtype=m.float32).reshape(b, k, p) % 3 - 1) / 2)


@pytest.mark.parametrize("beta", [0, 1, 0.5])
@pytest.mark.parametrize("dims", [(5, 2, 3, 4), (3, 20, 30, 40), (5, 2, 0, 4)])
@pytest.mark.parametrize("dim", [0, 2])
def test_baddbmm_into_expanded_tensor(beta: float, dims: tuple, dim: int) -> None:
    # aten's small-problem kernel writes element by element (the last write of an element
    # stays); its GEMM path (m * k * p >= 400) and out='s copy of input refuse the overlap
    b, n, k, p = dims
    check(lambda m: expanded(m, (b, n, p), dim).baddbmm_(*bmm_args(m, b, n, k, p), beta=beta))
    check(lambda m: m.baddbmm(m.zeros(b, n, p), *bmm_args(m, b, n, k, p), beta=beta,
                              out=m.zeros(b, n, 1).expand(b, n, p)))
    check(lambda m: m.baddbmm(expanded(m, (b, n, p), dim), *bmm_args(m, b, n, k, p), beta=beta))


@pytest.mark.parametrize("self_shape", [(), (5, 2, 1), (2, 4), (5, 2, 4)])
@pytest.mark.parametrize("dtype", ["bool", "float32", "int64"])
def test_baddbmm_inplace_shape_before_dtype(self_shape: tuple, dtype: str) -> None:
    # the structured in-place call's output check precedes the kernel's dtype dispatch
    def f(m: Any) -> Any:
        dt = getattr(m, dtype)
        return m.zeros(self_shape, dtype=dt).baddbmm_(m.zeros(5, 2, 3, dtype=dt), m.zeros(5, 3, 4, dtype=dt))
    check(f)


@pytest.mark.parametrize("step", [2**62, 2**62 - 1, 2**63 - 1, 2**61, 3])
def test_unfold_huge_step(step: int) -> None:
    # aten multiplies the stride by the step in int64 (wrapping) and as_strided refuses a negative one
    check(lambda m: m.tensor(m.ones(5, 3).unfold(0, 2, step).stride()))
    check(lambda m: m.tensor(m.ones(5, 3).t().unfold(1, 2, step).stride()))


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32"])
@pytest.mark.parametrize("alpha", [2**63, 2**63 + 5, 2**63 - 1, -2**63, 2**40])
def test_sub_uint64_alpha_is_add_of_its_negation(dtype: str, alpha: int) -> None:
    # aten's sub runs add with -alpha, c10 negating a uint64 Scalar in int64 (2**63 -> -2**63)
    def x(m: Any) -> Any:
        return m.arange(12, dtype=getattr(m, dtype)).reshape(3, 4)
    check(lambda m: m.sub(x(m), x(m) + 1, alpha=alpha))
    check(lambda m: x(m).sub_(x(m) + 1, alpha=alpha))
    check(lambda m: m._foreach_sub([x(m), x(m)], [x(m) + 1, x(m)], alpha=alpha))


GELU_BW_CASES = [(g, x) for g in ("int64", "int32", "int16", "bool", "int8", "uint8", "float32")
                 for x in ((3, 4), (4,), (1,), (0, 4))
                 if not (x == (4,) and g in ("int8", "uint8", "float32"))]  # gelu-backward-broadcast-or-mixed


@pytest.mark.parametrize(("gdtype", "xshape"), GELU_BW_CASES)
def test_gelu_backward_integer_gradient(gdtype: str, xshape: tuple) -> None:
    # aten's oneDNN path (erf form, contiguous float32 self of 2+ elements) refuses such a gradient
    def f(m: Any, approximate: str = "none", t: bool = False) -> Any:
        x = m.linspace(-2, 2, math.prod(xshape)).reshape(xshape)
        g = m.ones(*((3, 4) if xshape != (0, 4) else (0, 4)), dtype=getattr(m, gdtype))
        gelu_bw = m.ops.aten.gelu_backward if m is torch else m._nn.gelu_backward
        return gelu_bw(g, x.t() if t else x, approximate=approximate)
    check(f)
    check(lambda m: f(m, "tanh"))


@pytest.mark.parametrize("v", [2.0**63, -(2.0**63), 2.0**62, 1e300])
def test_threshold_int64_bound(v: float) -> None:
    # 2**63 passes c10's range check and wraps to -2**63 (torch_known_wrong int64-bound-two-to-the-63)
    def f(m: Any) -> Any:
        th = m.ops.aten.threshold if m is torch else m._nn.threshold
        return th(m.arange(12).reshape(3, 4) - 5, 0.5, v)
    if v == 2.0**63:
        with pytest.raises(RuntimeError, match="without overflow"):
            f(ember)
        with pytest.raises(RuntimeError, match="without overflow"):
            ember.nn.functional.threshold_(ember.arange(12) - 5, 0.5, v)
    else:
        check(f)


@pytest.mark.parametrize("f", call(
    lambda m: m.linalg.lu_solve(*lu3(m), m.tensor([0, 2, 3], dtype=m.int32), B3(m)),
    lambda m: m.linalg.lu_solve(*lu3(m), m.tensor([-1, 2, 3], dtype=m.int32), B3(m)),
    lambda m: m.linalg.lu_solve(*lu3(m), m.tensor([4, 2, 3], dtype=m.int32), B3(m)),
    lambda m: m.linalg.lu_solve(*lu3(m), m.tensor([4, 2, 3], dtype=m.int32), B3(m), left=False),
    lambda m: m.linalg.lu_solve(*lu3(m), m.tensor([0, 2, 3], dtype=m.int32), m.ones(3, 0, dtype=m.float64)),
    lambda m: m.linalg.lu_solve(*lu3(m), m.tensor([[1, 2, 3]], dtype=m.int32), B3(m)),
    lambda m: m.linalg.lu_solve(*lu3(m), m.tensor([[1, 2, 3], [1, 2, 3]], dtype=m.int32), B3(m)),
    lambda m: m.linalg.lu_solve(*lu3(m), m.tensor([1, 2], dtype=m.int32), B3(m)),
    lambda m: m.linalg.lu_solve(*lu3(m), m.tensor([0, 2, 3], dtype=m.int64), B3(m)),
    lambda m: m.linalg.lu_solve(*lu3(m), m.tensor([0, 2, 3], dtype=m.int32), m.ones(4, 2, dtype=m.float64)),
    lambda m: m.linalg.lu_solve(*lu3(m), m.tensor([1, 3, 3], dtype=m.int32), B3(m)),
))
def test_lu_solve_pivot_checks(f: Callable[[Any], Any]) -> None:
    check(f)


def lu3(m: Any) -> tuple:
    return (m.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]], dtype=m.float64),)


def B3(m: Any) -> Any:  # noqa: N802
    return m.arange(6, dtype=m.float64).reshape(3, 2)


def known_wrong() -> Any:
    """torch_known_wrong, imported as the fuzz worker does (the tests folder is not on sys.path)."""
    if "torch_known_wrong" not in sys.modules:
        spec = importlib.util.spec_from_file_location("torch_known_wrong", Path(__file__).with_name("torch_known_wrong.py"))
        assert spec is not None and spec.loader is not None
        sys.modules["torch_known_wrong"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules["torch_known_wrong"])
    return sys.modules["torch_known_wrong"]


def nan_row(m: Any) -> Any:
    return m.tensor([[NAN, NAN, NAN], [1.0, 3.0, 2.0]])


# (name, variant, the call with m = torch or ember): PyTorch's answer is listed as wrong there,
# and an out= or in-place form must still meet the written tensor's checks
KNOWN_WRONG_WRITES = {
    "airy-out-expanded": ("airy_ai", "out", lambda m, **o: m.special.airy_ai(m.tensor([[-200, 1, 2, 3]]), **o),
                          lambda m: m.zeros(1).expand(4)),
    "airy-out-int": ("airy_ai", "out", lambda m, **o: m.special.airy_ai(m.tensor([[-200, 1, 2, 3]]), **o),
                     lambda m: m.zeros(0, dtype=m.int64)),
    "airy-out-double": ("airy_ai", "out", lambda m, **o: m.special.airy_ai(m.tensor([[-200, 1, 2, 3]]), **o),
                        lambda m: m.zeros(0, dtype=m.float64)),
    "nanmedian-out-float-indices": ("nanmedian", "out", lambda m, **o: m.nanmedian(nan_row(m), 1, **o),
                                    lambda m: (m.zeros(0), m.zeros(0))),
    "nanmedian-out": ("nanmedian", "out", lambda m, **o: m.nanmedian(nan_row(m), 1, **o),
                      lambda m: (m.zeros(0), m.zeros(0, dtype=m.int64))),
}


@pytest.mark.parametrize("case", sorted(KNOWN_WRONG_WRITES))
def test_known_wrong_out_form(case: str) -> None:
    kw = known_wrong()
    name, variant, run, out = KNOWN_WRONG_WRITES[case]
    targs = {"airy_ai": (torch.tensor([[-200, 1, 2, 3]]),), "nanmedian": (nan_row(torch), 1)}[name]
    entry = kw.lookup(name, targs, {"out": out(torch)})
    assert entry is not None
    want = outcome(torch, lambda _m: kw.corrected(entry, variant, name, targs, {"out": out(torch)}))
    got = outcome(ember, lambda m: run(m, out=out(m)))
    assert want[:2] == got[:2] if want[0] == "raise" else same(want, got), f"{want} vs {got}"


def test_known_wrong_inplace_form() -> None:
    kw = known_wrong()
    targs = (torch.full((3, 1), 2.0).expand(3, 4), torch.tensor(3.0, dtype=torch.float64))
    entry = kw.lookup("igamma", targs, {})
    assert entry is not None and entry.iterator
    want = outcome(torch, lambda _m: kw.corrected(entry, "inplace", "igamma", targs, {}))
    got = outcome(ember, lambda m: m.full((3, 1), 2.0).expand(3, 4).igamma_(m.tensor(3.0, dtype=m.float64)))
    assert want[:2] == got[:2] == ("raise", "RuntimeError"), f"{want} vs {got}"
    # a plain self takes the corrected value
    targs = (torch.full((3, 4), 2.0), torch.tensor(3.0, dtype=torch.float64))
    want = outcome(torch, lambda _m: kw.corrected(entry, "inplace", "igamma", targs, {}))
    got = outcome(ember, lambda m: m.full((3, 4), 2.0).igamma_(m.tensor(3.0, dtype=m.float64)))
    assert same(want, got), f"{want} vs {got}"


# ---- seed 1130: an empty slice keeps its start, half-type arange reads its bounds in float, norm's
# int dim goes on as a one-element list, matmul's batched dtype rule, pixel_unshuffle of nothing ----

@pytest.mark.parametrize("f", call(
    lambda m: m.ones(1, dtype=m.float16)[1:].view(m.int32),  # storage_offset 1: not divisible by 2
    lambda m: m.tensor(m.ones(5)[7:].storage_offset()),
    lambda m: m.tensor(m.ones(5)[2:1].storage_offset()),
    lambda m: m.arange(0, 2.5, 1e300, dtype=m.float16),
    lambda m: m.arange(1e39, 1e40, 1e38, dtype=m.bfloat16),
    lambda m: m.arange(0, 70000.0, 1000.0, dtype=m.float16),
    lambda m: m.norm(m.ones(2, 3, 4), dim=2**63),
    lambda m: m.norm(m.ones(2, 3, 4), p=-math.inf, dim=2**63),
    lambda m: m.matmul(m.ones(5, 2, 3), m.ones(5, 3, 0, dtype=m.float64)),
    lambda m: m.matmul(m.ones(2, 3), m.ones(5, 3, 0, dtype=m.int64)),
    lambda m: m.matmul(m.ones(5, 2, 3), m.ones(3, 0, dtype=m.float64)),
    lambda m: m.matmul(m.ones(5, 2, 3, dtype=m.bool), m.ones(5, 3, 4)),
    lambda m: m.pixel_unshuffle(m.ones(0, 0, 0, dtype=m.float64), 2**32),
))
def test_seed_1130_findings(f: Callable[[Any], Any]) -> None:
    check(f)

