"""ember.cuda's memory queries and controls, as torch.cuda.memory: the caching allocator's
statistics (flat, nested, a printed summary), resets, the per-process memory fraction and the
deprecated ``*_cached`` names. Before CUDA is initialised the statistics are empty and the
resets do nothing; in a build without CUDA what needs a device raises PyTorch's error."""

from __future__ import annotations

import warnings
from typing import Any

__all__ = ["empty_cache", "get_per_process_memory_fraction", "max_memory_allocated", "max_memory_cached",
           "max_memory_reserved", "mem_get_info", "memory_allocated", "memory_cached", "memory_reserved",
           "memory_stats", "memory_stats_as_nested_dict", "memory_summary", "reset_accumulated_memory_stats",
           "memory_snapshot", "reset_max_memory_allocated", "reset_max_memory_cached", "reset_peak_memory_stats",
           "set_per_process_memory_fraction", "host_memory_stats", "host_memory_stats_as_nested_dict",
           "reset_accumulated_host_memory_stats", "reset_peak_host_memory_stats"]


def _lib() -> Any:
    from ember._lib import _C

    return _C


def _compiled() -> Any:
    """The compiled core, or PyTorch's error for a build without CUDA."""
    c = _lib()
    if not c._cuda_is_compiled():
        raise c.CudaNotCompiledError("Torch not compiled with CUDA enabled")
    return c


def _is_initialized() -> bool:
    return bool(_lib()._cuda_is_initialized())


def _index(device: Any) -> int:
    """The device index of ``device`` (None: the current device, -1)."""
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
    """The caching allocator's statistics under torch.cuda's keys ({} before CUDA is initialised).

    Args:
        device (ember.device or int, optional): the device; default the current one.

    Returns:
        dict: ``"allocated_bytes.all.current"`` and the rest, sorted by key.
    """
    if not _is_initialized():
        return {}
    return dict(sorted(_lib()._cuda_memory_stats(_index(device)).items()))


def memory_stats_as_nested_dict(device: Any = None) -> dict[str, Any]:
    """memory_stats's entries nested at their dots (``stats["allocated_bytes"]["all"]["peak"]``).

    Args:
        device (ember.device or int, optional): the device; default the current one.

    Returns:
        dict: the nested statistics ({} before CUDA is initialised).
    """
    return _nest(memory_stats(device))


def _nest(flat: dict[str, Any]) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for key, value in flat.items():
        *path, last = key.split(".")
        node = nested
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return nested


def host_memory_stats() -> dict[str, Any]:
    """The pinned (page-locked host) allocator's statistics, as torch.cuda's: ``allocations``,
    ``allocated_bytes`` (blocks it owns, in use or cached), ``active_requests``, ``active_bytes``
    (handed out and not yet reusable), each ``.current/.peak/.allocated/.freed``; ``num_host_alloc``,
    ``num_host_free`` and ``host_alloc_time`` / ``host_free_time`` in microseconds
    (``.total/.max/.min/.count/.avg``). Block sizes are rounded up to powers of two.

    Returns:
        dict: flat keys, sorted ({} before CUDA is initialised).
    """
    if not _is_initialized():
        return {}
    stats = _lib()._cuda_host_memory_stats()
    # the timings are microseconds (floats); every other statistic counts blocks or bytes
    return {k: v if "_time." in k and not k.endswith(".count") else int(v) for k, v in sorted(stats.items())}


def host_memory_stats_as_nested_dict() -> dict[str, Any]:
    """host_memory_stats's entries nested at their dots (``stats["active_bytes"]["peak"]``)."""
    return _nest(host_memory_stats())


def reset_peak_host_memory_stats() -> None:
    """Make every ``peak`` of host_memory_stats its ``current`` value."""
    _lib()._cuda_reset_peak_host_memory_stats()


def reset_accumulated_host_memory_stats() -> None:
    """Zero host_memory_stats's historical totals (``allocated`` / ``freed``, counts and timings)."""
    _lib()._cuda_reset_accumulated_host_memory_stats()


def _stat(device: Any, key: str) -> int:
    return int(memory_stats(device).get(key, 0))


def memory_allocated(device: Any = None) -> int:
    """Bytes the device's tensors occupy now (0 before CUDA is initialised)."""
    return _stat(device, "allocated_bytes.all.current")


def memory_reserved(device: Any = None) -> int:
    """Bytes the caching allocator holds from the device now, tensors and cache."""
    return _stat(device, "reserved_bytes.all.current")


def max_memory_allocated(device: Any = None) -> int:
    """The peak of memory_allocated since the start or the last reset_peak_memory_stats."""
    return _stat(device, "allocated_bytes.all.peak")


def max_memory_reserved(device: Any = None) -> int:
    """The peak of memory_reserved since the start or the last reset_peak_memory_stats."""
    return _stat(device, "reserved_bytes.all.peak")


def memory_cached(device: Any = None) -> int:
    """Deprecated: memory_reserved's old name."""
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`", FutureWarning,
                  stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device: Any = None) -> int:
    """Deprecated: max_memory_reserved's old name."""
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to `torch.cuda.max_memory_reserved`",
                  FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def reset_peak_memory_stats(device: Any = None) -> None:
    """Every statistic's peak back to its current value (a no-op before CUDA is initialised)."""
    if _is_initialized():
        _lib()._cuda_reset_peak_memory_stats(_index(device))


def reset_accumulated_memory_stats(device: Any = None) -> None:
    """Every statistic's running totals (``allocated``, ``freed``) back to 0 (a no-op before CUDA
    is initialised)."""
    if _is_initialized():
        _lib()._cuda_reset_accumulated_memory_stats(_index(device))


def reset_max_memory_allocated(device: Any = None) -> None:
    """Deprecated: calls reset_peak_memory_stats, which resets every peak."""
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, which resets "
                  "/all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device: Any = None) -> None:
    """Deprecated: calls reset_peak_memory_stats, which resets every peak."""
    warnings.warn("torch.cuda.reset_max_memory_cached now calls torch.cuda.reset_peak_memory_stats, which resets "
                  "/all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def empty_cache() -> None:
    """Give the cached blocks back to the device (a no-op before CUDA is initialised)."""
    if _is_initialized():
        _lib()._cuda_empty_cache()


def mem_get_info(device: Any = None) -> tuple[int, int]:
    """(free, total) bytes of the device's memory, as the driver reports them."""
    free, total = _compiled()._cuda_mem_get_info(_index(device))
    return int(free), int(total)


def set_per_process_memory_fraction(fraction: float, device: Any = None) -> None:
    """Limit the caching allocator on ``device`` to ``fraction`` of its memory: past it, the cache
    is freed and the allocation retried, then OutOfMemoryError.

    Args:
        fraction (float): in [0, 1].
        device (ember.device or int, optional): the device; default the current one.
    """
    c = _compiled()
    index = c._cuda_current_device() if device is None else _index(device)  # CUDA initialised first, as torch
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    c._cuda_set_memory_fraction(fraction, index)


def get_per_process_memory_fraction(device: Any = None) -> float:
    """The fraction set_per_process_memory_fraction set on ``device`` (1.0 when none was).

    Args:
        device (ember.device or int, optional): the device; default the current one.
    """
    return float(_compiled()._cuda_get_memory_fraction(_index(device)))


def memory_snapshot(mempool_id: Any = None, include_traces: bool = True) -> list[dict[str, Any]]:
    """The caching allocator's segments on every device, as PyTorch's snapshot lists them: each
    segment's address, sizes (total, allocated, active, requested), stream and pool, and its blocks
    in address order with their state (``"active_allocated"``, ``"active_awaiting_free"``,
    ``"inactive"``). ember records no allocation traces, so every ``frames`` list is empty.

    Args:
        mempool_id: PyTorch's memory pool id; ember has the default pool only (None or (0, 0)).
        include_traces (bool): accepted for PyTorch's signature (there are no traces).

    Returns:
        list of dict: the segments ([] before CUDA is initialised).
    """
    c = _compiled()
    if mempool_id not in (None, (0, 0)):
        raise RuntimeError(f"ember has no memory pool {mempool_id}: only the default pool (0, 0)")
    if not _is_initialized():
        return []
    return [seg for d in range(int(c._cuda_device_count())) for seg in c._cuda_memory_snapshot(d)]


def _snapshot(device: Any = None) -> dict[str, Any]:
    """memory_snapshot with PyTorch's envelope: ``{"segments": [...], "device_traces": [[], ...]}``."""
    segments = memory_snapshot()
    return {"segments": segments, "device_traces": [[] for _ in range(int(_lib()._cuda_device_count()))]}


def _dump_snapshot(filename: str = "dump_snapshot.pickle") -> None:
    """Pickle _snapshot() to ``filename`` (the file PyTorch's memory visualizer reads)."""
    import pickle

    with open(filename, "wb") as f:
        pickle.dump(_snapshot(), f)


def _format_size(size: int, pref: float) -> str:
    for unit in ("B  ", "KiB", "MiB", "GiB", "TiB"):
        if pref < 768 * 1024:
            return f"{size:6d} {unit}"
        size //= 1024
        pref /= 1024
    return f"{size:6d} PiB"


def _format_count(count: int, pref: float) -> str:
    for unit in (" ", "K"):
        if pref < 750 * 1000:
            return f"{count:7d} {unit} "
        count //= 1000
        pref /= 1000
    return f"{count:7d} M "


_SUMMARY_METRICS = [("allocated_bytes", "Allocated memory", _format_size),
                    ("active_bytes", "Active memory", _format_size),
                    ("requested_bytes", "Requested memory", _format_size),
                    ("reserved_bytes", "GPU reserved memory", _format_size),
                    ("inactive_split_bytes", "Non-releasable memory", _format_size),
                    ("allocation", "Allocations", _format_count), ("active", "Active allocs", _format_count),
                    ("segment", "GPU reserved segments", _format_count),
                    ("inactive_split", "Non-releasable allocs", _format_count)]


def memory_summary(device: Any = None, abbreviated: bool = False) -> str:
    """The allocator's statistics as PyTorch prints them: a table of current, peak, total
    allocated and total freed amounts for each metric (with the large / small pool lines unless
    ``abbreviated``).

    Args:
        device (ember.device or int, optional): the device; default the current one.
        abbreviated (bool): only the totals of each metric.

    Returns:
        str: the table, one ``|``-framed line per row.
    """
    index = _compiled()._cuda_current_device() if device is None else _index(device)
    return _format_summary(memory_stats(index), index, abbreviated)


def _format_summary(stats: dict[str, Any], index: int, abbreviated: bool) -> str:
    rule = "-" * 75
    lines = ["=" * 75, f" {'':16} PyTorch CUDA memory summary, device ID {index:<17d} ", rule,
             f"  {'':9} CUDA OOMs: {stats['num_ooms']:<12d} | {'':6} cudaMalloc retries: "
             f"{stats['num_alloc_retries']:<8d}  ",
             "=" * 75, "        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  "]
    pools = [("all", None)] if abbreviated else [("all", None), ("large_pool", "      from large pool"),
                                                  ("small_pool", "      from small pool")]
    for key, name, fmt in _SUMMARY_METRICS:
        lines.append(rule)
        first = [stats[f"{key}.all.{part}"] for part in ("current", "peak", "allocated", "freed")]
        for pool, label in pools:
            values = [stats[f"{key}.{pool}.{part}"] for part in ("current", "peak", "allocated", "freed")]
            cells = " | ".join(fmt(v, p) for v, p in zip(values, first, strict=True))
            lines.append(f" {label or name:<21} | {cells} ")
    for key, name in (("oversize_allocations", "Oversize allocations"), ("oversize_segments", "Oversize GPU segments")):
        lines.append(rule)
        values = [stats[f"{key}.{part}"] for part in ("current", "peak", "allocated", "freed")]
        lines.append(f" {name:<21} | {' | '.join(_format_count(v, v) for v in values)} ")
    lines.append("=" * 75)
    return "|" + "|\n|".join(lines) + "|\n"
