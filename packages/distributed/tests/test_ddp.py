"""DistributedDataParallel on 2 ranks under mpiexec: equivalence with one process on the whole
batch, broadcast at construction, no_sync, unused parameters, bucket views, comm hooks,
SyncBatchNorm, Join and DistributedSampler (one job; each check its own test)."""

from __future__ import annotations

from typing import Any

import pytest
from _launch import run_mpiexec

WORKER = r"""
from ember import nn
from ember.nn.parallel import DistributedDataParallel as DDP
from ember.distributed.algorithms.ddp_comm_hooks import default_hooks
dist.init_process_group("gloo")
r, n = dist.get_rank(), dist.get_world_size()
B = 4

def mlp(seed):
    ember.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))

def data(step):
    g = ember.Generator().manual_seed(100 + step)
    return ember.randn(n * B, 6, generator=g), ember.randn(n * B, 3, generator=g)

def train(model, steps, shard, **ddp_kw):
    opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for step in range(steps):
        x, y = data(step)
        if shard:
            x, y = x[r * B:(r + 1) * B], y[r * B:(r + 1) * B]
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
    return model

def max_diff(a, b):
    return max((p - q).abs().max().item() for p, q in zip(a.parameters(), b.parameters()))

ref = train(mlp(1), 10, shard=False)  # rank 0 seeds 1: DDP starts from its weights
ddp = DDP(mlp(r + 1))  # differently seeded: construction broadcasts rank 0's weights
train(ddp, 10, shard=True)
emit(equivalence=max_diff(ddp.module, ref))

hooked = DDP(mlp(r + 1), bucket_cap_mb=0.0001)  # tiny buckets: several all-reduces
hooked.register_comm_hook(None, default_hooks.allreduce_hook)
train(hooked, 10, shard=True)
emit(allreduce_hook=max_diff(hooked.module, ref), buckets=len(hooked.reducer.buckets))
for name in ("fp16_compress_hook", "bf16_compress_hook"):
    m = DDP(mlp(r + 1))
    m.register_comm_hook(None, getattr(default_hooks, name))
    train(m, 10, shard=True)
    emit(**{name: max_diff(m.module, ref)})
try:
    hooked.register_comm_hook(None, default_hooks.allreduce_hook)
    emit(hook_twice=None)
except RuntimeError as e:
    emit(hook_twice="RuntimeError")

view = DDP(mlp(1), gradient_as_bucket_view=True)
train(view, 10, shard=True)
bufs = [b.buffer.data_ptr() for b in view.reducer.buckets]
ends = [b.buffer.data_ptr() + b.buffer.numel() * 4 for b in view.reducer.buckets]
inside = all(any(s <= p.grad.data_ptr() < e for s, e in zip(bufs, ends)) for p in view.parameters())
emit(bucket_view=[max_diff(view.module, ref), inside])

acc = DDP(nn.Linear(1, 1, bias=False))
with ember.no_grad():
    acc.module.weight.fill_(0.0)
x = ember.tensor([[float(r + 1)]])
with acc.no_sync():
    acc(x).sum().backward()
local = acc.module.weight.grad.item()
acc(x).sum().backward()
emit(no_sync=[local, acc.module.weight.grad.item()])

class Two(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.b = nn.Linear(2, 2)
    def forward(self, x):
        return self.a(x)

u = DDP(Two(), find_unused_parameters=True)
for _ in range(2):
    u(ember.ones(1, 2)).sum().backward()
emit(unused=[u.module.b.weight.grad is None, u.module.a.weight.grad is not None])
strict = DDP(Two())
strict(ember.ones(1, 2)).sum().backward()
try:
    strict(ember.ones(1, 2))
    emit(unused_error=None)
except RuntimeError as e:
    emit(unused_error=str(e)[:60])
static = DDP(Two(), static_graph=True)  # the same unused parameter every step: allowed
for _ in range(3):
    static(ember.ones(1, 2)).sum().backward()
emit(static_graph=[static.module.b.weight.grad is None, static.module.a.weight.grad.tolist()])
emit(state_dict=sorted(DDP(nn.Linear(2, 1)).state_dict().keys()))
try:
    DDP(nn.Linear(2, 1), device_ids=[0])
except ValueError as e:
    emit(device_ids="ValueError")
frozen = nn.Linear(2, 1)
for p in frozen.parameters():
    p.requires_grad_(False)
try:
    DDP(frozen)
except RuntimeError as e:
    emit(no_params="RuntimeError")

ember.manual_seed(0)
bn_ref = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8))
ember.manual_seed(0)
bn = DDP(nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8))))
x, _ = data(0)
x.requires_grad_(True)
out_ref = bn_ref(x)
(out_ref ** 3).sum().backward()
xs = x[r * B:(r + 1) * B].detach().requires_grad_(True)
out = bn(xs)
(out ** 3).sum().backward()
emit(syncbn=[(out - out_ref[r * B:(r + 1) * B]).abs().max().item(),
             (xs.grad - x.grad[r * B:(r + 1) * B]).abs().max().item(),
             (bn.module[1].running_var - bn_ref[1].running_var).abs().max().item(),
             # DDP averages the weight gradient; the reference sums over the whole batch
             (bn.module[0].weight.grad * n - bn_ref[0].weight.grad).abs().max().item(),
             type(bn.module[1]).__name__])

j = DDP(nn.Linear(2, 1))
steps = 3 + 2 * r  # uneven inputs
with j.join():
    for _ in range(steps):
        j(ember.ones(1, 2)).sum().backward()
emit(join=steps)

from ember.utils.data import DataLoader, DistributedSampler, TensorDataset
ds = TensorDataset(ember.arange(10.0))
sampler = DistributedSampler(ds, shuffle=False)
seen = [int(v) for (batch,) in DataLoader(ds, batch_size=2, sampler=sampler) for v in batch.tolist()]
emit(sampler=seen)
dist.destroy_process_group()
"""


@pytest.fixture(scope="module")
def job(tmp_path_factory: Any) -> list[dict[str, Any]]:
    code, text, res = run_mpiexec(tmp_path_factory.mktemp("ddp"), WORKER, n=2, timeout=180)
    assert code == 0, text
    return res


def test_equivalence_with_one_process(job: Any) -> None:
    for res in job:
        assert res["equivalence"] < 1e-5
        assert res["allreduce_hook"] < 1e-5 and res["buckets"] == 1  # 652 bytes: one bucket


def test_compression_hooks(job: Any) -> None:
    for res in job:
        assert res["fp16_compress_hook"] < 5e-3
        assert res["bf16_compress_hook"] < 3e-2
        assert res["hook_twice"] == "RuntimeError"


def test_gradient_as_bucket_view(job: Any) -> None:
    for res in job:
        diff, inside = res["bucket_view"]
        assert diff < 1e-5 and inside


def test_no_sync_accumulates_then_averages(job: Any) -> None:
    # local grads 1, 2; after a synced second backward: mean of (1+1, 2+2) = 3
    assert job[0]["no_sync"] == [1.0, 3.0]
    assert job[1]["no_sync"] == [2.0, 3.0]


def test_unused_parameters(job: Any) -> None:
    for res in job:
        assert res["unused"] == [True, True]
        assert res["unused_error"].startswith("Expected to have finished reduction")
        assert res["static_graph"] == [True, [[3.0, 3.0], [3.0, 3.0]]]  # 3 accumulated steps


def test_wrapper_surface(job: Any) -> None:
    for res in job:
        assert res["state_dict"] == ["module.bias", "module.weight"]
        assert res["device_ids"] == "ValueError" and res["no_params"] == "RuntimeError"


def test_sync_batchnorm_matches_full_batch(job: Any) -> None:
    for res in job:
        out, grad, running_var, wgrad, kind = res["syncbn"]
        assert kind == "SyncBatchNorm"
        assert out < 1e-5 and grad < 1e-4 and running_var < 1e-6 and wgrad < 1e-3


def test_join_uneven_inputs(job: Any) -> None:
    assert [res["join"] for res in job] == [3, 5]


def test_distributed_sampler(job: Any) -> None:
    assert job[0]["sampler"] == [0, 2, 4, 6, 8]
    assert job[1]["sampler"] == [1, 3, 5, 7, 9]


def test_bucket_assignment() -> None:
    """Reverse registration order, one dtype a bucket, 1 MiB first bucket then the cap."""
    import ember
    from ember.distributed._ddp.reducer import assign_buckets

    mib = 1024 * 1024
    params = [ember.empty(mib // 4), ember.empty(10), ember.empty(mib // 8),
              ember.empty(mib // 8, dtype=ember.float64), ember.empty(3 * mib // 8)]
    # 4: 1.5 MiB closes float32's first bucket; 3 (1 MiB, float64) its own dtype's first;
    # 2: 0.5 MiB reaches the cap; 1 and 0 are left in the last, open bucket
    assert assign_buckets(params, mib, mib // 2) == [[4], [3], [2], [1, 0]]
