"""DTensor's ``__torch_function__``: top-level functions on DTensors against PyTorch 2.13's
DTensor. One script runs under torchrun (gloo, 2 ranks) and under mpiexec (2 ranks) as
``import ember as torch``: the global values, placements and shapes of ``sum``/``mean``/
``matmul``/``mm``/``F.linear`` (and elementwise ops, cat, stack, softmax, zeros_like) on
Shard/Replicate/Partial DTensors, and PyTorch's errors for plain tensors among the operands and
for an op without a sharding rule on a sharded DTensor. In process: importing
ember.distributed.tensor leaves ember's functions as they were (nothing wrapped)."""

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


def record(name, f):
    try:
        v = f()
    except Exception as e:  # the error is part of the comparison
        out[name] = ["error", type(e).__name__, str(e)]
        return
    if isinstance(v, DTensor):
        out[name] = ["DTensor", str(v.placements), list(v.shape), v.full_tensor().tolist()]
    else:
        out[name] = [type(v).__name__, v if isinstance(v, (bool, int, float)) else repr(v)]


for tag, full in (("even", torch.arange(24.).reshape(6, 4)), ("uneven", torch.arange(35.).reshape(7, 5))):
    k = full.shape[1]
    w = distribute_tensor(torch.arange(3. * k).reshape(k, 3) / 10, m, [Replicate()])
    b = distribute_tensor(torch.arange(3.), m, [Replicate()])
    v = distribute_tensor(torch.ones(k), m, [Replicate()])
    for pn, pl in (("S0", Shard(0)), ("S1", Shard(1)), ("R", Replicate())):
        d = distribute_tensor(full, m, [pl])
        cases = {
            "sum": lambda: torch.sum(d), "sum_method": lambda: d.sum(), "sum0": lambda: torch.sum(d, 0),
            "sum1_keepdim": lambda: torch.sum(d, 1, keepdim=True), "mean": lambda: torch.mean(d),
            "mean_method": lambda: d.mean(), "mean0": lambda: torch.mean(d, 0),
            "mean1": lambda: torch.mean(d, dim=1), "matmul": lambda: torch.matmul(d, w),
            "mm": lambda: torch.mm(d, w), "matmul_vec": lambda: torch.matmul(d, v),
            "linear": lambda: F.linear(d, w.t()), "linear_bias": lambda: F.linear(d, w.t(), b),
            "add": lambda: torch.add(d, d), "add_0d": lambda: torch.add(d, torch.tensor(2.)),
            "exp": lambda: torch.exp(d / 10), "gelu": lambda: F.gelu(d),
            "softmax": lambda: F.softmax(d / 10, -1), "cat0": lambda: torch.cat([d, d]),
            "cat1": lambda: torch.cat([d, d], 1), "stack": lambda: torch.stack([d, d]),
            "zeros_like": lambda: torch.zeros_like(d), "amax": lambda: torch.amax(d),
            # plain tensors among the operands: PyTorch's error
            "mixed_add": lambda: torch.add(d, full), "mixed_radd": lambda: full + d,
            "mixed_mm": lambda: torch.mm(d, torch.ones(k, 3)),
            "mixed_mm_left": lambda: torch.mm(torch.ones(3, full.shape[0]), d),
            "mixed_linear": lambda: F.linear(d, torch.ones(3, k)),
            "mixed_linear_bias": lambda: F.linear(d, w.t(), torch.ones(3)),
            "mixed_inplace": lambda: d.clone().add_(full), "mixed_copy": lambda: full.clone().copy_(d),
            "mixed_where": lambda: torch.where(full > 3, d, d),
            # the activations that are ember-core kernels (ember._nn / ember.hardshrink): elementwise
            "elu": lambda: F.elu(d / 10 - 1), "selu": lambda: F.selu(d / 10 - 1), "celu": lambda: F.celu(d / 10 - 1),
            "leaky_relu": lambda: F.leaky_relu(d - 5), "logsigmoid": lambda: F.logsigmoid(d - 5),
            "hardshrink": lambda: F.hardshrink(d / 10 - 1), "softshrink": lambda: F.softshrink(d / 10 - 1),
            "silu": lambda: F.silu(d - 5), "hardswish": lambda: F.hardswish(d / 4 - 3),
            "softplus": lambda: F.softplus(d - 5), "elu_inplace": lambda: F.elu(d / 10 - 1, inplace=True),
            "leaky_relu_inplace": lambda: F.leaky_relu(d - 5, inplace=True),
            # no sharding rule: PyTorch's NotImplementedError on a sharded DTensor
            "no_rule": lambda: torch.renorm(d, 2, 0, 1.),
        }
        for name, f in cases.items():
            record(f"{tag}_{pn}_{name}", f)
p = DTensor.from_local(torch.ones(2, 3) * (r + 1), m, [Partial()])
for name, f in {"sum": lambda: torch.sum(p), "mean": lambda: torch.mean(p), "exp": lambda: torch.exp(p),
                "mul": lambda: torch.mul(p, 2), "add": lambda: torch.add(p, p), "amax": lambda: torch.amax(p),
                "zeros_like": lambda: torch.zeros_like(p)}.items():
    record(f"partial_{name}", f)
if r == 0:
    with open(sys.argv[2], "w") as fh:
        json.dump(out, fh)
dist.destroy_process_group()
'''


def _run(tmp: Path, which: str) -> dict[str, Any]:
    script = tmp / "dispatch_cases.py"
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
    tmp = tmp_path_factory.mktemp("dispatch")
    return _run(tmp, "torch"), _run(tmp, "ember")


def _same(want: Any, got: Any) -> bool:
    if isinstance(want, float) or isinstance(got, float):
        return got == pytest.approx(want, rel=1e-5, abs=1e-5)
    if isinstance(want, list) and isinstance(got, list):
        return len(want) == len(got) and all(_same(a, b) for a, b in zip(want, got))
    return bool(want == got)


def _check(results: tuple[dict[str, Any], dict[str, Any]], keys: list[str]) -> None:
    want, got = results
    assert keys and all(k in want and k in got for k in keys)
    bad = {k: (want[k], got[k]) for k in keys if not _same(want[k], got[k])}
    assert not bad, json.dumps(bad, indent=1)[:4000]


def _keys(results: tuple[dict[str, Any], dict[str, Any]], *names: str) -> list[str]:
    return [k for k in results[0] if k.split("_", 2)[-1] in names or k.split("_", 1)[-1] in names]


def test_sum_and_mean_match_torch(results: Any) -> None:
    """Global value, placements (Partial(sum), Partial(avg), Replicate for uneven shards) and
    shape, the function and the method alike."""
    _check(results, _keys(results, "sum", "sum_method", "sum0", "sum1_keepdim", "mean",
                          "mean_method", "mean0", "mean1"))


def test_matmul_mm_linear_match_torch(results: Any) -> None:
    _check(results, _keys(results, "matmul", "mm", "matmul_vec", "linear", "linear_bias"))


def test_other_rules_match_torch(results: Any) -> None:
    _check(results, _keys(results, "add", "add_0d", "exp", "gelu", "softmax", "cat0", "cat1", "stack",
                          "zeros_like", "amax", "mul"))


def test_activation_kernels_are_elementwise(results: Any) -> None:
    """F's activations that run ember-core kernels keep the placement on Shard / Replicate, as torch's."""
    _check(results, _keys(results, "elu", "selu", "celu", "leaky_relu", "logsigmoid", "hardshrink", "softshrink",
                          "silu", "hardswish", "softplus", "elu_inplace", "leaky_relu_inplace"))


def test_mixed_operands_raise_torchs_error(results: Any) -> None:
    keys = _keys(results, "mixed_add", "mixed_radd", "mixed_mm", "mixed_mm_left", "mixed_linear",
                 "mixed_linear_bias", "mixed_inplace", "mixed_copy", "mixed_where")
    assert all(results[0][k][0] == "error" for k in keys)
    _check(results, keys)


def test_op_without_rule_raises_torchs_error_when_sharded(results: Any) -> None:
    # (on a Replicate DTensor ember computes it locally -- exact -- where PyTorch refuses too)
    keys = [k for k in _keys(results, "no_rule") if "_S" in k]
    want, got = results
    assert [want[k][:2] for k in keys] == [got[k][:2] for k in keys]
    _check(results, keys)


def test_import_wraps_nothing() -> None:
    """Importing ember.distributed.tensor leaves ember.matmul & co. the very same objects, and
    plain tensors get plain results (nothing of DTensor's on their path)."""
    import ember
    import ember.nn.functional as F
    from ember._lib import _C

    before = (ember.matmul, ember.mm, F.linear, ember.sum, ember.Tensor.matmul, ember.Tensor.sum)
    state = _C._torch_function_state()
    import ember.distributed.tensor  # noqa: F401

    assert (ember.matmul, ember.mm, F.linear, ember.sum, ember.Tensor.matmul, ember.Tensor.sum) == before
    # the bindings' __torch_function__ check turns on with the first DTensor, not the import
    assert _C._torch_function_state() == state
    assert ember.mm is before[1] and not hasattr(ember.mm, "__wrapped__")
    a = ember.arange(6.).reshape(2, 3)
    assert type(ember.mm(a, a.t())) is ember.Tensor and type(F.linear(a, a)) is ember.Tensor
    assert type(ember.sum(a)) is ember.Tensor and ember.equal(ember.matmul(a, a.t()), a @ a.t())


EMBER_ONLY = r"""
import ember.nn.functional as F
from ember import nn
from ember.distributed.fsdp import fully_shard
from ember.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor, init_device_mesh
dist.init_process_group("gloo")
r, n = dist.get_rank(), dist.get_world_size()
m = init_device_mesh("cpu", (n,))
full = ember.arange(35.).reshape(7, 5) / 10
d = distribute_tensor(full, m, [Shard(0)])
rep = distribute_tensor(full, m, [Replicate()])
ok = {}

def same(a, b):
    return isinstance(a, DTensor) and bool(ember.allclose(a.full_tensor(), b))

def raises(f, kind, text):
    try:
        f()
    except kind as e:
        return text in str(e)
    return False

ok["foreach_norm"] = all(same(x, ember.linalg.vector_norm(full)) for x in ember._foreach_norm([d, rep]))
ok["vector_norm"] = same(ember.linalg.vector_norm(d), ember.linalg.vector_norm(full))
x = d.clone()
x.exp_()
ok["inplace_method"] = same(x, full.exp()) and x.placements == (Shard(0),)
ok["python_composite"] = same(F.mish(d), F.mish(full)) and same(F.softplus(d), F.softplus(full))
ok["T"] = same(d.T, full.T) and d.T.placements == (Shard(1),)
v, i = ember.max(d, 0)
ok["max_dim"] = same(v, full.max(0).values) and same(i, full.max(0).indices)
ok["max_dim_keeps_shard"] = d.max(1).values.placements == (Shard(0),)
ok["cumsum"] = same(ember.cumsum(d, 0), full.cumsum(0)) and ember.cumsum(d, 1).placements == (Shard(0),)
ok["equal"] = ember.equal(d, distribute_tensor(full, m, [Shard(1)])) is True
ok["replicated_fallback"] = same(ember.trace(rep), ember.trace(full)) and ember.trace(rep).placements == (Replicate(),)
ok["sharded_fallback"] = raises(lambda: ember.trace(d), NotImplementedError,
                                "Operator aten.trace.default does not have a sharding strategy registered.")
p = DTensor.from_local(ember.ones(2, 3) * (r + 1), m, [Partial()])
q = p.clone()
q.fill_(2.0)
ok["fill_partial"] = q.placements == (Replicate(),) and same(q, ember.full((2, 3), 2.0))
ok["out"] = same(ember.add(d, d, out=d.clone()), full * 2)
ok["out_plain"] = raises(lambda: ember.add(d, d, out=full.clone()), RuntimeError, "mixed torch.Tensor and DTensor")
ok["numel"] = ember.numel(d) == 35 and same(ember.sum(input=d), full.sum())
xg = full.clone().requires_grad_()
dg = distribute_tensor(xg, m, [Shard(0)])
ember.sum(ember.exp(dg) * 2).full_tensor().backward()
ok["autograd"] = same(dg.grad, 2 * full.exp())
a, b = distribute_tensor(full, m, [Shard(0)]), distribute_tensor(full * 0 + 1, m, [Shard(0)])
ember._foreach_add_([a], [b], alpha=2)
ok["foreach_inplace"] = same(a, full + 2) and type(a) is DTensor

def train(foreach, opt_cls):
    # FSDP2: DTensor parameters; the per-parameter optimizer path (foreach=False) needs
    # zeros_like(param) to be a DTensor, as in PyTorch
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
    for sub in (model[0], model[2], model):
        fully_shard(sub)
    opt = opt_cls(model.parameters(), lr=0.05, foreach=foreach)
    g = ember.Generator().manual_seed(1)
    for _ in range(3):
        model(ember.randn(4, 6, generator=g)).pow(2).mean().backward()
        opt.step()
        opt.zero_grad()
    return [p.full_tensor() for p in model.parameters()]

for cls in (ember.optim.Adam, ember.optim.SGD):
    ok[f"fsdp_{cls.__name__}_per_param"] = all(ember.allclose(x, y, atol=1e-6)
                                               for x, y in zip(train(True, cls), train(False, cls)))
emit(**ok)
dist.destroy_process_group()
"""


def test_ember_rules_and_fsdp_per_parameter_optimizers(tmp_path: Path) -> None:
    """Rules PyTorch's script above does not reach (foreach norms, composites, dim ops, the
    replicated fallback, out=, autograd), and FSDP2 with the per-parameter optimizer path."""
    from _launch import run_mpiexec

    code, text, res = run_mpiexec(tmp_path, EMBER_ONLY, n=2, timeout=120)
    assert code == 0, text
    for got in res:
        assert len(got) == 19 and all(got.values()), got
