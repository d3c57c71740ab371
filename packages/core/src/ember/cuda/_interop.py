"""The rest of torch.cuda's small surface: raw allocations from the caching allocator for other
libraries, the allocator-backend and capture queries, CUDA error codes, and the NVML-based
device queries (``utilization``, ``temperature``, ...), which need the optional ``nvidia-ml-py``
package, as PyTorch's do. CUDA graphs and memory pools are not implemented: their names raise
``NotImplementedError`` on use."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["CUDAGraph", "CudaError", "MemPool", "caching_allocator_alloc", "caching_allocator_delete",
           "caching_allocator_disabled", "caching_allocator_enable", "check_error", "clock_rate", "cudaStatus",
           "device_memory_used", "get_allocator_backend", "graph", "graph_pool_handle", "is_current_stream_capturing",
           "list_gpu_processes", "make_graphed_callables", "memory_usage", "power_draw", "temperature", "use_mem_pool",
           "utilization"]

# Raw blocks handed out by caching_allocator_alloc: pointer -> the byte tensor that owns the memory.
_raw_blocks: dict[int, Any] = {}
_raw_lock = threading.Lock()


def _device_index(device: Any) -> int:
    """The CUDA ordinal of ``device`` (None, or a device without an index: the current one)."""
    from ember.cuda import current_device
    from ember.cuda.memory import _index

    index = -1 if device is None else _index(device)
    return index if index >= 0 else current_device()


def caching_allocator_alloc(size: int, device: Any = None, stream: Any = None) -> int:
    """Allocate ``size`` bytes from the CUDA caching allocator on ``device`` for ``stream`` (default:
    the current one) and return the pointer as an int, for interoperability with other libraries;
    give it back with :func:`caching_allocator_delete`."""
    import ember
    from ember.cuda import current_stream
    from ember.cuda import device as device_guard
    from ember.cuda import stream as stream_guard
    from ember.cuda.streams import Stream

    index = _device_index(device)
    if stream is None:
        stream = current_stream(index)
    if isinstance(stream, int):
        stream = ember.cuda.ExternalStream(stream, device=index) if stream else ember.cuda.default_stream(index)
    if not isinstance(stream, Stream):
        raise TypeError("Invalid type for stream argument, must be `torch.cuda.Stream` or `int` representing a "
                        "pointer to an existing stream")
    with device_guard(index), stream_guard(stream):
        block = ember.empty(int(size), dtype=ember.uint8, device=f"cuda:{index}")
    ptr = block.data_ptr()
    with _raw_lock:
        _raw_blocks[ptr] = block
    return ptr


def caching_allocator_delete(mem_ptr: int) -> None:
    """Give back memory from :func:`caching_allocator_alloc` to the caching allocator."""
    with _raw_lock:
        block = _raw_blocks.pop(int(mem_ptr), None)
    if block is None:
        raise RuntimeError("invalid device pointer: " + hex(int(mem_ptr)))
    del block


def caching_allocator_enable(value: bool = True) -> None:
    """Turning the caching allocator off is not supported in ember (raises NotImplementedError
    for False; True is a no-op)."""
    if not value:
        raise NotImplementedError("ember: torch.cuda.caching_allocator_enable(False) is not implemented "
                                  "(the caching allocator is always on; use empty_cache to release its blocks)")


@contextlib.contextmanager
def caching_allocator_disabled() -> Iterator[None]:
    """Not supported in ember: raises NotImplementedError (see :func:`caching_allocator_enable`)."""
    caching_allocator_enable(False)
    yield


def get_allocator_backend() -> str:
    """``"native"``: ember's own caching allocator (``cudaMallocAsync`` is not offered)."""
    return "native"


def is_current_stream_capturing() -> bool:
    """False: ember does not capture CUDA graphs."""
    return False


class cudaStatus:  # noqa: N801  (PyTorch's name)
    """The CUDA runtime status codes torch.cuda names."""

    SUCCESS: int = 0
    ERROR_NOT_READY: int = 34


class CudaError(RuntimeError):
    """A CUDA runtime error code, with the runtime's description: ``"<description> (<code>)"``."""

    def __init__(self, code: int) -> None:
        from ember._lib import _C

        super().__init__(f"{_C._cuda_error_string(int(code))} ({code})")


def check_error(res: int) -> None:
    """Raise :class:`CudaError` unless ``res`` (a CUDA runtime result code) is success."""
    if res != cudaStatus.SUCCESS:
        raise CudaError(res)


def _graphs_absent(api: str) -> NotImplementedError:
    return NotImplementedError(f"ember: torch.cuda.{api} is not implemented (ember does not capture CUDA graphs "
                               "or keep separate memory pools; run the code eagerly)")


class CUDAGraph:
    """CUDA graph capture and replay: not implemented in ember (raises NotImplementedError)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise _graphs_absent("CUDAGraph")


class graph:  # noqa: N801  (PyTorch's name)
    """Context manager capturing a CUDA graph: not implemented in ember (raises NotImplementedError)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise _graphs_absent("graph")


def make_graphed_callables(*args: Any, **kwargs: Any) -> Any:
    """Not implemented in ember (needs CUDA graphs): raises NotImplementedError."""
    raise _graphs_absent("make_graphed_callables")


def graph_pool_handle() -> Any:
    """Not implemented in ember (needs CUDA graphs): raises NotImplementedError."""
    raise _graphs_absent("graph_pool_handle")


class MemPool:
    """A separate memory pool of the caching allocator: not implemented in ember (raises
    NotImplementedError)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise _graphs_absent("MemPool")


def use_mem_pool(*args: Any, **kwargs: Any) -> Any:
    """Not implemented in ember (see :class:`MemPool`): raises NotImplementedError."""
    raise _graphs_absent("use_mem_pool")


# ---- NVML queries (nvidia-smi's numbers) through the optional nvidia-ml-py package ----------------


def _nvml_index(device: Any) -> int:
    """The NVML index of ``device``: CUDA's ordinal mapped through CUDA_VISIBLE_DEVICES."""
    idx = _device_index(device)
    var = os.getenv("CUDA_VISIBLE_DEVICES")
    visible = list(range(64))
    if var is not None:
        visible = []
        for part in var.split(","):
            part = part.strip()
            if not part.lstrip("+-").isdigit() or int(part) < 0:
                break  # CUDA stops at the first entry it cannot read
            visible.append(int(part))
    if idx < 0 or idx >= len(visible):
        raise RuntimeError(f"device {idx} is not visible (CUDA_VISIBLE_DEVICES={visible})")
    return visible[idx]


def _nvml_handle(device: Any) -> tuple[Any, Any]:
    try:
        import pynvml  # type: ignore[import-not-found]
    except ImportError as e:
        raise ModuleNotFoundError("nvidia-ml-py does not seem to be installed or it can't be imported.") from e
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_DriverNotLoaded as e:
        raise RuntimeError("cuda driver can't be loaded, is cuda enabled?") from e
    return pynvml, pynvml.nvmlDeviceGetHandleByIndex(_nvml_index(device))


def device_memory_used(device: Any = None) -> int:
    """Device memory in use, in bytes, as nvidia-smi reports it (all processes)."""
    nvml, handle = _nvml_handle(device)
    return int(nvml.nvmlDeviceGetMemoryInfo(handle).used)


def memory_usage(device: Any = None) -> int:
    """Percent of the last sample period during which device memory was read or written."""
    nvml, handle = _nvml_handle(device)
    return int(nvml.nvmlDeviceGetUtilizationRates(handle).memory)


def utilization(device: Any = None) -> int:
    """Percent of the last sample period during which a kernel ran on the GPU."""
    nvml, handle = _nvml_handle(device)
    return int(nvml.nvmlDeviceGetUtilizationRates(handle).gpu)


def temperature(device: Any = None) -> int:
    """The GPU die's temperature in degrees Celsius."""
    nvml, handle = _nvml_handle(device)
    return int(nvml.nvmlDeviceGetTemperature(handle, 0))


def power_draw(device: Any = None) -> int:
    """The GPU's average power draw over the last sample period, in milliwatts."""
    nvml, handle = _nvml_handle(device)
    return int(nvml.nvmlDeviceGetPowerUsage(handle))


def clock_rate(device: Any = None) -> int:
    """The SM clock over the last sample period, in MHz."""
    nvml, handle = _nvml_handle(device)
    return int(nvml.nvmlDeviceGetClockInfo(handle, 1))


def list_gpu_processes(device: Any = None) -> str:
    """A printout of the processes running on the GPU and the memory each uses (or why it cannot
    be listed: no nvidia-ml-py, no driver)."""
    try:
        import pynvml
    except ImportError:
        return "pynvml module not found, please install nvidia-ml-py"
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_DriverNotLoaded:
        return "cuda driver can't be loaded, is cuda enabled?"
    index = _nvml_index(device)
    procs = pynvml.nvmlDeviceGetComputeRunningProcesses(pynvml.nvmlDeviceGetHandleByIndex(index))
    lines = [f"GPU:{index}"]
    if not procs:
        lines.append("no processes are running")
    for p in procs:
        lines.append(f"process {p.pid:>10d} uses {p.usedGpuMemory / (1024 * 1024):>12.3f} MB GPU memory")
    return "\n".join(lines)
