"""The legacy CUDA tensor types (ember.cuda.FloatTensor, ...), Tensor.type with CUDA targets,
set_default_tensor_type with a CUDA type, and ember.cuda.amp on a GPU: run by the GPU script on a
machine with a GPU and a CUDA build of ember (or the CUDA emulator build); skipped elsewhere, where
test_cuda_amp_legacy_cpu.py compares the no-GPU behaviour with a CPU-only PyTorch."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")

TYPES = {"FloatTensor": ember.float32, "DoubleTensor": ember.float64, "HalfTensor": ember.float16,
         "BFloat16Tensor": ember.bfloat16, "ByteTensor": ember.uint8, "CharTensor": ember.int8,
         "ShortTensor": ember.int16, "IntTensor": ember.int32, "LongTensor": ember.int64, "BoolTensor": ember.bool}


@pytest.fixture(autouse=True)
def _quiet_and_restored():
    """No deprecation noise; the default dtype and device as they were before each test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
        ember.set_default_tensor_type(ember.FloatTensor)
    ember.set_default_dtype(ember.float32)
    ember.set_default_device(None)


def here() -> ember.device:
    return ember.device("cuda", ember.cuda.current_device())


# ---------------------------------------------------------------- constructors
@pytest.mark.parametrize("name", list(TYPES))
def test_constructors_build_on_the_current_device(name):
    cls, dtype = getattr(ember.cuda, name), TYPES[name]
    made = [cls(2, 3), cls(ember.Size([2, 3])), cls(size=(2, 3)), cls()]
    assert [t.shape for t in made] == [(2, 3), (2, 3), (2, 3), (0,)]
    assert all(t.dtype == dtype and t.device == here() for t in made)
    ref = ember.tensor([[1, 0], [3, 2]], dtype=dtype)
    for data in ([[1, 0], [3, 2]], np.array([[1, 0], [3, 2]]), ((1, 0), (3, 2))):
        t = cls(data)
        assert t.dtype == dtype and t.device == here() and t.cpu().equal(ref)
    assert cls(data=[1]).device == here() and cls(data=[1]).cpu().tolist() == ember.tensor([1], dtype=dtype).tolist()
    if dtype.is_floating_point:
        assert cls([1.5, -2.25]).cpu().tolist() == ember.tensor([1.5, -2.25], dtype=dtype).tolist()


def test_floats_truncate_into_integer_types():
    assert ember.cuda.LongTensor([1.7, -2.5]).cpu().tolist() == [1, -2]
    assert ember.cuda.ByteTensor([3.9]).cpu().tolist() == [3]


def test_alias_of_a_cuda_tensor_and_errors():
    x = ember.ones(3, device="cuda")
    a = ember.cuda.FloatTensor(x)
    assert a.data_ptr() == x.data_ptr() and a is not x and a.device == x.device
    with pytest.raises(TypeError, match=r"^expected TensorOptions\(dtype=float, device=cuda, .*\(got TensorOptions\("
                                        r"dtype=float, device=cpu, "):
        ember.cuda.FloatTensor(ember.ones(2))
    with pytest.raises(TypeError, match=r"\(got TensorOptions\(dtype=double, device=cuda:0, "):
        ember.cuda.FloatTensor(ember.ones(2, dtype=ember.float64, device="cuda:0"))
    with pytest.raises(RuntimeError, match="^legacy constructor expects device type: cuda but device type: cpu was "
                                           "passed$"):
        ember.cuda.FloatTensor(2, device="cpu")
    with pytest.raises(RuntimeError, match="legacy constructor expects device type: cpu but device type: cuda"):
        ember.FloatTensor(2, device="cuda")
    with pytest.raises(TypeError, match="new\\(\\): invalid data type 'str'"):
        ember.cuda.FloatTensor("x")
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        ember.cuda.IntTensor(-1)


def test_device_argument_and_other_devices():
    assert ember.cuda.FloatTensor(2, device="cuda").device == here()
    assert ember.cuda.FloatTensor([1.0], device=ember.device("cuda", 0)).device == ember.device("cuda", 0)
    if ember.cuda.device_count() > 1:
        assert ember.cuda.FloatTensor(2, device="cuda:1").device == ember.device("cuda", 1)
        assert ember.cuda.LongTensor([1], device=1).device == ember.device("cuda", 1)
        y = ember.ones(2, device="cuda:1")
        assert y.new(3).device == y.new([1.0]).device == y.new(2, device="cuda").device == y.device
        assert y.type("torch.cuda.DoubleTensor").device == y.device  # a CUDA target keeps the tensor's device


def test_constructor_warns_once_per_process():
    from ember import _legacy_types

    _legacy_types._cuda_ctor_warned[0] = False
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ember.cuda.FloatTensor([0])
        ember.cuda.DoubleTensor([0])
    assert [(x.category, str(x.message)) for x in w] == [
        (UserWarning, "The torch.cuda.*DtypeTensor constructors are no longer recommended. It's best to use methods "
                      "such as torch.tensor(data, dtype=*, device='cuda') to create tensors.")]


def test_cpu_constructors_stay_on_the_cpu_under_a_cuda_default():
    ember.set_default_device("cuda")
    assert ember.FloatTensor(2).device.type == ember.LongTensor([1]).device.type == "cpu"
    assert ember.cuda.FloatTensor(2).device == here()


# ---------------------------------------------------------------- isinstance, type(), new()
@pytest.mark.parametrize("name", list(TYPES))
def test_isinstance_is_dtype_and_device_type(name):
    cuda_t = ember.zeros(2, dtype=TYPES[name], device="cuda")
    cpu_t = ember.zeros(2, dtype=TYPES[name])
    for other in TYPES:
        assert isinstance(cuda_t, getattr(ember.cuda, other)) is (other == name)
        assert isinstance(cpu_t, getattr(ember.cuda, other)) is False
        assert isinstance(cuda_t, getattr(ember, other)) is False
        assert isinstance(cpu_t, getattr(ember, other)) is (other == name)
    assert cuda_t.type() == ember.typename(cuda_t) == f"torch.cuda.{name}"
    assert isinstance(ember.cuda.FloatTensor(2), ember.Tensor)


def test_tensor_type_moves_between_devices():
    x = ember.arange(4.0)
    for target in ("torch.cuda.DoubleTensor", ember.cuda.DoubleTensor):
        y = x.type(target)
        assert y.device == here() and y.dtype == ember.float64 and y.cpu().tolist() == x.tolist()
    y = x.type("torch.cuda.FloatTensor")
    assert y.device == here() and y.dtype == ember.float32
    assert y.type(ember.cuda.FloatTensor) is y and y.type("torch.cuda.FloatTensor") is y
    back = y.type("torch.LongTensor")
    assert back.device.type == "cpu" and back.dtype == ember.int64 and back.tolist() == [0, 1, 2, 3]
    assert y.type(ember.FloatTensor).device.type == "cpu"  # a CPU type brings a CUDA tensor to the CPU
    kept = y.type(ember.float16)  # a dtype keeps the device
    assert kept.device == y.device and kept.dtype == ember.float16
    z = y.type("torch.cuda.ComplexFloatTensor")
    assert z.dtype == ember.complex64 and z.device == here() and z.type() == "torch.cuda.ComplexFloatTensor"
    with pytest.raises(ValueError, match="^invalid type: 'torch.cuda.Foo'$"):
        x.type("torch.cuda.Foo")
    with pytest.raises(ValueError, match="^invalid type: 'cuda.FloatTensor'$"):
        x.type("cuda.FloatTensor")


def test_new_keeps_the_cuda_device():
    x = ember.ones(2, 2, dtype=ember.float64, device="cuda")
    for t in (x.new(3), x.new([1, 2]), x.new(), x.new(ember.Size([1, 2])), x.new(x)):
        assert t.device == x.device and t.dtype == ember.float64
    with pytest.raises(RuntimeError, match="legacy constructor expects device type: cuda but device type: cpu"):
        x.new(2, device="cpu")


# ---------------------------------------------------------------- set_default_tensor_type
@pytest.mark.parametrize("target", ["FloatTensor", "DoubleTensor", "torch.cuda.FloatTensor", "torch.cuda.HalfTensor"])
def test_set_default_tensor_type_to_a_cuda_type(target):
    cls = getattr(ember.cuda, target) if "." not in target else None
    with pytest.warns(UserWarning, match=r"set_default_tensor_type\(\) is deprecated"):
        ember.set_default_tensor_type(cls if cls is not None else target)
    want = (cls or getattr(ember.cuda, target.rpartition(".")[2])).dtype
    made = [ember.ones(2), ember.zeros(1), ember.empty(3), ember.tensor([1.0]), ember.rand(2)]
    assert all(t.device == here() and t.dtype == want for t in made)
    name = {dtype: n for n, dtype in TYPES.items()}[want]
    assert ember.get_default_dtype() == want and ember.ones(1).type() == f"torch.cuda.{name}"
    assert ember.ones(1, device="cpu").type("torch.Tensor").device.type == "cuda"
    ember.set_default_tensor_type("torch.FloatTensor")  # back to the CPU and float32
    assert ember.ones(2).device.type == "cpu" and ember.ones(2).dtype == ember.float32


def test_set_default_tensor_type_errors_with_cuda_types():
    for bad in (ember.cuda.IntTensor, "torch.cuda.LongTensor", ember.cuda.BoolTensor):
        with pytest.raises(TypeError, match="^only floating-point types are supported as the default type$"):
            ember.set_default_tensor_type(bad)
    with pytest.raises(AttributeError, match="module 'torch.cuda' has no attribute 'Foo'"):
        ember.set_default_tensor_type("torch.cuda.Foo")
    assert ember.ones(1).device.type == "cpu"


# ---------------------------------------------------------------- ember.cuda.amp
def test_cuda_amp_autocast_is_ember_amp_autocast_cuda():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ac = ember.cuda.amp.autocast()
    assert w[0].category is FutureWarning and "torch.cuda.amp.autocast(args...)` is deprecated" in str(w[0].message)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        ref = ember.amp.autocast("cuda")
    assert isinstance(ac, ember.amp.autocast)
    assert (ac.device, ac.fast_dtype, ac._enabled) == (ref.device, ref.fast_dtype, ref._enabled) == \
        ("cuda", ember.float16, ref._enabled)
    with ac as ctx:
        assert ctx is ac and ember.is_autocast_enabled("cuda") is ac._enabled
    assert ember.is_autocast_enabled("cuda") is False


def test_cuda_amp_autocast_runs_matmul_in_float16():
    a = ember.randn(4, 4, device="cuda")
    with ember.cuda.amp.autocast():
        out = a @ a
        lin = ember.mm(a, a)
    assert out.dtype == lin.dtype == ember.float16 and out.device == a.device
    assert (a @ a).dtype == ember.float32


def test_custom_fwd_bwd_on_cuda():
    class Double(ember.autograd.Function):
        @staticmethod
        @ember.cuda.amp.custom_fwd(cast_inputs=ember.float32)
        def forward(ctx, x):
            return x * 2

        @staticmethod
        @ember.cuda.amp.custom_bwd
        def backward(ctx, g):
            return g * 2

    x = ember.ones(3, device="cuda", requires_grad=True)
    y = Double.apply(x)
    y.sum().backward()
    assert y.device == x.device and y.cpu().tolist() == [2.0] * 3 and x.grad.cpu().tolist() == [2.0] * 3


def test_grad_scaler_scales_on_the_device():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s = ember.cuda.amp.GradScaler(init_scale=8.0)
    assert [x.category for x in w] == [FutureWarning] and s.is_enabled()
    loss = ember.tensor(1.5, device="cuda")
    scaled = s.scale(loss)
    assert scaled.device == loss.device and scaled.item() == 12.0 and s._scale.device == loss.device
    outs = s.scale([loss, (loss * 2, loss.cpu())])
    assert [t.item() for t in (outs[0], *outs[1])] == [12.0, 24.0, 12.0]
    assert [t.device.type for t in (outs[0], *outs[1])] == ["cuda", "cuda", "cpu"]


def _train(device, scaler, steps=5, inf_at=2):
    nn = pytest.importorskip("ember.nn")
    optim = pytest.importorskip("ember.optim")
    ember.manual_seed(0)
    m = nn.Linear(4, 2)
    x, y = ember.randn(8, 4), ember.randn(8, 2)
    m, x, y = m.to(device), x.to(device), y.to(device)
    opt = optim.SGD(m.parameters(), lr=0.1)
    trace = []
    for step in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(m(x), y)
        scaler.scale(loss).backward()
        if step == inf_at:
            m.weight.grad[0, 0] = float("inf")
        scaler.step(opt)
        scaler.update()
        trace.append((scaler.get_scale(), scaler._get_growth_tracker(), round(loss.item(), 5)))
    return trace, [p.detach().cpu() for p in m.parameters()]


def test_grad_scaler_training_loop_matches_the_cpu():
    """The same loop with ember.cuda.amp.GradScaler on the GPU and ember.amp.GradScaler("cpu") on
    the CPU: the same scales (backoff on the inf step, growth after 2 clean ones), losses, weights."""
    gpu_trace, gpu_params = _train("cuda", ember.cuda.amp.GradScaler(init_scale=2.0**10, growth_interval=2))
    cpu_trace, cpu_params = _train("cpu", ember.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=2))
    assert [t[:2] for t in gpu_trace] == [t[:2] for t in cpu_trace] == \
        [(1024.0, 1), (2048.0, 0), (1024.0, 0), (1024.0, 1), (2048.0, 0)]
    np.testing.assert_allclose([t[2] for t in gpu_trace], [t[2] for t in cpu_trace], rtol=1e-4)
    for g, c in zip(gpu_params, cpu_params):
        np.testing.assert_allclose(g.numpy(), c.numpy(), rtol=1e-4, atol=1e-6)
    assert gpu_trace[-1][2] < gpu_trace[0][2]  # it trains
