"""ember.cuda. On a build without CUDA (the default), or a machine without a GPU, queries answer
"no GPU", seeding and empty_cache are no-ops, and anything that needs a device raises PyTorch's
error ("Torch not compiled with CUDA enabled", or, in a CUDA build, the driver's). In a CUDA
build (EMBER_CUDA=ON) the memory queries read the device's caching allocator."""

from __future__ import annotations

from typing import Any, NoReturn


def _no_cuda() -> NoReturn:
    from ember._lib import _C

    raise _C.CudaNotCompiledError("Torch not compiled with CUDA enabled")


def _lib() -> Any:
    from ember._lib import _C

    return _C


def is_available() -> bool:
    return device_count() > 0


def device_count() -> int:
    return int(_lib()._cuda_device_count())


def is_initialized() -> bool:
    return bool(_lib()._cuda_is_initialized())


def _index(device: Any) -> int:
    """The device index of `device` (None: the current device, -1)."""
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    import ember

    d = ember.device(device)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return -1 if d.index is None else d.index


def memory_stats(device: Any = None) -> dict[str, Any]:
    """The caching allocator's statistics under torch.cuda's keys ({} before CUDA is initialised)."""
    if not is_initialized():
        return {}
    return dict(sorted(_lib()._cuda_memory_stats(_index(device)).items()))


def _stat(device: Any, key: str) -> int:
    return int(memory_stats(device).get(key, 0))


# Seeding and RNG state of the devices' default generators (no-ops without CUDA, as in PyTorch).
from ember.cuda import random as random  # noqa: E402

get_rng_state = random.get_rng_state
get_rng_state_all = random.get_rng_state_all
initial_seed = random.initial_seed
manual_seed = random.manual_seed
manual_seed_all = random.manual_seed_all
seed = random.seed
seed_all = random.seed_all
set_rng_state = random.set_rng_state
set_rng_state_all = random.set_rng_state_all


def empty_cache() -> None:
    """Give the cached blocks back to the device (a no-op before CUDA is initialised)."""
    if is_initialized():
        _lib()._cuda_empty_cache()


def memory_allocated(device: Any = None) -> int:
    return _stat(device, "allocated_bytes.all.current")


def memory_reserved(device: Any = None) -> int:
    return _stat(device, "reserved_bytes.all.current")


def max_memory_allocated(device: Any = None) -> int:
    return _stat(device, "allocated_bytes.all.peak")


def max_memory_reserved(device: Any = None) -> int:
    return _stat(device, "reserved_bytes.all.peak")


def reset_peak_memory_stats(device: Any = None) -> None:
    if is_initialized():
        _lib()._cuda_reset_peak_memory_stats(_index(device))


def _compiled() -> Any:
    """The compiled core, or PyTorch's error for a build without CUDA."""
    c = _lib()
    if not c._cuda_is_compiled():
        _no_cuda()
    return c


def current_device() -> int:
    return int(_compiled()._cuda_current_device())


def set_device(device: Any) -> None:
    index = _index(device)
    if index >= 0:  # torch: a negative index is a no-op
        _compiled()._cuda_set_device(index)


def synchronize(device: Any = None) -> None:
    _compiled()._cuda_synchronize(_index(device))


class _CudaDeviceProperties:
    """torch.cuda.get_device_properties's fields that ember reads from the runtime."""

    def __init__(self, name: str, major: int, minor: int, multi_processor_count: int, total_memory: int) -> None:
        self.name, self.major, self.minor = name, major, minor
        self.multi_processor_count, self.total_memory = multi_processor_count, total_memory

    def __repr__(self) -> str:
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory >> 20}MB, multi_processor_count={self.multi_processor_count})")


def get_device_properties(device: Any = None) -> _CudaDeviceProperties:
    return _CudaDeviceProperties(*_compiled()._cuda_device_properties(_index(device)))


def get_device_name(device: Any = None) -> str:
    return get_device_properties(device).name


def get_device_capability(device: Any = None) -> tuple[int, int]:
    p = get_device_properties(device)
    return p.major, p.minor


def mem_get_info(device: Any = None) -> tuple[int, int]:
    """(free, total) bytes of the device's memory, as the driver reports them."""
    free, total = _compiled()._cuda_mem_get_info(_index(device))
    return int(free), int(total)


# Loaded on first use, so `import ember` does not read them.
_STREAM_NAMES = frozenset({"Stream", "ExternalStream", "Event", "StreamContext", "current_stream", "default_stream",
                           "set_stream", "stream"})


def __getattr__(name: str) -> Any:
    if name in _STREAM_NAMES:
        from ember.cuda import streams

        return getattr(streams, name)
    if name == "OutOfMemoryError":
        import ember

        return ember.OutOfMemoryError
    raise AttributeError(f"module 'ember.cuda' has no attribute '{name}'")
