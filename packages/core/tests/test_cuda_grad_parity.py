"""Every differentiable op with a CUDA kernel on the gradient parity inputs (test_grad_parity.py's
cases: float tensor arguments as leaves), backward on the GPU against backward on the CPU (issue 24,
point 5): the same gradients' dtypes, shapes and values within 10x the CPU tolerances, or the same
error type. A forward the CPU refuses, or one whose dtype the CUDA kernels lack
(NotImplementedError), has nothing to compare. Run by the GPU script (tools/gpu_check.sh) with a
CUDA build and PyTorch; skipped elsewhere."""

from __future__ import annotations

import zlib
from typing import Any

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")
torch = pytest.importorskip("torch")

from sibling import load  # noqa: E402

H = load("parity_inputs")
CP = load("test_cuda_parity")
# without a GPU nothing is generated (one skip for the module, not one per case)
G = load("test_grad_parity") if ember.cuda.is_available() else None

PARAMS = [p for p in G.PARAMS if p[0] in CP.CUDA_OPS] if G else []
float32_convolutions = CP.float32_convolutions  # the autouse fixture: convolutions without TF32
TOL = {ember.float32: (1e-3, 1e-4), ember.float64: (1e-6, 1e-8)}


def leaves(args: tuple) -> tuple[tuple, list]:
    """The float32 / float64 tensor arguments as leaves requiring grad (same strides)."""
    out, ls = [], []
    for a in args:
        if isinstance(a, ember.Tensor) and a.dtype in (ember.float32, ember.float64):
            a = a.detach().requires_grad_(True)
            ls.append(a)
        out.append(a)
    return tuple(out), ls


def float_outputs(res: Any) -> list:
    outs = res if isinstance(res, (tuple, list)) else [res]
    return [o for o in outs if isinstance(o, ember.Tensor) and o.is_floating_point() and o.requires_grad]


@pytest.mark.parametrize("key, variant, case", PARAMS, ids=[f"{k}-{v}-{c.id}" for k, v, c in PARAMS])
def test_cuda_grad_parity(key: str, variant: str, case: Any) -> None:
    op = next(o for o in G.OPS if G.P.op_key(o) == key)
    # a seed per case that is the same in every process (str hashes are salted per process)
    g = torch.Generator().manual_seed(zlib.crc32(f"{key}-{variant}-{case.id}".encode()))
    cargs, gargs = CP.materialize(case.args, g)
    ckw, gkw = CP.materialize(case.kwargs, g)
    cargs, cleaves = leaves(cargs)
    gargs, gleaves = leaves(gargs)
    c_res, c_exc = H.run(lambda: G.P.invoke(ember, op, op["name"], variant, cargs, ckw))
    if c_exc is not None:
        return  # forward errors are the forward parity test's business
    g_res, g_exc = H.run(lambda: CP.synced(G.P.invoke(ember, op, op["name"], variant, gargs, gkw)))
    if isinstance(g_exc, NotImplementedError):
        return  # a dtype the CUDA kernels lack
    assert g_exc is None, f"the GPU's forward raised {type(g_exc).__name__}: {g_exc}"
    if op["name"] == "mode" and any(t.is_floating_point() and bool(t.isnan().any()) for t in cleaves):
        return  # which NaN is the mode is the CPU's std::sort's doing (test_cuda_parity)
    couts, gouts = float_outputs(c_res), float_outputs(g_res)
    assert len(couts) == len(gouts), f"outputs requiring grad: CPU {len(couts)}, GPU {len(gouts)}"
    if not couts:
        return
    gos = [ember.randn(tuple(o.shape), dtype=o.dtype, generator=ember.Generator().manual_seed(i))
           for i, o in enumerate(couts)]
    c_g, c_exc = H.run(lambda: ember.autograd.grad(couts, cleaves, gos, allow_unused=True))
    g_g, g_exc = H.run(lambda: CP.synced(ember.autograd.grad(gouts, gleaves, [t.to(CP.DEVICE) for t in gos],
                                                             allow_unused=True)))
    if isinstance(g_exc, NotImplementedError) and c_exc is None:
        return  # a backward kernel's dtype gap
    if H.check_exceptions(c_exc, g_exc, "(the CPU as the reference) "):
        return
    for i, (cg, gg) in enumerate(zip(c_g, g_g, strict=True)):
        if cg is None or gg is None:  # unused: the other side None too, or zeros
            assert all(t is None or not t.abs().sum().item() for t in (cg, gg)), f"grad {i}: CPU {cg}, GPU {gg}"
            continue
        assert gg.device.type == "cuda" and (CP.DEVICE == "cuda" or gg.device == ember.device(CP.DEVICE)), \
            f"grad {i} on {gg.device}"
        assert gg.dtype == cg.dtype and gg.shape == cg.shape, (gg.dtype, cg.dtype, gg.shape, cg.shape)
        rtol, atol = max(TOL.get(cg.dtype, (1e-2, 1e-2)), *(TOL.get(o.dtype, (1e-2, 1e-2)) for o in couts))
        got, want = gg.detach().cpu().double(), cg.detach().double()
        close = ((got - want).abs() <= atol + rtol * want.abs()) | (got == want) | (got.isnan() & want.isnan())
        assert bool(close.all()), f"grad {i} differs:\n GPU {got.flatten()[:16].tolist()}\n CPU {want.flatten()[:16].tolist()}"
