"""same: an ember result equals torch's (dtype, shape, values with NaNs where torch has them), for
the complex tests that compare results one by one (loaded with `from sibling import load`)."""

from __future__ import annotations

from typing import Any

import torch


def same(e: Any, t: Any, rtol: float | None = None, atol: float | None = None, *, single_tol: float = 1e-4) -> None:
    """e (ember) matches t (torch); without rtol/atol, torch's default tolerances for double types
    and single_tol (relative and absolute) for complex64 / float32."""
    assert str(e.dtype) == str(t.dtype), (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    got = torch.from_numpy(e.detach().resolve_conj().numpy().copy())
    tol = {} if rtol is None else {"rtol": rtol, "atol": atol}
    if t.dtype in (torch.complex64, torch.float32) and rtol is None:
        tol = {"rtol": single_tol, "atol": single_tol}
    torch.testing.assert_close(got, t.detach().resolve_conj(), equal_nan=True, **tol)
