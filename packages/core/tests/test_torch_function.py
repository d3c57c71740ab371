"""``__torch_function__`` against PyTorch 2.13: subclass propagation through functions,
methods, operators, indexing and in-place ops, a logging subclass, a non-Tensor duck type,
TorchFunctionMode, the Disable* context managers and ember.overrides' helpers."""

from __future__ import annotations

from typing import Any

import ember
import pytest
from ember._lib import _C

torch = pytest.importorskip("torch")

LIBS = [pytest.param(ember, id="ember"), pytest.param(torch, id="torch")]


def _subclass(lib: Any) -> type:
    class M(lib.Tensor):
        pass

    return M


def _type_names(lib: Any) -> dict[str, str]:
    """The class of each result of a small script on a plain subclass instance."""
    M = _subclass(lib)
    y = lib.ones(2, 3).as_subclass(M)
    z = lib.arange(6.0).reshape(2, 3)
    out = {
        "y + 1": y + 1, "1 + y": 1 + y, "y * z": y * z, "z * y": z * y, "y @ z.T": y @ z.T, "-y": -y,
        "abs(y)": abs(y), "y == 1": y == 1, "1 < y": 1 < y, "y[0]": y[0], "y[:, 1]": y[:, 1],
        "z[y > 0]": z[y > 0], "y.sum()": y.sum(), "lib.add(z, y)": lib.add(z, y), "y.exp()": y.exp(),
        "y.T": y.T, "y.mT": y.mT, "y.view(-1)": y.view(-1), "lib.cat([z, y])": lib.cat([z, y]),
        "lib.linalg.norm(y)": lib.linalg.norm(y), "lib.special.expit(y)": lib.special.expit(y),
        "lib.fft.fft(y)": lib.fft.fft(y), "lib.nn.functional.linear(y, z)": lib.nn.functional.linear(y, z),
        "y.max(0).values": y.max(0).values, "y.max(0)": y.max(0), "lib.chunk(y, 2, 1)": lib.chunk(y, 2, 1),
        "y.unbind(0)": y.unbind(0), "y.shape": y.shape, "y.dtype": y.dtype, "y.clone()": y.clone(),
        "y.detach()": y.detach(), "lib.where(y > 0, y, z)": lib.where(y > 0, y, z),
    }
    w = y.clone()
    w += 1
    out["w += 1"] = w
    out["w.add_(1)"] = w.add_(1)
    out["w.mul_(z)"] = w.mul_(z)
    w[0] = 5.0
    out["w[0] = 5"] = w

    def name(v: Any) -> str:
        if isinstance(v, (tuple, list)):
            return f"{type(v).__name__}({', '.join(name(e) for e in v)})"
        return type(v).__name__

    return {k: name(v) for k, v in out.items()}


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_subclass_propagates_like_torch() -> None:
    got, want = _type_names(ember), _type_names(torch)
    assert got == want


def test_type_of_op_on_subclass() -> None:
    class M(ember.Tensor):
        pass

    y = ember.ones(2).as_subclass(M)
    assert type(y + 1) is M
    assert type(ember.sin(y)) is M
    assert ember.equal(y + 1, ember.full((2,), 2.0))


def _log_script(lib: Any) -> tuple[list[str], list[str]]:
    """The names a logging __torch_function__ sees, and the argument types of each call."""
    calls: list[str] = []
    argtypes: list[str] = []

    class Logged(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            calls.append(func.__name__)
            argtypes.append(",".join(type(a).__name__ for a in args))
            return super().__torch_function__(func, types, args, kwargs)

    x = lib.ones(2, 2).as_subclass(Logged)
    p = lib.arange(4.0).reshape(2, 2)
    calls.clear()
    argtypes.clear()
    r = lib.add(x, p)
    r = r * 2
    r = 3 - r
    r = r.sum(0)
    r = lib.mm(x, p)
    r = x[0]
    r = lib.stack([x, p])
    x.add_(1)
    r = lib.nn.functional.linear(x, p)
    del r
    return calls, argtypes


def test_logging_names_match_torch() -> None:
    got, want = _log_script(ember), _log_script(torch)
    assert got[0] == want[0]
    assert got[1] == want[1]


def _duck(lib: Any) -> tuple[Any, ...]:
    """The docs' ScalarTensor: a non-Tensor type with __torch_function__ overriding torch.mean."""
    handled: dict[Any, Any] = {}

    class ScalarTensor:
        def __init__(self, n: int, value: float) -> None:
            self._n = n
            self._value = value

        def tensor(self) -> Any:
            return self._value * lib.eye(self._n)

        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            if func not in handled or not all(issubclass(t, (lib.Tensor, ScalarTensor)) for t in types):
                return NotImplemented
            return handled[func](*args, **kwargs)

    def mean(inp: Any) -> float:
        return float(inp._value) / inp._n

    handled[lib.mean] = mean
    d = ScalarTensor(5, 2)
    r_mean = lib.mean(d)
    try:
        lib.sum(d)
        err = ""
    except TypeError as e:
        err = type(e).__name__
    return r_mean, err, lib.overrides.is_tensor_like(d), lib.overrides.has_torch_function((d,))


def test_duck_type_like_torch() -> None:
    assert _duck(ember) == _duck(torch)


def _mode(lib: Any) -> tuple[list[str], str, str, list[str]]:
    seen: list[str] = []

    class Logging(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    class Const(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            if func.__name__ == "add":
                return "added"
            return func(*args, **(kwargs or {}))

    x = lib.ones(3)
    with Logging():
        lib.add(x, 1)
        x.mul(2)
        x + x
        lib.zeros(2)
    with Logging(), Const():
        inner = lib.add(x, x)  # Const is the top mode; it returns before Logging sees add
        lib.sub(x, 1)  # Const passes it on: Logging sees it
    outer_seen = list(seen)
    with lib._C.DisableTorchFunction(), Logging():
        lib.neg(x)
    disabled_seen = seen[len(outer_seen):]
    return outer_seen, inner, str(lib.overrides._is_torch_function_mode_enabled()), disabled_seen


def test_torch_function_mode_like_torch() -> None:
    assert _mode(ember) == _mode(torch)


def _disable(lib: Any) -> tuple[str, ...]:
    M = _subclass(lib)
    y = lib.ones(2).as_subclass(M)
    with lib._C.DisableTorchFunctionSubclass():
        a = type(y + 1).__name__
        b = str(lib.overrides.has_torch_function_unary(y))
    with lib._C.DisableTorchFunction():
        c = type(lib.sin(y)).__name__
    return a, b, c, type(y + 1).__name__, str(lib.overrides.has_torch_function_unary(y)), \
        str(lib.overrides.has_torch_function_variadic(lib.ones(1), y)), \
        str(lib.overrides.has_torch_function_unary(lib.ones(1)))


def test_disable_like_torch() -> None:
    assert _disable(ember) == _disable(torch)


def _handle(lib: Any) -> tuple[Any, ...]:
    """A Python function that dispatches as PyTorch's do (has_torch_function + handle_torch_function)."""

    def double(x: Any) -> Any:
        if lib.overrides.has_torch_function_unary(x):
            return lib.overrides.handle_torch_function(double, (x,), x)
        return x * 2

    @lib.overrides.wrap_torch_function(lambda x: (x,))
    def triple(x: Any) -> Any:
        return x * 3

    names: list[str] = []

    class M(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            names.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    y = lib.ones(2).as_subclass(M)
    r1, r2 = double(y), triple(y)
    return type(r1).__name__, type(r2).__name__, names[0], "triple" in names, double(lib.ones(1)).tolist()


def test_handle_torch_function_like_torch() -> None:
    assert _handle(ember) == _handle(torch)


def _parameter(lib: Any) -> tuple[str, ...]:
    nn = lib.nn
    p = nn.Parameter(lib.ones(2, 2))
    M = _subclass(lib)

    class Lin(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = nn.Parameter(lib.ones(2, 2))

        def forward(self, x: Any) -> Any:
            return nn.functional.linear(x, self.w)

    m = Lin()
    x = lib.ones(1, 2).as_subclass(M)
    with lib.no_grad():
        q = (p * 2, p[0], p.detach(), lib.sin(p))
    w = nn.Parameter(lib.ones(2, 2).as_subclass(M))  # a subclass parameter stays of its class
    m2 = Lin()
    m2.w = w
    names = sorted(n for n, _ in m2.named_parameters())
    return (type(p * 2).__name__, *(type(v).__name__ for v in q), type(m(x)).__name__,
            type(w).__name__, str(isinstance(w, nn.Parameter)), str(w.requires_grad), ",".join(names),
            type(m2(lib.ones(1, 2))).__name__, type(w * 2).__name__,
            type(m(lib.ones(1, 2))).__name__, str(lib.overrides.has_torch_function_unary(p)),
            type(nn.functional.relu(x)).__name__, type(nn.functional.softmax(x, -1)).__name__)


def test_parameter_and_module_like_torch() -> None:
    assert _parameter(ember) == _parameter(torch)


def test_tensor_subclass_with_own_torch_function_wins() -> None:
    class A(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            return "A"

    class B(A):
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            return "B"

    a, b = ember.ones(1).as_subclass(A), ember.ones(1).as_subclass(B)
    assert ember.add(a, b) == "B"  # the subclass goes first
    assert a + 1 == "A"
    assert ember.overrides.is_tensor_like(a) and not ember.overrides.is_tensor_like(3)


def _not_implemented(lib: Any) -> list[str]:
    class N(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            return NotImplemented

    n = lib.ones(1).as_subclass(N)
    out = []
    for call in (lambda: lib.add(n, 1), lambda: n.add(1), lambda: n + 1, lambda: lib.linalg.det(n)):
        with pytest.raises(TypeError) as e:
            call()
        out.append(str(e.value).replace("<locals>.", "").replace("_not_implemented.", ""))
    return out


def test_not_implemented_everywhere_raises_type_error_like_torch() -> None:
    assert _not_implemented(ember) == _not_implemented(torch)


def test_overridable_and_ignored_functions() -> None:
    ov = ember.overrides.get_overridable_functions()
    assert ember.add in ov[ember] and ember.Tensor.add in ov[ember.Tensor]
    assert ember.zeros in ember.overrides.get_ignored_functions()
    assert ember.add not in ember.overrides.get_ignored_functions()
    assert ember.overrides.get_testing_overrides()[ember.add](1, 2) == -1
    assert ember.overrides.resolve_name(ember.add) == "torch.add"
    assert ember.overrides.is_tensor_method_or_property(ember.Tensor.add)
    assert not ember.overrides.is_tensor_method_or_property(ember.add)


def test_nobody_overriding_leaves_the_fast_path_on() -> None:
    ember.nn.Parameter(ember.ones(1))  # a parameter does not count
    before = _C._torch_function_state()

    class Off(ember.Tensor):
        __torch_function__ = _C._disabled_torch_function_impl

    assert _C._torch_function_state() == before
    y = ember.ones(2).as_subclass(Off)
    assert type(y + 1) is ember.Tensor
