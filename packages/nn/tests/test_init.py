"""nn.init: gains, fans, and (with the same seeded generator) the same samples as torch."""

from __future__ import annotations

import math
from typing import Any

import ember
import ember.nn as nn
import ember.nn.init as init
import pytest
from _nn_testutil import close


def test_calculate_gain(torch: Any) -> None:
    for name, param in [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
                        ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None)]:
        assert init.calculate_gain(name, param) == torch.nn.init.calculate_gain(name, param)
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        init.calculate_gain("foo")


@pytest.mark.parametrize("fn,kwargs", [
    ("uniform_", {"a": -2.0, "b": 3.0}), ("normal_", {"mean": 1.0, "std": 0.5}),
    ("xavier_uniform_", {"gain": 2.0}), ("xavier_normal_", {}),
    ("kaiming_uniform_", {"a": math.sqrt(5)}), ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}),
    ("kaiming_normal_", {}), ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "tanh"}),
    ("trunc_normal_", {"std": 2.0}), ("trunc_normal_", {"mean": 0.5, "a": 1.0, "b": 1.5}),
])
def test_samplers_match_torch_stream(torch: Any, fn: str, kwargs: dict[str, Any]) -> None:
    ge, gt = ember.Generator().manual_seed(7), torch.Generator().manual_seed(7)
    we = getattr(init, fn)(ember.empty(6, 5, 3), generator=ge, **kwargs)
    wt = getattr(torch.nn.init, fn)(torch.empty(6, 5, 3), generator=gt, **kwargs)
    close(we, wt, atol=1e-5)


def test_deterministic_inits(torch: Any) -> None:
    close(init.constant_(ember.empty(2, 3), 0.3), torch.full((2, 3), 0.3))
    close(init.ones_(ember.empty(2)), torch.ones(2))
    close(init.zeros_(ember.ones(2)), torch.zeros(2))
    close(init.eye_(ember.empty(3, 4)), torch.nn.init.eye_(torch.empty(3, 4)))
    for shape, groups in [((4, 2, 3), 1), ((4, 2, 3, 3), 2), ((2, 3, 1, 3, 3), 1)]:
        close(init.dirac_(ember.empty(*shape), groups), torch.nn.init.dirac_(torch.empty(*shape), groups))


def test_sparse_matches_torch(torch: Any) -> None:
    ember.manual_seed(3)
    torch.manual_seed(3)
    close(init.sparse_(ember.empty(6, 4), 0.5), torch.nn.init.sparse_(torch.empty(6, 4), 0.5))


def test_errors_and_no_grad() -> None:
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed for tensor with fewer than 2"):
        init.xavier_uniform_(ember.empty(3))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(ember.empty(2, 2), mode="fan_avg")
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(ember.empty(2, 2, 2))
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(ember.empty(0, 3))
    p = nn.Parameter(ember.empty(3, 3))
    assert init.normal_(p) is p and p.grad_fn is None and p.requires_grad
