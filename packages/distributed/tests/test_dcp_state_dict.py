"""The state-dict helpers: canonical FQNs for plain and DDP models, optimizer state keyed by
parameter FQN, the options, and the training-loop recipe (get_state_dict -> dcp.save; later
get_state_dict -> dcp.load -> set_state_dict) on 2 DDP ranks and against PyTorch 2.13."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _launch import run_mpiexec

pytestmark = [pytest.mark.filterwarnings("ignore:torch.distributed is disabled"),
              pytest.mark.filterwarnings("ignore:Detected an existing checkpoint")]

DDP_JOB = r"""
import warnings
warnings.simplefilter("ignore")
from ember import nn
from ember.nn.parallel import DistributedDataParallel as DDP
import ember.distributed.checkpoint as dcp
from ember.distributed.checkpoint.state_dict import (StateDictOptions, get_state_dict, set_state_dict,
    get_model_state_dict, set_model_state_dict)
dist.init_process_group("gloo")
r = dist.get_rank()
ckpt = sys.argv[2]

def make(seed):
    ember.manual_seed(seed)
    model = DDP(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)))
    return model, ember.optim.AdamW(model.parameters(), lr=0.05)

def step(model, opt, i):
    g = ember.Generator().manual_seed(i * 10 + r)
    x = ember.randn(3, 4, generator=g)
    opt.zero_grad()
    model(x).pow(2).mean().backward()
    opt.step()

model, opt = make(1)
for i in range(3):
    step(model, opt, i)
msd, osd = get_state_dict(model, opt)
emit(model_keys=list(msd), optim_keys=list(osd["state"]), group_params=osd["param_groups"][0]["params"],
     state_keys=sorted(osd["state"]["0.weight"]))
dcp.save({"model": msd, "optim": osd}, checkpoint_id=ckpt)

fresh, fopt = make(7)
msd2, osd2 = get_state_dict(fresh, fopt)
sd = {"model": msd2, "optim": osd2}
dcp.load(sd, checkpoint_id=ckpt)
res = set_state_dict(fresh, fopt, model_state_dict=sd["model"], optim_state_dict=sd["optim"])
same = lambda a, b: max((p - q).abs().max().item() for p, q in zip(a.parameters(), b.parameters()))
emit(incompatible=[list(res.missing_keys), list(res.unexpected_keys)], restored=same(model, fresh))
for i in range(3, 5):   # both continue identically: the optimizer state came back too
    step(model, opt, i)
    step(fresh, fopt, i)
emit(after_steps=same(model, fresh))

full = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
emit(full_len=len(full))
other, _ = make(9)
given = get_model_state_dict(model) if r == 0 else {}
set_model_state_dict(other, given, options=StateDictOptions(full_state_dict=True, broadcast_from_rank0=True))
emit(broadcast=same(model, other))
try:
    set_model_state_dict(other, {**get_model_state_dict(model), "extra.weight": ember.zeros(1)})
    emit(strict="no error")
except RuntimeError as e:
    emit(strict=str(e).splitlines()[0])
dist.destroy_process_group()
"""


@pytest.fixture(scope="module")
def ddp_job(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    d = tmp_path_factory.mktemp("dsd")
    code, text, res = run_mpiexec(d, f"sys.argv[2:] = [{str(d / 'ck')!r}]\n" + DDP_JOB, n=2, timeout=120)
    assert code == 0, text
    return res


def test_ddp_canonical_fqns(ddp_job: list[dict[str, Any]]) -> None:
    keys = ["0.weight", "0.bias", "2.weight", "2.bias"]
    for res in ddp_job:
        assert res["model_keys"] == keys and res["optim_keys"] == keys and res["group_params"] == keys
        assert res["state_keys"] == ["exp_avg", "exp_avg_sq", "step"]


def test_ddp_recipe_restores_model_and_optimizer(ddp_job: list[dict[str, Any]]) -> None:
    for res in ddp_job:
        assert res["incompatible"] == [[], []]
        assert res["restored"] == 0.0 and res["after_steps"] == 0.0


def test_ddp_options(ddp_job: list[dict[str, Any]]) -> None:
    assert [res["full_len"] for res in ddp_job] == [4, 0]  # full + cpu_offload: rank 0 only
    assert all(res["broadcast"] == 0.0 for res in ddp_job)
    assert all(res["strict"] == "Error(s) in loading state_dict for DistributedDataParallel:" for res in ddp_job)


def _mlp(lib: Any) -> Any:
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.ReLU(), lib.nn.Linear(5, 2))


def test_plain_model_matches_torch_structure() -> None:
    torch = pytest.importorskip("torch")
    import ember
    from ember.distributed.checkpoint import state_dict as esd
    from torch.distributed.checkpoint import state_dict as tsd

    em, tm = _mlp(ember), _mlp(torch)
    eo, to = ember.optim.Adam(em.parameters(), lr=0.01), torch.optim.Adam(tm.parameters(), lr=0.01)
    emsd, eosd = esd.get_state_dict(em, eo)  # never stepped: state initialized lazily, as torch does
    tmsd, tosd = tsd.get_state_dict(tm, to)
    assert list(emsd) == list(tmsd)
    assert eosd["param_groups"] == tosd["param_groups"]
    assert {k: sorted(v) for k, v in eosd["state"].items()} == {k: sorted(v) for k, v in tosd["state"].items()}
    assert float(eosd["state"]["0.weight"]["step"]) == float(tosd["state"]["0.weight"]["step"])
    opts = (esd.StateDictOptions(flatten_optimizer_state_dict=True),
            tsd.StateDictOptions(flatten_optimizer_state_dict=True))
    assert list(esd.get_optimizer_state_dict(em, eo, options=opts[0])) == \
        list(tsd.get_optimizer_state_dict(tm, to, options=opts[1]))
    em[0].weight.requires_grad_(False)
    tm[0].weight.requires_grad_(False)
    frozen = (esd.StateDictOptions(ignore_frozen_params=True), tsd.StateDictOptions(ignore_frozen_params=True))
    assert list(esd.get_model_state_dict(em, options=frozen[0])) == list(tsd.get_model_state_dict(tm, options=frozen[1]))


def test_flattened_optimizer_state_round_trip() -> None:
    import ember
    from ember.distributed.checkpoint import state_dict as esd

    m, m2 = _mlp(ember), _mlp(ember)
    o, o2 = ember.optim.SGD(m.parameters(), lr=0.1, momentum=0.9), ember.optim.SGD(m2.parameters(), lr=0.5, momentum=0.9)
    for _ in range(2):
        o.zero_grad()
        m(ember.ones(2, 3)).sum().backward()
        o.step()
    flat = esd.get_optimizer_state_dict(m, o, options=esd.StateDictOptions(flatten_optimizer_state_dict=True))
    esd.set_optimizer_state_dict(m2, o2, flat)
    assert o2.param_groups[0]["lr"] == 0.1
    assert (o2.state[m2[0].weight]["momentum_buffer"] == o.state[m[0].weight]["momentum_buffer"]).all().item()


def test_recipe_interop_with_torch(tmp_path: Path) -> None:
    """ember saves model + optimizer with the recipe; torch restores them with its own helpers."""
    torch = pytest.importorskip("torch")
    import ember
    import ember.distributed.checkpoint as dcp
    import torch.distributed.checkpoint as tdcp
    from ember.distributed.checkpoint import state_dict as esd
    from torch.distributed.checkpoint import state_dict as tsd

    m, o = _mlp(ember), None
    o = ember.optim.Adam(m.parameters(), lr=0.01)
    for _ in range(3):
        o.zero_grad()
        m(ember.randn(4, 3)).pow(2).sum().backward()
        o.step()
    msd, osd = esd.get_state_dict(m, o)
    dcp.save({"model": msd, "optim": osd}, checkpoint_id=tmp_path, no_dist=True)
    tm = _mlp(torch)
    to = torch.optim.Adam(tm.parameters(), lr=0.5)
    a, b = tsd.get_state_dict(tm, to)
    sd = {"model": a, "optim": b}
    tdcp.load(sd, checkpoint_id=str(tmp_path), no_dist=True)
    tsd.set_state_dict(tm, to, model_state_dict=sd["model"], optim_state_dict=sd["optim"])
    for p, q in zip(m.parameters(), tm.parameters()):
        assert p.tolist() == q.tolist()
    assert to.param_groups[0]["lr"] == 0.01 and float(to.state_dict()["state"][0]["step"]) == 3.0
    ea = o.state[m[2].weight]["exp_avg"]
    assert ea.tolist() == to.state_dict()["state"][2]["exp_avg"].tolist()
