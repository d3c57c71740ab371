"""Optimizers: same init and gradients as torch → same parameter trajectories and state dicts."""

from __future__ import annotations

from typing import Any

import ember
import ember.nn as nn
import ember.optim as optim
import numpy as np
import pytest
from _nn_testutil import close

INIT = [np.array([1.0, -2.0, 0.5], dtype="float32"), np.array([[0.3, -0.7], [1.5, 0.01]], dtype="float32")]
COEF = [np.array([1.0, 0.5, -3.0], dtype="float32"), np.array([[2.0, -1.0], [0.25, 4.0]], dtype="float32")]


def _params(lib: Any) -> list[Any]:
    if lib is ember:
        return [nn.Parameter(ember.from_numpy(a.copy())) for a in INIT]
    return [lib.nn.Parameter(lib.from_numpy(a.copy())) for a in INIT]


def _run(lib: Any, cls_name: str, kwargs: dict[str, Any], steps: int = 6) -> tuple[list[Any], Any]:
    params = _params(lib)
    mod = optim if lib is ember else lib.optim
    opt = getattr(mod, cls_name)([{"params": params[:1]}, {"params": params[1:], "lr": 0.05}], **kwargs)
    coefs = [lib.from_numpy(c) for c in COEF]
    for _ in range(steps):
        opt.zero_grad()
        loss = sum(((p * p * p).abs() * c + p * c).sum() for p, c in zip(params, coefs, strict=False))
        loss.backward()
        opt.step()
    return params, opt


CASES = [
    ("SGD", {"lr": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.3, "weight_decay": 0.1, "maximize": True}),
    ("Adam", {"lr": 0.1}), ("Adam", {"lr": 0.1, "amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.1, "maximize": True, "decoupled_weight_decay": True, "weight_decay": 0.2}),
    ("AdamW", {"lr": 0.1}), ("AdamW", {"lr": 0.1, "amsgrad": True, "weight_decay": 0.3}),
    ("RMSprop", {}), ("RMSprop", {"centered": True, "momentum": 0.9, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1, "weight_decay": 0.05}),
    ("Adadelta", {}), ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "maximize": True}),
    ("Adamax", {}), ("Adamax", {"weight_decay": 0.1}),
    ("NAdam", {}), ("NAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {}), ("RAdam", {"weight_decay": 0.1}),
]


@pytest.mark.parametrize("name,kwargs", CASES)
def test_trajectory_matches_torch(torch: Any, name: str, kwargs: dict[str, Any]) -> None:
    steps = 8 if name == "RAdam" else 4  # RAdam's rectified branch starts at step 6
    pe, oe = _run(ember, name, kwargs, steps)
    pt, ot = _run(torch, name, kwargs, steps)
    for a, b in zip(pe, pt, strict=False):
        close(a, b, atol=1e-6, rtol=1e-5)
    assert oe.defaults == ot.defaults
    assert repr(oe) == repr(ot)
    se, st = oe.state_dict(), ot.state_dict()
    assert se["param_groups"] == st["param_groups"]
    assert list(se["state"]) == list(st["state"])
    for k in st["state"]:
        assert list(se["state"][k]) == list(st["state"][k])
        for key, v in st["state"][k].items():
            close(se["state"][k][key], v, atol=1e-6, rtol=1e-5)
            assert str(se["state"][k][key].dtype) == str(v.dtype)


def test_spec_checkpoints() -> None:
    def run(**kw: Any) -> list[float]:
        p = nn.Parameter(ember.tensor([1.0, -2.0]))
        opt = kw.pop("cls", optim.SGD)([p], lr=0.1, **kw)
        for _ in range(2):
            opt.zero_grad()
            (p * p).sum().backward()
            opt.step()
        return [round(v, 6) for v in p.tolist()]

    assert run(momentum=0.9) == [0.46, -0.92]
    assert run(momentum=0.9, nesterov=True) == [0.2224, -0.4448]
    assert run(cls=optim.AdamW, weight_decay=0.1) == [0.781572, -1.761409]
    assert run(cls=optim.Adam, weight_decay=0.1) == [0.800412, -1.800166]


def test_validation_errors() -> None:
    p = [nn.Parameter(ember.ones(1))]
    with pytest.raises(ValueError, match="Invalid learning rate: -0.1"):
        optim.SGD(p, lr=-0.1)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 0: 1.0"):
        optim.Adam(p, betas=(1.0, 0.9))
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        optim.SGD(p, lr=0.1, nesterov=True)
    with pytest.raises(TypeError, match="params argument given to the optimizer should be an iterable of Tensors or "
                                        "dicts, but got torch.FloatTensor"):
        optim.SGD(ember.ones(1), lr=0.1)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([ember.ones(1, requires_grad=True) * 2], lr=0.1)
    opt = optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": p})
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD(p + p, lr=0.1)


def test_param_groups_names_and_zero_grad() -> None:
    m = nn.Linear(2, 1)
    opt = optim.SGD(m.named_parameters(), lr=0.1, momentum=0.9)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    extra = nn.Parameter(ember.zeros(1))
    opt.add_param_group({"params": [("extra", extra)], "lr": 1.0})
    assert opt.param_groups[1]["momentum"] == 0.9 and opt.param_groups[1]["lr"] == 1.0
    m(ember.ones(1, 2)).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert float(m.weight.grad.abs().sum().item()) == 0.0
    opt.zero_grad()
    assert m.weight.grad is None
    opt.step()  # no grads: nothing happens, no state
    assert len(opt.state) == 0


def test_state_dict_roundtrip_and_closure() -> None:
    pe, oe = _run(ember, "Adam", {"lr": 0.1}, 2)
    sd = oe.state_dict()
    fresh = [nn.Parameter(p.detach().clone().double()) for p in pe]
    o2 = optim.Adam([{"params": fresh[:1]}, {"params": fresh[1:]}], lr=0.5)
    o2.load_state_dict(sd)
    assert o2.param_groups[1]["lr"] == 0.05 and o2.param_groups[0]["params"][0] is fresh[0]
    st = o2.state[fresh[0]]
    assert st["exp_avg"].dtype == ember.float64 and st["step"].dtype == ember.float32
    with pytest.raises(ValueError, match="loaded state dict has a different number of parameter groups"):
        optim.Adam(fresh).load_state_dict(sd)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        optim.Adam([{"params": fresh}, {"params": [nn.Parameter(ember.ones(1))]}]).load_state_dict(sd)
    p = nn.Parameter(ember.tensor([2.0]))
    opt = optim.SGD([p], lr=0.25)

    def closure() -> Any:
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    assert opt.step(closure).item() == 4.0 and p.item() == 1.0


def test_step_hooks() -> None:
    p = nn.Parameter(ember.ones(1))
    opt = optim.SGD([p], lr=0.1)
    calls: list[str] = []
    h = opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    opt.step()
    h.remove()
    opt.step()
    assert calls == ["pre", "post", "post"]
