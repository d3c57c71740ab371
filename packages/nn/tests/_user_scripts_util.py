"""Helpers for the user-script tests: one training script runs under torch and ember alike.

Each script takes the library module (`torch` or `ember`) as `lib`, so it reads exactly like
user code written against `import torch`; data comes from numpy so both sides see the same bytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def to_np(t: Any) -> np.ndarray:
    return t.detach().cpu().float().numpy() if hasattr(t, "detach") else np.asarray(t)


def copy_state(src: Any, dst: Any, lib: Any) -> None:
    """Load src's (torch) state_dict values into dst (ember), so both start from the same weights."""
    sd = {k: lib.from_numpy(np.ascontiguousarray(v.detach().numpy()).copy()) for k, v in src.state_dict().items()}
    dst.load_state_dict(sd)


def assert_runs_match(res_e: dict[str, Any], res_t: dict[str, Any], rtol: float = 1e-4, atol: float = 1e-5) -> None:
    """Per-step losses and final named tensors of the two runs agree."""
    le, lt = np.asarray(res_e["losses"], dtype=np.float64), np.asarray(res_t["losses"], dtype=np.float64)
    assert le.shape == lt.shape
    np.testing.assert_allclose(le, lt, rtol=rtol, atol=atol, err_msg="per-step losses")
    pe, pt = res_e.get("params", {}), res_t.get("params", {})
    assert sorted(pe) == sorted(pt)
    for k in pt:
        np.testing.assert_allclose(to_np(pe[k]), to_np(pt[k]), rtol=rtol * 10, atol=atol * 10, err_msg=k)
