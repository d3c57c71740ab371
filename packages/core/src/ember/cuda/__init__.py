"""ember.cuda on a build without CUDA: queries answer "no GPU", seeding is a no-op,
and anything that needs a device raises PyTorch's "Torch not compiled with CUDA enabled"."""

from __future__ import annotations

from typing import Any, NoReturn


def _no_cuda() -> NoReturn:
    from ember._lib import _C

    raise _C.CudaNotCompiledError("Torch not compiled with CUDA enabled")


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed: int) -> None:
    """No-op without CUDA, as in PyTorch."""


def manual_seed_all(seed: int) -> None:
    """No-op without CUDA, as in PyTorch."""


def empty_cache() -> None:
    """No-op without CUDA, as in PyTorch."""


def memory_allocated(device: Any = None) -> int:
    return 0


def memory_reserved(device: Any = None) -> int:
    return 0


def max_memory_allocated(device: Any = None) -> int:
    return 0


def current_device() -> int:
    _no_cuda()


def synchronize(device: Any = None) -> None:
    _no_cuda()


def get_device_name(device: Any = None) -> str:
    _no_cuda()


def set_device(device: Any) -> None:
    _no_cuda()
