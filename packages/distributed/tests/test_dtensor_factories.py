"""The DTensor factories (zeros/ones/empty/full/rand/randn) and distribute_module on 2 ranks.

Expected values are PyTorch 2.13's (gloo, 2 CPU ranks) where it runs them: shapes, local
shapes, dtypes, leaves, the placements/mesh length error, distribute_module's replication,
partition_fn walk and double-call error. PyTorch's rand/randn fail on a CPU mesh (its DTensor
RNG is CUDA-only); ember's draw the full tensor from the mesh's first rank's generator state,
so the DTensor equals ``ember.rand(size)`` on one process with the same seed (checked here).
"""

from __future__ import annotations

from typing import Any

import pytest
from _launch import run_mpiexec

WORKER = r"""
import warnings
from ember.distributed.tensor import (Replicate, Shard, distribute_module, empty, full, init_device_mesh,
                                      ones, rand, randn, zeros)
dist.init_process_group("gloo")
r = dist.get_rank()
mesh = init_device_mesh("cpu", (2,))
a = zeros(5, 2, device_mesh=mesh, placements=[Shard(0)])
emit(zeros=[list(a.shape), list(a.to_local().shape), a.to_local().tolist(), str(a.placements)])
z = zeros((3, 4), device_mesh=mesh, placements=[Shard(1)], requires_grad=True)
emit(zeros_grad=[list(z.to_local().shape), z.requires_grad, z.is_leaf, str(z.dtype)])
f = full((3,), 7, device_mesh=mesh)
emit(full=[f.to_local().tolist(), str(f.dtype), str(f.placements)])
o = ones([2, 3], dtype=ember.float64, device_mesh=mesh)
emit(ones=[str(o.dtype), list(o.to_local().shape), o.to_local().sum().item()])
e = empty(4, 3, device_mesh=mesh, placements=[Shard(1)])
emit(empty=[list(e.shape), list(e.to_local().shape)])
try:
    zeros(3, device_mesh=mesh, placements=[Shard(0), Shard(0)])
except Exception as exc:
    emit(err=[type(exc).__name__, str(exc)])
# random: every rank seeded differently; the result follows rank 0's generator
ember.manual_seed(0 if r == 0 else 123)
x = rand(5, 2, device_mesh=mesh, placements=[Shard(0)])
y = randn(4, 3, device_mesh=mesh, placements=[Replicate()])
after = ember.rand(1).item()
ember.manual_seed(0)
want_x, want_y, want_after = ember.rand(5, 2), ember.randn(4, 3), ember.rand(1).item()
emit(rand_same=ember.equal(x.full_tensor(), want_x), randn_same=ember.equal(y.to_local(), want_y),
     rng_advanced=after == want_after, rand_local=list(x.to_local().shape))
# nn.Parameter(dtensor) stays a DTensor (as PyTorch's), with its shard and placements
dt = dist.tensor.distribute_tensor(ember.arange(6.0).reshape(3, 2), mesh, [Shard(0)])
p = ember.nn.Parameter(dt)
emit(param=[type(p).__name__, isinstance(p, ember.nn.Parameter), isinstance(p, dist.tensor.DTensor),
            str(p.placements), p.requires_grad, p.to_local().tolist(), list(p.shape),
            ember.nn.Parameter(dt, requires_grad=False).requires_grad])
# distribute_module
ember.manual_seed(0)
m = ember.nn.Linear(4, 2)
m2 = distribute_module(m, mesh)
emit(dm=[type(m2.weight).__name__, str(m2.weight.placements), m2 is m,
         isinstance(m2.weight, ember.nn.Parameter), m2.weight.requires_grad])
seen = []
def pfn(name, mod, mesh):
    seen.append([name, type(mod).__name__])
    if isinstance(mod, ember.nn.Linear):
        mod.register_parameter("weight", ember.nn.Parameter(
            dist.tensor.distribute_tensor(mod.weight.data, mesh, [Shard(0)])))
calls = []
seq = ember.nn.Sequential(ember.nn.Linear(2, 4))
def in_fn(mod, inputs, mesh):
    calls.append("in")
    return None
def out_fn(mod, outputs, mesh):
    calls.append("out")
    return outputs.full_tensor() if isinstance(outputs, dist.tensor.DTensor) else outputs
distribute_module(seq, mesh, pfn, input_fn=in_fn, output_fn=out_fn)
emit(pfn=seen, sharded=[str(seq[0].weight.placements), str(seq[0].bias.placements),
                        list(seq[0].weight.to_local().shape)])
try:
    distribute_module(seq, mesh)
except RuntimeError as exc:
    emit(twice=str(exc))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    distribute_module(ember.nn.Linear(2, 2), mesh, input_fn=lambda inputs, mesh: None)
    emit(two_arg_warn=[str(x.category.__name__) for x in w])
try:
    distribute_module(ember.nn.Linear(2, 2), mesh, output_fn=lambda a: None)
except ValueError as exc:
    emit(bad_arity=str(exc))
dist.destroy_process_group()
"""


@pytest.fixture(scope="module")
def job(tmp_path_factory: Any) -> list[dict[str, Any]]:
    code, out, res = run_mpiexec(tmp_path_factory.mktemp("factories"), WORKER, n=2, timeout=120)
    assert code == 0, out
    return res


def test_deterministic_factories(job: Any) -> None:
    for r, got in enumerate(job):
        assert got["zeros"] == [[5, 2], [3 - r, 2], [[0.0, 0.0]] * (3 - r), "(Shard(dim=0),)"]
        assert got["zeros_grad"] == [[3, 2], True, True, "torch.float32"]
        assert got["full"] == [[7, 7, 7], "torch.int64", "(Replicate(),)"]
        assert got["ones"] == ["torch.float64", [2, 3], 6.0]
        assert got["empty"] == [[4, 3], [4, 2 - r]]
        assert got["err"] == ["AssertionError", "mesh dimension does not match the length of "
                                                "placements"]


def test_random_factories_match_one_process_draw(job: Any) -> None:
    for r, got in enumerate(job):
        assert got["rand_same"] is True and got["randn_same"] is True
        assert got["rng_advanced"] is True
        assert got["rand_local"] == [3 - r, 2]


def test_parameter_of_a_dtensor(job: Any) -> None:
    for r, got in enumerate(job):
        local = [[0.0, 1.0], [2.0, 3.0]] if r == 0 else [[4.0, 5.0]]
        assert got["param"] == ["DTensor", True, True, "(Shard(dim=0),)", True, local, [3, 2], False]


def test_distribute_module(job: Any) -> None:
    for got in job:
        assert got["dm"] == ["DTensor", "(Replicate(),)", True, True, True]
        assert got["pfn"] == [["", "Sequential"], ["0", "Linear"]]
        assert got["sharded"] == ["(Shard(dim=0),)", "(Replicate(),)", [2, 2]]
        assert got["twice"] == ("distribute_module should only be called once on a module, but "
                                "it has already been called on this module!")
        assert got["two_arg_warn"] == ["FutureWarning"]
        assert got["bad_arity"] == "output_fn should take in 3 arguments, but got 1 arguments!"
