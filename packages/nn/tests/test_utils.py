"""nn.utils: gradient clipping against torch."""

from __future__ import annotations

from typing import Any

import ember
import ember.nn as nn
import numpy as np
import pytest
from _nn_testutil import close
from ember.nn.utils import clip_grad_norm_, clip_grad_value_

GRADS = [np.array([3.0, -4.0], dtype="float32"), np.array([[1.0, 2.0], [-0.5, 12.0]], dtype="float32")]


def _with_grads(lib: Any) -> list[Any]:
    out = []
    for g in GRADS:
        p = (nn.Parameter if lib is ember else lib.nn.Parameter)(lib.zeros(*g.shape))
        p.grad = lib.from_numpy(g.copy())
        out.append(p)
    return out


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 3.0])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(torch: Any, norm_type: float, max_norm: float) -> None:
    pe, pt = _with_grads(ember), _with_grads(torch)
    ne = clip_grad_norm_(pe, max_norm, norm_type)
    nt = torch.nn.utils.clip_grad_norm_(pt, max_norm, norm_type)
    close(ne, nt, atol=1e-5)
    assert ne.dim() == 0
    for a, b in zip(pe, pt, strict=False):
        close(a.grad, b.grad, atol=1e-6)


def test_clip_grad_norm_single_tensor_missing_grad_and_nonfinite() -> None:
    p = nn.Parameter(ember.zeros(2))
    p.grad = ember.tensor([3.0, 4.0])
    q = nn.Parameter(ember.zeros(1))
    assert clip_grad_norm_([p, q], 1.0).item() == pytest.approx(5.0)
    close(p.grad, ember.tensor([0.6, 0.8]), atol=1e-6)
    p.grad = ember.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        clip_grad_norm_(p, 1.0, error_if_nonfinite=True)


def test_clip_grad_value(torch: Any) -> None:
    pe, pt = _with_grads(ember), _with_grads(torch)
    assert clip_grad_value_(pe, 2.5) is None
    torch.nn.utils.clip_grad_value_(pt, 2.5)
    for a, b in zip(pe, pt, strict=False):
        close(a.grad, b.grad)


def test_parameters_vector_roundtrip(torch: Any) -> None:
    from ember.nn.utils import parameters_to_vector, vector_to_parameters

    m = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    t = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Linear(2, 1))
    m.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy()) for k, v in t.state_dict().items()})
    ve, vt = parameters_to_vector(m.parameters()), torch.nn.utils.parameters_to_vector(t.parameters())
    close(ve, vt)
    (ve * ve).sum().backward()
    (vt * vt).sum().backward()
    close(m[0].weight.grad, t[0].weight.grad)
    w = m[0].weight
    vector_to_parameters(ember.arange(11).float(), m.parameters())
    assert m[0].weight is w and m[1].bias.tolist() == [10.0] and m[0].weight.tolist()[1] == [3.0, 4.0, 5.0]
    with pytest.raises(TypeError, match="expected torch.Tensor"):
        vector_to_parameters([1.0], m.parameters())
