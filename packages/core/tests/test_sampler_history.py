"""In-place samplers and autograd: a sampler replaces self's values without reading them, so
self's history becomes a node that sends no gradient back (named as PyTorch's, per overload), and
a leaf that requires grad is refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("call", [
    lambda x: x.uniform_(), lambda x: x.normal_(), lambda x: x.cauchy_(), lambda x: x.log_normal_(),
    lambda x: x.exponential_(), lambda x: x.geometric_(0.5), lambda x: x.random_(), lambda x: x.random_(7),
    lambda x: x.random_(2, 9), lambda x: x.bernoulli_(), lambda x: x.bernoulli_(x.detach().sigmoid()),
])
@pytest.mark.parametrize("size", [(3,), (0,)])
def test_in_place_sampler_overwrites_history(call: Callable[[Any], Any], size: tuple) -> None:
    # an in-place sampler replaces self's values: its history is a node that sends no gradient
    # back (the base gets zeros), named as PyTorch's; a leaf that requires grad is refused
    def run(m: Any) -> tuple:
        base = m.ones(size, requires_grad=True)
        x = base * 2
        call(x)
        (x.sum() + (base * 3).sum()).backward()
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            call(m.ones(size, requires_grad=True))
        return x.grad_fn.name(), base.grad.tolist()

    assert run(ember) == run(torch)
