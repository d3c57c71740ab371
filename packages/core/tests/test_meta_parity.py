"""Every op that runs on the meta device (the ops with a CUDA kernel: cuda_support.yaml) on the generic
parity inputs (test_parity.py's cases), ember on meta against ember on the CPU: the same dtypes and
shapes, every result on meta, and never a crash (each op's cases run in a forked child, so a host
read of a meta tensor's missing memory fails that op's test, not the session). A meta call may
raise where the CPU's does not only with NotImplementedError (a result whose size depends on the
values, an op without a meta path) or a RuntimeError naming meta (item(), a copy out of meta); it
may succeed where the CPU raises only for errors about values (an index out of range), which meta
tensors do not have, or for a dtype the CPU kernel lacks (the meta table's kernels dispatch on no
dtype, as most of PyTorch's meta kernels: its meta abs / floor of a bool tensor run too)."""

from __future__ import annotations

from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")

from sibling import load  # noqa: E402

H = load("parity_inputs")
P = load("test_parity")

META_OPS = {P.op_key(op) for op in P.OPS if op.get("cuda_unsupported") is None and op.get("cuda_host") is None}
# one out= kind (the result's own dtype and shape): the others test the CPU's resize rules
BY_OP: dict[str, list] = {}
for _p in P.PARAMS:
    if _p[0] in META_OPS and _p[4] in (None, "same"):
        BY_OP.setdefault(_p[0], []).append(_p)
# errors about values, which a meta tensor has none of (PyTorch's meta kernels skip them too)
VALUE_ERRORS = (IndexError, ZeroDivisionError)
VALUE_WORDS = ("out of bounds", "out of range", "index", "must be", "expected", "invalid", "NaN", "nonnegative",
               "non-negative", "negative", "greater", "less", "between", "probability", "sum", "without overflow")


def structure(x: Any, device: str) -> Any:
    """What a meta result can be compared on: each tensor's dtype and shape (and its device)."""
    if isinstance(x, ember.Tensor):
        assert x.device.type == device, f"a result on {x.device}, expected {device}"
        return ("tensor", str(x.dtype), tuple(x.shape))
    if isinstance(x, (tuple, list)):
        return tuple(structure(v, device) for v in x)
    return ("value",)  # a number (a Python bool from is_nonzero ...) is not compared


def meta_may_refuse(exc: BaseException) -> bool:
    if isinstance(exc, NotImplementedError):
        return True
    return isinstance(exc, RuntimeError) and "meta" in str(exc)


def check_case(key: str, name: str, variant: str, case: Any, out_kind: Any) -> None:
    op = next(o for o in P.OPS if P.op_key(o) == key)
    g = torch.Generator().manual_seed(0)
    cargs, margs = H.twins_on(case.args, g, "meta")
    ckw, mkw = H.twins_on(case.kwargs, g, "meta")
    if variant == "out":
        ref, exc = H.run(lambda: P.invoke(ember, op, name, "function", cargs, ckw))
        if exc is not None or not isinstance(ref, (ember.Tensor, tuple)):
            return
        outs = ref if isinstance(ref, tuple) else (ref,)
        if not all(isinstance(o, ember.Tensor) for o in outs):
            return
        c_out = tuple(ember.empty_like(o) for o in outs)
        m_out = tuple(ember.empty_like(o, device="meta") for o in outs)
        ckw = {**ckw, "out": c_out if isinstance(ref, tuple) else c_out[0]}
        mkw = {**mkw, "out": m_out if isinstance(ref, tuple) else m_out[0]}
    c_res, c_exc = H.run(lambda: P.invoke(ember, op, name, variant, cargs, ckw))
    m_res, m_exc = H.run(lambda: P.invoke(ember, op, name, variant, margs, mkw))
    where = f"{key} {name} {variant} {case.id}"
    if m_exc is not None:
        assert c_exc is not None or meta_may_refuse(m_exc), f"{where}: meta raised {type(m_exc).__name__}: {m_exc}"
        return
    if c_exc is not None:
        text = str(c_exc)
        assert (isinstance(c_exc, VALUE_ERRORS) or any(w in text for w in VALUE_WORDS)
                or (isinstance(c_exc, NotImplementedError) and "not implemented for" in text)), (
            f"{where}: the CPU raised {type(c_exc).__name__}: {text}, meta did not")
        return
    on_meta = any(t.device.type == "meta" for t in P.tensors_in((margs, mkw)))
    assert structure(m_res, "meta" if on_meta else "cpu") == structure(c_res, "cpu"), f"{where}: results differ"


@pytest.mark.parametrize("key", sorted(BY_OP))
def test_op_on_meta(key: str) -> None:
    def check_all() -> None:
        ember.set_num_threads(1)  # the forked child must not wait on the parent's worker threads
        for p in BY_OP[key]:
            check_case(*p)

    H.run_forked(check_all)
