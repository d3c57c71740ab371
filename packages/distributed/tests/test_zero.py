"""ZeroRedundancyOptimizer on 2 ranks: training with ZeRO gives the same parameters as the plain
optimizer on every rank (per-parameter and bucket-view broadcasts), the greedy partition is
PyTorch's, and consolidate_state_dict/state_dict/load_state_dict/add_param_group round-trip."""

from __future__ import annotations

from typing import Any

import pytest
from _launch import run_mpiexec

WORKER = r"""
from ember.distributed.optim import ZeroRedundancyOptimizer
dist.init_process_group("gloo")
r, n = dist.get_rank(), dist.get_world_size()

def model():
    ember.manual_seed(0)
    return ember.nn.Sequential(ember.nn.Linear(6, 5), ember.nn.Tanh(), ember.nn.Linear(5, 3))

def train(m, opt, steps=5):
    for i in range(steps):
        ember.manual_seed(100 + i)
        x = ember.randn(8, 6)  # every rank sees the same batch (gradients need no averaging)
        loss = m(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

ref = model()
train(ref, ember.optim.Adam(ref.parameters(), lr=0.05))
want = [p.detach().clone() for p in ref.parameters()]
for bucket in (False, True):
    m = model()
    z = ZeroRedundancyOptimizer(m.parameters(), ember.optim.Adam, lr=0.05,
                                parameters_as_bucket_view=bucket)
    train(m, z)
    emit(**{f"same_{bucket}": all(ember.allclose(p, w, atol=1e-6) for p, w in zip(m.parameters(), want)),
            f"local_{bucket}": sum(len(g["params"]) for g in z.optim.param_groups),
            f"owned_state_{bucket}": len(z.optim.state)})
# The greedy partition (sizes: w0 30, b0 5, w1 15, b1 3): largest first to the least loaded
# rank: 30 -> r0, 15 -> r1, 5 -> r1 (15 < 30), 3 -> r1 (20 < 30).
m = model()
z = ZeroRedundancyOptimizer(m.parameters(), ember.optim.SGD, lr=0.1)
names = {id(p): k for k, p in m.named_parameters()}
emit(partition=[[names[id(p)] for g in groups for p in g["params"]] for groups in z._partition_parameters()])
# state dicts: consolidated on rank 0, equal to the plain optimizer's
m = model()
z = ZeroRedundancyOptimizer(m.parameters(), ember.optim.Adam, lr=0.05)
train(m, z, 3)
try:
    z.state_dict()
except RuntimeError as e:
    emit(no_consolidate=str(e))
z.consolidate_state_dict(to=0)
ref = model()
ro = ember.optim.Adam(ref.parameters(), lr=0.05)
train(ref, ro, 3)
if r == 0:
    sd, rsd = z.state_dict(), ro.state_dict()
    emit(sd_keys=sorted(sd["state"]), sd_groups=sd["param_groups"] == rsd["param_groups"],
         sd_same=all(ember.allclose(sd["state"][i]["exp_avg"], rsd["state"][i]["exp_avg"])
                     and ember.allclose(sd["state"][i]["exp_avg_sq"], rsd["state"][i]["exp_avg_sq"])
                     and float(sd["state"][i]["step"]) == float(rsd["state"][i]["step"])
                     for i in rsd["state"]))
    full = sd
else:
    full = None
obj = [full]
dist.broadcast_object_list(obj, src=0)
# load into a fresh ZeRO: training on matches the plain optimizer that kept going
m2 = model()
with ember.no_grad():
    for p, q in zip(m2.parameters(), m.parameters()):
        p.copy_(q)
z2 = ZeroRedundancyOptimizer(m2.parameters(), ember.optim.Adam, lr=0.01)
z2.load_state_dict(obj[0])
emit(lr_loaded=z2.param_groups[0]["lr"], local_lr=z2.optim.param_groups[0]["lr"])
train(m2, z2, 2)
train(ref, ro, 2)
emit(resumed=all(ember.allclose(p, w, atol=1e-6) for p, w in zip(m2.parameters(), ref.parameters())))
# add_param_group: the new parameter is owned by one rank and trained everywhere
m = model()
extra = ember.nn.Parameter(ember.ones(7))
z = ZeroRedundancyOptimizer(list(m.parameters()), ember.optim.SGD, lr=0.1)
z.add_param_group({"params": [extra], "lr": 0.5})
extra.grad = ember.full((7,), float(r + 1))
for p in m.parameters():
    p.grad = ember.zeros_like(p)
z.step()
emit(extra=extra.tolist(), groups=len(z.param_groups),
     owner=z._param_to_rank[extra])
errors = {}
for key, fn in {"empty": lambda: ZeroRedundancyOptimizer([], ember.optim.SGD, lr=0.1),
                "tensor": lambda: ZeroRedundancyOptimizer(ember.ones(2), ember.optim.SGD, lr=0.1),
                "overlap": lambda: ZeroRedundancyOptimizer(m.parameters(), ember.optim.SGD,
                                                           overlap_with_ddp=True, lr=0.1)}.items():
    try:
        fn()
    except Exception as e:
        errors[key] = [type(e).__name__, str(e)]
emit(errors=errors)
dist.destroy_process_group()
"""


@pytest.fixture(scope="module")
def job(tmp_path_factory: Any) -> list[dict[str, Any]]:
    code, out, res = run_mpiexec(tmp_path_factory.mktemp("zero"), WORKER, n=2, timeout=180)
    assert code == 0, out
    return res


@pytest.mark.parametrize("bucket", [False, True])
def test_zero_matches_plain_optimizer(job: Any, bucket: bool) -> None:
    for got in job:
        assert got[f"same_{bucket}"] is True
    # each rank holds state for its own parameters only: together, all four
    assert sum(got[f"owned_state_{bucket}"] for got in job) == 4
    assert sum(got[f"local_{bucket}"] for got in job) == 4


def test_greedy_partition_is_pytorchs(job: Any) -> None:
    for got in job:
        assert got["partition"] == [["0.weight"], ["2.weight", "0.bias", "2.bias"]]


def test_state_dict_round_trip(job: Any) -> None:
    assert job[1]["no_consolidate"] == (
        "Optimizer state has not been consolidated on this rank. Please call "
        "`consolidate_state_dict(to=1)` on all ranks beforehand if you meant to save the global "
        "state.")
    assert job[0]["sd_keys"] == [0, 1, 2, 3]
    assert job[0]["sd_groups"] is True and job[0]["sd_same"] is True
    for got in job:
        assert got["lr_loaded"] == 0.05 and got["local_lr"] == 0.05
        assert got["resumed"] is True


def test_add_param_group(job: Any) -> None:
    owner = job[0]["owner"]
    for got in job:
        assert got["groups"] == 2 and got["owner"] == owner
        # the owner's gradient (rank + 1) times lr 0.5, broadcast to every rank
        assert got["extra"] == [1 - 0.5 * (owner + 1)] * 7


def test_errors(job: Any) -> None:
    errors = job[0]["errors"]
    assert errors["empty"] == ["ValueError", "ZeroRedundancyOptimizer got an empty parameter list"]
    assert errors["tensor"] == ["TypeError", "`params` argument should be an iterable of Tensors, "
                                             "but got torch.FloatTensor"]
    assert errors["overlap"][0] == "NotImplementedError"
