"""LR schedulers: the lr sequence (and momentum, where cycled) must equal torch's exactly."""

from __future__ import annotations

import warnings
from typing import Any

import ember
import ember.nn as nn
import ember.optim as optim
import pytest
from ember.optim import lr_scheduler as S


def _opt(lib: Any, cls: str = "SGD", **kw: Any) -> Any:
    if lib is ember:
        ps = [nn.Parameter(ember.ones(1)), nn.Parameter(ember.ones(1))]
        mod = optim
    else:
        ps = [lib.nn.Parameter(lib.ones(1)), lib.nn.Parameter(lib.ones(1))]
        mod = lib.optim
    kw.setdefault("lr", 1.0)
    return getattr(mod, cls)([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.5}], **kw)


def _sequence(lib: Any, make: Any, steps: int = 12, cls: str = "SGD", metric: Any = None,
              **opt_kw: Any) -> list[Any]:
    opt = _opt(lib, cls, **opt_kw)
    sched = make(lib, opt)
    key = "betas" if cls == "Adam" else "momentum"
    out = [(sched.get_last_lr(), [g.get(key) for g in opt.param_groups])]
    for i in range(steps):
        opt.step()
        if metric is None:
            sched.step()
        else:
            sched.step(metric(i))
        out.append((sched.get_last_lr(), [g.get(key) for g in opt.param_groups]))
    return out


def _mod(lib: Any) -> Any:
    return S if lib is ember else lib.optim.lr_scheduler


def _double(epoch: int) -> float:
    return 0.9**epoch


CASES = {
    "lambda": lambda lib, o: _mod(lib).LambdaLR(o, [_double, lambda e: 1 / (e + 1)]),
    "multiplicative": lambda lib, o: _mod(lib).MultiplicativeLR(o, lambda e: 0.8),
    "step": lambda lib, o: _mod(lib).StepLR(o, 2, 0.5),
    "multistep": lambda lib, o: _mod(lib).MultiStepLR(o, [2, 4, 4], 0.1),
    "constant": lambda lib, o: _mod(lib).ConstantLR(o, 0.5, 2),
    "linear": lambda lib, o: _mod(lib).LinearLR(o, 0.1, 0.9, 4),
    "exponential": lambda lib, o: _mod(lib).ExponentialLR(o, 0.7),
    "polynomial": lambda lib, o: _mod(lib).PolynomialLR(o, 4, 2.0),
    "cosine": lambda lib, o: _mod(lib).CosineAnnealingLR(o, 4, 0.01),
    "warm_restarts": lambda lib, o: _mod(lib).CosineAnnealingWarmRestarts(o, 3, 2, 0.05),
    "cyclic": lambda lib, o: _mod(lib).CyclicLR(o, 0.1, [1.0, 2.0], 3, 2, mode="triangular2"),
    "cyclic_exp": lambda lib, o: _mod(lib).CyclicLR(o, 0.1, 1.0, 2, mode="exp_range", gamma=0.9),
    "onecycle": lambda lib, o: _mod(lib).OneCycleLR(o, 1.0, total_steps=12),
    "onecycle3": lambda lib, o: _mod(lib).OneCycleLR(o, [1.0, 0.1], total_steps=12, three_phase=True,
                                                     anneal_strategy="linear"),
    "sequential": lambda lib, o: _mod(lib).SequentialLR(
        o, [_mod(lib).LinearLR(o, 0.1, 1.0, 2), _mod(lib).ExponentialLR(o, 0.5)], [2]),
    "chained": lambda lib, o: _mod(lib).ChainedScheduler(
        [_mod(lib).ConstantLR(o, 0.5, 3), _mod(lib).ExponentialLR(o, 0.9)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_sequence_matches_torch(torch: Any, name: str) -> None:
    make = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _sequence(ember, make, momentum=0.9) == _sequence(torch, make, momentum=0.9)
        if name.startswith(("onecycle", "cyclic")):
            assert _sequence(ember, make, cls="Adam") == _sequence(torch, make, cls="Adam")


def test_reduce_on_plateau_matches_torch(torch: Any) -> None:
    metrics = [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 2.0, 2.0, 2.0, 2.0, 2.0]

    def make(lib: Any, o: Any) -> Any:
        return _mod(lib).ReduceLROnPlateau(o, patience=1, cooldown=1, min_lr=[0.0, 0.02])

    def make_max(lib: Any, o: Any) -> Any:
        return _mod(lib).ReduceLROnPlateau(o, mode="max", threshold_mode="abs", threshold=0.1, patience=0)

    for mk in (make, make_max):
        assert (_sequence(ember, mk, metric=lambda i: metrics[i])
                == _sequence(torch, mk, metric=lambda i: metrics[i]))


def test_spec_sequences() -> None:
    def seq(make: Any, n: int = 6) -> list[float]:
        p = nn.Parameter(ember.ones(1))
        o = optim.SGD([p], lr=1.0)
        s = make(o)
        out = [round(s.get_last_lr()[0], 5)]
        for _ in range(n):
            o.step()
            s.step()
            out.append(round(s.get_last_lr()[0], 5))
        return out

    assert seq(lambda o: S.StepLR(o, 2, 0.5)) == [1, 1, 0.5, 0.5, 0.25, 0.25, 0.125]
    assert seq(lambda o: S.CosineAnnealingLR(o, 4), 8) == [1, 0.85355, 0.5, 0.14645, 0, 0.14645, 0.5, 0.85355, 1]
    assert seq(lambda o: S.OneCycleLR(o, 1.0, total_steps=10), 9)[:3] == [0.04, 0.52, 1.0]


def test_scheduler_warnings_errors_and_state() -> None:
    p = nn.Parameter(ember.ones(1))
    o = optim.SGD([p], lr=1.0)
    s = S.StepLR(o, 1, 0.5)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`"):
        s.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        s.get_lr()
    sd = s.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 1 and sd["base_lrs"] == [1.0]
    s2 = S.StepLR(optim.SGD([nn.Parameter(ember.ones(1))], lr=1.0), 1, 0.5)
    s2.load_state_dict(sd)
    assert s2.last_epoch == 1
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"):
        S.StepLR(optim.SGD([nn.Parameter(ember.ones(1))], lr=1.0), 1, last_epoch=3)
    lam = S.LambdaLR(optim.SGD([nn.Parameter(ember.ones(1))], lr=1.0), lambda e: 1.0)
    assert lam.state_dict()["lr_lambdas"] == [None]
    oc = S.OneCycleLR(optim.SGD([nn.Parameter(ember.ones(1))], lr=1.0, momentum=0.9), 1.0, total_steps=2)
    oc.optimizer.step()
    oc.step()
    oc.step()
    with pytest.raises(ValueError, match="Tried to step 3 times. The specified number of total steps is 2"):
        oc.step()
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        S.OneCycleLR(optim.Adagrad([nn.Parameter(ember.ones(1))]), 1.0, total_steps=2)
