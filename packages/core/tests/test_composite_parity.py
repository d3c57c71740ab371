"""Parity with PyTorch for the composite ops of _composite_*.py and _tensor_composite.py (cummax,
quantile, erfinv, gcd, block_diag, the *_scatter and *_copy ops, ...): values, dtypes and shapes
(VALUES), gradients in float64 against PyTorch's (GRADS, through ember's gradcheck as well), and
the exception type of bad input (ERRORS). Each case is written once, ``case(L)`` for L in
(torch, ember)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

import ember  # noqa: E402


def X(L: Any, *shape: int, dtype: str = "float32", grad: bool = False, scale: float = 1.0) -> Any:
    """A deterministic tensor with distinct sign-mixed values (the same in both libraries)."""
    n = math.prod(shape)
    t = ((L.arange(n, dtype=L.float64).reshape(shape) * 0.731 + 0.3).sin() * scale).to(getattr(L, dtype))
    return t.requires_grad_() if grad else t


def I(L: Any, values: Any, dtype: str = "int64") -> Any:  # noqa: E743
    return L.tensor(values, dtype=getattr(L, dtype))


F = float("nan")
INF = float("inf")

Case = Callable[[Any], Any]
VALUES: dict[str, Case] = {
    # scans
    "cummax": lambda L: L.cummax(I(L, [[1., 3., 3., F, 2., F], [5., 0., 5., 1., 7., 2.]], "float32"), 1),
    "cummin-int": lambda L: L.cummin(I(L, [[3, 1, 1, 4, 0], [2, 2, 5, -1, -1]]), 1),
    "cummax-dim0": lambda L: X(L, 5, 3).cummax(0),
    "cummax-0d": lambda L: L.cummax(L.tensor(2.5), 0),
    "cummin-bool": lambda L: L.cummin(L.tensor([True, False, True]), 0),
    "logcumsumexp": lambda L: L.logcumsumexp(X(L, 3, 7, scale=50), 1),
    "logcumsumexp-inf": lambda L: L.logcumsumexp(I(L, [-INF, -INF, 0., INF, 1.], "float64"), 0),
    "logcumsumexp-method": lambda L: X(L, 4, 3, dtype="float64").logcumsumexp(0),
    "diff": lambda L: L.diff(X(L, 3, 5)),
    "diff-n2-dim0": lambda L: L.diff(X(L, 4, 3), n=2, dim=0),
    "diff-prepend": lambda L: L.diff(X(L, 2, 3), dim=1, prepend=X(L, 2, 1), append=X(L, 2, 2)),
    "diff-bool": lambda L: L.diff(L.tensor([True, False, False, True])),
    "diff-int": lambda L: I(L, [1, 4, 9, 16]).diff(),
    "gradient": lambda L: L.gradient(X(L, 4, 5)),
    "gradient-spacing": lambda L: L.gradient(X(L, 4, 5), spacing=2.0, dim=1),
    "gradient-list": lambda L: L.gradient(X(L, 4, 5), spacing=[0.5, 3.0]),
    "gradient-coords": lambda L: L.gradient(X(L, 5), spacing=(L.tensor([0., 1., 1.5, 3.5, 4.]),)),
    "gradient-edge2": lambda L: L.gradient(X(L, 4, 5), edge_order=2),
    "gradient-coords-edge2": lambda L: L.gradient(X(L, 5, 2), spacing=(L.tensor([0., 1., 1.5, 3.5, 4.]),),
                                                  dim=0, edge_order=2),
    "gradient-int": lambda L: L.gradient(I(L, [1, 4, 9, 16])),
    "quantile": lambda L: L.quantile(X(L, 3, 6), 0.3, dim=1),
    "quantile-all": lambda L: L.quantile(X(L, 3, 6), L.tensor([0.0, 0.25, 0.5, 1.0])),
    "quantile-keepdim": lambda L: L.quantile(X(L, 3, 6), L.tensor([0.1, 0.7]), dim=0, keepdim=True),
    "quantile-all-keepdim": lambda L: L.quantile(X(L, 3, 6), 0.5, keepdim=True),
    "quantile-nan": lambda L: L.quantile(I(L, [[1., F, 3.], [4., 5., 6.]], "float32"), 0.5, dim=1),
    **{f"quantile-{m}": (lambda m: lambda L: L.quantile(X(L, 2, 5, dtype="float64"), L.tensor([0.2, 0.5, 0.9],
                                                        dtype=L.float64), dim=1, interpolation=m))(m)
       for m in ("lower", "higher", "midpoint", "nearest")},
    "nanquantile": lambda L: L.nanquantile(I(L, [[1., F, 3., 7.], [F, F, F, F], [4., 5., 6., F]], "float32"),
                                           L.tensor([0.25, 0.5]), dim=1),
    "quantile-method": lambda L: X(L, 7).quantile(0.4),
    # pointwise
    "erfinv": lambda L: L.erfinv(I(L, [0., 0.5, -0.5, 0.9, -0.999, 0.999999, 1., -1., 1.5, F, 1e-30], "float32")),
    "erfinv-f64": lambda L: L.erfinv(L.linspace(-0.9999999, 0.9999999, 101, dtype=L.float64)),
    "erfinv-int": lambda L: L.erfinv(I(L, [0, 1, -1, 2])),
    "erfinv-method": lambda L: X(L, 3, 3).erfinv(),
    "erfinv_": lambda L: X(L, 3).erfinv_(),
    "gcd": lambda L: L.gcd(I(L, [12, 18, 0, -4, 7, 0]), I(L, [8, -12, 5, 0, 13, 0])),
    "gcd-broadcast-int32": lambda L: L.gcd(I(L, [[12], [9]], "int32"), I(L, [8, 6, 3], "int32")),
    "gcd_": lambda L: I(L, [12, 18]).gcd_(I(L, [8, 27])),
    "lcm": lambda L: L.lcm(I(L, [12, 18, 0, -4, 7]), I(L, [8, -12, 5, 6, 13])),
    "lcm-uint8": lambda L: I(L, [4, 6, 0], "uint8").lcm(I(L, [6, 8, 3], "uint8")),
    "ldexp": lambda L: L.ldexp(X(L, 4), I(L, [0, 3, -2, 10])),
    "ldexp-int": lambda L: L.ldexp(I(L, [1, 2, 3]), I(L, [1, 2, 3])),
    "ldexp-f64": lambda L: X(L, 3, dtype="float64").ldexp(I(L, [1, -1, 5])),
    "frexp": lambda L: L.frexp(I(L, [0., 1., -1., 0.5, 3., 1e-40, -1e30, INF, -INF, F, 0.99999994], "float32")),
    "frexp-f64": lambda L: L.frexp(I(L, [5e-324, 1.7e308, 2.0, 1 - 2**-53, -0.75, 0.], "float64")),
    "frexp-method": lambda L: X(L, 2, 3, scale=1000).frexp(),
    "nextafter": lambda L: L.nextafter(I(L, [0., 1., 1., -1., 0., F, 2., -0.], "float32"),
                                       I(L, [1., 2., 0., 0., -1., 1., 2., 1.], "float32")),
    "nextafter-f64": lambda L: L.nextafter(I(L, [0., 1., -1e300, INF], "float64"),
                                           I(L, [-1., 0., -INF, 0.], "float64")),
    "float_power": lambda L: L.float_power(X(L, 4).abs(), I(L, [2, 3, 0, 1])),
    "float_power-scalar-exp": lambda L: L.float_power(I(L, [1, 2, 3]), 0.5),
    "float_power-scalar-base": lambda L: L.float_power(2, X(L, 3)),
    "float_power_": lambda L: X(L, 3, dtype="float64").abs().float_power_(2),
    "sinc": lambda L: L.sinc(I(L, [0., 0.5, -1., 1e-8, 3.25, INF, F], "float32")),
    "sinc-int": lambda L: L.sinc(I(L, [0, 1, 2])),
    "sgn": lambda L: L.sgn(I(L, [-2., 0., 3., F, -0.], "float32")),
    "sgn-int": lambda L: I(L, [-3, 0, 5]).sgn(),
    "positive": lambda L: L.positive(X(L, 3)),
    "nan_to_num": lambda L: L.nan_to_num(I(L, [F, INF, -INF, 1.5], "float32")),
    "nan_to_num-args": lambda L: L.nan_to_num(I(L, [F, INF, -INF, 1.5], "float64"), nan=2.0, posinf=9.0,
                                              neginf=-9.0),
    "nan_to_num-f16": lambda L: L.nan_to_num(I(L, [F, INF, -INF, 1.5], "float16")),
    "nan_to_num-int": lambda L: L.nan_to_num(I(L, [1, 2])),
    "nan_to_num_": lambda L: I(L, [F, INF, 2.], "float32").nan_to_num_(1.0),
    "isin": lambda L: L.isin(I(L, [[1, 2, 3], [4, 5, 6]]), I(L, [2, 6, 9])),
    "isin-invert": lambda L: L.isin(I(L, [1., 2., F], "float32"), I(L, [2., F], "float32"), invert=True),
    "isin-scalar": lambda L: L.isin(I(L, [1, 2, 3]), 2),
    "isin-scalar-elements": lambda L: L.isin(3, I(L, [1, 2, 3])),
    "isin-promote": lambda L: L.isin(I(L, [1, 2, 3]), I(L, [2.0, 2.5], "float32")),
    "isin-empty": lambda L: L.isin(I(L, [1, 2]), I(L, [])),
    # statistics
    "dist": lambda L: L.dist(X(L, 3, 4), X(L, 4) * 2),
    "dist-p": lambda L: X(L, 3, 4).dist(X(L, 3, 4).cos(), 3),
    "dist-inf": lambda L: L.dist(X(L, 5), X(L, 5).cos(), INF),
    "renorm": lambda L: L.renorm(X(L, 3, 4, scale=3), 2, 0, 1.0),
    "renorm-p1-dim1": lambda L: X(L, 3, 4, 2, scale=3).renorm(1, 1, 2.0),
    "cov": lambda L: L.cov(X(L, 3, 6)),
    "cov-1d": lambda L: L.cov(X(L, 6)),
    "cov-weights": lambda L: L.cov(X(L, 3, 5), correction=0, fweights=I(L, [1, 2, 1, 3, 1]),
                                   aweights=X(L, 5).abs()),
    "cov-aweights": lambda L: L.cov(X(L, 2, 5), aweights=X(L, 5).abs()),
    "cov-int": lambda L: L.cov(I(L, [[1, 2, 4], [3, 1, 0]])),
    "corrcoef": lambda L: L.corrcoef(X(L, 3, 6)),
    "corrcoef-method": lambda L: X(L, 4, 5, dtype="float64").corrcoef(),
    "histogram": lambda L: L.histogram(X(L, 20), 5),
    "histogram-range": lambda L: L.histogram(X(L, 20), 4, range=(-0.5, 0.5)),
    "histogram-edges": lambda L: L.histogram(X(L, 20), L.tensor([-1.0, -0.2, 0.1, 1.0])),
    "histogram-weight-density": lambda L: X(L, 4, 5).histogram(3, weight=X(L, 4, 5).abs(), density=True),
    # shapes and products
    "block_diag": lambda L: L.block_diag(X(L, 2, 3), L.tensor(5.), X(L, 3), I(L, [[1], [2]])),
    "block_diag-empty": lambda L: L.block_diag(),
    "cartesian_prod": lambda L: L.cartesian_prod(I(L, [1, 2]), I(L, [3, 4, 5]), I(L, [6])),
    "cartesian_prod-one": lambda L: L.cartesian_prod(X(L, 3)),
    "combinations": lambda L: L.combinations(X(L, 4)),
    "combinations-r3": lambda L: L.combinations(I(L, [1, 2, 3, 4]), 3),
    "combinations-replacement": lambda L: L.combinations(I(L, [1, 2, 3]), with_replacement=True),
    "combinations-r1": lambda L: L.combinations(I(L, [1, 2, 3]), 1),
    "combinations-r0": lambda L: L.combinations(I(L, [1, 2, 3]), 0),
    "combinations-too-long": lambda L: L.combinations(I(L, [1, 2]), 3),
    "diagflat": lambda L: L.diagflat(X(L, 2, 2)),
    "diagflat-offset": lambda L: X(L, 3).diagflat(-1),
    "inner": lambda L: L.inner(X(L, 2, 3), X(L, 4, 3)),
    "inner-scalar": lambda L: L.inner(X(L, 2, 3), L.tensor(2.)),
    "inner-1d": lambda L: X(L, 3).inner(X(L, 3).cos()),
    "vdot": lambda L: L.vdot(X(L, 4), X(L, 4).cos()),
    "vdot-int": lambda L: I(L, [1, 2]).vdot(I(L, [3, 4])),
    "addbmm": lambda L: L.addbmm(X(L, 2, 4), X(L, 3, 2, 5), X(L, 3, 5, 4)),
    "addbmm-beta-alpha": lambda L: X(L, 2, 4).addbmm(X(L, 3, 2, 5), X(L, 3, 5, 4), beta=0.5, alpha=2),
    "addbmm-beta0-nan": lambda L: L.addbmm(L.full((2, 4), F), X(L, 3, 2, 5), X(L, 3, 5, 4), beta=0),
    "addbmm_": lambda L: X(L, 2, 4).addbmm_(X(L, 3, 2, 5), X(L, 3, 5, 4)),
    "addmv": lambda L: L.addmv(X(L, 3), X(L, 3, 4), X(L, 4), beta=2, alpha=0.5),
    "addmv-broadcast": lambda L: L.addmv(L.tensor(1.), X(L, 3, 4), X(L, 4)),
    "addmv_": lambda L: L.addmv_(X(L, 3), X(L, 3, 4), X(L, 4)),
    "addmv-method_": lambda L: X(L, 3).addmv_(X(L, 3, 4), X(L, 4)),
    "addr": lambda L: L.addr(X(L, 3, 4), X(L, 3), X(L, 4)),
    "addr-int": lambda L: I(L, [[1, 2], [3, 4]]).addr(I(L, [1, 2]), I(L, [3, 4]), beta=2, alpha=3),
    "addr_": lambda L: X(L, 3, 4).addr_(X(L, 3), X(L, 4), alpha=2),
    "tril_indices": lambda L: L.tril_indices(3, 4),
    "tril_indices-offset": lambda L: L.tril_indices(4, 3, -1, dtype=L.int32),
    "triu_indices": lambda L: L.triu_indices(3, 4, 1),
    "triu_indices-empty": lambda L: L.triu_indices(0, 4),
    "unravel_index": lambda L: L.unravel_index(I(L, [[0, 5], [11, 7]]), (3, 4)),
    "unravel_index-int": lambda L: L.unravel_index(L.tensor(9), (2, 5)),
    "unravel_index-negative": lambda L: L.unravel_index(I(L, [-1, -12]), (3, 4)),
    "unravel_index-beyond": lambda L: L.unravel_index(I(L, [4, 5, -5, 9]), (2, 2)),
    "hsplit": lambda L: L.hsplit(X(L, 2, 6), 3),
    "hsplit-1d-indices": lambda L: X(L, 6).hsplit([1, 4]),
    "vsplit": lambda L: L.vsplit(X(L, 4, 2), [1]),
    "dsplit": lambda L: L.dsplit(X(L, 1, 2, 4), 2),
    "column_stack": lambda L: L.column_stack([X(L, 3), X(L, 3, 2), L.tensor([1., 2., 3.])]),
    "column_stack-0d": lambda L: L.column_stack((L.tensor(1.), L.tensor(2.))),
    "scalar_tensor": lambda L: L.scalar_tensor(3),
    "scalar_tensor-dtype": lambda L: L.scalar_tensor(2.5, dtype=L.float64),
    "scalar_tensor-bool": lambda L: L.scalar_tensor(True, dtype=L.bool),
    # *_scatter
    "slice_scatter": lambda L: L.slice_scatter(X(L, 4, 5), L.ones(4, 2), dim=1, start=1, end=5, step=2),
    "slice_scatter-default": lambda L: X(L, 4, 2).slice_scatter(L.zeros(4, 2)),
    "select_scatter": lambda L: L.select_scatter(X(L, 3, 4), L.ones(3), 1, -1),
    "diagonal_scatter": lambda L: L.diagonal_scatter(X(L, 3, 4), L.ones(3), 1),
    "diagonal_scatter-dims": lambda L: X(L, 2, 3, 3).diagonal_scatter(L.zeros(3, 2), 0, 0, 2),
    "as_strided_scatter": lambda L: L.as_strided_scatter(X(L, 3, 4), L.ones(2, 2), (2, 2), (4, 1), 1),
    # *_copy
    "as_strided_copy": lambda L: L.as_strided_copy(X(L, 3, 4), (2, 2), (1, 4), 1),
    "alias_copy": lambda L: L.alias_copy(X(L, 3, 4)),
    "detach_copy": lambda L: L.detach_copy(X(L, 3, 4)),
    "diagonal_copy": lambda L: L.diagonal_copy(X(L, 3, 4), 1),
    "expand_copy": lambda L: L.expand_copy(X(L, 3, 1), (3, 4)),
    "narrow_copy": lambda L: L.narrow_copy(X(L, 3, 4), 1, 1, 2),
    "narrow_copy-method": lambda L: X(L, 3, 4).narrow_copy(0, 1, 2),
    "permute_copy": lambda L: L.permute_copy(X(L, 2, 3, 4), (2, 0, 1)),
    "select_copy": lambda L: L.select_copy(X(L, 3, 4), 1, 2),
    "slice_copy": lambda L: L.slice_copy(X(L, 3, 4), 1, 1, 4, 2),
    "split_copy": lambda L: L.split_copy(X(L, 5, 2), 2),
    "split_with_sizes_copy": lambda L: L.split_with_sizes_copy(X(L, 5, 2), [1, 4]),
    "squeeze_copy": lambda L: L.squeeze_copy(X(L, 3, 1, 2)),
    "t_copy": lambda L: L.t_copy(X(L, 3, 4)),
    "transpose_copy": lambda L: L.transpose_copy(X(L, 2, 3, 4), 0, 2),
    "unbind_copy": lambda L: L.unbind_copy(X(L, 3, 2), 1),
    "unfold_copy": lambda L: L.unfold_copy(X(L, 7), 0, 3, 2),
    "unsqueeze_copy": lambda L: L.unsqueeze_copy(X(L, 3), 0),
    "view_copy": lambda L: L.view_copy(X(L, 3, 4), (2, 6)),
    # linalg
    "solve_triangular-upper": lambda L: L.linalg.solve_triangular(X(L, 3, 3) + 3 * L.eye(3), X(L, 3, 2), upper=True),
    "solve_triangular-lower-batch": lambda L: L.linalg.solve_triangular(X(L, 2, 3, 3) + 3 * L.eye(3), X(L, 3, 4),
                                                                        upper=False),
    "solve_triangular-right-unit": lambda L: L.linalg.solve_triangular(X(L, 3, 3), X(L, 2, 3), upper=True,
                                                                       left=False, unitriangular=True),
    "solve_triangular-singular": lambda L: L.linalg.solve_triangular(L.tensor([[1., 2.], [0., 0.]]),
                                                                     L.tensor([[1.], [1.]]), upper=True),
    "solve_triangular-promote": lambda L: L.linalg.solve_triangular(L.ones(2, 2), L.ones(2, 1, dtype=L.float64),
                                                                    upper=True),
    "linalg.vander": lambda L: L.linalg.vander(X(L, 4)),
    "linalg.vander-N-int": lambda L: L.linalg.vander(I(L, [[1, 2, 3], [-1, 0, 2]]), N=5),
    "vander": lambda L: L.vander(X(L, 4)),
    "vander-int-increasing": lambda L: L.vander(I(L, [1, 2, 3]), 4, increasing=True),
    "vander-bool-N1": lambda L: L.vander(L.tensor([True, False]), N=1),
    "vander-N0": lambda L: L.vander(X(L, 3), N=0),
    "linalg.diagonal": lambda L: L.linalg.diagonal(X(L, 2, 3, 4), offset=1),
    "linalg.diagonal-dims": lambda L: L.linalg.diagonal(X(L, 2, 3, 4), dim1=0, dim2=2),
    **{f"linalg.cond-{p}": (lambda p: lambda L: L.linalg.cond(X(L, 2, 3, 3, dtype="float64") + L.eye(3,
                                                             dtype=L.float64), p))(p)
       for p in (None, 2, -2, 1, -1, INF, -INF, "fro", "nuc")},
    "linalg.cond-rect": lambda L: L.linalg.cond(X(L, 3, 5, dtype="float64") + L.eye(3, 5, dtype=L.float64)),
    "linalg.cond-singular": lambda L: L.linalg.cond(L.zeros(2, 2), 1),
    "linalg.matmul": lambda L: L.linalg.matmul(X(L, 2, 3), X(L, 3, 4)),
    # method forms
    "sum_to_size": lambda L: X(L, 2, 3, 4).sum_to_size(3, 1),
    "sum_to_size-tuple": lambda L: X(L, 2, 3, 4).sum_to_size((1, 3, 4)),
    "logit-method": lambda L: X(L, 5).abs().logit(),
    "logit-eps": lambda L: X(L, 5).abs().logit(0.1),
    "logit_": lambda L: X(L, 5).abs().logit_(),
    "rdiv": lambda L: X(L, 3).__rdiv__(2),
    "new_empty_strided": lambda L: X(L, 2).new_empty_strided((2, 3), (1, 2)).fill_(1.5),
    "new_empty_strided-dtype": lambda L: X(L, 2).new_empty_strided((2,), (1,), dtype=L.int64).zero_(),
}


def flat(out: Any) -> list[Any]:
    return [x for o in out for x in flat(o)] if isinstance(out, (tuple, list)) else [out]


def compare(e: Any, t: Any, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    e_flat, t_flat = flat(e), flat(t)
    assert len(e_flat) == len(t_flat)
    for ev, tv in zip(e_flat, t_flat):
        if not isinstance(tv, torch.Tensor):
            assert ev == tv
            continue
        assert str(ev.dtype) == str(tv.dtype), (ev.dtype, tv.dtype)
        assert tuple(ev.shape) == tuple(tv.shape), (ev.shape, tv.shape)
        a, b = ev.detach().to(ember.float64).numpy() if ev.dtype in (ember.float16, ember.bfloat16) else \
            ev.detach().numpy(), tv.detach().double().numpy() if tv.dtype in (torch.float16, torch.bfloat16) \
            else tv.detach().numpy()
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("case", sorted(VALUES))
def test_values(case: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = VALUES[case](torch)
        e = VALUES[case](ember)
    if case.startswith("new_empty_strided"):
        assert e.stride() == t.stride()
    compare(e, t)


# Gradients: (inputs, fn) with inputs built in float64 from L; each case differentiates a weighted sum
# of the floating outputs and compares every input's gradient, then runs ember's gradcheck.
GRADS: dict[str, tuple[Callable[[Any], list[Any]], Callable[..., Any]]] = {
    "cummax": (lambda L: [X(L, 3, 5, dtype="float64")], lambda L, x: L.cummax(x, 1).values),
    "cummin": (lambda L: [X(L, 6, 2, dtype="float64")], lambda L, x: L.cummin(x, 0).values),
    "logcumsumexp": (lambda L: [X(L, 3, 6, dtype="float64")], lambda L, x: L.logcumsumexp(x, 1)),
    "diff": (lambda L: [X(L, 3, 6, dtype="float64"), X(L, 3, 1, dtype="float64")],
             lambda L, x, p: L.diff(x, n=2, prepend=p)),
    "gradient": (lambda L: [X(L, 4, 5, dtype="float64")], lambda L, x: L.gradient(x, edge_order=2)),
    "gradient-coords": (lambda L: [X(L, 5, dtype="float64")],
                        lambda L, x: L.gradient(x, spacing=(L.tensor([0., 1., 1.5, 3.5, 4.], dtype=L.float64),))),
    "quantile": (lambda L: [X(L, 3, 6, dtype="float64")],
                 lambda L, x: L.quantile(x, L.tensor([0.2, 0.5, 0.95], dtype=L.float64), dim=1)),
    "nanquantile": (lambda L: [X(L, 7, dtype="float64")], lambda L, x: L.nanquantile(x, 0.3)),
    "erfinv": (lambda L: [X(L, 7, dtype="float64") * 0.9], lambda L, x: L.erfinv(x)),
    "ldexp": (lambda L: [X(L, 4, dtype="float64")], lambda L, x: L.ldexp(x, L.tensor([1, -2, 0, 3]))),
    "frexp": (lambda L: [X(L, 4, dtype="float64", scale=50)], lambda L, x: L.frexp(x).mantissa),
    "float_power": (lambda L: [X(L, 4, dtype="float64").abs() + 0.5, X(L, 4, dtype="float64")],
                    lambda L, x, y: L.float_power(x, y)),
    "sinc": (lambda L: [L.tensor([0., 0.3, -1.7, 2.5], dtype=L.float64)], lambda L, x: L.sinc(x)),
    "sgn": (lambda L: [X(L, 4, dtype="float64")], lambda L, x: L.sgn(x)),
    "nan_to_num": (lambda L: [L.tensor([1.0, F, INF, -2.0], dtype=L.float64)], lambda L, x: L.nan_to_num(x)),
    "dist": (lambda L: [X(L, 3, 4, dtype="float64"), X(L, 4, dtype="float64").cos()],
             lambda L, x, y: L.dist(x, y, 3)),
    "renorm": (lambda L: [X(L, 3, 4, dtype="float64", scale=3)], lambda L, x: L.renorm(x, 2, 0, 1.0)),
    "cov": (lambda L: [X(L, 3, 5, dtype="float64"), X(L, 5, dtype="float64").abs()],
            lambda L, x, w: L.cov(x, aweights=w)),
    "corrcoef": (lambda L: [X(L, 3, 5, dtype="float64")], lambda L, x: L.corrcoef(x)),
    "block_diag": (lambda L: [X(L, 2, 3, dtype="float64"), X(L, 3, dtype="float64")],
                   lambda L, a, b: L.block_diag(a, b)),
    "cartesian_prod": (lambda L: [X(L, 2, dtype="float64"), X(L, 3, dtype="float64")],
                       lambda L, a, b: L.cartesian_prod(a, b)),
    "combinations": (lambda L: [X(L, 4, dtype="float64")], lambda L, a: L.combinations(a, 3)),
    "diagflat": (lambda L: [X(L, 3, dtype="float64")], lambda L, a: L.diagflat(a, 1)),
    "inner": (lambda L: [X(L, 2, 3, dtype="float64"), X(L, 4, 3, dtype="float64")], lambda L, a, b: L.inner(a, b)),
    "vdot": (lambda L: [X(L, 3, dtype="float64"), X(L, 3, dtype="float64").cos()], lambda L, a, b: L.vdot(a, b)),
    "addbmm": (lambda L: [X(L, 2, 4, dtype="float64"), X(L, 3, 2, 5, dtype="float64"),
                          X(L, 3, 5, 4, dtype="float64")], lambda L, i, a, b: L.addbmm(i, a, b, beta=0.5, alpha=2)),
    "addmv": (lambda L: [X(L, 3, dtype="float64"), X(L, 3, 4, dtype="float64"), X(L, 4, dtype="float64")],
              lambda L, i, m, v: L.addmv(i, m, v, beta=2, alpha=0.5)),
    "addr": (lambda L: [X(L, 3, 4, dtype="float64"), X(L, 3, dtype="float64"), X(L, 4, dtype="float64")],
             lambda L, i, a, b: L.addr(i, a, b, alpha=3)),
    "slice_scatter": (lambda L: [X(L, 4, 5, dtype="float64"), X(L, 4, 2, dtype="float64")],
                      lambda L, x, s: L.slice_scatter(x, s, 1, 1, 5, 2)),
    "select_scatter": (lambda L: [X(L, 4, 5, dtype="float64"), X(L, 4, dtype="float64")],
                       lambda L, x, s: L.select_scatter(x, s, 1, 2)),
    "diagonal_scatter": (lambda L: [X(L, 4, 5, dtype="float64"), X(L, 4, dtype="float64")],
                         lambda L, x, s: L.diagonal_scatter(x, s, 1)),
    "as_strided_scatter": (lambda L: [X(L, 3, 4, dtype="float64"), X(L, 2, 2, dtype="float64")],
                           lambda L, x, s: L.as_strided_scatter(x, s, (2, 2), (4, 1), 1)),
    "unfold_copy": (lambda L: [X(L, 7, dtype="float64")], lambda L, x: L.unfold_copy(x, 0, 3, 2)),
    "solve_triangular": (lambda L: [X(L, 3, 3, dtype="float64") + 3 * L.eye(3, dtype=L.float64),
                                    X(L, 3, 2, dtype="float64")],
                         lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True)),
    "solve_triangular-right-unit": (lambda L: [X(L, 3, 3, dtype="float64"), X(L, 2, 3, dtype="float64")],
                                    lambda L, a, b: L.linalg.solve_triangular(a, b, upper=False, left=False,
                                                                              unitriangular=True)),
    "linalg.vander": (lambda L: [X(L, 2, 3, dtype="float64")], lambda L, x: L.linalg.vander(x, N=4)),
    "vander": (lambda L: [X(L, 3, dtype="float64")], lambda L, x: L.vander(x)),
    "linalg.cond": (lambda L: [X(L, 3, 3, dtype="float64") + L.eye(3, dtype=L.float64)],
                    lambda L, a: L.linalg.cond(a)),
    "linalg.cond-1": (lambda L: [X(L, 3, 3, dtype="float64") + L.eye(3, dtype=L.float64)],
                      lambda L, a: L.linalg.cond(a, "fro")),
    "sum_to_size": (lambda L: [X(L, 2, 3, 4, dtype="float64")], lambda L, x: x.sum_to_size(3, 1)),
    "column_stack": (lambda L: [X(L, 3, dtype="float64"), X(L, 3, 2, dtype="float64")],
                     lambda L, a, b: L.column_stack([a, b])),
}


def _weighted(L: Any, out: Any) -> Any:
    total = 0
    for i, o in enumerate(flat(out)):
        if o.is_floating_point():
            w = ((L.arange(o.numel(), dtype=L.float64) + i).cos() + 1.5).reshape(o.shape).to(o.dtype)
            total = total + (L.nan_to_num(o, posinf=0.0, neginf=0.0) * w).sum()
    return total


# PyTorch's own gradients fail torch.autograd.gradcheck here (checked with 2.13): as_strided_scatter's
# input gradient is the scattered window instead of its complement, and ldexp's backward computes
# 2**other in other's integer dtype (0 for a negative exponent); its vander and linalg.cond(p="fro")
# backward raise (a saved tensor modified in place). ember's are checked by gradcheck only.
TORCH_GRAD_WRONG = {"as_strided_scatter", "ldexp", "vander", "linalg.cond-1"}


@pytest.mark.parametrize("case", sorted(GRADS))
def test_grads(case: str) -> None:
    build, fn = GRADS[case]
    grads = []
    for L in (torch, ember) if case not in TORCH_GRAD_WRONG else ():
        inputs = [x.detach().clone().requires_grad_() for x in build(L)]
        _weighted(L, fn(L, *inputs)).backward()
        grads.append([x.grad for x in inputs])
    for t, e in zip(*grads) if grads else ():
        assert (t is None) == (e is None)
        if t is not None:  # PyTorch's zero gradients can be ZeroTensors, which have no storage
            t = torch.zeros_like(t) if t._is_zerotensor() else t
            np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-7, atol=1e-9)
    inputs = [x.detach().clone().requires_grad_() for x in build(ember)]
    assert ember.autograd.gradcheck(lambda *a: fn(ember, *a), inputs)


ERRORS: dict[str, Case] = {
    "cummax-dim": lambda L: L.cummax(X(L, 3), 1),
    "logcumsumexp-dim": lambda L: L.logcumsumexp(X(L, 3), 2),
    "diff-0d": lambda L: L.diff(L.tensor(1.)),
    "diff-negative": lambda L: L.diff(X(L, 3), n=-1),
    "diff-prepend-dims": lambda L: L.diff(X(L, 3, 2), prepend=X(L, 2)),
    "gradient-small": lambda L: L.gradient(X(L, 1, 3)),
    "gradient-edge3": lambda L: L.gradient(X(L, 4), edge_order=3),
    "gradient-spacing-len": lambda L: L.gradient(X(L, 4, 4), spacing=[1.0]),
    "quantile-q-range": lambda L: L.quantile(X(L, 4), 1.5),
    "quantile-q-tensor-range": lambda L: L.quantile(X(L, 4), L.tensor([0.5, -0.1])),
    "quantile-int": lambda L: L.quantile(I(L, [1, 2]), 0.5),
    "quantile-q-dtype": lambda L: L.quantile(X(L, 4), L.tensor([0.5], dtype=L.float64)),
    "quantile-empty": lambda L: L.quantile(L.empty(0), 0.5),
    "quantile-q-2d": lambda L: L.quantile(X(L, 4), L.tensor([[0.5]])),
    "quantile-interp": lambda L: L.quantile(X(L, 4), 0.5, interpolation="cubic"),
    "gcd-float": lambda L: L.gcd(X(L, 3), X(L, 3)),
    "lcm-bool": lambda L: L.lcm(L.tensor([True]), L.tensor([True])),
    "frexp-int": lambda L: L.frexp(I(L, [1, 2])),
    "nextafter-int": lambda L: L.nextafter(I(L, [1]), I(L, [2])),
    "float_power-out": lambda L: L.float_power(X(L, 3), 2, out=L.empty(3)),
    "float_power_-float": lambda L: X(L, 3).float_power_(2),
    "sinc_-int": lambda L: I(L, [1, 2]).sinc_(),
    "positive-bool": lambda L: L.positive(L.tensor([True])),
    "renorm-int": lambda L: L.renorm(I(L, [[1, 2]]), 2, 0, 1),
    "renorm-p0": lambda L: L.renorm(X(L, 2, 2), 0, 0, 1),
    "renorm-maxnorm": lambda L: L.renorm(X(L, 2, 2), 2, 0, -1),
    "cov-3d": lambda L: L.cov(X(L, 2, 2, 2)),
    "cov-fweights-float": lambda L: L.cov(X(L, 2, 3), fweights=X(L, 3)),
    "cov-aweights-int": lambda L: L.cov(X(L, 2, 3), aweights=I(L, [1, 2, 3])),
    "cov-fweights-numel": lambda L: L.cov(X(L, 2, 3), fweights=I(L, [1, 2])),
    "cov-fweights-negative": lambda L: L.cov(X(L, 2, 3), fweights=I(L, [1, -2, 1])),
    "histogram-int": lambda L: L.histogram(I(L, [1, 2]), 3),
    "histogram-bins-dtype": lambda L: L.histogram(X(L, 4), L.tensor([0., 1.], dtype=L.float64)),
    "histogram-range": lambda L: L.histogram(X(L, 4), 3, range=(1.0, 0.0)),
    "block_diag-3d": lambda L: L.block_diag(X(L, 2, 2, 2)),
    "cartesian_prod-2d": lambda L: L.cartesian_prod(X(L, 2, 2)),
    "combinations-2d": lambda L: L.combinations(X(L, 2, 2)),
    "inner-mismatch": lambda L: L.inner(X(L, 2, 3), X(L, 4)),
    "vdot-2d": lambda L: L.vdot(X(L, 2, 2), X(L, 4)),
    "vdot-dtype": lambda L: L.vdot(X(L, 2), X(L, 2, dtype="float64")),
    "vdot-size": lambda L: L.vdot(X(L, 2), X(L, 3)),
    "addbmm-2d": lambda L: L.addbmm(X(L, 2, 4), X(L, 2, 5), X(L, 3, 5, 4)),
    "addmv-shapes": lambda L: L.addmv(X(L, 3), X(L, 3, 4), X(L, 5)),
    "addr-2d": lambda L: L.addr(X(L, 3, 4), X(L, 3, 1), X(L, 4)),
    "unravel_index-float": lambda L: L.unravel_index(X(L, 2), (2, 2)),
    "unravel_index-negative-shape": lambda L: L.unravel_index(I(L, [1]), (2, -2)),
    "hsplit-0d": lambda L: L.hsplit(L.tensor(1.), 1),
    "hsplit-indivisible": lambda L: L.hsplit(X(L, 2, 5), 2),
    "vsplit-1d": lambda L: L.vsplit(X(L, 4), 2),
    "dsplit-2d": lambda L: L.dsplit(X(L, 4, 2), 2),
    "slice_scatter-shape": lambda L: L.slice_scatter(X(L, 4, 5), L.ones(4, 3), dim=1, start=1, end=5, step=2),
    "select_scatter-shape": lambda L: L.select_scatter(X(L, 3, 4), L.ones(4), 1, 0),
    "diagonal_scatter-shape": lambda L: L.diagonal_scatter(X(L, 3, 4), L.ones(4)),
    "sum_to_size-bad": lambda L: X(L, 2, 3).sum_to_size(4),
    "solve_triangular-1d": lambda L: L.linalg.solve_triangular(X(L, 3), X(L, 3, 1), upper=True),
    "solve_triangular-rect": lambda L: L.linalg.solve_triangular(X(L, 2, 3), X(L, 2, 1), upper=True),
    "solve_triangular-int": lambda L: L.linalg.solve_triangular(I(L, [[1, 0], [0, 1]]), I(L, [[1], [1]]), upper=True),
    "solve_triangular-shapes": lambda L: L.linalg.solve_triangular(X(L, 2, 2), X(L, 3, 1), upper=True),
    "linalg.vander-0d": lambda L: L.linalg.vander(L.tensor(1.)),
    "linalg.vander-N1": lambda L: L.linalg.vander(X(L, 3), N=1),
    "linalg.vander-bool": lambda L: L.linalg.vander(L.tensor([True])),
    "vander-2d": lambda L: L.vander(X(L, 2, 2)),
    "linalg.cond-1d": lambda L: L.linalg.cond(X(L, 3)),
    "linalg.cond-rect-1": lambda L: L.linalg.cond(X(L, 2, 3), 1),
    "linalg.cond-p3": lambda L: L.linalg.cond(X(L, 2, 2), 3),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    with pytest.raises(Exception) as t_info:
        ERRORS[case](torch)
    with pytest.raises(Exception) as e_info:
        ERRORS[case](ember)
    assert type(e_info.value).__name__ == type(t_info.value).__name__, (t_info.value, e_info.value)
