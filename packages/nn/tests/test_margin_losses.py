"""Parity with PyTorch for the losses of _functional/loss_margin.py (values for each reduction,
float64 gradients, ember's gradcheck, the exception type of bad input) and for affine_grid."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

import ember  # noqa: E402
import ember.nn.functional  # noqa: E402, F401


def X(L: Any, *shape: int, scale: float = 1.0) -> Any:
    n = math.prod(shape)
    return ((L.arange(n, dtype=L.float64).reshape(shape) * 0.731 + 0.3).sin() * scale)


def I(L: Any, values: Any) -> Any:  # noqa: E743
    return L.tensor(values, dtype=L.int64)


# name -> (inputs that get gradients, fn(L, *inputs, reduction))
CASES: dict[str, tuple[Callable[[Any], list[Any]], Callable[..., Any]]] = {
    "soft_margin": (lambda L: [X(L, 3, 4)], lambda L, x, r: L.nn.functional.soft_margin_loss(
        x, X(L, 3, 4).sign(), reduction=r)),
    "multilabel_soft_margin": (lambda L: [X(L, 3, 4)], lambda L, x, r: L.nn.functional.multilabel_soft_margin_loss(
        x, (X(L, 3, 4) > 0).double(), reduction=r)),
    "multilabel_soft_margin-weight": (lambda L: [X(L, 3, 4), X(L, 4).exp()],
                                      lambda L, x, w, r: L.nn.functional.multilabel_soft_margin_loss(
                                          x, (X(L, 3, 4) > 0).double(), weight=w, reduction=r)),
    "multi_margin": (lambda L: [X(L, 3, 5)], lambda L, x, r: L.nn.functional.multi_margin_loss(
        x, I(L, [1, 0, 4]), reduction=r)),
    "multi_margin-p2-weight": (lambda L: [X(L, 3, 5)], lambda L, x, r:
                               L.nn.functional.multi_margin_loss(x, I(L, [1, 0, 4]), p=2, margin=0.7,
                                                                 weight=X(L, 5).exp(), reduction=r)),
    "multi_margin-1d": (lambda L: [X(L, 5)], lambda L, x, r: L.nn.functional.multi_margin_loss(
        x, I(L, [2]), reduction=r)),
    "multilabel_margin": (lambda L: [X(L, 3, 4)], lambda L, x, r: L.nn.functional.multilabel_margin_loss(
        x, I(L, [[3, 0, -1, 1], [1, 2, 3, 0], [-1, 1, 1, 1]]), reduction=r)),
    "multilabel_margin-1d": (lambda L: [X(L, 4)], lambda L, x, r: L.nn.functional.multilabel_margin_loss(
        x, I(L, [3, 0, -1, 1]), reduction=r)),
    "gaussian_nll": (lambda L: [X(L, 3, 4), X(L, 3, 4).cos(), X(L, 3, 4).exp()],
                     lambda L, x, t, v, r: L.nn.functional.gaussian_nll_loss(x, t, v, reduction=r)),
    "gaussian_nll-homoscedastic-full": (lambda L: [X(L, 3, 4), X(L, 3).exp()],
                                        lambda L, x, v, r: L.nn.functional.gaussian_nll_loss(
                                            x, X(L, 3, 4).cos(), v, full=True, reduction=r)),
    "gaussian_nll-broadcast-eps": (lambda L: [X(L, 3, 4), X(L, 3, 1).abs() * 1e-3],
                                   lambda L, x, v, r: L.nn.functional.gaussian_nll_loss(
                                       x, X(L, 3, 4).cos(), v, eps=1e-2, reduction=r)),
    "gaussian_nll-float-var": (lambda L: [X(L, 3, 4)], lambda L, x, r: L.nn.functional.gaussian_nll_loss(
        x, X(L, 3, 4).cos(), 0.5, reduction=r)),
    "triplet_distance": (lambda L: [X(L, 3, 4), X(L, 3, 4).cos(), X(L, 3, 4).sin()],
                         lambda L, a, p, n, r: L.nn.functional.triplet_margin_with_distance_loss(
                             a, p, n, reduction=r)),
    "triplet_distance-fn-swap": (lambda L: [X(L, 3, 4), X(L, 3, 4).cos(), X(L, 3, 4).sin()],
                                 lambda L, a, p, n, r: L.nn.functional.triplet_margin_with_distance_loss(
                                     a, p, n, distance_function=lambda u, w: 1 - L.nn.functional.cosine_similarity(
                                         u, w), margin=0.5, swap=True, reduction=r)),
}


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_values_and_grads(case: str, reduction: str) -> None:
    build, fn = CASES[case]
    results = []
    for L in (torch, ember):
        inputs = [x.detach().clone().requires_grad_() for x in build(L)]
        out = fn(L, *inputs, reduction)
        w = ((L.arange(out.numel(), dtype=L.float64) + 1).cos() + 1.5).reshape(out.shape)
        (out * w).sum().backward()
        results.append((out, [x.grad for x in inputs]))
    (t_out, t_grads), (e_out, e_grads) = results
    assert str(e_out.dtype) == str(t_out.dtype) and tuple(e_out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    for e, t in zip(e_grads, t_grads):
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-9, atol=1e-12)


# the variance clamped to eps passes its gradient through unchanged (torch's rule), so it is not the
# derivative of the value there
NOT_THE_DERIVATIVE = {"gaussian_nll-broadcast-eps"}


@pytest.mark.parametrize("case", sorted(set(CASES) - NOT_THE_DERIVATIVE))
def test_gradcheck(case: str) -> None:
    build, fn = CASES[case]
    inputs = [x.detach().clone().requires_grad_() for x in build(ember)]
    assert ember.autograd.gradcheck(lambda *a: fn(ember, *a, "sum"), inputs)


def test_float32() -> None:
    for L in (torch, ember):
        out = L.nn.functional.multi_margin_loss(X(L, 3, 5).float(), I(L, [1, 0, 4]))
        assert str(out.dtype) == "torch.float32"


ERRORS: dict[str, Callable[[Any], Any]] = {
    "multi_margin-weight-grad": lambda L: L.nn.functional.multi_margin_loss(X(L, 3, 5), I(L, [1, 0, 4]),
                                                                            weight=X(L, 5).requires_grad_()),
    "multi_margin-p3": lambda L: L.nn.functional.multi_margin_loss(X(L, 3, 5), I(L, [1, 0, 4]), p=3),
    "multi_margin-reduction": lambda L: L.nn.functional.multi_margin_loss(X(L, 3, 5), I(L, [1, 0, 4]),
                                                                          reduction="avg"),
    "multi_margin-3d": lambda L: L.nn.functional.multi_margin_loss(X(L, 2, 3, 5), I(L, [1, 0])),
    "multi_margin-target-range": lambda L: L.nn.functional.multi_margin_loss(X(L, 3, 5), I(L, [1, 0, 5])),
    "multi_margin-target-size": lambda L: L.nn.functional.multi_margin_loss(X(L, 3, 5), I(L, [1, 0])),
    "multilabel_margin-size": lambda L: L.nn.functional.multilabel_margin_loss(X(L, 3, 4), I(L, [[1, 2, 3]])),
    "multilabel_margin-range": lambda L: L.nn.functional.multilabel_margin_loss(X(L, 1, 4), I(L, [[1, 7, -1, 0]])),
    "multilabel_margin-int-range": lambda L: L.nn.functional.multilabel_margin_loss(I(L, 5), I(L, 7), reduction="none"),
    "multilabel_margin-range-past-end": lambda L: L.nn.functional.multilabel_margin_loss(X(L, 1, 4),
                                                                                         I(L, [[1, -1, -5, 0]])),
    "gaussian_nll-int-var": lambda L: L.nn.functional.gaussian_nll_loss(X(L, 3, 4).float(), X(L, 3, 4).float(),
                                                                        I(L, [[1, 2, 3, 4]] * 3)),
    "affine_grid-align-int": lambda L: L.nn.functional.affine_grid(X(L, 2, 2, 3), [2, 1, 3, 4], align_corners=2),
    "affine_grid-align-zero": lambda L: L.nn.functional.affine_grid(X(L, 2, 2, 3), [2, 1, 3, 4], align_corners=0),
    "soft_margin-reduction": lambda L: L.nn.functional.soft_margin_loss(X(L, 3), X(L, 3), reduction="x"),
    "gaussian_nll-negative-var": lambda L: L.nn.functional.gaussian_nll_loss(X(L, 3), X(L, 3), -X(L, 3).abs()),
    "gaussian_nll-var-size": lambda L: L.nn.functional.gaussian_nll_loss(X(L, 3, 4), X(L, 3, 4), X(L, 2, 2).abs()),
    "gaussian_nll-reduction": lambda L: L.nn.functional.gaussian_nll_loss(X(L, 3), X(L, 3), X(L, 3).abs(),
                                                                          reduction="avg"),
    "triplet_distance-margin": lambda L: L.nn.functional.triplet_margin_with_distance_loss(
        X(L, 3, 4), X(L, 3, 4), X(L, 3, 4), margin=0.0),
    "triplet_distance-dims": lambda L: L.nn.functional.triplet_margin_with_distance_loss(
        X(L, 3, 4), X(L, 4), X(L, 3, 4)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    with pytest.raises(Exception) as t_info:
        ERRORS[case](torch)
    with pytest.raises(Exception) as e_info:
        ERRORS[case](ember)
    assert type(e_info.value).__name__ == type(t_info.value).__name__, (t_info.value, e_info.value)


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("size", [(2, 1, 3, 4), (2, 1, 1, 5), (2, 3, 2, 3, 4)])
def test_affine_grid(size: tuple, align: bool) -> None:
    grads = []
    for L in (torch, ember):
        theta = X(L, size[0], len(size) - 2, len(size) - 1).requires_grad_()
        grid = L.nn.functional.affine_grid(theta, size, align_corners=align)
        (grid * grid).sum().backward()
        grads.append((grid.detach(), theta.grad))
    (tg, tgrad), (eg, egrad) = grads
    assert tuple(eg.shape) == tuple(tg.shape)
    np.testing.assert_allclose(eg.numpy(), tg.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(egrad.numpy(), tgrad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("args", [((2, 3, 3), (2, 1, 3, 4)), ((2, 2, 3), (2, 1, 3)), ((2, 2, 3), (2, 1, 0, 4)),
                                  ((1, 2, 3), (2, 1, 3, 4))])
def test_affine_grid_errors(args: tuple) -> None:
    shape, size = args
    with pytest.raises(Exception) as t_info:
        torch.nn.functional.affine_grid(X(torch, *shape), size, align_corners=False)
    with pytest.raises(Exception) as e_info:
        ember.nn.functional.affine_grid(X(ember, *shape), size, align_corners=False)
    assert type(e_info.value) is type(t_info.value) or type(e_info.value).__name__ == type(t_info.value).__name__


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32"), ("float16", "float16")])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_soft_margin_loss_steps_in_input_dtype(dtypes: tuple, reduction: str) -> None:
    # aten stores each step in input's dtype (no softplus threshold): a huge margin gives inf
    def run(L: Any) -> Any:
        x = (L.arange(12.0).reshape(3, 4) * 9 - 50).to(getattr(L, dtypes[0]))
        y = ((L.arange(12.0).reshape(3, 4) % 5 - 2) * 0.625 + 0.1).to(getattr(L, dtypes[1]))
        return L.nn.functional.soft_margin_loss(x, y, reduction=reduction)

    t, e = run(torch), run(ember)
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    tol = 1e-3 if dtypes[0] == "float16" else 1e-6  # the last bit of exp / log1p may differ
    got, want = e.float().flatten().tolist(), t.float().flatten().tolist()
    assert all(a == b or math.isclose(a, b, rel_tol=tol) for a, b in zip(got, want, strict=True)), (got, want)
