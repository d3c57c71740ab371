"""The windows of torch.signal.windows, with its arguments, checks and arithmetic (each is a
linspace in the result's dtype through a pointwise formula, so values agree to the last bit and
``requires_grad`` windows carry a graph as PyTorch's do)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import ember
from ember import Tensor

_COMMON = """
    Args:
        M (int): the length of the window (its number of points).

    Keyword args:{extra}
        sym (bool, optional): ``True`` (default) for a symmetric window (filter design), ``False``
            for a periodic one (spectral analysis).
        dtype (:class:`ember.dtype`, optional): float32 or float64; default: the default dtype.
        layout (:class:`ember.layout`, optional): only ``ember.strided``.
        device (:class:`ember.device`, optional): the device of the result.
        requires_grad (bool, optional): whether autograd records operations on the result.
"""


def _doc(summary: str, extra: str = "", example: str = "") -> Any:
    def attach(fn: Any) -> Any:
        fn.__doc__ = summary + "\n" + _COMMON.format(extra=extra) + (f"\n    Example::\n\n        {example}\n"
                                                                     if example else "")
        return fn

    return attach


def _checks(name: str, M: int, dtype: Any, layout: Any) -> Any:
    """_window_function_checks: the dtype (default filled in), the length, the layout."""
    dtype = ember.get_default_dtype() if dtype is None else dtype
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not ember.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (ember.float32, ember.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _fill(M: int, dtype: Any, device: Any, requires_grad: bool) -> Tensor:
    t = ember.empty((0,), dtype=dtype, device=device) if M == 0 else ember.ones((1,), dtype=dtype, device=device)
    return t.requires_grad_() if requires_grad else t


@_doc("The exponential (Poisson) window ``w_n = exp(-|n - c| / tau)``, ``c`` its center.",
      "\n        center (float, optional): the window's center; default ``M / 2`` (periodic) or "
      "``(M - 1) / 2``.\n        tau (float, optional): the decay. Default: 1.0.",
      ">>> ember.signal.windows.exponential(4)\n        tensor([0.2231, 0.6065, 0.6065, 0.2231])")
def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True, dtype: Any = None,
                layout: Any = ember.strided, device: Any = None, requires_grad: bool = False) -> Tensor:
    dtype = _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _fill(0, dtype, device, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / tau
    k = ember.linspace(-center * constant, (-center + (M - 1)) * constant, M, dtype=dtype, device=device,
                       requires_grad=requires_grad)
    return ember.exp(-ember.abs(k))


@_doc("The cosine (sine) window ``w_n = sin(pi (n + 0.5) / M)``.",
      example=">>> ember.signal.windows.cosine(4)\n        tensor([0.3827, 0.9239, 0.9239, 0.3827])")
def cosine(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = ember.strided, device: Any = None,
           requires_grad: bool = False) -> Tensor:
    dtype = _checks("cosine", M, dtype, layout)
    if M == 0:
        return _fill(0, dtype, device, requires_grad)
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    k = ember.linspace(0.5 * constant, (0.5 + (M - 1)) * constant, M, dtype=dtype, device=device,
                       requires_grad=requires_grad)
    return ember.sin(k)


@_doc("The Gaussian window ``w_n = exp(-(n - (M - 1) / 2)^2 / (2 std^2))``.",
      "\n        std (float, optional): the standard deviation. Default: 1.0.",
      ">>> ember.signal.windows.gaussian(4)\n        tensor([0.3247, 0.8825, 0.8825, 0.3247])")
def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype: Any = None, layout: Any = ember.strided,
             device: Any = None, requires_grad: bool = False) -> Tensor:
    dtype = _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _fill(0, dtype, device, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * math.sqrt(2))
    k = ember.linspace(start * constant, (start + (M - 1)) * constant, M, dtype=dtype, device=device,
                       requires_grad=requires_grad)
    return ember.exp(-(k ** 2))


@_doc("The Kaiser window ``w_n = I0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / I0(beta)``.",
      "\n        beta (float, optional): the shape parameter (non-negative). Default: 12.0.",
      ">>> ember.signal.windows.kaiser(4)\n        tensor([5.2773e-05, 5.1884e-01, 5.1884e-01, 5.2773e-05])")
def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype: Any = None, layout: Any = ember.strided,
           device: Any = None, requires_grad: bool = False) -> Tensor:
    dtype = _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M <= 1:
        return _fill(M, dtype, device, requires_grad)
    b = ember.tensor(beta, dtype=dtype, device=device)  # in the dtype, as PyTorch (no NaN at the ends)
    start = -b
    constant = 2.0 * b / (M if not sym else M - 1)
    end = ember.minimum(b, start + (M - 1) * constant)
    k = ember.linspace(float(start), float(end), M, dtype=dtype, device=device, requires_grad=requires_grad)
    return ember.i0(ember.sqrt(b * b - ember.pow(k, 2))) / ember.i0(b)


@_doc("The Hamming window ``w_n = 0.54 - 0.46 cos(2 pi n / (M - 1))``.",
      example=">>> ember.signal.windows.hamming(4)\n        tensor([0.0800, 0.7700, 0.7700, 0.0800])")
def hamming(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = ember.strided, device: Any = None,
            requires_grad: bool = False) -> Tensor:
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


@_doc("The Hann window ``w_n = 0.5 - 0.5 cos(2 pi n / (M - 1))``.",
      example=">>> ember.signal.windows.hann(4)\n        tensor([0.0000, 0.7500, 0.7500, 0.0000])")
def hann(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = ember.strided, device: Any = None,
         requires_grad: bool = False) -> Tensor:
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


@_doc("The Blackman window ``w_n = 0.42 - 0.5 cos(2 pi n / (M - 1)) + 0.08 cos(4 pi n / (M - 1))``.",
      example=">>> ember.signal.windows.blackman(4)\n        tensor([-1.4901e-08,  6.3000e-01,  6.3000e-01, "
      "-1.4901e-08])")
def blackman(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = ember.strided, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    dtype = _checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


@_doc("The Bartlett (triangular) window ``w_n = 1 - |2n / (M - 1) - 1|``.",
      example=">>> ember.signal.windows.bartlett(5)\n        tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])")
def bartlett(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = ember.strided, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    dtype = _checks("bartlett", M, dtype, layout)
    if M <= 1:
        return _fill(M, dtype, device, requires_grad)
    constant = 2 / (M if not sym else M - 1)
    k = ember.linspace(-1, -1 + (M - 1) * constant, M, dtype=dtype, device=device, requires_grad=requires_grad)
    return 1 - ember.abs(k)


@_doc("The general cosine window ``w_n = sum_i (-1)^i a_i cos(2 pi i n / (M - 1))``.",
      "\n        a (Iterable): the coefficients ``a_i``.",
      ">>> ember.signal.windows.general_cosine(4, a=[0.5, 0.5])\n        tensor([0.0000, 0.7500, 0.7500, 0.0000])")
def general_cosine(M: int, *, a: Iterable, sym: bool = True, dtype: Any = None, layout: Any = ember.strided,
                   device: Any = None, requires_grad: bool = False) -> Tensor:
    dtype = _checks("general_cosine", M, dtype, layout)
    if M <= 1:
        return _fill(M, dtype, device, requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / (M if not sym else M - 1)
    k = ember.linspace(0, (M - 1) * constant, M, dtype=dtype, device=device, requires_grad=requires_grad)
    a_i = ember.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype, device=device,
                       requires_grad=requires_grad)
    i = ember.arange(a_i.shape[0], dtype=dtype, device=device)
    if requires_grad:
        i.requires_grad_()
    return (a_i.unsqueeze(-1) * ember.cos(i.unsqueeze(-1) * k)).sum(0)


@_doc("The generalized Hamming window ``w_n = alpha - (1 - alpha) cos(2 pi n / (M - 1))``.",
      "\n        alpha (float, optional): the window coefficient. Default: 0.54.",
      ">>> ember.signal.windows.general_hamming(4, alpha=0.8)\n        tensor([0.6000, 0.9000, 0.9000, 0.6000])")
def general_hamming(M: int, *, alpha: float = 0.54, sym: bool = True, dtype: Any = None, layout: Any = ember.strided,
                    device: Any = None, requires_grad: bool = False) -> Tensor:
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


@_doc("The minimum 4-term Blackman-Harris window of Nuttall.",
      example=">>> ember.signal.windows.nuttall(4)\n        tensor([3.6280e-04, 5.2923e-01, 5.2923e-01, 3.6280e-04])")
def nuttall(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = ember.strided, device: Any = None,
            requires_grad: bool = False) -> Tensor:
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)
