"""ember.fft's transforms against PyTorch 2.13: values (to float32/float64 tolerance), dtypes,
shapes, every norm, n/s/dim forms, out=, the errors (type and message), gradients (against
torch's for the same grad_output, and gradcheck in float64 through real views), the profiler's
event names, and the lazy import of the FFT library."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")

NORMS = [None, "backward", "ortho", "forward"]
ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
TWO_D = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"]
REAL_IN = {"rfft", "ihfft", "rfftn", "ihfftn", "rfft2", "ihfft2"}


def _array(shape: tuple[int, ...], dtype: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith("int"):
        return rng.integers(-5, 6, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _tensor(L: Any, a: np.ndarray, requires_grad: bool = False) -> Any:
    t = L.from_numpy(a.copy())
    return t.requires_grad_() if requires_grad else t


def _numpy(t: Any) -> np.ndarray:
    t = t.detach().resolve_conj()  # ihfft's result is a lazy conjugate in PyTorch
    return np.asarray(t.numpy())


def _run(L: Any, call: Callable[[Any], Any]) -> Any:
    try:
        return call(L)
    except Exception as e:  # noqa: BLE001 - type and message are compared
        return type(e).__name__, str(e)


def _compare(call: Callable[[Any], Any]) -> None:
    expected, got = _run(torch, call), _run(ember, call)
    if isinstance(expected, tuple) or isinstance(got, tuple):
        assert got == expected
        return
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(expected.shape)
    # aten's layout of the result (transformed dims innermost); strides of size-1 dims are arbitrary
    big = [i for i, n in enumerate(expected.shape) if n > 1]
    assert [got.stride()[i] for i in big] == [expected.stride()[i] for i in big]
    e, g = _numpy(expected), _numpy(got)
    single = e.dtype in (np.float32, np.complex64)
    scale = max(1.0, float(np.abs(e).max())) if e.size else 1.0
    np.testing.assert_allclose(g, e, rtol=0, atol=(3e-5 if single else 1e-11) * scale)


def _input_for(name: str, shape: tuple[int, ...], dtype: str, seed: int = 0) -> np.ndarray:
    return _array(shape, dtype, seed)


# ---- values: every transform, norm, dtype, n/dim ----

def _valid(names: list[str], dtypes: list[str]) -> list[tuple[str, str]]:
    """(transform, dtype) pairs with a value to compare: complex input to a real transform is an
    error case (test_errors)."""
    return [(n, d) for n in names for d in dtypes if not (n in REAL_IN and d.startswith("complex"))]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(("name", "dtype"),
                         _valid(ONE_D, ["float32", "float64", "complex64", "complex128", "int64", "bool"]))
def test_one_d_values(name: str, norm: str | None, dtype: str) -> None:
    a = _input_for(name, (3, 10), dtype)
    for n, dim in [(None, -1), (None, 0), (7, -1), (16, -1), (4, 0), (1, -1)]:
        _compare(lambda L, n=n, dim=dim: getattr(L.fft, name)(_tensor(L, a), n=n, dim=dim, norm=norm))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(("name", "dtype"), _valid(N_D + TWO_D, ["float32", "complex128", "int32"]))
def test_n_d_values(name: str, norm: str | None, dtype: str) -> None:
    a = _input_for(name, (4, 5, 6), dtype)
    two = name.endswith("2")
    forms: list[dict[str, Any]] = [{}, {"s": (3, 8)}, {"s": (-1, 4)}, {"dim": (0, 2)}, {"dim": (2, 0)},
                                   {"s": (6, 2), "dim": (0, -1)}, {"dim": [1]} if not two else {"dim": (1, 0)}]
    if not two:
        forms += [{"s": (2, 3, 4)}, {"dim": 1}, {"s": 5}, {"dim": None}]
    for kw in forms:
        _compare(lambda L, kw=kw: getattr(L.fft, name)(_tensor(L, a), norm=norm, **kw))


@pytest.mark.parametrize("name", ONE_D + N_D)
def test_layouts(name: str) -> None:
    """Transposed, sliced and expanded inputs go to the library as they are (any strides)."""
    dtype = "float64" if name in REAL_IN else "complex64"
    a = _input_for(name, (6, 8), dtype, seed=3)
    _compare(lambda L: getattr(L.fft, name)(_tensor(L, a).t()))
    _compare(lambda L: getattr(L.fft, name)(_tensor(L, a)[1::2, ::3]))
    _compare(lambda L: getattr(L.fft, name)(_tensor(L, a)[:1].expand(4, 8)))
    _compare(lambda L: getattr(L.fft, name)(_tensor(L, a)[2]))


def test_big_and_odd_sizes() -> None:
    for n in (1, 2, 3, 97, 128, 1000, 4096 + 1):
        a = _array((n,), "float32", n)
        _compare(lambda L, a=a: L.fft.rfft(_tensor(L, a)))
        _compare(lambda L, a=a: L.fft.fft(_tensor(L, a)))
        c = _array((n // 2 + 1,), "complex64", n)
        _compare(lambda L, c=c, n=n: L.fft.irfft(_tensor(L, c), n=n))
        _compare(lambda L, c=c, n=n: L.fft.hfft(_tensor(L, c), n=n))


def test_round_trips_and_zero_d() -> None:
    x = ember.randn(5, 12, dtype=ember.float64)
    assert ember.allclose(ember.fft.irfft(ember.fft.rfft(x), n=12), x)
    assert ember.allclose(ember.fft.ifftn(ember.fft.fftn(x)).real, x)
    assert ember.allclose(ember.fft.hfft(ember.fft.ihfft(x), n=12), x)
    assert ember.allclose(ember.fft.irfftn(ember.fft.rfftn(x, norm="ortho"), s=x.shape, norm="ortho"), x)
    _compare(lambda L: L.fft.fftn(L.tensor(2.5 + 1j)))
    _compare(lambda L: L.fft.fftn(L.tensor([[1.0, 2.0]]), dim=()))


# ---- out= ----

OUT_CASES: dict[str, Callable[[Any], Any]] = {
    "rfft-c128": lambda L: L.fft.rfft(L.arange(8.0), out=L.empty(0, dtype=L.complex128)),
    "rfft-c64-from-f64": lambda L: L.fft.rfft(L.arange(8.0, dtype=L.float64), out=L.empty(0, dtype=L.complex64)),
    "fft-resize": lambda L: L.fft.fft(L.arange(6.0), out=L.empty(2, 3, dtype=L.complex64)),
    "irfft-f64": lambda L: L.fft.irfft(L.ones(5, dtype=L.complex64), out=L.empty(0, dtype=L.float64)),
    "ihfft": lambda L: L.fft.ihfft(L.arange(7.0), out=L.empty(0, dtype=L.complex64)),
    "hfftn": lambda L: L.fft.hfftn(L.ones(3, 4, dtype=L.complex64), out=L.empty(0)),
    "ihfftn": lambda L: L.fft.ihfftn(L.ones(3, 4), out=L.empty(0, dtype=L.complex64)),
    "fft2": lambda L: L.fft.fft2(L.ones(3, 4), out=L.empty(0, dtype=L.complex64)),
    "irfft2": lambda L: L.fft.irfft2(L.ones(3, 4, dtype=L.complex128), out=L.empty(0, dtype=L.float64)),
}


@pytest.mark.parametrize("case", list(OUT_CASES))
def test_out(case: str) -> None:
    call = OUT_CASES[case]
    _compare(call)
    out = ember.empty(0, dtype=ember.complex128 if "c128" in case else ember.float64)
    if case == "rfft-c128":
        assert ember.fft.rfft(ember.arange(8.0), out=out) is out


# ---- errors ----

ERRORS: dict[str, Callable[[Any], Any]] = {
    "rfft-complex": lambda L: L.fft.rfft(L.ones(4, dtype=L.complex64)),
    "ihfft-complex": lambda L: L.fft.ihfft(L.ones(4, dtype=L.complex64)),
    "rfftn-complex": lambda L: L.fft.rfftn(L.ones(4, dtype=L.complex128)),
    "ihfftn-complex": lambda L: L.fft.ihfftn(L.ones(2, 4, dtype=L.complex64)),
    "ihfft2-complex": lambda L: L.fft.ihfft2(L.ones(2, 4, dtype=L.complex64)),
    "half": lambda L: L.fft.rfft(L.ones(4, dtype=L.float16)),
    "bfloat16": lambda L: L.fft.fft(L.ones(4, dtype=L.bfloat16)),
    "fftn-half": lambda L: L.fft.fftn(L.ones(4, dtype=L.float16)),
    "ihfftn-bf16": lambda L: L.fft.ihfftn(L.ones(4, dtype=L.bfloat16)),
    "n-0": lambda L: L.fft.fft(L.ones(4), n=0),
    "n-negative": lambda L: L.fft.ifft(L.ones(4), n=-1),
    "irfft-n-0": lambda L: L.fft.irfft(L.ones(4, dtype=L.complex64), n=0),
    "irfft-len-1": lambda L: L.fft.irfft(L.ones(1, dtype=L.complex64)),
    "dim-range": lambda L: L.fft.fft(L.ones(2, 3), dim=2),
    "dim-range-negative": lambda L: L.fft.rfft(L.ones(2, 3), dim=-3),
    "zero-d": lambda L: L.fft.fft(L.tensor(1.0)),
    "zero-d-rfft": lambda L: L.fft.rfft(L.tensor(1.0)),
    "norm-bad": lambda L: L.fft.fft(L.ones(3), norm="bad"),
    "norm-bad-irfft": lambda L: L.fft.irfft(L.ones(3, dtype=L.complex64), norm="x"),
    "norm-int": lambda L: L.fft.fft(L.ones(3), norm=1),
    "n-float": lambda L: L.fft.fft(L.ones(3), n=2.0),
    "n-bool": lambda L: L.fft.fft(L.ones(3), n=True),
    "dim-float": lambda L: L.fft.fft(L.ones(3), dim=1.0),
    "input-list": lambda L: L.fft.fft([1, 2]),
    "input-list-fftn": lambda L: L.fft.fftn([1, 2]),
    "dims-unique": lambda L: L.fft.fftn(L.ones(2, 3), dim=(0, 0)),
    "dims-unique-negative": lambda L: L.fft.fftn(L.ones(2, 3), dim=(1, -1)),
    "s-dim-length": lambda L: L.fft.fftn(L.ones(2, 3), s=(2, 2), dim=(0,)),
    "s-too-long": lambda L: L.fft.fftn(L.ones(2, 3), s=(2, 2, 2)),
    "s-0": lambda L: L.fft.fftn(L.ones(2, 3), s=(0, 2)),
    "s-minus-2": lambda L: L.fft.rfftn(L.ones(2, 3), s=(-2, 3)),
    "s-float": lambda L: L.fft.fftn(L.ones(2, 3), s=(2.0,)),
    "dim-str": lambda L: L.fft.fftn(L.ones(2, 3), dim="a"),
    "fft2-dim-none": lambda L: L.fft.fft2(L.ones(2, 3), dim=None),
    "fft2-1d": lambda L: L.fft.fft2(L.ones(3)),
    "rfftn-no-axes": lambda L: L.fft.rfftn(L.ones(2, 3), dim=()),
    "irfftn-no-axes": lambda L: L.fft.irfftn(L.ones(2, 3), dim=()),
    "hfftn-no-axes": lambda L: L.fft.hfftn(L.ones(2, 3), s=()),
    "ihfftn-no-axes": lambda L: L.fft.ihfftn(L.ones(2, 3), dim=()),
    "rfftn-0d": lambda L: L.fft.rfftn(L.tensor(1.0)),
    "fftn-0d-s": lambda L: L.fft.fftn(L.tensor(1.0), s=(1,)),
    "fftn-empty": lambda L: L.fft.fftn(L.ones(0, 3)),
    "irfftn-len-1": lambda L: L.fft.irfftn(L.ones(2, 1, dtype=L.complex64)),
    "out-real-for-complex": lambda L: L.fft.rfft(L.ones(4), out=L.empty(0)),
    "out-real-fft": lambda L: L.fft.fft(L.ones(4, dtype=L.complex64), out=L.empty(0)),
    "out-complex-irfft": lambda L: L.fft.irfft(L.ones(4, dtype=L.complex64), out=L.empty(0, dtype=L.complex64)),
    "out-ihfft": lambda L: L.fft.ihfft(L.ones(4), out=L.empty(0)),
    "out-rfftn": lambda L: L.fft.rfftn(L.ones(2, 4), out=L.empty(0)),
    "out-fftn": lambda L: L.fft.fftn(L.ones(2, 4), out=L.empty(0)),
    "out-irfftn": lambda L: L.fft.irfftn(L.ones(2, 4, dtype=L.complex64), out=L.empty(0, dtype=L.complex64)),
    "out-hfftn": lambda L: L.fft.hfftn(L.ones(2, 4, dtype=L.complex64), out=L.empty(0, dtype=L.complex64)),
    "out-ihfftn": lambda L: L.fft.ihfftn(L.ones(2, 4), out=L.empty(0)),
    "out-grad": lambda L: L.fft.fft(L.ones(4, dtype=L.complex64, requires_grad=True),
                                    out=L.empty(0, dtype=L.complex64)),
    "order-dims-before-norm": lambda L: L.fft.fftn(L.ones(2, 3), dim=(0, 0), norm="x"),
    "order-n-before-norm": lambda L: L.fft.rfft(L.ones(3), n=0, norm="x"),
    "order-0d-before-norm": lambda L: L.fft.fft(L.tensor(1.0 + 0j), norm="x"),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors(case: str) -> None:
    expected, got = _run(torch, ERRORS[case]), _run(ember, ERRORS[case])
    assert isinstance(expected, tuple), "torch raised nothing: not an error case"
    assert got == expected


def test_empty_batch_is_empty() -> None:
    """torch's MKL build raises for a zero-size batch ("MKL FFT error ... Inconsistent configuration
    parameters"); its pocketfft builds, like ember, return the empty result."""
    assert tuple(ember.fft.fft(ember.zeros(0, 3, dtype=ember.complex64)).shape) == (0, 3)
    assert tuple(ember.fft.rfft(ember.zeros(0, 6)).shape) == (0, 4)
    assert tuple(ember.fft.irfft(ember.zeros(0, 4, dtype=ember.complex64)).shape) == (0, 6)


# ---- gradients ----

def _grad(L: Any, name: str, a: np.ndarray, gseed: int, **kw: Any) -> Any:
    x = _tensor(L, a, requires_grad=True)
    y = getattr(L.fft, name)(x, **kw)
    g = _tensor(L, _array(tuple(y.shape), str(_numpy(y).dtype), gseed))
    (gx,) = L.autograd.grad(y, x, g)
    return y, gx


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ONE_D + N_D + TWO_D)
def test_gradients_match_torch(name: str, norm: str | None) -> None:
    dtypes = ["float64"] if name in REAL_IN else ["float64", "complex128"]
    for dtype in dtypes:
        a = _array((4, 6), dtype, 1)
        kws: list[dict[str, Any]] = [{}]
        if name in ONE_D:
            kws += [{"n": 9}, {"n": 3, "dim": 0}]
        else:
            kws += [{"s": (5, 7)}, {"s": (3, 3)}]
        for kw in kws:
            (ye, ge), (yg, gg) = _grad(torch, name, a, 2, norm=norm, **kw), _grad(ember, name, a, 2, norm=norm, **kw)
            assert str(gg.dtype).split(".")[-1] == str(ge.dtype).split(".")[-1]
            np.testing.assert_allclose(_numpy(gg), _numpy(ge), rtol=1e-10, atol=1e-10)


def test_grad_fn_names() -> None:
    x = ember.ones(4, requires_grad=True)
    c = ember.ones(4, dtype=ember.complex64, requires_grad=True)
    assert type(ember.fft.rfft(x).grad_fn).__name__ == "FftR2CBackward0"
    assert type(ember.fft.fft(c).grad_fn).__name__ == "FftC2CBackward0"
    assert type(ember.fft.irfft(c).grad_fn).__name__ == "FftC2RBackward0"


@pytest.mark.parametrize("name", ONE_D + N_D)
def test_gradcheck(name: str) -> None:
    """Finite differences in float64, complex inputs and outputs seen through their real views."""
    real_in = name in REAL_IN
    a = _array((3, 4) if real_in else (3, 4, 2), "float64", 5)
    x = _tensor(ember, a, requires_grad=True)

    def f(t: Any) -> Any:
        y = getattr(ember.fft, name)(t if real_in else ember.view_as_complex(t), norm="ortho")
        return ember.view_as_real(y.resolve_conj()) if y.dtype.is_complex else y  # ihfft: a conj view

    assert ember.autograd.gradcheck(f, (x,), eps=1e-6, atol=1e-7)
    assert ember.autograd.gradgradcheck(f, (x,), eps=1e-6, atol=1e-6)


# ---- the library hand-over ----

def test_import_ember_does_not_import_ducc0() -> None:
    code = "import sys, ember, ember.fft; assert 'ducc0' not in sys.modules; ember.fft.rfft(ember.ones(4)); " \
           "assert 'ducc0' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_library_is_a_clear_import_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from ember.fft import _backend

    monkeypatch.setattr(_backend, "_lib", None)
    monkeypatch.setitem(sys.modules, "ducc0", None)
    monkeypatch.setitem(sys.modules, "ducc0.fft", None)
    with pytest.raises(ImportError, match="pip install ducc0"):
        ember.fft.fft(ember.ones(4))


def test_threads_follow_ember(monkeypatch: pytest.MonkeyPatch) -> None:
    """ducc0 runs single-threaded on as many slices as ember has threads (small transforms whole)."""
    from ember.fft import _backend

    seen: list[tuple[str, int]] = []
    lib = _backend.library()

    class Spy:
        def __getattr__(self, name: str) -> Any:
            def call(*args: Any, **kwargs: Any) -> Any:
                seen.append((name, kwargs["nthreads"]))
                return getattr(lib, name)(*args, **kwargs)
            return call

    monkeypatch.setattr(_backend, "_lib", Spy())
    old = ember.get_num_threads()
    try:
        big = ember.ones(6, 8192, dtype=ember.complex64)
        ember.set_num_threads(1)
        ember.fft.fft(big)
        assert seen == [("c2c", 1)]
        seen.clear()
        ember.set_num_threads(3)
        ember.fft.fft(ember.ones(8, dtype=ember.complex64))
        assert seen == [("c2c", 1)]
        seen.clear()
        ember.fft.fft(big)
        assert seen == [("c2c", 1)] * 3
        seen.clear()
        ember.fft.rfft2(ember.ones(512, 512))  # every dim transformed: two passes of three slices
        assert seen == [("r2c", 1)] * 3 + [("c2c", 1)] * 3
    finally:
        ember.set_num_threads(old)


# (call, input shape, dtype): each large enough to be split into slices on ember's threads
THREADED: dict[str, tuple[Callable[[Any, Any], Any], tuple[int, ...], str]] = {
    "fft along a batch": (lambda L, x: L.fft.fft(x, dim=1), (6, 8192), "complex64"),
    "fft along dim 0": (lambda L, x: L.fft.fft(x, dim=0, norm="ortho"), (4096, 12), "complex128"),
    "fft2 of every dim": (lambda L, x: L.fft.fft2(x, norm="ortho"), (256, 384), "complex64"),
    "ifftn of every dim": (lambda L, x: L.fft.ifftn(x, norm="forward"), (16, 48, 64), "complex128"),
    "fft2 of a transpose": (lambda L, x: L.fft.fft2(x.transpose(0, 1)), (384, 256), "complex64"),
    "rfft2 of every dim": (lambda L, x: L.fft.rfft2(x), (300, 256), "float32"),
    "rfftn along a batch": (lambda L, x: L.fft.rfftn(x, dim=(1, 2), norm="ortho"), (5, 96, 100), "float64"),
    "fft of a real signal": (lambda L, x: L.fft.fft2(x, norm="forward"), (200, 300), "float64"),
    "irfft2 of every dim": (lambda L, x: L.fft.irfft2(x, s=(256, 510)), (256, 256), "complex64"),
    "irfftn of every dim": (lambda L, x: L.fft.irfftn(x, norm="ortho"), (20, 30, 65), "complex128"),
    "irfft along a batch": (lambda L, x: L.fft.irfft(x, norm="forward"), (64, 1025), "complex128"),
    "hfft2 of every dim": (lambda L, x: L.fft.hfft2(x), (128, 257), "complex64"),
}


@pytest.mark.parametrize("case", list(THREADED))
@pytest.mark.parametrize("threads", [2, 3])
def test_slices_on_threads_match_torch(case: str, threads: int) -> None:
    call, shape, dtype = THREADED[case]
    a = _array(shape, dtype, seed=7)
    old = ember.get_num_threads()
    try:
        ember.set_num_threads(threads)
        _compare(lambda L: call(L, _tensor(L, a)))
        x = ember.from_numpy(a.copy())
        call(ember, x)
        np.testing.assert_array_equal(x.numpy(), a)  # the input is left as it was
    finally:
        ember.set_num_threads(old)


FORK_AFTER_TRANSFORMS = """
import os, sys, ember, ducc0.misc
ember.set_num_threads(2)
x = ember.randn(8, 8192, dtype=ember.complex64)
for _ in range(100):
    ember.fft.fft(x)
    pid = os.fork()
    if pid == 0:
        ember.fft.fft(x)  # the child's transforms run on slice threads of its own
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0
assert ducc0.misc.thread_pool_size() == 1, ducc0.misc.thread_pool_size()
assert os.environ.get("DUCC0_NUM_THREADS", "") == sys.argv[1], os.environ.get("DUCC0_NUM_THREADS")
"""


@pytest.mark.parametrize("variable", [None, "4"])
def test_fork_after_transforms_has_no_ducc0_workers_to_join(variable: str | None) -> None:
    """ducc0's pre-fork handler joins its pool's workers and can miss waking one (a hung fork() after
    an FFT): the pool stays empty whatever DUCC0_NUM_THREADS says, and the variable is left as it was."""
    env = {k: v for k, v in os.environ.items() if k != "DUCC0_NUM_THREADS"}
    if variable is not None:
        env["DUCC0_NUM_THREADS"] = variable
    subprocess.run([sys.executable, "-c", FORK_AFTER_TRANSFORMS, variable or ""], check=True, env=env, timeout=300)


def test_output_is_written_in_place_by_the_library() -> None:
    """No copy on the way out: the transform's result is the tensor ember allocated."""
    x = ember.randn(1 << 12)
    y = ember.fft.rfft(x)
    assert y.is_contiguous() and y.dtype == ember.complex64


def test_profiler_event_names() -> None:
    # ember-profiler is a sibling distribution (the core-only sanitizer session lacks it)
    profile = pytest.importorskip("ember.profiler").profile

    x = ember.randn(16)
    with profile() as prof:
        ember.fft.irfft(ember.fft.rfft(x))
        ember.fft.fft(ember.ones(4, dtype=ember.complex64))
    names = {e.name for e in prof.events()}
    assert {"aten::fft_rfft", "aten::fft_irfft", "aten::fft_fft", "aten::_fft_r2c", "aten::_fft_c2r",
            "aten::_fft_c2c"} <= names


def test_autocast_runs_in_float32() -> None:
    """PyTorch's CPU autocast has the transforms and stft on its fp32 list: bfloat16 in, complex64 out."""
    for L in (torch, ember):
        x = L.randn(16).to(L.bfloat16)
        with L.autocast("cpu", dtype=L.bfloat16):
            assert L.fft.rfft(x).dtype == L.complex64
            assert L.fft.fftn(x).dtype == L.complex64
            assert L.fft.irfft(L.ones(9, dtype=L.complex64)).dtype == L.float32
            s = L.stft(x, 8, window=L.hann_window(8).to(L.bfloat16), return_complex=True)
            assert s.dtype == L.complex64
