"""ember.cuda.amp (the deprecated CUDA spellings of ember.amp) and the legacy CUDA tensor types
(ember.cuda.FloatTensor, ...) where no CUDA device is available, against a CPU-only PyTorch 2.13:
warning categories and texts, errors, isinstance answers, reprs and signatures. The GPU side is in
test_cuda_legacy_types.py."""

from __future__ import annotations

import inspect
import subprocess
import sys
import warnings

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")

# the comparisons with PyTorch's no-CUDA answers need both builds without CUDA (a CUDA build without a
# GPU raises the device's errors instead, as PyTorch's CUDA build does)
cpu_only = pytest.mark.skipif(ember.backends.cuda.is_built() or torch.backends.cuda.is_built(),
                            reason="compares a CPU-only ember with a CPU-only PyTorch")

NAMES = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor", "ShortTensor",
         "IntTensor", "LongTensor", "BoolTensor"]
DTYPES = ["float32", "float64", "float16", "bfloat16", "uint8", "int8", "int16", "int32", "int64", "bool"]


def run(fn):
    """(outcome, warnings) of fn(): the value (or the error's type and message), and the (category,
    text) of each warning it emitted."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            result: tuple = ("ok", fn())
        except Exception as e:  # noqa: BLE001  (the type and message are what is compared)
            result = (type(e).__name__, str(e))
    return result, [(x.category.__name__, str(x.message)) for x in w]


def same(fn, value=lambda v: v):
    """fn(ember) and fn(torch) end alike: same error (type and text) or same value, same warnings."""
    (e, ew), (t, tw) = run(lambda: fn(ember)), run(lambda: fn(torch))
    if e[0] == t[0] == "ok":
        e, t = ("ok", value(e[1])), ("ok", value(t[1]))
    assert (e, ew) == (t, tw)
    return e


def params(obj):
    """A signature without its annotations: names, kinds and the defaults' reprs."""
    return [(p.name, p.kind, repr(p.default)) for p in inspect.signature(obj).parameters.values()]


# ---------------------------------------------------------------- ember.cuda.amp: names and signatures
def test_module_layout_and_all():
    import ember.cuda.amp as amp

    assert amp.__all__ == torch.cuda.amp.__all__
    for sub in ("autocast_mode", "grad_scaler", "common"):
        assert getattr(amp, sub).__all__ == getattr(torch.cuda.amp, sub).__all__
    assert ember.cuda.amp is amp and amp.autocast is amp.autocast_mode.autocast
    assert amp.GradScaler is amp.grad_scaler.GradScaler
    assert amp.grad_scaler.OptState is ember.amp.grad_scaler.OptState  # kept importable, as in torch
    assert issubclass(amp.autocast, ember.amp.autocast) and issubclass(amp.GradScaler, ember.amp.GradScaler)
    for name in ("autocast", "GradScaler", "custom_fwd", "custom_bwd", "amp_definitely_not_available"):
        assert getattr(amp, name).__doc__, name


@pytest.mark.parametrize("path", ["autocast", "autocast.__init__", "GradScaler", "GradScaler.__init__", "custom_fwd",
                                  "custom_bwd", "common.amp_definitely_not_available"])
def test_signatures_match_torch(path):
    def get(lib):
        obj = lib.cuda.amp
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    assert params(get(ember)) == params(get(torch))


def test_deprecation_markers_match_torch():
    for path in ("autocast", "GradScaler.__init__", "custom_fwd", "custom_bwd", "autocast_mode._cast"):
        def get(lib, path=path):
            obj = lib.cuda.amp
            for part in path.split("."):
                obj = getattr(obj, part)
            return obj.__deprecated__

        assert get(ember) == get(torch), path


def test_import_ember_does_not_load_the_new_modules():
    code = ("import sys, ember; mods = ['ember.cuda.amp', 'ember.cuda.amp.autocast_mode', 'ember.cuda.amp.common', "
            "'ember.cuda._legacy_types', 'ember._legacy_types', 'ember.amp']; "
            "print([m for m in mods if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------- ember.cuda.amp: warnings and behaviour
@cpu_only
@pytest.mark.parametrize("kwargs", [{}, {"enabled": False}, {"dtype": "bfloat16"}, {"dtype": "float32"},
                                    {"cache_enabled": False}])
def test_autocast_warns_and_disables_itself(kwargs):
    def fn(lib):
        kw = {k: getattr(lib, v) if k == "dtype" else v for k, v in kwargs.items()}
        a = lib.ones(2, 2)
        ac = lib.cuda.amp.autocast(**kw)
        with ac as ctx:
            inside = (lib.is_autocast_enabled("cuda"), lib.is_autocast_enabled("cpu"), str((a @ a).dtype))
        return ctx is ac, inside, lib.is_autocast_enabled("cuda")

    same(fn)


@cpu_only
def test_autocast_as_a_decorator_and_its_state():
    def fn(lib):
        ac = lib.cuda.amp.autocast(dtype=lib.bfloat16)

        @ac
        def f(x):
            return x @ x, lib.is_autocast_enabled("cuda")

        out, on = f(lib.ones(2, 2))
        return f.__name__, str(out.dtype), on, ac._enabled, ac.device, str(ac.fast_dtype), ac._cache_enabled

    same(fn)


def test_autocast_subclass_warns_at_definition_not_instantiation():
    def fn(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")

            class Sub(lib.cuda.amp.autocast):
                pass

            defined = [x.category.__name__ for x in w]
            del w[:]
            Sub(enabled=False)
            made = [x.category.__name__ for x in w]
        return defined, made

    assert fn(ember) == fn(torch) == (["FutureWarning"], [])


@cpu_only
@pytest.mark.parametrize("kwargs", [{}, {"enabled": False}, {"init_scale": 8.0, "growth_interval": 3}])
def test_grad_scaler_warns_and_passes_through(kwargs):
    class Opt:
        param_groups: list = []
        steps = 0

        def step(self):
            self.steps += 1
            return "stepped"

    def fn(lib):
        s = lib.cuda.amp.GradScaler(**kwargs)
        x = lib.ones(2)
        opt = Opt()
        out = (s.is_enabled(), s.get_scale(), s.state_dict(), s.scale(x) is x, s.step(opt), opt.steps,
               s._get_growth_tracker())
        s.unscale_(opt)
        s.update()
        s.load_state_dict({})  # a disabled scaler ignores it
        return out

    same(fn)


@cpu_only
def test_custom_fwd_bwd_warn_and_wrap():
    def fn(lib):
        class F(lib.autograd.Function):
            @staticmethod
            @lib.cuda.amp.custom_fwd(cast_inputs=lib.float16)
            def forward(ctx, x):
                ctx.on = lib.is_autocast_enabled("cuda")
                return x * 2

            @staticmethod
            @lib.cuda.amp.custom_bwd
            def backward(ctx, g):
                return g * 3

        x = lib.ones(2, requires_grad=True)
        y = F.apply(x)
        y.sum().backward()
        return y.tolist(), str(y.dtype), x.grad.tolist()

    same(fn)
    same(lambda lib: lib.cuda.amp.custom_fwd(lambda ctx, x: x).__name__)
    same(lambda lib: type(lib.cuda.amp.custom_fwd(cast_inputs=lib.float32)).__name__)
    same(lambda lib: lib.cuda.amp.custom_bwd(lambda ctx, g: g).__name__)
    same(lambda lib: lib.cuda.amp.custom_bwd())  # bwd is required: the same TypeError


@cpu_only
def test_helpers_match_torch():
    same(lambda lib: lib.cuda.amp.common.amp_definitely_not_available())
    same(lambda lib: lib.cuda.amp.amp_definitely_not_available())

    def cast(lib):
        value = {"a": lib.ones(2), "b": [lib.ones(1, dtype=lib.float64), (lib.ones(1), "s")], "n": np.ones(1)}
        r = lib.cuda.amp.autocast_mode._cast(value, lib.float16)
        return str(r["a"].dtype), str(r["b"][0].dtype), type(r["b"][1]).__name__, r["b"][1][1], type(r["n"]).__name__

    same(cast)


@cpu_only
def test_ember_amp_cuda_spellings_match_torch():
    same(lambda lib: lib.amp.autocast("cuda")._enabled)
    same(lambda lib: lib.autocast("cuda", dtype=lib.float32)._enabled)
    same(lambda lib: lib.amp.GradScaler("cuda").is_enabled())
    same(lambda lib: lib.amp.GradScaler().get_scale())


def test_cpu_scaler_multi_output_and_unscale_match_torch():
    """GradScaler("cpu") scales nested outputs and unscales per device and dtype as torch's."""

    class Opt:
        def __init__(self, params):
            self.param_groups = [{"params": params}]

        def step(self):
            for p in self.param_groups[0]["params"]:
                p.data.sub_(0.1 * p.grad)

    def fn(lib):
        s = lib.amp.GradScaler("cpu", init_scale=4.0, growth_interval=1)
        scaled = s.scale([lib.ones(2), (lib.full((1,), 3.0), lib.ones(1, dtype=lib.float64))])
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        q = lib.tensor([0.5], dtype=lib.float64, requires_grad=True)
        opt = Opt([p, q])
        trace = []
        for step in range(3):
            p.grad = q.grad = None
            s.scale((p * p).sum() + (q * 3).sum()).backward()
            if step == 1:
                q.grad[0] = float("nan")
            s.step(opt)
            s.update()
            trace.append((s.get_scale(), p.tolist(), q.tolist()))
        return ([t.tolist() for t in (scaled[0], *scaled[1])], type(scaled[1]).__name__, trace, s.state_dict())

    same(fn)


# ---------------------------------------------------------------- the legacy CUDA types without CUDA
@pytest.mark.parametrize("name", NAMES)
def test_cuda_types_repr_and_attributes(name):
    E, T = getattr(ember.cuda, name), getattr(torch.cuda, name)
    assert repr(E) == repr(T) == f"<class 'torch.cuda.{name}'>"
    assert repr(type(E)) == repr(type(T)) == "<class 'torch.tensortype'>" and type(E) is type(ember.FloatTensor)
    assert (E.__module__, E.__name__, E.__qualname__) == (T.__module__, T.__name__, T.__qualname__)
    assert (E.is_cuda, E.is_sparse, str(E.dtype), str(E.layout)) == (T.is_cuda, T.is_sparse, str(T.dtype),
                                                                    str(T.layout))
    assert E is getattr(ember.cuda, name) and E is not getattr(ember, name) and E != getattr(ember, name)
    assert not issubclass(E, ember.Tensor) and ember.typename(E) == torch.typename(T)
    assert ember.is_tensor(E) is torch.is_tensor(T) is False


@pytest.mark.parametrize("name", NAMES)
def test_isinstance_answers_match_torch(name):
    """A CPU tensor is never a torch.cuda.*Tensor; a CPU type answers for its dtype only."""
    for dt in DTYPES:
        for kind in ("cuda", "cpu"):
            def fn(lib, dt=dt, kind=kind):
                mod = lib.cuda if kind == "cuda" else lib
                return isinstance(lib.zeros(2, dtype=getattr(lib, dt)), getattr(mod, name))

            assert fn(ember) == fn(torch), (name, dt, kind)
    for other in (3, [1.0], np.ones(2, dtype=np.float32), ember.FloatTensor):
        assert isinstance(other, getattr(ember.cuda, name)) is False


@cpu_only
@pytest.mark.parametrize("name", ["FloatTensor", "LongTensor", "BoolTensor"])
@pytest.mark.parametrize("args,kwargs", [((2, 3), {}), (([1, 2],), {}), ((), {}), (("x",), {}), ((2,), {"device": "cpu"}),
                                         ((), {"size": (2,)}), ((), {"data": [1]}), (("tensor",), {})])
def test_cuda_constructors_raise_torchs_type_error(name, args, kwargs):
    def fn(lib):
        a = tuple(lib.ones(2) if v == "tensor" else v for v in args)
        return getattr(lib.cuda, name)(*a, **kwargs)

    same(fn)


@cpu_only
@pytest.mark.parametrize("arg", ["torch.cuda.FloatTensor", "torch.cuda.DoubleTensor", "torch.cuda.ComplexFloatTensor",
                                 "torch.cuda.Foo", "cuda.FloatTensor", "cuda_type", "cuda_long_type"])
def test_tensor_type_with_a_cuda_target(arg):
    def fn(lib):
        a = {"cuda_type": lib.cuda.FloatTensor, "cuda_long_type": lib.cuda.LongTensor}.get(arg, arg)
        return lib.ones(2).type(a)

    same(fn)


@pytest.mark.parametrize("arg", ["torch.Tensor", "tensor_class", "torch.ComplexFloatTensor", "torch.UInt16Tensor", int,
                                 np.ndarray, "parameter_class", "torch.FooTensor", 3, "dtype"])
def test_tensor_type_targets_match_torch(arg):
    def fn(lib):
        if arg == "parameter_class":
            a = pytest.importorskip(f"{lib.__name__}.nn").Parameter
        else:
            a = {"tensor_class": lib.Tensor, "dtype": lib.int16}.get(arg, arg)
        r = lib.ones(2, dtype=lib.float64).type(a)
        return str(r.dtype), r.device.type, r.type()

    same(fn)


def test_tensor_type_names_and_identity():
    for dt in DTYPES:
        assert ember.zeros(1, dtype=getattr(ember, dt)).type() == torch.zeros(1, dtype=getattr(torch, dt)).type()
    x = ember.ones(2)
    assert x.type("torch.FloatTensor") is x and x.type(ember.FloatTensor) is x and x.type(ember.float32) is x


@cpu_only
@pytest.mark.parametrize("arg", ["cuda_float", "cuda_int", "torch.cuda.FloatTensor", "torch.cuda.IntTensor",
                                 "torch.cuda.Foo", "ember_cpu_float"])
def test_set_default_tensor_type_with_cuda_types(arg):
    def fn(lib):
        a = {"cuda_float": lib.cuda.FloatTensor, "cuda_int": lib.cuda.IntTensor,
             "ember_cpu_float": lib.FloatTensor}.get(arg, arg)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return lib.set_default_tensor_type(a), str(lib.ones(1).dtype), lib.ones(1).device.type
            finally:
                lib.set_default_dtype(lib.float32)

    assert run(lambda: fn(ember))[0] == run(lambda: fn(torch))[0]


def test_set_default_tensor_type_warns_even_when_it_raises():
    with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
        with pytest.raises(TypeError, match="only floating-point types"):
            ember.set_default_tensor_type(ember.IntTensor)


@cpu_only
def test_cpu_constructors_and_new_reject_a_cuda_device():
    same(lambda lib: lib.FloatTensor(2, device="cuda"))
    same(lambda lib: lib.LongTensor([1], device=lib.device("cuda", 0)))
    same(lambda lib: lib.ones(2).new(2, device="cuda"))
    same(lambda lib: lib.FloatTensor(2, device=0))
    same(lambda lib: lib.FloatTensor(2, device="cpu").tolist().__len__())


@pytest.mark.parametrize("dt", ["complex64", "complex128", "uint16", "uint32", "uint64", "float64", "int64"])
def test_alias_dtype_error_names_the_c_type(dt):
    same(lambda lib: lib.FloatTensor(lib.ones(2, dtype=getattr(lib, dt))))


def test_cpu_constructors_ignore_the_default_device():
    """The legacy CPU constructors build on the CPU whatever the default device (PyTorch's
    DeviceContext does not reach them)."""
    ember.set_default_device("cpu:0")
    try:
        assert ember.FloatTensor(2).device == ember.device("cpu") and ember.LongTensor([1]).device.type == "cpu"
    finally:
        ember.set_default_device(None)


@cpu_only
@pytest.mark.parametrize("call", ["autocast_bad_kw", "scaler_bad_kw", "custom_fwd_positional_cast", "custom_bwd_none",
                                  "autocast_positional"])
def test_bad_arguments_warn_then_raise_as_torch(call):
    """The deprecation warning comes before the arguments are bound (typing_extensions.deprecated)."""
    def fn(lib):
        amp = lib.cuda.amp
        if call == "autocast_bad_kw":
            return amp.autocast(foo=1)
        if call == "scaler_bad_kw":
            return amp.GradScaler(device="cuda")
        if call == "custom_fwd_positional_cast":
            return amp.custom_fwd(None, lib.float16)
        if call == "custom_bwd_none":
            return type(amp.custom_bwd(None)).__name__
        return amp.autocast(False, lib.float16, False)._enabled

    same(fn)
