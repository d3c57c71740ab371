"""PyTorch's autograd refuses complex results of ops whose derivative it has not enabled for
complex ("<op> does not support automatic differentiation for outputs with complex dtype."):
ember raises the same where the forward succeeds and a gradient would be recorded, and only then
(no grad mode, no input requiring grad, or a real result: the op runs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")

CASES: dict[str, Callable[[Any, Any], Any]] = {
    "scatter_reduce": lambda L, x: L.zeros(2, dtype=x.dtype).scatter_reduce(0, L.tensor([0, 1, 0, 1]), x, "sum"),
    "scatter_reduce_": lambda L, x: L.zeros(2, dtype=x.dtype).scatter_reduce_(0, L.tensor([0, 1, 0, 1]), x, "sum"),
    "embedding": lambda L, x: L.nn.functional.embedding(L.tensor([0, 1]), x.reshape(2, 2)),
    "softmax of an empty tensor": lambda L, x: L.softmax(x[:0], 0),
    "log_softmax of an empty tensor": lambda L, x: L.log_softmax(x[:0], 0),
    "adaptive_avg_pool2d": lambda L, x: L.nn.functional.adaptive_avg_pool2d(x.reshape(1, 2, 2), (2, 1)),
    "adaptive_avg_pool2d to 1x1 (a mean)": lambda L, x: L.nn.functional.adaptive_avg_pool2d(x.reshape(1, 2, 2), 1),
    "silu": lambda L, x: L.nn.functional.silu(x),
    "bilinear": lambda L, x: L.nn.functional.bilinear(x.reshape(2, 2), x.reshape(2, 2), x.reshape(1, 2, 2)),
    "native_dropout p=1": lambda L, x: L.native_dropout(x, 1.0, True),
}


def outcome(L: Any, case: str, requires_grad: bool, grad_mode: bool) -> str:
    x = L.tensor([1 + 2j, -0.5j, 3.0, 0.25 + 0.25j], dtype=L.complex64).requires_grad_(requires_grad)
    try:
        with L.set_grad_enabled(grad_mode):
            CASES[case](L, x if requires_grad else x.detach())
    except RuntimeError as e:
        return str(e)
    return "ok"


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize(("requires_grad", "grad_mode"), [(True, True), (False, True), (True, False)])
def test_refusals_match_torch(case: str, requires_grad: bool, grad_mode: bool) -> None:
    if case == "scatter_reduce_" and requires_grad and grad_mode:
        pytest.skip("an in-place op on a leaf requiring grad is refused first (both libraries)")
    assert outcome(ember, case, requires_grad, grad_mode) == outcome(torch, case, requires_grad, grad_mode)


def test_a_real_result_of_the_same_op_differentiates() -> None:
    x = ember.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    ember.zeros(2).scatter_reduce(0, ember.tensor([0, 1, 0, 1]), x, "sum").sum().backward()
    assert x.grad is not None and x.grad.tolist() == [1.0, 1.0, 1.0, 1.0]


def test_complex_dropout_as_torch() -> None:
    # the fused native_dropout takes complex (one draw per element); F.dropout's bernoulli_ noise does not
    x = ember.tensor([1 + 2j, -0.5j, 3.0, 0.25 + 0.25j], dtype=ember.complex64)
    out, mask = ember.native_dropout(x, 0.5, True)
    assert out.dtype == ember.complex64 and mask.dtype == ember.bool
    assert ((out == 0) == ~mask).all() and (out[mask] == 2 * x[mask]).all()
    for L in (ember, torch):
        with pytest.raises(NotImplementedError, match="\"bernoulli_scalar_cpu_\" not implemented for 'ComplexFloat'"):
            L.nn.functional.dropout(L.ones(3, dtype=L.complex64), 0.5)
