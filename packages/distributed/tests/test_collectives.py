"""Every collective against hand-computed results, on 2 and 4 ranks under mpiexec (one job per
world size; each check is its own test below)."""

from __future__ import annotations

from typing import Any

import pytest
from _launch import run_mpiexec

WORKER = r"""
dist.init_process_group("gloo")
r, n = dist.get_rank(), dist.get_world_size()
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8"]
for name in DTYPES:
    dt = getattr(ember, name)
    t = ember.full((3,), r + 1, dtype=dt)
    dist.all_reduce(t)
    emit(**{f"sum_{name}": [t.tolist(), str(t.dtype)]})
    t = ember.full((2,), r + 1, dtype=dt)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    emit(**{f"max_{name}": t.tolist()})
    t = ember.full((2,), r + 1, dtype=dt)
    dist.broadcast(t, src=n - 1)
    emit(**{f"bcast_{name}": t.tolist()})
for op in ["SUM", "AVG", "PRODUCT", "MIN", "MAX"]:
    t = ember.tensor([float(r + 1), -float(r)])
    dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
    emit(**{f"op_{op}": t.tolist()})
for op in ["BAND", "BOR", "BXOR"]:
    t = ember.tensor([r + 1, 6])
    dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
    emit(**{f"op_{op}": t.tolist()})
t = ember.tensor([float(r + 1)])
dist.all_reduce(t, op=dist._make_nccl_premul_sum(0.5))
emit(premul=t.tolist())
b = ember.tensor([r == 0, False, True])
dist.all_reduce(b)
emit(bool_sum=b.tolist())
t = (ember.arange(6.0).reshape(2, 3) * (r + 1)).t()
dist.all_reduce(t)
emit(noncontig=t.tolist())
errors = {}
for key, fn in {
    "avg_int": lambda: dist.all_reduce(ember.tensor([1]), op=dist.ReduceOp.AVG),
    "band_float": lambda: dist.all_reduce(ember.tensor([1.0]), op=dist.ReduceOp.BAND),
    "bad_src": lambda: dist.broadcast(ember.tensor([1.0]), src=n),
    "not_tensor": lambda: dist.all_reduce([1.0]),
    "gather_len": lambda: dist.all_gather([ember.zeros(1)], ember.zeros(1)),
    "agit_size": lambda: dist.all_gather_into_tensor(ember.zeros(n, 1), ember.zeros(2)),
    "src_both": lambda: dist.broadcast(ember.zeros(1), src=0, group_src=0),
}.items():
    try:
        fn()
        errors[key] = None
    except Exception as e:
        errors[key] = type(e).__name__
emit(errors=errors)
outs = [ember.zeros(2) for _ in range(n)]
dist.all_gather(outs, ember.tensor([r, r + 0.5]))
emit(all_gather=[o.tolist() for o in outs])
o = ember.zeros(2 * n)
dist.all_gather_into_tensor(o, ember.tensor([r, r + 0.5]))
emit(all_gather_into=o.tolist())
g = [ember.zeros(1) for _ in range(n)] if r == 0 else None
dist.gather(ember.tensor([r + 7.0]), g, dst=0)
emit(gather=[x.tolist() for x in g] if g else None)
s = ember.zeros(1)
dist.scatter(s, [ember.tensor([5.0 + i]) for i in range(n)] if r == 0 else None, src=0)
emit(scatter=s.tolist())
o = ember.zeros(1)
dist.reduce_scatter_tensor(o, ember.arange(float(n)) * (r + 1))
emit(reduce_scatter_tensor=o.tolist())
o = ember.zeros(1)
dist.reduce_scatter(o, [ember.tensor([float(i)]) * (r + 1) for i in range(n)], op=dist.ReduceOp.AVG)
emit(reduce_scatter_avg=o.tolist())
o = ember.zeros(2, dtype=ember.bfloat16)[::2]  # bfloat16 and a strided output
dist.reduce_scatter_tensor(o, (ember.arange(float(n)) * (r + 1)).to(ember.bfloat16))
emit(reduce_scatter_bf16=o.tolist())
w = dist.all_gather_into_tensor(ember.zeros(2 * n), ember.tensor([r, r + 0.5]), async_op=True)
import gc; gc.collect()
emit(async_temporaries=w.wait())
o = ember.zeros(n)
dist.all_to_all_single(o, ember.arange(float(n)) + 10 * r)
emit(all_to_all_single=o.tolist())
ins = [ember.full((i + 1,), float(r)) for i in range(n)]
outs = [ember.zeros(r + 1) for _ in range(n)]
dist.all_to_all(outs, ins)
emit(all_to_all=[x.tolist() for x in outs])
t = ember.tensor([r + 1.0])
dist.reduce(t, dst=n - 1)
if r == n - 1:
    emit(reduce=t.tolist())
if r == 0:
    dist.send(ember.tensor([42.0]), dst=1)
elif r == 1:
    x = ember.zeros(1)
    src = dist.recv(x)
    emit(recv=[x.tolist(), src])
ops = []
right, left = (r + 1) % n, (r - 1) % n
recv_buf = ember.zeros(1)
works = dist.batch_isend_irecv([dist.P2POp(dist.isend, ember.tensor([float(r)]), right),
                                dist.P2POp(dist.irecv, recv_buf, left)])
for w in works:
    w.wait()
emit(ring=recv_buf.tolist())
w = dist.all_reduce(ember.ones(4), async_op=True)
emit(async_done=[w.wait(), w.is_completed(), w.is_success()])
fut = dist.all_reduce(ember.ones(2), async_op=True).get_future()
emit(future=fut.then(lambda f: f.value()[0].sum().item()).wait())
objs = [None] * n
dist.all_gather_object(objs, {"rank": r, "s": "x" * r})
emit(all_gather_object=objs)
ol = [f"from{r}", {"k": r}]
dist.broadcast_object_list(ol, src=1)
emit(broadcast_object_list=ol)
go = [None] * n if r == 0 else None
dist.gather_object(("g", r), go, dst=0)
if r == 0:
    emit(gather_object=go)
so = [None]
dist.scatter_object_list(so, [f"item{i}" for i in range(n)] if r == 0 else None, src=0)
emit(scatter_object=so[0])
g = dist.new_group([0, n - 1])
emit(new_group=g if g == dist.GroupMember.NON_GROUP_MEMBER else [dist.get_rank(g), dist.get_world_size(g)])
if g != dist.GroupMember.NON_GROUP_MEMBER:
    t = ember.tensor([float(r)])
    dist.all_reduce(t, group=g)
    emit(group_sum=t.tolist())
    t = ember.tensor([float(r)])
    dist.broadcast(t, src=n - 1, group=g)
    emit(group_bcast=t.tolist())
else:
    emit(group_rank=dist.get_rank(g))
mine, groups = dist.new_subgroups(group_size=1 if n == 2 else 2)
t = ember.tensor([1.0])
dist.all_reduce(t, group=mine)
emit(subgroup_sum=t.tolist(), subgroups=len(groups))
dist.barrier()
emit(backend=str(dist.get_backend()), initialized=dist.is_initialized())
dist.destroy_process_group()
emit(after_destroy=dist.is_initialized())
dist.init_process_group("mpi")
t = ember.tensor([1.0])
dist.all_reduce(t)
emit(reinit=t.tolist())
dist.destroy_process_group()
"""


@pytest.fixture(scope="module", params=[2, 4])
def job(request: Any, tmp_path_factory: Any) -> tuple[int, list[dict[str, Any]]]:
    n = request.param
    code, text, res = run_mpiexec(tmp_path_factory.mktemp(f"coll{n}"), WORKER, n=n, timeout=120)
    assert code == 0, text
    return n, res


DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes(job: Any, dtype: str) -> None:
    n, res = job
    total = sum(range(1, n + 1))
    for r in range(n):
        values, name = res[r][f"sum_{dtype}"]
        assert values == [total] * 3 and name == f"torch.{dtype}"
        assert res[r][f"max_{dtype}"] == [n] * 2
        assert res[r][f"bcast_{dtype}"] == [n] * 2


def test_reduce_ops(job: Any) -> None:
    n, res = job
    import math

    want = {
        "op_SUM": [sum(range(1, n + 1)), -sum(range(n))],
        "op_AVG": [sum(range(1, n + 1)) / n, -sum(range(n)) / n],
        "op_PRODUCT": [math.factorial(n), 0.0],
        "op_MIN": [1.0, -(n - 1.0)],
        "op_MAX": [float(n), 0.0],
        "premul": [0.5 * sum(range(1, n + 1))],
        "bool_sum": [True, False, True],
    }
    band = bor = bxor = None
    for r in range(n):
        band = (r + 1) if band is None else band & (r + 1)
        bor = (r + 1) if bor is None else bor | (r + 1)
        bxor = (r + 1) if bxor is None else bxor ^ (r + 1)
    want.update({"op_BAND": [band, 6], "op_BOR": [bor, 6], "op_BXOR": [bxor, 6 if n % 2 else 0]})
    for r in range(n):
        for key, value in want.items():
            assert res[r][key] == pytest.approx(value), (r, key)
        total = sum(range(1, n + 1))  # a transposed (non-contiguous) tensor reduced in place
        assert res[r]["noncontig"] == [[(i + 3 * j) * total for j in range(2)] for i in range(3)]


def test_validation_errors(job: Any) -> None:
    n, res = job
    assert res[0]["errors"] == {"avg_int": "RuntimeError", "band_float": "RuntimeError",
                                "bad_src": "ValueError", "not_tensor": "TypeError",
                                "gather_len": "RuntimeError", "agit_size": "RuntimeError",
                                "src_both": "ValueError"}


def test_data_movement(job: Any) -> None:
    n, res = job
    for r in range(n):
        got = res[r]
        assert got["all_gather"] == [[i, i + 0.5] for i in range(n)]
        assert got["all_gather_into"] == [v for i in range(n) for v in (i, i + 0.5)]
        assert got["scatter"] == [5.0 + r]
        assert got["reduce_scatter_tensor"] == [r * sum(range(1, n + 1))]
        assert got["reduce_scatter_avg"] == pytest.approx([r * sum(range(1, n + 1)) / n])
        assert got["reduce_scatter_bf16"] == [r * sum(range(1, n + 1))]
        assert got["async_temporaries"] is True
        assert got["all_to_all_single"] == [r + 10.0 * i for i in range(n)]
        assert got["all_to_all"] == [[float(i)] * (r + 1) for i in range(n)]
        assert got["ring"] == [float((r - 1) % n)]
    assert res[0]["gather"] == [[7.0 + i] for i in range(n)]
    assert res[n - 1]["reduce"] == [sum(range(1, n + 1))]
    assert res[1]["recv"] == [[42.0], 0]


def test_async_and_objects(job: Any) -> None:
    n, res = job
    for r in range(n):
        got = res[r]
        assert got["async_done"] == [True, True, True]
        assert got["future"] == 2.0 * n
        assert got["all_gather_object"] == [{"rank": i, "s": "x" * i} for i in range(n)]
        assert got["broadcast_object_list"] == ["from1", {"k": 1}]
        assert got["scatter_object"] == f"item{r}"
    assert res[0]["gather_object"] == [["g", i] for i in range(n)]


def test_groups_and_lifecycle(job: Any) -> None:
    n, res = job
    for r in range(n):
        got = res[r]
        if r in (0, n - 1):
            assert got["new_group"] == [0 if r == 0 else 1, 2]
            assert got["group_sum"] == [float(n - 1)]
            assert got["group_bcast"] == [float(n - 1)]
        else:
            assert got["new_group"] == -100 and got["group_rank"] == -1
        assert got["subgroup_sum"] == [1.0 if n == 2 else 2.0]
        assert got["subgroups"] == (n if n == 2 else n // 2)
        assert got["backend"] == "gloo" and got["initialized"] is True
        assert got["after_destroy"] is False
        assert got["reinit"] == [float(n)]
