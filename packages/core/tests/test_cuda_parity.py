"""Every op with a CUDA kernel (cuda_support.yaml) on the generic parity inputs (test_parity.py's
cases: dtypes, layouts, edge values, errors), ember on the GPU against ember on the CPU (issue 24):
the same exception type where the CPU raises (the device's index errors at the next wait), else
the same dtype, shape and values -- within a GPU's rounding (its math library and sum orders: 10x
the CPU parity tolerances; convolutions without TF32) -- and the same in-place writes. Random ops
compare dtype and shape. A dtype the CUDA kernels lack (integer products, complex math) raises
NotImplementedError, as PyTorch's CUDA kernels do: that gap is accepted here, any other
difference fails. Run by the GPU script (tools/gpu_check.sh) with a CUDA build and
PyTorch (its CPU tensors make the inputs); skipped elsewhere. Cases with no tensor argument
(numbers, factories) have nothing on the device and pass."""

from __future__ import annotations

import os
from typing import Any

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")
torch = pytest.importorskip("torch")

from sibling import load  # noqa: E402

H = load("parity_inputs")
# without a GPU nothing is generated (one skip for the module, not one per case)
P = load("test_parity") if ember.cuda.is_available() else None

CUDA_OPS = {P.op_key(op) for op in P.OPS if op.get("cuda_unsupported") is None} if P else set()
# one out= kind (the result's own dtype and shape): the others test the CPU's resize rules
PARAMS = [p for p in P.PARAMS if p[0] in CUDA_OPS and p[4] in (None, "same")] if P else []
IDS = [P.param_id(p) for p in PARAMS] if P else []
GPU_TOL_SCALE = 10.0
# EMBER_CUDA_PARITY_DEVICE=cuda:1 runs the sweep on a device that is not the current one (every op
# must launch on its operands' device and make its results there)
DEVICE = os.environ.get("EMBER_CUDA_PARITY_DEVICE", "cuda")


def materialize(obj: Any, g: Any) -> tuple[Any, Any]:
    """(CPU, GPU) ember twins of a case's argument: the same values and the same view."""
    return H.twins_on(obj, g, DEVICE)


def as_torch(x: Any) -> Any:
    """A CPU result in torch's types, for parity_inputs' comparisons."""
    if isinstance(x, ember.Tensor):
        return H.ember_to_torch(x)
    if isinstance(x, tuple):
        vals = [as_torch(v) for v in x]
        return type(x)(*vals) if hasattr(x, "_fields") else tuple(vals)
    return x


def on_host(x: Any) -> Any:
    """A GPU result moved to the CPU, each tensor checked to be on the device."""
    if isinstance(x, ember.Tensor):
        assert x.device.type == "cuda" and (DEVICE == "cuda" or x.device == ember.device(DEVICE)), \
            f"a result on {x.device}"
        return x.cpu()
    if isinstance(x, tuple):
        vals = [on_host(v) for v in x]
        return type(x)(*vals) if hasattr(x, "_fields") else tuple(vals)
    return x


def synced(x: Any) -> Any:
    """x once the device is done: a kernel's index errors surface at the next wait, as in PyTorch."""
    ember.cuda.synchronize(DEVICE)
    return x


@pytest.fixture(autouse=True)
def float32_convolutions() -> Any:
    """Convolutions' float32 products in float32 (TF32 is their default, as PyTorch's cuDNN's)."""
    ember.backends.cudnn.allow_tf32 = False
    yield
    ember.backends.cudnn.allow_tf32 = True


@pytest.mark.parametrize("key, name, variant, case, out_kind", PARAMS, ids=IDS)
def test_cuda_parity(key: str, name: str, variant: str, case: Any, out_kind: str | None) -> None:
    op = next(o for o in P.OPS if P.op_key(o) == key)
    H.TOL_SCALE[0] = GPU_TOL_SCALE * H.LOOSE_OPS.get(op["name"], 1.0)
    g = torch.Generator().manual_seed(hash(P.param_id((key, name, variant, case, out_kind))) % (1 << 31))
    cargs, gargs = materialize(case.args, g)
    ckw, gkw = materialize(case.kwargs, g)
    if variant == "out":
        ref, exc = H.run(lambda: P.invoke(ember, op, name, "function", cargs, ckw))
        if exc is not None or not isinstance(ref, (ember.Tensor, tuple)):
            return  # the function's own case covers the error
        outs = [ember.full(tuple(r.shape), 3, dtype=r.dtype) for r in (ref if isinstance(ref, tuple) else (ref,))]
        cout = tuple(outs) if isinstance(ref, tuple) else outs[0]
        gout = tuple(o.to(DEVICE) for o in outs) if isinstance(ref, tuple) else outs[0].to(DEVICE)
        ckw, gkw = {**ckw, "out": cout}, {**gkw, "out": gout}
    if not any(t.device.type == "cuda" for t in P.tensors_in((gargs, gkw))):
        return  # numbers only (or a factory): nothing on the device
    c_res, c_exc = H.run(lambda: P.invoke(ember, op, name, variant, cargs, ckw))
    g_res, g_exc = H.run(lambda: synced(P.invoke(ember, op, name, variant, gargs, gkw)))
    if isinstance(g_exc, NotImplementedError) and c_exc is None:
        return  # a dtype the CUDA kernels lack (integer products, complex math): PyTorch's CUDA error
    if H.check_exceptions(c_exc, g_exc, "(the CPU as the reference) "):
        return
    got, want = on_host(g_res), as_torch(c_res)
    if op["name"] == "topk":  # which of tied values' indices is the implementation's (PyTorch's too)
        got, want = got[0], want[0]
    meta = case.meta or (op["name"] == "mode" and any(t.is_floating_point() and bool(t.isnan().any())
                                                      for t in P.tensors_in(cargs)))
    H.assert_same(got, want, "result: ", meta)  # mode: NaN's place in the CPU's std::sort is its own
    c_tensors, g_tensors = P.tensors_in((cargs, ckw)), P.tensors_in((gargs, gkw))
    for i, (ct, gt) in enumerate(zip(c_tensors, g_tensors, strict=True)):
        H.assert_same(on_host(gt), as_torch(ct), f"argument {i} after the call: ", case.meta)
