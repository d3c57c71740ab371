"""DeviceMesh and DTensor on 2 and 4 ranks under mpiexec: placements and redistribution against
the full tensors, PyTorch's uneven-shard rule, op sharding rules and autograd (one job per
world size; each check its own test)."""

from __future__ import annotations

from typing import Any

import pytest
from _launch import run_mpiexec

WORKER = r"""
from ember.distributed.device_mesh import init_device_mesh
from ember.distributed.tensor import DTensor, Shard, Replicate, Partial, distribute_tensor
dist.init_process_group("gloo")
r, n = dist.get_rank(), dist.get_world_size()
m = init_device_mesh("cpu", (n,))
emit(mesh=repr(m), coord=list(m.get_coordinate()), local_rank=m.get_local_rank(), ndim=m.ndim,
     shape=list(m.shape), size=m.size())
full = ember.arange(35.).reshape(7, 5)

def same(a, b):
    return bool(a.shape == b.shape and ember.equal(a, b))

ok = {}
for pl in ([Shard(0)], [Shard(1)], [Replicate()]):
    d = distribute_tensor(full, m, pl)
    ok[f"full_{pl[0]}"] = same(d.full_tensor(), full) and tuple(d.shape) == (7, 5)
    for dst in ([Shard(0)], [Shard(1)], [Replicate()]):
        e = d.redistribute(m, dst)
        ok[f"{pl[0]}->{dst[0]}"] = same(e.full_tensor(), full) and e.placements == tuple(dst)
emit(**ok)
d = distribute_tensor(full, m, [Shard(0)])
emit(local_rows=d.to_local().shape[0], repr=repr(Shard(0)) + str(Partial()) + repr(Replicate()))
p = DTensor.from_local(ember.ones(2, 3) * (r + 1), m, [Partial()])
emit(partial_full=p.full_tensor().tolist(), partial_shard=p.redistribute(m, [Shard(0)]).to_local().tolist())
emit(from_local_shape=list(DTensor.from_local(ember.ones(3, 2), m, [Shard(0)]).shape),
     from_local_given=list(DTensor.from_local(ember.ones(3, 2), m, [Shard(0)], shape=(5, 2)).shape))
# op rules
s = d.sum()
emit(sum_pl=str(s.placements[0]), sum_val=s.full_tensor().item(), sum1=str(d.sum(1).placements[0]),
     mean=d.mean().full_tensor().item(), amax=d.amax().full_tensor().item(), norm=d.norm().item(),
     add=str((d * 2 + 1).placements[0]), add_ok=same((d * 2 + 1).full_tensor(), full * 2 + 1),
     t=str(d.t().placements[0]), t_ok=same(d.t().full_tensor(), full.t()))
w = distribute_tensor(ember.arange(10.).reshape(5, 2), m, [Replicate()])
mm = d @ w
lin = ember.nn.functional.linear(d, w.t())
kx = distribute_tensor(full, m, [Shard(1)]) @ distribute_tensor(ember.arange(10.).reshape(5, 2), m, [Shard(0)])
emit(mm=str(mm.placements[0]), mm_ok=same(mm.full_tensor(), full @ ember.arange(10.).reshape(5, 2)),
     lin_ok=same(lin.full_tensor(), full @ ember.arange(10.).reshape(5, 2)), partial_mm=str(kx.placements[0]),
     partial_mm_ok=bool(ember.allclose(kx.full_tensor(), full @ ember.arange(10.).reshape(5, 2))))
v = distribute_tensor(ember.arange(24.).reshape(4, 3, 2), m, [Shard(0)])
emit(view=str(v.reshape(4, 6).placements[0]), view_ok=same(v.view(4, 6).full_tensor(), ember.arange(24.).reshape(4, 6)))
try:
    d.view(35)
    emit(uneven_view="no error")
except RuntimeError as e:
    emit(uneven_view=str(e)[:40])
try:
    d + ember.ones(7, 5)
    emit(mixed="no error")
except RuntimeError as e:
    emit(mixed="mixed torch.Tensor and DTensor" in str(e))
# optimizer foreach ops on local shards
a = distribute_tensor(full, m, [Shard(0)])
b = distribute_tensor(full * 0 + 1, m, [Shard(0)])
ember._foreach_add_([a], [b], alpha=2)
ember._foreach_mul_([a], 0.5)
emit(foreach_ok=same(a.full_tensor(), (full + 2) * 0.5), foreach_type=type(a).__name__)
# autograd through distribute/redistribute/from_local/to_local
x = full.clone().requires_grad_()
dx = distribute_tensor(x, m, [Shard(0)])
loss = (dx.redistribute(m, [Replicate()]).to_local() ** 2).sum()
loss.backward()
emit(grad_type=type(dx.grad).__name__, grad_pl=str(dx.grad.placements[0]),
     grad_ok=same(dx.grad.full_tensor(), 2 * full))
loc = ember.ones(3, requires_grad=True)
(DTensor.from_local(loc, m, [Shard(0)]).full_tensor() * ember.arange(3. * n)).sum().backward()
emit(from_local_grad=loc.grad.tolist())
if n == 4:
    m2 = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    emit(mesh2=repr(m2), dp=repr(m2["dp"]), dp_ranks=m2["dp"].mesh.tolist(), coord2=list(m2.get_coordinate()),
         tp_rank=m2.get_local_rank("tp"))
    try:
        m2.get_group()
        emit(no_dim="no error")
    except RuntimeError:
        emit(no_dim="RuntimeError")
    try:
        m2["xx"]
        emit(bad_name="no error")
    except KeyError:
        emit(bad_name="KeyError")
    for pl in ([Shard(0), Shard(1)], [Replicate(), Shard(0)], [Shard(0), Shard(0)], [Shard(1), Replicate()]):
        d2 = distribute_tensor(full, m2, pl)
        back = d2.redistribute(m2, [Shard(1), Shard(0)]).full_tensor()
        emit(**{f"2d_{pl[0]}{pl[1]}": same(d2.full_tensor(), full) and same(back, full)})
dist.destroy_process_group()
"""


@pytest.fixture(scope="module", params=[2, 4])
def job(request: Any, tmp_path_factory: Any) -> tuple[int, list[dict[str, Any]]]:
    n = request.param
    code, out, res = run_mpiexec(tmp_path_factory.mktemp(f"dtensor{n}"), WORKER, n=n, timeout=120)
    assert code == 0, out
    return n, res


def test_mesh(job: Any) -> None:
    n, res = job
    for r, got in enumerate(res):
        assert got["mesh"] == f"DeviceMesh(({n},), 'cpu', stride=(1,))"
        assert got["coord"] == [r] and got["local_rank"] == r
        assert (got["ndim"], got["shape"], got["size"]) == (1, [n], n)


def test_placements_and_redistribute_match_full_tensor(job: Any) -> None:
    _, res = job
    for got in res:
        checks = {k: v for k, v in got.items() if k.startswith("full_") or "->" in k}
        assert len(checks) == 12 and all(checks.values()), checks


def test_uneven_shards_follow_torch_chunk(job: Any) -> None:
    n, res = job
    want = {2: [4, 3], 4: [2, 2, 2, 1]}[n]
    assert [g["local_rows"] for g in res] == want
    assert res[0]["repr"] == "Shard(dim=0)P(sum)Replicate()"
    assert res[0]["from_local_shape"] == [3 * n, 2] and res[0]["from_local_given"] == [5, 2]


def test_partial(job: Any) -> None:
    n, res = job
    total = sum(range(1, n + 1))
    for r, got in enumerate(res):
        assert got["partial_full"] == [[float(total)] * 3] * 2
        assert len(got["partial_shard"]) == [1, 1, 0, 0][r]  # 2 rows chunked over n ranks


def test_op_rules(job: Any) -> None:
    _, res = job
    for got in res:
        assert got["sum_pl"] == "P(sum)" and got["sum_val"] == 595.0 and got["sum1"] == "S(0)"
        assert got["mean"] == 17.0 and got["amax"] == 34.0
        assert got["norm"] == pytest.approx(sum(v * v for v in range(35)) ** 0.5)
        assert got["add"] == "S(0)" and got["add_ok"] and got["t"] == "S(1)" and got["t_ok"]
        assert got["mm"] == "S(0)" and got["mm_ok"] and got["lin_ok"]
        assert got["partial_mm"] == "P(sum)" and got["partial_mm_ok"]
        assert got["view"] == "S(0)" and got["view_ok"]
        assert got["uneven_view"].startswith("Cannot flatten unevenly sharded")
        assert got["mixed"] is True
        assert got["foreach_ok"] and got["foreach_type"] == "DTensor"


def test_autograd(job: Any) -> None:
    n, res = job
    for r, got in enumerate(res):
        assert got["grad_type"] == "DTensor" and got["grad_pl"] == "S(0)" and got["grad_ok"]
        assert got["from_local_grad"] == [float(3 * r + i) for i in range(3)]


def test_2d_mesh(job: Any) -> None:
    n, res = job
    if n != 4:
        pytest.skip("2-d mesh on 4 ranks")
    for r, got in enumerate(res):
        assert got["mesh2"] == "DeviceMesh((dp=2, tp=2), 'cpu', stride=(2, 1))"
        assert got["dp"] == "DeviceMesh((dp=2), 'cpu', stride=(2,))"
        assert got["dp_ranks"] == [r % 2, r % 2 + 2]
        assert got["coord2"] == [r // 2, r % 2] and got["tp_rank"] == r % 2
        assert got["no_dim"] == "RuntimeError" and got["bad_name"] == "KeyError"
        assert all(got[k] for k in got if k.startswith("2d_")) and sum(k.startswith("2d_") for k in got) == 4



