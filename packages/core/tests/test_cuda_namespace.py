"""ember.cuda's device, capability and memory functions against PyTorch's: on a build without CUDA
(the suite's) each answers or raises as CPU-only PyTorch does; on a GPU (or the emulator) they act
on the device (test_cuda_namespace's second half)."""

from __future__ import annotations

import warnings
from typing import Any

import ember
import pytest

CUDA = ember.cuda.is_available()


def _outcome(fn: Any, *args: Any) -> tuple[Any, ...]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result: tuple[Any, ...] = ("ok", fn(*args))
        except Exception as e:  # noqa: BLE001 - the type and text are what is compared
            result = (type(e).__name__ if not isinstance(e, AssertionError) else "AssertionError", str(e))
    return result + tuple((w.category.__name__, str(w.message)) for w in caught)


NO_CUDA_CALLS = [("is_bf16_supported", ()), ("is_tf32_supported", ()), ("get_arch_list", ()),
                 ("get_gencode_flags", ()), ("init", ()), ("ipc_collect", ()), ("memory_cached", ()),
                 ("max_memory_cached", ()), ("memory_stats_as_nested_dict", ()), ("memory_stats", ()),
                 ("set_per_process_memory_fraction", (0.5,)), ("get_per_process_memory_fraction", ()),
                 ("can_device_access_peer", (0, 1)), ("memory_allocated", ()), ("empty_cache", ()),
                 ("get_sync_debug_mode", ()), ("set_sync_debug_mode", (1,))]


@pytest.mark.skipif(CUDA, reason="a build without CUDA's answers")
@pytest.mark.parametrize("name,args", NO_CUDA_CALLS, ids=[c[0] for c in NO_CUDA_CALLS])
def test_without_cuda_as_torch(name: str, args: tuple[Any, ...]) -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("needs PyTorch's CPU build as the oracle")
    assert _outcome(getattr(ember.cuda, name), *args) == _outcome(getattr(torch.cuda, name), *args)


@pytest.mark.skipif(CUDA, reason="a build without CUDA's answers")
def test_device_context_without_cuda() -> None:
    assert ember.cuda.default_generators == ()
    with ember.cuda.device(-1), ember.cuda.device(None):
        pass  # no device: nothing to do
    with pytest.raises(RuntimeError, match="PyTorch was compiled without CUDA support"), ember.cuda.device(0):
        pass
    assert ember.cuda.device_of(ember.ones(1)).idx == -1
    with pytest.warns(FutureWarning, match="reset_peak_memory_stats, which resets /all/ peak"):
        ember.cuda.reset_max_memory_allocated()
    ember.cuda.reset_accumulated_memory_stats()  # nothing to reset before CUDA is initialised


@pytest.mark.skipif(not CUDA, reason="needs a GPU and a CUDA build of ember")
def test_device_functions_on_the_device() -> None:
    n = ember.cuda.device_count()
    assert len(ember.cuda.default_generators) == n
    assert ember.cuda.is_bf16_supported() is True  # ember builds for sm_80 and newer: bfloat16 everywhere
    assert ember.cuda.is_tf32_supported() is (ember.cuda.get_device_capability()[0] >= 8)
    arches = ember.cuda.get_arch_list()
    assert all(a.startswith(("sm_", "compute_")) for a in arches)
    assert ember.cuda.get_gencode_flags().count("-gencode") == len(arches)
    ember.cuda.init()
    ember.cuda.ipc_collect()
    assert ember.cuda.can_device_access_peer(0, 0) is False
    if n > 1:
        assert isinstance(ember.cuda.can_device_access_peer(0, 1), bool)
        with ember.cuda.device(1):
            assert ember.cuda.current_device() == 1 and ember.ones(1, device="cuda").device.index == 1
            with ember.cuda.device_of(ember.ones(1, device="cuda:0")):
                assert ember.cuda.current_device() == 0
            assert ember.cuda.current_device() == 1
        assert ember.cuda.current_device() == 0
    with pytest.raises(AssertionError, match="Invalid peer device id"):
        ember.cuda.can_device_access_peer(0, n)


@pytest.mark.skipif(not CUDA, reason="needs a GPU and a CUDA build of ember")
def test_memory_functions_on_the_device() -> None:
    x = ember.empty(3 << 20, device="cuda")
    stats, nested = ember.cuda.memory_stats(), ember.cuda.memory_stats_as_nested_dict()
    assert nested["allocated_bytes"]["all"]["current"] == stats["allocated_bytes.all.current"] > 0
    assert nested["num_ooms"] == stats["num_ooms"]
    summary = ember.cuda.memory_summary()
    assert "PyTorch CUDA memory summary, device ID 0" in summary and "from large pool" in summary
    assert "from large pool" not in ember.cuda.memory_summary(abbreviated=True)
    with pytest.warns(FutureWarning, match="renamed to `torch.cuda.memory_reserved`"):
        assert ember.cuda.memory_cached() == ember.cuda.memory_reserved()
    segments = ember.cuda.memory_snapshot()
    assert sum(s["total_size"] for s in segments if s["device"] == 0) == ember.cuda.memory_reserved()
    assert any(b["state"] == "active_allocated" and b["size"] >= 3 << 22 for s in segments for b in s["blocks"])
    ember.cuda.reset_accumulated_memory_stats()
    assert ember.cuda.memory_stats()["allocated_bytes.all.allocated"] == 0
    assert ember.cuda.memory_allocated() == stats["allocated_bytes.all.current"]
    del x


@pytest.mark.skipif(not CUDA, reason="needs a GPU and a CUDA build of ember")
def test_memory_fraction_on_the_device() -> None:
    total = ember.cuda.get_device_properties(0).total_memory
    assert ember.cuda.get_per_process_memory_fraction() == 1.0
    with pytest.raises(TypeError, match="must be `float`"):
        ember.cuda.set_per_process_memory_fraction(1)
    with pytest.raises(ValueError, match="Allowed range: 0~1"):
        ember.cuda.set_per_process_memory_fraction(1.5)
    ember.cuda.empty_cache()
    limit = ember.cuda.memory_reserved() + (64 << 20)
    ember.cuda.set_per_process_memory_fraction(limit / total)
    try:
        assert ember.cuda.get_per_process_memory_fraction() == limit / total
        x = ember.empty(32 << 20, dtype=ember.uint8, device="cuda")
        with pytest.raises(ember.OutOfMemoryError, match="allowed; Of the allocated memory"):
            ember.empty(96 << 20, dtype=ember.uint8, device="cuda")
        del x
    finally:
        ember.cuda.set_per_process_memory_fraction(1.0)
    ember.empty(96 << 20, dtype=ember.uint8, device="cuda")


def test_nvtx_ranges() -> None:
    """ember.cuda.nvtx: PyTorch's error without CUDA; on a device the calls reach NVTX (with no
    profiler attached they return at once), and range() nests as a context manager and a decorator."""
    nvtx = ember.cuda.nvtx
    if not ember._lib._C._cuda_is_compiled():
        for call in (lambda: nvtx.range_push("a"), nvtx.range_pop, lambda: nvtx.mark("m")):
            with pytest.raises(RuntimeError, match="NVTX functions not installed. Are you sure you have a CUDA build"):
                call()
        return
    assert isinstance(nvtx.range_push("outer"), int) and isinstance(nvtx.range_pop(), int)
    nvtx.range_end(nvtx.range_start("across threads"))
    nvtx.mark("here")

    @nvtx.range("step {}", 3)
    def step() -> int:
        return 7

    with nvtx.range("epoch {n}", n=1):
        assert step() == 7


@pytest.mark.skipif(not CUDA, reason="needs a GPU and a CUDA build of ember")
def test_alloc_conf_on_the_device() -> None:
    """PYTORCH_CUDA_ALLOC_CONF is read at CUDA's first allocation: max_split_size_mb shows in the
    statistics, expandable_segments:True warns (ember has no expandable segments), a bad key raises."""
    import os
    import subprocess
    import sys

    code = ("import warnings, ember\nwith warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n    x = ember.ones(4, device='cuda')\n"
            "print(ember.cuda.memory_stats()['max_split_size'], [str(m.message) for m in w])\n")

    def run(conf: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTORCH_CUDA_ALLOC_CONF": conf}
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)

    assert run("max_split_size_mb:64").stdout.split()[0] == str(64 << 20)
    assert "expandable_segments not supported on this platform" in run("expandable_segments:True").stdout
    bad = run("no_such_key:1")
    assert bad.returncode != 0 and "Unrecognized key 'no_such_key'" in bad.stderr


@pytest.mark.skipif(not CUDA, reason="needs a GPU and a CUDA build of ember")
def test_sync_debug_mode() -> None:
    """set_sync_debug_mode: a blocking copy to the host warns ("warn") or raises ("error"); the
    asynchronous work (kernels, randperm's upload) does not."""
    x = ember.ones(4, device="cuda")
    assert ember.cuda.get_sync_debug_mode() == 0
    try:
        ember.cuda.set_sync_debug_mode("warn")
        assert ember.cuda.get_sync_debug_mode() == 1
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = (x * 2 + 1).exp()
            ember.randperm(6, device="cuda")
        assert not caught, [str(w.message) for w in caught]
        with pytest.warns(UserWarning, match="called a synchronizing CUDA operation"):
            y.cpu()
        ember.cuda.set_sync_debug_mode(2)
        with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation"):
            y.sum().item()
        with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`"):
            ember.cuda.set_sync_debug_mode("loud")
    finally:
        ember.cuda.set_sync_debug_mode("default")
    assert y.cpu().tolist() == [float(ember.tensor(3.0).exp())] * 4
