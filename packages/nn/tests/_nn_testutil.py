"""Helpers to move data between ember and torch in the tests."""

from __future__ import annotations

from typing import Any

import ember
import numpy as np


def to_np(t: Any) -> np.ndarray:
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def pair(torch: Any, data: Any, requires_grad: bool = False, dtype: str = "float32") -> tuple[Any, Any]:
    """The same array as an ember tensor and a torch tensor."""
    a = np.asarray(data, dtype=dtype)
    e = ember.tensor(a.tolist(), dtype=getattr(ember, dtype), requires_grad=requires_grad)
    t = torch.tensor(a, requires_grad=requires_grad)
    return e, t


def copy_params(src_torch: Any, dst_ember: Any) -> None:
    """Copy every parameter and buffer of a torch module into the same-named ember one."""
    sd = {k: ember.from_numpy(v.detach().numpy().copy()) for k, v in src_torch.state_dict().items()}
    dst_ember.load_state_dict(sd)


def close(a: Any, b: Any, atol: float = 1e-6, rtol: float = 1e-5) -> None:
    np.testing.assert_allclose(to_np(a), to_np(b), atol=atol, rtol=rtol)


def same_error(fe: Any, ft: Any) -> None:
    """fe (ember) raises what ft (torch) raises: the same exception type and message."""
    import pytest

    with pytest.raises(Exception) as et:
        ft()
    with pytest.raises(type(et.value)) as ee:
        fe()
    assert str(ee.value) == str(et.value)


def ember_of(t: Any) -> Any:
    """A torch tensor's values and dtype in ember (bfloat16, which numpy lacks, through float32: exact)."""
    if str(t.dtype) == "torch.bfloat16":
        return ember.from_numpy(t.detach().float().numpy().copy()).bfloat16()
    return ember.from_numpy(t.detach().numpy().copy())


def float64_of(torch: Any, e: Any) -> Any:
    """An ember tensor's values as a torch float64 tensor (exact for every float dtype)."""
    return torch.from_numpy(np.asarray(e.detach().double().numpy()))
