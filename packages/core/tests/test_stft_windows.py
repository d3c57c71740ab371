"""ember.signal.windows and ember.stft / ember.istft (and the Tensor methods) against PyTorch
2.13: values, dtypes, shapes, every argument, the errors (type and message) and the gradients."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")

WINDOWS = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]
EXTRA: dict[str, dict[str, Any]] = {"general_cosine": {"a": [0.46, 0.23, 0.31]}}


def _numpy(t: Any) -> np.ndarray:
    t = t.detach().resolve_conj()  # ihfft's result is a lazy conjugate in PyTorch
    return np.asarray(t.numpy())


def _run(L: Any, call: Callable[[Any], Any]) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return call(L)
    except Exception as e:  # noqa: BLE001 - type and message are compared
        return type(e).__name__, str(e)


def _compare(call: Callable[[Any], Any], atol: float | None = None) -> None:
    expected, got = _run(torch, call), _run(ember, call)
    if isinstance(expected, tuple) or isinstance(got, tuple):
        assert got == expected
        return
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.requires_grad == expected.requires_grad
    e, g = _numpy(expected), _numpy(got)
    single = e.dtype in (np.float32, np.complex64)
    scale = max(1.0, float(np.abs(e).max())) if e.size else 1.0
    np.testing.assert_allclose(g, e, rtol=0, atol=atol or (3e-6 if single else 1e-12) * scale)


# ---- windows ----

@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_window_values(name: str, sym: bool, dtype: str) -> None:
    for M in (0, 1, 2, 5, 10, 11):
        _compare(lambda L, M=M: getattr(L.signal.windows, name)(M, sym=sym, dtype=getattr(L, dtype),
                                                                 **EXTRA.get(name, {})))


WINDOW_CASES: dict[str, Callable[[Any], Any]] = {
    "exponential-center": lambda L: L.signal.windows.exponential(7, center=2.0, sym=False),
    "exponential-tau": lambda L: L.signal.windows.exponential(7, tau=0.5),
    "gaussian-std": lambda L: L.signal.windows.gaussian(9, std=2.5),
    "kaiser-beta": lambda L: L.signal.windows.kaiser(9, beta=3.0, sym=False),
    "kaiser-beta-0": lambda L: L.signal.windows.kaiser(6, beta=0.0),
    "general-hamming-alpha": lambda L: L.signal.windows.general_hamming(8, alpha=0.7),
    "general-cosine-tuple": lambda L: L.signal.windows.general_cosine(8, a=(1.0, 0.5)),
    "requires-grad": lambda L: L.signal.windows.hann(6, requires_grad=True),
    "requires-grad-0": lambda L: L.signal.windows.gaussian(0, requires_grad=True),
    "requires-grad-1": lambda L: L.signal.windows.kaiser(1, requires_grad=True),
    "default-dtype": lambda L: L.signal.windows.nuttall(5),
    "negative-M": lambda L: L.signal.windows.hann(-1),
    "int-dtype": lambda L: L.signal.windows.cosine(4, dtype=L.int64),
    "half-dtype": lambda L: L.signal.windows.bartlett(4, dtype=L.float16),
    "tau-0": lambda L: L.signal.windows.exponential(4, tau=0.0),
    "center-sym": lambda L: L.signal.windows.exponential(4, center=1.0),
    "std-negative": lambda L: L.signal.windows.gaussian(4, std=-1.0),
    "beta-negative": lambda L: L.signal.windows.kaiser(4, beta=-1.0),
    "coefficients-empty": lambda L: L.signal.windows.general_cosine(4, a=[]),
    "coefficients-not-iterable": lambda L: L.signal.windows.general_cosine(4, a=3),
    "blackman-half": lambda L: L.signal.windows.blackman(3, dtype=L.float16),
}


@pytest.mark.parametrize("case", list(WINDOW_CASES))
def test_window_cases(case: str) -> None:
    _compare(WINDOW_CASES[case])


def test_window_gradient() -> None:
    """requires_grad windows carry a graph: the gradient of the sum through general_cosine's
    coefficients (leaves of PyTorch's too)."""
    for L in (torch, ember):
        w = L.signal.windows.hann(5, requires_grad=True)
        assert w.grad_fn is not None


# ---- stft / istft ----

def _signal(L: Any, shape: tuple[int, ...], dtype: str = "float32", seed: int = 0, grad: bool = False) -> Any:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    t = L.from_numpy(a.astype(dtype))
    return t.requires_grad_() if grad else t


STFT_CASES: dict[str, Callable[[Any], Any]] = {
    "basic": lambda L: L.stft(_signal(L, (64,)), 16, window=L.hann_window(16), return_complex=True),
    "batch": lambda L: L.stft(_signal(L, (3, 50)), 16, hop_length=5, window=L.hann_window(16), return_complex=True),
    "no-window": lambda L: L.stft(_signal(L, (40,)), 8, return_complex=True),
    "win-length": lambda L: L.stft(_signal(L, (40,), "float64"), 16, win_length=10, window=L.ones(10, dtype=L.float64),
                                   return_complex=True),
    "win-length-no-window": lambda L: L.stft(_signal(L, (40,)), 16, win_length=9, return_complex=True),
    "no-center": lambda L: L.stft(_signal(L, (40,)), 16, center=False, window=L.hann_window(16), return_complex=True),
    "pad-constant": lambda L: L.stft(_signal(L, (20,)), 16, pad_mode="constant", window=L.hann_window(16),
                                     return_complex=True),
    "pad-replicate": lambda L: L.stft(_signal(L, (20,)), 16, pad_mode="replicate", window=L.hann_window(16),
                                      return_complex=True),
    "pad-circular": lambda L: L.stft(_signal(L, (20,)), 16, pad_mode="circular", window=L.hann_window(16),
                                     return_complex=True),
    "normalized": lambda L: L.stft(_signal(L, (40,)), 16, normalized=True, window=L.hann_window(16),
                                   return_complex=True),
    "two-sided": lambda L: L.stft(_signal(L, (40,)), 16, onesided=False, window=L.hann_window(16),
                                  return_complex=True),
    "complex-input": lambda L: L.stft(_signal(L, (40,), "complex64"), 16, window=L.hann_window(16)),
    "complex-window": lambda L: L.stft(_signal(L, (40,)), 16, window=L.hann_window(16).to(L.complex64)),
    "real-output": lambda L: L.stft(_signal(L, (40,)), 16, window=L.hann_window(16), return_complex=False),
    "float64-window": lambda L: L.stft(_signal(L, (40,)), 16, window=L.hann_window(16, dtype=L.float64),
                                       return_complex=True),
    "align": lambda L: L.stft(_signal(L, (40,)), 16, win_length=8, window=L.arange(1.0, 9.0), center=False,
                              return_complex=True, align_to_window=True),
    "method": lambda L: _signal(L, (40,)).stft(16, window=L.hann_window(16), return_complex=True),
    # errors
    "no-return-complex": lambda L: L.stft(_signal(L, (40,)), 16, window=L.hann_window(16)),
    "int-input": lambda L: L.stft(L.arange(40), 16, window=L.hann_window(16), return_complex=True),
    "3d": lambda L: L.stft(_signal(L, (2, 2, 10)), 4, window=L.ones(4), return_complex=True),
    "n-fft-too-big": lambda L: L.stft(_signal(L, (40,)), 100, window=L.ones(100), center=False, return_complex=True),
    "n-fft-0": lambda L: L.stft(_signal(L, (40,)), 0, center=False, return_complex=True),
    "reflect-too-short": lambda L: L.stft(_signal(L, (5,)), 16, window=L.hann_window(16), return_complex=True),
    "hop-0": lambda L: L.stft(_signal(L, (40,)), 16, hop_length=0, window=L.hann_window(16), return_complex=True),
    "win-length-big": lambda L: L.stft(_signal(L, (40,)), 16, win_length=20, return_complex=True),
    "window-size": lambda L: L.stft(_signal(L, (40,)), 16, window=L.ones(10), return_complex=True),
    "complex-onesided": lambda L: L.stft(_signal(L, (40,), "complex64"), 16, window=L.hann_window(16),
                                         onesided=True, return_complex=True),
    "align-with-center": lambda L: L.stft(_signal(L, (40,)), 16, window=L.hann_window(16), return_complex=True,
                                          align_to_window=True),
    "pad-mode-bad": lambda L: L.stft(_signal(L, (40,)), 16, window=L.hann_window(16), pad_mode="foo",
                                     return_complex=True),
}


@pytest.mark.parametrize("case", list(STFT_CASES))
def test_stft(case: str) -> None:
    _compare(STFT_CASES[case], atol=2e-5)


def _spec(L: Any, **kw: Any) -> Any:
    x = _signal(L, kw.pop("shape", (40,)), kw.pop("dtype", "float32"))
    win = kw.pop("window", L.hann_window(16))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return L.stft(x, 16, window=win, return_complex=True, **kw)


ISTFT_CASES: dict[str, Callable[[Any], Any]] = {
    "basic": lambda L: L.istft(_spec(L), 16, window=L.hann_window(16)),
    "batch": lambda L: L.istft(_spec(L, shape=(2, 40)), 16, window=L.hann_window(16)),
    "length-long": lambda L: L.istft(_spec(L), 16, window=L.hann_window(16), length=60),
    "length-short": lambda L: L.istft(_spec(L), 16, window=L.hann_window(16), length=30),
    "no-window": lambda L: L.istft(_spec(L, window=None), 16),
    "normalized": lambda L: L.istft(_spec(L, normalized=True), 16, window=L.hann_window(16), normalized=True),
    "two-sided": lambda L: L.istft(_spec(L, onesided=False), 16, window=L.hann_window(16)),
    "complex": lambda L: L.istft(_spec(L, dtype="complex64"), 16, window=L.hann_window(16), return_complex=True),
    "win-length": lambda L: L.istft(_spec(L, win_length=12, window=L.hann_window(12), hop_length=3), 16,
                                    hop_length=3, win_length=12, window=L.hann_window(12)),
    "no-center": lambda L: L.istft(_spec(L, center=False, hop_length=2), 16, hop_length=2, window=L.hann_window(16),
                                   center=False, length=36),
    "method": lambda L: _spec(L).istft(16, window=L.hann_window(16)),
    # errors
    "real-input": lambda L: L.istft(L.view_as_real(_spec(L)), 16, window=L.hann_window(16)),
    "empty": lambda L: L.istft(_spec(L)[:, :0], 16, window=L.hann_window(16)),
    "1d": lambda L: L.istft(_spec(L)[0], 16, window=L.hann_window(16)),
    "onesided-mismatch": lambda L: L.istft(_spec(L), 16, window=L.hann_window(16), onesided=False),
    "n-fft-mismatch": lambda L: L.istft(_spec(L), 18, window=L.hann_window(18)),
    "hop-too-big": lambda L: L.istft(_spec(L), 16, hop_length=20, window=L.hann_window(16)),
    "win-length-big": lambda L: L.istft(_spec(L), 16, win_length=20),
    "window-shape": lambda L: L.istft(_spec(L), 16, window=L.ones(10)),
    "onesided-complex": lambda L: L.istft(_spec(L), 16, window=L.hann_window(16), return_complex=True),
    "nola": lambda L: L.istft(_spec(L), 16, window=L.zeros(16)),
    "complex-window": lambda L: L.istft(_spec(L), 16, window=L.hann_window(16).to(L.complex64)),
}


@pytest.mark.parametrize("case", list(ISTFT_CASES))
def test_istft(case: str) -> None:
    _compare(ISTFT_CASES[case], atol=2e-5)


def test_stft_istft_gradients() -> None:
    def run(L: Any) -> tuple[Any, Any]:
        x = _signal(L, (2, 48), "float64", grad=True)
        w = L.hann_window(16, dtype=L.float64).requires_grad_()
        s = L.stft(x, 16, hop_length=4, window=w, return_complex=True)
        g = _signal(L, tuple(s.shape), "complex128", seed=9)
        y = L.istft(s * g, 16, hop_length=4, window=w, length=48)
        gx, gw = L.autograd.grad(y.sum(), (x, w))
        return gx, gw

    (ex, ew), (gx, gw) = run(torch), run(ember)
    np.testing.assert_allclose(_numpy(gx), _numpy(ex), atol=1e-10)
    np.testing.assert_allclose(_numpy(gw), _numpy(ew), atol=1e-9)


def test_warnings_once() -> None:
    from ember import _stft

    _stft._warned.clear()
    x = ember.randn(40)
    with pytest.warns(UserWarning, match="A window was not provided"):
        ember.stft(x, 8, return_complex=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.stft(x, 8, return_complex=True)


def test_istft_complex_window() -> None:
    _compare(lambda L: L.istft(_spec(L, dtype="complex64", window=L.hann_window(16).to(L.complex64)), 16,
                               window=L.hann_window(16).to(L.complex64), return_complex=True), atol=2e-5)
