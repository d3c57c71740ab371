"""Every op of ops.yaml on uint16 / uint32 / uint64 against PyTorch 2.13.

PyTorch's unsigned "shell" dtypes have a handful of kernels; every other op raises (a
NotImplementedError naming the kernel and the dtype, or the promotion error). This walks the
generic parity cases of each op (tests/test_parity.py's builders) with their int32 and float32
tensors rewritten to each unsigned dtype (small non-negative values) and asks ember for the
same outcome: the same values and dtype where PyTorch computes, the same exception type where it
raises -- and, where PyTorch's message names the dtype ("... not implemented for 'UInt16'",
"attempted to promote UInt16 and Long"), ember's names it too.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402

P = load("test_parity")
H = P.H
T, DT = H.T, H.DT

UNSIGNED = ("uint16", "uint32", "uint64")
SOURCE = ("int32", "float32")
# Small non-negative values per value domain (exact in every dtype involved).
PATTERN = {"nonzero": (3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 7), "small_nonneg": (0, 1, 2, 3, 1, 2),
           "shift": (0, 1, 2, 3, 1, 2), "small": (0, 1, 2, 3, 1, 2), "unit": (0, 1, 1, 0, 1), "prob": (0, 1, 1, 0),
           "positive": (3, 1, 4, 1, 5, 9, 2, 6), "ge1": (3, 1, 4, 1, 5, 9, 2, 6)}
DEFAULT_PATTERN = (3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 0, 7)
CASES_PER_SOURCE = 3

# Where ember still differs from PyTorch on these dtypes (param id -> why); each is an xfail
# that fails once fixed, so the list only shrinks.
KNOWN_GAPS: dict[str, str] = {}


def remap(obj: Any, u: str) -> Any:
    if isinstance(obj, T):
        if obj.dtype not in SOURCE:
            return obj
        return dataclasses.replace(obj, dtype=u, dom="default", values=PATTERN.get(obj.dom, DEFAULT_PATTERN))
    if isinstance(obj, DT):
        return DT(u) if obj.name in SOURCE else obj
    if isinstance(obj, (tuple, list)):
        return type(obj)(remap(o, u) for o in obj)
    if isinstance(obj, dict):
        return {k: remap(v, u) for k, v in obj.items()}
    return obj


def cases_for(op: dict) -> list:
    builder = P.builder_for(op)
    cases = builder(op) if builder else []

    def uses(c: Any, name: str) -> bool:
        return name in repr(c.args) + repr(c.kwargs)

    ints = [c for c in cases if uses(c, "int32")][:CASES_PER_SOURCE]
    floats = [c for c in cases if uses(c, "float32") and c not in ints][:CASES_PER_SOURCE]
    return [dataclasses.replace(c, id=f"{c.id}>{u}", args=remap(c.args, u), kwargs=remap(c.kwargs, u))
            for c in ints + floats for u in UNSIGNED]


def collect() -> list:
    params = []
    for op in P.OPS:
        if op["name"] in P.TORCH_REFERENCES:
            continue  # ember's private ops (their torch side is a composition, not PyTorch's API)
        variants = [v for v in op["variants"] if v in ("function", "method", "inplace")]
        if "function" in variants and "method" in variants:
            variants.remove("method")  # the same kernel; the parity test covers the method binding
        for c in cases_for(op):
            tensor_first = isinstance(c.args[:1] and c.args[0], T)
            for v in variants:
                if v == "function" or tensor_first:
                    params.append((P.op_key(op), op["name"], v, c))
    return params


PARAMS = collect()


def param_id(p: tuple) -> str:
    key, name, variant, case = p
    return f"{key}-{variant}-{case.id}".replace(" ", "")


def dtype_names(exc: BaseException) -> list[str]:
    text = str(exc)
    return [n for n in ("UInt16", "UInt32", "UInt64") if n in text]


def check(key: str, name: str, variant: str, case: Any) -> None:
    op = next(o for o in P.OPS if P.op_key(o) == key)
    m = H.Materializer(param_id((key, name, variant, case)))
    targs, eargs = m.pair(case.args)
    tkw, ekw = m.pair(case.kwargs)
    t_res, t_exc = H.run(lambda: P.invoke(torch, op, name, variant, targs, tkw))
    e_res, e_exc = H.run(lambda: P.invoke(ember, op, name, variant, eargs, ekw))
    if H.check_exceptions(t_exc, e_exc):
        want = dtype_names(t_exc)
        assert not want or dtype_names(e_exc) == want, f"torch: {t_exc}\nember: {e_exc}"
        return
    H.assert_same(e_res, t_res, "result: ", case.meta)
    for i, (ta, ea) in enumerate(zip(P.tensors_in((targs, tkw)), P.tensors_in((eargs, ekw)), strict=True)):
        H.assert_same(ea, ta, f"argument {i} after the call: ", case.meta)


def _marks(p: tuple) -> Any:
    gap = KNOWN_GAPS.get(param_id(p))
    return pytest.param(*p, id=param_id(p), marks=[pytest.mark.xfail(reason=gap, strict=True)] if gap else [])


@pytest.mark.parametrize("key, name, variant, case", [_marks(p) for p in PARAMS])
def test_unsigned_op(key: str, name: str, variant: str, case: Any) -> None:
    if case.isolate:
        H.run_forked(lambda: check(key, name, variant, case))
    else:
        check(key, name, variant, case)


def test_sweep_reaches_every_op() -> None:
    """Most ops have int32 or float32 cases to rewrite; the ones without are listed here."""
    swept = {p[0] for p in PARAMS}
    assert len(swept) > 350, len(swept)
