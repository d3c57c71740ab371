"""ember.accelerator, the device-generic facade: on a build without CUDA every call answers or raises
as CPU-only PyTorch's torch.accelerator; on a GPU (or the emulator) it acts on ember.cuda."""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import ember
import pytest

NAMES = ["current_accelerator", "current_device_idx", "current_device_index", "current_stream", "device_count",
         "empty_cache", "empty_host_cache", "get_device_capability", "get_memory_info", "is_available",
         "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
         "reset_accumulated_memory_stats", "reset_peak_memory_stats", "synchronize"]


def _outcome(fn: Any) -> tuple[Any, ...]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result: tuple[Any, ...] = ("ok", fn())
        except Exception as e:  # noqa: BLE001 - the type and text are compared
            result = (type(e).__name__, str(e))
    return result + tuple((w.category.__name__, str(w.message)) for w in caught)


@pytest.mark.skipif(ember._lib._C._cuda_is_compiled(), reason="a build without CUDA's answers")
@pytest.mark.parametrize("name", NAMES)
def test_without_an_accelerator_as_torch(name: str) -> None:
    torch = pytest.importorskip("torch")
    if torch.accelerator.current_accelerator() is not None:
        pytest.skip("needs PyTorch's CPU build as the oracle")
    mine, theirs = getattr(ember.accelerator, name), getattr(torch.accelerator, name)
    assert list(inspect.signature(mine).parameters) == list(inspect.signature(theirs).parameters)
    assert _outcome(mine) == _outcome(theirs)


def test_without_an_accelerator_device_index_is_a_no_op_for_none() -> None:
    with ember.accelerator.device_index(None):
        pass
    if not ember._lib._C._cuda_is_compiled():
        with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
            ember.accelerator.set_device_index(0)


@pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")
def test_on_the_device() -> None:
    acc = ember.accelerator
    assert acc.current_accelerator() == ember.device("cuda") and acc.is_available()
    assert acc.device_count() == ember.cuda.device_count() and acc.current_device_index() == 0
    x = ember.ones(1 << 20, device="cuda")
    acc.synchronize()
    assert acc.memory_allocated() == ember.cuda.memory_allocated() >= 4 << 20
    assert acc.memory_stats(0)["allocated_bytes.all.current"] == acc.memory_allocated("cuda:0")
    free, total = acc.get_memory_info()
    assert 0 < free <= total
    assert ember.float16 in acc.get_device_capability()["supported_dtypes"]
    assert acc.current_stream() == ember.cuda.current_stream()
    if acc.device_count() > 1:
        with acc.device_index(1):
            assert acc.current_device_index() == 1
        assert acc.current_device_index() == 0
    with pytest.raises(ValueError, match="doesn't match the current accelerator"):
        acc.memory_allocated("cpu")
    del x
    acc.empty_cache()
