"""F.unfold / F.fold (aten's im2col / col2im) on complex inputs, as PyTorch: values and gradients."""

from __future__ import annotations

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_unfold_fold_and_gradient_match_torch(dtype: str) -> None:
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((2, 3, 5, 6)) + 1j * rng.standard_normal((2, 3, 5, 6))).astype(dtype)
    outs = []
    for L in (torch, ember):
        x = L.from_numpy(a.copy()).requires_grad_()
        cols = L.nn.functional.unfold(x, (2, 3), dilation=1, padding=1, stride=(1, 2))
        back = L.nn.functional.fold(cols, (5, 6), (2, 3), padding=1, stride=(1, 2))
        (back.abs() ** 2).sum().backward()
        outs.append([cols.detach().numpy(), back.detach().numpy(), x.grad.numpy()])
    tol = 1e-5 if dtype == "complex64" else 1e-12
    for t, e in zip(*outs, strict=True):
        assert e.dtype == t.dtype
        np.testing.assert_allclose(e, t, rtol=tol, atol=tol)
