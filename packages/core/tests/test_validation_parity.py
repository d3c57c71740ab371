"""Argument validation against PyTorch 2.13 (issue 16's fuzz findings): the same call through
ember and torch must succeed with the same dtypes, shapes and values, or fail with the same
exception type (and, where PyTorch's words are stable, the same message). Covers the order
of PyTorch's checks (shape before dtype, a kernel's dtype dispatch skipped for empty inputs),
bool inputs to sorting / binning ops, NaN in an SVD, _foreach / _fused_sgd_ list rules, and
index_select / index_add / index_copy / scatter / embedding errors."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402

NAN, INF = float("nan"), float("inf")
KINDS = (NotImplementedError, IndexError, TypeError, ValueError, RuntimeError)


def kind(e: BaseException) -> str:
    for k in KINDS:  # most specific first: NotImplementedError is a RuntimeError
        if isinstance(e, k):
            return k.__name__
    return type(e).__name__


def flat(r: Any) -> Any:
    if isinstance(r, (tuple, list)):
        return [flat(x) for x in r]
    if r is None:
        return None
    return (str(r.dtype).split(".")[-1], tuple(r.shape), r.tolist())


def same_values(a: Any, b: Any, tol: float = 0.0) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol * (1 + abs(a))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_values(x, y, tol) for x, y in zip(a, b, strict=True))
    return a == b


def outcome(m: Any, f: Callable[[Any], Any]) -> tuple:
    try:
        return ("ok", flat(f(m)))
    except Exception as e:  # noqa: BLE001 - the exception is the result under test
        return ("raise", kind(e), str(e))


def check(f: Callable[[Any], Any], msg: bool | str = False, tol: float = 0.0) -> None:
    """f(module) runs the call; msg=True compares the whole message, a str must occur in both;
    float results agree exactly (NaN with NaN) unless tol (relative) is given."""
    t, e = outcome(torch, f), outcome(ember, f)
    assert t[0] == e[0], f"torch {t} vs ember {e}"
    if t[0] == "ok":
        assert same_values(t[1], e[1], tol), f"torch {t[1]} vs ember {e[1]}"
        return
    assert t[1] == e[1], f"torch {t[1]}({t[2]!r}) vs ember {e[1]}({e[2]!r})"
    if msg is True:
        assert t[2] == e[2]
    elif msg:
        assert msg in t[2] and msg in e[2], (t[2], e[2])


def dt(m: Any, name: str) -> Any:
    return getattr(m, name)


# ---- linalg: NaN in an SVD, and PyTorch's order of checks ------------------------------------

NAN_MAT = [[1.0, NAN], [2.0, 3.0]]
SVD_NAN = "The algorithm failed to converge because the input matrix contained non-finite values."


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["svd", "svdvals", "torch.svd", "batched", "full"])
def test_svd_nan_raises(op: str, dtype: str) -> None:
    def f(m: Any) -> Any:
        a = m.tensor(NAN_MAT, dtype=dt(m, dtype))
        if op == "svd":
            return m.linalg.svd(a)
        if op == "svdvals":
            return m.linalg.svdvals(a)
        if op == "torch.svd":
            return m.svd(a)
        if op == "full":
            return m.linalg.svd(m.tensor([[1.0, 2.0, 3.0], [NAN, 0.0, 1.0]], dtype=dt(m, dtype)), full_matrices=True)
        return m.linalg.svd(m.stack([m.eye(2, dtype=dt(m, dtype)), a]))

    check(f, msg=True)
    with pytest.raises(RuntimeError, match="non-finite"):
        f(ember)
    assert SVD_NAN in outcome(ember, f)[2]


def test_svd_inf_gives_nan() -> None:
    # LAPACK does not flag inf (only NaN): PyTorch returns NaN factors, and so does ember
    check(lambda m: m.linalg.svd(m.tensor([[1.0, INF], [2.0, 3.0]])))


LINALG = {
    "cholesky": lambda m, a: m.linalg.cholesky(a),
    "cholesky_ex": lambda m, a: m.linalg.cholesky_ex(a)[0],
    "eigh": lambda m, a: m.linalg.eigh(a)[0],
    "eigvalsh": lambda m, a: m.linalg.eigvalsh(a),
    "svd": lambda m, a: m.linalg.svd(a)[1],
    "svdvals": lambda m, a: m.linalg.svdvals(a),
    "qr": lambda m, a: m.linalg.qr(a)[1],
    "inv": lambda m, a: m.linalg.inv(a),
    "det": lambda m, a: m.linalg.det(a),
    "slogdet": lambda m, a: m.linalg.slogdet(a)[1],
    "solve": lambda m, a: m.linalg.solve(a, a),
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "int16", "bool", "float32"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 0, 0), (0, 3), (3, 0), (2, 2), (2, 3), (0, 2, 2)])
@pytest.mark.parametrize("op", sorted(LINALG))
def test_linalg_check_order(op: str, shape: tuple, dtype: str) -> None:
    def f(m: Any) -> Any:
        a = m.ones(shape, dtype=dt(m, dtype))
        if shape == (2, 2) and dtype == "float32":
            a = m.tensor([[2.0, 1.0], [1.0, 2.0]])
        return LINALG[op](m, a)

    check(f, msg=True, tol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mat", [[[NAN, 1.0], [1.0, 1.0]], [[1.0, 2.0], [NAN, 1.0]], [[INF, 1.0], [1.0, 1.0]],
                                 [[1.0, INF], [1.0, 1.0]], [[-INF, 1.0], [1.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]],
                                 [[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]]])
def test_slogdet_sign_nonfinite(mat: list, dtype: str) -> None:
    # sign = prod(sgn(diag U)) * (-1)^swaps, sgn(NaN) = 0: a NaN gives a zero sign, as in PyTorch
    check(lambda m: tuple(m.linalg.slogdet(m.tensor(mat, dtype=dt(m, dtype)))))
    check(lambda m: m.linalg.det(m.tensor(mat, dtype=dt(m, dtype))))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mat", [[[NAN, 0.0], [0.0, 1.0]], [[1.0, 0.0], [NAN, 1.0]], [[4.0, 0.0, 0.0], [1.0, 4.0, 0.0],
                                 [NAN, 1.0, 4.0]], [[1.0, 2.0], [2.0, 1.0]],
                                 [[-1.0, 0.0], [0.0, 1.0]], [[1.0, 5.0], [0.0, 1.0]]])
def test_cholesky_nan_is_not_positive_definite(mat: list, dtype: str) -> None:
    # reference LAPACK (PyTorch's) stops at a NaN pivot; OpenBLAS's potrf does not. (An inf on the
    # diagonal is left out: MKL's float32 potrf, under PyTorch, reports it not positive-definite.)
    check(lambda m: m.linalg.cholesky(m.tensor(mat, dtype=dt(m, dtype))), msg=True)
    check(lambda m: m.linalg.cholesky(m.stack([m.eye(len(mat), dtype=dt(m, dtype)),
                                               m.tensor(mat, dtype=dt(m, dtype))])), msg=True)


# ---- _foreach / _fused_sgd_ --------------------------------------------------------------------


@pytest.mark.parametrize("ord", [INF, -INF, 0, 1, 2, 3.0])
def test_foreach_norm_empty(ord: float) -> None:
    check(lambda m: m._foreach_norm([m.ones(2), m.ones(0)], ord), msg=True)
    check(lambda m: m._foreach_norm([m.ones(0, 3)], ord), msg=True)


@pytest.mark.parametrize(
    "shapes",
    [((), (4,)), ((1,), (4,)), ((4,), ()), ((2, 1), (2, 3)), ((2, 3), (3,)), ((0, 2), (1, 2)), ((1, 0), (3, 0))],
)
def test_foreach_maximum_inplace_broadcast(shapes: tuple) -> None:
    a, b = shapes

    def f(m: Any) -> Any:
        x = m.arange(float(math.prod(a))).reshape(a)
        return m._foreach_maximum_((x,), [m.full(b, 0.5)])

    check(f, msg=True)
    check(lambda m: m._foreach_maximum((m.zeros(a),), [m.full(b, 0.5)]))


def test_foreach_maximum_inplace_under_grad() -> None:
    def f(m: Any) -> Any:
        x = m.zeros(()).requires_grad_(True).clone()
        return m._foreach_maximum_((x,), [m.ones(4)])

    check(f, msg=True)


def sgd(m: Any, n_buf: int, momentum: float) -> Any:
    p = [m.ones(3), m.ones(2)]
    g = [m.full((3,), 0.5), m.full((2,), 0.25)]
    bufs = [m.zeros(3), m.zeros(2)][:n_buf]
    m._fused_sgd_(p, g, bufs, weight_decay=0.0, momentum=momentum, lr=0.1, dampening=0.0, nesterov=False,
                  maximize=False, is_first_step=True)
    return p + bufs


@pytest.mark.parametrize("n_buf,momentum", [(0, 0.0), (1, 0.0), (2, 0.0), (2, 0.9), (1, 0.9), (0, 0.9)])
def test_fused_sgd_momentum_buffers(n_buf: int, momentum: float) -> None:
    check(lambda m: sgd(m, n_buf, momentum), msg="momentum_buffer_list" if momentum == 0 else False)


# ---- sort family: bool, 0-d and empty ----------------------------------------------------------

SORTS = {
    "median": lambda m, x: m.median(x),
    "nanmedian": lambda m, x: m.nanmedian(x),
    "median.dim": lambda m, x: tuple(m.median(x, 0)),
    "median.dim-1": lambda m, x: tuple(m.median(x, -1)),
    "nanmedian.dim": lambda m, x: tuple(m.nanmedian(x, 0)),
    "kthvalue": lambda m, x: tuple(m.kthvalue(x, 1, 0)),
    "kthvalue-1": lambda m, x: tuple(m.kthvalue(x, 1, -1)),
    "kthvalue2": lambda m, x: tuple(m.kthvalue(x, 2, -1)),
    "topk0": lambda m, x: tuple(m.topk(x, 0, 0)),
    "topk1": lambda m, x: tuple(m.topk(x, 1, -1)),
    "topk2": lambda m, x: tuple(m.topk(x, 2, -1)),
    "mode": lambda m, x: tuple(m.mode(x, 0)),
}


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0), (0, 2)])
@pytest.mark.parametrize("dtype", ["bool", "float32", "int64", "int32", "int16", "uint8"])
@pytest.mark.parametrize("op", sorted(SORTS))
def test_sort_family_edges(op: str, dtype: str, shape: tuple) -> None:
    check(lambda m: SORTS[op](m, m.ones(shape, dtype=dt(m, dtype))), msg=True)


def test_topk_0d_values() -> None:
    check(lambda m: tuple(m.topk(m.tensor(2.5), 0)))
    check(lambda m: tuple(m.topk(m.tensor(-3), 1, 0, largest=False)))
    check(lambda m: tuple(m.topk(m.ones(4, 6, dtype=m.bool), 2)), msg=True)


# ---- searchsorted / bucketize / bincount / histc -----------------------------------------------


@pytest.mark.parametrize("sizes", [((2,), (3,)), ((0,), (3,)), ((2,), (0,)), ((0,), (0,))])
@pytest.mark.parametrize("seq_dt", ["bool", "int64", "float32"])
@pytest.mark.parametrize("in_dt", ["bool", "int64", "float32"])
def test_search_dtypes(in_dt: str, seq_dt: str, sizes: tuple) -> None:
    ss, isz = sizes
    check(lambda m: m.searchsorted(m.zeros(ss, dtype=dt(m, seq_dt)), m.ones(isz, dtype=dt(m, in_dt))), msg=True)
    check(lambda m: m.bucketize(m.ones(isz, dtype=dt(m, in_dt)), m.zeros(ss, dtype=dt(m, seq_dt))), msg=True)


@pytest.mark.parametrize("value", [True, 1, 1.5])
@pytest.mark.parametrize("seq_dt", ["bool", "int64", "float32"])
def test_searchsorted_scalar_dtypes(seq_dt: str, value: Any) -> None:
    check(lambda m: m.searchsorted(m.zeros(2, dtype=dt(m, seq_dt)), value), msg=True)


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_nan(right: bool) -> None:
    seq = [-2.0, -1.0, 0.0, 0.0, 1.5, 3.0, NAN]
    vals = [NAN, -INF, INF, 0.0, -2.0, 3.0]
    check(lambda m: m.searchsorted(m.tensor(seq[:-1]), m.tensor(vals), right=right))
    check(lambda m: m.searchsorted(m.tensor(seq), m.tensor(vals), right=right))
    check(lambda m: m.searchsorted(m.tensor(seq[:-1]), m.tensor(NAN), right=right))


@pytest.mark.parametrize("minlength", [0, 2, -1])
@pytest.mark.parametrize("weights", [None, (4, "float32"), (3, "float64"), (0, "float32"), (3, "int64")])
@pytest.mark.parametrize("shape", [(0,), (3,), (), (2, 0)])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float32"])
def test_bincount_edges(dtype: str, shape: tuple, weights: Any, minlength: int) -> None:
    def f(m: Any) -> Any:
        w = None if weights is None else m.ones(weights[0], dtype=dt(m, weights[1]))
        return m.bincount(m.zeros(shape, dtype=dt(m, dtype)), w, minlength)

    check(f, msg=True)


@pytest.mark.parametrize("in_dt,out_dt", [("int64", "float32"), ("float32", "float64"), ("int64", "int64"),
                                          ("float32", "float32"), ("float64", "float32")])
def test_histc_out_dtype_first(in_dt: str, out_dt: str) -> None:
    check(lambda m: m.histc(m.ones(3, dtype=dt(m, in_dt)), out=m.ones(0, dtype=dt(m, out_dt))), msg=True)
    check(lambda m: m.histc(m.ones(3, dtype=dt(m, in_dt)), bins=-1, out=m.ones(0, dtype=dt(m, out_dt))), msg=True)


@pytest.mark.parametrize("dtype", ["int16", "int64", "uint8", "float32"])
@pytest.mark.parametrize("bins", [-1, 0, 4])
def test_histc_bins_before_dtype(dtype: str, bins: int) -> None:
    check(lambda m: m.histc(m.ones((), dtype=dt(m, dtype)), bins=bins, min=0, max=1), msg=True)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_histc_bins_in_input_precision(dtype: str) -> None:
    # bin = (x - lo) * bins / (hi - lo) rounded to the dtype at each step, as PyTorch: in double,
    # about 1% of 0-d inputs (range [x-1, x+1]) fell in the neighbouring bin
    import random

    rnd = random.Random(16)
    for _ in range(300):
        x = rnd.uniform(-100, 100)
        check(lambda m, x=x: m.histc(m.tensor(x, dtype=dt(m, dtype))))
    xs = [rnd.uniform(-5, 5) for _ in range(200)]
    for bins, lo, hi in ((7, -3, 3), (100, 0, 0), (13, -5.5, 4.25)):
        check(lambda m, b=bins, lo=lo, hi=hi: m.histc(m.tensor(xs, dtype=dt(m, dtype)), b, lo, hi))


# ---- index_select / index_add / index_copy / scatter / gather / embedding ----------------------


@pytest.mark.parametrize("index", [[0, 7], [-5, 0], [0], [1, 2], []])
@pytest.mark.parametrize("dim", [0, 1, -1, 2, -2])
@pytest.mark.parametrize("shape", [(4, 3), (0, 3), (2, 0), (3,), (0,), (), (2, 3, 4), (2, 0, 3)])
def test_index_select_errors(shape: tuple, dim: int, index: list) -> None:
    check(lambda m: m.ones(shape).index_select(dim, m.tensor(index, dtype=m.int64)), msg=True)


@pytest.mark.parametrize("index_dt", ["int32", "int64"])
@pytest.mark.parametrize("dtype", ["int16", "bool", "float16"])
def test_index_select_dim1_dtypes(dtype: str, index_dt: str) -> None:
    check(lambda m: m.ones(4, 3, dtype=dt(m, dtype)).index_select(1, m.tensor([0, 7], dtype=dt(m, index_dt))),
          msg=True)


def test_index_select_check_order_and_out() -> None:
    check(lambda m: m.ones(3, 4).index_select(5, m.tensor([0.0, 0.0])), msg=True)
    check(lambda m: m.ones(3, 4).index_select(0, m.tensor([[0.0, 0.0]])), msg=True)
    check(lambda m: m.tensor(1.0).index_select(0, m.tensor([0.0, 0.0])), msg=True)
    check(lambda m: m.tensor(1.0).index_select(0, m.tensor([1])), msg=True)
    check(lambda m: m.index_select(m.ones(3, 4), 0, m.tensor([0, 0]), out=m.ones(1, 4).expand(2, 4)), msg=True)
    # a strided out= of the right shape is written through its strides
    for d, idx in ((1, [2, 0]), (0, [1, 2]), (1, [0, 7])):
        check(lambda m, d=d, idx=idx: m.index_select(m.arange(6.0).reshape(2, 3), d, m.tensor(idx),
                                                    out=m.zeros(2, 2).t()),
              msg=True)


INDEX_PUT = {
    "count": lambda m, f: f(m.ones(4, 3), 0, m.tensor([0, 1]), m.ones(3, 3)),
    "count0d": lambda m, f: f(m.ones(4, 3), 0, m.tensor([0, 1]), m.tensor(1.0)),
    "ndim": lambda m, f: f(m.ones(4, 3), 0, m.tensor([0, 1]), m.ones(2)),
    "shape": lambda m, f: f(m.ones(4, 3), 0, m.tensor([0, 1]), m.ones(2, 4)),
    "shape3d": lambda m, f: f(m.ones(4, 3, 5), 1, m.tensor([0, 1]), m.ones(2, 2, 6)),
    "dtype": lambda m, f: f(m.ones(4, 3), 0, m.tensor([0, 1]), m.ones(2, 3, dtype=m.float64)),
    "idx2d": lambda m, f: f(m.ones(4, 3), 0, m.tensor([[0, 1]]), m.ones(2, 3)),
    "idxf": lambda m, f: f(m.ones(4, 3), 0, m.tensor([0.0, 1.0]), m.ones(2, 3)),
    "idx32": lambda m, f: f(m.ones(4, 3), 0, m.tensor([0, 1], dtype=m.int32), m.ones(2, 3)),
    "oob": lambda m, f: f(m.ones(4, 3), 0, m.tensor([0, 9]), m.ones(2, 3)),
    "neg": lambda m, f: f(m.ones(4, 3), 0, m.tensor([0, -1]), m.arange(6.0).reshape(2, 3)),
    "0d": lambda m, f: f(m.tensor(1.0), 0, m.tensor([0]), m.tensor(2.0)),
    "0d_self_1d_src": lambda m, f: f(m.tensor(1.0), 0, m.tensor([0]), m.ones(1)),
    "0d_self_2idx": lambda m, f: f(m.tensor(1.0), 0, m.tensor([0, 0]), m.ones(2)),
    "0d_self_src13": lambda m, f: f(m.tensor(1.0), 0, m.tensor([0]), m.ones(1, 3)),
    "empty_idx": lambda m, f: f(m.ones(4, 3), 0, m.tensor([], dtype=m.int64), m.ones(0, 3)),
    "empty_idx_wrong_src": lambda m, f: f(m.ones(4, 3), 0, m.tensor([], dtype=m.int64), m.ones(2, 3)),
    "empty_idx_f": lambda m, f: f(m.ones(4, 3), 0, m.ones(0), m.ones(0, 3)),
    "ok": lambda m, f: f(m.zeros(4, 3), 1, m.tensor([2, 0]), m.arange(8.0).reshape(4, 2)),
}


@pytest.mark.parametrize("op", ["index_copy", "index_add"])
@pytest.mark.parametrize("case", sorted(INDEX_PUT))
def test_index_add_copy_errors(op: str, case: str) -> None:
    check(lambda m: INDEX_PUT[case](m, getattr(m, op)), msg=True)


SCATTER = {
    "scatter": lambda m, idx, src: m.ones(3, 4).scatter(1, idx, src),
    "scatter_value": lambda m, idx, src: m.ones(3, 4).scatter(1, idx, 2.0),
    "scatter_add": lambda m, idx, src: m.ones(3, 4).scatter_add(1, idx, src),
    "scatter_reduce": lambda m, idx, src: m.ones(3, 4).scatter_reduce(1, idx, src, "sum"),
    "gather": lambda m, idx, src: m.ones(3, 4).gather(1, idx),
}


@pytest.mark.parametrize("index", ["empty_f", "empty_i16", "empty_1d_f", "f", "i16", "ok"])
@pytest.mark.parametrize("op", sorted(SCATTER))
def test_scatter_gather_empty_index_dtype(op: str, index: str) -> None:
    def f(m: Any) -> Any:
        idx = {"empty_f": lambda: m.zeros(3, 0), "empty_i16": lambda: m.zeros(3, 0, dtype=m.int16),
               "empty_1d_f": lambda: m.zeros(0), "f": lambda: m.zeros(3, 1),
               "i16": lambda: m.zeros(3, 1, dtype=m.int16),
               "ok": lambda: m.tensor([[1], [0], [3]])}[index]()
        return SCATTER[op](m, idx, m.arange(12.0).reshape(3, 4))

    check(f, msg=True)


@pytest.mark.parametrize("index", [[3, 1, 3], [0], [5], [-9], []])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("shape", [(0, 3), (2, 0), (0,), (0, 3, 2), (0, 0), (4, 3)])
def test_index_fill_empty_self(shape: tuple, dim: int, index: list) -> None:
    check(lambda m: m.ones(shape).index_fill(dim, m.tensor(index, dtype=m.int64), 2.0), msg=True)
    check(lambda m: m.ones(shape).index_fill(dim, m.tensor(index, dtype=m.int64), m.tensor(2.0)), msg=True)


def test_index_fill_order_and_expanded_self() -> None:
    check(lambda m: m.ones(3, 4).index_fill(1, m.tensor([[0]]), 2.0), msg=True)
    check(lambda m: m.ones(3, 4).index_fill(1, m.tensor([[0.0]]), 2.0), msg=True)
    check(lambda m: m.ones(3, 4).index_fill(5, m.tensor([[0.0]]), 2.0), msg=True)
    check(lambda m: m.tensor(1.0).index_fill(0, m.tensor([[0]]), 2.0), msg=True)
    # an expanded self is filled through its aliases (PyTorch warns, then writes)
    with pytest.warns(UserWarning):
        check(lambda m: m.ones(1, 4).expand(3, 4).index_fill_(1, m.tensor([0, 2]), 2.0))
    with pytest.warns(UserWarning):
        check(lambda m: m.ones(1, 4).expand(3, 4).index_fill_(0, m.tensor(1), 2.0))
    with pytest.warns(UserWarning):
        check(lambda m: m.ones(3, 1).expand(3, 4).index_fill_(0, m.tensor([0, -1]), m.tensor(5.0)))


INPLACE_EXPANDED = {
    "scatter_empty_idx": lambda m, e: e.scatter_(0, m.zeros(4, 0, dtype=m.int64), 1e-300, reduce="add"),
    "scatter_value": lambda m, e: e.scatter_(0, m.tensor([[0, 1]]), 5.0),
    "scatter_src": lambda m, e: e.scatter_(1, m.tensor([[0, 1]]), m.full((1, 2), 7.0)),
    "scatter_add": lambda m, e: e.scatter_add_(1, m.tensor([[0, 1]]), m.full((1, 2), 7.0)),
    "scatter_reduce": lambda m, e: e.scatter_reduce_(1, m.tensor([[0, 1]]), m.full((1, 2), 7.0), "sum"),
    "index_add": lambda m, e: e.index_add_(1, m.tensor([0]), m.full((3, 1), 7.0)),
    "index_copy": lambda m, e: e.index_copy_(1, m.tensor([0]), m.full((3, 1), 7.0)),
    "gather_out": lambda m, e: m.gather(m.ones(3, 4), 1, m.tensor([[0, 1]] * 3), out=m.ones(1, 2).expand(3, 2)),
}


@pytest.mark.parametrize("op", sorted(INPLACE_EXPANDED))
def test_index_ops_on_expanded_self(op: str) -> None:
    # PyTorch rejects an expanded (internally overlapping) target here, even for an empty index
    check(lambda m: INPLACE_EXPANDED[op](m, m.ones(1, 4).expand(3, 4)), msg=True)


def test_take_along_dim_flat_uses_view() -> None:
    check(lambda m: m.ones(3, 4).t().take_along_dim(m.tensor([1, 2])), msg=True)
    check(lambda m: m.arange(12.0).reshape(3, 4)[:, :2].take_along_dim(m.tensor([1, 2])), msg=True)
    check(lambda m: m.arange(12.0).reshape(3, 4).take_along_dim(m.tensor([[1, 11]])), msg=True)
    check(lambda m: m.arange(12.0).reshape(3, 4).take_along_dim(m.tensor([[1, 11]]).t()), msg=True)


@pytest.mark.parametrize("src_shape", [(2,), (), (2, 4), (1, 4), (2, 4, 1)])
@pytest.mark.parametrize("op", ["scatter", "scatter_add", "scatter_reduce"])
def test_scatter_src_rank(op: str, src_shape: tuple) -> None:
    def f(m: Any) -> Any:
        idx = m.tensor([[2, 0, 1, 2], [0, 0, 2, 2]])
        src = m.ones(src_shape)
        if op == "scatter_reduce":
            return m.scatter_reduce(m.ones(3, 4), 0, idx, src, "sum")
        return getattr(m, op)(m.ones(3, 4), 0, idx, src)

    check(f, msg=True)


@pytest.mark.parametrize("weight", [(5, 3), (0, 3), (5, 0)])
@pytest.mark.parametrize("indices", [[0, 4], [0, 7], [-1], [[0, 7]], []])
def test_embedding_index_errors(weight: tuple, indices: list) -> None:
    check(lambda m: m.embedding(m.ones(weight), m.tensor(indices, dtype=m.int64)), msg=True)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "float16", "bfloat16", "float32", "float64"])
def test_embedding_index_dtype_message(dtype: str) -> None:
    check(lambda m: m.embedding(m.ones(5, 3), m.ones(2, dtype=dt(m, dtype))), msg=True)


# ---- native_dropout / nll_loss_forward ---------------------------------------------------------


@pytest.mark.parametrize("train", [True, False, None])
@pytest.mark.parametrize("dtype", ["int8", "bfloat16", "float32", "bool"])
@pytest.mark.parametrize("shape", [(4, 0), (0,)])
def test_native_dropout_empty(shape: tuple, dtype: str, train: Any) -> None:
    check(lambda m: m.native_dropout(m.ones(shape, dtype=dt(m, dtype)), 0.5, train), msg=True)


@pytest.mark.parametrize("dtype", ["int8", "bool", "uint8"])
def test_native_dropout_integer_raises(dtype: str) -> None:
    check(lambda m: m.native_dropout(m.ones(4, 2, dtype=dt(m, dtype)), 0.5, True), msg=True)


def nll_forward(m: Any) -> Any:
    if m is torch:
        return torch.ops.aten.nll_loss_forward
    import ember._nn  # noqa: PLC0415 - the aten-level nn ops load on demand

    return ember._nn.nll_loss_forward


@pytest.mark.parametrize("reduction", [0, 1, 2, 5, -3])
@pytest.mark.parametrize("shape,target", [((4, 5), []), ((5,), []), ((4, 5), [1, 2, 0, 4]), ((4, 5), [1, 2]),
                                          ((5,), [1]), ((5,), [1, 2, 3, 4, 0]), ((4, 5), [[1, 2]]), ((), [])])
def test_nll_loss_forward_target_rank(shape: tuple, target: list, reduction: int) -> None:
    def f(m: Any) -> Any:
        t = m.tensor(1) if target == [] else m.tensor(target)
        x = m.arange(float(math.prod(shape))).reshape(shape)
        return tuple(nll_forward(m)(x, t, None, reduction, -100))

    check(f, msg=True)


@pytest.mark.parametrize("case", ["int8", "int8_bad_target", "float_target", "int32_target", "byte_target", "weight",
                                  "bool", "ok_weight"])
def test_nll_loss_forward_check_order(case: str) -> None:
    def f(m: Any) -> Any:
        x, t, w = m.arange(6.0).reshape(2, 3), m.tensor([0, 2]), None
        if case.startswith("int8"):
            x = x.to(m.int8)
        if case == "int8_bad_target":
            t = m.tensor([0, 7])
        if case == "float_target":
            x, t = x.to(m.int8), m.tensor([0.0, 1.0])
        if case == "int32_target":
            t = t.to(m.int32)
        if case == "byte_target":
            t = t.to(m.uint8)
        if case == "weight":
            w = m.ones(2)
        if case == "bool":
            x, t = x.to(m.bool), t.to(m.bool)
        if case == "ok_weight":
            w = m.tensor([1.0, 2.0, 3.0])
        return tuple(nll_forward(m)(x, t, w, 1, -100))

    check(f, msg=True)


def nll_backward(m: Any) -> Any:
    if m is torch:
        return torch.ops.aten.nll_loss_backward
    import ember._nn  # noqa: PLC0415

    return ember._nn.nll_loss_backward


@pytest.mark.parametrize("case", ["1d_t5", "1d_t1", "1d_t0d", "tw_double", "go_double", "none_tw_double", "ok",
                                  "none", "bool"])
def test_nll_loss_backward_checks(case: str) -> None:
    def f(m: Any) -> Any:
        x, t, red = m.arange(6.0).reshape(2, 3), m.tensor([0, 2]), 1
        go, tw = m.tensor(1.0), m.tensor(2.0)
        if case == "1d_t5":
            x, t, red = m.arange(5.0), m.tensor([1, 2, 3, 4, 0]), 2
        if case == "1d_t1":
            x, t = m.arange(5.0), m.tensor([1])
        if case == "1d_t0d":
            x, t = m.arange(5.0), m.tensor(3)
        if case == "tw_double":
            tw = tw.double()
        if case == "go_double":
            go = go.double()
        if case.startswith("none"):
            red, go = 0, m.ones(2)
        if case == "none_tw_double":
            tw = tw.double()
        if case == "bool":
            x, t, go, tw = x.bool(), t.bool(), go.bool(), tw.bool()
        return nll_backward(m)(go, x, t, None, red, -100, tw)

    check(f, msg=True)


# ---- values written into a dtype, overlap, empty norms (issue 16's small findings) -------------

MASKED_FILL = [("int8", 1000), ("int8", 1e6), ("int8", INF), ("int8", -1), ("int8", 2.5), ("uint8", -1),
               ("uint8", 1000), ("int32", 1e6), ("int32", INF), ("float16", 1e6), ("float16", INF),
               ("bfloat16", 1e6), ("float32", 1e39), ("bool", 1000)]


@pytest.mark.parametrize("dtype,value", MASKED_FILL)
@pytest.mark.parametrize("as_tensor", [False, True])
def test_masked_fill_value_must_fit(dtype: str, value: Any, as_tensor: bool) -> None:
    def f(m: Any) -> Any:
        v = m.tensor(value) if as_tensor else value
        return m.tensor([1, 2], dtype=dt(m, dtype)).masked_fill(m.tensor([True, False]), v)

    check(f, msg=True)


@pytest.mark.parametrize("op", ["triu_", "tril_"])
@pytest.mark.parametrize("k", [-1, 0, 1, 5])
def test_triangle_in_place_on_expanded_rows(op: str, k: int) -> None:
    # rows share memory: PyTorch masks them one after another in place (the last write stays)
    check(lambda m: getattr(m.arange(1.0, 4.0).reshape(1, 3).expand(3, 3), op)(k))


@pytest.mark.parametrize("case", ["out_inside_input", "out_is_input_prefix", "out_apart", "empty_out"])
def test_masked_select_out_overlap(case: str) -> None:
    def f(m: Any) -> Any:
        x = m.arange(6.0)
        out = {"out_inside_input": x[2:5], "out_is_input_prefix": x[:3], "out_apart": m.empty(3),
               "empty_out": x[:0]}[case]
        return m.masked_select(x, x > 2, out=out)

    check(f, msg=True)


@pytest.mark.parametrize("ord", [INF, -INF, -1, -0.5, 0, 1, 2])
@pytest.mark.parametrize("shape,dim", [((0,), None), ((0, 3), 0), ((0, 3), 1), ((0, 3), None), ((3, 0), (0, 1)),
                                       ((2, 0, 3), (1,)), ((2, 0, 3), (0, 2)), ((2, 0, 3), (-2,))])
def test_vector_norm_of_empty(ord: float, shape: tuple, dim: Any) -> None:
    check(lambda m: m.linalg.vector_norm(m.ones(shape), ord=ord, dim=dim), msg=True)


@pytest.mark.parametrize("fn", ["trapezoid", "cumulative_trapezoid"])
@pytest.mark.parametrize("kw", ["x=None", "dx=None", "x=None,dx=2", "none", "dx=2", "x", "x,dx=2", "pos_None"])
def test_trapezoid_overloads(fn: str, kw: str) -> None:
    def f(m: Any) -> Any:
        y, x = m.tensor([1.0, 2.0, 4.0]), m.tensor([0.0, 1.0, 3.0])
        g = getattr(m, fn)
        args = {"x=None": ((), {"x": None}), "dx=None": ((), {"dx": None}), "x=None,dx=2": ((), {"x": None, "dx": 2}),
                "none": ((), {}), "dx=2": ((), {"dx": 2}), "x": ((x,), {}), "x,dx=2": ((x,), {"dx": 2}),
                "pos_None": ((None,), {})}[kw]
        return g(y, *args[0], **args[1])

    check(f)


# ---- fuzz_run findings: target sizes, check orders, scan accumulation -------------------------

@pytest.mark.parametrize("shape,reps", [((0, 3), (-1, 1)), ((0, 3), (1, -1)), ((2, 3), (-1, 0)), ((0, 3), (2, 2**63 - 1)),
                                        ((4,), (2**62,)), ((2, 3), (2, 1, 2)), ((2, 3), (1,)), ((0, 3), (-5, 1, 1))])
def test_repeat_checks_target_sizes(shape: tuple, reps: tuple) -> None:
    # aten multiplies (wrapping) and checks the products, not the repeats
    check(lambda m: m.arange(math.prod(shape), dtype=m.float32).reshape(shape).repeat(*reps), msg=True)


SYMINT_CALLS = {
    "split_with_sizes": lambda m, x, n: m.split_with_sizes(x, [n, 0, 3], 2), "split": lambda m, x, n: x.split([n, 3], 5),
    "repeat": lambda m, x, n: x.repeat(n, 1), "tile": lambda m, x, n: x.tile((n,)), "roll": lambda m, x, n: x.roll(n, 0),
    "view": lambda m, x, n: x.view(n), "reshape": lambda m, x, n: x.reshape(n, 4), "expand": lambda m, x, n: x.expand(n, 4),
    "ones": lambda m, x, n: m.ones(n), "full": lambda m, x, n: m.full([n], 1.0), "empty": lambda m, x, n: m.empty(n),
    "as_strided": lambda m, x, n: x.as_strided([n], [1]), "broadcast_to": lambda m, x, n: m.broadcast_to(x, [n, 4]),
    "zeros": lambda m, x, n: m.zeros(n),  # SymInt-native in aten: its own size check
}


@pytest.mark.parametrize("name", list(SYMINT_CALLS))
def test_symint_lists_refuse_symbolic_range(name: str) -> None:
    # a SymInt[] argument below -2^62 is c10's "concrete integers" error, raised before any other
    msg = "" if name == "zeros" else "SymIntArrayRef expected to contain only concrete integers"
    check(lambda m: SYMINT_CALLS[name](m, m.zeros(5, 4), -(2**63) + 1), msg=msg)


@pytest.mark.parametrize("op", ["any", "all"])
@pytest.mark.parametrize("out", ["float32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("dim", [None, 1, (0, 1), (), 5, (0, 0, 5)])
@pytest.mark.parametrize("x", [[[0.0, 0.5], [0.0, 0.0]], [[2.0, -0.5], [1.0, 3.0]], [[0.5]], 0.5])
def test_all_any_out_dtype_first(op: str, out: str, dim: Any, x: Any) -> None:
    # out= must be bool/uint8 (before the dims); a uint8 out= reduces the input cast to uint8
    def f(m: Any) -> Any:
        args = () if dim is None else (dim,)
        return getattr(m, op)(m.tensor(x), *args, out=m.empty(0, dtype=dt(m, out)))

    check(f, msg=True)


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "any", "logsumexp", "var", "std"])
@pytest.mark.parametrize("dims", [(0, 0, 5), (0, 0), (5, 0, 0)])
@pytest.mark.parametrize("shape", [(2, 3), ()])
def test_reduction_dim_list_order(op: str, dims: tuple, shape: tuple) -> None:
    # sum/mean/amax/any/logsumexp wrap every dim before looking for repeats; var/std go dim by dim
    check(lambda m: getattr(m, op)(m.ones(shape), dims), msg=True)


def test_masked_select_expanded_out() -> None:
    check(lambda m: m.masked_select(m.ones(3, 4), m.ones(3, 4).bool(), out=m.zeros(1).expand(2)), msg=True)


@pytest.mark.parametrize("case", ["mod", "neg", "flat", "flat_float_empty", "flat_int32", "empty_dim", "empty_bcast",
                                  "0d", "float_dim"])
def test_take_along_dim_indices(case: str) -> None:
    # with a dim, torch 2.13 takes the broadcast indices modulo the dim's size (size 0: ZeroDivisionError)
    def f(m: Any) -> Any:
        x = m.arange(6.0).reshape(3, 2)
        i = lambda v, d=m.int64: m.tensor(v, dtype=d)  # noqa: E731
        return {"mod": lambda: m.take_along_dim(x, i([[0, 3], [5, 1], [2, 2]]), 1),
                "neg": lambda: m.take_along_dim(m.arange(3.0), i([-4, -5, -(2**63), 2**63 - 1]), 0),
                "flat": lambda: m.take_along_dim(x, i([9])),
                "flat_float_empty": lambda: m.take_along_dim(x, m.zeros(0)),
                "flat_int32": lambda: m.take_along_dim(x, i([1], m.int32)),
                "empty_dim": lambda: m.take_along_dim(m.zeros(0, 2), i([[1]]), 0),
                "empty_bcast": lambda: m.take_along_dim(m.zeros(0, 0), i([[1]]), 1),
                "0d": lambda: m.take_along_dim(m.tensor(5.0), i(3), 0),
                "float_dim": lambda: m.take_along_dim(x, m.zeros(0, 1), 1)}[case]()

    check(f, msg=True)


@pytest.mark.parametrize("call", [
    lambda m: m.cumsum(m.tensor([1e8, 1.0, 1.0, -1e8]), 0),
    lambda m: m.cumsum(m.tensor([16777216, 1, 1, 1], dtype=m.int32), 0, out=m.zeros(0)),
    lambda m: m.cumprod(m.tensor([1e30, 1e30, 1e-30, 1e-30]), 0),
    lambda m: m.cumsum(m.tensor([2048.0, 1, 1, 1], dtype=m.float16), 0),
    lambda m: m.zeros(()).bool().cumsum_(0), lambda m: m.ones(3).bool().cumsum_(0),
    lambda m: m.ones(()).cumsum(0, dtype=m.bool), lambda m: m.ones(3).cumprod(0, dtype=m.bool),
    lambda m: m.tensor(2.5).cumsum(0)])
def test_scans_match(call: Callable) -> None:
    # float32 scans carry a double (aten's CPU acc_type); only a real scan meets the Bool dispatch
    check(call, msg=True)


@pytest.mark.parametrize("mat,vec,out", [((), (3,), None), ((2, 0), (3,), ()), ((2, 0), (3,), (1,)), ((2, 3), (3,), ()),
                                         ((2, 3), (), None), ((2, 3), (3,), (2, 2)), ((1, 3), (3,), (3, 3))])
@pytest.mark.parametrize("out_dtype", ["float32", "int64"])
def test_mv_is_addmv(mat: tuple, vec: tuple, out: Any, out_dtype: str) -> None:
    # addmv's checks in its order, naming the vector it writes (out= itself when it fits)
    def f(m: Any) -> Any:
        kw = {} if out is None else {"out": m.zeros(out, dtype=dt(m, out_dtype))}
        return m.mv(m.ones(mat), m.ones(vec), **kw)

    check(f, msg=True)


@pytest.mark.parametrize("call", [
    lambda m: m.arange(12).view(3, 4)[:, :1].expand(3, 4).masked_fill_(m.eye(3, 4).bool(), 7),
    lambda m: m.arange(3.0).view(1, 3).expand(3, 3).masked_fill_(m.eye(3).bool(), m.tensor(2.5)),
    lambda m: m.arange(24).view(2, 1, 3, 4).expand(2, 3, 3, 4).triu_(),
    lambda m: m.arange(24).view(1, 2, 3, 4).expand(3, 2, 3, 4).triu_(),
    lambda m: m.arange(12).view(1, 3, 4).expand(3, 3, 4).triu_(1),
    lambda m: m.arange(9).view(1, 3, 3)[:, :, :1].expand(2, 3, 3).tril_()])
def test_in_place_on_expanded_self(call: Callable) -> None:
    # masked_fill_ writes through an expanded self (torch only warns); triu_/tril_ do when aten's
    # batch-contiguity check lets them work in place, else copy_ refuses the overlap
    check(call, msg=True)


@pytest.mark.parametrize("call", [
    lambda m: m.chunk(m.zeros(0), 0, 1), lambda m: m.repeat_interleave(m.zeros(2, 3), -1, 2),
    lambda m: m.repeat_interleave(m.zeros(2, 3), -1),
    lambda m: m.cat([m.zeros(2, 3), m.zeros(4, 3)], 2, out=m.zeros(0, dtype=m.int64)),
    lambda m: m.cat([m.zeros(2, 3), m.zeros(4, 2)], 0, out=m.zeros(0, dtype=m.int64)),
    lambda m: m.cat([m.zeros(0), m.zeros(0)], 3), lambda m: m.cat([m.zeros(0), m.zeros(2, 3)], 5),
    lambda m: m.logsumexp(m.zeros(0, 3, 4), ()), lambda m: m.logsumexp(m.ones(2, 3), ()),
    lambda m: m.logsumexp(m.ones(2, 3), (), keepdim=True),
    lambda m: m.logsumexp(m.ones(2, 3, dtype=m.int64), 2, out=m.zeros(0, dtype=m.int64)),
    lambda m: m.logsumexp(m.ones(2, 3, dtype=m.int64), 1, out=m.zeros(0, dtype=m.float64)),
    lambda m: m.ones(3, 4).half().clamp_(min=NAN, max=65536.0), lambda m: m.ones(3).clamp(min=NAN, max=2),
    lambda m: m.ones(3, dtype=m.int64).clamp(min=2, max=NAN),
    lambda m: m.ones(1, 4).half().expand(3, 4).clamp_(min=-0.5, max=NAN)])
def test_check_orders_from_fuzz_run(call: Callable) -> None:
    check(call, msg=True, tol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int8", "float16", "bfloat16"])
@pytest.mark.parametrize("ends", [(5, -3, 7), (0, 8, 7), (-3, 5, 7), (-97, 61, 40), (0.1, 0.7, 33), (1e3, -1e-3, 129)])
def test_linspace_bits(dtype: str, ends: tuple) -> None:
    # aten's kernel fuses each `start + step * i` (`end - step * (n - 1 - i)` past halfway) into one
    # multiply-add, in float for float32 (in the half type, op by op, for float16 / bfloat16):
    # 5 -> -3 in 7 int steps is [5, 3, 2, 0, 0, -1, -3]
    a, b, n = ends
    if dtype.startswith("int"):
        a, b = int(a), int(b)
    check(lambda m: m.linspace(a, b, n, dtype=dt(m, dtype)), msg=True)


@pytest.mark.parametrize("call", [
    lambda m: m.searchsorted(m.tensor([1, 2, 3], dtype=m.uint8), -1),
    lambda m: m.searchsorted(m.tensor([1, 2, 3], dtype=m.uint8), m.tensor([-1])),
    lambda m: m.searchsorted(m.tensor([16777217, 16777218]), m.tensor([16777217.0])),
    lambda m: m.searchsorted(m.tensor([1, 2, 3]), 2.5), lambda m: m.searchsorted(m.tensor([1, 3, 5]), 2**63),
    lambda m: m.searchsorted(m.tensor([1.0, 3, 5]), 2**63)])
def test_searchsorted_common_dtype(call: Callable) -> None:
    # compared in the common dtype, a Python number wrapped: -1 in uint8 boundaries is 255
    check(call, msg=True)
