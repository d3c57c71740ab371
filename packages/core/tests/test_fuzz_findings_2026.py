"""Fuzz findings of issue 16 from the runs after seed 1141 (seeds 2026, 3001 and later), each as
the smallest call that showed it: PyTorch's exception types and check order, its output shapes
and values, and the torch_known_wrong entries of the calls where PyTorch answers wrong. Helpers
are test_fuzz_findings_ops.py's."""

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


def _strided(m: Any, dtype: str = "float32") -> Any:
    """A (4, 3, 5) input that is neither contiguous nor channels-last."""
    return m.arange(240).reshape(4, 6, 10)[:, ::2, ::2].to(getattr(m, dtype))


def _close(want: tuple, got: tuple) -> None:
    """outcome()s that agree on dtypes and shapes, and on values to float32 attention's rounding."""
    assert want[0] == got[0] == "ok", f"{want} vs {got}"
    assert [r[:2] for r in want[1]] == [r[:2] for r in got[1]], f"{want} vs {got}"
    for (_, _, w), (_, _, g) in zip(want[1], got[1], strict=True):
        torch.testing.assert_close(torch.tensor(g), torch.tensor(w), rtol=1e-5, atol=1e-6, equal_nan=True)


def _p(m: Any, kind: str | None) -> Any:
    """A per-channel parameter of 3 channels: None, float32 or int64."""
    return None if kind is None else m.ones(3, dtype=m.float32 if kind == "f32" else m.int64)


# ---- exception types and check order ---------------------------------------------------------

@pytest.mark.parametrize("f", call(
    # dot: aten's kernel has no bool (mm has), after the shape checks; out='s dtype first
    lambda m: m.dot(m.zeros(0, dtype=m.bool), m.zeros(0, dtype=m.bool)),
    lambda m: m.dot(m.ones(3, dtype=m.bool), m.ones(3, dtype=m.bool)),
    lambda m: m.zeros(0, dtype=m.bool).dot(m.zeros(0, dtype=m.bool)),
    lambda m: m.dot(m.zeros(0, dtype=m.bool), m.zeros(1, dtype=m.bool)),
    lambda m: m.dot(m.zeros(0, dtype=m.bool), m.zeros(0, dtype=m.bool), out=m.empty(0)),
    lambda m: m.dot(m.zeros(0, dtype=m.bool), m.zeros(0, dtype=m.bool), out=m.empty(0, dtype=m.bool)),
    lambda m: m.dot(m.zeros(2), m.ones(2), out=m.empty(0, dtype=m.bool)),
    lambda m: m.dot(m.arange(3.0), m.ones(3), out=m.empty(5)),
    lambda m: m.vdot(m.zeros(0, dtype=m.bool), m.zeros(0, dtype=m.bool)),
    lambda m: m.inner(m.zeros(0, dtype=m.bool), m.zeros(0, dtype=m.bool)),
    lambda m: m.dot(m.zeros(0, dtype=m.int64), m.zeros(0, dtype=m.int64)),
    # nansum: each dim wrapped and checked for repeats in turn (a repeat before an out-of-range dim
    # is the RuntimeError) -- but an integer input with out= is sum_out's (every dim wrapped first)
    lambda m: m.nansum(m.ones(2, 3), (0, 0, 5)),
    lambda m: m.nansum(m.ones(2, 3, dtype=m.int64), (0, 0, 5)),
    lambda m: m.nansum(m.ones(2, 3), (0, -2)),
    lambda m: m.nansum(m.tensor(1.0), (0, 0, 5)),
    lambda m: m.nansum(m.ones(2, 3), (5, 0, 0)),
    lambda m: m.nansum(m.ones(2, 3), (0, 0, 5), out=m.empty(0, dtype=m.int64)),
    lambda m: m.nansum(m.ones(2, 3, dtype=m.int64), (0, 0, 5), out=m.empty(0, dtype=m.int64)),
    lambda m: m.nansum(m.ones(2, 3, dtype=m.bool), (0, 0, 5), out=m.empty(0, dtype=m.int64)),
    lambda m: m.ones(2, 3, dtype=m.float16).nansum((1, 1, 7)),
    # multi_margin_loss: the target is 1-d with one class per sample, an empty batch too
    lambda m: _f(m).multi_margin_loss(m.zeros(0, 4), m.zeros(0, 2, dtype=m.int64)),
    lambda m: _f(m).multi_margin_loss(m.zeros(0, 4), m.zeros(2, 0, dtype=m.int64)),
    lambda m: _f(m).multi_margin_loss(m.zeros(0, 4), m.zeros((), dtype=m.int64)),
    lambda m: _f(m).multi_margin_loss(m.zeros(0, 4), m.zeros(3, dtype=m.int64), reduction="none"),
    lambda m: _f(m).multi_margin_loss(m.zeros(0, 4), m.zeros(0, dtype=m.int64), reduction="none"),
    lambda m: _f(m).multi_margin_loss(m.zeros(3, 4), m.zeros(1, 3, dtype=m.int64)),
    lambda m: _f(m).multi_margin_loss(m.zeros(4), m.zeros((), dtype=m.int64), reduction="none"),
    lambda m: _f(m).multi_margin_loss(m.zeros(4), m.zeros(1, dtype=m.int64), reduction="none"),
    lambda m: _f(m).multi_margin_loss(m.zeros(4), m.zeros(1, 1, dtype=m.int64)),
))
def test_order_and_types(f: Callable[[Any], Any]) -> None:
    check(f)


@pytest.mark.parametrize("layout", ["contig", "strided"])
@pytest.mark.parametrize("training", [False, True])
@pytest.mark.parametrize("stats", [None, "f32", "i64"])
@pytest.mark.parametrize("params", [None, "f32", "i64"])
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_batch_norm_integer_input(layout: str, training: bool, stats: str | None, params: str | None,
                                  dtype: str) -> None:
    """An integer input's error: training on an input neither contiguous nor channels-last first
    averages it (mean()'s RuntimeError), unless the first parameter given has another dtype (aten's
    mixed type), whose path reaches the kernel's dtype dispatch (NotImplementedError) first."""
    def f(m: Any) -> Any:
        x = _strided(m, dtype) if layout == "strided" else m.arange(60).reshape(4, 3, 5).to(getattr(m, dtype))
        return _f(m).batch_norm(x, _p(m, stats), _p(m, stats), _p(m, params), _p(m, params), training=training)
    check(f)


# ---- shapes ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [0, -1, None])
@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("counts", [False, True])
@pytest.mark.parametrize("values", [[1, 1, 2], [], [[1, 2], [1, 2], [3, 4]]])
def test_unique_consecutive_outputs(dim: int | None, inverse: bool, counts: bool, values: list) -> None:
    """dim=0 of a 1-d input takes aten's element-wise path (dim=-1 does not): an output not asked
    for is empty there."""
    check(lambda m: m.unique_consecutive(m.tensor(values), return_inverse=inverse, return_counts=counts, dim=dim))
    check(lambda m: m._VF.unique_consecutive(m.tensor(values), return_inverse=inverse, return_counts=counts,
                                             dim=dim))


# ---- values ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("ends", [(-2.3, 3.7, 7), (4.1, -1.9, 12), (0.1, 0.2, 40), (-5.0, 5.0, 2), (1.3, 1.3, 5)])
@pytest.mark.parametrize("base", [10.0, 2.0, 1.5])
def test_logspace_step_as_aten(dtype: str, ends: tuple, base: float) -> None:
    """aten's logspace: the ends rounded to the dtype, their difference taken in it, then a double
    step and double positions, raised to `base` in double and rounded once."""
    s, e, n = ends
    check(lambda m: m.logspace(s, e, n, base=base, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("n", [1, 5, 16, 63, 64, 65, 130, 300])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_prod_in_aten_order(n: int, dtype: str) -> None:
    """aten multiplies a contiguous run in 32-byte vector lanes (4 * V of them, then folded) and a
    half type in its own precision: where a product rounds, overflows or underflows is its order's."""
    g = torch.Generator().manual_seed(n)
    vals = (torch.rand(n, generator=g, dtype=torch.float64) * 0.6 + 0.7).tolist()
    check(lambda m: m.prod(m.tensor(vals, dtype=getattr(m, dtype))))
    check(lambda m: m.prod(m.tensor(vals, dtype=m.float64).reshape(1, n).expand(3, n).contiguous(), 1,
                           dtype=getattr(m, dtype)))
    check(lambda m: m.prod(m.tensor(vals, dtype=getattr(m, dtype))[::2]))
    big = [3e38 if i % 3 == 0 else 1e-30 if i % 3 == 1 else 0.5 for i in range(n)]  # overflow or not by order
    check(lambda m: m.prod(m.tensor(big, dtype=getattr(m, dtype))))
    check(lambda m: m.prod(m.tensor(big, dtype=m.float64).reshape(-1, 1).expand(n, 3), 0, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("f", call(
    lambda m: m.prod(m.linspace(-1.3, 2.9, 16).reshape(4, 4), dtype=m.float16),
    lambda m: m.prod(m.linspace(-1.3, 2.9, 16).reshape(4, 4).t(), dtype=m.bfloat16),
    lambda m: m.prod(m.linspace(-1.3, 2.9, 24).reshape(4, 6)[:, ::2], 1, dtype=m.float16),
    lambda m: m.prod(m.tensor([2**62, 3, 5, -7]), dtype=m.int64),
    lambda m: m.prod(m.tensor([200, 3, 5, 7], dtype=m.uint8), dtype=m.uint8),
))
def test_prod_values(f: Callable[[Any], Any]) -> None:
    check(f)


# ---- torch_known_wrong entries ----------------------------------------------------------------

@pytest.mark.parametrize("name, shape, n", [("tensor_split", (3,), 2**31), ("tensor_split", (2, 0), 2**62),
                                            ("chunk", (0,), 2**31 - 1), ("chunk", (3, 0), 2**53)])
def test_split_more_pieces_than_memory(name: str, shape: tuple, n: int) -> None:
    """PyTorch allocates its vector of n tensors first (bad_alloc at once, or after minutes of
    paging, or the process is killed): ember raises the out-of-memory RuntimeError at once."""
    kw = known_wrong()
    dim = len(shape) - 1
    entry = kw.lookup(name, (torch.ones(shape), n, dim), {})
    assert entry is not None and entry.id == "split-more-pieces-than-memory"
    got = outcome(ember, lambda m: getattr(m, name)(m.ones(shape), n, dim))
    assert got[:2] == ("raise", "RuntimeError"), got
    assert isinstance(pytest.raises(RuntimeError, getattr(ember, name), ember.ones(shape), n, dim).value,
                      ember.OutOfMemoryError)
    # a count that fits is PyTorch's own answer
    assert kw.lookup(name, (torch.ones(shape), 5, dim), {}) is None
    check(lambda m: getattr(m, name)(m.ones(shape), 5, dim))


@pytest.mark.parametrize("name, size, batch, dtype", [("upsample_bilinear", (2**31, 5), 0, "float32"),
                                                      ("upsample_nearest", (2**31, 5), 0, "float32"),
                                                      ("upsample_bilinear", (2**26, 1), 0, "float64"),
                                                      ("upsample_bilinear", (2**31 - 1, 1), 0, "int8")])
def test_upsample_functionals_empty_batch(name: str, size: tuple, batch: int, dtype: str) -> None:
    """F.upsample_bilinear / upsample_nearest are F.interpolate: an empty batch gives an empty
    result of the output shape, the index tables PyTorch builds first are no part of the answer."""
    kw = known_wrong()
    def x(m: Any) -> Any:
        return m.zeros(batch, 2, 3, 3, dtype=getattr(m, dtype))

    entry = kw.lookup(name, (x(torch),), {"size": size})
    assert entry is not None and entry.id == "upsample-empty-input-index-tables"
    want = outcome(torch, lambda _m: kw.corrected(entry, None, name, (x(torch),), {"size": size}))
    got = outcome(ember, lambda m: getattr(_f(m), name)(x(m), size=size))
    assert want[:2] == got[:2] if want[0] == "raise" else same(want, got), f"{want} vs {got}"


# ---- normalization statistics: exact for equal values, no cancellation for a large mean ------

def _f64(t: Any) -> Any:
    return torch.tensor(t.tolist(), dtype=torch.float64)


@pytest.mark.parametrize("length", [5, 7, 40, 300])
def test_instance_norm_expanded_input_is_the_bias(length: int) -> None:
    """An instance of equal values (an expanded input) has mean equal to each value and variance 0:
    the output is the bias exactly, as the float64 computation says (a float-lane sum of the
    values is not their multiple, and 1 / sqrt(eps) amplifies that)."""
    x = ember.tensor([[0.3333333432674408], [-1.7000000476837158], [123.45600128173828]]).reshape(1, 3, 1)
    x = x.expand(2, 3, length)
    w, b = ember.tensor([1.5, -2.0, 0.7]), ember.tensor([0.25, -1.0, 2.0])
    y = _f(ember).instance_norm(x, weight=w, bias=b)
    assert y.tolist() == b.reshape(1, 3, 1).expand(2, 3, length).tolist()
    want = torch.nn.functional.instance_norm(_f64(x), weight=_f64(w), bias=_f64(b))
    torch.testing.assert_close(_f64(y), want, rtol=0, atol=1e-6)


@pytest.mark.parametrize("base", [1e4, 1e6, 3e7])
@pytest.mark.parametrize("op", ["batch_norm", "group_norm", "instance_norm"])
def test_norm_large_mean_no_cancellation(base: float, op: str) -> None:
    """Values spread by a few units around a large mean: the variance of the deviations, not
    E[x^2] - E[x]^2, so float32 results are within float32 rounding of the float64 answer on the
    same (float32) inputs."""
    vals = [base + ((i * 7) % 11) * 0.25 for i in range(48)]

    def run(m: Any, x: Any) -> Any:
        x = x.reshape(2, 4, 6)
        if op == "batch_norm":
            return _f(m).batch_norm(x, None, None, training=True)
        return _f(m).group_norm(x, 2) if op == "group_norm" else _f(m).instance_norm(x)

    got = _f64(run(ember, ember.tensor(vals)))
    ref = run(torch, torch.tensor(vals).double())
    torch.testing.assert_close(got, ref, rtol=0, atol=2e-5)


@pytest.mark.parametrize("keys", [5, 8, 19])
@pytest.mark.parametrize("where", ["q", "k", "mask"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sdpa_flash_nan_row(keys: int, where: str, dtype: str) -> None:
    """A row of the fused kernel that reads only NaN and -inf scores is NaN (its logsumexp too), not
    'fully masked' zeros as PyTorch's scalar tail makes it below 8 float keys
    (torch_known_wrong: sdpa-flash-nan-row); rows with a finite score agree with PyTorch."""
    kw = known_wrong()

    def args(m: Any) -> tuple:
        dt = getattr(m, dtype)
        q = m.linspace(-1.0, 1.0, 2 * 3 * 4 * 8, dtype=dt).reshape(2, 3, 4, 8)
        k = m.linspace(1.5, -0.5, 2 * 3 * keys * 8, dtype=dt).reshape(2, 3, keys, 8)
        v = m.linspace(-2.0, 3.0, 2 * 3 * keys * 8, dtype=dt).reshape(2, 3, keys, 8)
        if where == "q":
            q[1, 2, 3, 5] = NAN
        elif where == "k":
            k[0, 1, 0, 0] = NAN  # the one key the causal first row reads
        return q, k, v

    def kwargs(m: Any) -> dict:
        if where != "mask":
            return {"is_causal": True}
        mask = m.zeros(4, keys, dtype=getattr(m, dtype))
        mask[2] = -INF
        mask[2, keys - 1] = NAN
        return {"attn_mask": mask}

    name = "scaled_dot_product_attention"
    entry = kw.lookup(name, args(torch), kwargs(torch))
    assert entry is not None and entry.id == "sdpa-flash-nan-row"
    want = outcome(torch, lambda _m: kw.corrected(entry, None, name, args(torch), kwargs(torch)))
    got = outcome(ember, lambda m: _f(m).scaled_dot_product_attention(*args(m), **kwargs(m)))
    _close(want, got)
    op = "_scaled_dot_product_flash_attention_for_cpu"
    entry = kw.lookup(op, args(torch), kwargs(torch))
    assert entry is not None and entry.id == "sdpa-flash-nan-row"
    want = outcome(torch, lambda _m: kw.corrected(entry, None, op, args(torch), kwargs(torch)))
    got = outcome(ember, lambda m: getattr(m._nn, op)(*args(m), **kwargs(m))[:2])
    _close(want, got)


@pytest.mark.parametrize("dims", [(0, 0), (0, 0, 5), (5, 0, 0), (1,), (0, -2)])
@pytest.mark.parametrize("form", ["plain", "out_long", "dtype_long", "int_input"])
def test_nanmean_check_order(dims: tuple, form: str) -> None:
    """nanmean: the input's and the dtype's checks, then its count of non-NaNs (a sum over dim: every
    dim wrapped before repeats are looked for), then nansum into out=."""
    def f(m: Any) -> Any:
        x = m.ones(2, 3, dtype=m.int64 if form == "int_input" else m.float32)
        if form == "out_long":
            return m.nanmean(x, dims, out=m.empty(0, dtype=m.int64))
        return m.nanmean(x, dims, dtype=m.int64) if form == "dtype_long" else m.nanmean(x, dims)
    check(f)


@pytest.mark.parametrize("f", call(
    # batch norm's InvStd: 0 for a batch variance and eps both 0 (the output is the bias), inf
    # from running statistics
    lambda m: _f(m).instance_norm(m.linspace(-2.0, 3.0, 60).reshape(2, 6, 5)[:, ::2, :1].expand(2, 3, 5),
                                  weight=m.tensor([1.0, 2, 3]), bias=m.tensor([0.5, 0.25, -1]), eps=0.0),
    lambda m: _f(m).batch_norm(m.ones(4, 3, 5), None, None, m.ones(3), m.zeros(3), training=True, eps=0.0),
    lambda m: m.native_batch_norm(m.ones(4, 3, 5), None, None, None, None, True, 0.1, 0.0),
    lambda m: _f(m).batch_norm(m.ones(4, 3, 5), m.zeros(3), m.zeros(3), training=False, eps=0.0),
    lambda m: _f(m).batch_norm(m.ones(4, 3, 5)[:, :, ::2], m.zeros(3), m.zeros(3), training=False, eps=0.0),
    # the running statistics are read as 1-d, in either mode
    lambda m: _f(m).batch_norm(m.ones(4, 1), m.ones(1), m.ones(()), training=True),
    lambda m: _f(m).batch_norm(m.ones(4, 1), m.ones(()), m.ones(1), training=False),
    lambda m: _f(m).batch_norm(m.ones(4, 1), m.ones(1, 1), m.ones(1), training=True),
    lambda m: _f(m).batch_norm(m.ones(4, 1), m.ones(1), m.ones(1), m.ones(()), training=True),
    # sdpa: a dropout_p the path choice lets through (negative, NaN) is the fused kernel's error
    lambda m: _f(m).scaled_dot_product_attention(m.ones(2, 3, 4, 8), m.ones(2, 3, 5, 8), m.ones(2, 3, 5, 8),
                                                 dropout_p=-INF),
    lambda m: _f(m).scaled_dot_product_attention(m.ones(2, 3, 4, 8), m.ones(2, 3, 5, 8), m.ones(2, 3, 5, 8),
                                                 dropout_p=NAN),
    # prod (and any cast) of a sliced transpose: the cast keeps the transposed order (aten's
    # infer_dense_strides), so the product runs in that memory order: 0 before inf, not after
    lambda m: m.prod(m.tensor([[0.0, 3e38, 5.0], [3e38, 1.0, 2.0], [7.0, 3e38, 1.0], [1.0, 1.0, 3e38]],
                              dtype=m.float64).t()[:, ::2], dtype=m.float32),
    lambda m: m.tensor(m.arange(24).reshape(4, 6)[:, ::2].t().to(m.float32).stride()),
    lambda m: m.tensor(m.arange(24).reshape(6, 4).t()[:, ::2].clone().stride()),
    lambda m: m.tensor(m.empty_like(m.arange(24).reshape(2, 3, 4).permute(2, 0, 1)[::2]).stride()),
    # pdist of fewer than two rows: no pair, an empty result before the dtype dispatch
    lambda m: _f(m).pdist(m.ones(0, 3, dtype=m.float16)),
    lambda m: _f(m).pdist(m.ones(1, 3, dtype=m.bfloat16)),
    lambda m: _f(m).pdist(m.ones(2, 3, dtype=m.float16)),
    lambda m: _f(m).pdist(m.ones(1, 3, dtype=m.float16), p=-1.0),
    # nanmean into out=: the sum is made in out's dtype (not rounded to the input's) and divided there
    lambda m: m.nanmean(m.linspace(-1.3, 2.9, 12).reshape(3, 4).half(), out=m.empty(0)),
    lambda m: m.nanmean(m.linspace(-1.3, 2.9, 12).reshape(3, 4).half(), 1, out=m.empty(0, dtype=m.float64)),
    # pdist over no coordinates: every distance 0, for any p (inf too: no max over an empty dim)
    lambda m: _f(m).pdist(m.ones(4, 0), p=INF),
    lambda m: _f(m).pdist(m.ones(4, 0, dtype=m.float64), p=2.5),
))
def test_seed_2027_findings(f: Callable[[Any], Any]) -> None:
    check(f)


@pytest.mark.parametrize("grad, lse", [((0, 0, 0), (0, 0, 0, 0)), ((3, 5, 4), (2, 3, 5)), ((2, 3, 5, 4), (2, 3, 5, 1))])
def test_flash_backward_odd_ranks_raise(grad: tuple, lse: tuple) -> None:
    """PyTorch reads grad_out and logsumexp with the query's 4-d / 3-d indexing whatever their rank
    (reading past them, or crashing): ember raises the shape RuntimeError (sdpa-flash-inconsistent-shapes)."""
    kw = known_wrong()
    name = "_scaled_dot_product_flash_attention_for_cpu_backward"

    def args(m: Any) -> tuple:
        q, kv = m.ones(2, 3, 5, 4, dtype=m.float64), m.ones(2, 3, 6, 4, dtype=m.float64)
        return (m.ones(grad, dtype=m.float64), q, kv, kv, m.ones(2, 3, 5, 4, dtype=m.float64),
                m.ones(lse, dtype=m.float64), 0.0, False)

    entry = kw.lookup(name, args(torch), {})
    assert entry is not None and entry.id == "sdpa-flash-inconsistent-shapes"
    want = outcome(torch, lambda _m: kw.corrected(entry, None, name, args(torch), {}))
    got = outcome(ember, lambda m: getattr(m._nn, name)(*args(m)))
    assert want[:2] == got[:2] == ("raise", "RuntimeError"), f"{want} vs {got}"


def test_svd_of_a_matrix_holding_an_infinity_returns_nan_factors() -> None:
    # seed 3003: OpenBLAS's gesdd looped forever on this matrix (an infinity among +-1e308); the
    # decomposition is undefined: NaN singular values, as PyTorch's MKL gives, and NaN factors
    data = [-1e308, 2.0**53, -1e308, -0.0, -0.0, -1e308, -0.0, -0.0, -1e308, INF, 0.0, 5e-324]
    x = ember.tensor(data, dtype=ember.float64).reshape(4, 3)
    t = torch.tensor(data, dtype=torch.float64).reshape(4, 3)
    for e_in, t_in in ((x, t), (x.t(), t.t()), (x.t().contiguous(), t.t().contiguous())):
        assert torch.isnan(torch.linalg.svdvals(t_in)).all()
        assert ember.linalg.svdvals(e_in).isnan().all()
        U, S, Vh = ember.linalg.svd(e_in)
        assert U.shape == (e_in.shape[0],) * 2 and Vh.shape == (e_in.shape[1],) * 2
        assert S.isnan().all() and U.isnan().all() and Vh.isnan().all()
    # NaN (without an infinity) is still LAPACK's refusal, as PyTorch's
    with pytest.raises(ember.linalg.LinAlgError, match="non-finite"):
        ember.linalg.svdvals(ember.tensor([[1.0, NAN], [0.0, 1.0]], dtype=ember.float64))
