"""nn.Module: registration, traversal, state dicts, conversion and repr, compared with torch."""

from __future__ import annotations

import copy
from collections import OrderedDict
from typing import Any

import ember
import ember.nn as nn
import pytest
from _nn_testutil import close, copy_params, pair


def _net(lib: Any) -> Any:
    class Net(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = lib.nn.Linear(3, 4)
            self.register_buffer("steps", lib.zeros(2))
            self.register_buffer("scratch", lib.ones(1), persistent=False)
            self.seq = lib.nn.Sequential(lib.nn.Linear(4, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2, bias=False))
            self.scale = lib.nn.Parameter(lib.ones(1))

        def forward(self, x: Any) -> Any:
            return self.seq(self.fc(x)) * self.scale

    return Net()


def test_names_and_order_match_torch(torch: Any) -> None:
    e, t = _net(ember), _net(torch)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in e.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in e.named_children()] == [n for n, _ in t.named_children()]
    assert list(e.state_dict()) == list(t.state_dict())
    assert dict(e.state_dict()._metadata) == dict(t.state_dict()._metadata)
    assert [n for n, _ in e.named_parameters(prefix="m", recurse=False)] == ["m.scale"]
    assert repr(e) == repr(t)


def test_forward_and_grads_match_torch(torch: Any) -> None:
    e, t = _net(ember), _net(torch)
    copy_params(t, e)
    xe, xt = pair(torch, [[0.1, -0.2, 0.3], [1.0, 2.0, -3.0]])
    ye, yt = e(xe), t(xt)
    close(ye, yt)
    ye.sum().backward()
    yt.sum().backward()
    for (_n, pe), (_, pt) in zip(e.named_parameters(), t.named_parameters(), strict=False):
        close(pe.grad, pt.grad)


def test_shared_parameters_yielded_once() -> None:
    lin = nn.Linear(2, 2)
    s = nn.Sequential(lin, lin)
    assert len(list(s.parameters())) == 2
    assert len(list(s.named_parameters(remove_duplicate=False))) == 4
    assert list(s.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert len(list(s.modules())) == 2


def test_setattr_errors() -> None:
    class Early(nn.Module):
        def __init__(self) -> None:
            self.p = nn.Parameter(ember.ones(1))

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Early()
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' as parameter 'weight' "
                                        r"\(torch.nn.Parameter or None expected\)"):
        m.weight = ember.ones(2, 2)
    with pytest.raises(KeyError, match="parameter name can"):
        m.register_parameter("a.b", None)
    with pytest.raises(KeyError, match="attribute 'forward' already exists"):
        m.register_buffer("forward", ember.ones(1))
    with pytest.raises(AttributeError, match="'Linear' object has no attribute 'foo'"):
        _ = m.foo
    with pytest.raises(NotImplementedError, match=r'Module \[ModuleList\] is missing the required "forward"'):
        nn.ModuleList()(1)
    m.bias = None
    assert m.bias is None and "bias" in m._parameters
    m.register_buffer("b", ember.zeros(1))
    m.b = ember.ones(3)  # tensor into an existing buffer slot updates the buffer
    assert m._buffers["b"].shape == (3,)
    del m.b
    assert "b" not in m._buffers
    assert "weight" in dir(m) and "in_features" in dir(m)


def test_buffer_marker() -> None:
    m = nn.Module()
    m.a = nn.Buffer(ember.ones(2))
    m.b = nn.Buffer(ember.ones(2), persistent=False)
    assert list(m.state_dict()) == ["a"]
    assert [n for n, _ in m.named_buffers()] == ["a", "b"]
    assert type(m.a) is ember.Tensor


def test_get_submodule_parameter_buffer() -> None:
    m = _net(ember)
    assert m.get_submodule("seq.0") is m.seq[0]
    assert m.get_parameter("seq.0.bias") is m.seq[0].bias
    assert m.get_buffer("steps") is m.steps
    with pytest.raises(AttributeError):
        m.get_submodule("seq.9")
    with pytest.raises(AttributeError, match="is not an nn.Parameter"):
        m.get_parameter("steps")
    new = nn.Tanh()
    m.set_submodule("seq.1", new)
    assert m.seq[1] is new
    with pytest.raises(AttributeError, match="has no attribute `zz`"):
        m.set_submodule("seq.zz", new, strict=True)
    w = m.fc.weight
    assert m.to_empty(device="cpu") is m and m.fc.weight is w and w.shape == (4, 3)


def test_load_state_dict_roundtrip_and_errors(torch: Any) -> None:
    e, t = _net(ember), _net(torch)
    sd = e.state_dict()
    f = _net(ember)
    w = f.fc.weight
    assert repr(f.load_state_dict(sd)) == "<All keys matched successfully>"
    assert f.fc.weight is w
    close(f.fc.weight, e.fc.weight)
    bad = OrderedDict(sd)
    del bad["fc.bias"]
    bad["extra"] = ember.ones(1)
    tbad = OrderedDict(t.state_dict())
    del tbad["fc.bias"]
    tbad["extra"] = torch.ones(1)
    with pytest.raises(RuntimeError) as ee:
        f.load_state_dict(bad)
    with pytest.raises(RuntimeError) as te:
        t.load_state_dict(tbad)
    assert str(ee.value) == str(te.value)
    res = f.load_state_dict(bad, strict=False)
    tres = t.load_state_dict(tbad, strict=False)
    assert res == tuple(tres) and res.missing_keys == ["fc.bias"]
    bad2 = OrderedDict(sd)
    bad2["fc.bias"] = ember.ones(7)
    tbad2 = OrderedDict(t.state_dict())
    tbad2["fc.bias"] = torch.ones(7)
    with pytest.raises(RuntimeError) as ee:
        f.load_state_dict(bad2, strict=False)
    with pytest.raises(RuntimeError) as te:
        t.load_state_dict(tbad2, strict=False)
    assert str(ee.value) == str(te.value)


def test_load_state_dict_dtype_and_assign() -> None:
    m = nn.Linear(2, 1)
    sd = {"weight": ember.ones(1, 2, dtype=ember.float64), "bias": ember.zeros(1, dtype=ember.float64)}
    m.load_state_dict(sd)
    assert m.weight.dtype == ember.float32 and isinstance(m.weight, nn.Parameter)
    m.weight.requires_grad_(False)
    m.load_state_dict(sd, assign=True)
    assert m.weight.dtype == ember.float64 and isinstance(m.weight, nn.Parameter)
    assert not m.weight.requires_grad and m.bias.requires_grad


def test_state_dict_keep_vars_and_hooks() -> None:
    m = nn.Linear(2, 1)
    assert m.state_dict(keep_vars=True)["weight"] is m.weight
    assert not m.state_dict()["weight"].requires_grad
    seen = []
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: seen.append(prefix))

    def post(mod: Any, sd: Any, prefix: str, meta: Any) -> Any:
        sd[prefix + "extra"] = ember.ones(1)

    h = m._register_state_dict_hook(post)
    assert "extra" in m.state_dict(prefix="p.") or "p.extra" in m.state_dict(prefix="p.")
    h.remove()
    assert "extra" not in m.state_dict()
    got = []
    m.register_load_state_dict_post_hook(lambda mod, keys: got.append(list(keys.missing_keys)))
    m.load_state_dict({"weight": ember.ones(1, 2)}, strict=False)
    assert got == [["bias"]] and seen


def test_train_eval_requires_grad_zero_grad() -> None:
    m = _net(ember)
    assert m.training and m.eval() is m and not m.seq[0].training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        m.train(1)  # type: ignore[arg-type]
    m.train()
    m(ember.ones(1, 3)).sum().backward()
    m.zero_grad(set_to_none=False)
    assert float(m.fc.weight.grad.abs().sum().item()) == 0.0
    m.zero_grad()
    assert m.fc.weight.grad is None
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_to_and_casts() -> None:
    m = _net(ember)
    w = m.fc.weight
    m.register_buffer("count", ember.tensor(3))
    assert m.double() is m
    assert m.fc.weight is w and w.dtype == ember.float64 and m.steps.dtype == ember.float64
    assert m.count.dtype == ember.int64
    m.to(ember.float32)
    assert w.dtype == ember.float32
    m.to(dtype=ember.float16).float()
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex dtypes, but got "
                                        "desired dtype=torch.int64"):
        m.to(ember.int64)
    if ember.cuda.is_available():  # the parameters move over and back, keeping their identity
        m.to("cuda")
        assert w.device.type == "cuda" and all(p.device.type == "cuda" for p in m.parameters())
    else:
        with pytest.raises(Exception, match="CUDA"):
            m.to("cuda")
    assert m.cpu() is m and m.to("cpu") is m
    assert w.device.type == "cpu" and all(p.device.type == "cpu" for p in m.parameters())


def test_apply_order_and_deepcopy() -> None:
    m = _net(ember)
    order: list[str] = []
    m.apply(lambda mod: order.append(type(mod).__name__))
    assert order[-1] == "Net" and order[0] == "Linear"
    c = copy.deepcopy(m)
    assert isinstance(c.fc.weight, nn.Parameter) and c.fc.weight is not m.fc.weight
    close(c.fc.weight, m.fc.weight)


def test_parameter_basics(torch: Any) -> None:
    p = nn.Parameter(ember.tensor([1.0]))
    assert repr(p) == repr(torch.nn.Parameter(torch.tensor([1.0])))
    assert type(p * 2) is ember.Tensor and p.requires_grad
    assert not nn.Parameter(ember.ones(1), requires_grad=False).requires_grad
    assert nn.Parameter().shape == (0,)
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        nn.Parameter(ember.tensor([1, 2]))


def test_module_repr_nested(torch: Any) -> None:
    def build(lib: Any) -> Any:
        return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.Sequential(lib.nn.Tanh(), lib.nn.Dropout(0.2)),
                                 lib.nn.ModuleList([lib.nn.Linear(1, 1) for _ in range(3)] + [lib.nn.ReLU()]),
                                 lib.nn.ModuleDict({"a": lib.nn.GELU("tanh")}))

    assert repr(build(ember)) == repr(build(torch))
