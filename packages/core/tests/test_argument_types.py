"""Argument rules against PyTorch 2.13: types of the Python-level functions, flags of every binding,
Python ints beyond int64, varargs, and the 0-d / zero-size shape rules of nonzero, where and tensordot.

* toplevel_calls.CALLS holds a valid call of every Python-level top-level function; each tensor argument
  in turn becomes ``None`` / a list / a float and each flag 1.5 / 1 / ``None``: ember raises what torch
  raises. Where PyTorch's own Python code touches the argument first (an ``AttributeError``), ember
  raises the parser's ``TypeError`` naming it, as PyTorch's C functions do.
* every bool parameter of every op in ops.yaml refuses ints, floats, ``None``, NumPy bools and tensors.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from ember._op_list import OPS  # noqa: E402

# PyTorch behaviours outside argument types that ember does not follow yet (strict: a fix shows up).
NOT_YET: set[tuple] = set()
BAD_TENSORS = {"None": None, "list": [1.0, 2.0], "float": 1.5}

# the valid calls live beside this file (tests/ is not on sys.path under --import-mode=importlib)
_spec = importlib.util.spec_from_file_location("toplevel_calls", Path(__file__).with_name("toplevel_calls.py"))
_calls = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_calls)
CALLS = _calls.CALLS
BAD_FLAGS = {"float": 1.5, "int": 1, "None": None}


def outcome(lib: Any, fn: Any, args: list, kwargs: dict) -> tuple[str, str, Any]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", "", fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001  (the exception is what is compared)
        return type(e).__name__, str(e).split("\nException raised from")[0], None


def essentials(msg: str) -> str | None:
    """The parser's "must be X, not Y" (or "expected Tensor as element") part of a message."""
    m = re.search(r"must be ([\w ]+), not (\S+)|expected Tensor as element \d+ in argument \d+, but got \S+", msg)
    return m.group(0) if m else None


# ---------------------------------------------------------------------------------------------------
# Python-level top-level functions
# ---------------------------------------------------------------------------------------------------

def checked_names() -> list[str]:
    """Every top-level function whose annotations the argument check reads."""
    return sorted(n for n, v in vars(ember).items() if type(v).__name__ == "_CheckedFunction")


def test_every_checked_function_has_a_call() -> None:
    missing = [n for n in checked_names() if n not in CALLS]
    assert not missing, f"add a valid call to toplevel_calls.CALLS for {missing}"


def toplevel_cases() -> list[Any]:
    out = []
    for name in CALLS:
        args, kwargs = CALLS[name](torch)
        for slot, value in list(enumerate(args)) + list(kwargs.items()):
            if isinstance(value, torch.Tensor):
                bads = BAD_TENSORS
            elif isinstance(value, bool):
                bads = BAD_FLAGS
            else:
                continue
            for label, bad in bads.items():
                marks = [pytest.mark.xfail(strict=True, reason="see NOT_YET")] if (name, slot, label) in NOT_YET else []
                out.append(pytest.param(name, slot, bad, id=f"{name}-{slot}-{label}", marks=marks))
    return out


def call_with(lib: Any, name: str, slot: Any, bad: Any) -> tuple[str, str, Any]:
    args, kwargs = CALLS[name](lib)
    if slot is not None:
        if isinstance(slot, int):
            args[slot] = bad
        else:
            kwargs[slot] = bad
    return outcome(lib, getattr(lib, name), args, kwargs)


def _flat(out: Any) -> list[Any]:
    """The results as one list (histogramdd's bin_edges is a tuple inside its result tuple)."""
    if isinstance(out, (tuple, list)):
        return [y for x in out for y in _flat(x)]
    return [out]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_valid_toplevel_call_matches_torch(name: str) -> None:
    t_kind, t_msg, t_out = call_with(torch, name, None, None)
    e_kind, e_msg, e_out = call_with(ember, name, None, None)
    assert e_kind == t_kind, f"torch {t_kind}: {t_msg}\nember {e_kind}: {e_msg}"
    t_flat, e_flat = _flat(t_out), _flat(e_out)
    for t, e in zip(t_flat, e_flat, strict=True):
        if isinstance(t, torch.Tensor):
            assert tuple(e.shape) == tuple(t.shape) and str(e.dtype) == str(t.dtype)
            if name not in ("qr", "svd"):  # factors are unique up to signs
                assert np.allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-4, atol=1e-5, equal_nan=True)
        else:
            assert e == t


@pytest.mark.parametrize(("name", "slot", "bad"), toplevel_cases())
def test_toplevel_wrong_type_matches_torch(name: str, slot: Any, bad: Any) -> None:
    t_kind, t_msg, _ = call_with(torch, name, slot, bad)
    e_kind, e_msg, _ = call_with(ember, name, slot, bad)
    if t_kind == "AttributeError":
        t_kind = "TypeError"  # the module rule: ember raises the parser's error here
        assert essentials(e_msg) is not None, e_msg
    assert e_kind == t_kind, f"torch {t_kind}: {t_msg}\nember {e_kind}: {e_msg}"
    if t_kind == "TypeError" and essentials(t_msg) and essentials(e_msg):
        assert essentials(e_msg) == essentials(t_msg), f"torch: {t_msg}\nember: {e_msg}"


# ---------------------------------------------------------------------------------------------------
# bool parameters of the generated bindings and the hand-bound index ops
# ---------------------------------------------------------------------------------------------------

def _value_for(ptype: str, lib: Any) -> Any:
    """A value of the schema type (types decide the parser's answer; values need not make sense)."""
    base = ptype.rstrip("?")
    if base in ("Tensor?[]", "Tensor[]"):
        return [lib.ones(2, 2)]
    if base == "Tensor":
        return lib.ones(2, 2)
    if base.startswith("int["):
        return [1]
    return {"int": 1, "float": 1.0, "Scalar": 1, "bool": False, "str": "sum", "ScalarType": lib.float32}[base]


def bool_cases() -> list[Any]:
    out = []
    for op in OPS:
        if "function" not in op["variants"]:
            continue
        for ptype, pname, _default, _kw in op["params"]:
            if ptype != "bool":
                continue
            key = op["name"] + (f".{op['overload']}" if op["overload"] else "")
            for label in ("int", "float", "None", "np_bool", "tensor"):
                out.append(pytest.param(op, pname, label, id=f"{key}-{pname}-{label}"))
    return out


def _bad_flag(label: str, lib: Any) -> Any:
    return {"int": 1, "float": 1.5, "None": None, "np_bool": np.True_}.get(label, lib.tensor(True) if
                                                                          label == "tensor" else None)


def _bool_call(lib: Any, op: dict, pname: str, label: str) -> tuple[str, str, Any]:
    mod = getattr(lib, op["namespace"]) if op["namespace"] and lib is ember else lib
    if op["namespace"] and lib is torch:
        mod = torch._C._nn if op["namespace"] == "_nn" else getattr(torch, op["namespace"])
        if op.get("binding") == "aten":  # PyTorch has it only as torch.ops.aten.<name>
            mod = torch.ops.aten
    fn = getattr(mod, op["name"], None)
    if fn is None and lib is ember:  # a private op of ember's own (ember.nn's _lstm_layer)
        fn = getattr(ember._lib._C, op["name"], None)
    if fn is None:
        return "missing", "", None
    args, kwargs = [], {}
    for ptype, name, default, kw_only in op["params"]:
        value = _bad_flag(label, lib) if name == pname else _value_for(ptype, lib) if not ptype.endswith("?") else None
        if default is not None and name != pname:
            continue  # left to its default
        if kw_only or default is not None:
            kwargs[name] = value
        else:
            args.append(value)  # a required argument (the flag too, when it has no default) goes by position
    return outcome(lib, fn, args, kwargs)


# The factories' tensor options take None for their default (PyTorch's TensorOptions arguments).
NONE_OK = {"requires_grad", "pin_memory"}


@pytest.mark.parametrize(("op", "pname", "label"), bool_cases())
def test_bool_parameters_take_only_bools(op: dict, pname: str, label: str) -> None:
    e_kind, e_msg, _ = _bool_call(ember, op, pname, label)
    t_kind, t_msg, _ = _bool_call(torch, op, pname, label)
    if op.get("binding") == "aten":  # the schema matcher takes any truthy object (None: False)
        assert e_kind == t_kind, f"torch: {t_kind} {t_msg}\nember: {e_kind} {e_msg}"
        return
    if label == "None" and pname in NONE_OK and any(p[1] == pname and p[3] for p in op["params"]):
        assert e_kind != "TypeError" and t_kind != "TypeError", (t_msg, e_msg)
        return
    assert e_kind == "TypeError", e_msg
    # one plausible overload names the argument; several give PyTorch's "invalid combination" list
    assert (f"argument '{pname}'" in e_msg and "must be bool, not" in e_msg) or "invalid combination" in e_msg, e_msg
    if t_kind != "missing":  # torch's schema may differ (other names, a Python wrapper): still a TypeError
        assert t_kind == "TypeError", t_msg
    if f"argument '{pname}'" in t_msg and f"argument '{pname}'" in e_msg:
        assert essentials(e_msg) == essentials(t_msg), f"torch: {t_msg}\nember: {e_msg}"


def _flag_calls(L: Any) -> dict[str, Any]:
    x, i = L.tensor([2.0, 1.0, 2.0]), (L.tensor([0]),)
    return {
        "unique-return_counts": lambda v: L.unique(x, return_counts=v),
        "unique-sorted": lambda v: L.unique(x, sorted=v),
        "unique-dim-return_inverse": lambda v: L.unique(x, return_inverse=v, dim=0),
        "Tensor.unique-return_counts": lambda v: x.unique(return_counts=v),
        "unique_consecutive-return_counts": lambda v: L.unique_consecutive(x, return_counts=v),
        "unique_consecutive-return_inverse": lambda v: x.unique_consecutive(return_inverse=v),
        "index_put-accumulate-kw": lambda v: L.index_put(x, i, L.tensor(1.0), accumulate=v),
        "index_put-accumulate-pos": lambda v: L.index_put(x, i, L.tensor(1.0), v),
        "Tensor.index_put-accumulate-pos": lambda v: x.index_put(i, L.tensor(1.0), v),
        "Tensor.index_put_-accumulate": lambda v: x.clone().index_put_(i, L.tensor(1.0), accumulate=v),
        "nonzero-as_tuple": lambda v: L.nonzero(x, as_tuple=v),
        "Tensor.nonzero-as_tuple": lambda v: x.nonzero(as_tuple=v),
        "dropout-train": lambda v: L.dropout(x, 0.5, v),
        "sum-keepdim-kw": lambda v: L.sum(x, 0, keepdim=v),
        "Tensor.sum-keepdim-pos": lambda v: x.sum(0, v),
        "Tensor.mean-keepdim-pos": lambda v: x.mean(0, v),
        "tensor-requires_grad": lambda v: L.tensor([1.0], requires_grad=v),
    }


@pytest.mark.parametrize("label", ["int", "float", "None", "np_bool", "tensor"])
@pytest.mark.parametrize("case", list(_flag_calls(torch)))
def test_hand_bound_flags_match_torch(case: str, label: str) -> None:
    t_kind, t_msg, _ = outcome(torch, _flag_calls(torch)[case], [_bad_flag(label, torch)], {})
    e_kind, e_msg, _ = outcome(ember, _flag_calls(ember)[case], [_bad_flag(label, ember)], {})
    assert (e_kind, e_msg) == (t_kind, t_msg)


@pytest.mark.parametrize("case", list(_flag_calls(torch)))
def test_hand_bound_flags_still_work(case: str) -> None:
    for v in (False, True):
        t = _flag_calls(torch)[case](v)
        e = _flag_calls(ember)[case](v)
        t_flat, e_flat = (list(t), list(e)) if isinstance(t, tuple) else ([t], [e])
        for a, b in zip(t_flat, e_flat, strict=True):
            if b.dtype != ember.float32 or case.startswith("dropout"):
                continue  # dropout draws; compare shapes only
            assert b.tolist() == a.tolist()


# ---------------------------------------------------------------------------------------------------
# Python ints beyond int64
# ---------------------------------------------------------------------------------------------------

BIG = [2**63, 2**64 - 1, 2**64, -(2**63) - 1, 2**70]


def _big_cases(L: Any) -> dict[str, Any]:
    xf = L.tensor([1.0, -3.0, 0.5])
    xh = L.tensor([1.0, -3.0], dtype=L.float16)
    xd = L.tensor([1.0, -3.0], dtype=L.float64)
    xi = L.tensor([3, -5])
    xi32 = L.tensor([3, -5], dtype=L.int32)
    xb = L.tensor([True, False])
    return {
        "float+": lambda v: xf + v, "+float": lambda v: v + xf, "float-": lambda v: xf - v,
        "float*": lambda v: xf * v, "float/": lambda v: xf / v, "float//": lambda v: xf // v,
        "float%": lambda v: xf % v, "half+": lambda v: xh + v, "double+": lambda v: xd + v,
        "add(float)": lambda v: L.add(xf, v), "sub(float)": lambda v: L.sub(xf, v),
        "floor_divide(float)": lambda v: L.floor_divide(xf, v), "rsub(float)": lambda v: L.rsub(xf, v),
        "float.add(alpha)": lambda v: xf.add(xf, alpha=v), "float.fill_": lambda v: xf.clone().fill_(v),
        "float.clamp(max)": lambda v: xf.clamp(max=v), "float.clamp_min": lambda v: xf.clamp_min(v),
        "float.masked_fill": lambda v: xf.masked_fill(xf > 0, v),
        "float.index_fill": lambda v: xf.index_fill(0, L.tensor([0]), v),
        "full(float)": lambda v: L.full((2,), v, dtype=L.float32), "full": lambda v: L.full((2,), v),
        "where(float)": lambda v: L.where(xf > 0, xf, v), "eq(float)": lambda v: xf == v,
        "hardtanh": lambda v: L.nn.functional.hardtanh(xf, -1.0, v),
        "leaky_relu": lambda v: L.nn.functional.leaky_relu(xf, v),
        "threshold": lambda v: L.nn.functional.threshold(xf, 0.0, v),
        "addcmul(value)": lambda v: L.addcmul(xf, xf, xf, value=v),
        "foreach_add": lambda v: L._foreach_add([xf], v)[0],
        "add(int)": lambda v: L.add(xi, v), "remainder(int)": lambda v: L.remainder(xi, v),
        "int.fill_": lambda v: xi.clone().fill_(v), "int32.fill_": lambda v: xi32.clone().fill_(v),
        "int.add(alpha)": lambda v: xi.add(xi, alpha=v), "int.masked_fill": lambda v: xi.masked_fill(xi > 0, v),
        "int.clamp(max)": lambda v: xi.clamp(max=v), "add(bool)": lambda v: L.add(xb, v),
        "arange": lambda v: L.arange(0, v, 2**62),
    }


# (fill_ reads a number with Scalar::checked<T>, so its overflow message names the dtype as torch's does.)
MESSAGE_GAPS: set[str] = set()


@pytest.mark.parametrize("value", BIG, ids=lambda v: f"2^{math.log2(abs(v)):.0f}" if v > 0 else "neg")
@pytest.mark.parametrize("case", list(_big_cases(torch)))
def test_big_python_ints_match_torch(case: str, value: int) -> None:
    t_kind, t_msg, t = outcome(torch, _big_cases(torch)[case], [value], {})
    e_kind, e_msg, e = outcome(ember, _big_cases(ember)[case], [value], {})
    assert e_kind == t_kind, f"torch {t_kind}: {t_msg}\nember {e_kind}: {e_msg}"
    if case not in MESSAGE_GAPS or not 2**63 <= value < 2**64:
        assert e_msg == t_msg
    if t_kind == "ok":
        assert str(e.dtype) == str(t.dtype) and tuple(e.shape) == tuple(t.shape)
        assert e.tolist() == t.tolist() or np.allclose(e.double().numpy(), t.double().numpy(), equal_nan=True)


@pytest.mark.parametrize("value", [2**63, 2**64 - 1])
@pytest.mark.parametrize("form", ["x + v", "v - x", "x * v", "x // v", "x == v", "x.clamp(max=v)",
                                  "x.clamp(min=v)", "L._foreach_sub([x], v)[0]", "L.result_type(x, v)"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "float32"])
def test_uint64_numbers_beside_tensors(form: str, dtype: str, value: int) -> None:
    # A uint64 number (torch's UInt64 Scalar) meets a tensor in one rule, wrap_number: an integer
    # tensor keeps its dtype (wrapped modulo 2^64; a clamp bound is the overflow error), a bool
    # one is torch's promotion error, a float one takes the exact value.
    def run(L: Any) -> Any:
        x = L.tensor([3, -5, 0]).to(getattr(L, dtype))
        return eval(form, {"L": L, "x": x, "v": value})
    t_kind, t_msg, t = outcome(torch, run, [torch], {})
    e_kind, e_msg, e = outcome(ember, run, [ember], {})
    assert (e_kind, e_msg) == (t_kind, t_msg)
    if t_kind == "ok":
        assert str(getattr(e, "dtype", e)).split(".")[-1] == str(getattr(t, "dtype", t)).split(".")[-1]
        assert not hasattr(t, "tolist") or e.tolist() == t.tolist()


@pytest.mark.parametrize(("call", "kind"), [
    (lambda L: L.ones(2**64), "TypeError"), (lambda L: L.ones((3, 2**63)), "TypeError"),
    (lambda L: L.ones(2, 2).view(1, 2**64), "TypeError"), (lambda L: L.ones(2, 2).permute([0, 2**64]), "TypeError"),
    (lambda L: L.ones(2, 2).sum(dim=2**64), "ValueError"), (lambda L: L.ones(2, 2).narrow(0, 2**64, 1), "ValueError"),
    (lambda L: L.ones(3).topk(-(2**64)), "ValueError"),
    (lambda L: L.nn.functional.max_pool2d(L.ones(1, 1, 4, 4), 2**63), "ValueError"),
    (lambda L: L.nn.functional.max_pool1d(L.ones(1, 2, 8), 2, padding=2**64), "ValueError"),
    (lambda L: L.nn.functional.max_pool1d(L.ones(1, 2, 8), (2**63,)), "TypeError"),
    (lambda L: L.nn.functional.avg_pool1d(L.ones(1, 2, 8), 2**63), "ValueError"),
    (lambda L: L.nn.functional.adaptive_avg_pool1d(L.ones(1, 2, 8), 2**63), "ValueError"),
])
def test_big_int_arguments_match_torch(call: Any, kind: str) -> None:
    t_kind, t_msg, _ = outcome(torch, call, [torch], {})
    e_kind, e_msg, _ = outcome(ember, call, [ember], {})
    assert t_kind == kind and e_kind == kind
    assert e_msg.rstrip('"') == t_msg.rstrip("\n")  # torch's ends in its C++ stack trace


# ---------------------------------------------------------------------------------------------------
# varargs and overload messages
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda L: L.ones(2, 3).sum(0, 1), lambda L: L.ones(2, 3).mean(0, 1), lambda L: L.sum(L.ones(2, 2), 0, keepdim=1),
    lambda L: L.permute(L.ones(2, 3), 1, 0), lambda L: L.reshape(L.ones(6), 2, 3),
    lambda L: L.topk(L.ones(3), 2, largest=1), lambda L: L.ones(4).view(2, 2), lambda L: L.ones(2, 3).permute(1, 0),
    lambda L: L.ones(2, 3).flip(0, 1), lambda L: L.zeros(2, 3), lambda L: L.ones(1, 3).expand(2, 3),
    lambda L: L.ones(1, 3).repeat(2, 3), lambda L: L.ones(1, 1, 3).squeeze(0, 1),
])
def test_varargs_and_single_overload_messages(call: Any) -> None:
    t_kind, t_msg, t = outcome(torch, call, [torch], {})
    e_kind, e_msg, e = outcome(ember, call, [ember], {})
    assert (e_kind, e_msg) == (t_kind, t_msg)
    if t_kind == "ok":
        assert tuple(e.shape) == tuple(t.shape)


# ---------------------------------------------------------------------------------------------------
# shape rules: nonzero / where of a 0-d tensor, tensordot with zero sizes, einsum operands
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", [1.0, 0.0, -2.5, math.nan, True, False, 7])
@pytest.mark.parametrize("form", ["where", "nonzero_tuple", "method", "nonzero"])
def test_zero_dim_nonzero_and_where(value: Any, form: str) -> None:
    def run(L: Any) -> Any:
        x = L.tensor(value)
        return {"where": lambda: L.where(x), "nonzero_tuple": lambda: L.nonzero(x, as_tuple=True),
                "method": lambda: x.nonzero(as_tuple=True), "nonzero": lambda: L.nonzero(x)}[form]()

    t, e = run(torch), run(ember)
    t_flat, e_flat = (list(t), list(e)) if isinstance(t, tuple) else ([t], [e])
    assert len(e_flat) == len(t_flat)
    for a, b in zip(t_flat, e_flat, strict=True):
        assert tuple(b.shape) == tuple(a.shape) and str(b.dtype) == str(a.dtype) and b.tolist() == a.tolist()


@pytest.mark.parametrize(("a", "b", "dims"), [
    ((2, 0), (0, 3), 1), ((2, 3, 0), (3, 0, 4), 2), ((0, 3), (3, 4), 1), ((2, 3), (3, 0), 1), ((0,), (0,), 1),
    ((2, 0), (0, 3), 0), ((), (3,), 0), ((2, 0, 3), (3, 0), ([2, 1], [0, 1])), ((0, 2), (2, 0), ([1], [0])),
])
def test_tensordot_zero_size(a: tuple, b: tuple, dims: Any) -> None:
    def run(L: Any) -> Any:
        return L.tensordot(L.ones(a) if a else L.tensor(2.0), L.ones(b), dims)

    t, e = run(torch), run(ember)
    assert tuple(e.shape) == tuple(t.shape) and e.tolist() == t.tolist()


@pytest.mark.parametrize("call", [
    lambda L: L.einsum("i,i", L.ones(2), None), lambda L: L.einsum("i,i", [L.ones(2), [1.0, 2.0]]),
    lambda L: L.einsum("i", 1.0), lambda L: L.chain_matmul(L.ones(2, 2), None),
])
def test_tensor_list_elements(call: Any) -> None:
    t_kind, t_msg, _ = outcome(torch, call, [torch], {})
    e_kind, e_msg, _ = outcome(ember, call, [ember], {})
    assert (e_kind, e_msg) == (t_kind, t_msg)


def test_checked_function_is_still_the_function() -> None:
    assert ember.trace.__name__ == "trace" and ember.trace.__module__ == "ember"
    assert list(inspect.signature(ember.trace).parameters) == ["input"]
    assert ember.trace(ember.eye(3)).item() == 3.0
