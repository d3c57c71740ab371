"""Hooks on every Module (torch.nn.modules.module.register_module_*) and the deprecated non-full
backward hook, against PyTorch: the order hooks run in, what they see, replacements, errors and
warnings."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings
from typing import Any

import ember
import ember.nn as nn
import pytest

torch = pytest.importorskip("torch")


def _registration_log(lib: Any) -> list[Any]:
    m = lib.nn.modules.module
    log: list[Any] = []
    handles = [m.register_module_buffer_registration_hook(lambda mod, n, b: log.append(("buf", n, b is None))),
               m.register_module_module_registration_hook(lambda mod, n, s: log.append(("mod", n, type(s).__name__))),
               m.register_module_parameter_registration_hook(lambda mod, n, p: log.append(("par", n)))]
    try:
        lin = lib.nn.Linear(2, 2)
        seq = lib.nn.Sequential(lin)
        lin.register_buffer("b", lib.ones(1))
        lin.b = lib.zeros(1)
        lin.c = lib.nn.Parameter(lib.ones(1))
        lin.c = None
        seq.x = lib.nn.ReLU()
        seq.x = None
        lin.register_buffer("n", None)
        seq.add_module("y", lib.nn.Tanh())
        seq.register_module("z", None)
    finally:
        for h in handles:
            h.remove()
    return log


def test_registration_hooks_see_what_torch_shows() -> None:
    assert _registration_log(ember) == _registration_log(torch)
    assert _registration_log(ember) == _registration_log(ember)  # removed handles leave nothing behind


def test_registration_hooks_replace_values() -> None:
    m = nn.modules.module
    h1 = m.register_module_buffer_registration_hook(lambda mod, n, b: ember.full((1,), 7.0))
    h2 = m.register_module_parameter_registration_hook(
        lambda mod, n, p: nn.Parameter(ember.zeros_like(p)) if n == "extra" else None)
    h3 = m.register_module_module_registration_hook(lambda mod, n, s: nn.Identity() if n == "swap" else None)
    try:
        lin = nn.Linear(3, 2)
        lin.register_buffer("q", ember.ones(1))
        lin.swap = nn.ReLU()
        lin.extra = nn.Parameter(ember.ones(2))
        assert lin.q.tolist() == [7.0] and lin.extra.tolist() == [0.0, 0.0] and isinstance(lin.swap, nn.Identity)
    finally:
        for h in (h1, h2, h3):
            h.remove()
    lin = nn.Linear(3, 2)
    lin.extra = nn.Parameter(ember.ones(2))
    assert lin.extra.tolist() == [1.0, 1.0]


def _run(code: str) -> str:
    # global backward hooks fix their kind (full or not) for the process: each check in its own
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


GLOBAL_BACKWARD = """
import warnings, {lib} as torch
m = torch.nn.modules.module
seen = []
pre = m.register_module_full_backward_pre_hook(lambda mod, go: seen.append(("pre", type(mod).__name__)))
full = m.register_module_full_backward_hook(
    lambda mod, gi, go: seen.append(("full", type(mod).__name__, [tuple(g.shape) for g in gi])))
own = []
lin = torch.nn.Linear(3, 2)
lin.register_full_backward_hook(lambda mod, gi, go: own.append(seen[-1][0]))
x = torch.ones(4, 3, requires_grad=True)
torch.nn.Sequential(lin, torch.nn.ReLU())(x).sum().backward()
print(seen, own)
try:
    m.register_module_backward_hook(lambda *a: None)
except RuntimeError as e:
    print(e)
full.remove()
try:
    m.register_module_backward_hook(lambda *a: None)
except RuntimeError as e:
    print(e)
"""


def test_global_full_backward_hooks_as_torch() -> None:
    assert _run(GLOBAL_BACKWARD.format(lib="ember")) == _run(GLOBAL_BACKWARD.format(lib="torch"))


NON_FULL = """
import warnings, {lib} as torch
m = torch.nn.modules.module
seen = []
h = m.register_module_backward_hook(lambda mod, gi, go: seen.append((type(mod).__name__, len(go))))
x = torch.ones(4, 3, requires_grad=True)
relu = torch.nn.ReLU()
relu(x * 1).sum().backward()
print(seen)
try:
    m.register_module_full_backward_hook(lambda *a: None)
except RuntimeError as e:
    print(e)
"""


def test_global_non_full_backward_hooks_as_torch() -> None:
    assert _run(NON_FULL.format(lib="ember")) == _run(NON_FULL.format(lib="torch"))


class Two(nn.Module):
    def forward(self, a: Any) -> Any:
        return a * 2, a * 3


class Dict(nn.Module):
    def forward(self, a: Any) -> Any:
        return {"k": a * 2}


def _non_full(lib: Any, make: Any, replace: bool = False) -> tuple[Any, ...]:
    mod = make(lib)
    calls: list[Any] = []

    def hook(m: Any, gi: Any, go: Any) -> Any:
        calls.append((len(gi), [tuple(g.shape) for g in go]))
        return tuple(g * 0 if g is not None else None for g in gi) if replace else None

    mod.register_backward_hook(hook)
    x = lib.ones(4, 3, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = mod(x * 1)
        loss = sum(o.sum() for o in (out.values() if isinstance(out, dict) else out if isinstance(out, tuple)
                                     else (out,)))
        loss.backward()
    msgs = [(w.category.__name__, str(w.message)) for w in caught]
    return calls, msgs, x.grad.abs().sum().item()


@pytest.mark.parametrize("make", [lambda lib: lib.nn.ReLU(), lambda lib: lib.nn.Sigmoid(),
                                  lambda lib: (Two() if lib is ember else _torch_two()),
                                  lambda lib: (Dict() if lib is ember else _torch_dict())],
                         ids=["relu", "sigmoid", "two_outputs", "dict_output"])
def test_non_full_backward_hook_as_torch(make: Any) -> None:
    assert _non_full(ember, make) == _non_full(torch, make)


def test_non_full_backward_hook_replaces_grad_input() -> None:
    assert _non_full(ember, lambda lib: lib.nn.ReLU(), replace=True) == \
        _non_full(torch, lambda lib: lib.nn.ReLU(), replace=True)


def test_non_full_multiple_nodes_warns() -> None:
    # Linear's forward is more than one autograd node in both (the hook misses some grad_input)
    msgs = _non_full(ember, lambda lib: lib.nn.Linear(3, 2))[1]
    assert msgs == _non_full(torch, lambda lib: lib.nn.Linear(3, 2))[1]


def test_cannot_mix_kinds_on_a_module() -> None:
    for lib in (ember, torch):
        lin = lib.nn.Linear(2, 2)
        lin.register_backward_hook(lambda *a: None)
        with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks on"):
            lin.register_full_backward_hook(lambda *a: None)
        lin = lib.nn.Linear(2, 2)
        lin.register_full_backward_hook(lambda *a: None)
        with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks on"):
            lin.register_backward_hook(lambda *a: None)


def _torch_two() -> Any:
    class T(torch.nn.Module):
        def forward(self, a: Any) -> Any:
            return a * 2, a * 3
    return T()


def _torch_dict() -> Any:
    class D(torch.nn.Module):
        def forward(self, a: Any) -> Any:
            return {"k": a * 2}
    return D()


def test_tensor_and_node_hook_handles_are_removable_handles() -> None:
    from ember.utils.hooks import RemovableHandle

    x = ember.ones(1, requires_grad=True)
    assert isinstance(x.register_hook(lambda g: g), RemovableHandle)
    assert isinstance((x * 2).grad_fn.register_hook(lambda *a: None), RemovableHandle)
    assert isinstance(nn.Linear(1, 1).register_forward_hook(lambda *a: None), RemovableHandle)
    assert not isinstance(object(), RemovableHandle)
