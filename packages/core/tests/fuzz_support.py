"""Shared machinery for the fuzz properties (test_fuzz_ops.py, nn's test_fuzz_functional.py).

Not a test module.  A *call* is plain picklable data -- a target (an ops.yaml op and variant,
or an ``nn.functional`` name), args and kwargs in which tensors are ``TS`` specs and dtypes
``DS`` -- so the same call can be rebuilt in another process: ember runs only in a worker
subprocess (fuzz_worker.py), restarted when it dies or hangs, so a segfault, abort or hang is
one failing example naming the call, not the end of the test run.

Tensors are described as in parity_inputs.py (values from a seeded generator, copied
value-for-value into ember) and laid out as in test_hypothesis.py (permute, ``[::2]``,
expand), plus a storage offset.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from sibling import load  # pytest: conftest registers it; the worker and fuzz_run: tests/ on sys.path

H = load("parity_inputs")
HY = load("test_hypothesis")  # Layout: permute -> [::2] -> expand

import ember  # noqa: E402

H.install_torch_nn()


# --------------------------------------------------------------------------------------------
# Call descriptions
# --------------------------------------------------------------------------------------------

# Negative NaN, subnormals, float16's largest finite value, values that overflow the narrower
# formats, exact-integer limits of float64 and -0.0.
# No finite values near float32's maximum: sums of those overflow or not depending on the
# order of accumulation, which is the kernel's (and the CPU's) choice, not a contract.
EDGE_VALUES = (-math.nan, 1e-45, -5e-324, 1e-300, 65504.0, -65520.0, 1e300, -1e300,
               2.0**53 + 2, -2.0**63, 0.1, -0.0, math.inf, 6e-8)


@dataclass(frozen=True)
class TS:
    """A tensor: logical shape, dtype, value domain, layout (perm, step dims, expand dims, a
    storage offset), the seed of its values and optional explicit values (tiled)."""

    shape: tuple
    dtype: str
    dom: str = "default"
    perm: tuple = ()
    steps: tuple = ()
    expands: tuple = ()
    offset: bool = False
    seed: int = 0
    values: tuple | None = None

    def __repr__(self) -> str:
        lay = []
        if self.perm and self.perm != tuple(range(len(self.perm))):
            lay.append(f"perm={self.perm}")
        if self.steps:
            lay.append(f"step2={self.steps}")
        if self.expands:
            lay.append(f"expand={self.expands}")
        if self.offset:
            lay.append("offset")
        if self.dom != "default":
            lay.append(self.dom)
        if self.values is not None:
            lay.append(f"values={self.values}")
        return f"{self.dtype}{list(self.shape)}" + (f"<{', '.join(lay)}>" if lay else "")

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:  # hypothesis prints this
        p.text(repr(self))

    def layout(self) -> Any:
        return HY.Layout(self.perm or tuple(range(len(self.shape))), self.steps, self.expands)

    def make_torch(self) -> torch.Tensor:
        """The contiguous base, in PyTorch (see ``view``)."""
        shape = list(self.layout().base_shape(self.shape))
        if self.offset and shape:
            shape[0] += 1
        g = torch.Generator().manual_seed(self.seed)
        dom, values = self.dom, self.values
        if dom == "edge":  # parity's specials plus the extremes of every float format
            dom = "special"
            if values is None and self.dtype in H.FLOAT_DTYPES:
                values = EDGE_VALUES
        # A fresh tensor, as parity's Materializer makes: the values path ends in a reshape, a
        # view in PyTorch (detach_ refuses it), while ember's twin is built new.
        return H.make_torch(H.T(tuple(shape), self.dtype, dom, "contig", values), g).clone()

    def view(self, base: Any) -> Any:
        if self.offset and len(self.shape):
            base = base[1:]
        return self.layout().apply(base, self.shape)


@dataclass(frozen=True)
class DS:
    """A dtype argument."""

    name: str

    def __repr__(self) -> str:
        return f"torch.{self.name}"


def from_spec(t: Any, seed: int = 0) -> TS:
    """parity_inputs.T (the parity tests' spec) -> TS with the same layout."""
    n = len(t.shape)
    perm, steps, expands, offset = (), (), (), False
    if t.view == "t":
        perm = (1, 0)
    elif t.view == "slice2":
        steps = (0,)
    elif t.view == "permute":
        perm = (1, 2, 0)
    elif t.view == "expand":
        expands = (0,)
    elif t.view == "offset":
        offset = True
    if perm and len(perm) != n:
        perm = ()
    return TS(tuple(t.shape), t.dtype, t.dom, perm, steps, expands, offset, seed, t.values)


def materialize(obj: Any, lib: Any) -> Any:
    """Build the objects a description stands for in ``lib`` (torch or ember)."""
    if isinstance(obj, TS):
        base = obj.make_torch()
        return obj.view(base if lib is torch else H.torch_to_ember(base))
    if isinstance(obj, DS):
        return getattr(lib, obj.name)
    if isinstance(obj, (tuple, list)):
        return type(obj)(materialize(o, lib) for o in obj)
    if isinstance(obj, dict):
        return {k: materialize(v, lib) for k, v in obj.items()}
    return obj


@dataclass(frozen=True)
class Call:
    """``target``: ("op", key, name, variant) for an ops.yaml op, ("F", name) for
    ``nn.functional.name``.  ``meta``: compare dtype and shape only (random results)."""

    target: tuple
    args: tuple
    kwargs: dict
    meta: bool = False

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))

    def __repr__(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        kind = self.target[0]
        if kind == "F":
            return f"F.{self.target[1]}({', '.join(parts)})"
        _, key, name, variant = self.target
        if variant == "method":
            return f"{parts[0]}.{name}({', '.join(parts[1:])})"
        if variant == "inplace":
            return f"{parts[0]}.{name}_({', '.join(parts[1:])})"
        ns = OP_BY_KEY[key]["namespace"]
        return f"{'torch.' + ns if ns else 'torch'}.{name}({', '.join(parts)})"


def name_of(call: Call) -> str:
    return call.target[1] if call.target[0] == "F" else OP_BY_KEY[call.target[1]]["name"]


# --------------------------------------------------------------------------------------------
# The op catalogue (ops.yaml + ops/*.yaml, as test_parity.py walks it)
# --------------------------------------------------------------------------------------------

P = load("test_parity")
OPS = P.OPS
OP_BY_KEY = {P.op_key(op): op for op in OPS}


def invoke(lib: Any, call: Call, args: tuple, kwargs: dict) -> Any:
    if call.target[0] == "F":
        return getattr(lib.nn.functional, call.target[1])(*args, **kwargs)
    _, key, name, variant = call.target
    return P.invoke(lib, OP_BY_KEY[key], name, variant, args, kwargs)


# --------------------------------------------------------------------------------------------
# Results as plain data (computed in the worker, compared here)
# --------------------------------------------------------------------------------------------

MAX_VALUES = 1 << 20  # larger results are compared on dtype and shape only


@dataclass
class TR:
    """A tensor result: dtype name, shape and (for small ones) the values as a torch tensor."""

    dtype: str
    shape: tuple
    values: torch.Tensor | None


def to_plain(obj: Any) -> Any:
    """A result of either library as picklable plain data (tensors as TR)."""
    if isinstance(obj, torch.Tensor):
        vals = obj.detach().clone() if obj.numel() <= MAX_VALUES else None
        if vals is not None and vals.dtype == torch.complex32:
            # a complex32 tensor pickles but does not unpickle (no storage class of its own; the
            # client's pickle.loads raised AttributeError): its values travel as complex64
            vals = vals.to(torch.complex64)
        return TR(H.dtype_name(obj.dtype), tuple(obj.shape), vals)
    if isinstance(obj, ember.Tensor):
        vals = H.ember_to_torch(obj.detach()) if obj.numel() <= MAX_VALUES else None
        if vals is not None and vals.dtype == torch.complex32:  # ember's complex32 too (seed 3016)
            vals = vals.to(torch.complex64)
        return TR(H.dtype_name(obj.dtype), tuple(obj.shape), vals)
    if isinstance(obj, (torch.dtype, ember.dtype)):
        return DS(H.dtype_name(obj))
    if isinstance(obj, (bool, int, float, complex, str)) or obj is None:
        return obj
    if isinstance(obj, tuple) and hasattr(obj, "_fields") and type(obj) is not tuple:
        return ("namedtuple", tuple(obj._fields), tuple(to_plain(o) for o in obj))
    if isinstance(obj, (tuple, list)):  # torch.Size and ember's size are tuples
        return tuple(to_plain(o) for o in obj)
    return ("object", type(obj).__name__)


def tensors_of(obj: Any) -> list:
    if isinstance(obj, (torch.Tensor, ember.Tensor)):
        return [obj]
    if isinstance(obj, (tuple, list)):
        return [t for o in obj for t in tensors_of(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in tensors_of(o)]
    return []


def tol_for(dtype: str, name: str) -> tuple[float, float]:
    rtol, atol = H.TOLS.get(dtype, (0.0, 0.0))
    scale = H.LOOSE_OPS.get(name, 1.0)
    return rtol * scale, atol * scale


# Ops whose results are GEMM sums of terms far larger than some results: the flash backward
# given a logsumexp that is not its forward's weighs scores by exp(s - lse) up to ~1e10, so a
# gradient element that cancels to ~10 carries the BLAS's summation-order rounding (~1e-6 in
# float64) on either side. Compared element-wise against rtol times the tensor's largest value.
# multi_head_attention_forward likewise: its softmax turns the GEMMs' last-bit rounding of scores
# of size s into weights off by s * eps (scores ~157 in float32: 1e-5, seed 3011), which the
# values and the out-projection carry to outputs of size |out|; ember's and MKL's bmm round
# different elements, so which output is off is luck: up to s * eps of max |out| (factor 16: scores
# to ~250), while a wrong layout or formula is off by O(1) of it.
NORMWISE_OPS = {"_scaled_dot_product_flash_attention_for_cpu_backward": 1.0, "multi_head_attention_forward": 16.0}


def normwise_atol(t: torch.Tensor, rtol: float, atol: float, factor: float = 1.0) -> float:
    finite = t.double().abs()[torch.isfinite(t)] if t.numel() else t.double()
    return max(atol, factor * rtol * float(finite.max())) if finite.numel() else atol


def assert_plain_same(e: Any, t: Any, name: str, meta: bool, what: str = "result") -> None:
    """ember's plain result ``e`` equals torch's ``t`` (dtype, shape, values within the parity
    tolerances, NaN where NaN)."""
    if isinstance(t, TR):
        assert isinstance(e, TR), f"{what}: torch gave a tensor, ember {e!r}"
        assert e.dtype == t.dtype, f"{what} dtype: torch {t.dtype} vs ember {e.dtype}"
        assert e.shape == t.shape, f"{what} shape: torch {t.shape} vs ember {e.shape}"
        # no values to compare (assert_close of a (0, 2**62, 4) pair overflows in torch)
        if meta or e.values is None or t.values is None or t.values.numel() == 0:
            return
        rtol, atol = tol_for(t.dtype, name)
        if name in NORMWISE_OPS and t.values.is_floating_point():
            atol = normwise_atol(t.values, rtol, atol, NORMWISE_OPS[name])
        try:
            torch.testing.assert_close(e.values, t.values, rtol=rtol, atol=atol, equal_nan=True,
                                       check_stride=False)
        except AssertionError as err:
            first = str(err).strip().splitlines()
            detail = (f"\n torch: {t.values.flatten()[:16].tolist()}\n ember: "
                      f"{e.values.flatten()[:16].tolist()}")
            raise AssertionError(f"{what} values differ: {' '.join(first[:3])}{detail}") from None
    elif isinstance(t, tuple):
        assert isinstance(e, tuple) and len(e) == len(t), f"{what}: torch {t!r} vs ember {e!r}"
        for i, (ei, ti) in enumerate(zip(e, t, strict=True)):
            assert_plain_same(ei, ti, name, meta, f"{what}[{i}]")
    elif isinstance(t, float) and isinstance(e, float) and math.isnan(t):
        assert math.isnan(e), f"{what}: torch nan vs ember {e!r}"
    else:
        assert type(e) is type(t), f"{what} type: torch {type(t).__name__} vs ember {e!r}"
        if not meta:
            assert e == t, f"{what}: torch {t!r} vs ember {e!r}"


_NARROW_FLOATS = (torch.float16, torch.bfloat16, torch.float32)


def upcast(obj: Any) -> Any:
    """``obj`` with every float16/bfloat16/float32 torch tensor as a float64 copy (the referee's inputs)."""
    if isinstance(obj, torch.Tensor) and obj.dtype in _NARROW_FLOATS:
        return obj.detach().double()
    if isinstance(obj, (tuple, list)) and not hasattr(obj, "_fields"):
        return type(obj)(upcast(o) for o in obj)
    if isinstance(obj, dict):
        return {k: upcast(v) for k, v in obj.items()}
    return obj


def _rounded_to(obj: Any, dt: torch.dtype) -> Any:
    if isinstance(obj, torch.Tensor) and obj.is_floating_point():
        return obj.detach().to(dt)
    if isinstance(obj, (tuple, list)) and not hasattr(obj, "_fields"):
        return type(obj)(_rounded_to(o, dt) for o in obj)
    return obj


def referee_inputs(args: tuple, kwargs: dict) -> tuple:
    """The float64 referee's (args, kwargs): float tensors upcast; a ``dtype=`` naming a narrower
    float type becomes float64, its float tensors first rounded to it (the op casts its input to
    dtype): prod(x, dtype=float16) is then the exact product of the float16 inputs, rounded once,
    not PyTorch's own float16 steps."""
    dt = kwargs.get("dtype")
    if isinstance(dt, torch.dtype) and dt in _NARROW_FLOATS:
        args = _rounded_to(args, dt)
        kwargs = {k: torch.float64 if k == "dtype" else _rounded_to(v, dt) for k, v in kwargs.items()}
    return upcast(args), upcast(kwargs)


def at_least_as_close(e: Any, t: Any, r: Any, name: str) -> bool:
    """Where ember's result ``e`` and PyTorch's ``t`` differ, ember is at least as close as PyTorch
    to the float64 computation ``r`` rounded to the result's dtype (or within the parity tolerance
    of it): PyTorch's own rounding (its summation order, FMA or not) is not the spec."""
    if isinstance(t, tuple):
        return (isinstance(e, tuple) and isinstance(r, tuple) and len(e) == len(t) == len(r)
                and all(at_least_as_close(a, b, c, name) for a, b, c in zip(e, t, r, strict=True)))
    if not (isinstance(t, TR) and isinstance(e, TR) and isinstance(r, TR)):
        return False
    if t.values is None or e.values is None or r.values is None or r.shape != t.shape:
        return False
    dt = getattr(torch, t.dtype)
    if not dt.is_floating_point:  # an integer argument after the call: left as PyTorch left it
        return e.dtype == t.dtype and torch.equal(e.values, t.values)
    ev, tv = e.values.double(), t.values.double()
    rv = r.values.to(dt).double()  # the float64 answer rounded once to the result's dtype
    rtol, atol = tol_for(t.dtype, name)
    de, dtorch = (ev - rv).abs(), (tv - rv).abs()
    de = torch.where(ev == rv, 0.0, de.nan_to_num(nan=math.inf))
    de = torch.where(ev.isnan() & rv.isnan(), 0.0, de)
    dtorch = torch.where(tv == rv, 0.0, dtorch.nan_to_num(nan=math.inf))
    dtorch = torch.where(tv.isnan() & rv.isnan(), 0.0, dtorch)
    ok = (de <= dtorch) | (de <= atol + rtol * rv.abs().nan_to_num(posinf=0.0))
    return bool(ok.all())
