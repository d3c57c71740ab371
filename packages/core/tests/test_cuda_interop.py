"""ember.cuda's small surface beyond tensors: the pinned allocator's statistics, raw allocations
for other libraries, CUDA error codes, the NVML queries and the CUDA-graph names (not
implemented: a clear NotImplementedError). Without CUDA each answers as CPU-only PyTorch; on a
GPU (or the emulator) the second half acts on the device."""

from __future__ import annotations

import ember
import pytest

CUDA = ember.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="needs a CUDA device (or the emulator)")


def test_flags_and_backend() -> None:
    assert ember.cuda.has_half is True and ember.cuda.has_magma is False
    assert ember.cuda.get_allocator_backend() == "native"
    assert ember.cuda.is_current_stream_capturing() is False
    assert ember.cuda.cudaStatus.SUCCESS == 0 and ember.cuda.cudaStatus.ERROR_NOT_READY == 34
    for name in ember.cuda._interop.__all__:
        assert name in ember.cuda.__all__ and getattr(ember.cuda, name) is getattr(ember.cuda._interop, name)


def test_check_error() -> None:
    ember.cuda.check_error(0)
    with pytest.raises(ember.cuda.CudaError, match=r"\(2\)$") as info:
        ember.cuda.check_error(2)
    assert isinstance(info.value, RuntimeError)
    if CUDA:  # the runtime's own text, as torch.cuda.CudaError
        assert str(info.value) == "out of memory (2)"


@pytest.mark.parametrize("name", ["CUDAGraph", "graph", "make_graphed_callables", "graph_pool_handle", "MemPool",
                                  "use_mem_pool"])
def test_graphs_not_implemented(name: str) -> None:
    with pytest.raises(NotImplementedError, match=f"ember: torch.cuda.{name} is not implemented"):
        getattr(ember.cuda, name)()


def test_caching_allocator_cannot_be_disabled() -> None:
    ember.cuda.caching_allocator_enable(True)
    with pytest.raises(NotImplementedError, match="caching_allocator_enable"):
        with ember.cuda.caching_allocator_disabled():
            pass


def test_nvml_queries_without_pynvml(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pynvml", None)  # as if nvidia-ml-py were not installed
    assert ember.cuda.list_gpu_processes() == "pynvml module not found, please install nvidia-ml-py"
    for name in ("utilization", "temperature", "power_draw", "clock_rate", "memory_usage", "device_memory_used"):
        with pytest.raises(ModuleNotFoundError, match="nvidia-ml-py does not seem to be installed"):
            getattr(ember.cuda, name)()


@pytest.mark.skipif(CUDA, reason="a build without CUDA's answers")
def test_host_stats_without_cuda() -> None:
    assert ember.cuda.host_memory_stats() == {} and ember.cuda.host_memory_stats_as_nested_dict() == {}
    ember.cuda.reset_peak_host_memory_stats()
    ember.cuda.reset_accumulated_host_memory_stats()


@needs_cuda
def test_host_memory_stats_track_pinned_blocks() -> None:
    ember.cuda.init()
    before = ember.cuda.host_memory_stats()
    keys = {f"{s}.{m}" for s in ("allocations", "allocated_bytes", "active_requests", "active_bytes")
            for m in ("current", "peak", "allocated", "freed")}
    keys |= {f"host_{k}_time.{m}" for k in ("alloc", "free") for m in ("total", "max", "min", "count", "avg")}
    assert set(before) == keys | {"num_host_alloc", "num_host_free"}
    t = ember.empty(3000, dtype=ember.uint8).pin_memory()  # rounded up to 4096 bytes
    during = ember.cuda.host_memory_stats()
    assert during["active_requests.current"] == before["active_requests.current"] + 1
    assert during["active_bytes.current"] == before["active_bytes.current"] + 4096
    assert during["allocated_bytes.current"] >= before["allocated_bytes.current"]
    nested = ember.cuda.host_memory_stats_as_nested_dict()
    assert nested["active_bytes"]["current"] == during["active_bytes.current"]
    del t
    after = ember.cuda.host_memory_stats()
    assert after["active_requests.current"] == before["active_requests.current"]
    assert after["active_bytes.peak"] >= during["active_bytes.current"]
    again = ember.empty(4000, dtype=ember.uint8).pin_memory()  # the cached 4096-byte block again
    assert ember.cuda.host_memory_stats()["num_host_alloc"] == after["num_host_alloc"]
    del again
    ember.cuda.reset_peak_host_memory_stats()
    stats = ember.cuda.host_memory_stats()
    assert stats["active_bytes.peak"] == stats["active_bytes.current"]
    ember.cuda.reset_accumulated_host_memory_stats()
    stats = ember.cuda.host_memory_stats()
    assert stats["num_host_alloc"] == 0 and stats["allocated_bytes.allocated"] == 0
    assert stats["host_alloc_time.count"] == 0


@needs_cuda
def test_raw_allocations() -> None:
    before = ember.cuda.memory_allocated()
    ptr = ember.cuda.caching_allocator_alloc(1 << 20)
    assert isinstance(ptr, int) and ptr != 0
    assert ember.cuda.memory_allocated() >= before + (1 << 20)
    ember.cuda.caching_allocator_delete(ptr)
    assert ember.cuda.memory_allocated() == before
    s = ember.cuda.Stream()
    ptr = ember.cuda.caching_allocator_alloc(512, device=0, stream=s)
    ember.cuda.caching_allocator_delete(ptr)
    with pytest.raises(RuntimeError, match="invalid device pointer"):
        ember.cuda.caching_allocator_delete(ptr)
    with pytest.raises(TypeError, match="Invalid type for stream argument"):
        ember.cuda.caching_allocator_alloc(16, stream="s")


def test_version_cuda_matches_build() -> None:
    from ember._lib import _C

    assert (ember.version.cuda is not None) == bool(_C._cuda_is_compiled())
