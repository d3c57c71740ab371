"""The torch.distributed names added to fill its API: monitored_barrier, the deprecated
coalesced collectives, split_group, get_backend_config (2 ranks under mpiexec), and the plain
ones (Options structs, enums, backend queries, debug level, rendezvous, the FSDP1 config types,
the not-implemented packages) checked in-process against PyTorch itself."""

from __future__ import annotations

import warnings
from datetime import timedelta
from typing import Any

import ember.distributed as dist
import pytest
from _launch import run_mpiexec

WORKER = r"""
import warnings
from datetime import timedelta
dist.init_process_group("gloo")
r = dist.get_rank()
dist.monitored_barrier()
emit(ok=True)
if r == 0:
    try:
        dist.monitored_barrier(timeout=timedelta(seconds=1))
    except RuntimeError as e:
        emit(first=str(e))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            dist.monitored_barrier(timeout=0.5, wait_all_ranks=True)
        except RuntimeError as e:
            emit(all=str(e), float_warn=[str(x.message) for x in w])
dist.barrier()
dist.monitored_barrier(timeout=timedelta(seconds=30))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    ts = [ember.full((2,), r + 1.0), ember.full((3,), 10.0 * (r + 1))]
    dist.all_reduce_coalesced(ts)
    outs = [[ember.zeros(2, 2), ember.zeros(1)] for _ in range(2)]
    dist.all_gather_coalesced(outs, [ember.full((2, 2), float(r)), ember.tensor([r + 5.0])])
    emit(coalesced=[t.tolist() for t in ts], gathered=[[t.tolist() for t in o] for o in outs],
         coalesced_warn=[x.category.__name__ for x in w])
fut = dist.all_reduce_coalesced([ember.ones(2)], async_op=True)
emit(coalesced_future=[t.tolist() for t in fut.wait()])
g = dist.split_group(split_ranks=[[0], [1]])
t = ember.tensor([r + 1.0])
dist.all_reduce(t, group=g)
emit(split=[dist.get_world_size(g), dist.get_process_group_ranks(g), t.tolist()])
g0 = dist.split_group(split_ranks=[[0]], group_desc="only0")
emit(split_none=g0 is None, split_size=None if g0 is None else g0.size())
emit(config=dist.get_backend_config(), config_split=dist.get_backend_config(g))
try:
    dist.split_group(split_ranks=[])
except ValueError as e:
    emit(split_err=str(e))
dist.destroy_process_group()
dist.init_process_group()
emit(config_default=dist.get_backend_config())
dist.destroy_process_group()
"""


@pytest.fixture(scope="module")
def job(tmp_path_factory: Any) -> list[dict[str, Any]]:
    code, out, res = run_mpiexec(tmp_path_factory.mktemp("gaps"), WORKER, n=2, timeout=120)
    assert code == 0, out
    return res


def test_monitored_barrier(job: Any) -> None:
    assert all(got["ok"] for got in job)
    # PyTorch 2.13 gloo, rank 1 absent: "[Rank 0]: Rank 1 failed to pass monitoredBarrier in
    # 1000 ms\n Original exception: \n[...unbound_buffer.cc:78] Timed out waiting 1000ms for recv
    # operation to complete"
    assert job[0]["first"] == ("[Rank 0]: Rank 1 failed to pass monitoredBarrier in 1000 ms\n "
                               "Original exception: \nTimed out waiting 1000ms for recv "
                               "operation to complete")
    assert job[0]["all"] == "[Rank 0]: Ranks 1 failed to pass monitoredBarrier in 500 ms"
    assert job[0]["float_warn"] == ["Please specify timeout arg as a timedelta. Converting "
                                    "current value of 0.5 assuming it represents seconds"]


def test_coalesced(job: Any) -> None:
    for got in job:
        assert got["coalesced"] == [[3.0, 3.0], [30.0, 30.0, 30.0]]
        assert got["gathered"] == [[[[0.0, 0.0], [0.0, 0.0]], [5.0]], [[[1.0, 1.0], [1.0, 1.0]], [6.0]]]
        assert got["coalesced_warn"] == ["FutureWarning", "FutureWarning"]
        assert got["coalesced_future"] == [[2.0, 2.0]]


def test_split_group(job: Any) -> None:
    for r, got in enumerate(job):
        assert got["split"] == [1, [r], [r + 1.0]]
        assert got["split_none"] is (r == 1)
        assert got["split_err"] == "split_ranks cannot be None or empty"
    assert job[0]["split_size"] == 1


def test_backend_config(job: Any) -> None:
    # PyTorch 2.13 (CPU build): backend="gloo" -> 'cpu:gloo,cuda:gloo'; None -> 'cpu:gloo'
    for got in job:
        assert got["config"] == got["config_split"] == "cpu:gloo,cuda:gloo"
        assert got["config_default"] == "cpu:gloo"


# -- in-process checks against PyTorch ---------------------------------------------------------
torch = pytest.importorskip("torch")
tdist = pytest.importorskip("torch.distributed")

OPTIONS = ["AllreduceOptions", "BroadcastOptions", "ReduceOptions", "GatherOptions",
           "ScatterOptions", "ReduceScatterOptions", "AllToAllOptions", "BarrierOptions",
           "AllreduceCoalescedOptions"]


def _fields(o: Any) -> dict[str, Any]:
    return {a: getattr(o, a) for a in dir(o) if not a.startswith("_")}


@pytest.mark.parametrize("name", OPTIONS)
def test_options_match_torch(name: str) -> None:
    ours, theirs = _fields(getattr(dist, name)()), _fields(getattr(tdist, name)())
    assert sorted(ours) == sorted(theirs)
    for k, v in theirs.items():
        if k == "reduceOp":
            assert ours[k] == dist.ReduceOp.SUM
        else:
            assert ours[k] == v, k


def test_enums_and_queries_match_torch() -> None:
    assert [(m.name, m.value) for m in dist.BuiltinCommHookType] == \
        [(m.name, m.value) for m in tdist.BuiltinCommHookType.__members__.values()]
    for op in ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]:
        assert dist.supports_complex(getattr(dist.ReduceOp, op)) == \
            tdist.supports_complex(getattr(tdist.ReduceOp, op)), op
    for b in ["gloo", "mpi", "nccl", "ucc", "xccl", "cpu:gloo", "cpu:gloo,cuda:nccl", "bogus"]:
        if b in ("mpi", "ucc"):  # built into ember, not into PyTorch's pip wheel
            continue
        assert dist.is_backend_available(b) == tdist.is_backend_available(b), b
    assert dist.is_backend_available("mpi") is True
    assert [c.__name__ for c in dist.QueueEmptyError.__mro__[:4]] == \
        [c.__name__ for c in tdist.QueueEmptyError.__mro__[:4]]
    assert dist.RankType is int and dist.GroupName("x") == "x"


def test_debug_level() -> None:
    before = dist.get_debug_level()
    try:
        dist.set_debug_level(dist.DebugLevel.DETAIL)
        assert dist.get_debug_level() == dist.DebugLevel.DETAIL
        dist.set_debug_level_from_env()
        assert dist.get_debug_level() == before
        with pytest.raises(TypeError):
            dist.set_debug_level("DETAIL")  # type: ignore[arg-type]
    finally:
        dist.set_debug_level(before)


def test_rendezvous_file(tmp_path: Any) -> None:
    store, rank, world = next(dist.rendezvous(f"file://{tmp_path}/rdzv?rank=0&world_size=1"))
    assert (rank, world) == (0, 1)
    store.set("k", "v")
    assert store.get("k") == b"v"
    with pytest.raises(RuntimeError, match=r"No rendezvous handler for bogus://"):
        dist.rendezvous("bogus://x")
    with pytest.raises(RuntimeError, match=r"`rank` must be an integer"):
        dist.rendezvous("env://", rank="0")  # type: ignore[arg-type]


def test_submodules_and_lazy_names() -> None:
    # in-process: importing ember.distributed.tensor wraps nothing (DTensor dispatches through
    # __torch_function__), so nothing leaks into the rest of the suite
    import importlib

    for name in ["algorithms", "device_mesh", "tensor", "fsdp", "optim", "rpc", "pipelining"]:
        assert getattr(dist, name) is importlib.import_module(f"ember.distributed.{name}")
    assert callable(dist.rendezvous)
    assert dist.DeviceMesh is importlib.import_module("ember.distributed.device_mesh").DeviceMesh
    assert dist.init_device_mesh.__name__ == "init_device_mesh"
    assert {"index", "buffer", "gradients", "parameters", "is_last", "set_buffer"} <= set(dir(dist.GradBucket))


def test_fsdp1_config_types_match_torch() -> None:
    import dataclasses

    import ember
    from ember.distributed import fsdp

    tfsdp = pytest.importorskip("torch.distributed.fsdp")
    for name in ["ShardingStrategy", "StateDictType", "BackwardPrefetch", "OptimStateKeyType"]:
        assert [(m.name, m.value) for m in getattr(fsdp, name)] == \
            [(m.name, m.value) for m in getattr(tfsdp, name)], name
    for name in ["CPUOffload", "StateDictConfig", "FullStateDictConfig", "LocalStateDictConfig",
                 "ShardedStateDictConfig", "OptimStateDictConfig", "FullOptimStateDictConfig",
                 "LocalOptimStateDictConfig", "ShardedOptimStateDictConfig"]:
        assert repr(getattr(fsdp, name)()) == repr(getattr(tfsdp, name)()), name
    ours = {f.name: f.default for f in dataclasses.fields(fsdp.MixedPrecision)}
    theirs = {f.name: f.default for f in dataclasses.fields(tfsdp.MixedPrecision)}
    assert sorted(ours) == sorted(theirs)
    assert {k: v for k, v in ours.items() if k != "_module_classes_to_ignore"} == \
        {k: v for k, v in theirs.items() if k != "_module_classes_to_ignore"}
    with pytest.raises(NotImplementedError, match="fully_shard"):
        fsdp.FullyShardedDataParallel(ember.nn.Linear(2, 2))


def test_not_implemented_names() -> None:
    import importlib
    import re

    for path in ["ember.distributed.tensor.parallel.ColwiseParallel",
                 "ember.distributed.tensor.parallel.RowwiseParallel",
                 "ember.distributed.tensor.parallel.parallelize_module",
                 "ember.distributed.pipelining.PipelineStage", "ember.distributed.rpc.init_rpc",
                 "ember.distributed.optim.DistributedOptimizer"]:
        mod, name = path.rsplit(".", 1)
        obj = getattr(importlib.import_module(mod), name)
        with pytest.raises(NotImplementedError,
                           match=re.escape(f"ember: torch{path[len('ember'):]} is not implemented")):
            obj()
    assert dist.rpc.is_available() is False


def test_breakpoint_skip_does_not_stop() -> None:
    # skip > 0: the first call only counts (no debugger, no barrier needed without a group)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dist.breakpoint(rank=0, skip=1)


def test_timedelta_type() -> None:
    assert isinstance(dist.AllreduceOptions().timeout, timedelta)
