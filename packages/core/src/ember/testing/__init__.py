"""``ember.testing``: ``assert_close`` and ``make_tensor`` (as ``torch.testing``)."""

from __future__ import annotations

import warnings
from typing import Any

from ember.testing._comparison import assert_close
from ember.testing._creation import make_tensor

__all__ = ["assert_close", "make_tensor", "assert_allclose"]


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None, atol: float | None = None,
                    equal_nan: bool = True, msg: str = "") -> None:
    """Deprecated (as in PyTorch): ``assert_close`` with NumPy-like inputs and no dtype check."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    import ember

    if not isinstance(actual, ember.Tensor):
        actual = ember.tensor(actual)
    if not isinstance(expected, ember.Tensor):
        expected = ember.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:  # this function's own (older) table, by the wider dtype
        table = {ember.float16: (1e-3, 1e-3), ember.float32: (1e-4, 1e-5), ember.float64: (1e-5, 1e-8)}
        rtol, atol = table.get(ember.promote_types(actual.dtype, expected.dtype), (0.0, 0.0))
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
