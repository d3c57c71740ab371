"""The "core" suite: ember vs torch on per-op overhead, big elementwise ops,
reductions, matmul and import time (issue "ember-core foundation", item 9).

Rows are data.  Statements are strings written against ``lib`` (the library
module being measured) and against names that the setup function returns, so
the very same text runs on torch and on ember.  Add a row by appending a
``Bench`` below; see README.md.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from harness import Bench

Setup = Callable[[ModuleType], dict[str, Any]]

THREADS = (1, 2)  # the CI box has 2 cores; 1 vs 2 shows whether ember parallelises
BIG = 4096  # 4096 x 4096 float32 = 16M elements = 64 MiB, far beyond the caches

TITLES = {
    "overhead": "per-op overhead (time per call; ratio = ember/torch, lower is better)",
    "elementwise": f"elementwise {BIG}x{BIG} float32 (ratio = torch/ember time, higher is better)",
    "reduction": f"reductions of {BIG}x{BIG} float32 (ratio = torch/ember time, higher is better)",
    "matmul": "matmul, square float32 unless named (ratio = torch/ember time, higher is better)",
    "import": "import time, fresh `python -c` (ratio = ember/torch; target is ember's absolute time)",
}


# ------------------------------------------------------------------ setups


def tiny(lib: ModuleType) -> dict[str, Any]:
    """1-element float32 tensors: the op's own work is nil, so we time dispatch."""
    return {"a": lib.randn(1), "b": lib.randn(1)}


def tiny_subclass(plain: bool) -> Setup:
    """1-element tensors beside a live Tensor subclass (no __torch_function__ of its own: the
    default one converts results). plain: the operands are plain tensors (what a subclass's
    existence costs other ops); else ``a`` is a subclass instance (the dispatch itself)."""

    def setup(lib: ModuleType) -> dict[str, Any]:
        class Sub(lib.Tensor):  # collected after the row: ember's bindings go back to the fast path
            pass

        a = lib.randn(1)
        return {"a": a if plain else a.as_subclass(Sub), "b": lib.randn(1), "Sub": Sub}

    return setup


def square(n: int, transposed: bool = False) -> Setup:
    """Two n x n float32 operands; ``transposed`` hands out ``x.t()`` views
    (non-contiguous, column-major strides) so the strided kernel path is timed."""

    def setup(lib: ModuleType) -> dict[str, Any]:
        a, b = lib.randn(n, n), lib.randn(n, n)
        return {"a": a.t(), "b": b.t()} if transposed else {"a": a, "b": b}

    return setup


def pair_of(n: int, dtype: str) -> Setup:
    """Two n x n operands of a named dtype (the half types' matmul)."""

    def setup(lib: ModuleType) -> dict[str, Any]:
        return {"a": lib.randn(n, n).to(getattr(lib, dtype)), "b": lib.randn(n, n).to(getattr(lib, dtype))}

    return setup


def linear_of(m: int, k: int, n: int, dtype: str) -> Setup:
    """An input a (m x k) and a weight b (n x k) of a named dtype."""

    def setup(lib: ModuleType) -> dict[str, Any]:
        return {"a": lib.randn(m, k).to(getattr(lib, dtype)), "b": lib.randn(n, k).to(getattr(lib, dtype))}

    return setup


def square_of(n: int, dtype: str) -> Setup:
    """One n x n operand of a named dtype (the half types' op-math paths)."""

    def setup(lib: ModuleType) -> dict[str, Any]:
        return {"a": lib.randn(n, n).to(getattr(lib, dtype))}

    return setup


def unit_square(n: int, dtype: str = "float32", operands: str = "a") -> Setup:
    """n x n operands (one per letter of ``operands``) uniform in (-1, 1): the domain of erfinv."""

    def setup(lib: ModuleType) -> dict[str, Any]:
        return {k: lib.rand(n, n, dtype=getattr(lib, dtype)) * 2 - 1 for k in operands}

    return setup


def gamma_args(n: int, dtype: str) -> Setup:
    """Shape ``a`` and limit ``x`` of igamma, n x n, both uniform in (0, 50): the power series,
    the continued fraction and (a > 20, x near a) Temme's expansion all get their share."""

    def setup(lib: ModuleType) -> dict[str, Any]:
        dt = getattr(lib, dtype)
        return {"a": (lib.rand(n, n) * 50).to(dt), "b": (lib.rand(n, n) * 50).to(dt)}

    return setup


# -------------------------------------------------------------------- rows


def _overhead() -> list[Bench]:
    rows = [  # (name, stmt, target): ember must spend <= 0.7x torch's time per call
        ("a + b (1 elem)", "a + b", 0.7),
        ("a.sum() (1 elem)", "a.sum()", 0.7),
        ("a + 1", "a + 1", None),  # informative: scalar wrapping
        ("lib.relu(a)", "lib.relu(a)", None),  # aten's relu: a nested clamp_min(a, 0)
        ("a.mean()", "a.mean()", None),  # a nested sum, then div_ by the count
        ("lib.add(a, b)", "lib.add(a, b)", None),  # function vs operator path
        ("a.shape", "a.shape", None),  # attribute access, no dispatch
        ("a.dtype", "a.dtype", None),  # a property getter's __torch_function__ check
        ("a.dim()", "a.dim()", None),  # a hand-written method's __torch_function__ check
        ("len(a)", "len(a)", None),  # a slot's __torch_function__ check
        ("lib.empty(1)", "lib.empty(1)", None),  # factory + allocator
        ("a.view(-1)", "a.view(-1)", None),  # view creation
        ("a[0]", "a[0]", None),  # indexing to a 0-d view
        ("lib.matmul(a, b) (1 elem)", "lib.matmul(a, b)", None),  # an autocast-listed binding, autocast off
        ("a @ b (1 elem)", "a @ b", None),  # the operator path of the same op
    ]
    # Overhead is single-threaded work; one thread row is enough.
    subclass_rows = [  # __torch_function__ (issue 22): last, so the rows above run with no subclass alive
        ("a + b, a: a Tensor subclass instance", "a + b", False),
        ("lib.add(a, b), a: a Tensor subclass instance", "lib.add(a, b)", False),
        ("a + b beside a live Tensor subclass", "a + b", True),
        ("a.shape, a: a Tensor subclass instance", "a.shape", False),  # Tensor.shape.__get__ dispatched
    ]
    return ([Bench("overhead", n, "overhead", s, tiny, threads=1, target=t) for n, s, t in rows]
            + [Bench("overhead", n, "overhead", s, tiny_subclass(p), threads=1) for n, s, p in subclass_rows])


def _elementwise() -> list[Bench]:
    ops = [("add", "a + b"), ("mul", "a * b"), ("exp", "lib.exp(a)"), ("tanh", "lib.tanh(a)")]
    return [
        Bench("elementwise", f"{op}{' .t()' if tr else ''}", "throughput", stmt,
              square(BIG, tr), threads=th, target=0.9)
        for op, stmt in ops
        for tr in (False, True)
        for th in THREADS
    ] + [  # a Python number meeting a half tensor: mul/div keep it in float32 op-math
        Bench("elementwise", f"{dt} {op}", "throughput", stmt, square_of(BIG, dt), threads=th, target=0.9)
        for dt in ("float16", "bfloat16")
        for op, stmt in (("a * 0.1", "a * 0.1"), ("a / 3.3", "a / 3.3"))
        for th in THREADS
    ] + [  # the casts autocast makes around every listed op, and a half relu (vectorised loops)
        Bench("elementwise", name, "throughput", stmt, square_of(BIG, dt), threads=th, target=0.9)
        for name, stmt, dt in (("float32 -> bfloat16", "a.to(lib.bfloat16)", "float32"),
                               ("bfloat16 -> float32", "a.to(lib.float32)", "bfloat16"),
                               ("bfloat16 relu", "lib.relu(a)", "bfloat16"),
                               ("float32 relu", "lib.relu(a)", "float32"))
        for th in THREADS
    ] + [  # erfinv: float32 through a branch-free polynomial (vectorised), like PyTorch's
        Bench("elementwise", "erfinv 1024x1024", "throughput", "lib.erfinv(a)", unit_square(1024), threads=th,
              target=0.9)
        for th in THREADS
    ] + [  # torch.special kernels (double-precision scalar code): informative
        Bench("elementwise", f"special.{name} 1024x1024", "throughput", f"lib.special.{name}(a)", unit_square(1024),
              threads=th)
        for name in ("i0e", "log_ndtr", "bessel_j0")
        for th in THREADS
    ] + [  # Bessel J and Y over (0, 40): their power series and Hankel's expansion in the same blocks
        Bench("elementwise", f"special.{name} 1024x1024 in (0, 40)", "throughput", f"lib.special.{name}(a * 20 + 20)",
              unit_square(1024), threads=1)
        for name in ("bessel_j0", "bessel_y1")
    ] + [  # the regularized incomplete gamma functions (iterative scalar code, PyTorch's regions)
        Bench("elementwise", f"{name} 512x512 {dt}", "throughput", f"lib.{name}(a, b)", gamma_args(512, dt),
              threads=th)
        for name in ("igamma", "igammac")
        for dt in ("float32", "float64")
        for th in THREADS
    ] + [  # unary math on 1M elements in (-1, 1) (cache-resident: the kernel's arithmetic, not page
        # faults): sqrt of |a| vectorises (no errno), sin / cos / tan / erf run vec_math.h's forms, the
        # inverse and hyperbolic functions vec_inverse_trig.h's and vec_hyperbolic.h's (float64 too),
        # float64 erfinv and ndtri (float32's in double) vec_erfinv.h's, float32 erfc and lgamma vec_erfc.h's and
        # vec_lgamma.h's (in double)
        Bench("elementwise", f"{name} 1024x1024{dt}", "throughput", stmt, unit_square(1024, dt.strip() or "float32"),
              threads=1)
        for name, stmt in (("sqrt", "lib.sqrt(a.abs())"), ("rsqrt", "lib.rsqrt(a.abs())"), ("sin", "lib.sin(a)"),
                           ("cos", "lib.cos(a)"), ("tan", "lib.tan(a)"), ("erf", "lib.erf(a)"), ("erfc", "lib.erfc(a)"),
                           ("atan", "lib.atan(a)"),
                           ("asin", "lib.asin(a)"), ("acos", "lib.acos(a)"), ("atanh", "lib.atanh(a)"),
                           ("sinh", "lib.sinh(a)"), ("cosh", "lib.cosh(a)"), ("asinh", "lib.asinh(a)"),
                           ("acosh", "lib.acosh(a.abs() + 1)"), ("sigmoid", "lib.sigmoid(a)"),
                           ("lgamma", "lib.lgamma(a.abs())"), ("erfinv", "lib.erfinv(a)"),
                           ("ndtri", "lib.special.ndtri(a.abs())"))
        for dt in ((" float64",) if name == "erfinv"  # (float32: the row above)
                   else ("", " float64") if name in ("atan", "asin", "acos", "atanh", "sinh", "cosh", "asinh", "acosh",
                                                     "erf", "ndtri") else ("",))
    ] + [
        Bench("elementwise", f"atan2 1024x1024 {dt}", "throughput", "lib.atan2(a, b)", unit_square(1024, dt, "ab"),
              threads=1)
        for dt in ("float32", "float64")
    ] + [  # factories: a contiguous fill, the ranges and eye's diagonal (the backend's fill family)
        Bench("elementwise", name, "throughput", stmt, tiny, threads=th)
        for name, stmt in ((f"full {BIG}x{BIG}", f"lib.full(({BIG}, {BIG}), 1.5)"),
                           (f"arange {BIG * BIG} float32", f"lib.arange({BIG * BIG}, dtype=lib.float32)"),
                           (f"linspace {BIG * BIG}", f"lib.linspace(0, 1, {BIG * BIG})"),
                           (f"eye {BIG}", f"lib.eye({BIG})"))
        for th in THREADS
    ] + [  # scans beside cumsum: cummax/cummin's indices in one C++ pass, logcumsumexp a log-step scan
        Bench("elementwise", f"{name} 1024x1024 dim={d}", "throughput", f"lib.{name}(a, {d})", unit_square(1024),
              threads=th)
        for name in ("cummax", "cummin", "logcumsumexp")
        for d in (0, 1)
        for th in THREADS
    ]


def _reduction() -> list[Bench]:
    ops = [("sum(dim=0)", "a.sum(dim=0)"), ("sum(dim=1)", "a.sum(dim=1)"), ("sum()", "a.sum()")]
    return [
        Bench("reduction", name, "throughput", stmt, square(BIG), threads=th, target=0.9)
        for name, stmt in ops
        for th in THREADS
    ]


def _matmul() -> list[Bench]:
    return [
        Bench("matmul", f"matmul {n}", "throughput", "lib.matmul(a, b)", square(n), threads=th, target=0.9)
        for n in (1024, 2048)
        for th in THREADS
    ] + [  # half GEMM, float32 accumulation, one rounding: bfloat16 on AMX-BF16 / AVX512-BF16 where the CPU
        # has them (PyTorch's on oneDNN's AMX), float16 widened to float32 GEMM; informative
        Bench("matmul", f"{dt} matmul {n}", "throughput", "lib.matmul(a, b)", pair_of(n, dt), threads=th)
        for dt in ("bfloat16", "float16")
        for n in (256, 1024, 2048)
        for th in THREADS
    ] + [  # a linear layer's product: the weight transposed (bf16 kernel packs it from its rows)
        Bench("matmul", "bfloat16 linear 128x784 @ 512x784.t()", "throughput", "lib.nn.functional.linear(a, b)",
              linear_of(128, 784, 512, "bfloat16"), threads=th)
        for th in THREADS
    ]


def _import() -> list[Bench]:
    # "{name}" is replaced by the module's name; target: ember imports in <= 0.15 s.
    return [Bench("import", "import", "import", "import {name}", threads=None, target=0.15)]


BENCHES: list[Bench] = _overhead() + _elementwise() + _reduction() + _matmul() + _import()
