"""DTensor rules closing gaps against PyTorch 2.13's DTensor: vector norms over shards
(``_NormPartial`` / Partial(max|min|sum) and their gradients), views of sharded dims
(``_StridedShard`` from flatten/view, back to Shard on the way back, 2-d meshes as FSDP2+TP lay
them out), gather/scatter/scatter_add/index_add, masked_fill/where, cumsum, nll_loss and
cross_entropy. One script runs under torchrun (gloo) and under mpiexec as ``import ember as
torch``, on a 2-rank mesh and a 2x2 mesh; placements, global shapes, dtypes, values and errors
(type and first line) must agree, except the cases listed in KNOWN (PyTorch's own bugs or
cost-model choices ember does not follow)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _launch import TORCH_EXIT_ABORT, TORCHRUN, _env, mpiexec
from test_dtensor_ops_more import _same

SCRIPT = r'''import json, sys, math
if sys.argv[1] == "torch":
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor
else:
    import ember as torch
    import ember.distributed as dist
    import ember.nn.functional as F
    from ember.distributed.device_mesh import init_device_mesh
    from ember.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor
dist.init_process_group("gloo")
r = dist.get_rank()
MESH = tuple(int(x) for x in sys.argv[3].split("x"))
m = init_device_mesh("cpu", MESH)
out = {}

def enc(v, values=True):
    if isinstance(v, DTensor):
        return ["DTensor", str(v.placements), list(v.shape), str(v.dtype)] + (
            [v.full_tensor().tolist()] if values else [])
    if isinstance(v, torch.Tensor):
        return ["Tensor", list(v.shape), str(v.dtype)] + ([v.tolist()] if values else [])
    if isinstance(v, (tuple, list)):
        return ["seq"] + [enc(x, values) for x in v]
    return [type(v).__name__, v if isinstance(v, (bool, int, float)) else repr(v)]

def record(name, f, values=True):
    try:
        v = f()
    except Exception as e:
        out[name] = ["error", type(e).__name__, str(e).split("\n")[0][:200]]
        return
    try:
        out[name] = enc(v, values)
    except Exception as e:
        out[name] = ["enc-error", type(e).__name__, str(e).split("\n")[0][:200]]

nd = len(MESH)
def R(t):
    return distribute_tensor(t, m, [Replicate()] * nd)
def P(t):
    return DTensor.from_local(t / m.size(), m, [Partial()] * nd)
def D(t, *pl):
    return distribute_tensor(t, m, list(pl) * (nd // len(pl)) if len(pl) < nd else list(pl))

full = torch.arange(24.).reshape(6, 4) / 7 - 1.5
full3 = torch.arange(48.).reshape(4, 6, 2) / 11 - 2
lay = [("S0", [Shard(0)]), ("S1", [Shard(1)]), ("R", [Replicate()]), ("P", None)]
if nd == 2:
    lay += [("S0S1", [Shard(0), Shard(1)]), ("S0S0", [Shard(0), Shard(0)]), ("RS1", [Replicate(), Shard(1)])]
for pn, pl in lay:
    if pl is None:
        d, d3 = P(full), P(full3)
    else:
        d, d3 = D(full, *pl), D(full3, *pl)
    idx_r = R(torch.tensor([[0, 3], [1, 2], [3, 3], [2, 0], [1, 1], [0, 2]]))
    idx1 = R(torch.tensor([[0], [3], [1], [2], [1], [0]]))
    idx0 = R(torch.tensor([[0, 5, 2, 1]]))
    src = R(torch.ones(6, 2))
    tgt = R(torch.tensor([0, 3, 1, 2, 1, 0]))
    mask = R(full > 0)
    cases = {
        # norms
        "norm": lambda: d.norm(), "norm1": lambda: d.norm(1), "norm_inf": lambda: d.norm(float("inf")),
        "norm_ninf": lambda: d.norm(float("-inf")), "norm0": lambda: d.norm(0), "norm3": lambda: d.norm(3),
        "norm_dim1": lambda: d.norm(dim=1), "norm_dim0k": lambda: torch.norm(d, 2, 0, True),
        "vnorm": lambda: torch.linalg.vector_norm(d), "vnorm3": lambda: torch.linalg.vector_norm(d, 3),
        "vnorm_inf_d0": lambda: torch.linalg.vector_norm(d, float("inf"), dim=0),
        "vnorm_half": lambda: torch.linalg.vector_norm(d, 0.5),
        "fe_norm": lambda: torch._foreach_norm([d, d * 2]), "fe_norm1": lambda: torch._foreach_norm([d, d3], 1),
        "fe_norm_inf": lambda: torch._foreach_norm([d], float("inf")), "fe_norm0": lambda: torch._foreach_norm([d], 0),
        "norm_mul": lambda: d.norm() * 2, "norm_add": lambda: d.norm() + d.norm(),
        "norm_addR": lambda: d.norm() + R(torch.tensor(1.)),
        "norm_stack": lambda: torch.stack([d.norm(), (d * 2).norm()]),
        "norm_stack_norm": lambda: torch.linalg.vector_norm(torch.stack([d.norm(), (d * 2).norm()])),
        "norm_redist": lambda: d.norm().redistribute(m, [Replicate()] * nd),
        "norm_sqrt": lambda: d.norm().sqrt(), "norm_sum": lambda: d.norm(dim=1).sum(),
        "norm_item": lambda: d.norm().full_tensor().item(),
        # views
        "flat01": lambda: d3.flatten(0, 1), "flat12": lambda: d3.flatten(1), "flat": lambda: d3.flatten(),
        "flat01_back": lambda: d3.flatten(0, 1).view(4, 6, 2),
        "flat01_unflat": lambda: d3.flatten(0, 1).unflatten(0, (4, 6)),
        "view_24_2": lambda: d3.view(24, 2), "reshape_4_12": lambda: d3.reshape(4, 12),
        "view_2_2_6_2": lambda: d3.view(2, 2, 6, 2), "view_4_2_3_2": lambda: d3.view(4, 2, 3, 2),
        "view_4_3_4": lambda: d3.view(4, 3, 4), "view_8_3_2": lambda: d3.view(8, 3, 2),
        "unflat1": lambda: d3.unflatten(1, (2, 3)), "view_m1": lambda: d.view(-1),
        "view_3_2_4": lambda: d.view(3, 2, 4), "view_6_2_2": lambda: d.view(6, 2, 2),
        "flat_back2": lambda: d.view(-1).view(6, 4),
        "flat01_sum0": lambda: d3.flatten(0, 1).sum(0), "flat01_mm": lambda: d3.flatten(0, 1) @ R(torch.ones(2, 3)),
        "flat01_full": lambda: d3.flatten(0, 1).redistribute(m, [Replicate()] * nd),
        "flat01_relu": lambda: d3.flatten(0, 1).relu().view(4, 6, 2),
        # gather/scatter
        "gather1": lambda: torch.gather(d, 1, idx_r), "gather1_m": lambda: d.gather(1, idx1),
        "gather0": lambda: torch.gather(d, 0, idx0),
        "gather_Sidx": lambda: torch.gather(d, 1, D(torch.tensor([[0, 3], [1, 2], [3, 3], [2, 0], [1, 1], [0, 2]]), Shard(0))),
        "scatter1": lambda: torch.scatter(d, 1, idx_r, src), "scatter_v": lambda: d.scatter(1, idx_r, 5.0),
        "scatter_add1": lambda: torch.scatter_add(d, 1, idx_r, src),
        "scatter_add0": lambda: d.scatter_add(0, idx0, R(torch.ones(1, 4))),
        "scatter_": lambda: (d * 1).scatter_(1, idx_r, src),
        "index_add0": lambda: d.index_add(0, R(torch.tensor([0, 2, 5])), R(torch.ones(3, 4))),
        "index_add1": lambda: torch.index_add(d, 1, R(torch.tensor([1, 3])), R(torch.ones(6, 2)), alpha=2.),
        "masked_fill": lambda: d.masked_fill(mask, 0.5), "masked_fill_f": lambda: torch.masked_fill(d, mask, 2.),
        "masked_fill_t": lambda: d.masked_fill(mask, R(torch.tensor(3.))),
        "where": lambda: torch.where(mask, d, R(full * 0)), "where_s": lambda: torch.where(mask, d, 0.),
        "where_m": lambda: d.where(mask, d * 2), "where_dd": lambda: torch.where(d > 0, d, d * -1),
        "cumsum1": lambda: d.cumsum(1), "cumsum0": lambda: torch.cumsum(d, 0), "cumsum_m1": lambda: d.cumsum(-1),
        # losses
        "nll": lambda: F.nll_loss(F.log_softmax(d, 1), tgt),
        "nll_none": lambda: F.nll_loss(F.log_softmax(d, 1), tgt, reduction="none"),
        "nll_sum": lambda: F.nll_loss(F.log_softmax(d, 1), tgt, reduction="sum"),
        "ce": lambda: F.cross_entropy(d, tgt), "ce_none": lambda: F.cross_entropy(d, tgt, reduction="none"),
        "ce_sum": lambda: F.cross_entropy(d, tgt, reduction="sum"),
        "ce_ign": lambda: F.cross_entropy(d, R(torch.tensor([0, -100, 1, 2, 1, 0]))),
        "ce_w": lambda: F.cross_entropy(d, tgt, weight=R(torch.tensor([1., 2., .5, 1.]))),
        "ce_ls": lambda: F.cross_entropy(d, tgt, label_smoothing=0.1),
        "ce_Stgt": lambda: F.cross_entropy(d, D(torch.tensor([0, 3, 1, 2, 1, 0]), Shard(0))),
        "log_softmax1": lambda: F.log_softmax(d, 1), "log_softmax0": lambda: F.log_softmax(d, 0),
    }
    for name, f in cases.items():
        record(f"{pn}_{name}", f)
    if pl is not None:
        def grad(f):
            w = distribute_tensor(full.clone().requires_grad_(), m, pl * (nd // len(pl)))
            f(w).sum().backward()
            return w.grad.full_tensor().tolist()
        g = {"ce": lambda w: F.cross_entropy(w, tgt), "nll": lambda w: F.nll_loss(F.log_softmax(w, 1), tgt),
             "gather": lambda w: w.gather(1, idx_r) ** 2, "norm": lambda w: w.norm(),
             "norm3": lambda w: w.norm(3), "flat": lambda w: w.view(-1) * R(torch.arange(24.)),
             "where": lambda w: torch.where(mask, w, w * 3), "cumsum": lambda w: w.cumsum(1) ** 2,
             "scatter_add": lambda w: w.scatter_add(1, idx_r, src) ** 2}
        for name, f in g.items():
            record(f"{pn}_grad_{name}", lambda: grad(f))
if r == 0:
    with open(sys.argv[2], "w") as fh:
        json.dump(out, fh)
dist.destroy_process_group()
'''

# Differences kept on purpose, per mesh. "2": matmul of a _StridedShard is replicated first here
# (PyTorch keeps the strided rows); PyTorch does not normalize cumsum's dim=-1 (it keeps a
# shard of the scanned dim). "2x2": the same, plus the layouts sharding one dim on both mesh
# dims unevenly, where PyTorch's views fail with local-shape errors or mis-nest, its masked
# gather fails ("MaskBuffer ... conflicting data"), a sum of a norm keeps _NormPartial on the
# wrong terms, and two cost-model picks (index_add, masked_fill with a 0-d value).
KNOWN = {
    "2": {"S1_flat01_mm", "S1_cumsum_m1"},
    "2x2": {"S0_view_2_2_6_2", "S0_view_m1", "S0_flat_back2", "S0_gather0", "S0_grad_flat",
            "S1_flat01", "S1_flat12", "S1_flat", "S1_flat01_back", "S1_flat01_unflat",
            "S1_view_24_2", "S1_reshape_4_12", "S1_view_4_2_3_2", "S1_unflat1", "S1_view_m1",
            "S1_view_6_2_2", "S1_flat_back2", "S1_flat01_sum0", "S1_flat01_mm", "S1_flat01_full",
            "S1_flat01_relu", "S1_gather1_m", "S1_cumsum_m1", "S1_grad_flat", "P_gather1_m",
            "P_gather0", "S0S1_norm_sum", "S0S1_flat01_mm", "S0S1_cumsum_m1", "S0S0_view_2_2_6_2",
            "S0S0_view_m1", "S0S0_flat_back2", "S0S0_gather0", "S0S0_grad_flat", "RS1_flat01_mm",
            "RS1_index_add1", "RS1_masked_fill_t", "RS1_cumsum_m1"},
}


def _run(tmp: Path, which: str, mesh: str) -> dict[str, Any]:
    script = tmp / "gaps_cases.py"
    script.write_text(SCRIPT)
    res = tmp / f"{which}_{mesh}.json"
    n = str(eval(mesh.replace("x", "*")))
    cmd = [*TORCHRUN, "--nproc-per-node", n] if which == "torch" else [mpiexec(), "-n", n, sys.executable]
    p = subprocess.run([*cmd, str(script), which, str(res), mesh], capture_output=True, text=True,
                       timeout=300, env=_env(None), start_new_session=True)
    ok = p.returncode == 0 or (which == "torch" and TORCH_EXIT_ABORT in p.stderr)
    assert ok and res.exists(), f"{which}: exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    return json.loads(res.read_text())  # type: ignore[no-any-return]


@pytest.fixture(scope="module", params=["2", "2x2"])
def results(request: Any, tmp_path_factory: Any) -> tuple[str, dict[str, Any], dict[str, Any]]:
    pytest.importorskip("torch")
    tmp = tmp_path_factory.mktemp("gaps")
    return request.param, _run(tmp, "torch", request.param), _run(tmp, "ember", request.param)


def _check(results: tuple[str, dict[str, Any], dict[str, Any]], pick: Any) -> None:
    mesh, want, got = results
    keys = [k for k in want if pick(k.split("_", 1)[1]) and k not in KNOWN[mesh]]
    assert keys and all(k in got for k in keys), [k for k in keys if k not in got]
    bad = {k: (want[k], got[k]) for k in keys if not _same(want[k], got[k])}
    assert not bad, json.dumps(bad, indent=1)[:6000]


def test_known_differences_still_differ(results: Any) -> None:
    """A KNOWN case that starts matching is dropped from the list (it must not hide a fix)."""
    mesh, want, got = results
    assert all(not _same(want[k], got.get(k)) for k in KNOWN[mesh])


def test_norms_match_torch(results: Any) -> None:
    """norm/vector_norm/_foreach_norm over a shard: _NormPartial(p), Partial(max|min|sum) for
    inf/-inf/0; pointwise ops settle them, stack keeps them; gradients are the global norm's."""
    _check(results, lambda n: "norm" in n)


def test_views_match_torch(results: Any) -> None:
    """flatten/view/reshape/unflatten of sharded dims: Shard, _StridedShard, errors for uneven
    splits, replicated where PyTorch redistributes; back again, sums and full_tensor."""
    _check(results, lambda n: n.startswith(("flat", "view", "reshape", "unflat", "grad_flat")))


def test_index_ops_match_torch(results: Any) -> None:
    _check(results, lambda n: n.startswith(("gather", "scatter", "index_add", "grad_gather",
                                            "grad_scatter", "masked_fill", "where", "grad_where",
                                            "cumsum", "grad_cumsum")))


def test_losses_match_torch(results: Any) -> None:
    """nll_loss/cross_entropy: batch shards stay (Partial(avg)/Partial(sum)/Shard for the
    reductions), a sharded class dim is replicated, uneven means refused as PyTorch."""
    _check(results, lambda n: n.startswith(("nll", "ce", "log_softmax", "grad_ce", "grad_nll")))
