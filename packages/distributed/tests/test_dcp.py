"""Distributed checkpoint round trips: saved on 2 ranks (a row-sharded tensor, replicated
tensors, objects, a Stateful), loaded on 1, 2 and 4 ranks with other shardings, and both
ways with PyTorch 2.13's DCP (torch's own DTensor on 2 gloo ranks, and one process).
The jobs run once per module; each test checks one property of their results."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from _launch import HERE, run_mpiexec, run_ranks

COMMON = f"""
import sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, {str(HERE)!r})
import ember.distributed.checkpoint as dcp
from _dcp_fake import FakeDTensor, Shard, Replicate
"""

VALUES = r"""
def full_w():
    return ember.arange(21.).reshape(7, 3)
def expected():
    return {"rep": [2.0] * 4, "bf": ember.arange(6).to(ember.bfloat16).tolist(), "i64": list(range(5)),
            "sc": 3.5, "step": 5, "name": "run-1", "nested": {"lr": [0.1, 0.01], "flag": True}}
class Counter:
    def __init__(self): self.n = 0
    def state_dict(self): return {"n": self.n}
    def load_state_dict(self, sd): self.n = sd["n"]
"""

SAVE = COMMON + VALUES + r"""
dist.init_process_group("gloo")
r = dist.get_rank()
ckpt, ckpt_async = sys.argv[2], sys.argv[3]
c = Counter(); c.n = 11
sd = {"model": {"w": FakeDTensor(full_w(), Shard(0)), "rep": ember.ones(4) * 2,
                "tiny": FakeDTensor(ember.tensor([[1., 2., 3.]]), Shard(0)),  # rank 1's piece is empty
                "bf": ember.arange(6).to(ember.bfloat16), "i64": ember.arange(5), "sc": ember.tensor(3.5)},
      "step": 5, "name": "run-1", "nested": {"lr": [0.1, 0.01], "flag": True}, "counter": c}
md = dcp.save(sd, checkpoint_id=ckpt)
emit(keys=sorted(md.state_dict_metadata), files=sorted(os.listdir(ckpt)))
fut = dcp.async_save({"w": FakeDTensor(full_w() * 10, Shard(0))}, checkpoint_id=ckpt_async)
sd["model"]["w"].to_local().fill_(-1)   # changing the live tensor must not change the staged copy
fut.result(timeout=60)
emit(async_files=sorted(os.listdir(ckpt_async)))
dist.destroy_process_group()
"""

LOAD = COMMON + VALUES + r"""
dist.init_process_group("gloo")
r = dist.get_rank()
ckpt, torch_ckpt, dim = sys.argv[2], sys.argv[3], int(sys.argv[4])
c = Counter()
w = FakeDTensor(ember.zeros(7, 3), Shard(dim))
tiny = FakeDTensor(ember.zeros(1, 3), Shard(dim))
sd = {"model": {"w": w, "rep": ember.zeros(4), "bf": ember.zeros(6, dtype=ember.bfloat16), "tiny": tiny,
                "i64": ember.zeros(5, dtype=ember.int64), "sc": ember.tensor(0.)},
      "step": 0, "name": "", "nested": {"lr": [0, 0], "flag": False}, "counter": c}
dcp.load(sd, checkpoint_id=ckpt)
want = FakeDTensor(full_w(), Shard(dim)).to_local()
m = sd["model"]
emit(w_ok=bool((w.to_local() == want).all().item()), local_shape=list(w.to_local().shape),
     tiny=tiny.to_local().tolist(),
     rep=m["rep"].tolist(), bf=m["bf"].tolist(), i64=m["i64"].tolist(), sc=m["sc"].item(),
     step=sd["step"], name=sd["name"], nested=sd["nested"], counter=c.n)
a = {"w": FakeDTensor(ember.zeros(7, 3), Shard(dim))}
dcp.load(a, checkpoint_id=sys.argv[5])
emit(async_ok=bool((a["w"].to_local() == FakeDTensor(full_w() * 10, Shard(dim)).to_local()).all().item()))
if torch_ckpt != "-":
    t = {"w": FakeDTensor(ember.zeros(7, 3), Shard(dim)), "extra": ember.zeros(2, 2), "tag": ""}
    dcp.load(t, checkpoint_id=torch_ckpt)
    emit(torch_w_ok=bool((t["w"].to_local() == FakeDTensor(full_w() + 100, Shard(dim)).to_local()).all().item()),
         torch_extra=t["extra"].tolist(), torch_tag=t["tag"])
dist.destroy_process_group()
"""

# PyTorch itself on 2 gloo ranks with its real DTensor: loads ember's checkpoint resharded
# onto Shard(1), and saves one of its own (w + 100 row-sharded, a replicated tensor, a string).
TORCH_JOB = r"""
import warnings
warnings.simplefilter("ignore")
import torch, torch.distributed as tdist, torch.distributed.checkpoint as tdcp
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import distribute_tensor, Shard
tdist.init_process_group("gloo")
mesh = init_device_mesh("cpu", (2,))
full = torch.arange(21.).reshape(7, 3)
w = distribute_tensor(torch.zeros(7, 3), mesh, [Shard(1)])
sd = {"model": {"w": w, "rep": torch.zeros(4), "bf": torch.zeros(6, dtype=torch.bfloat16),
                "i64": torch.zeros(5, dtype=torch.int64), "sc": torch.tensor(0.)}, "step": 0, "name": ""}
tdcp.load(sd, checkpoint_id=sys.argv[2])
emit(w_ok=bool(torch.equal(w.full_tensor(), full)), rep=sd["model"]["rep"].tolist(), step=sd["step"],
     name=sd["name"], bf=sd["model"]["bf"].tolist())
out = {"w": distribute_tensor(full + 100, mesh, [Shard(0)]), "extra": torch.full((2, 2), 7.0), "tag": "torch"}
tdcp.save(out, checkpoint_id=sys.argv[3])
tdist.barrier()
tdist.destroy_process_group()
"""


def _argv(body: str, *args: str) -> str:
    # The launcher passes only the result path: give the script its own arguments.
    return f"sys.argv[2:] = {list(args)!r}\n" + body


@pytest.fixture(scope="module")
def jobs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("dcp")
    ckpt, ckpt_async, torch_ckpt = base / "ckpt", base / "async", base / "torch_ckpt"
    out: dict[str, Any] = {"ckpt": ckpt, "torch_ckpt": torch_ckpt, "async": ckpt_async}
    d = base / "save"
    d.mkdir()
    code, text, res = run_mpiexec(d, _argv(SAVE, str(ckpt), str(ckpt_async)), n=2, timeout=120)
    assert code == 0, text
    out["save"] = res
    try:
        import torch  # noqa: F401
        d = base / "torch"
        d.mkdir()
        codes, text, res = run_ranks(d, _argv(TORCH_JOB, str(ckpt), str(torch_ckpt)), n=2, timeout=180)
        assert codes == [0, 0], text
        out["torch"] = res
    except ImportError:
        out["torch"] = None
    for n, dim in ((4, 0), (2, 1)):
        d = base / f"load{n}"
        d.mkdir()
        tck = str(torch_ckpt) if out["torch"] is not None else "-"
        code, text, res = run_mpiexec(d, _argv(LOAD, str(ckpt), tck, str(dim), str(ckpt_async)), n=n, timeout=120)
        assert code == 0, text
        out[f"load{n}"] = res
    return out


def _expected() -> dict[str, Any]:
    ns: dict[str, Any] = {}
    import ember

    exec(VALUES, {"ember": ember}, ns)
    return ns["expected"]()


def test_files_follow_pytorch_layout(jobs: dict[str, Any]) -> None:
    assert jobs["save"][0]["files"] == [".metadata", "__0_0.distcp", "__1_0.distcp"]
    assert "model.w" in jobs["save"][0]["keys"] and "counter.n" in jobs["save"][0]["keys"]
    assert jobs["save"][0]["async_files"] == [".metadata", "__0_0.distcp", "__1_0.distcp"]


@pytest.mark.parametrize("n", [4, 2])
def test_reshard_on_load(jobs: dict[str, Any], n: int) -> None:
    exp = _expected()
    for r, res in enumerate(jobs[f"load{n}"]):
        assert res["w_ok"], (r, res)
        for k in ("rep", "bf", "i64", "sc", "step", "name", "nested"):
            assert res[k] == exp[k], (r, k, res[k])
        assert res["counter"] == 11 and res["async_ok"]
    if n == 4:  # 7 rows over 4 ranks: torch.chunk gives 2, 2, 2, 1
        assert [res["local_shape"] for res in jobs["load4"]] == [[2, 3], [2, 3], [2, 3], [1, 3]]
        assert [res["tiny"] for res in jobs["load4"]] == [[[1.0, 2.0, 3.0]], [], [], []]
    else:
        assert [res["local_shape"] for res in jobs["load2"]] == [[7, 2], [7, 1]]
        assert [res["tiny"] for res in jobs["load2"]] == [[[1.0, 2.0]], [[3.0]]]


def test_load_on_one_process(jobs: dict[str, Any]) -> None:
    import ember
    import ember.distributed.checkpoint as dcp

    sd = {"model": {"w": ember.zeros(7, 3), "rep": ember.zeros(4)}, "step": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dcp.load(sd, checkpoint_id=jobs["ckpt"])
    assert sd["model"]["w"].tolist() == ember.arange(21.).reshape(7, 3).tolist()
    assert sd["model"]["rep"].tolist() == [2.0] * 4 and sd["step"] == 5


def test_torch_loads_ember_checkpoint(jobs: dict[str, Any]) -> None:
    torch = pytest.importorskip("torch")
    import torch.distributed.checkpoint as tdcp

    exp = _expected()
    for res in jobs["torch"]:  # 2 ranks, torch's DTensor sharded on the other dim
        assert res["w_ok"] and res["rep"] == exp["rep"] and res["step"] == 5 and res["name"] == "run-1"
        assert res["bf"] == exp["bf"]
    sd = {"model": {"w": torch.zeros(7, 3), "i64": torch.zeros(5, dtype=torch.int64)}, "nested": {"lr": [0, 0]}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tdcp.load(sd, checkpoint_id=str(jobs["ckpt"]), no_dist=True)
    assert torch.equal(sd["model"]["w"], torch.arange(21.).reshape(7, 3))
    assert sd["model"]["i64"].tolist() == list(range(5)) and sd["nested"]["lr"] == [0.1, 0.01]


@pytest.mark.parametrize("n", [4, 2])
def test_ember_loads_torch_checkpoint(jobs: dict[str, Any], n: int) -> None:
    if jobs["torch"] is None:
        pytest.skip("torch is not installed")
    for res in jobs[f"load{n}"]:
        assert res["torch_w_ok"] and res["torch_extra"] == [[7.0, 7.0], [7.0, 7.0]] and res["torch_tag"] == "torch"


def test_single_process_interop_both_ways(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    import ember
    import ember.distributed.checkpoint as dcp
    import torch.distributed.checkpoint as tdcp

    warnings.simplefilter("ignore")
    t = torch.arange(24, dtype=torch.float64).reshape(2, 3, 4)
    tdcp.save({"a": t, "b": [1, torch.ones(2, dtype=torch.int32)], "c": {"d": "x"}},
              checkpoint_id=str(tmp_path / "t"), no_dist=True)
    e = {"a": ember.zeros(2, 3, 4, dtype=ember.float64), "b": [0, ember.zeros(2, dtype=ember.int32)], "c": {"d": ""}}
    dcp.load(e, checkpoint_id=tmp_path / "t", no_dist=True)
    assert e["a"].tolist() == t.tolist() and e["b"][0] == 1 and e["b"][1].tolist() == [1, 1] and e["c"]["d"] == "x"
    # Non-contiguous and view tensors are saved as their own elements only.
    base = ember.arange(40.).reshape(5, 8)
    dcp.save({"v": base[1:3], "tt": base.t(), "h": ember.ones(3, dtype=ember.float16)},
             checkpoint_id=tmp_path / "e", no_dist=True)
    back = {"v": torch.zeros(2, 8), "tt": torch.zeros(8, 5), "h": torch.zeros(3, dtype=torch.float16)}
    tdcp.load(back, checkpoint_id=str(tmp_path / "e"), no_dist=True)
    assert back["v"].tolist() == base[1:3].tolist() and back["tt"].tolist() == base.t().tolist()
    assert back["h"].tolist() == [1.0, 1.0, 1.0]
    md = tdcp.FileSystemReader(str(tmp_path / "e")).read_metadata()
    assert type(md).__module__ == "torch.distributed.checkpoint.metadata"
    assert md.state_dict_metadata["v"].size == torch.Size([2, 8])
    assert md.state_dict_metadata["h"].properties.dtype == torch.float16


def test_errors_match_pytorch(tmp_path: Path) -> None:
    import ember
    import ember.distributed.checkpoint as dcp

    warnings.simplefilter("ignore")
    dcp.save({"a": ember.ones(2), "n": 3}, checkpoint_id=tmp_path, no_dist=True)
    with pytest.raises(dcp.CheckpointException) as ei:
        dcp.load({"missing": ember.zeros(2)}, checkpoint_id=tmp_path, no_dist=True)
    assert not isinstance(ei.value, Exception)
    msg = str(ei.value)
    assert msg.startswith("CheckpointException ranks:dict_keys([0])")
    assert "RuntimeError: Missing key in checkpoint state_dict: missing." in msg
    with pytest.raises(dcp.CheckpointException, match="Size mismatch"):
        dcp.load({"a": ember.zeros(3)}, checkpoint_id=tmp_path, no_dist=True)
    sd = {"a": ember.zeros(2), "missing": ember.zeros(1)}
    dcp.load(sd, checkpoint_id=tmp_path, planner=dcp.DefaultLoadPlanner(allow_partial_load=True), no_dist=True)
    assert sd["a"].tolist() == [1.0, 1.0]
    with pytest.raises(dcp.CheckpointException, match="Checkpoint already exists"):
        dcp.save({"a": ember.ones(2)}, storage_writer=dcp.FileSystemWriter(tmp_path, overwrite=False), no_dist=True)
    with pytest.raises(RuntimeError, match="checkpoint_id. must be specified"):
        dcp.save({"a": ember.ones(2)})
    assert isinstance(dcp.FileSystemReader(tmp_path), dcp.StorageReader)


def test_rank_local_metadata_without_collectives(tmp_path: Path) -> None:
    import ember
    import ember.distributed.checkpoint as dcp

    warnings.simplefilter("ignore")
    dcp.save({"a": ember.ones(3)}, checkpoint_id=tmp_path, no_dist=True, use_collectives=False)
    dcp.save({"a": ember.arange(3.)}, checkpoint_id=tmp_path, no_dist=True, use_collectives=False)
    from _dcp_fake import listdir_settled

    assert listdir_settled(tmp_path, 2) == ["__0.metadata", "__0_1.distcp"]  # the first save's file is gone
    sd = {"a": ember.zeros(3)}
    dcp.load(sd, checkpoint_id=tmp_path, no_dist=True)
    assert sd["a"].tolist() == [0.0, 1.0, 2.0]
