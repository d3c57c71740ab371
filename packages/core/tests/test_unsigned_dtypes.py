"""uint16 / uint32 / uint64 and torch.hash_tensor against PyTorch 2.13: dtype objects, promotion,
creation, casts from and to every dtype, the few ops PyTorch runs on them and the errors of the
rest, printing, NumPy, DLPack, save / load, iinfo. (test_unsigned_sweep.py walks every op.)"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
import parity_inputs as H  # noqa: E402  (registered by conftest.py)

UNSIGNED = ["uint16", "uint32", "uint64"]
ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
       "complex64", "complex128", *UNSIGNED]
LEGACY = {"uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}


def same(fn: Callable[[Any], Any]) -> None:
    """fn(torch) and fn(ember): equal results, or the same exception type and dtype names."""
    t_res, t_exc = H.run(lambda: fn(torch))
    e_res, e_exc = H.run(lambda: fn(ember))
    if H.check_exceptions(t_exc, e_exc):
        named = [n for n in LEGACY.values() if n in str(t_exc)]
        assert [n for n in LEGACY.values() if n in str(e_exc)] == named, f"torch: {t_exc}\nember: {e_exc}"
        return
    if isinstance(t_res, (torch.dtype, str)):
        assert str(e_res) == str(t_res)
    else:
        H.assert_same(e_res, t_res)


def messages(fn: Callable[[Any], Any]) -> None:
    """Both raise, with the same type and message."""
    _, t_exc = H.run(lambda: fn(torch))
    _, e_exc = H.run(lambda: fn(ember))
    assert t_exc is not None and e_exc is not None, (t_exc, e_exc)
    assert H.builtin_exc_type(e_exc) is H.builtin_exc_type(t_exc)
    assert str(e_exc) == str(t_exc)


# ---- dtype objects, promotion ----

@pytest.mark.parametrize("u", UNSIGNED)
def test_dtype_object(u: str) -> None:
    t, e = getattr(torch, u), getattr(ember, u)
    assert repr(e) == repr(t) and str(e) == str(t)
    for attr in ("is_signed", "is_floating_point", "is_complex", "itemsize"):
        assert getattr(e, attr) == getattr(t, attr), attr
    assert e.to_real() is e
    messages(lambda lib: getattr(lib, u).to_complex())


@pytest.mark.parametrize("u", UNSIGNED)
@pytest.mark.parametrize("other", ALL)
def test_promote_types(u: str, other: str) -> None:
    for a, b in ((u, other), (other, u)):
        t_res, t_exc = H.run(lambda: torch.promote_types(getattr(torch, a), getattr(torch, b)))
        e_res, e_exc = H.run(lambda: ember.promote_types(getattr(ember, a), getattr(ember, b)))
        if t_exc is not None:
            assert e_exc is not None and type(e_exc) is RuntimeError and str(e_exc) == str(t_exc), e_exc
        else:
            assert str(e_res) == str(t_res)
        assert ember.can_cast(getattr(ember, a), getattr(ember, b)) == torch.can_cast(getattr(torch, a),
                                                                                      getattr(torch, b))


@pytest.mark.parametrize("u", UNSIGNED)
@pytest.mark.parametrize("other", [1, 1.5, True, 2**40, "0d-int64", "0d-float64", "0d-bool", "int32", "uint8",
                                   "bool", "float16"])
def test_result_type_and_mul(u: str, other: Any) -> None:
    def operand(lib: Any) -> Any:
        if not isinstance(other, str):
            return other
        if other.startswith("0d-"):
            return lib.tensor(1, dtype=getattr(lib, other[3:]))
        return lib.tensor([1, 0], dtype=getattr(lib, other))

    same(lambda lib: lib.result_type(lib.tensor([3, 4], dtype=getattr(lib, u)), operand(lib)))
    same(lambda lib: lib.tensor([3, 4], dtype=getattr(lib, u)) * operand(lib))


# ---- creation ----

@pytest.mark.parametrize("u", UNSIGNED)
@pytest.mark.parametrize("value", [0, 300, -1, -300, 2**31, -(2**31) - 1, 2**32, 2**63, 2**64 - 1, 2**64,
                                   -(2**63), 1.5, -1.5, 70000.0, 1e20, True])
def test_tensor_from_python(u: str, value: Any) -> None:
    same(lambda lib: lib.tensor([value, 7], dtype=getattr(lib, u)))


@pytest.mark.parametrize("u", UNSIGNED)
def test_factories(u: str) -> None:
    same(lambda lib: lib.zeros(2, 3, dtype=getattr(lib, u)))
    same(lambda lib: lib.ones(4, dtype=getattr(lib, u)))
    same(lambda lib: lib.full((2,), 7, dtype=getattr(lib, u)))
    same(lambda lib: lib.full((2,), -1, dtype=getattr(lib, u)))
    same(lambda lib: lib.full((2,), 70000, dtype=getattr(lib, u)))
    same(lambda lib: lib.full((2,), 2**64 - 1, dtype=getattr(lib, u)))
    same(lambda lib: lib.empty(2, 3, dtype=getattr(lib, u)).shape)
    same(lambda lib: lib.zeros_like(lib.ones(3), dtype=getattr(lib, u)))
    same(lambda lib: lib.full_like(lib.ones(3, dtype=getattr(lib, u)), 5))
    same(lambda lib: lib.ones(3, dtype=getattr(lib, u)).fill_(9))
    same(lambda lib: lib.ones(3, dtype=getattr(lib, u)).zero_())
    same(lambda lib: lib.randint(0, 5, (3,), dtype=getattr(lib, u)).dtype)
    for fn in (lambda lib: lib.arange(5, dtype=getattr(lib, u)),
               lambda lib: lib.linspace(0, 4, 5, dtype=getattr(lib, u)),
               lambda lib: lib.eye(2, dtype=getattr(lib, u)),
               lambda lib: lib.rand(3, dtype=getattr(lib, u))):
        same(fn)


# ---- casts ----

FLOATS = [-5.5, -1.0, -0.5, 0.5, 1.9, 255.0, 65535.0, 65536.0, 70000.7, 4294967295.0, 2.0**31, 5e9, -5e9,
          2.0**63, 2.0**63 + 4096, 1e19, 2.0**64, 2e19, -1e19, math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("u", UNSIGNED)
@pytest.mark.parametrize("src", ["float64", "float32", "float16", "bfloat16", "complex64"])
def test_cast_float_to_unsigned(u: str, src: str) -> None:
    # A float outside uint32's range (or NaN) lands where x86's conversion puts it, which differs
    # between PyTorch's own paths (vectorised or not, float or half source): ember follows its
    # scalar float path, so half sources are compared in range only.
    values = FLOATS if u != "uint32" or src in ("float32", "float64", "complex64") else [
        v for v in FLOATS if -(2.0**31) <= v < 2.0**32]
    same(lambda lib: lib.tensor(values, dtype=lib.float64).to(getattr(lib, src)).to(getattr(lib, u)))


EDGES = [2.0**31 + 0.5, 2.0**32 - 0.5, -(2.0**31) - 0.5, -(2.0**31) + 0.5, -(2.0**31), 2.0**32, 2.0**31 - 0.5, -0.0,
         3e38, -3e38, 1e-30]


@pytest.mark.parametrize("u", ["uint16", "uint32"])
@pytest.mark.parametrize("src", ["float64", "float32"])
def test_cast_float_to_unsigned_vector_loop(u: str, src: str) -> None:
    # Long enough for the vectorised loop: every value converts as in the short (scalar tail)
    # case, and values in range as PyTorch converts them.
    values = FLOATS + EDGES
    short = ember.tensor(values, dtype=ember.float64).to(getattr(ember, src)).to(getattr(ember, u))
    long = ember.tensor(values * 13, dtype=ember.float64).to(getattr(ember, src)).to(getattr(ember, u))
    assert long.tolist() == short.tolist() * 13
    inside = [v for v in values if -(2.0**31) <= v < 2.0**31] * 13
    same(lambda lib: lib.tensor(inside, dtype=lib.float64).to(getattr(lib, src)).to(getattr(lib, u)))

@pytest.mark.parametrize("u", UNSIGNED)
@pytest.mark.parametrize("dst", ALL)
def test_cast_both_ways(u: str, dst: str) -> None:
    ints = [0, 1, 7, 127, 255, 65535, 2**31 - 1]

    def values(lib: Any) -> Any:
        x = lib.tensor(ints + ([2**32 - 1, 2**40, 2**64 - 1] if u == "uint64" else [2**32 - 1] if u == "uint32"
                              else []), dtype=getattr(lib, u))
        return x.view(2, -1) if x.numel() % 2 == 0 else x

    same(lambda lib: values(lib).to(getattr(lib, dst)))
    same(lambda lib: values(lib).t().to(getattr(lib, dst)) if values(lib).dim() == 2 else values(lib))
    same(lambda lib: lib.tensor([-3, -1, 0, 1, 100], dtype=lib.int64).to(getattr(lib, dst)).to(getattr(lib, u)))
    same(lambda lib: lib.zeros(3, dtype=getattr(lib, dst)).copy_(lib.tensor([1, 2, 3], dtype=getattr(lib, u))))


# ---- ops PyTorch runs on them, and the errors of the others ----

@pytest.mark.parametrize("u", UNSIGNED)
def test_supported_ops(u: str) -> None:
    def a(lib: Any) -> Any:
        return lib.tensor([[1, 2, 65535], [0, 9, 3]], dtype=getattr(lib, u))

    def b(lib: Any) -> Any:
        return lib.tensor([[3, 2, 2], [5, 9, 1]], dtype=getattr(lib, u))

    for fn in (lambda lib: a(lib) * b(lib), lambda lib: a(lib) * 70000, lambda lib: a(lib) * -1,
               lambda lib: a(lib).mul_(b(lib)), lambda lib: a(lib) & b(lib), lambda lib: a(lib) | b(lib),
               lambda lib: a(lib) ^ b(lib), lambda lib: a(lib) == b(lib), lambda lib: a(lib) != 9,
               lambda lib: a(lib) == -1, lambda lib: a(lib) / b(lib), lambda lib: a(lib).sqrt(),
               lambda lib: a(lib).sum(), lambda lib: a(lib).sum(1), lambda lib: a(lib).prod(),
               lambda lib: a(lib).cumsum(0), lambda lib: a(lib).any(), lambda lib: a(lib).all(1),
               lambda lib: a(lib).sort(), lambda lib: a(lib).sort(descending=True),
               lambda lib: lib.tensor(list(range(100, 0, -1)) * 2, dtype=getattr(lib, u)).sort(stable=True),
               lambda lib: a(lib).argsort(dim=0), lambda lib: lib.unique(a(lib)), lambda lib: lib.unique(a(lib), dim=1),
               lambda lib: lib.cat([a(lib), b(lib)]), lambda lib: lib.stack([a(lib), b(lib)], 1),
               lambda lib: a(lib)[:, [0, 2]], lambda lib: a(lib)[1], lambda lib: a(lib).t().contiguous(),
               lambda lib: a(lib).reshape(3, 2), lambda lib: a(lib).clone(), lambda lib: a(lib).view(lib.int16),
               lambda lib: lib.where(lib.tensor([True, False, True]), a(lib), b(lib)),
               lambda lib: a(lib).index_select(1, lib.tensor([2, 0])), lambda lib: a(lib).isnan(),
               lambda lib: a(lib).signbit(), lambda lib: a(lib).float(), lambda lib: a(lib).double().to(getattr(lib, u))):
        same(fn)
    def setitem(lib: Any, key: Any) -> Any:
        x = lib.tensor([1, 2, 3], dtype=getattr(lib, u))
        x[key] = 7
        return x

    for key in (1, slice(0, 2), "mask", "list"):
        same(lambda lib: setitem(lib, lib.tensor([True, False, True]) if key == "mask"
                                 else [0, 2] if key == "list" else key))


@pytest.mark.parametrize("u", UNSIGNED)
@pytest.mark.parametrize("op", ["add", "sub", "neg", "abs", "max", "min", "amax", "argmax", "floor_divide",
                                "remainder", "lshift", "rshift", "bitwise_not", "lt", "maximum", "clamp", "mean",
                                "pow", "mm", "nonzero", "flip2d", "cumsum_dtype", "logical_not", "gather", "arange",
                                "mixed_int32", "mixed_uint8", "mixed_bool", "mixed_other_unsigned", "complex"])
def test_unsupported_ops_raise(u: str, op: str) -> None:
    def run(lib: Any) -> Any:
        a = lib.tensor([[1, 2], [3, 4]], dtype=getattr(lib, u))
        other = "uint32" if u != "uint32" else "uint16"
        return {
            "add": lambda: a + a, "sub": lambda: a - 1, "neg": lambda: -a, "abs": lambda: a.abs(), "max": lambda: a.max(),
            "min": lambda: a.min(), "amax": lambda: a.amax(0), "argmax": lambda: a.argmax(),
            "floor_divide": lambda: a // a, "remainder": lambda: a % a, "lshift": lambda: a << a, "rshift": lambda: a >> 1,
            "bitwise_not": lambda: ~a, "lt": lambda: a < a, "maximum": lambda: lib.maximum(a, a),
            "clamp": lambda: a.clamp(0, 2), "mean": lambda: a.mean(), "pow": lambda: a**2, "mm": lambda: a @ a,
            "nonzero": lambda: a.nonzero(), "flip2d": lambda: a.flip(0, 1), "cumsum_dtype": lambda: a.cumsum(0, dtype=a.dtype),
            "logical_not": lambda: a.logical_not(), "gather": lambda: a.gather(0, lib.tensor([[0, 1]])),
            "arange": lambda: lib.arange(3, dtype=a.dtype), "mixed_int32": lambda: a * a.int(),
            "mixed_uint8": lambda: a & a.to(lib.uint8), "mixed_bool": lambda: a == a.bool(),
            "mixed_other_unsigned": lambda: a * a.to(getattr(lib, other)),
            "complex": lambda: a * lib.ones(2, dtype=lib.complex64),
        }[op]()

    same(run)


# ---- printing, Python values, NumPy, DLPack, serialization, limits ----

@pytest.mark.parametrize("u", UNSIGNED)
def test_repr_and_values(u: str) -> None:
    top = {"uint16": 2**16 - 1, "uint32": 2**32 - 1, "uint64": 2**64 - 1}[u]
    for make in (lambda lib: lib.tensor([0, top, 7], dtype=getattr(lib, u)),
                 lambda lib: lib.tensor([[top, 0], [5, 6]], dtype=getattr(lib, u)),
                 lambda lib: lib.tensor(top, dtype=getattr(lib, u)),
                 lambda lib: lib.empty(0, dtype=getattr(lib, u)),
                 lambda lib: lib.zeros(2, 3, dtype=getattr(lib, u)),
                 lambda lib: lib.ones(3000, dtype=getattr(lib, u)) * 3):
        t, e = make(torch), make(ember)
        assert repr(e) == repr(t)
        assert str(e) == str(t)
        assert e.tolist() == t.tolist()
        if t.numel() == 1:
            for conv in (lambda x: x.item(), int, float, bool, lambda x: x.__index__()):
                same(lambda lib: conv(e if lib is ember else t))
    same(lambda lib: lib.tensor([1], dtype=getattr(lib, u)).type())
    same(lambda lib: lib.tensor([1], dtype=getattr(lib, u)).is_signed())
    same(lambda lib: lib.tensor([1], dtype=getattr(lib, u)).element_size())


@pytest.mark.parametrize("u", UNSIGNED)
def test_numpy_round_trip(u: str) -> None:
    np = pytest.importorskip("numpy")
    a = np.array([0, 1, np.iinfo(u).max], dtype=u)
    e = ember.from_numpy(a)
    assert str(e.dtype) == f"torch.{u}" and e.tolist() == a.tolist()
    assert e.numpy().dtype == a.dtype and e.numpy().tolist() == a.tolist()
    assert ember.tensor(a).tolist() == a.tolist()


@pytest.mark.parametrize("u", UNSIGNED)
def test_dlpack_with_torch(u: str) -> None:
    t = torch.tensor([0, 5, torch.iinfo(getattr(torch, u)).max], dtype=getattr(torch, u))
    e = ember.from_dlpack(t)
    assert str(e.dtype) == str(t.dtype) and e.tolist() == t.tolist()
    back = torch.from_dlpack(ember.tensor([1, 2, 3], dtype=getattr(ember, u)))
    assert back.dtype == t.dtype and back.tolist() == [1, 2, 3]


@pytest.mark.parametrize("u", UNSIGNED)
def test_save_load_with_torch(u: str) -> None:
    top = torch.iinfo(getattr(torch, u)).max
    buf = io.BytesIO()
    ember.save({"x": ember.tensor([[1, top], [3, 4]], dtype=getattr(ember, u))[:, 1], "y": ember.ones(2)}, buf)
    got = torch.load(io.BytesIO(buf.getvalue()))
    assert got["x"].dtype == getattr(torch, u) and got["x"].tolist() == [top, 4]
    buf = io.BytesIO()
    torch.save({"x": torch.tensor([5, top], dtype=getattr(torch, u))}, buf)
    for weights_only in (True, False):
        back = ember.load(io.BytesIO(buf.getvalue()), weights_only=weights_only)
        assert str(back["x"].dtype) == f"torch.{u}" and back["x"].tolist() == [5, top]
    buf = io.BytesIO()
    ember.save(ember.tensor([7, top], dtype=getattr(ember, u)), buf)
    assert ember.load(io.BytesIO(buf.getvalue())).tolist() == [7, top]


@pytest.mark.parametrize("u", UNSIGNED)
def test_iinfo_finfo(u: str) -> None:
    t, e = torch.iinfo(getattr(torch, u)), ember.iinfo(getattr(ember, u))
    assert (e.bits, e.min, e.max, e.dtype) == (t.bits, t.min, t.max, t.dtype)
    assert repr(e) == repr(t) and str(e) == str(t)
    messages(lambda lib: lib.finfo(getattr(lib, u)))


# ---- hash_tensor ----

HASH_INPUTS = {
    "float32": lambda lib: lib.tensor([[1.5, -2.0, 3.25], [0.0, -0.0, math.nan]]),
    "float64": lambda lib: lib.tensor([[1.5, -2.0, math.inf], [1e300, -0.0, 7.0]], dtype=lib.float64),
    "float16": lambda lib: lib.tensor([[1.5, -2.0, math.nan], [-math.nan, 0.5, 3.0]], dtype=lib.float16),
    "bfloat16": lambda lib: lib.tensor([[1.5, -2.0, 8.0], [0.25, 0.5, 3.0]], dtype=lib.bfloat16),
    "int32": lambda lib: lib.tensor([[1, -1, 5], [7, 2**31 - 1, -(2**31)]], dtype=lib.int32),
    "int64": lambda lib: lib.tensor([[2**62, -(2**62), 7], [2**63 - 1, -(2**63), 0]]),
    "int8": lambda lib: lib.tensor([[1, -1, 5], [-128, 127, 0]], dtype=lib.int8),
    "uint8": lambda lib: lib.tensor([[1, 255, 5], [0, 3, 9]], dtype=lib.uint8),
    "bool": lambda lib: lib.tensor([[True, False, True], [True, True, False]]),
}


@pytest.mark.parametrize("src", list(HASH_INPUTS))
@pytest.mark.parametrize("args", [(), (1,), (0,), (-1,), ((0, 1),), ([],), (None,), ([1],)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_hash_tensor_values(src: str, args: tuple, keepdim: bool) -> None:
    same(lambda lib: lib.hash_tensor(HASH_INPUTS[src](lib), *args, keepdim=keepdim))
    same(lambda lib: HASH_INPUTS[src](lib).t().hash_tensor(*args, keepdim=keepdim))


@pytest.mark.parametrize("src", ["float32", "float16", "int64"])
@pytest.mark.parametrize("args", [(), (0,), (1,)])
def test_hash_tensor_large(src: str, args: tuple) -> None:
    # vectorised lanes and per-thread partial results (the C++ reduction), NaN and -0.0 bits included
    def big(lib: Any) -> Any:
        t = (lib.arange(301 * 257, dtype=lib.float64).reshape(301, 257) * 0.37 - 9000).to(getattr(lib, src))
        if src != "int64":
            t[::7, ::5] = math.nan
            t[3::11, 2::13] = -0.0
        return t
    same(lambda lib: lib.hash_tensor(big(lib), *args))


@pytest.mark.parametrize("case", ["0d", "0d-dim0", "3d", "3d-keep", "expand", "empty-dim1", "empty", "empty-dim0",
                                  "mode1", "mode-float", "dim-oor", "dim-repeat", "dim-float", "complex",
                                  "uint16", "uint32", "uint64", "empty-uint16", "input-int", "out", "out-wrong",
                                  "requires-grad", "positional-keepdim", "mode+complex", "mode+dim"])
def test_hash_tensor_edges(case: str) -> None:
    def run(lib: Any) -> Any:
        x = lib.tensor([[1.5, -2.0, 3.25], [0.5, 4.0, 8.0]])
        cube = lib.arange(24.0).reshape(2, 3, 4)
        return {
            "0d": lambda: lib.hash_tensor(lib.tensor(2.5)), "0d-dim0": lambda: lib.hash_tensor(lib.tensor(2.5), 0),
            "3d": lambda: lib.hash_tensor(cube, (0, 2)), "3d-keep": lambda: lib.hash_tensor(cube, (2, 0), keepdim=True),
            "expand": lambda: lib.hash_tensor(lib.ones(1, 3).expand(4, 3), 0),
            "empty-dim1": lambda: lib.hash_tensor(lib.empty(0, 3), 1), "empty": lambda: lib.hash_tensor(lib.empty(0)),
            "empty-dim0": lambda: lib.hash_tensor(lib.empty(0, 3), 0), "mode1": lambda: lib.hash_tensor(x, mode=1),
            "mode-float": lambda: lib.hash_tensor(x, mode=0.0), "dim-oor": lambda: lib.hash_tensor(x, 2),
            "dim-repeat": lambda: lib.hash_tensor(x, (0, 0)), "dim-float": lambda: lib.hash_tensor(x, 1.0),
            "complex": lambda: lib.hash_tensor(x.to(lib.complex64)),
            "uint16": lambda: lib.hash_tensor(lib.tensor([1, 2], dtype=lib.uint16)),
            "uint32": lambda: lib.hash_tensor(lib.tensor([1, 2], dtype=lib.uint32)),
            "uint64": lambda: lib.hash_tensor(lib.tensor([1, 2], dtype=lib.uint64)),
            "empty-uint16": lambda: lib.hash_tensor(lib.empty(0, 3, dtype=lib.uint16), 1),
            "input-int": lambda: lib.hash_tensor(3),
            "out": lambda: lib.hash_tensor(x, 1, out=lib.empty(2, dtype=lib.uint64)),
            "out-wrong": lambda: lib.hash_tensor(x, out=lib.empty((), dtype=lib.int64)),
            "requires-grad": lambda: lib.hash_tensor(lib.ones(2, requires_grad=True) * 2).requires_grad,
            "positional-keepdim": lambda: lib.hash_tensor(x, 1, True),
            "mode+complex": lambda: lib.hash_tensor(x.to(lib.complex64), mode=1),
            "mode+dim": lambda: lib.hash_tensor(x, 5, mode=1),
        }[case]()

    same(run)
