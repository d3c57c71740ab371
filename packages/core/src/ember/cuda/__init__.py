"""ember.cuda. On a build without CUDA (the default), or a machine without a GPU, queries answer
"no GPU", seeding and empty_cache are no-ops, and anything that needs a device raises PyTorch's
error ("Torch not compiled with CUDA enabled", or, in a CUDA build, the driver's). In a CUDA
build (EMBER_CUDA=ON) the memory queries read the device's caching allocator."""

from __future__ import annotations

from typing import Any, Literal

from ember.cuda import _interop  # raw allocations, error codes, NVML queries, graph stubs (on first use)
from ember.cuda.memory import (  # re-exported, as torch.cuda does torch.cuda.memory's
    _compiled,
    _index,
    _lib,
    empty_cache,
    get_per_process_memory_fraction,
    host_memory_stats,
    host_memory_stats_as_nested_dict,
    max_memory_allocated,
    max_memory_cached,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_cached,
    memory_reserved,
    memory_snapshot,
    memory_stats,
    memory_stats_as_nested_dict,
    memory_summary,
    reset_accumulated_host_memory_stats,
    reset_accumulated_memory_stats,
    reset_max_memory_allocated,
    reset_max_memory_cached,
    reset_peak_host_memory_stats,
    reset_peak_memory_stats,
    set_per_process_memory_fraction,
)

__all__ = ["Event", "ExternalStream", "Stream", "StreamContext", "can_device_access_peer", "current_device",
           "current_stream", "default_stream", "device", "device_count", "device_of", "empty_cache", "get_arch_list",
           "get_device_capability", "get_device_name", "get_device_properties", "get_gencode_flags",
           "get_per_process_memory_fraction", "get_rng_state", "get_rng_state_all", "get_sync_debug_mode", "init",
           "initial_seed", "ipc_collect", "is_available", "is_bf16_supported", "is_initialized", "is_tf32_supported",
           "manual_seed", "manual_seed_all", "max_memory_allocated", "max_memory_cached", "max_memory_reserved",
           "mem_get_info", "memory_allocated", "memory_cached", "memory_reserved", "memory_snapshot", "memory_stats",
           "memory_stats_as_nested_dict", "memory_summary", "reset_accumulated_memory_stats",
           "reset_max_memory_allocated", "reset_max_memory_cached", "reset_peak_memory_stats", "seed", "seed_all",
           "set_device", "set_per_process_memory_fraction", "set_rng_state", "set_rng_state_all", "set_stream",
           "set_sync_debug_mode", "stream", "synchronize", "host_memory_stats", "host_memory_stats_as_nested_dict",
           "reset_accumulated_host_memory_stats", "reset_peak_host_memory_stats", "has_half", "has_magma",
           *_interop.__all__]

has_half: bool = True
has_magma: bool = False  # ember's CUDA build links no MAGMA (its LAPACK ops are not on CUDA yet)


def is_available() -> bool:
    """Whether ember was built with CUDA and this machine has a GPU it can use."""
    return device_count() > 0


def device_count() -> int:
    """How many GPUs CUDA sees (0 without a CUDA build, a driver or a GPU)."""
    return int(_lib()._cuda_device_count())


def is_initialized() -> bool:
    """Whether CUDA has been initialised in this process (it is, lazily, at first use)."""
    return bool(_lib()._cuda_is_initialized())


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


def current_device() -> int:
    """The index of this thread's current GPU."""
    return int(_compiled()._cuda_current_device())


def set_device(device: Any) -> None:
    """Make ``device`` (an index or a CUDA device) this thread's current GPU; a negative index does
    nothing."""
    index = _index(device)
    if index >= 0:  # torch: a negative index is a no-op
        _compiled()._cuda_set_device(index)


def synchronize(device: Any = None) -> None:
    """Wait until every stream of ``device`` (default: the current GPU) has finished its work."""
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
    """The GPU's name, compute capability, multiprocessor count and total memory."""
    return _CudaDeviceProperties(*_compiled()._cuda_device_properties(_index(device)))


def get_device_name(device: Any = None) -> str:
    """The GPU's name, as the driver gives it."""
    return get_device_properties(device).name


def get_device_capability(device: Any = None) -> tuple[int, int]:
    """The GPU's compute capability (major, minor): (9, 0) for an H100."""
    p = get_device_properties(device)
    return p.major, p.minor


def _exchange_device(index: int) -> int:
    """Make ``index`` current (nothing for a negative one); the device current before, -1 if none."""
    if index < 0:
        return -1
    if not _lib()._cuda_is_compiled():
        raise RuntimeError("PyTorch was compiled without CUDA support")
    before = current_device()
    if before != index:
        set_device(index)
    return before


class device:
    """Context manager: ``device`` is the current CUDA device inside the block, the one before
    after it.

    Args:
        device (ember.device or int): the device; a negative index or None does nothing.
    """

    def __init__(self, device: Any) -> None:
        self.idx = _index(device)
        self.prev_idx = -1

    def __enter__(self) -> None:
        self.prev_idx = _exchange_device(self.idx)

    def __exit__(self, type: Any, value: Any, traceback: Any) -> Literal[False]:
        self.idx = _exchange_device(self.prev_idx)
        return False


class device_of(device):
    """Context manager: the device of ``obj`` (a tensor or storage) is current inside the block;
    nothing for an object on the CPU."""

    def __init__(self, obj: Any) -> None:
        super().__init__(obj.get_device() if obj.is_cuda else -1)


def init() -> None:
    """Initialise CUDA now rather than at first use (PyTorch's error in a build without it)."""
    current_device()


def ipc_collect() -> None:
    """Free the memory of tensors shared with other processes once they are done with it: ember
    shares no CUDA memory between processes, so there is nothing to collect past initialising."""
    init()


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether the current device computes in bfloat16: compute capability 8.0 or newer, or
    (``including_emulation``) one that can at least hold bfloat16 tensors. False without a GPU."""
    if not is_available():
        return False
    if get_device_properties(current_device()).major >= 8:
        return True
    if not including_emulation:
        return False
    try:
        import ember

        ember.tensor([1.0], dtype=ember.bfloat16, device=current_device())
        return True
    except Exception:
        return False


def is_tf32_supported() -> bool:
    """Whether the current device has TF32 tensor cores (compute capability 8.0 or newer)."""
    return is_bf16_supported(including_emulation=False)


def get_arch_list() -> list[str]:
    """The architectures ember's kernels were compiled for (``sm_80``, ``compute_90``, ...);
    empty without CUDA or without a GPU."""
    if not is_available():
        return []
    arches = []
    for entry in str(_lib()._cuda_arch_list()).split():
        number, _, kind = entry.partition("-")  # CMake's "90-real" / "90-virtual" / "90"
        if kind in ("", "real"):
            arches.append(f"sm_{number}")
        if kind in ("", "virtual"):
            arches.append(f"compute_{number}")
    return arches


def get_gencode_flags() -> str:
    """nvcc's ``-gencode`` flags for get_arch_list's architectures ("" when it is empty)."""
    return " ".join(f"-gencode compute=compute_{arch},code={kind}_{arch}"
                    for kind, arch in (a.split("_") for a in get_arch_list()))


def can_device_access_peer(device: Any, peer_device: Any) -> bool:
    """Whether ``device`` can read and write ``peer_device``'s memory directly."""
    c = _compiled()
    d, p = _index(device), _index(peer_device)
    d = c._cuda_current_device() if d < 0 and device is None else d
    count = device_count()
    if d < 0 or d >= count:
        raise AssertionError("Invalid device id")
    if p < 0 or p >= count:
        raise AssertionError("Invalid peer device id")
    return bool(c._cuda_can_device_access_peer(d, p))


def set_sync_debug_mode(debug_mode: int | str) -> None:
    """Report each synchronizing operation (a blocking copy to or from the host, a copy between
    GPUs): ``"default"`` / 0 quiet, ``"warn"`` / 1 a UserWarning, ``"error"`` / 2 a RuntimeError,
    with PyTorch's "called a synchronizing CUDA operation".

    Args:
        debug_mode (int or str): the mode.
    """
    c = _compiled()
    if isinstance(debug_mode, str):
        modes = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in modes:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`")
        debug_mode = modes[debug_mode]
    c._cuda_set_sync_debug_mode(int(debug_mode))


def get_sync_debug_mode() -> int:
    """The mode set_sync_debug_mode set (0 at start)."""
    return int(_compiled()._cuda_get_sync_debug_mode())


# Loaded on first use, so `import ember` does not read them.
_STREAM_NAMES = frozenset({"Stream", "ExternalStream", "Event", "StreamContext", "current_stream", "default_stream",
                           "set_stream", "stream"})


# The legacy CUDA tensor types (ember.cuda.FloatTensor, ...) and submodules, also on first use.
_SUBMODULES = frozenset({"amp", "nvtx", "streams"})
  # (memory and random are imported above)


def __getattr__(name: str) -> Any:
    if name in _STREAM_NAMES:
        from ember.cuda import streams

        return getattr(streams, name)
    from ember import _LEGACY_TYPE_NAMES  # the CPU legacy types' names, which CUDA's share

    if name in _LEGACY_TYPE_NAMES:
        from ember.cuda import _legacy_types

        return getattr(_legacy_types, name)
    if name == "default_generators":  # one per device once CUDA is initialised, as PyTorch's
        n = device_count() if is_initialized() else 0
        return tuple(_lib()._cuda_default_generator(i) for i in range(n))
    if name == "comm":  # torch.cuda.comm is torch.nn.parallel.comm's copies: ember-nn's
        from ember._siblings import import_sibling

        import_sibling("ember.nn")
        from ember.nn.parallel import comm

        return comm
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"ember.cuda.{name}")
    if name in _interop.__all__:
        return getattr(_interop, name)
    if name == "OutOfMemoryError":
        import ember

        return ember.OutOfMemoryError
    raise AttributeError(f"module 'ember.cuda' has no attribute '{name}'")
