"""``ember.mps``: Apple's Metal device, never present in ember. Libraries probe it (``device_count``,
``is_available``) and call ``manual_seed`` unconditionally; the rest fail as PyTorch's CPU builds do."""

from __future__ import annotations

from typing import Any

__all__ = ["current_allocated_memory", "device_count", "driver_allocated_memory", "empty_cache", "get_rng_state",
           "is_available", "manual_seed", "recommended_max_memory", "seed", "set_per_process_memory_fraction",
           "set_rng_state", "synchronize"]


def _no_backend(what: str) -> RuntimeError:
    return RuntimeError(f"Cannot execute {what}() without MPS backend.")


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def manual_seed(seed: int) -> None:
    """Seeds nothing: there is no MPS generator (a no-op, as PyTorch's without the backend)."""
    return None


def seed() -> None:
    raise _no_backend("getDefaultGenerator")


def get_rng_state(device: Any = "mps") -> Any:
    raise _no_backend("getDefaultGenerator")


def set_rng_state(new_state: Any, device: Any = "mps") -> None:
    raise _no_backend("getDefaultGenerator")


def synchronize() -> None:
    raise _no_backend("deviceSynchronize")


def empty_cache() -> None:
    raise _no_backend("emptyCache")


def current_allocated_memory() -> int:
    raise _no_backend("getCurrentAllocatedMemory")


def driver_allocated_memory() -> int:
    raise _no_backend("getDriverAllocatedMemory")


def recommended_max_memory() -> int:
    raise _no_backend("getRecommendedMaxMemory")


def set_per_process_memory_fraction(fraction: float) -> None:
    raise _no_backend("setMemoryFraction")
