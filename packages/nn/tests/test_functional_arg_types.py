"""Argument types of every public ``nn.functional`` function against PyTorch 2.13.

functional_calls.CALLS holds one valid call per function; each tensor argument in turn becomes ``None``,
a list or a float, each strict flag 1.5 / 1 / None, and ember must raise what torch raises. One rule
covers the places where they differ: where PyTorch's Python code touches the argument before its parser
sees it (an ``AttributeError`` such as "'NoneType' object has no attribute 'dim'"), ember raises the
parser's ``TypeError`` naming the argument, as PyTorch's own C functions do.
"""

from __future__ import annotations

import inspect
import pickle
import re
import warnings
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
import ember.nn.functional as F  # noqa: E402
from functional_calls import CALLS  # noqa: E402

# PyTorch bugs or ember gaps that lie outside argument types, kept visible (strict: a fix shows up).
NOT_YET: set[tuple[str, int, str]] = set()

BAD_TENSORS = {"None": None, "list": [1.0, 2.0], "float": 1.5}
BAD_FLAGS = {"float": 1.5, "int": 1, "None": None}


def public_functions() -> list[str]:
    return sorted(n for n in dir(F) if not n.startswith("_") and callable(getattr(F, n))
                  and not inspect.isclass(getattr(F, n)) and not inspect.ismodule(getattr(F, n)))


def outcome(lib: Any, name: str, slot: Any, bad: Any) -> tuple[str, str, Any]:
    args, kwargs = CALLS[name](lib)
    if slot is not None:
        if isinstance(slot, int):
            args[slot] = bad
        else:
            kwargs[slot] = bad
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", "", getattr(lib.nn.functional, name)(*args, **kwargs)
    except Exception as e:  # noqa: BLE001  (the exception is what is compared)
        return type(e).__name__, str(e), None


def cases() -> list[Any]:
    out = []
    for name in CALLS:
        args, kwargs = CALLS[name](torch)
        slots = list(enumerate(args)) + list(kwargs.items())
        for slot, value in slots:
            if isinstance(value, torch.Tensor):
                bads = BAD_TENSORS
            elif isinstance(value, bool) and slot not in ("inplace", "return_indices"):
                bads = BAD_FLAGS
            else:
                continue
            for label in bads:
                marks = [pytest.mark.xfail(strict=True, reason="see NOT_YET")] if (name, slot, label) in NOT_YET else []
                out.append(pytest.param(name, slot, bads[label], id=f"{name}-{slot}-{label}", marks=marks))
    return out


def test_every_public_function_has_a_call() -> None:
    missing = [n for n in public_functions() if n not in CALLS]
    assert not missing, f"add a valid call to functional_calls.CALLS for {missing}"


@pytest.mark.parametrize("name", sorted(CALLS))
def test_valid_call_matches_torch(name: str) -> None:
    t_kind, t_msg, t_out = outcome(torch, name, None, None)
    e_kind, e_msg, e_out = outcome(ember, name, None, None)
    assert (e_kind, e_msg) == (t_kind, t_msg)
    t_flat = list(t_out) if isinstance(t_out, tuple) else [t_out]
    e_flat = list(e_out) if isinstance(e_out, tuple) else [e_out]
    for t, e in zip(t_flat, e_flat, strict=True):
        assert tuple(e.shape) == tuple(t.shape) and str(e.dtype) == str(t.dtype)
        assert torch.allclose(torch.from_numpy(e.detach().numpy()), t.detach(), rtol=1e-4, atol=1e-5)


def essentials(msg: str) -> str | None:
    """The parser's "must be X, not Y" part of a message, if it has one."""
    m = re.search(r"must be (\w+), not (\S+)", msg)
    return m.group(0) if m else None


@pytest.mark.parametrize(("name", "slot", "bad"), cases())
def test_wrong_type_matches_torch(name: str, slot: Any, bad: Any) -> None:
    t_kind, t_msg, _ = outcome(torch, name, slot, bad)
    e_kind, e_msg, _ = outcome(ember, name, slot, bad)
    if t_kind == "AttributeError":
        t_kind = "TypeError"  # the module rule: ember raises the parser's error here
        assert essentials(e_msg) is not None, e_msg
    assert e_kind == t_kind, f"torch {t_kind}: {t_msg}\nember {e_kind}: {e_msg}"
    if t_kind == "TypeError" and essentials(t_msg) and essentials(e_msg):
        assert essentials(e_msg) == essentials(t_msg), f"torch: {t_msg}\nember: {e_msg}"
    if e_kind == "TypeError" and essentials(e_msg) and (isinstance(slot, str) or not is_builtin(name)):
        param = slot if isinstance(slot, str) else list(inspect.signature(getattr(F, name)).parameters)[slot]
        assert f"argument '{param}'" in e_msg, e_msg


def is_builtin(name: str) -> bool:
    """A function bound in C (its own parser names its parameters; no Python signature to read)."""
    return inspect.isbuiltin(getattr(F, name))


def test_flag_check_keeps_pytorch_order() -> None:
    # torch.nn.functional checks p before its parser sees `training`: the ValueError wins
    x = ember.ones(3)
    with pytest.raises(ValueError, match="dropout probability"):
        F.dropout(x, p=-1.0, training=None)
    with pytest.raises(ValueError):
        torch.nn.functional.dropout(torch.ones(3), p=-1.0, training=None)


def test_wrong_type_error_chains_the_original() -> None:
    # functions checked after the call raise the TypeError from what the body raised
    with pytest.raises(TypeError, match=r"hardtanh\(\): argument 'input' \(position 1\) must be Tensor, not NoneType") \
            as info:
        F.hardtanh(None)
    assert isinstance(info.value.__cause__, (AttributeError, TypeError))
    with pytest.raises(TypeError, match=r"linear\(\): argument 'weight' \(position 2\) must be Tensor, not list"):
        F.linear(ember.ones(2, 3), [[1.0, 2.0, 3.0]])


def test_checked_functions_read_like_functions() -> None:
    f = F.linear
    assert f.__name__ == "linear" and f.__module__ == "ember.nn.functional"  # as torch.nn.functional.linear
    assert list(inspect.signature(f).parameters) == ["input", "weight", "bias"]
    assert pickle.loads(pickle.dumps(F.relu)) is F.relu

    class M:
        act = F.relu  # bound like a function: self comes first

    with pytest.raises(TypeError, match="must be Tensor, not M"):
        M().act()


@pytest.mark.parametrize(("x_shape", "w_shape", "bias"), [
    ((2, 0), (3, 0), False), ((2, 0), (3, 0), True), ((2, 4, 0), (3, 0), True), ((0, 4, 2), (3, 2), True),
    ((2, 4, 2), (0, 2), False), ((2,), (0, 2), False), ((0,), (3, 0), True), ((5, 0, 3), (2, 3), False),
])
def test_linear_zero_size(x_shape: tuple, w_shape: tuple, bias: bool) -> None:
    def run(lib: Any) -> Any:
        x, w = lib.ones(x_shape), lib.ones(w_shape)
        b = lib.full((w_shape[0],), 2.0) if bias else None
        return lib.nn.functional.linear(x, w, b)

    t, e = run(torch), run(ember)
    assert tuple(e.shape) == tuple(t.shape)
    assert e.tolist() == t.tolist()


def test_ctc_lengths_types() -> None:
    def run(lib: Any, lengths: Any) -> Any:
        lp = lib.zeros(5, 2, 4).log_softmax(2)
        return lib.nn.functional.ctc_loss(lp, lib.tensor([[1, 2], [3, 1]]), lengths, [2, 2])

    assert run(ember, (5, 5)).item() == pytest.approx(run(torch, (5, 5)).item(), rel=1e-5)
    for bad in ([5.0, 5.0], 5, None):
        with pytest.raises(TypeError):
            run(torch, bad)
        with pytest.raises(TypeError, match="input_lengths"):
            run(ember, bad)
