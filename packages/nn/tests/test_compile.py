"""ember.compile / nn.Module.compile / ember.compiler: PyTorch's argument checks and result shapes,
eager results identical to the uncompiled model (values and gradients)."""

from __future__ import annotations

import ember
import ember.nn as nn
import pytest

torch = pytest.importorskip("torch")


def outcome(fn):
    try:
        fn()
        return "ok", None
    except Exception as e:  # noqa: BLE001
        return isinstance(e, RuntimeError), type(e).__name__ if not isinstance(e, RuntimeError) else "", str(e)


def make(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))


def test_module_is_wrapped_like_torch():
    m, tm = make(ember), make(torch)
    c, tc = ember.compile(m), torch.compile(tm)
    assert type(c).__name__ == type(tc).__name__ == "OptimizedModule"
    assert isinstance(c, nn.Module)
    assert list(c.state_dict()) == list(tc.state_dict())  # '_orig_mod.0.weight', ...
    assert [n for n, _ in c.named_parameters()] == [n for n, _ in tc.named_parameters()]
    assert repr(c) == repr(tc)
    assert c._orig_mod is m
    c.foo = 3
    assert m.foo == 3
    c.eval()
    assert m.training is False and c.training is False
    c.train()
    assert m.training is True
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        c.nonexistent  # noqa: B018
    # loading the original's state_dict into the wrapper fails as in PyTorch (keys differ)
    with pytest.raises(RuntimeError, match="Missing key"):
        c.load_state_dict(m.state_dict())
    with pytest.raises(RuntimeError, match="Missing key"):
        tc.load_state_dict(tm.state_dict())
    c.load_state_dict(c.state_dict())


def test_compiled_module_outputs_and_grads_match_eager():
    m = make(ember)
    ref = make(ember)
    c = ember.compile(m, mode="max-autotune", fullgraph=True, dynamic=True)
    x = ember.randn(3, 4)
    out, ref_out = c(x), ref(x)
    assert ember.equal(out, ref_out)
    out.sum().backward()
    ref_out.sum().backward()
    for p, q in zip(m.parameters(), ref.parameters()):
        assert ember.equal(p.grad, q.grad)


def test_compiled_function_and_decorators():
    def f(x):
        return (x * 2).sin()

    g = ember.compile(f)
    assert g is not f and g.__name__ == "f" and g.__wrapped__ is f
    x = ember.randn(5, requires_grad=True)
    assert ember.equal(g(x), f(x))
    g(x).sum().backward()
    gx = x.grad.clone()
    x.grad = None
    f(x).sum().backward()
    assert ember.equal(gx, x.grad)

    @ember.compile
    def k(x):
        return x + 1

    @ember.compile(mode="reduce-overhead", backend="eager", options=None)
    def k2(x):
        return x + 2

    assert k.__name__ == "k" and k2.__name__ == "k2"
    assert k(ember.ones(1)).item() == 2 and k2(ember.ones(1)).item() == 3
    assert ember.compile(f, disable=True) is f
    m = make(ember)
    assert ember.compile(m, disable=True) is m
    assert ember.compile(f, backend=lambda gm, ex: gm.forward)(ember.ones(1)).item() == (ember.ones(1) * 2).sin().item()


@pytest.mark.parametrize("kw", [{"mode": "x"}, {"backend": "nope"}, {"mode": "default", "options": {"a": 1}},
                                {"dynamic": True}, {"backend": "inductor"}, {"mode": "max-autotune-no-cudagraphs"}])
def test_compile_argument_errors_match_torch(kw):
    def f(x):
        return x

    e, t = outcome(lambda: ember.compile(f, **kw)), outcome(lambda: torch.compile(f, **kw))
    assert e == t


def test_compile_non_callable():
    e, t = outcome(lambda: ember.compile(3)), outcome(lambda: torch.compile(3))
    assert e == t


def test_module_compile_in_place():
    m = make(ember)
    keys = list(m.state_dict())
    assert m.compile() is None and m.compile(mode="reduce-overhead") is None
    assert list(m.state_dict()) == keys and type(m) is nn.Sequential
    with pytest.raises(RuntimeError, match="Unrecognized mode=bad"):
        m.compile(mode="bad")


def test_compiler_namespace():
    C = ember.compiler

    def f(x):
        return x

    assert C.is_compiling() is False and C.is_dynamo_compiling() is False and C.is_exporting() is False
    assert C.reset() is None and C.allow_in_graph(f) is f
    d = C.disable(f)
    assert d is not f and d.__name__ == "f" and d(3) == 3
    assert C.disable(recursive=False)(f)(4) == 4
    assert C.list_backends() == torch.compiler.list_backends()
    assert ember.compile is C.compile
