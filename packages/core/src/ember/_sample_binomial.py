"""torch.binomial: one draw per element of Binomial(count, prob).

Whole-number counts are drawn by NumPy's binomial sampler (C, BTPE / inversion), seeded from
the ember generator, so ``manual_seed`` and ``generator=`` make draws reproducible; it is as
fast as PyTorch's per-element loop (measured in the benchmark's binomial row). Without NumPy, or
for fractional counts, PyTorch's own two samplers run as whole-tensor rounds: inversion of
geometric waiting times when ``count * min(p, 1 - p) < 10``, else Hörmann's BTRS rejection
sampler; every round draws uniforms for the elements still pending and settles most of them.
Either way the values follow PyTorch's distribution, not its exact stream (PyTorch draws
element by element)."""

from __future__ import annotations

import math
from typing import Any

import ember
from ember._argcheck import check_names
from ember._composite_pointwise import _pretty
from ember._tensor import Tensor

__all__ = ["binomial"]

_F64 = ember.float64


def _uniform(n: int, generator: Any) -> Tensor:
    return ember.rand(n, dtype=_F64, generator=generator)


def _stirling_tail(k: Tensor) -> Tensor:
    """log(k!) minus its Stirling approximation at k + 1 (exact below 10, the series above)."""
    kp1 = k + 1
    series = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / (kp1 * kp1)) / (kp1 * kp1)) / kp1
    small = ember.lgamma(kp1) - ((k + 0.5) * ember.log(kp1) - kp1 + 0.5 * math.log(2 * math.pi))
    return ember.where(k < 10, small, series)


def _inversion(n: Tensor, p: Tensor, generator: Any) -> Tensor:
    """The number of geometric(p) waiting times that fit in n trials (for small n * p)."""
    out = ember.zeros_like(n)
    total = ember.zeros_like(n)
    logq = ember.log1p(-p)
    idx = ember.arange(n.numel())
    while idx.numel():
        u = _uniform(idx.numel(), generator)
        total[idx] += ember.ceil(ember.log(u) / logq[idx])
        done = total[idx] > n[idx]
        out[idx[~done]] += 1
        idx = idx[~done]
    return out


def _btrs(n: Tensor, p: Tensor, generator: Any) -> Tensor:
    """Hörmann's BTRS sampler (p <= 0.5, n * p >= 10), rounds over the elements not yet accepted."""
    spq = ember.sqrt(n * p * (1 - p))
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    v_r = 0.92 - 4.2 / b
    r = p / (1 - p)
    alpha = (2.83 + 5.1 / b) * spq
    m = ember.floor((n + 1) * p)
    const = ((m + 0.5) * ember.log((m + 1) / (r * (n - m + 1))) + _stirling_tail(m) + _stirling_tail(n - m))
    out = ember.zeros_like(n)
    idx = ember.arange(n.numel())
    while idx.numel():
        k_n, k_a, k_b, k_c, k_r = n[idx], a[idx], b[idx], c[idx], r[idx]
        u = _uniform(idx.numel(), generator) - 0.5
        v = _uniform(idx.numel(), generator)
        us = 0.5 - u.abs()
        k = ember.floor((2 * k_a / us + k_b) * u + k_c)
        inside = (k >= 0) & (k <= k_n)
        quick = inside & (us >= 0.07) & (v <= v_r[idx])
        lv = ember.log(v * alpha[idx] / (k_a / (us * us) + k_b))
        bound = (const[idx] + (k_n + 1) * ember.log((k_n - m[idx] + 1) / (k_n - k + 1))
                 + (k + 0.5) * ember.log(k_r * (k_n - k + 1) / (k + 1)) - _stirling_tail(k) - _stirling_tail(k_n - k))
        ok = quick | (inside & (lv <= bound))
        out[idx[ok]] = k[ok]
        idx = idx[~ok]
    return out


def _rounds(n: Tensor, p: Tensor, generator: Any) -> Tensor:
    """Draws for live elements (0 < p < 1, finite n > 0) with PyTorch's samplers, as tensor rounds."""
    q = ember.minimum(p, 1 - p)
    out = ember.zeros_like(n)
    small = n * q < 10
    for mask, sampler in ((small, _inversion), (~small, _btrs)):
        if bool(mask.any()):
            at = mask.nonzero().reshape(-1)
            drawn = sampler(n[at], q[at], generator)
            out[at] = ember.where(p[at] > 0.5, n[at] - drawn, drawn)
    return out


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def _with_numpy(np: Any, n: Any, p: Any, generator: Any) -> Any:
    """The draws as a float64 array, masks and whole counts in NumPy (fractional counts by _rounds)."""
    out = np.where(p >= 1, n, 0.0)
    with np.errstate(invalid="ignore"):
        live = (n > 0) & (p > 0) & (p < 1) & np.isfinite(n)
        whole = live & (n == np.floor(n)) & (n < 2.0**62)
        undefined = np.isnan(p) | np.isnan(n) | (np.isinf(n) & (p > 0) & (p < 1))  # (PyTorch loops forever)
    if whole.any():
        seed = ember.randint(0, 2**62, (2,), generator=generator).tolist()  # advances the ember generator
        out[whole] = np.random.default_rng(seed).binomial(n[whole].astype(np.int64), p[whole])
    frac = live & ~whole
    if frac.any():
        out[frac] = _rounds(ember.from_numpy(n[frac]), ember.from_numpy(p[frac]), generator).numpy()
    out[undefined] = np.nan
    return out


def binomial(count: Tensor, prob: Tensor, generator: Any = None) -> Tensor:
    """binomial(count, prob, generator=None) -> Tensor

    One sample per element of the binomial distribution with ``count`` trials of success
    probability ``prob`` (broadcast together): the number of successes. ``count <= 0`` or
    ``prob <= 0`` give 0, ``prob >= 1`` gives ``count``, a NaN ``prob`` gives NaN (as does a NaN or
    infinite ``count``, where PyTorch never returns).

    Args:
        count (Tensor): the numbers of trials, float32 or float64.
        prob (Tensor): the success probabilities, count's dtype.
        generator (ember.Generator, optional): the source of randomness.

    Returns:
        Tensor: the counts of successes, count's dtype, the broadcast shape.

    Example::

        >>> ember.binomial(ember.tensor([0., 5., 7.]), ember.tensor([0.5, 1.0, 0.0]))
        tensor([0., 5., 0.])
    """
    if generator is not None and not isinstance(generator, ember.Generator):
        raise TypeError(f"binomial(): argument 'generator' (position 3) must be torch.Generator, not "
                        f"{type(generator).__name__}")
    if not count.is_floating_point():
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: {_pretty(count.dtype)}")
    if count.dtype in (ember.float16, ember.bfloat16):
        raise NotImplementedError(f"\"binomial_cpu\" not implemented for '{_pretty(count.dtype)}'")
    if prob.dtype != count.dtype:
        raise RuntimeError(f"Found dtype {_pretty(prob.dtype)} but expected {_pretty(count.dtype)}")
    shape = ember.broadcast_shapes(count.shape, prob.shape)
    with ember.no_grad():
        n = count.detach().to(_F64).expand(shape).contiguous()
        p = prob.detach().to(_F64).expand(shape).contiguous()
        np = _numpy()
        if np is not None:  # a device's counts are drawn on the host (the numpy sampler) and moved back
            drawn = ember.from_numpy(_with_numpy(np, n.cpu().numpy(), p.cpu().numpy(), generator))
            return drawn.to(count.device).to(count.dtype)
        out = ember.where(p >= 1, n, ember.zeros_like(n))
        live = (n > 0) & (p > 0) & (p < 1) & n.isfinite()
        if bool(live.any()):
            out[live] = _rounds(n[live], p[live], generator)
        undefined = p.isnan() | n.isnan() | (n.isinf() & (p > 0) & (p < 1))
        return ember.where(undefined, ember.full_like(out, float("nan")), out).to(count.dtype)


# PyTorch's parser TypeErrors for Tensor / bool arguments (this module loads lazily, after
# ember/__init__.py wrapped its own names).
check_names(globals(), __all__)
