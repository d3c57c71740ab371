"""Shared machinery for the ember-vs-PyTorch parity tests (test_parity.py, test_hypothesis.py).

Not a test module. The test files load it by path, because the monorepo runs pytest with
``--import-mode=importlib`` (tests/ is not on sys.path).

The idea: every input is *described* (a ``T`` spec: shape, dtype, value domain, layout), built
once in PyTorch from a seeded generator, and copied value-for-value into ember; the same view
operations (``.t()``, ``[::2]``, ``.permute``, ``.expand``) are then applied on both sides so the
two libraries see identical values *and* identical memory layouts.  Results are compared on
dtype, shape and values (per-dtype tolerance, NaN positions equal), and errors on exception type.
"""

from __future__ import annotations

import builtins
import math
import warnings
import zlib
from dataclasses import dataclass, field
from typing import Any

import ember
import torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64",
          "float16", "bfloat16", "float32", "float64"]
INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]
FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]
COMPLEX_DTYPES = ["complex64", "complex128"]  # used by the complex ops' own cases (parity_complex.py)

# (rtol, atol) per result dtype. float32/float16/bfloat16 are torch.testing's defaults except
# float16 rtol, which the brief fixes at 1e-3; ints and bool compare exactly.
TOLS = {
    "float64": (1e-7, 1e-7),
    "float32": (1.3e-6, 1e-5),
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}


def tdt(name: str) -> Any:
    return getattr(torch, name)


def edt(name: str) -> Any:
    return getattr(ember, name)


def dtype_name(dt: Any) -> str:
    return str(dt).rsplit(".", 1)[-1]


# --------------------------------------------------------------------------------------------
# Input descriptions
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class T:
    """A tensor input: logical ``shape``, ``dtype`` name, value ``dom``ain and memory ``view``.

    view: contig | t (2-D transposed) | slice2 (x[::2] of a twice-as-long base) | permute
    (3-D, non-contiguous permutation) | expand (stride-0 first dim) | offset (x[1:], nonzero
    storage offset).  ``values`` overrides the generated values (flat list, row-major).
    """

    shape: tuple = (3, 4)
    dtype: str = "float32"
    dom: str = "default"
    view: str = "contig"
    values: tuple | None = None

    def __repr__(self) -> str:
        s = "x".join(map(str, self.shape)) or "0d"
        extra = "" if self.view == "contig" else f":{self.view}"
        return f"{self.dtype}[{s}{extra}]"


@dataclass(frozen=True)
class DT:
    """A dtype argument (``dtype=DT("float64")`` becomes torch.float64 / ember.float64)."""

    name: str

    def __repr__(self) -> str:
        return self.name


@dataclass
class Case:
    """One call: positional ``args`` and ``kwargs`` (may contain T / DT / nested tuples).

    method: also run as ``args[0].name(...)``; inplace: also run as ``args[0].name_(...)``;
    out: also run with ``out=`` (every out kind); meta: compare dtype/shape only (random /
    uninitialised values); isolate: run the check in a forked child, for inputs that have
    crashed ember's process (so one abort fails one test instead of the whole session).
    """

    id: str
    args: tuple
    kwargs: dict = field(default_factory=dict)
    method: bool = False
    inplace: bool = True
    out: bool = False
    meta: bool = False
    isolate: bool = False


def base_shape(shape: tuple, view: str) -> tuple:
    """The contiguous base a view is cut from (see ``apply_view``)."""
    if view == "contig":
        return tuple(shape)
    if view == "t":
        assert len(shape) == 2
        return (shape[1], shape[0])
    if view == "slice2":
        return (shape[0] * 2,) + tuple(shape[1:])
    if view == "permute":
        assert len(shape) == 3
        return (shape[2], shape[0], shape[1])
    if view == "expand":
        return (1,) + tuple(shape[1:])
    if view == "offset":
        return (shape[0] + 1,) + tuple(shape[1:])
    raise ValueError(view)


def apply_view(x: Any, shape: tuple, view: str) -> Any:
    """The same view op on either library's tensor (only methods both libraries define)."""
    if view == "contig":
        return x
    if view == "t":
        return x.t()
    if view == "slice2":
        return x[::2]
    if view == "permute":
        return x.permute(1, 2, 0)
    if view == "expand":
        return x.expand(*shape)
    if view == "offset":
        return x[1:]
    raise ValueError(view)


INT_RANGES = {  # [lo, hi) per domain for integer dtypes
    "default": (-5, 6),
    "positive": (1, 6),
    "unit": (-1, 2),
    "ge1": (1, 6),
    "small_nonneg": (0, 4),
    "shift": (0, 4),
    "small": (-3, 4),
    "prob": (0, 2),
}


def special_values(dtype: str) -> list:
    """Edge values: NaN/inf/signed zeros for floats, range limits for ints."""
    if dtype in FLOAT_DTYPES:
        return [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.5, 100.0]
    if dtype in COMPLEX_DTYPES:
        return [complex(math.nan, 1.0), complex(math.inf, 0.0), complex(0.0, -math.inf), 0j, complex(-0.0, -0.0),
                1 + 1j, -1 - 2j, 0.5j, -0.5, 2 - 3.5j, 100j, -3.5 + 0.25j]
    if dtype == "bool":
        return [True, False, True, False]
    info = torch.iinfo(tdt(dtype))
    return [info.min, info.max, 0, 1, -1 if info.min < 0 else 2, info.max - 1]


def gen_values(shape: tuple, dtype: str, dom: str, g: torch.Generator) -> torch.Tensor:
    """Deterministic values of ``dtype`` from domain ``dom`` (always exactly representable)."""
    n = math.prod(shape)
    tdtype = tdt(dtype)
    if dtype in COMPLEX_DTYPES:  # real and imaginary parts each from the float64 domain
        re, im = gen_values(shape, "float64", dom, g), gen_values(shape, "float64", dom, g)
        return torch.complex(re, im).to(tdtype)
    if dtype == "bool":
        if dom in ("positive", "nonzero", "ge1", "true"):
            return torch.ones(shape, dtype=torch.bool)
        return torch.randint(0, 2, shape, generator=g).to(torch.bool)
    if dtype in INT_DTYPES:
        if dom == "nonzero":
            mag = torch.randint(1, 6, shape, generator=g)
            sign = torch.randint(0, 2, shape, generator=g) * 2 - 1
            v = mag if dtype == "uint8" else mag * sign
        else:
            lo, hi = INT_RANGES.get(dom, INT_RANGES["default"])
            if dtype == "uint8":
                lo = max(lo, 0)
            v = torch.randint(lo, hi, shape, generator=g)
        return v.to(tdtype)
    u = torch.rand(n, generator=g, dtype=torch.float64).reshape(shape)
    if dom == "positive":
        v = u * 3 + 0.1
    elif dom == "unit":
        v = u * 1.8 - 0.9
    elif dom == "ge1":
        v = u * 3 + 1.1
    elif dom == "nonzero":
        sign = torch.randint(0, 2, shape, generator=g) * 2 - 1
        v = (u * 2.5 + 0.5) * sign
    elif dom == "prob":  # (0, 1) open: probabilities (ndtri)
        v = u * 0.98 + 0.01
    elif dom in ("small_nonneg", "shift"):
        v = u * 3
    elif dom == "small":
        v = u * 4 - 2
    else:
        v = torch.randn(n, generator=g, dtype=torch.float64).reshape(shape) * 2
    return v.to(tdtype)


def make_torch(spec: T, g: torch.Generator) -> torch.Tensor:
    """The contiguous base of ``spec`` in PyTorch (before the view is applied)."""
    bshape = base_shape(spec.shape, spec.view)
    if spec.values is not None:
        vals = list(spec.values)
        n = math.prod(bshape)
        vals = (vals * (n // builtins.max(len(vals), 1) + 1))[:n]
        wide = (torch.float64 if spec.dtype in FLOAT_DTYPES
                else torch.complex128 if spec.dtype in COMPLEX_DTYPES else None)
        return torch.tensor(vals, dtype=wide).to(tdt(spec.dtype)).reshape(bshape)
    if spec.dom == "special":
        return make_torch(T(spec.shape, spec.dtype, "default", spec.view,
                            tuple(special_values(spec.dtype))), g)
    return gen_values(bshape, spec.dtype, spec.dom, g)


def torch_to_ember(base: torch.Tensor) -> Any:
    """Copy a contiguous torch tensor into ember value-for-value (tolist is exact for every
    dtype)."""
    if base.numel() == 0:  # tolist() loses trailing dims; a fresh (non-view) empty tensor, torch's strides
        return ember.empty_strided(tuple(base.shape), tuple(base.stride()), dtype=edt(dtype_name(base.dtype)))
    return ember.tensor(base.tolist(), dtype=edt(dtype_name(base.dtype)))


class Materializer:
    """Turns specs into (torch, ember) twins; one seeded generator per test for reproducibility."""

    def __init__(self, seed_text: str):
        self.g = torch.Generator().manual_seed(zlib.crc32(seed_text.encode()))

    def pair(self, obj: Any) -> tuple[Any, Any]:
        if isinstance(obj, T):
            base = make_torch(obj, self.g)
            tb, eb = base.clone(), torch_to_ember(base)
            return apply_view(tb, obj.shape, obj.view), apply_view(eb, obj.shape, obj.view)
        if isinstance(obj, DT):
            return tdt(obj.name), edt(obj.name)
        if isinstance(obj, (tuple, list)):
            pairs = [self.pair(o) for o in obj]
            return type(obj)(p[0] for p in pairs), type(obj)(p[1] for p in pairs)
        if isinstance(obj, dict):
            pairs = {k: self.pair(v) for k, v in obj.items()}
            return {k: p[0] for k, p in pairs.items()}, {k: p[1] for k, p in pairs.items()}
        return obj, obj


# --------------------------------------------------------------------------------------------
# Running and comparing
# --------------------------------------------------------------------------------------------

def twins_on(obj: Any, g: torch.Generator, device: str) -> tuple[Any, Any]:
    """(CPU, ``device``) ember twins of a case's argument: the same values and the same view (the
    device runs of the parity cases: test_cuda_parity.py, test_meta_parity.py)."""
    if isinstance(obj, T):
        base = torch_to_ember(make_torch(obj, g))
        return apply_view(base, obj.shape, obj.view), apply_view(base.to(device), obj.shape, obj.view)
    if isinstance(obj, DT):
        return edt(obj.name), edt(obj.name)
    if isinstance(obj, (tuple, list)):
        pairs = [twins_on(o, g, device) for o in obj]
        return type(obj)(p[0] for p in pairs), type(obj)(p[1] for p in pairs)
    if isinstance(obj, dict):
        pairs = {k: twins_on(v, g, device) for k, v in obj.items()}
        return {k: p[0] for k, p in pairs.items()}, {k: p[1] for k, p in pairs.items()}
    return obj, obj


def run_forked(check: Any) -> None:
    """Run ``check()`` in a forked child; re-raise its assertion here, or fail if it crashed.

    Used for inputs (integer division by zero) that once aborted the interpreter from inside
    ember's C++ (std::terminate): isolating them keeps one crash from killing the session.
    """
    import os
    import pickle
    import signal

    if not hasattr(os, "fork"):
        check()
        return
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: report (ok, message) through the pipe, never return into pytest
        import faulthandler

        faulthandler.disable()  # the crash is reported by the parent, not as a traceback dump
        signal.alarm(60)  # a hang (e.g. a thread pool that did not survive fork) fails too
        os.close(r)
        try:
            check()
            payload = (True, "")
        except BaseException as exc:  # noqa: BLE001
            payload = (False, f"{type(exc).__name__}: {exc}")
        with os.fdopen(w, "wb") as f:
            pickle.dump(payload, f)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        sig = signal.Signals(os.WTERMSIG(status)).name
        if sig == "SIGALRM":
            raise AssertionError("the check hung (no result within 60 s) on this input")
        raise AssertionError(f"ember crashed the process ({sig}) on this input")
    ok, msg = pickle.loads(data) if data else (False, "child produced no report")
    if not ok:
        raise AssertionError(msg)


def run(fn: Any) -> tuple[Any, BaseException | None]:
    """Call ``fn()``; return (result, None) or (None, exception). Warnings are not compared."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(), None
        except Exception as exc:  # noqa: BLE001 - the exception *type* is what we compare
            return None, exc


def builtin_exc_type(exc: BaseException) -> type:
    """torch sometimes raises its own subclasses (e.g. torch._C._LinAlgError < RuntimeError);
    compare the nearest builtin exception class."""
    for cls in type(exc).__mro__:
        if cls.__module__ == "builtins":
            return cls
    return type(exc)


def check_exceptions(t_exc: BaseException | None, e_exc: BaseException | None,
                     what: str = "") -> bool:
    """Assert torch and ember agree on raising; return True if both raised (nothing to compare)."""
    if t_exc is None and e_exc is None:
        return False
    if t_exc is None:
        raise AssertionError(f"{what}torch succeeded but ember raised "
                             f"{type(e_exc).__name__}: {e_exc}") from e_exc
    if e_exc is None:
        raise AssertionError(f"{what}torch raised {type(t_exc).__name__}: {t_exc} "
                             f"but ember succeeded")
    tt, et = builtin_exc_type(t_exc), builtin_exc_type(e_exc)
    assert tt is et, (f"{what}exception type differs: torch {tt.__name__}({t_exc}) vs "
                      f"ember {et.__name__}({e_exc})")
    return True


def ember_to_torch(e: Any) -> torch.Tensor:
    """Read an ember tensor's values back into torch (dtype and shape preserved)."""
    name = dtype_name(e.dtype)
    if e.numel() == 0:  # no values to read; tolist() of a (2**32, 0) tensor is 2**32 lists
        # strides of 0: contiguous ones of a (0, 2**62, 4) shape overflow (torch.empty's error)
        return torch.empty_strided(tuple(e.shape), (0,) * e.dim(), dtype=tdt(name))
    return torch.tensor(e.tolist(), dtype=tdt(name)).reshape(tuple(e.shape))


# Ops where PyTorch computes in the input's precision and ember in double (digamma's float32
# results in PyTorch are off by ~5e-6 relative): their tolerance is scaled by this factor.
LOOSE_OPS = {"digamma": 100.0, "polygamma": 100.0,
             # 16- and 4-term weighted sums whose fusion order (FMA contraction) is aten's compiler's
             # choice: with cancelling edge values the last bits differ (|ember - float64| and
             # |torch - float64| are both within a few ulps of the terms' magnitude)
             "upsample_bicubic2d": 10.0, "upsample_bilinear2d": 10.0, "interpolate": 10.0}
TOL_SCALE = [1.0]  # set per test by the parity tests


def tol_for(dtype: str) -> tuple[float, float]:
    rtol, atol = TOLS.get(dtype, (0.0, 0.0))
    return rtol * TOL_SCALE[0], atol * TOL_SCALE[0]


def assert_tensor_same(e: Any, t: torch.Tensor, what: str = "", meta: bool = False) -> None:
    assert isinstance(e, ember.Tensor), f"{what}expected an ember Tensor, got {type(e).__name__}"
    assert str(e.dtype) == str(t.dtype), f"{what}dtype: torch {t.dtype} vs ember {e.dtype}"
    assert tuple(e.shape) == tuple(t.shape), (f"{what}shape: torch {tuple(t.shape)} vs "
                                              f"ember {tuple(e.shape)}")
    if meta:
        return
    got = ember_to_torch(e)
    rtol, atol = tol_for(dtype_name(t.dtype))
    try:
        torch.testing.assert_close(got, t.detach(), rtol=rtol, atol=atol, equal_nan=True,
                                   check_dtype=True, check_stride=False)
    except AssertionError as err:
        n = t.numel()
        detail = (f"\n torch: {t.detach().flatten()[:24].tolist()}\n ember: "
                  f"{got.flatten()[:24].tolist()}") if n <= 256 else ""
        raise AssertionError(f"{what}values differ: {err}{detail}") from None


def assert_same(e: Any, t: Any, what: str = "", meta: bool = False) -> None:
    """Structural comparison of any op result (tensor, tuple / namedtuple, Python scalar)."""
    if isinstance(t, torch.Tensor):
        assert_tensor_same(e, t, what, meta)
    elif isinstance(t, tuple):
        assert isinstance(e, tuple), f"{what}expected a tuple, got {type(e).__name__}"
        assert len(e) == len(t), f"{what}tuple length: torch {len(t)} vs ember {len(e)}"
        for f in getattr(t, "_fields", ()):
            assert hasattr(e, f), f"{what}result lacks the named field {f!r}"
        for i, (ei, ti) in enumerate(zip(e, t, strict=True)):
            assert_same(ei, ti, f"{what}[{i}] ", meta)
    elif isinstance(t, (bool, int, float)):
        assert type(e) is type(t), (f"{what}type: torch {type(t).__name__} vs ember "
                                    f"{type(e).__name__}")
        if isinstance(t, float) and math.isnan(t):
            assert math.isnan(e), f"{what}torch nan vs ember {e}"
        else:
            assert e == t, f"{what}value: torch {t!r} vs ember {e!r}"
    elif t is None:
        assert e is None, f"{what}torch None vs ember {e!r}"
    else:
        assert e == t, f"{what}torch {t!r} vs ember {e!r}"


def storage_base(x: Any) -> int:
    """Address of the first byte of x's storage (data_ptr is the first element's address)."""
    return x.data_ptr() - x.storage_offset() * x.element_size()


def assert_layout_same(e: Any, t: torch.Tensor, what: str = "") -> None:
    """Strides and storage offset (for view / layout-defining ops)."""
    assert tuple(e.stride()) == tuple(t.stride()), (f"{what}strides: torch {t.stride()} vs "
                                                    f"ember {tuple(e.stride())}")
    assert e.storage_offset() == t.storage_offset(), (
        f"{what}storage_offset: torch {t.storage_offset()} vs ember {e.storage_offset()}")


class _TorchNN:
    """torch._C._nn, then torch.ops.aten (for the ops PyTorch only exposes as aten ops)."""

    def __getattr__(self, name: str) -> Any:
        f = getattr(torch._C._nn, name, None)
        return f if f is not None else getattr(torch.ops.aten, name)


def install_torch_nn() -> None:
    """ember's ``_nn`` ops carry torch._C._nn / aten names; PyTorch has no ``torch._nn`` module,
    so the parity tests install one that looks them up there."""
    if not hasattr(torch, "_nn"):
        torch._nn = _TorchNN()
