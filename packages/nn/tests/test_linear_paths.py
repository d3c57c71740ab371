"""F.linear takes aten's paths: its fused batch path (a view of one addmm, for a contiguous input and
a bias of at least one dim) or the matmul path (a tensor of its own, the bias added in place). Which
one decides whether the result is a view, its grad_fn and the errors, so each form is compared with
PyTorch 2.13: view or not, version counter, values and gradients."""

from __future__ import annotations

from typing import Any

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")

# (input shape, transposed input?, weight shape, bias shape or None)
FORMS = [
    ((2, 3, 4), False, (5, 4), (5,)), ((2, 3, 4), False, (5, 4), None), ((3, 2, 4), True, (5, 4), (5,)),
    ((3, 2, 4), True, (5, 4), None), ((2, 2, 3, 4), False, (5, 4), (5,)), ((2, 2, 3, 4), True, (5, 4), (5,)),
    ((2, 3, 4), False, (5, 4), ()), ((2, 3, 4), False, (5, 4), (1, 5)), ((4,), False, (5, 4), (5,)),
    ((4,), False, (5, 4), ()), ((4,), False, (5, 4), None), ((3, 4), False, (5, 4), None),
    ((2, 3, 4), False, (4,), ()), ((2, 3, 4), False, (4,), None), ((2, 3, 4), False, (4,), (1,)),
    ((0, 3, 4), False, (5, 4), (5,)), ((2, 0, 4), False, (5, 4), None),
]


def _run(lib: Any, form: tuple) -> tuple:
    shape, transposed, wshape, bshape = form
    rng = np.random.default_rng(len(shape) * 10 + len(wshape))
    x = lib.tensor(rng.standard_normal(shape).tolist(), dtype=lib.float64)
    if transposed:
        x = x.transpose(0, 1)
    w = lib.tensor(rng.standard_normal(wshape).tolist(), dtype=lib.float64, requires_grad=True)
    b = None if bshape is None else lib.tensor(rng.standard_normal(bshape).tolist(), dtype=lib.float64,
                                                requires_grad=True)
    try:
        y = lib.nn.functional.linear(x, w, b)
    except RuntimeError as e:
        return ("RuntimeError", str(e))
    y.sum().backward()
    grads = [w.grad.tolist()] + ([] if b is None else [b.grad.tolist()])
    return y._base is not None, y._version, tuple(y.shape), np.asarray(y.tolist()), grads


@pytest.mark.parametrize("form", FORMS, ids=str)
def test_linear_path_matches_torch(form: tuple) -> None:
    e, t = _run(ember, form), _run(torch, form)
    if t[0] == "RuntimeError":
        assert e == t
        return
    assert e[0] == t[0] and e[2] == t[2]  # a view or not, the shape
    if len(form[0]) > 1:  # the version counter shows the in-place bias (a 1-D input's also aten's squeeze_)
        assert e[1] == t[1]
    np.testing.assert_allclose(e[3], t[3], rtol=1e-12, atol=1e-12)
    for ge, gt in zip(e[4], t[4], strict=True):
        np.testing.assert_allclose(np.asarray(ge), np.asarray(gt), rtol=1e-12, atol=1e-12)


def test_kron_is_a_tensor_of_its_own() -> None:
    for lib in (ember, torch):
        a = lib.ones(2, 3, requires_grad=True)
        y = lib.kron(a, lib.ones(2, 2))
        assert y._base is None and not y._is_view()
        assert type(y.grad_fn).__name__ == "UnsafeViewBackward0"
        y.sum().backward()
        assert a.grad.tolist() == [[4.0] * 3] * 2
