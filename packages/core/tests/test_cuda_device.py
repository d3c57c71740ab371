"""CUDA tensors on a GPU (issue 24): run by the GPU script on a machine with a GPU and a CUDA build of
ember (`nox -s cuda_wheel`); skipped elsewhere, where test_cuda_build.py checks the no-GPU behaviour.
Values are compared with the same computation on the CPU."""

from __future__ import annotations

import threading

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")

DTYPES = [ember.float32, ember.float64, ember.float16, ember.bfloat16, ember.int64, ember.int32, ember.uint8,
          ember.bool, ember.complex64]


def test_device_queries() -> None:
    assert ember.cuda.device_count() >= 1 and ember.cuda.is_initialized()
    ember.cuda.set_device(0)
    assert ember.cuda.current_device() == 0
    p = ember.cuda.get_device_properties(0)
    assert p.name == ember.cuda.get_device_name() and p.major >= 8 and p.total_memory > 0
    assert ember.cuda.get_device_capability() == (p.major, p.minor)
    ember.cuda.synchronize()


def test_factories_make_tensors_on_the_current_device() -> None:
    z = ember.zeros(3, 4, device="cuda")
    assert z.device == ember.device("cuda", 0) and str(z.device) == "cuda:0" and z.is_cuda
    assert z.cpu().equal(ember.zeros(3, 4))
    f = ember.full((5,), 2.5, device="cuda:0", dtype=ember.float64)
    assert f.cpu().equal(ember.full((5,), 2.5, dtype=ember.float64))
    assert ember.ones(0, device="cuda").cpu().shape == (0,)


def test_set_default_device_places_the_factories() -> None:
    ember.set_default_device("cuda")
    try:
        assert ember.get_default_device() == ember.device("cuda", 0)
        made = [ember.zeros(2), ember.ones(2, 3), ember.empty(1), ember.full((2,), 1.5), ember.arange(3),
                ember.linspace(0, 1, 4), ember.eye(2), ember.rand(2), ember.randn(2), ember.randint(0, 5, (3,)),
                ember.randperm(4), ember.tensor([1.0, 2.0]), ember.as_tensor([1, 2]), ember.asarray([1.0]),
                ember.scalar_tensor(2.0), ember.tril_indices(3, 3), ember.hann_window(4)]
        assert [t.device.type for t in made] == ["cuda"] * len(made)
        assert ember.tensor([1.0, 2.0]).cpu().tolist() == [1.0, 2.0]
        assert ember.hann_window(4).cpu().allclose(ember.hann_window(4, device="cpu"))
        cpu = ember.ones(2, device="cpu")  # an explicit device wins; *_like ops follow their input
        assert cpu.device.type == ember.zeros_like(cpu).device.type == "cpu"
        seen: list[str] = []
        other = threading.Thread(target=lambda: seen.append(ember.zeros(1).device.type))
        other.start()
        other.join()
        assert seen == ["cpu"]  # the setting is the calling thread's, as PyTorch's
    finally:
        ember.set_default_device(None)
    assert ember.zeros(1).device.type == "cpu" and ember.get_default_device() == ember.device("cpu")
    ember.set_default_device(0)  # an index names a CUDA device
    try:
        assert ember.ones(1).device == ember.device("cuda", 0)
    finally:
        ember.set_default_device(None)


def test_device_context_places_factories_and_modules() -> None:
    nn = pytest.importorskip("ember.nn")
    with ember.device("cuda"):
        x, layer = ember.randn(3, 4), nn.Linear(4, 2)
        with ember.device("cpu"):
            assert ember.ones(1).device.type == "cpu"
        assert ember.ones(1).device.type == "cuda"
    assert x.device.type == "cuda" and layer.weight.device.type == "cuda" and layer(x).device.type == "cuda"
    assert ember.get_default_device() == ember.device("cpu") and ember.zeros(1).device.type == "cpu"


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_round_trip_through_the_device(dtype: ember.dtype) -> None:
    x = (ember.arange(24) % 7).to(dtype).reshape(4, 6)
    for src in (x, x.t(), x[:, ::2]):  # contiguous, transposed, strided sources
        y = src.cuda()
        assert y.device.type == "cuda" and y.dtype == dtype and y.shape == src.shape
        assert y.cpu().equal(src)


def test_moves_keep_a_dense_layout() -> None:
    """aten's _to_copy: a dense layout (channels-last, a transpose) survives .cuda() / .cpu() / .to()."""
    x = ember.randn(2, 3, 4, 5)
    for src in (x.contiguous(memory_format=ember.channels_last), x.transpose(0, 3), x[:, :, ::2]):
        want = src.clone().stride()  # clone's preserve_format: the same rule
        for y in (src.cuda(), src.to("cuda"), src.cuda().cpu(), src.cuda(non_blocking=True),
                  src.requires_grad_().cuda()):
            assert y.stride() == want and y.cpu().equal(src.detach())
        back = src.detach().cuda().to("cpu", non_blocking=True)  # into pinned memory, the layout kept
        ember.cuda.synchronize()
        assert back.is_pinned() and back.stride() == want and back.equal(src.detach())


def test_to_with_a_dtype_casts_and_moves() -> None:
    x = ember.arange(6).reshape(2, 3)
    y = x.to("cuda", ember.float32)
    assert y.dtype == ember.float32 and y.cpu().equal(x.float())
    assert y.to("cpu", ember.int64).equal(x)
    assert y.cuda() is y and y.to("cuda") is y


def test_copy_into_a_device_tensor() -> None:
    d = ember.empty(2, 3, device="cuda")
    d.copy_(ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    assert d.cpu().tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    d.fill_(7)
    assert d.cpu().equal(ember.full((2, 3), 7.0))


def test_out_on_another_device_is_refused() -> None:
    """A Python-composed op's out= on the GPU for a CPU result (and back): PyTorch's error, not a copy."""
    a = ember.randn(3, 3, dtype=ember.float64)
    for out in (ember.empty(0, dtype=ember.float64, device="cuda"),):
        with pytest.raises(RuntimeError, match="Expected out tensor to have device cpu, but got cuda:0 instead"):
            ember.linalg.det(a, out=out)
        with pytest.raises(RuntimeError, match="linalg.pinv: Expected result and input tensors to be on the same"):
            ember.linalg.pinv(a, out=out)
    big = ember.empty(2, device="cuda")
    assert big.resize_(1000).device.type == "cuda"  # a grown tensor stays on its device


def test_gradients_flow_back_across_devices() -> None:
    x = ember.randn(4, requires_grad=True)
    y = x.cuda()
    assert y.requires_grad and y.grad_fn is not None
    (y.cpu() * 3).sum().backward()
    assert x.grad is not None and x.grad.device.type == "cpu" and x.grad.equal(ember.full((4,), 3.0))


def test_allocator_statistics_and_empty_cache() -> None:
    ember.cuda.empty_cache()
    base, before = ember.cuda.memory_allocated(), ember.cuda.memory_stats()
    t = ember.empty(1000, device="cuda")  # 4000 bytes, rounded to 4096
    assert ember.cuda.memory_allocated() == base + 4096
    assert ember.cuda.max_memory_allocated() >= base + 4096
    assert ember.cuda.memory_reserved() >= 2 << 20
    del t
    assert ember.cuda.memory_allocated() == base
    stats = ember.cuda.memory_stats()

    def offset(s: dict) -> int:  # current - (allocated - freed): fixed while the totals run (a reset moves it)
        return s["allocation.all.current"] - s["allocation.all.allocated"] + s["allocation.all.freed"]

    assert offset(stats) == offset(before)
    assert stats["allocation.all.allocated"] > before["allocation.all.allocated"]
    ember.cuda.empty_cache()
    assert ember.cuda.memory_reserved() == ember.cuda.memory_stats()["reserved_bytes.all.current"]


def test_out_of_memory_raises_and_the_device_stays_usable() -> None:
    with pytest.raises(ember.OutOfMemoryError, match="CUDA out of memory. Tried to allocate"):
        ember.empty(1 << 50, dtype=ember.uint8, device="cuda")
    assert ember.cuda.memory_stats()["num_ooms"] >= 1
    assert ember.ones(3, device="cuda").cpu().equal(ember.ones(3))


def test_an_op_without_a_cuda_kernel_says_so() -> None:
    # complex32 division has no CUDA kernel: PyTorch's error for an op without one
    y = ember.eye(3).to(ember.complex32).cuda()
    with pytest.raises(NotImplementedError, match=r"^Could not run 'aten::div' with arguments from the 'CUDA' backend\."):
        ember.div(y, y)


@pytest.mark.skipif(ember.cuda.device_count() < 2, reason="needs two GPUs")
def test_work_on_a_device_that_is_not_current() -> None:
    """Ops on cuda:1 while cuda:0 is current launch on cuda:1 and its stream (fill had no device
    guard: zeros came back uninitialised, and gradients on cuda:1 were lost)."""
    assert ember.cuda.current_device() == 0
    assert ember.zeros(3, device="cuda:1").cpu().tolist() == [0.0, 0.0, 0.0]
    x = ember.arange(3.0).to("cuda:1").requires_grad_()
    (x * 2).sum().backward()
    assert x.grad is not None and x.grad.device == ember.device("cuda", 1)
    assert x.grad.cpu().tolist() == [2.0, 2.0, 2.0]
    w = ember.randn(4, 3, 3, 3).to("cuda:1").requires_grad_()
    img = ember.randn(2, 3, 6, 6).to("cuda:1")
    y = ember.conv2d(img, w).relu().sum()
    y.backward()
    ref_w = w.detach().cpu().requires_grad_()
    ember.conv2d(img.cpu(), ref_w).relu().sum().backward()
    assert bool(((w.grad.cpu() - ref_w.grad).abs() <= 1e-2 * (1 + ref_w.grad.abs())).all())  # TF32 convolutions


@pytest.mark.skipif(ember.cuda.device_count() < 2, reason="needs two GPUs")
def test_a_copy_between_devices_waits_for_the_destination() -> None:
    """A peer copy into a block the destination device's stream still uses waits for that work."""
    x = ember.randn(2, 3, 6, 6)
    for _ in range(3):
        a = ember.max_pool2d(x.to("cuda:0"), 2)
        b = ember.max_pool2d(x.to("cuda:1"), 2)
        c = b.to("cuda:0")
        assert bool((a.cpu() - ember.max_pool2d(x, 2)).abs().max() == 0)
        assert bool((c.cpu() - ember.max_pool2d(x, 2)).abs().max() == 0)


def test_custom_function_unused_output_gradient_is_on_the_device() -> None:
    """autograd.Function materialises a missing output gradient as zeros where the output lives."""
    seen = []

    class Two(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):  # noqa: ANN001, ANN205 - autograd.Function's protocol
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):  # noqa: ANN001, ANN205
            seen.append(gb.device)
            return ga * 2 + gb * 3

    x = ember.ones(3, device="cuda", requires_grad=True)
    a, _ = Two.apply(x)
    a.sum().backward()
    assert seen == [x.device] and x.grad.cpu().tolist() == [2.0, 2.0, 2.0]


def test_launch_blocking_raises_at_the_op() -> None:
    """CUDA_LAUNCH_BLOCKING=1: a kernel's bad index is raised by the op that launched it, not at the
    next wait."""
    import os
    import subprocess
    import sys

    code = ("import ember\nx = ember.ones(4, 3, device='cuda')\ni = ember.tensor([0, 7], device='cuda')\n"
            "try:\n    ember.index_select(x, 0, i)\nexcept IndexError as e:\n    print('at the op:', e)\n")
    env = {**os.environ, "CUDA_LAUNCH_BLOCKING": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert "at the op: index out of range in self" in out.stdout, out.stdout + out.stderr
