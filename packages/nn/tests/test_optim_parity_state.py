"""ember.optim's bookkeeping against torch.optim: state_dict round trips (ember -> ember and a
torch state dict converted tensor by tensor), the load errors, state-dict/load/step hooks,
add_param_group errors, zero_grad, and every lr_scheduler's lr/momentum sequence, warnings and
state_dict."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

import ember
import numpy as np
import pytest
from _nn_testutil import same_error
from test_optim_parity_sweep import _run, _same

ROUND_TRIP = [
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("Adam", {"lr": 0.1, "amsgrad": True}),
    ("AdamW", {"lr": 0.1, "fused": True}),
    ("RMSprop", {"centered": True, "momentum": 0.5}),
    ("Adagrad", {"lr": 0.1}),
    ("NAdam", {}),
    ("RAdam", {}),
    ("Adamax", {}),
    ("Adadelta", {}),
    ("ASGD", {"t0": 1}),
    ("Rprop", {}),
]  # Adafactor: zero-size params divide by 0 in torch too


def _to_ember(value: Any) -> Any:
    """A torch state dict as ember objects, tensor by tensor."""
    import torch

    if isinstance(value, torch.Tensor):
        return ember.from_numpy(value.detach().numpy().copy())
    if isinstance(value, dict):
        return {k: _to_ember(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_ember(v) for v in value)
    return value


def _continue(lib: Any, name: str, kwargs: dict[str, Any], sd: dict[str, Any], params: list[Any]) -> Any:
    """A fresh optimizer (other lrs) over copies of ``params``, loaded from ``sd``, then 3 steps."""
    fresh = [lib.nn.Parameter(p.detach().clone()) for p in params]
    never = lib.nn.Parameter(lib.ones(2))
    second = {"params": fresh[2:] + [never], "lr": 0.7}
    if name == "SGD":
        second["momentum"] = 0.5
    opt = getattr(lib.optim, name)([{"params": fresh[:2]}, second], **dict(kwargs, lr=0.5))
    opt.load_state_dict(sd)
    rng = np.random.default_rng(5)
    for _ in range(3):
        for p in fresh:
            p.grad = lib.from_numpy(rng.standard_normal(tuple(p.shape)).astype("float32"))
        opt.step()
    return fresh, opt


@pytest.mark.parametrize("name,kwargs", ROUND_TRIP)
def test_state_dict_round_trips(torch: Any, name: str, kwargs: dict[str, Any]) -> None:
    pe, oe = _run(ember, name, kwargs, steps=3)
    pt, ot = _run(torch, name, kwargs, steps=3)
    ref_p, ref_o = _continue(torch, name, kwargs, copy.deepcopy(ot.state_dict()), pt)
    # ember's own state dict, and torch's converted one, both resume as torch does
    for sd in (copy.deepcopy(oe.state_dict()), _to_ember(ot.state_dict())):
        fe, o2 = _continue(ember, name, kwargs, sd, pe)
        for a, b in zip(fe, ref_p, strict=True):
            _same(a.detach(), b.detach(), 1e-6, 1e-5, "param")
        _same(o2.state_dict()["state"], ref_o.state_dict()["state"], 1e-6, 1e-5, "state")
        _same(o2.state_dict()["param_groups"], ref_o.state_dict()["param_groups"], 1e-6, 1e-5, "groups")


def test_load_casts_like_torch(torch: Any) -> None:
    # floating state follows the parameter's dtype; `step` is kept, except for fused/capturable
    # groups (float32)
    out = []
    for lib in (ember, torch):
        p = lib.nn.Parameter(lib.ones(2, dtype=lib.float64))
        sd = {
            "state": {
                0: {
                    "step": lib.tensor(3.0, dtype=lib.float64),
                    "exp_avg": lib.ones(2),
                    "exp_avg_sq": lib.ones(2),
                    "extra": [lib.ones(1), (lib.ones(1),)],
                }
            },
            "param_groups": [dict(lib.optim.Adam([lib.nn.Parameter(lib.ones(1))]).param_groups[0], params=[0])],
        }
        for fused in (None, True):
            sd["param_groups"][0]["fused"] = fused
            opt = lib.optim.Adam([p])
            opt.load_state_dict(sd)
            st = opt.state[p]
            out.append(
                [
                    str(st["step"].dtype),
                    str(st["exp_avg"].dtype),
                    str(st["extra"][0].dtype),
                    str(st["extra"][1][0].dtype),
                    type(st["extra"]).__name__,
                ]
            )
    assert out[:2] == out[2:]


def test_load_state_dict_errors(torch: Any) -> None:
    def run(lib: Any, groups: Callable[[list[Any]], Any]) -> None:
        ps = [lib.nn.Parameter(lib.ones(2)) for _ in range(3)]
        sd = lib.optim.SGD([{"params": ps[:2]}, {"params": ps[2:]}], lr=0.1).state_dict()
        lib.optim.SGD(groups(ps), lr=0.1).load_state_dict(sd)

    for groups in (lambda ps: ps, lambda ps: [{"params": ps[:1]}, {"params": ps[1:]}]):
        same_error(lambda g=groups: run(ember, g), lambda g=groups: run(torch, g))


def test_state_dict_and_load_hooks(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        calls: list[Any] = []
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        p.grad = lib.ones(2)
        opt.step()
        opt.register_state_dict_pre_hook(lambda o: calls.append("pre"))
        opt.register_state_dict_pre_hook(lambda o: calls.append("pre-first"), prepend=True)

        def post(o: Any, sd: dict[str, Any]) -> dict[str, Any]:
            calls.append(("post", sorted(sd)))
            return dict(sd, extra=1)

        h = opt.register_state_dict_post_hook(post)
        sd = opt.state_dict()
        calls.append(sorted(sd))
        h.remove()
        calls.append(sorted(opt.state_dict()))

        def load_pre(o: Any, sd: dict[str, Any]) -> dict[str, Any]:
            calls.append(("load_pre", sorted(sd)))
            sd = copy.deepcopy(sd)
            sd["param_groups"][0]["lr"] = 0.25
            return sd

        opt.register_load_state_dict_pre_hook(load_pre)
        opt.register_load_state_dict_post_hook(lambda o: calls.append(("load_post", o.param_groups[0]["lr"])))
        opt.register_load_state_dict_post_hook(lambda o: calls.append("load_post_first"), prepend=True)
        opt.load_state_dict(sd)
        calls.append(opt.param_groups[0]["lr"])
        return calls

    assert run(ember) == run(torch)


def test_step_hooks_and_global_hooks(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        from importlib import import_module

        optimizer_mod = import_module(f"{lib.__name__}.optim.optimizer")
        calls: list[Any] = []
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=0.1)
        p.grad = lib.ones(2)
        opt.register_step_pre_hook(lambda o, a, k: calls.append(("pre", a[0] is o, a[1:], k)))
        opt.register_step_post_hook(lambda o, a, k: calls.append(("post", a[0] is o, a[1:], k)))
        g1 = optimizer_mod.register_optimizer_step_pre_hook(lambda o, a, k: calls.append("gpre"))
        g2 = optimizer_mod.register_optimizer_step_post_hook(lambda o, a, k: calls.append("gpost"))
        try:
            opt.step(closure=None)
        finally:
            g1.remove()
            g2.remove()
        opt.step()
        calls.append(p.detach().numpy().tolist())
        return calls

    assert run(ember) == run(torch)


def test_add_param_group_errors_and_zero_grad(torch: Any) -> None:
    def make(lib: Any) -> tuple[Any, list[Any]]:
        ps = [lib.nn.Parameter(lib.ones(2)) for _ in range(3)]
        return lib.optim.Adam(ps[:1]), ps

    cases: list[Callable[[Any, list[Any]], Any]] = [
        lambda o, ps: o.add_param_group({"params": ps[:1]}),
        lambda o, ps: o.add_param_group([ps[1]]),
        lambda o, ps: o.add_param_group({"params": {ps[1]}}),
        lambda o, ps: o.add_param_group({"params": [("a", ps[1]), ps[2]]}),
        lambda o, ps: o.add_param_group({"params": [("a", ps[1])]}),
        lambda o, ps: o.add_param_group({"params": [1.0]}),
    ]
    for case in cases:
        same_error(lambda c=case: c(*make(ember)), lambda c=case: c(*make(torch)))
    for lib in (ember, torch):
        opt, ps = make(lib)
        with pytest.warns(UserWarning, match="duplicate parameters"):
            opt.add_param_group({"params": [ps[1], ps[1]], "lr": 0.5})
        assert opt.param_groups[1]["betas"] == (0.9, 0.999)
        ps[0].grad = lib.ones(2)
        opt.zero_grad(set_to_none=False)
        assert ps[0].grad is not None and ps[0].grad.abs().sum().item() == 0.0
        opt.zero_grad()
        assert ps[0].grad is None


# ---- lr schedulers -------------------------------------------------------------------------------
def _sched_opt(lib: Any, adam: bool) -> Any:
    ps = [lib.nn.Parameter(lib.ones(2)) for _ in range(2)]
    groups = [{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(ps)]
    return lib.optim.Adam(groups, lr=0.1) if adam else lib.optim.SGD(groups, lr=0.1, momentum=0.9)


SCHEDULERS: dict[str, Callable[[Any, Any], Any]] = {
    "StepLR": lambda s, o: s.StepLR(o, 3, gamma=0.5),
    "MultiStepLR": lambda s, o: s.MultiStepLR(o, [2, 5, 5, 8], gamma=0.3),
    "ConstantLR": lambda s, o: s.ConstantLR(o, factor=0.25, total_iters=4),
    "LinearLR": lambda s, o: s.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=5),
    "ExponentialLR": lambda s, o: s.ExponentialLR(o, 0.8),
    "PolynomialLR": lambda s, o: s.PolynomialLR(o, total_iters=6, power=1.7),
    "CosineAnnealingLR": lambda s, o: s.CosineAnnealingLR(o, T_max=4, eta_min=0.01),
    "CosineAnnealingWarmRestarts": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=1e-3),
    "CyclicLR-triangular": lambda s, o: s.CyclicLR(o, 0.01, 0.1, step_size_up=3),
    "CyclicLR-triangular2": lambda s, o: s.CyclicLR(
        o, [0.01, 0.02], [0.1, 0.3], step_size_up=2, step_size_down=3, mode="triangular2"
    ),
    "CyclicLR-exp_range": lambda s, o: s.CyclicLR(o, 0.01, 0.1, step_size_up=2, mode="exp_range", gamma=0.9),
    "CyclicLR-fn": lambda s, o: s.CyclicLR(
        o, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 0.5**x, scale_mode="iterations"
    ),
    "CyclicLR-no-momentum": lambda s, o: s.CyclicLR(o, 0.01, 0.1, step_size_up=2, cycle_momentum=False),
    "OneCycleLR": lambda s, o: s.OneCycleLR(o, max_lr=[0.5, 1.0], total_steps=12),
    "OneCycleLR-three-phase": lambda s, o: s.OneCycleLR(
        o, max_lr=0.5, epochs=3, steps_per_epoch=4, three_phase=True, anneal_strategy="linear"
    ),
    "LambdaLR": lambda s, o: s.LambdaLR(o, [lambda e: 0.9**e, lambda e: 1 / (e + 1)]),
    "MultiplicativeLR": lambda s, o: s.MultiplicativeLR(o, lambda e: 0.95),
    "SequentialLR": lambda s, o: s.SequentialLR(
        o, [s.LinearLR(o, 0.1, total_iters=3), s.ExponentialLR(o, 0.9)], milestones=[3]
    ),
    "ChainedScheduler": lambda s, o: s.ChainedScheduler([s.ConstantLR(o, 0.5, total_iters=3), s.ExponentialLR(o, 0.9)]),
}


def _plain(sd: dict[str, Any]) -> dict[str, Any]:
    """A scheduler state dict without its callables and optimizer reference (not comparable)."""
    out: dict[str, Any] = {}
    for k, v in sd.items():
        if callable(v) or k == "optimizer":
            continue
        if isinstance(v, list) and v and isinstance(v[0], dict):
            v = [_plain(x) for x in v]
        elif isinstance(v, dict):
            v = _plain(v)
        out[k] = v
    return out


def _schedule(lib: Any, name: str, adam: bool, steps: int = 12) -> tuple[Any, ...]:
    opt = _sched_opt(lib, adam)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sched = SCHEDULERS[name](lib.optim.lr_scheduler, opt)
        lrs, moms = [sched.get_last_lr()], []
        for _ in range(steps):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr())
            moms.append([g.get("momentum", g.get("betas")) for g in opt.param_groups])
    return lrs, moms, [(w.category, str(w.message)) for w in caught], _plain(sched.state_dict())


@pytest.mark.parametrize("adam", [False, True])
@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_sequences(torch: Any, name: str, adam: bool) -> None:
    e, t = _schedule(ember, name, adam), _schedule(torch, name, adam)
    np.testing.assert_allclose(np.array(e[0]), np.array(t[0]), rtol=1e-12, atol=1e-15)
    assert e[1] == t[1] and e[2] == t[2]
    assert list(e[3]) == list(t[3])  # same keys in the same order (torch's attribute order)
    assert str(e[3]) == str(t[3])


@pytest.mark.parametrize(
    "name",
    [
        "StepLR",
        "CosineAnnealingWarmRestarts",
        "CyclicLR-triangular2",
        "OneCycleLR",
        "SequentialLR",
        "ChainedScheduler",
        "LambdaLR",
    ],
)
def test_scheduler_state_dict_resumes(name: str) -> None:
    full = _schedule(ember, name, False, steps=10)[0]
    opt = _sched_opt(ember, False)
    sched = SCHEDULERS[name](ember.optim.lr_scheduler, opt)
    for _ in range(4):
        opt.step()
        sched.step()
    sd = (
        copy.deepcopy(_plain(sched.state_dict()))
        if name in ("SequentialLR", "ChainedScheduler")
        else sched.state_dict()
    )
    opt2 = _sched_opt(ember, False)
    sched2 = SCHEDULERS[name](ember.optim.lr_scheduler, opt2)
    sched2.load_state_dict(sd)
    for g2, g in zip(opt2.param_groups, opt.param_groups, strict=True):
        g2["lr"] = g["lr"]
        if "momentum" in g:
            g2["momentum"] = g["momentum"]
    lrs = full[:5]
    for _ in range(6):
        opt2.step()
        sched2.step()
        lrs.append(sched2.get_last_lr())
    np.testing.assert_allclose(np.array(lrs), np.array(full[:11]), rtol=1e-12)


def _warnings_of(lib: Any, action: Callable[[Any, Any], None]) -> list[tuple[Any, str]]:
    opt = _sched_opt(lib, False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action(lib, opt)
    return [(w.category, str(w.message)) for w in caught]


WARNING_CASES: dict[str, Callable[[Any, Any], None]] = {
    # scheduler.step() before optimizer.step()
    "order": lambda lib, o: lib.optim.lr_scheduler.StepLR(o, 2).step(),
    # the deprecated epoch argument
    "epoch": lambda lib, o: (o.step(), lib.optim.lr_scheduler.StepLR(o, 2).step(3)),
    # get_lr() outside step()
    "get_lr": lambda lib, o: lib.optim.lr_scheduler.ExponentialLR(o, 0.5).get_lr(),
    # fractional epoch of CosineAnnealingWarmRestarts: no warning, but a value
    "cawr": lambda lib, o: [
        lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 2, 2).step(e) for e in (0.5, 1.7, 2.4, 7.3)
    ],
}


@pytest.mark.parametrize("name", list(WARNING_CASES))
def test_scheduler_warnings(torch: Any, name: str) -> None:
    assert _warnings_of(ember, WARNING_CASES[name]) == _warnings_of(torch, WARNING_CASES[name])


def test_cosine_warm_restarts_fractional_epochs(torch: Any) -> None:
    def run(lib: Any) -> list[list[float]]:
        opt = _sched_opt(lib, False)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=3, eta_min=0.01)
        out = []
        for epoch in (0.25, 0.9, 1.5, 2.0, 3.3, 7.9, 8.0, 12.6):
            sched.step(epoch)
            out.append(sched.get_last_lr())
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(run(ember), run(torch), rtol=1e-12)


@pytest.mark.parametrize("mode,threshold_mode", [("min", "rel"), ("min", "abs"), ("max", "rel"), ("max", "abs")])
def test_reduce_lr_on_plateau(torch: Any, mode: str, threshold_mode: str) -> None:
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.5, 0.5, 0.5, 0.5, 0.5, 0.49, 0.6, 0.7, 0.8, 0.8, 0.8]
    if mode == "max":
        metrics = [-m for m in metrics]

    def run(lib: Any) -> tuple[Any, ...]:
        opt = _sched_opt(lib, False)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(
            opt,
            mode=mode,
            factor=0.5,
            patience=1,
            cooldown=2,
            threshold=0.05,
            threshold_mode=threshold_mode,
            min_lr=[0.02, 0.05],
            eps=1e-3,
        )
        lrs = []
        for m in metrics:
            opt.step()
            sched.step(m)
            lrs.append(sched.get_last_lr())
        sd = {k: v for k, v in sched.state_dict().items() if k != "optimizer"}
        return lrs, sd

    e, t = run(ember), run(torch)
    assert e[0] == t[0]
    assert str(e[1]) == str(t[1])


def test_scheduler_lr_as_tensor(torch: Any) -> None:
    # a tensor lr stays a tensor, updated in place, as torch's schedulers do
    def run(lib: Any) -> tuple[list[float], str]:
        p = lib.nn.Parameter(lib.ones(2))
        lr = lib.tensor(0.1)
        opt = lib.optim.Adam([p], lr=lr)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        out = []
        for _ in range(3):
            opt.step()
            sched.step()
            out.append(float(opt.param_groups[0]["lr"]))
        return out, type(opt.param_groups[0]["lr"]).__name__ + str(opt.param_groups[0]["lr"] is lr)

    e, t = run(ember), run(torch)
    np.testing.assert_allclose(e[0], t[0], rtol=1e-6)
    assert e[1] == t[1]
