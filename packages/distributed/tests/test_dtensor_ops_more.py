"""More DTensor op rules against PyTorch 2.13's DTensor: the out-of-place and in-place
``_foreach_*`` ops, the dim-moving ops (split/chunk/unbind, narrow/select/slicing,
expand/repeat, index_select, flip/roll, tril/triu), reductions (var/std, argmax, all/any/prod,
topk, logsumexp), new_* factories, casts and clones of Partials, linear ops keeping a Partial
(``P * R``, ``P + R``, cat/stack of Partials), einsum/bmm/dot/addmm/baddbmm, layer_norm,
embedding (row-sharded: PyTorch's _MaskPartial) and mse_loss -- on Shard(0)/Shard(1)/
Replicate/Partial inputs. One script runs under torchrun (gloo, 2 ranks) and under mpiexec
(2 ranks) as ``import ember as torch``; placements, global shapes, dtypes, values and errors
(type and first line) must agree."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _launch import TORCH_EXIT_ABORT, TORCHRUN, _env, mpiexec

SCRIPT = r'''
import json, sys
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
m = init_device_mesh("cpu", (2,))
out = {}


def enc(v, values=True):
    if isinstance(v, DTensor):
        return ["DTensor", str(v.placements), list(v.shape), str(v.dtype)] + (
            [v.full_tensor().tolist()] if values else [])
    if isinstance(v, torch.Tensor):
        return ["Tensor", list(v.shape), str(v.dtype)]
    if isinstance(v, (tuple, list)):
        return ["seq"] + [enc(x, values) for x in v]
    return [type(v).__name__, v if isinstance(v, (bool, int, float)) else repr(v)]


def record(name, f, values=True):
    try:
        v = f()
    except Exception as e:  # the error is part of the comparison: type and first line
        out[name] = ["error", type(e).__name__, str(e).split("\n")[0]]
        return
    out[name] = enc(v, values)


def R(t):
    return distribute_tensor(t, m, [Replicate()])


full = torch.arange(24.).reshape(6, 4) / 7 - 1.5
full3 = torch.arange(48.).reshape(2, 6, 4) / 11
for pn, pl in (("S0", Shard(0)), ("S1", Shard(1)), ("R", Replicate()), ("P", None)):
    if pl is None:
        d = DTensor.from_local(full / 2, m, [Partial()])
        d3 = DTensor.from_local(full3 / 2, m, [Partial()])
    else:
        d, d3 = distribute_tensor(full, m, [pl]), distribute_tensor(full3, m, [pl])
    i1 = R(torch.tensor([0, 2, 5]))
    cases = {
        "split0": lambda: d.split(2), "split1": lambda: torch.split(d, 2, 1),
        "chunk0": lambda: d.chunk(2), "chunk1": lambda: torch.chunk(d, 2, 1),
        "unbind0": lambda: d.unbind(0), "unbind1": lambda: torch.unbind(d, 1),
        "narrow0": lambda: d.narrow(0, 1, 2), "narrow1": lambda: torch.narrow(d, 1, 1, 2),
        "select0": lambda: d.select(0, 1), "select1": lambda: d[:, 1], "slice0": lambda: d[1:3],
        "slice1": lambda: d[:, 1:3], "slice_none": lambda: d[None, :, 2:],
        "expand": lambda: d.unsqueeze(0).expand(3, 6, 4), "expand_as": lambda: d.unsqueeze(0).expand_as(d3),
        "repeat": lambda: d.repeat(2, 1), "repeat1": lambda: d.repeat(1, 2),
        "index_select0": lambda: torch.index_select(d, 0, i1), "index_select1": lambda: d.index_select(1, i1[:2]),
        "flip0": lambda: d.flip(0), "roll": lambda: d.roll(1, 0), "tril": lambda: d.tril(),
        "triu": lambda: torch.triu(d, 1),
        "var": lambda: d.var(), "var0": lambda: d.var(0), "var1": lambda: torch.var(d, 1),
        "std1": lambda: d.std(1, keepdim=True), "argmax": lambda: d.argmax(), "argmax0": lambda: d.argmax(0),
        "argmin1": lambda: torch.argmin(d, 1), "logsumexp0": lambda: torch.logsumexp(d, 0),
        "logsumexp1": lambda: torch.logsumexp(d, 1),
        "all": lambda: (d > -2).all(), "all1": lambda: (d > -2).all(1), "any": lambda: (d > 0).any(),
        "any0": lambda: (d > 0).any(0), "prod": lambda: (d / 4 + 1).prod(), "prod1": lambda: (d / 4 + 1).prod(1),
        "topk0": lambda: d.topk(2, 0), "topk1": lambda: torch.topk(d, 2, 1),
        "sort1": lambda: d.sort(1), "argsort0": lambda: torch.argsort(d, 0, descending=True),
        "new_zeros": lambda: d.new_zeros(3, 2), "new_ones": lambda: d.new_ones((3,)),
        "new_full": lambda: d.new_full((2,), 4.), "new_tensor": lambda: d.new_tensor([1., 2.]),
        "to_f64": lambda: d.to(torch.float64), "to_bool": lambda: d.to(torch.bool),
        "long": lambda: d.long(), "clone": lambda: d.clone(), "contiguous": lambda: d.contiguous(),
        "cat0": lambda: torch.cat([d, d]), "stack1": lambda: torch.stack([d, d], 1),
        "mul_R": lambda: d * R(full), "mul_self": lambda: torch.mul(d, d), "div_R": lambda: d / R(full + 9),
        "rdiv_R": lambda: R(full) / (d + 9), "add_R": lambda: d + R(full), "add_R_bcast": lambda: d + R(torch.ones(4)),
        "mul_0d": lambda: d * R(torch.tensor(2.)),
        "mul_": lambda: d.clone().mul_(2), "abs_": lambda: (d * 1).abs_(),
        "masked_fill_": lambda: (d * 1).masked_fill_(R(full > 0), 1.),
        "bmm": lambda: torch.bmm(d3, R(torch.ones(2, 4, 3))), "bmm_method": lambda: d3.bmm(R(torch.ones(2, 4, 3))),
        "baddbmm": lambda: torch.baddbmm(R(torch.ones(2, 6, 3)), d3, R(torch.ones(2, 4, 3))),
        "addmm": lambda: torch.addmm(R(torch.ones(3)), d, R(torch.ones(4, 3))),
        "addmm_scaled": lambda: torch.addmm(R(torch.ones(3)), d, R(torch.ones(4, 3)), beta=0.5, alpha=2.),
        "einsum": lambda: torch.einsum("ij,jk->ik", d, R(torch.ones(4, 3))),
        "einsum_b": lambda: torch.einsum("bij,bjk->bik", d3, R(torch.ones(2, 4, 3))),
        "einsum_t": lambda: torch.einsum("ij->ji", d),
        "dot": lambda: torch.dot(d[:, 0], d[:, 1]),
        "layer_norm": lambda: F.layer_norm(d, (4,)),
        "layer_norm_w": lambda: F.layer_norm(d, (4,), R(torch.ones(4) * 2), R(torch.ones(4))),
        "embedding": lambda: F.embedding(i1, d), "mse": lambda: F.mse_loss(d, d * 0),
        "mse_sum": lambda: F.mse_loss(d, d * 0 + 1, reduction="sum"),
        "dropout_eval": lambda: F.dropout(d, 0.5, training=False), "dropout_p0": lambda: F.dropout(d, 0.0),
    }
    for name, f in cases.items():
        record(f"{pn}_{name}", f)
    if pl is not None:  # gradients through the new rules (a leaf: distribute_tensor of a leaf)
        def grad(f):
            w = distribute_tensor(full.clone().requires_grad_(), m, [pl])
            f(w).sum().backward()
            # (the values: PyTorch leaves the gradient in the layout backward produced, ember
            # in the parameter's -- FSDP's -- layout)
            return w.grad.full_tensor().tolist()
        gcases = {
            "embedding": lambda w: F.embedding(i1, w) ** 2,
            "layer_norm": lambda w: F.layer_norm(w, (4,)) * R(torch.tensor([1., -2., 3., .5])),
            "split": lambda w: torch.cat([a * (k + 1) for k, a in enumerate(w.split(3, 1))], 1),
            "index_select": lambda w: w.index_select(0, i1) ** 2,
            "einsum": lambda w: torch.einsum("ij,jk->ik", w, R(torch.ones(4, 3))) ** 2,
            "slice": lambda w: w[:, 1:3] * 3, "var": lambda w: w.var(1),
        }
        for name, f in gcases.items():
            record(f"{pn}_grad_{name}", lambda: grad(f))
    for name, f in {"empty_like": lambda: torch.empty_like(d), "new_empty": lambda: d.new_empty(3)}.items():
        record(f"{pn}_{name}", f, values=False)
    # the foreach ops: each result laid out as its per-tensor op's, values as the plain ops'
    lst = [d, d * 2]

    def inplace(op, *args):
        xs = [x * 1 for x in lst]  # (x * 1 keeps a Partial Partial; clone would replicate it)
        getattr(torch, op)(xs, *args)
        return xs
    fcases = {
        "add_s": lambda: torch._foreach_add(lst, 1.0), "add_l": lambda: torch._foreach_add(lst, lst),
        "add_l_alpha": lambda: torch._foreach_add(lst, lst, alpha=2.),
        "add_R": lambda: torch._foreach_add(lst, [R(full), R(full)]),
        "sub_l": lambda: torch._foreach_sub(lst, lst), "mul_s": lambda: torch._foreach_mul(lst, 2.0),
        "mul_l": lambda: torch._foreach_mul(lst, lst), "mul_t": lambda: torch._foreach_mul(lst, R(torch.tensor(3.))),
        "mul_plain0d": lambda: torch._foreach_mul(lst, torch.tensor(3.)),
        "div_s": lambda: torch._foreach_div(lst, 2.0), "div_l": lambda: torch._foreach_div(lst, [x + 5 for x in lst]),
        "lerp_s": lambda: torch._foreach_lerp(lst, [x * 2 for x in lst], 0.3),
        "sqrt": lambda: torch._foreach_sqrt([x.abs() for x in lst]), "neg": lambda: torch._foreach_neg(lst),
        "addcmul": lambda: torch._foreach_addcmul(lst, lst, lst, 0.5),
        "addcdiv": lambda: torch._foreach_addcdiv(lst, lst, [x.abs() + 1 for x in lst], 0.5),
        "maximum_l": lambda: torch._foreach_maximum(lst, [x * 0 for x in lst]),
        "maximum_s": lambda: torch._foreach_maximum(lst, 0.0),
        "maximum_s_": lambda: inplace("_foreach_maximum_", 0.0),
        "norm": lambda: [x.full_tensor() for x in torch._foreach_norm(lst)],
        "add_s_": lambda: inplace("_foreach_add_", 1.0), "add_l_": lambda: inplace("_foreach_add_", lst),
        "mul_s_": lambda: inplace("_foreach_mul_", 2.0), "mul_l_": lambda: inplace("_foreach_mul_", lst),
        "lerp_": lambda: inplace("_foreach_lerp_", lst, 0.5), "sqrt_": lambda: inplace("_foreach_sqrt_"),
        "neg_": lambda: inplace("_foreach_neg_"), "zero_": lambda: inplace("_foreach_zero_"),
        "addcmul_": lambda: inplace("_foreach_addcmul_", lst, lst, 0.1),
        "addcdiv_": lambda: inplace("_foreach_addcdiv_", lst, [x.abs() + 1 for x in lst], 0.1),
        "add_R_": lambda: inplace("_foreach_add_", [R(full), R(full)]),
        "copy_": lambda: inplace("_foreach_copy_", lst),
        "mixed": lambda: torch._foreach_add(lst, [full, full]),
        "mixed_self": lambda: torch._foreach_add_([d * 1, full.clone()], 1.0),
        "mixed_sqrt": lambda: torch._foreach_sqrt([d.abs(), full.abs()]),
        "len": lambda: torch._foreach_add(lst, [d]),
    }
    for name, f in fcases.items():
        record(f"{pn}_fe_{name}", f)
if r == 0:
    with open(sys.argv[2], "w") as fh:
        json.dump(out, fh)
dist.destroy_process_group()
'''


def _run(tmp: Path, which: str) -> dict[str, Any]:
    script = tmp / "ops_more_cases.py"
    script.write_text(SCRIPT)
    res = tmp / f"{which}.json"
    cmd = ([*TORCHRUN, "--nproc-per-node", "2"] if which == "torch" else [mpiexec(), "-n", "2", sys.executable])
    p = subprocess.run([*cmd, str(script), which, str(res)], capture_output=True, text=True, timeout=300,
                       env=_env(None), start_new_session=True)
    # PyTorch's gloo may abort at interpreter exit after the script ran (_launch.TORCH_EXIT_ABORT)
    ok = p.returncode == 0 or (which == "torch" and TORCH_EXIT_ABORT in p.stderr)
    assert ok and res.exists(), f"{which}: exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    return json.loads(res.read_text())  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def results(tmp_path_factory: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    pytest.importorskip("torch")
    tmp = tmp_path_factory.mktemp("ops_more")
    return _run(tmp, "torch"), _run(tmp, "ember")


def _same(want: Any, got: Any) -> bool:
    if isinstance(want, bool) or isinstance(got, bool):
        return want == got
    if isinstance(want, float) or isinstance(got, float):
        return got == pytest.approx(want, rel=1e-5, abs=1e-5, nan_ok=True)
    if isinstance(want, list) and isinstance(got, list):
        return len(want) == len(got) and all(_same(a, b) for a, b in zip(want, got))
    return bool(want == got)


def _check(results: tuple[dict[str, Any], dict[str, Any]], prefix: str, names: list[str]) -> None:
    want, got = results
    keys = [f"{pn}_{prefix}{n}" for pn in ("S0", "S1", "R", "P") for n in names]
    assert all(k in want and k in got for k in keys), [k for k in keys if k not in want or k not in got]
    bad = {k: (want[k], got[k]) for k in keys if not _same(want[k], got[k])}
    assert not bad, json.dumps(bad, indent=1)[:6000]


def test_foreach_out_of_place_match_torch(results: Any) -> None:
    """DTensor results laid out as PyTorch's (Shard kept, P*2 Partial, sqrt(P) replicated), and
    its errors: no rule for _foreach_addcdiv / _foreach_maximum with a number, plain tensors
    among the operands, list lengths."""
    _check(results, "fe_", ["add_s", "add_l", "add_l_alpha", "add_R", "sub_l", "mul_s", "mul_l", "mul_t",
                            "mul_plain0d", "div_s", "div_l", "lerp_s", "sqrt", "neg", "addcmul", "addcdiv",
                            "maximum_l", "maximum_s", "norm", "mixed", "mixed_sqrt", "len"])


def test_foreach_in_place_match_torch(results: Any) -> None:
    """The inputs stay DTensors (a Partial one where the op is linear in it, else PyTorch's
    in-place error), aligned operands of other layouts, _foreach_copy_'s missing rule."""
    _check(results, "fe_", ["add_s_", "add_l_", "mul_s_", "mul_l_", "lerp_", "sqrt_", "neg_", "zero_",
                            "addcmul_", "addcdiv_", "add_R_", "copy_", "maximum_s_", "mixed_self"])


def test_split_select_slice_expand_match_torch(results: Any) -> None:
    _check(results, "", ["split0", "split1", "chunk0", "chunk1", "unbind0", "unbind1", "narrow0", "narrow1",
                         "select0", "select1", "slice0", "slice1", "slice_none", "expand", "expand_as",
                         "repeat", "repeat1", "index_select0", "index_select1", "flip0", "roll", "tril", "triu",
                         "cat0", "stack1"])


def test_reductions_match_torch(results: Any) -> None:
    """var/std/argmax/logsumexp gather the reduced dim; all/any/prod leave Partial(product) /
    Partial(sum); topk keeps the other dims' shards."""
    _check(results, "", ["var", "var0", "var1", "std1", "argmax", "argmax0", "argmin1", "logsumexp0",
                         "logsumexp1", "all", "all1", "any", "any0", "prod", "prod1", "topk0", "topk1", "sort1",
                         "argsort0"])


def test_factories_casts_and_partial_arithmetic_match_torch(results: Any) -> None:
    _check(results, "", ["new_zeros", "new_ones", "new_full", "new_tensor", "new_empty", "empty_like",
                         "to_f64", "to_bool", "long", "clone", "contiguous", "mul_R", "mul_self", "div_R",
                         "rdiv_R", "add_R", "add_R_bcast", "mul_0d", "mul_", "abs_", "masked_fill_"])


def test_gradients_match_torch(results: Any) -> None:
    """Backward through the new rules: the gradient's layout and values (row-sharded embedding
    included)."""
    want, got = results
    keys = [k for k in want if "_grad_" in k]
    # PyTorch 2.13 fails an assertion in the row-sharded embedding's backward: ember's gradient
    # must be the replicated table's
    assert want["S0_grad_embedding"][:2] == ["error", "AssertionError"]
    want = {**want, "S0_grad_embedding": want["R_grad_embedding"]}
    assert len(keys) == 21 and all(want[k][0] == "seq" for k in keys), keys
    bad = {k: (want[k], got.get(k)) for k in keys if not _same(want[k], got.get(k))}
    assert not bad, json.dumps(bad, indent=1)[:6000]


def test_contractions_and_layers_match_torch(results: Any) -> None:
    _check(results, "", ["bmm", "bmm_method", "baddbmm", "addmm", "addmm_scaled", "einsum", "einsum_b",
                         "einsum_t", "dot", "layer_norm", "layer_norm_w", "embedding", "mse", "mse_sum",
                         "dropout_eval", "dropout_p0"])
