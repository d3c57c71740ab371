"""ember.cuda's streams, events and pinned memory without a GPU: the names exist and a build
without CUDA (or a machine without a GPU) answers as PyTorch's CPU build does. The GPU behaviour
is test_cuda_streams.py's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
import pytest

NO_GPU = not ember.cuda.is_available()
needs_no_gpu = pytest.mark.skipif(not NO_GPU, reason="checks the behaviour without a GPU")

# Calls whose error (type and message) matches PyTorch's CPU build where ember has no CUDA.
CASES: dict[str, Callable[[Any], Any]] = {
    "stream": lambda m: m.cuda.Stream(),
    "event": lambda m: m.cuda.Event(),
    "current-stream": lambda m: m.cuda.current_stream(),
    "default-stream": lambda m: m.cuda.default_stream(),
    "pin-memory": lambda m: m.ones(2).pin_memory(),
    "pin-memory-cpu": lambda m: m.ones(2).pin_memory("cpu"),
    "factory-pin-memory": lambda m: m.empty(3, pin_memory=True),
    "like-pin-memory": lambda m: m.zeros_like(m.ones(2), pin_memory=True),
    "like-pin-memory-false": lambda m: m.empty_like(m.ones(2), pin_memory=False).shape,
    "full-like-pin-memory": lambda m: m.full_like(m.ones(2), 3.0, pin_memory=True),
}


def outcome(fn: Callable[[], Any]) -> tuple[str, str]:
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - the exception itself is compared
        # by its builtin type: ember's CudaNotCompiledError is an AssertionError, as torch raises
        return next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins"), str(e)
    return "ok", repr(r)


@needs_no_gpu
@pytest.mark.parametrize("name", list(CASES))
def test_without_cuda_as_pytorch_cpu(name: str) -> None:
    torch = pytest.importorskip("torch")
    from ember._lib import _C

    if _C._cuda_is_compiled():
        pytest.skip("a CUDA build without a GPU raises the driver's error instead")
    assert outcome(lambda: CASES[name](ember)) == outcome(lambda: CASES[name](torch))


def test_names_exist() -> None:
    for name in ("Stream", "ExternalStream", "Event", "StreamContext", "current_stream", "default_stream",
                 "set_stream", "stream", "OutOfMemoryError", "mem_get_info"):
        assert hasattr(ember.cuda, name), name
    assert ember.cuda.OutOfMemoryError is ember.OutOfMemoryError
    assert issubclass(ember.cuda.OutOfMemoryError, RuntimeError)


@needs_no_gpu
def test_null_stream_context_and_set_stream_do_nothing() -> None:
    with ember.cuda.stream(None) as s:
        assert s is None
    assert ember.cuda.set_stream(None) is None


def test_cpu_tensors_are_not_pinned_and_copy_without_blocking() -> None:
    x = ember.arange(6.0)
    assert not x.is_pinned()
    y = x.to("cpu", non_blocking=True)
    assert y is x  # same device: nothing moves
    z = x.to(ember.float32, False, True)  # positional non_blocking, copy
    assert z is not x and z.equal(x)
    assert x.to(ember.float32, True) is x  # positional non_blocking only: no copy


def test_record_stream_needs_a_cuda_tensor() -> None:
    with pytest.raises(NotImplementedError, match="record_stream"):
        ember.ones(2).record_stream(ember.Stream("cpu"))
