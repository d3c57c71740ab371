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


# ---------------------------------------------------------------- hand-written methods, properties, conversions

def _func_name(func: Any) -> str:
    """Tensor.size -> "size"; Tensor.shape.__get__ -> "shape.__get__"."""
    name = getattr(func, "__name__", repr(func))
    if name in ("__get__", "__set__", "__delete__"):
        return f"{func.__self__.__name__}.{name}"
    return str(name)


def _methods_script(lib: Any, x: Any, s: Any, i: Any, c: Any) -> dict[str, Any]:
    """Each call: a tensor 2x2 float x, one-element float s, one-element int i, complex c."""
    import copy

    return {
        "size()": lambda: x.size(), "size(0)": lambda: x.size(0), "size(dim=1)": lambda: x.size(dim=1),
        "stride()": lambda: x.stride(), "stride(0)": lambda: x.stride(0), "dim": lambda: x.dim(),
        "ndimension": lambda: x.ndimension(), "numel": lambda: x.numel(), "nelement": lambda: x.nelement(),
        "item": lambda: s.item(), "tolist": lambda: x.tolist(), "element_size": lambda: x.element_size(),
        "is_contiguous": lambda: x.is_contiguous(), "data_ptr": lambda: type(x.data_ptr()),
        "storage_offset": lambda: x.storage_offset(), "len": lambda: len(x), "bool": lambda: bool(s),
        "float": lambda: float(s), "int": lambda: int(s), "index": lambda: [0, 1, 2, 3][i],
        "complex": lambda: complex(s), "repr": lambda: repr(x), "str": lambda: str(x), "format": lambda: format(s),
        "iter": lambda: [type(r).__name__ for r in x], "contains": lambda: 2.0 in x,
        "array": lambda: x.__array__().shape, "is_floating_point": lambda: x.is_floating_point(),
        "is_complex": lambda: x.is_complex(), "is_signed": lambda: x.is_signed(), "get_device": lambda: x.get_device(),
        "is_inference": lambda: x.is_inference(), "_is_view": lambda: x._is_view(),
        "requires_grad_": lambda: type(x.detach().requires_grad_()).__name__, "is_shared": lambda: x.is_shared(),
        "shape": lambda: x.shape, "dtype": lambda: x.dtype, "device": lambda: x.device, "ndim": lambda: x.ndim,
        "requires_grad": lambda: x.requires_grad, "grad": lambda: x.grad, "is_leaf": lambda: x.is_leaf,
        "grad_fn": lambda: x.grad_fn, "real": lambda: type(c.real).__name__, "imag": lambda: type(c.imag).__name__,
        "name": lambda: x.name, "layout": lambda: x.layout, "is_sparse": lambda: x.is_sparse,
        "is_cuda": lambda: x.is_cuda, "is_cpu": lambda: x.is_cpu, "is_quantized": lambda: x.is_quantized,
        "is_meta": lambda: x.is_meta, "is_nested": lambda: x.is_nested, "itemsize": lambda: x.itemsize,
        "nbytes": lambda: x.nbytes, "output_nr": lambda: x.output_nr, "retains_grad": lambda: x.retains_grad,
        "_version": lambda: x._version, "data": lambda: type(x.data).__name__, "T": lambda: type(x.T).__name__,
        "mT": lambda: type(x.mT).__name__, "H": lambda: type(x.H).__name__, "mH": lambda: type(x.mH).__name__,
        "grad_dtype": lambda: x.grad_dtype, "set requires_grad": lambda: setattr(x, "requires_grad", False),
        "set grad": lambda: setattr(x, "grad", None), "del grad": lambda: delattr(x, "grad"),
        "set data": lambda: setattr(x, "data", x.data), "set grad_dtype": lambda: setattr(x, "grad_dtype", x.dtype),
        "set real": lambda: setattr(c, "real", c.real), "hash": lambda: type(hash(x)),
        "1 - x": lambda: type(1 - x).__name__, "deepcopy plain": lambda: type(copy.deepcopy(lib.ones(1))).__name__,
    }


def _methods_seen(lib: Any, mode: bool) -> dict[str, Any]:
    """For each call: what a logging subclass (or, with `mode`, a logging TorchFunctionMode on plain
    tensors) sees — function name, types, argument types, keyword names — and the call's result."""
    log: list[tuple[Any, ...]] = []

    def record(func: Any, types: Any, args: Any, kwargs: Any) -> None:
        log.append((_func_name(func), tuple(t.__name__ for t in types), tuple(type(a).__name__ for a in args),
                    tuple(sorted(kwargs or {}))))

    class L(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            record(func, types, args, kwargs)
            return super().__torch_function__(func, types, args, kwargs)

    class Mode(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            record(func, types, args, kwargs)
            return func(*args, **(kwargs or {}))

    def make(t: Any) -> Any:
        return t if mode else t.as_subclass(L)

    calls = _methods_script(lib, make(lib.tensor([[1.0, 2.0], [3.0, 4.0]])), make(lib.tensor([3.0])),
                            make(lib.tensor([2])), make(lib.tensor([1 + 2j])))
    out: dict[str, Any] = {}
    for key, call in calls.items():
        del log[:]
        try:
            if mode:
                with Mode():
                    r = call()
            else:
                r = call()
        except Exception as e:  # noqa: BLE001 - the error is part of what is compared
            r = f"{type(e).__name__}: {e}"
        seen = list(log)
        with lib._C.DisableTorchFunction():
            text = str(r).replace("torch.", "").replace("ember.", "").replace("<class '", "").replace("'>", "")
        out[key] = (seen, text)
    return out


@pytest.mark.parametrize("mode", [False, True], ids=["subclass", "mode"])
def test_methods_and_properties_reach_torch_function_like_torch(mode: bool) -> None:
    got, want = _methods_seen(ember, mode), _methods_seen(torch, mode)
    assert got.keys() == want.keys()
    assert {k: got[k] for k in want if got[k] != want[k]} == {k: want[k] for k in want if got[k] != want[k]}


def _declining(lib: Any) -> list[str]:
    """Every handler returns NotImplemented (a TypeError) or a wrong type for a conversion."""

    class N(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            return NotImplemented

    class Seven(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            return 7

    n, v = lib.ones(1).as_subclass(N), lib.ones(1).as_subclass(Seven)
    out = []
    for call in (lambda: n.shape, lambda: n.dim(), lambda: len(n), lambda: bool(n), lambda: n.size(),
                 lambda: setattr(n, "requires_grad", True), lambda: bool(v), lambda: len(v), lambda: float(v),
                 lambda: int(v), lambda: v.shape, lambda: v.item()):
        try:
            out.append(repr(call()))
        except TypeError as e:
            out.append(str(e).replace("<locals>.", "").replace("_declining.", ""))
    return out


def test_declining_and_wrong_typed_handlers_like_torch() -> None:
    assert _declining(ember) == _declining(torch)


def _repr_script(lib: Any) -> list[str]:
    class MyTensor(lib.Tensor):
        pass

    def sub(t: Any) -> Any:
        return t.as_subclass(MyTensor)

    p = lib.nn.Parameter(sub(lib.ones(2)))
    out = [repr(sub(lib.tensor([1.0, 2.0]))), str(sub(lib.arange(6.0).reshape(2, 3))), repr(sub(lib.tensor(2.5))),
           repr(sub(lib.arange(3))), repr(sub(lib.zeros(0, 2))), repr(sub(lib.ones(2, requires_grad=True))),
           repr(sub(lib.ones(2, requires_grad=True)) * 2), repr(sub(lib.linspace(0, 1, 30).reshape(3, 10))),
           repr(p), str(lib.nn.Parameter(lib.ones(1))), f"{lib.tensor(1.5)}", f"{lib.tensor(1.5):.2f}",
           f"{lib.tensor([1.5])}", f"{sub(lib.tensor([1.5]))}", repr(lib.nn.Buffer(lib.ones(1)))]
    try:
        out.append(f"{sub(lib.tensor(1.5)):.2f}")
    except TypeError as e:
        out.append(f"TypeError: {e}")
    return out


def test_subclass_repr_and_format_like_torch() -> None:
    assert _repr_script(ember) == _repr_script(torch)


def _threads(lib: Any) -> tuple[list[tuple[str, str]], list[bool]]:
    """A TorchFunctionMode belongs to the thread that entered it."""
    import threading

    seen: list[tuple[str, str]] = []
    enabled: list[bool] = []

    class Log(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            seen.append((func.__name__, threading.current_thread().name))
            return func(*args, **(kwargs or {}))

    x = lib.ones(2)
    entered, release = threading.Event(), threading.Event()

    def worker() -> None:
        lib.neg(x)  # the main thread's mode is not this thread's
        enabled.append(lib.overrides._is_torch_function_mode_enabled())
        with Log():
            lib.abs(x)
            entered.set()
            release.wait(10)  # the main thread runs with this thread's mode still entered
            lib.cos(x)

    with Log():
        t = threading.Thread(target=worker, name="worker")
        t.start()
        entered.wait(10)
        lib.sin(x)
        enabled.append(lib.overrides._is_torch_function_mode_enabled())
        release.set()
        t.join()
    lib.tan(x)  # no mode left in this thread, though the worker's ran meanwhile
    enabled.append(lib.overrides._is_torch_function_mode_enabled())
    return seen, enabled


def test_mode_stack_is_per_thread_like_torch() -> None:
    got, want = _threads(ember), _threads(torch)
    assert got == want
