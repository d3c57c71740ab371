"""as_tensor of a NumPy scalar (np.float32(2.5) ...) is a 0-d tensor of its dtype, as in PyTorch;
a NumPy array still shares its memory."""

from __future__ import annotations

from typing import Any

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")

VALUES = [np.float32(2.5), np.float16(1.5), np.int16(3), np.uint8(7), np.bool_(True), np.float64(1.25),
          np.complex64(1 + 2j), np.array(2.0, dtype=np.float32)]


@pytest.mark.parametrize("value", VALUES, ids=[f"{type(v).__name__}" for v in VALUES])
def test_as_tensor_numpy_scalar(value: Any) -> None:
    a, b = ember.as_tensor(value), torch.as_tensor(value)
    assert (str(a.dtype), tuple(a.shape), a.item()) == (str(b.dtype), tuple(b.shape), b.item())


def test_as_tensor_array_shares_memory() -> None:
    arr = np.zeros(3, dtype=np.float32)
    ember.as_tensor(arr)[1] = 5
    assert arr[1] == 5
