"""torch._standard_gamma, _standard_gamma_grad, _sample_dirichlet and _dirichlet_grad.

The Gamma draws use PyTorch's sampler, Marsaglia and Tsang's rejection method (shape below 1
boosted by ``U ** (1 / alpha)``), run as whole-tensor rounds: every round draws a normal and a
uniform for each element still pending and accepts most of them (over 95% for every shape), so
the Python loop runs over rounds, never over elements. The arithmetic is float64 whatever the
dtype (PyTorch's CPU kernel also accumulates in double). Values follow PyTorch's distribution, not
its exact stream (PyTorch draws element by element).

The reparameterised gradients are PyTorch's approximations of the implicit derivative
``-(d/dalpha cdf(x; alpha)) / pdf(x; alpha)`` (aten/src/ATen/native/Distributions.h), vectorised
with ``where`` over the regimes (Taylor series, saddle point expansions, rational fits), so
``Gamma.rsample`` and ``Dirichlet.rsample`` differentiate as PyTorch's do.
"""

from __future__ import annotations

from typing import Any

import ember
from ember._tensor import Tensor

__all__ = ["_dirichlet_grad", "_sample_dirichlet", "_standard_gamma", "_standard_gamma_grad"]

_F64 = ember.float64


def _marsaglia_tsang(alpha: Tensor, generator: Any) -> Tensor:
    """Gamma(alpha, 1) draws for a flat float64 tensor of shapes ``alpha >= 1``."""
    d = alpha - 1.0 / 3.0
    c = 1.0 / ember.sqrt(9.0 * d)
    out = ember.empty_like(alpha)
    idx = ember.arange(alpha.numel())
    while idx.numel():
        k_d, k_c = d[idx], c[idx]
        x = ember.randn(idx.numel(), dtype=_F64, generator=generator)
        u = 1.0 - ember.rand(idx.numel(), dtype=_F64, generator=generator)
        y = 1.0 + k_c * x
        v = y * y * y
        xx = x * x
        # Both of PyTorch's acceptance tests: the cheap squeeze first, then the log bound (y <= 0 is
        # PyTorch's inner redraw; here it is a rejection, which draws the same distribution).
        log_v = ember.log(ember.where(y > 0, v, ember.ones_like(v)))
        ok = (y > 0) & ((u < 1.0 - 0.0331 * xx * xx) | (ember.log(u) < 0.5 * xx + k_d * (1.0 - v + log_v)))
        out[idx[ok]] = (k_d * v)[ok]
        idx = idx[~ok]
    return out


def _sample(alpha: Tensor, generator: Any = None) -> Tensor:
    """Standard Gamma draws of alpha's shape and dtype (no autograd)."""
    a = alpha.detach().to(_F64).reshape(-1)
    out = ember.zeros_like(a)
    live = a > 0
    nan = ember.isnan(a)
    if bool(live.any()):
        at = live.nonzero().reshape(-1)
        shape = a[at]
        small = shape < 1.0
        # Shapes below 1 sample Gamma(alpha + 1) scaled by U ** (1 / alpha) (PyTorch's boost).
        boost = ember.where(small, ember.pow(1.0 - ember.rand(at.numel(), dtype=_F64, generator=generator),
                                             1.0 / shape), ember.ones_like(shape))
        out[at] = _marsaglia_tsang(ember.where(small, shape + 1.0, shape), generator) * boost
    out = ember.where(nan, a, out)
    out = out.to(alpha.dtype)
    # PyTorch clamps draws that underflow to the smallest normal number, so log(x) stays finite.
    tiny = ember.finfo(alpha.dtype).tiny
    out = ember.where((out < tiny) & live, ember.full_like(out, tiny), out)
    return out.reshape(alpha.shape)


class _StandardGamma(ember.autograd.Function):
    """The sample, differentiable in the shape through the implicit reparameterised gradient."""

    @staticmethod
    def forward(ctx: Any, alpha: Tensor, generator: Any) -> Tensor:
        x = _sample(alpha, generator)
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        alpha, x = ctx.saved_tensors
        return grad * _standard_gamma_grad(alpha, x), None


def _standard_gamma(alpha: Tensor, generator: Any = None) -> Tensor:
    """One draw per element of the standard Gamma distribution Gamma(alpha, rate=1).

    Differentiable in ``alpha`` (``_standard_gamma_grad`` gives the reparameterised gradient).
    Shapes of 0 give 0, NaN gives NaN; positive draws never underflow to 0 (they are clamped to
    the dtype's smallest normal number, as in PyTorch).

    Args:
        alpha (Tensor): the shape (concentration) parameters, a floating dtype.
        generator (ember.Generator, optional): the source of randomness.

    Returns:
        Tensor: the draws, alpha's shape and dtype.
    """
    return _draw(alpha, generator, "gamma_cpu", _StandardGamma, _sample)


def _draw(alpha: Tensor, generator: Any, kernel: str, differentiable: Any, sample: Any) -> Tensor:
    """Check that ``alpha`` is floating (else the error of PyTorch's ``kernel``), then draw with
    ``sample``, or through the autograd function ``differentiable`` when a gradient is wanted."""
    if not alpha.is_floating_point():
        raise RuntimeError(f'"{kernel}" not implemented for \'{_dtype_name(alpha.dtype)}\'')
    if ember.is_grad_enabled() and alpha.requires_grad:
        return differentiable.apply(alpha, generator)
    return sample(alpha, generator)


def _dtype_name(dtype: Any) -> str:
    """PyTorch's kernel-dispatch spelling of a dtype (``Long`` for int64, ...)."""
    names = {ember.int64: "Long", ember.int32: "Int", ember.int16: "Short", ember.int8: "Char",
             ember.uint8: "Byte", ember.bool: "Bool"}
    return names.get(dtype, str(dtype))


def _digamma(x: Tensor) -> Tensor:
    return ember.special.digamma(x)


def _standard_gamma_grad(alpha: Tensor, x: Tensor) -> Tensor:
    """The reparameterised gradient ``dx/dalpha = -(d/dalpha cdf(x; alpha)) / pdf(x; alpha)``.

    For draws ``x`` of the standard Gamma distribution with shapes ``alpha``: a Taylor series for
    ``x < 0.8``, Rice's saddle point expansion for ``alpha > 8`` and a bivariate rational fit
    elsewhere (PyTorch's three regimes, computed in float64).

    Args:
        alpha (Tensor): the shape parameters.
        x (Tensor): the draws, broadcastable with ``alpha``.

    Returns:
        Tensor: the gradients, the broadcast shape, alpha's dtype.
    """
    dtype = alpha.dtype
    a, x = ember.broadcast_tensors(alpha.detach().to(_F64), x.detach().to(_F64))

    # Taylor series of the lower incomplete gamma function for small x.
    numer = ember.ones_like(x)
    denom = a.clone()
    series1 = numer / denom
    series2 = numer / (denom * denom)
    for i in range(1, 6):
        numer = numer * (-x / i)
        denom = denom + 1
        series1 = series1 + numer / denom
        series2 = series2 + numer / (denom * denom)
    pow_x_alpha = ember.pow(x, a)
    gamma_pdf = ember.pow(x, a - 1) * ember.exp(-x)
    gamma_cdf = pow_x_alpha * series1
    gamma_cdf_alpha = (ember.log(x) - _digamma(a)) * gamma_cdf - pow_x_alpha * series2
    small_x = -gamma_cdf_alpha / gamma_pdf
    small_x = ember.where(ember.isnan(small_x), ember.zeros_like(small_x), small_x)

    # Rice saddle point expansion for large alpha (its own form near the mode x = alpha).
    near = ((1 + 24 * a * (1 + 12 * a))
            * (1440 * a * a + 6 * x * (53 - 120 * x) - 65 * x * x / a + a * (107 + 3600 * x))
            / (1244160 * a * a * a * a))
    den = ember.sqrt(8 * a)
    term2 = den / (a - x)
    term3 = ember.pow(x - a - a * ember.log(x / a), -1.5)
    term23 = ember.where(x < a, term2 - term3, term2 + term3)
    term1 = ember.log(x / a) * term23 - ember.sqrt(2 / a) * (a + x) / ((a - x) * (a - x))
    stirling = 1 + 1 / (12 * a) * (1 + 1 / (24 * a))
    far = -stirling * x * term1 / den
    large_a = ember.where((0.9 * a <= x) & (x <= 1.1 * a), near, far)

    # Bivariate rational approximation in u = log(x / alpha), v = log(alpha).
    u = ember.log(x / a)
    v = ember.log(a)
    coef = ((0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
            (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
             -0.00058392623),
            (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
             -1.5247877e-07))
    cv = [coef[0][i] + u * (coef[1][i] + u * coef[2][i]) for i in range(8)]
    p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
    q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
    rational = ember.exp(p / q)

    out = ember.where(x < 0.8, small_x, ember.where(a > 8.0, large_a, rational))
    return out.to(dtype)


class _SampleDirichlet(ember.autograd.Function):
    """Normalised Gamma draws; PyTorch gives _sample_dirichlet no derivative (Dirichlet.rsample has
    its own Function), so backward raises as PyTorch's does."""

    @staticmethod
    def forward(ctx: Any, alpha: Tensor, generator: Any) -> Tensor:
        return _dirichlet_draw(alpha, generator)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        raise RuntimeError("the derivative for '_sample_dirichlet' is not implemented.")


def _dirichlet_draw(alpha: Tensor, generator: Any) -> Tensor:
    gamma = _sample(alpha.to(_F64), generator)
    total = gamma.sum(-1, keepdim=True)
    ret = (gamma / total).to(alpha.dtype)
    # PyTorch keeps every coordinate inside the open simplex (log(x) and log1p(-x) finite).
    tiny = ember.finfo(alpha.dtype).tiny
    below_one = 1.0 - ember.finfo(alpha.dtype).eps / 2
    return ember.clamp(ret, min=tiny, max=below_one)


def _sample_dirichlet(alpha: Tensor, generator: Any = None) -> Tensor:
    """One draw per row of the Dirichlet distribution with concentrations ``alpha`` (last dim).

    Each row is a vector of standard Gamma draws divided by its sum, clamped into the open
    simplex as PyTorch does.

    Args:
        alpha (Tensor): the concentrations, a floating dtype, at least one dimension.
        generator (ember.Generator, optional): the source of randomness.

    Returns:
        Tensor: the draws, alpha's shape and dtype.
    """
    return _draw(alpha, generator, "dirichlet", _SampleDirichlet, _dirichlet_draw)


def _beta_grad_alpha_small(x: Tensor, alpha: Tensor, beta: Tensor) -> Tensor:
    """Taylor expansion of the Beta gradient wrt alpha, for x near 0."""
    factor = _digamma(alpha) - _digamma(alpha + beta) - ember.log(x)
    numer = ember.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * ((i - beta) * x / i)
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    result = x * ember.pow(1 - x, -beta) * series
    return ember.where(ember.isnan(result), ember.zeros_like(result), result)


def _beta_grad_beta_small(x: Tensor, alpha: Tensor, beta: Tensor) -> Tensor:
    """Taylor expansion of the Beta gradient wrt beta, for x near 0."""
    factor = _digamma(alpha + beta) - _digamma(beta)
    numer = ember.ones_like(x)
    betas = ember.ones_like(x)
    dbetas = ember.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    result = -ember.pow(1 - x, 1 - beta) * series
    return ember.where(ember.isnan(result), ember.zeros_like(result), result)


def _beta_grad_alpha_mid(x: Tensor, alpha: Tensor, beta: Tensor) -> Tensor:
    """Rice saddle point expansion of the Beta gradient wrt alpha, for large alpha and beta."""
    total = alpha + beta
    mean = alpha / total
    std = ember.sqrt(alpha * beta / (total + 1)) / total
    b2 = beta * beta
    poly = 47 * x * b2 * b2 + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * b2 * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * b2 + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (8 * (1 - x) * (135 * beta - 11)))))
    prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
    at_mean = prefactor_num / (1 - x) * poly / prefactor_den

    prefactor = -x / ember.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) * (1 + 1 / (12 * beta) + 1 / (288 * b2))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * b2
    axbx = alpha * (x - 1) + beta * x
    term1_den = ember.sqrt(2 * alpha / beta) * ember.pow(total, 1.5) * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * ember.log(alpha / (total * x))
    term3 = ember.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4 = ember.pow(beta * ember.log(beta / (total * (1 - x))) + alpha * ember.log(alpha / (total * x)), -1.5)
    term1234 = term1 + term2 * (term3 + ember.where(x < mean, term4, -term4))
    away = stirling * prefactor * term1234
    return ember.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), at_mean, away)


_DIRICHLET_C = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))),
)


def _dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """The scaled reparameterised gradient ``-(d/dalpha cdf(x; alpha, beta)) / pdf(x; alpha, beta) / (1 - x)``.

    For draws ``x`` of Beta(alpha, total - alpha), the building block of the Dirichlet
    reparameterised gradient: Taylor expansions near 0 and 1, a saddle point expansion when both
    shapes exceed 6, and PyTorch's rational correction of an analytic approximation elsewhere.

    Args:
        x (Tensor): the draws.
        alpha (Tensor): the concentrations, x's shape.
        total (Tensor): the total concentrations ``alpha + beta``, x's shape.

    Returns:
        Tensor: the gradients, x's shape and dtype.
    """
    if x.shape != alpha.shape or x.shape != total.shape:
        raise RuntimeError(f"_dirichlet_grad: expected x, alpha and total to have the same shape, but got "
                           f"{list(x.shape)}, {list(alpha.shape)} and {list(total.shape)}")
    dtype = x.dtype
    x, alpha, total = (t.detach().to(_F64) for t in (x, alpha, total))
    beta = total - alpha
    boundary = total * x * (1 - x)

    u = ember.log(x)
    a = ember.log(alpha) - u
    b = ember.log(total) - a
    pow_u = (1.0, u, u * u)
    pow_a = (1.0, a, a * a)
    p = ember.zeros_like(x)
    q = ember.zeros_like(x)
    c = _DIRICHLET_C
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            p = p + ua * (c[0][i][j][0] + b * (c[0][i][j][1] + b * (c[0][i][j][2] + b * c[0][i][j][3])))
            q = q + ua * (c[1][i][j][0] + b * (c[1][i][j][1] + b * (c[1][i][j][2] + b * c[1][i][j][3])))
    approx = x * (_digamma(total) - _digamma(alpha)) / beta
    out = p / q * approx
    out = ember.where((alpha > 6) & (beta > 6), _beta_grad_alpha_mid(x, alpha, beta), out)
    out = ember.where((x >= 0.5) & (boundary < 0.75), -_beta_grad_beta_small(1 - x, beta, alpha), out)
    out = ember.where((x <= 0.5) & (boundary < 2.5), _beta_grad_alpha_small(x, alpha, beta), out)
    return out.to(dtype)

