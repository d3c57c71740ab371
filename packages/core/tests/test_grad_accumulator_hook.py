"""The grad-accumulator idiom (older DDP / Horovod / apex): ``p.expand_as(p).grad_fn.next_functions[0][0]``
is the leaf's AccumulateGrad; its ``variable`` is the leaf and hooks on it run once the gradient
is accumulated (other nodes have no ``variable``). And the ``_C`` helpers library code calls."""

from __future__ import annotations

from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")


def _run(L: Any) -> tuple:
    p = L.ones(3, requires_grad=True)
    acc = p.expand_as(p).grad_fn.next_functions[0][0]
    seen: list[Any] = []
    acc.register_hook(lambda grad_inputs, grad_outputs: seen.append(p.grad.tolist()))
    (p * 2).sum().backward()
    mul = (p * 2).grad_fn
    return type(acc).__name__, acc.variable is p, hasattr(mul, "variable"), seen


def test_accumulate_grad_variable_and_hook() -> None:
    assert _run(ember) == _run(torch)


def test_c_module_helpers_library_code_calls() -> None:
    # transformers / timm call these at import or in forward
    for L in (ember, torch):
        assert L._C._get_tracing_state() is None
        assert L._C._log_api_usage_once("ember.test") is None
