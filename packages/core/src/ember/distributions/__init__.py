"""Probability distributions and the tools around them (``torch.distributions`` for ember).

Distributions share the interface of :class:`Distribution` (sampling, scoring with
``log_prob``, moments, entropy); :mod:`~ember.distributions.constraints` describes where
parameters and values live; :mod:`~ember.distributions.transforms` and
:class:`TransformedDistribution` build new distributions by change of variables; ``biject_to`` and
``transform_to`` map unconstrained tensors onto a constraint; :func:`kl_divergence` computes
Kullback-Leibler divergences between pairs of distributions, extensible with
:func:`register_kl`.
"""

from __future__ import annotations

from . import (
    _kl_rules,  # noqa: F401  (importing it registers the closed-form KL divergences)
    constraints,  # noqa: F401
    transforms,  # noqa: F401
)
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import (
    AbsTransform,
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli", "Dirichlet",
           "Distribution", "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma", "GeneralizedPareto",
           "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "InverseGamma", "Kumaraswamy",
           "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal", "LowRankMultivariateNormal", "MixtureSameFamily",
           "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "Pareto", "RelaxedBernoulli", "RelaxedOneHotCategorical", "StudentT",
           "Poisson", "Uniform", "VonMises", "Weibull", "Wishart", "TransformedDistribution", "biject_to",
           "kl_divergence", "register_kl", "transform_to", "AbsTransform", "AffineTransform", "CatTransform",
           "ComposeTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform", "PowerTransform",
           "ReshapeTransform", "SigmoidTransform", "SoftplusTransform", "TanhTransform", "SoftmaxTransform",
           "StackTransform", "StickBreakingTransform", "Transform", "identity_transform"]
