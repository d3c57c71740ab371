"""The device caching allocator's logic, on host memory (no GPU needed): PyTorch's CUDA caching
allocator rules -- 512-byte rounding, the small (2 MiB segments) and large (20 MiB / 2 MiB-rounded
segments) pools, best-fit reuse per stream, splitting and merging, record_stream, release and retry
on out-of-memory, and memory_stats() under torch.cuda's key names."""

from __future__ import annotations

import ember
import pytest
from ember._lib import _C

KiB, MiB = 1 << 10, 1 << 20


def make(capacity: int = 1 << 30) -> object:
    return _C._HostCachingAllocator(capacity)


def stat(a: object, key: str) -> int:
    return a.memory_stats()[key]


def test_sizes_round_to_512_bytes_in_one_small_segment() -> None:
    a = make()
    p, q = a.allocate(1), a.allocate(513)
    assert a.allocated_size(p) == 512 and a.allocated_size(q) == 1024
    assert q == p + 512  # carved one after the other from the same 2 MiB segment
    assert stat(a, "allocated_bytes.all.current") == 1536
    assert stat(a, "requested_bytes.all.current") == 514
    assert stat(a, "reserved_bytes.small_pool.current") == 2 * MiB
    assert stat(a, "segment.all.current") == 1 and stat(a, "num_device_alloc") == 1


def test_zero_bytes_is_a_null_pointer() -> None:
    a = make()
    assert a.allocate(0) == 0
    a.free(0)
    assert stat(a, "allocation.all.allocated") == 0


def test_a_freed_block_is_reused_without_a_device_call() -> None:
    a = make()
    p = a.allocate(4096)
    a.free(p)
    assert a.allocate(4000) == p
    assert stat(a, "num_device_alloc") == 1


def test_freed_neighbours_merge_and_a_whole_segment_goes_back_on_empty_cache() -> None:
    a = make()
    blocks = [a.allocate(512 * KiB) for _ in range(3)]
    assert blocks[1] - blocks[0] == 512 * KiB and blocks[2] - blocks[1] == 512 * KiB
    assert stat(a, "inactive_split.all.current") == 1  # the segment's free last 512 KiB
    a.free(blocks[1])  # between two allocated blocks: no merge
    assert stat(a, "inactive_split.all.current") == 2
    a.empty_cache()  # the segment is still in use: nothing goes back
    assert stat(a, "reserved_bytes.all.current") == 2 * MiB
    a.free(blocks[0])
    a.free(blocks[2])
    # one free 2 MiB block again, no split left; it serves the next small request
    assert stat(a, "inactive_split.all.current") == 0 and stat(a, "active.all.current") == 0
    assert a.allocate(1 * MiB) == blocks[0]
    a.free(blocks[0])
    a.empty_cache()
    assert stat(a, "reserved_bytes.all.current") == 0 and stat(a, "num_device_free") == 1
    assert a.device_used() == 0


def test_large_pool_segment_sizes() -> None:
    a = make()
    p = a.allocate(5 * MiB)  # below 10 MiB: a 20 MiB segment
    assert stat(a, "reserved_bytes.large_pool.current") == 20 * MiB
    q = a.allocate(3 * MiB)  # fits in the rest of that segment
    assert q == p + 5 * MiB and stat(a, "segment.large_pool.current") == 1
    a.allocate(13 * MiB + 1)  # more than the 12 MiB left; 10 MiB and up: a segment rounded to 2 MiB
    assert stat(a, "reserved_bytes.large_pool.current") == 20 * MiB + 14 * MiB
    assert stat(a, "segment.large_pool.current") == 2


def test_a_large_remainder_is_split_only_above_one_mib() -> None:
    a = make()
    p = a.allocate(19 * MiB + 512 * KiB)  # the 512 KiB left of the 20 MiB segment stays with the block
    assert a.allocated_size(p) == 20 * MiB
    assert stat(a, "inactive_split.large_pool.current") == 0
    a.free(p)
    assert a.allocate(2 * MiB) == p  # the whole cached 20 MiB block is reused and split
    assert stat(a, "inactive_split.large_pool.current") == 1


def test_blocks_are_reused_only_on_their_own_stream() -> None:
    a = make()
    p = a.allocate(4096, stream=0)
    a.free(p)
    q = a.allocate(4096, stream=1)
    assert q != p
    assert a.allocate(4096, stream=0) == p


def test_record_stream_holds_a_block_until_that_stream_is_done() -> None:
    a = make()
    p = a.allocate(4096, stream=0)
    a.record_stream(p, 1)
    a.free(p)
    assert stat(a, "active.all.current") == 1  # waiting on stream 1's event
    q = a.allocate(4096, stream=0)
    assert q != p
    a.complete_stream(1)
    assert a.allocate(4096, stream=0) == p
    assert stat(a, "active.all.current") == 2


def test_out_of_memory_frees_the_cache_and_retries_once() -> None:
    a = make(capacity=30 * MiB)
    p = a.allocate(5 * MiB)  # a 20 MiB segment
    a.free(p)  # cached
    q = a.allocate(25 * MiB)  # does not fit beside the cache: released, then retried
    assert stat(a, "num_alloc_retries") == 1 and stat(a, "num_sync_all_streams") == 1
    assert stat(a, "reserved_bytes.all.current") == 26 * MiB
    with pytest.raises(ember.OutOfMemoryError) as e:
        a.allocate(40 * MiB)
    assert isinstance(e.value, RuntimeError)
    assert str(e.value).startswith(
        "CUDA out of memory. Tried to allocate 40.00 MiB. GPU 0 has a total capacity of 30.00 MiB of which "
        "4.00 MiB is free. Of the allocated memory 26.00 MiB is allocated by PyTorch, and 0 bytes is reserved "
        "by PyTorch but unallocated.")
    assert stat(a, "num_ooms") == 1
    a.free(q)
    assert a.allocate(5 * MiB) == q  # still usable after the error


def test_peak_and_accumulated_statistics() -> None:
    a = make()
    ps = [a.allocate(100 * KiB) for _ in range(4)]
    for p in ps:
        a.free(p)
    assert stat(a, "allocated_bytes.all.peak") == 4 * 100 * KiB
    assert stat(a, "allocated_bytes.all.allocated") == stat(a, "allocated_bytes.all.freed") == 4 * 100 * KiB
    assert stat(a, "allocation.small_pool.allocated") == 4
    a.reset_peak_memory_stats()
    assert stat(a, "allocated_bytes.all.peak") == 0
    a.reset_accumulated_memory_stats()
    assert stat(a, "allocation.all.allocated") == 0 and stat(a, "num_device_alloc") == 0


def test_memory_stats_keys_are_torch_cuda_keys() -> None:
    keys = set(make().memory_stats())
    for stat_name in ("allocation", "segment", "active", "inactive_split", "allocated_bytes", "reserved_bytes",
                      "active_bytes", "inactive_split_bytes", "requested_bytes"):
        for pool in ("all", "small_pool", "large_pool"):
            for metric in ("current", "peak", "allocated", "freed"):
                assert f"{stat_name}.{pool}.{metric}" in keys
    for k in ("num_alloc_retries", "num_ooms", "num_sync_all_streams", "num_device_alloc", "num_device_free",
              "num_oom_rejections", "max_split_size", "oversize_allocations.current", "oversize_segments.peak"):
        assert k in keys


def test_freeing_an_unknown_pointer_raises() -> None:
    a = make()
    with pytest.raises(RuntimeError, match="invalid device pointer"):
        a.free(12345)


def test_random_sequences_keep_blocks_apart_and_the_books_balanced() -> None:
    """Random allocate / free / record_stream / stream completion: live blocks never overlap, the
    statistics agree with the blocks, and everything goes back to the device at the end."""
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    sizes = st.one_of(st.integers(1, 4096), st.integers(4096, 2 * MiB), st.integers(2 * MiB, 24 * MiB))
    step = st.tuples(st.sampled_from(["alloc", "alloc", "free", "record", "complete"]), sizes, st.integers(0, 2))

    @hypothesis.settings(max_examples=60, deadline=None, derandomize=True)
    @hypothesis.given(st.lists(step, max_size=60))
    def run(steps: list[tuple[str, int, int]]) -> None:
        a = make(capacity=96 * MiB)
        live: dict[int, int] = {}  # ptr -> block size
        for kind, n, s in steps:
            if kind == "alloc":
                try:
                    p = a.allocate(n, stream=s)
                except ember.OutOfMemoryError:
                    continue
                live[p] = a.allocated_size(p)
                assert live[p] >= n
            elif live and kind == "free":
                a.free(live.popitem()[0])
            elif live and kind == "record":
                a.record_stream(next(iter(live)), s)
            elif kind == "complete":
                a.complete_stream(s)
            spans = sorted(live.items())
            assert all(p + size <= q for (p, size), (q, _) in zip(spans, spans[1:]))
            assert stat(a, "allocated_bytes.all.current") == sum(live.values())
            assert stat(a, "reserved_bytes.all.current") == a.device_used()
            assert stat(a, "allocation.all.current") == len(live)
        for p in live:
            a.free(p)
        a.synchronize()
        a.empty_cache()
        assert a.device_used() == 0 and stat(a, "reserved_bytes.all.current") == 0
        assert stat(a, "active.all.current") == 0 and stat(a, "inactive_split.all.current") == 0

    run()


def test_memory_fraction_limits_the_segments() -> None:
    """set_per_process_memory_fraction: segments past fraction x capacity are refused (after the cache
    is freed and the request retried), with the limit in PyTorch's message."""
    a = make(capacity=100 * MiB)
    assert a.memory_fraction() == 1.0
    a.set_memory_fraction(0.5)
    assert a.memory_fraction() == 0.5
    p = a.allocate(30 * MiB)
    a.free(p)  # 30 MiB cached
    q = a.allocate(40 * MiB)  # over 50 MiB beside the cache: the cache goes, then it fits
    assert stat(a, "num_alloc_retries") == 1 and stat(a, "reserved_bytes.all.current") == 40 * MiB
    with pytest.raises(ember.OutOfMemoryError, match=r"is free\. 50\.00 MiB allowed; Of the allocated memory 40\.00"):
        a.allocate(20 * MiB)  # 60 MiB in all
    assert a.device_used() == 40 * MiB  # the device itself had room: the fraction refused it
    a.set_memory_fraction(1.0)
    a.free(a.allocate(20 * MiB))
    a.free(q)


def test_memory_summary_prints_as_torch() -> None:
    """ember.cuda.memory_summary's table from the allocator's statistics is PyTorch's, character for
    character (PyTorch's own function fed the same statistics)."""
    torch = pytest.importorskip("torch")
    from ember.cuda.memory import _format_summary

    a = make()
    ps = [a.allocate(n) for n in (100, 3 * MiB, 900 * KiB, 25 * MiB)]
    a.free(ps[1])
    stats = dict(sorted(a.memory_stats().items()))
    mem = torch.cuda.memory
    saved = mem.memory_stats
    mem.memory_stats = lambda device=None: stats
    try:
        for abbreviated in (False, True):
            assert _format_summary(stats, 3, abbreviated) == torch.cuda.memory_summary(3, abbreviated)
    finally:
        mem.memory_stats = saved


def test_max_split_size_keeps_large_blocks_whole() -> None:
    """max_split_size (PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:N): blocks of that size or more are
    never split, serve no smaller request and a large one only within 20 MiB, and are counted as
    oversize, as PyTorch's allocator does."""
    a = make(capacity=1 << 30)
    a.set_max_split_size(64 * MiB)
    assert stat(a, "max_split_size") == 64 * MiB
    p = a.allocate(100 * MiB)  # oversize: its own segment, not split
    assert a.allocated_size(p) == 100 * MiB and stat(a, "oversize_allocations.current") == 1
    assert stat(a, "oversize_segments.current") == 1 and stat(a, "inactive_split.all.current") == 0
    a.free(p)
    q = a.allocate(30 * MiB)  # smaller than max_split: the cached 100 MiB block is not used
    assert q != p and stat(a, "num_device_alloc") == 2
    r = a.allocate(90 * MiB)  # within 20 MiB of the cached block: reused whole
    assert r == p and a.allocated_size(r) == 100 * MiB
    a.free(r)
    s = a.allocate(70 * MiB)  # more than 20 MiB smaller: a new segment
    assert s != p and stat(a, "oversize_allocations.current") == 1
    for x in (q, s):
        a.free(x)
    a.empty_cache()
    assert stat(a, "oversize_segments.current") == 0 and stat(a, "oversize_allocations.allocated") == 3


@pytest.mark.parametrize("conf,want", [("max_split_size_mb:128", 128 * MiB), ("", -1),
                                       ("garbage_collection_threshold:0.6,max_split_size_mb:64", 64 * MiB),
                                       ("expandable_segments:False", -1)])
def test_alloc_conf_parsing(conf: str, want: int) -> None:
    assert _C._cuda_alloc_conf_max_split_size(conf) == want


@pytest.mark.parametrize("conf,message", [("max_split_size_mb:20", "max_split_size_mb too small, must be > 20"),
                                          ("max_split_size_mb:x", "Error parsing backend config string"),
                                          ("bogus_key:1", "Unrecognized key 'bogus_key'")])
def test_alloc_conf_errors(conf: str, message: str) -> None:
    with pytest.raises(RuntimeError, match=message):
        _C._cuda_alloc_conf_max_split_size(conf)
