"""PowerSGD's properties on 2 ranks under mpiexec (one job, a test per property): the exact
average when the averaged gradient has rank <= r, the error-feedback identity, plain averaging
before the start iteration, identical gradients on every rank with several buckets, Futures
chained on the hook's, and a small model that trains about as well as with plain DDP."""

from __future__ import annotations

from typing import Any

import pytest
from _launch import run_mpiexec

WORKER = r"""
from ember import nn
from ember.nn.parallel import DistributedDataParallel as DDP
from ember.distributed import GradBucket
from ember.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as P
dist.init_process_group("gloo")
r, n = dist.get_rank(), dist.get_world_size()

def bucket_of(shapes, values, index=0):
    # a GradBucket over a fresh flat buffer holding ``values`` (one tensor per shape)
    buf = ember.cat([v.reshape(-1) for v in values]).clone()
    views, off = [], 0
    for s in shapes:
        k = 1
        for d in s:
            k *= d
        views.append(buf[off:off + k].view(*s))
        off += k
    return GradBucket(index, buf, views, [ember.zeros(*s) for s in shapes], True)

def mean_over_ranks(t):
    t = t.clone()
    dist.all_reduce(t)
    return t / n

def run(hook, state, shapes, values):
    b = bucket_of(shapes, values)
    return hook(state, b).wait().clone()

g = ember.Generator().manual_seed(5)
u, v = ember.randn(12, 2, generator=g), ember.randn(10, 2, generator=g)
w = ember.randn(2, 2, generator=g) + r * ember.eye(2)  # rank-dependent mixing, same column space
low_rank = u @ w @ v.t()  # rank 2 on every rank, and so is the mean
bias = ember.arange(4.0) * (r + 1)
shapes = [(12, 10), (4,)]  # rank 2 compresses a 12 x 10 matrix 2.7 times
exact = ember.cat([mean_over_ranks(low_rank).reshape(-1), mean_over_ranks(bias)])

st = P.PowerSGDState(None, matrix_approximation_rank=2, start_powerSGD_iter=2)
before = [run(P.powerSGD_hook, st, shapes, [low_rank, bias]) for _ in range(2)]
emit(vanilla=[(b - exact).abs().max().item() for b in before], iter_after_vanilla=st.iter)
after = run(P.powerSGD_hook, st, shapes, [low_rank, bias])
emit(exact_rank2=(after - exact).abs().max().item(), compressed_something=st.compression_stats()[0] > 1)

# rank 1 on the (padded) square of the whole bucket: 4 x 4 = 16 elements, 14 used (the
# last row is zero, so the zero padding keeps the rank)
row, col = ember.tensor([1.0, 2.0, 3.0, 0.0]), ember.tensor([1.0, -2.0, 0.5, 3.0])
square = ember.outer(row, col).reshape(-1) * (r + 1)
shapes14 = [(7, 2)]
bst = P.PowerSGDState(None, start_powerSGD_iter=2, use_error_feedback=False)
for _ in range(2):
    run(P.batched_powerSGD_hook, bst, shapes14, [square[:14]])
flat = run(P.batched_powerSGD_hook, bst, shapes14, [square[:14]])
emit(exact_batched=(flat - mean_over_ranks(square[:14])).abs().max().item(),
     batched_shapes=[list(bst.p_memory_dict[0].shape), flat.numel()])

# error feedback: mean over ranks of (gradient + previous error - new error) is the output
ef = P.PowerSGDState(None, start_powerSGD_iter=2)
gen = ember.Generator().manual_seed(100 + r)
worst = 0.0
for step in range(5):
    grad = ember.randn(8, 6, generator=gen)
    prev = ef.error_dict.get(0, ember.zeros(48)).clone()
    out_ = run(P.powerSGD_hook, ef, [(8, 6)], [grad])
    sent = grad.reshape(-1) + prev - ef.error_dict.get(0, ember.zeros(48))
    worst = max(worst, (mean_over_ranks(sent) - out_).abs().max().item())
    if step == 4:
        emit(error_nonzero=ef.error_dict[0].abs().max().item())
emit(error_identity=worst)

# warm start keeps Q between iterations; without it the memories are dropped every time
for warm in (True, False):
    s = P.PowerSGDState(None, start_powerSGD_iter=2, warm_start=warm)
    for _ in range(3):
        run(P.powerSGD_hook, s, [(8, 6)], [ember.randn(8, 6, generator=gen)])
    emit(**{f"memories_warm_{warm}": [sorted(s.p_memory_dict), sorted(s.q_memory_dict)]})

# several buckets (tiny cap) and one rank slower: every rank ends with the same gradients
def mlp(seed):
    ember.manual_seed(seed)
    return nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(),
                         nn.Linear(32, 4))

import time
ember.manual_seed(0)
# DDP's first bucket closes at 1 MiB: the 512 x 512 weight fills it, the rest is a second
wide = nn.Sequential(nn.Linear(16, 512), nn.Tanh(), nn.Linear(512, 512), nn.Tanh(), nn.Linear(512, 4))
multi = DDP(wide, bucket_cap_mb=0.5)
multi.register_comm_hook(P.PowerSGDState(None, start_powerSGD_iter=2), P.powerSGD_hook)
data = ember.Generator().manual_seed(7 + r)
for step in range(4):
    x = ember.randn(8, 16, generator=data)
    if r == 1:
        time.sleep(0.05)
    multi(x).pow(2).mean().backward()
flat_grads = ember.cat([p.grad.reshape(-1) for p in multi.parameters()])
spread = (flat_grads - mean_over_ranks(flat_grads)).abs().max().item()
emit(buckets=len(multi.reducer.buckets), same_on_all_ranks=spread)

# a hook wrapping PowerSGD with ``then`` (as fp16_compress_wrapper does)
def scaled(state, bucket):
    return P.powerSGD_hook(state, bucket).then(lambda f: f.value() * 2)

pair = []
for hook in (P.powerSGD_hook, scaled):
    m = DDP(mlp(0))
    m.register_comm_hook(P.PowerSGDState(None, start_powerSGD_iter=2), hook)
    data = ember.Generator().manual_seed(11 + r)
    for step in range(3):
        m.zero_grad()
        m(ember.randn(8, 16, generator=data)).pow(2).mean().backward()
    pair.append(ember.cat([p.grad.reshape(-1) for p in m.parameters()]))
emit(chained=(pair[1] - 2 * pair[0]).abs().max().item())

# training: a teacher network's outputs, plain DDP against PowerSGD (rank 1 and rank 2)
def train(hook_state):
    ember.manual_seed(3)
    teacher = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 4))
    model = DDP(mlp(1))
    if hook_state is not None:
        model.register_comm_hook(hook_state, P.powerSGD_hook)
    opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    data = ember.Generator().manual_seed(20 + r)
    losses = []
    for step in range(120):
        x = ember.randn(16, 16, generator=data)
        with ember.no_grad():
            y = teacher(x)
        opt.zero_grad()
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(mean_over_ranks(loss.detach()).item())
    return sum(losses[:5]) / 5, sum(losses[-10:]) / 10

emit(train_plain=train(None),
     train_rank1=train(P.PowerSGDState(None, start_powerSGD_iter=10)),
     train_rank2=train(P.PowerSGDState(None, matrix_approximation_rank=2, start_powerSGD_iter=10)))
dist.destroy_process_group()
"""


@pytest.fixture(scope="module")
def job(tmp_path_factory: Any) -> list[dict[str, Any]]:
    code, text, res = run_mpiexec(tmp_path_factory.mktemp("powersgd"), WORKER, n=2, timeout=120)
    assert code == 0, text
    return res


def test_plain_average_before_start_iter(job: Any) -> None:
    for res in job:
        assert max(res["vanilla"]) < 1e-6 and res["iter_after_vanilla"] == 2


def test_exact_when_the_gradient_has_rank_at_most_r(job: Any) -> None:
    for res in job:
        assert res["compressed_something"]
        assert res["exact_rank2"] < 1e-4
        assert res["exact_batched"] < 1e-4
        assert res["batched_shapes"] == [[4, 1], 14]  # padded square; buffer length kept


def test_error_feedback_identity(job: Any) -> None:
    for res in job:
        assert res["error_identity"] < 1e-5
        assert res["error_nonzero"] > 1e-3  # random 8x6 gradients are not rank 1


def test_warm_start_memories(job: Any) -> None:
    for res in job:
        assert res["memories_warm_True"] == [[0], [0]]
        assert res["memories_warm_False"] == [[], []]


def test_several_buckets_same_gradient_on_every_rank(job: Any) -> None:
    for res in job:
        assert res["buckets"] > 1
        assert res["same_on_all_ranks"] < 1e-6


def test_future_chained_on_the_hook(job: Any) -> None:
    for res in job:
        assert res["chained"] < 1e-5


def test_trains_about_as_well_as_plain_ddp(job: Any) -> None:
    for res in job:
        first, plain = res["train_plain"]
        for key in ("train_rank1", "train_rank2"):
            start, end = res[key]
            assert start == pytest.approx(first)
            assert end < 0.2 * start and end < 3 * plain + 1e-3, (key, res)
