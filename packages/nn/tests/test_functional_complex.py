"""nn.functional on complex inputs where aten takes them: F.unfold / F.fold (im2col / col2im) and
F.rms_norm, values and gradients against PyTorch."""

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


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_rms_norm_of_complex_matches_torch(dtype: str) -> None:
    # aten's composite rms_norm squares with pow(2) (not |x|^2), and takes finfo(dtype).eps
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((4, 6)) + 1j * rng.standard_normal((4, 6))).astype(dtype)
    outs = []
    for L in (torch, ember):
        x = L.from_numpy(a.copy()).requires_grad_()
        y = L.nn.functional.rms_norm(x, (6,))
        (y.abs() ** 2).sum().backward()
        outs.append([y.detach().numpy(), x.grad.numpy()])
    tol = 1e-5 if dtype == "complex64" else 1e-12
    for t, e in zip(*outs, strict=True):
        assert e.dtype == t.dtype
        np.testing.assert_allclose(e, t, rtol=tol, atol=tol)
