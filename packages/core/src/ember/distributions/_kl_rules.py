"""Closed-form KL divergences ``KL(p || q)`` between common families, registered with
:func:`~ember.distributions.kl.register_kl`. Each formula is ``E_p[log p - log q]`` worked out
for the pair (``-H(p) - E_p[log q]`` where a cross term is simpler)."""

from __future__ import annotations

import math
from typing import Any

import ember

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _softplus, _sum_rightmost, euler_constant

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _inf_like(x: Any) -> Any:
    return ember.full_like(x, math.inf)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Any:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Any:
    return _kl_normal_normal(p.base_dist, q.base_dist)


def _kl_binary(p_probs: Any, p_logits: Any, q_logits: Any) -> Any:
    """KL between two Bernoullis given p's probability and both log-odds."""
    t1 = p_probs * (_softplus(-q_logits) - _softplus(-p_logits))
    t1 = ember.where(p_probs == 0, ember.zeros_like(t1), t1)
    t2 = (1 - p_probs) * (_softplus(q_logits) - _softplus(p_logits))
    t2 = ember.where(p_probs == 1, ember.zeros_like(t2), t2)
    return t1 + t2


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Any:
    return _kl_binary(p.probs, p.logits, q.logits)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Any:
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * _kl_binary(p.probs, p.logits, q.logits)
    return ember.where(p.total_count > q.total_count, _inf_like(kl), kl)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Any:
    t = p.probs * (p.logits - q.logits)
    t = ember.where((q.probs == 0).expand_as(t), _inf_like(t), t)
    t = ember.where((p.probs == 0).expand_as(t), ember.zeros_like(t), t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p: OneHotCategorical, q: OneHotCategorical) -> Any:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Any:
    return -p.entropy() - ember.log1p(-q.probs) / p.probs - q.logits


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Any:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Any:
    a1, b1, a2, b2 = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    lbeta_p = ember.lgamma(a1) + ember.lgamma(b1) - ember.lgamma(a1 + b1)
    lbeta_q = ember.lgamma(a2) + ember.lgamma(b2) - ember.lgamma(a2 + b2)
    return (lbeta_q - lbeta_p + (a1 - a2) * ember.digamma(a1) + (b1 - b2) * ember.digamma(b1)
            + (a2 - a1 + b2 - b1) * ember.digamma(a1 + b1))


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Any:
    a1, r1, a2, r2 = p.concentration, p.rate, q.concentration, q.rate
    return ((a1 - a2) * ember.digamma(a1) - ember.lgamma(a1) + ember.lgamma(a2) + a2 * (r1.log() - r2.log())
            + a1 * (r2 - r1) / r1)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Any:
    a, b = p.concentration, q.concentration
    sum_a, sum_b = a.sum(-1), b.sum(-1)
    t1 = ember.lgamma(sum_a) - ember.lgamma(sum_b)
    t2 = (ember.lgamma(a) - ember.lgamma(b)).sum(-1)
    t3 = ((a - b) * (ember.digamma(a) - ember.digamma(sum_a).unsqueeze(-1))).sum(-1)
    return t1 - t2 + t3


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Any:
    ratio = q.rate / p.rate
    return ratio - 1 - ratio.log()


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p: Exponential, q: Gamma) -> Any:
    lam, a, b = p.rate, q.concentration, q.rate
    e_log_x = -euler_constant - lam.log()
    cross = a * b.log() - ember.lgamma(a) + (a - 1) * e_log_x - b / lam
    return -(1 - lam.log()) - cross


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Any:
    ratio = p.scale / q.scale
    dist = (p.loc - q.loc).abs()
    return -ratio.log() + dist / q.scale + ratio * ember.exp(-dist / p.scale) - 1


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p: Laplace, q: Normal) -> Any:
    second = 2 * p.scale.pow(2) + (p.loc - q.loc).pow(2)
    return -1 - ember.log(2 * p.scale) + q.scale.log() + _HALF_LOG_2PI + second / (2 * q.scale.pow(2))


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p: Uniform, q: Normal) -> Any:
    width = p.high - p.low
    second = ((p.high - q.loc).pow(3) - (p.low - q.loc).pow(3)) / (3 * width)
    return -width.log() + q.scale.log() + _HALF_LOG_2PI + second / (2 * q.scale.pow(2))


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Any:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return ember.where((q.low > p.low) | (q.high < p.high), _inf_like(result), result)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p: Beta, q: Uniform) -> Any:
    result = -p.entropy() + (q.high - q.low).log()
    return ember.where((q.low > 0) | (q.high < 1), _inf_like(result), result)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p: Normal, q: Gumbel) -> Any:
    shift = (p.loc - q.loc) / q.scale
    e_exp = ember.exp(-shift + p.scale.pow(2) / (2 * q.scale.pow(2)))
    neg_entropy = -(0.5 + _HALF_LOG_2PI + p.scale.log())
    return neg_entropy + q.scale.log() + shift + e_exp


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Any:
    num = (p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)
    return (num / (4 * p.scale * q.scale)).log()


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p: Pareto, q: Exponential) -> Any:
    mean = p.alpha * p.scale / (p.alpha - 1)
    result = -p.entropy() - q.rate.log() + q.rate * mean
    return ember.where(p.alpha <= 1, _inf_like(result), result)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_contbern_contbern(p: ContinuousBernoulli, q: ContinuousBernoulli) -> Any:
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + ember.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - ember.log1p(-q.probs)
    return t1 + t2 + t3


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: ExponentialFamily, q: ExponentialFamily) -> Any:
    """The Bregman divergence of the log-normaliser between the natural parameters."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot be "
                                  "computed using Bregman divergences")
    p_params = [t.detach().requires_grad_() for t in p._natural_params]
    q_params = q._natural_params
    with ember.enable_grad():
        lognorm = p._log_normalizer(*p_params)
        grads = ember.autograd.grad(lognorm.sum(), p_params, create_graph=True)
    result = q._log_normalizer(*q_params) - lognorm
    for pp, qp, g in zip(p_params, q_params, grads):
        result = result - _sum_rightmost((qp - pp) * g, len(q.event_shape))
    return result


def _gaussian_kl(p: Any, q: Any) -> Any:
    """KL between two Gaussians from their means and Cholesky factors."""
    if tuple(p.event_shape) != tuple(q.event_shape):
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be "
                         "computed")
    lp = p.scale_tril if isinstance(p, LowRankMultivariateNormal) else p._unbroadcasted_scale_tril
    lq = q.scale_tril if isinstance(q, LowRankMultivariateNormal) else q._unbroadcasted_scale_tril
    half_logdet = (lq.diagonal(dim1=-2, dim2=-1).log().sum(-1) - lp.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    batch = ember.broadcast_shapes(lp.shape[:-2], lq.shape[:-2])
    n = p.event_shape[0]
    lq_b = lq.expand(tuple(batch) + (n, n))
    trace = ember.linalg.solve_triangular(lq_b, lp.expand(tuple(batch) + (n, n)), upper=False).pow(2).sum((-2, -1))
    maha = _batch_mahalanobis(lq, q.loc - p.loc)
    return half_logdet + 0.5 * (trace + maha - n)


for _p in (MultivariateNormal, LowRankMultivariateNormal):
    for _q in (MultivariateNormal, LowRankMultivariateNormal):
        register_kl(_p, _q)(_gaussian_kl)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Any:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Any:
    if p.transforms != q.transforms:
        raise NotImplementedError
    if tuple(p.event_shape) != tuple(q.event_shape):
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist),
                          len(p.event_shape) - len(p.base_dist.event_shape))
