"""ember.optim.swa_utils vs torch: AveragedModel (SWA, EMA, use_buffers), SWALR, update_bn."""

from __future__ import annotations

from typing import Any

import ember
import ember.nn as enn
import numpy as np
import pytest


def _models(torch: Any) -> tuple[Any, Any]:
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2))
    em = enn.Sequential(enn.Linear(3, 4), enn.BatchNorm1d(4), enn.Linear(4, 2))
    em.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    return tm, em


def _perturb(lib: Any, model: Any, k: int) -> None:
    rng = np.random.default_rng(k)
    with lib.no_grad():
        for p in model.parameters():
            p.add_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32).tolist()))


@pytest.mark.parametrize("kind", ["swa", "ema-multi", "ema-single", "swa-single", "buffers"])
def test_averaged_model_matches_torch(torch: Any, kind: str) -> None:
    tm, em = _models(torch)

    def make(lib: Any, model: Any) -> Any:
        su = lib.optim.swa_utils
        kw = {"ema-multi": dict(multi_avg_fn=su.get_ema_multi_avg_fn(0.9)),
              "ema-single": dict(avg_fn=su.get_ema_avg_fn(0.9)),
              "swa-single": dict(avg_fn=su.get_swa_avg_fn()), "buffers": dict(use_buffers=True)}.get(kind, {})
        return su.AveragedModel(model, **kw)

    ta, ea = make(torch, tm), make(ember, em)
    x = np.random.default_rng(9).standard_normal((5, 3)).astype(np.float32)
    for k in range(4):
        _perturb(torch, tm, k)
        _perturb(ember, em, k)
        tm(torch.tensor(x))  # updates BatchNorm statistics
        em(ember.tensor(x.tolist()))
        ta.update_parameters(tm)
        ea.update_parameters(em)
    assert int(ea.n_averaged) == int(ta.n_averaged) == 4
    assert list(ea.state_dict()) == list(ta.state_dict())
    for k, v in ta.state_dict().items():
        np.testing.assert_allclose(ea.state_dict()[k].numpy(), v.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)
    ta.eval()
    ea.eval()
    np.testing.assert_allclose(ea(ember.tensor(x.tolist())).detach().numpy(), ta(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_update_bn_matches_torch(torch: Any) -> None:
    tm, em = _models(torch)
    data = [np.random.default_rng(i).standard_normal((6, 3)).astype(np.float32) for i in range(3)]
    torch.optim.swa_utils.update_bn([torch.tensor(d) for d in data], tm)
    ember.optim.swa_utils.update_bn([(ember.tensor(d.tolist()), 0) for d in data], em)
    for k in ("1.running_mean", "1.running_var", "1.num_batches_tracked"):
        np.testing.assert_allclose(em.state_dict()[k].numpy(), tm.state_dict()[k].numpy(), rtol=1e-5, atol=1e-6)
    assert em[1].momentum == tm[1].momentum == 0.1


@pytest.mark.parametrize("strategy, anneal", [("cos", 3), ("linear", 4), ("cos", 0)])
def test_swalr_matches_torch(torch: Any, strategy: str, anneal: int) -> None:
    lrs = []
    for lib in (torch, ember):
        p = lib.zeros(1, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.5)
        sched = lib.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=anneal, anneal_strategy=strategy)
        seq = []
        for _ in range(7):
            opt.step()
            sched.step()
            seq.append(sched.get_last_lr()[0])
        lrs.append(seq)
    np.testing.assert_allclose(lrs[1], lrs[0], rtol=1e-12)


def test_errors() -> None:
    su = ember.optim.swa_utils
    with pytest.raises(ValueError, match="Invalid decay value"):
        su.get_ema_avg_fn(1.5)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        su.AveragedModel(enn.Linear(1, 1), avg_fn=su.get_swa_avg_fn(), multi_avg_fn=su.get_swa_multi_avg_fn())
    opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match="anneal_strategy must be one of"):
        su.SWALR(opt, 0.01, anneal_strategy="exp")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0"):
        su.SWALR(opt, 0.01, anneal_epochs=-1)
