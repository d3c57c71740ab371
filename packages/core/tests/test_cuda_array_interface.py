"""Tensor flags of devices and layouts ember has no backend for (False, as PyTorch answers on its
CPU build), and the CUDA Array Interface: absent on CPU tensors, version 2 on CUDA ones."""

from __future__ import annotations

import ember
import pytest

FLAGS = ["is_ipu", "is_maia", "is_mkldnn", "is_mps", "is_mtia", "is_vulkan", "is_xla", "is_xpu", "is_sparse_csr"]


@pytest.mark.parametrize("name", FLAGS)
def test_flags_false_as_torch(name: str) -> None:
    torch = pytest.importorskip("torch")
    for dtype in ("float32", "int64", "bool"):
        assert getattr(ember.ones(2, dtype=getattr(ember, dtype)), name) is False
        assert getattr(torch.ones(2, dtype=getattr(torch, dtype)), name) is False
    assert getattr(ember.ones(1).requires_grad_(), name) is False


def test_cuda_array_interface_absent_on_cpu() -> None:
    torch = pytest.importorskip("torch")
    t = ember.ones(2)
    assert not hasattr(t, "__cuda_array_interface__")
    with pytest.raises(AttributeError) as mine:
        t.__cuda_array_interface__  # noqa: B018
    with pytest.raises(AttributeError) as theirs:
        torch.ones(2).__cuda_array_interface__  # noqa: B018
    assert str(mine.value) == str(theirs.value)


@pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a CUDA device (or the emulator)")
def test_cuda_array_interface() -> None:
    x = ember.arange(12, dtype=ember.float32, device="cuda").reshape(3, 4)
    cai = x.__cuda_array_interface__
    assert cai == {"typestr": "<f4", "shape": (3, 4), "strides": None, "data": (x.data_ptr(), False), "version": 2}
    t = x.t()
    assert t.__cuda_array_interface__["strides"] == (4, 16)
    assert ember.ones(2, dtype=ember.int64, device="cuda").__cuda_array_interface__["typestr"] == "<i8"
    assert ember.empty(0, device="cuda").__cuda_array_interface__["data"] == (0, False)
    with pytest.raises(RuntimeError, match="requires grad"):
        ember.ones(2, device="cuda", requires_grad=True).__cuda_array_interface__  # noqa: B018
    with pytest.raises(TypeError, match="not supported"):
        ember.ones(2, dtype=ember.bfloat16, device="cuda").__cuda_array_interface__  # noqa: B018
