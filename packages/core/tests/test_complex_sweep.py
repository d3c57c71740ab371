"""Every op of ops.yaml on complex128 inputs against PyTorch 2.13.

Two walks: the gradient-parity cases (test_grad_parity.py: the ops whose float inputs carry a
gradient) with their top-level float32 / float64 tensor arguments rewritten to complex128, and
the forward parity cases of every op (test_parity.py's builders) with every float32 / float64
tensor and dtype argument rewritten so (same shape, layout and value domain, for the real and
imaginary parts each), each run forward. PyTorch computes many
of them, refuses others (a NotImplementedError naming its kernel, a RuntimeError of its own),
and checks the arguments in an order of its own: ember must give the same outcome -- the same
values and dtype where PyTorch computes, the same exception type where it raises, and where
PyTorch's message names the complex dtype ("... not implemented for 'ComplexDouble'"), a
message naming it too.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402

G = load("test_grad_parity")
P, H = G.P, G.H
T, DT = H.T, H.DT

SOURCE = ("float32", "float64")

# Where ember still differs from PyTorch on complex inputs (param id -> why); each is a strict
# xfail that fails once fixed, so the list only shrinks.
KNOWN_GAPS: dict[str, str] = {}


def remap(case: Any) -> Any:
    """The case with its top-level float tensor arguments made complex128."""
    args = tuple(dataclasses.replace(a, dtype="complex128") if isinstance(a, T) and a.dtype in SOURCE else a
                 for a in case.args)
    return dataclasses.replace(case, id=f"{case.id}>complex128", args=args)


def remap_all(obj: Any) -> Any:
    """Every float tensor / dtype argument, nested or keyword, made complex128."""
    if isinstance(obj, T):
        return dataclasses.replace(obj, dtype="complex128") if obj.dtype in SOURCE else obj
    if isinstance(obj, DT):
        return DT("complex128") if obj.name in SOURCE else obj
    if isinstance(obj, (tuple, list)):
        return type(obj)(remap_all(o) for o in obj)
    if isinstance(obj, dict):
        return {k: remap_all(v) for k, v in obj.items()}
    return obj


def collect_forward() -> list:
    params = []
    for op in P.OPS:
        if op["name"] in P.TORCH_REFERENCES:
            continue
        variants = [v for v in op["variants"] if v in ("function", "method")]
        if not variants:
            continue
        builder = P.builder_for(op)
        for c in builder(op) if builder else []:
            if not any(n in repr(c.args) + repr(c.kwargs) for n in SOURCE):
                continue
            c2 = dataclasses.replace(c, id=f"{c.id}>complex128", args=remap_all(c.args), kwargs=remap_all(c.kwargs))
            params.append((P.op_key(op), variants[0], c2))
    return params


def collect() -> list:
    params = []
    for key, variant, case in G.PARAMS:
        op = next(o for o in P.OPS if P.op_key(o) == key)
        if op["name"] in P.TORCH_REFERENCES:
            continue  # ember's private ops (their torch side is a composition, not PyTorch's API)
        params.append((key, variant, remap(case)))
    return params


PARAMS = collect()
FORWARD_PARAMS = collect_forward()


def param_id(p: tuple) -> str:
    key, variant, case = p
    return f"{key}-{variant}-{case.id}".replace(" ", "")


def dtype_names(exc: BaseException) -> list[str]:
    """The complex dtypes a message names (not inside a printed tensor's CPU...Type footer)."""
    return re.findall(r"(?<!CPU)Complex(?:Float|Double|Half)\b", str(exc))


def check(key: str, variant: str, case: Any) -> None:
    op = next(o for o in P.OPS if P.op_key(o) == key)
    m = H.Materializer(param_id((key, variant, case)))
    targs, eargs = m.pair(case.args)
    tkw, ekw = m.pair(case.kwargs)
    t_res, t_exc = H.run(lambda: P.invoke(torch, op, op["name"], variant, targs, tkw))
    e_res, e_exc = H.run(lambda: P.invoke(ember, op, op["name"], variant, eargs, ekw))
    if H.check_exceptions(t_exc, e_exc):
        want = dtype_names(t_exc)
        assert not want or dtype_names(e_exc) == want, f"torch: {t_exc}\nember: {e_exc}"
        return
    # NaN / inf parts: complex arithmetic's edge rules are the parity tests' (parity_complex.py);
    # here their outcome, dtype and shape
    special = any(isinstance(a, T) and a.dom == "special" for a in case.args)
    H.assert_same(e_res, t_res, "result: ", case.meta or special)


def _marks(p: tuple) -> Any:
    gap = KNOWN_GAPS.get(param_id(p))
    return pytest.param(*p, id=param_id(p), marks=[pytest.mark.xfail(reason=gap, strict=True)] if gap else [])


@pytest.mark.parametrize("key, variant, case", [_marks(p) for p in PARAMS])
def test_complex_op(key: str, variant: str, case: Any) -> None:
    if case.isolate:
        H.run_forked(lambda: check(key, variant, case))
    else:
        check(key, variant, case)


@pytest.mark.parametrize("key, variant, case", [_marks(p) for p in FORWARD_PARAMS])
def test_complex_op_forward(key: str, variant: str, case: Any) -> None:
    if case.isolate:
        H.run_forked(lambda: check(key, variant, case))
    else:
        check(key, variant, case)


def test_sweep_reaches_every_op() -> None:
    assert len({p[0] for p in PARAMS}) > 300, len({p[0] for p in PARAMS})
    assert len({p[0] for p in FORWARD_PARAMS}) > 450, len({p[0] for p in FORWARD_PARAMS})
