"""The device seam: the allocator takes a device and the CUDA backend is a stub in this build.

Every allocation goes through allocate(nbytes, device) (core/allocator.h); a CPU device
keeps PyTorch's index-free ``cpu`` and a CUDA one raises PyTorch's error before any kernel.
"""

import ember
import pytest

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("device", ["cpu", "cpu:0"])
@pytest.mark.parametrize("make", ["zeros", "empty", "empty_strided"])
def test_cpu_device_has_no_index(make: str, device: str) -> None:
    def build(lib):  # noqa: ANN001, ANN202
        if make == "empty_strided":
            return lib.empty_strided((2, 3), (3, 1), device=device)
        return getattr(lib, make)(2, 3, device=device)

    assert str(build(ember).device) == str(build(torch).device)


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks a machine without a GPU")
@pytest.mark.parametrize("make", ["zeros", "empty", "ones"])
def test_cuda_allocation_raises_not_compiled(make: str) -> None:
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled") as info:
        getattr(torch, make)(1, device="cuda")
    with pytest.raises(type(info.value), match="Torch not compiled with CUDA enabled"):
        getattr(ember, make)(1, device="cuda")
