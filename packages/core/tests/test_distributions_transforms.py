"""ember.distributions.transforms, the constraint registries (biject_to / transform_to) and
kl_divergence / register_kl, against torch.distributions."""

from __future__ import annotations

from typing import Any

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import ember.distributions as ed  # noqa: E402
import torch.distributions as td  # noqa: E402


def E(t: Any) -> Any:
    return ember.tensor(t.detach().numpy())


def assert_close(e: Any, t: Any, rtol: float = 1e-6, atol: float = 1e-8) -> None:
    a, b = np.asarray(e.detach().tolist(), dtype=float), np.asarray(t.detach().tolist(), dtype=float)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


TRANSFORMS = {
    "Exp": (lambda T: T.ExpTransform(), (2, 3)),
    "Power": (lambda T: T.PowerTransform(2.5), (2, 3)),
    "Sigmoid": (lambda T: T.SigmoidTransform(), (2, 3)),
    "Softplus": (lambda T: T.SoftplusTransform(), (2, 3)),
    "Tanh": (lambda T: T.TanhTransform(), (2, 3)),
    "Affine": (lambda T: T.AffineTransform(1.5, -2.0), (2, 3)),
    "AffineEvent": (lambda T: T.AffineTransform(0.5, 3.0, event_dim=1), (2, 3)),
    "Softmax": (lambda T: T.SoftmaxTransform(), (2, 3)),
    "StickBreaking": (lambda T: T.StickBreakingTransform(), (2, 3)),
    "LowerCholesky": (lambda T: T.LowerCholeskyTransform(), (2, 3, 3)),
    "PositiveDefinite": (lambda T: T.PositiveDefiniteTransform(), (2, 3, 3)),
    "CorrCholesky": (lambda T: T.CorrCholeskyTransform(), (2, 3)),
    "Compose": (lambda T: T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.ExpTransform()]), (2, 3)),
    "Independent": (lambda T: T.IndependentTransform(T.ExpTransform(), 1), (2, 3)),
    "Reshape": (lambda T: T.ReshapeTransform((2, 3), (6,)), (4, 2, 3)),
    "Cat": (lambda T: T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], dim=0, lengths=[1, 1]), (2, 3)),
    "Stack": (lambda T: T.StackTransform([T.ExpTransform(), T.SigmoidTransform()], dim=0), (2, 3)),
    "Inverse": (lambda T: T.ExpTransform().inv, (2, 3)),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform_matches_torch(name: str) -> None:
    build, shape = TRANSFORMS[name]
    t, e = build(td.transforms), build(ed.transforms)
    torch.manual_seed(0)
    x = torch.randn(shape, dtype=torch.float64)
    if name == "Inverse":
        x = x.exp()
    y = t(x)
    assert_close(e(E(x)), y)
    assert_close(e.inv(E(y)), t.inv(y), rtol=1e-5, atol=1e-7)
    try:
        expect = t.log_abs_det_jacobian(x, y)
    except NotImplementedError:  # (Softmax, LowerCholesky, PositiveDefinite: not bijective)
        with pytest.raises(NotImplementedError):
            e.log_abs_det_jacobian(E(x), E(y))
    else:
        assert_close(e.log_abs_det_jacobian(E(x), E(y)), expect)
    assert tuple(e.forward_shape(shape)) == tuple(t.forward_shape(shape))
    assert tuple(e.inverse_shape(tuple(y.shape))) == tuple(t.inverse_shape(tuple(y.shape)))
    assert e.bijective == t.bijective and e.sign == t.sign if name in ("Exp", "Sigmoid", "Tanh") else True
    assert repr(e) == repr(t)
    assert e.domain.event_dim == t.domain.event_dim and e.codomain.event_dim == t.codomain.event_dim


def test_transform_cache_and_equality() -> None:
    e = ed.transforms.ExpTransform(cache_size=1)
    x = ember.randn(3)
    y = e(x)
    assert e.inv(y) is x  # the cached input comes back
    assert ed.transforms.ExpTransform() == ed.transforms.ExpTransform()
    assert ed.transforms.ExpTransform().inv.inv == ed.transforms.ExpTransform()
    assert e.with_cache(1) is e and e.with_cache(0)._cache_size == 0
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        ed.transforms.ExpTransform(cache_size=2)


CONSTRAINTS = ["real", "positive", "nonnegative", "unit_interval", "simplex", "lower_cholesky", "positive_definite",
               "corr_cholesky", "real_vector", "greater_than", "less_than", "interval", "half_open_interval"]


def _constraint(C: Any, name: str) -> Any:
    if name in ("greater_than", "less_than"):
        return getattr(C, name)(1.5)
    if name in ("interval", "half_open_interval"):
        return getattr(C, name)(-1.0, 2.0)
    return getattr(C, name)


@pytest.mark.parametrize("name", CONSTRAINTS)
def test_biject_to_and_transform_to(name: str) -> None:
    tc, ec = _constraint(td.constraints, name), _constraint(ed.constraints, name)
    torch.manual_seed(0)
    x = torch.randn(2, 6 if name == "positive_definite" else 3, dtype=torch.float64)
    for treg, ereg in ((td.biject_to, ed.biject_to), (td.transform_to, ed.transform_to)):
        try:
            tt = treg(tc)
        except NotImplementedError:
            with pytest.raises(NotImplementedError):
                ereg(ec)
            continue
        et = ereg(ec)
        assert repr(et) == repr(tt)
        xi = x if tt.domain.event_dim < 2 else td.transforms.LowerCholeskyTransform()(torch.randn(2, 3, 3))
        xi = xi.double()
        if name == "corr_cholesky":
            xi = x[..., :3]
        y = tt(xi)
        assert_close(et(E(xi)), y, rtol=1e-5, atol=1e-7)
        assert bool(ec.check(et(E(xi))).all())


def test_constraints_check() -> None:
    C, T = ed.constraints, td.constraints
    v = torch.tensor([-1.0, 0.0, 0.5, 1.0, 2.0])
    for ec, tc in ((C.positive, T.positive), (C.unit_interval, T.unit_interval), (C.boolean, T.boolean),
                   (C.nonnegative_integer, T.nonnegative_integer), (C.integer_interval(0, 1), T.integer_interval(0, 1)),
                   (C.greater_than_eq(0.0), T.greater_than_eq(0.0))):
        assert ec.check(E(v)).tolist() == tc.check(v).tolist()
        assert repr(ec) == repr(tc) and ec.is_discrete == tc.is_discrete
    assert ed.constraints.is_dependent(ed.constraints.dependent)
    assert not ed.constraints.is_dependent(ed.Bernoulli(probs=ember.tensor(0.5)).arg_constraints["logits"])
    assert ed.constraints.is_dependent(ed.Binomial.support)
    m = ember.tensor([[2.0, 0.3], [0.3, 1.0]])
    assert C.positive_definite.check(m).item() and not C.positive_definite.check(-m).item()
    assert C.simplex.check(ember.tensor([0.2, 0.8])).item()
    assert C.independent(C.real, 1).check(ember.zeros(2, 3)).shape == (2,)


def _f(*a: Any) -> Any:
    return a


KL_PAIRS = [
    ("Normal", "Normal", lambda D, T: (D.Normal(T.tensor([0.5, 1.0]), T.tensor([1.0, 2.0])),
                                      D.Normal(T.tensor([0.0, -1.0]), T.tensor([2.0, 0.5])))),
    ("Bernoulli", "Bernoulli", lambda D, T: (D.Bernoulli(probs=T.tensor([0.3, 0.9])),
                                            D.Bernoulli(logits=T.tensor([0.2, -1.0])))),
    ("Categorical", "Categorical", lambda D, T: (D.Categorical(probs=T.tensor([0.2, 0.3, 0.5])),
                                                D.Categorical(logits=T.tensor([0.1, 0.2, -0.4])))),
    ("Beta", "Beta", lambda D, T: (D.Beta(T.tensor(2.0), T.tensor(3.0)), D.Beta(T.tensor(0.5), T.tensor(1.5)))),
    ("Gamma", "Gamma", lambda D, T: (D.Gamma(T.tensor(2.0), T.tensor(3.0)), D.Gamma(T.tensor(0.5), T.tensor(1.5)))),
    ("Dirichlet", "Dirichlet", lambda D, T: (D.Dirichlet(T.tensor([1.0, 2.0, 3.0])),
                                            D.Dirichlet(T.tensor([0.5, 0.5, 4.0])))),
    ("MVN", "MVN", lambda D, T: (D.MultivariateNormal(T.zeros(2), T.tensor([[2.0, 0.3], [0.3, 1.0]])),
                                D.MultivariateNormal(T.ones(2), T.tensor([[1.0, -0.2], [-0.2, 0.5]])))),
    ("LowRankMVN", "MVN", lambda D, T: (D.LowRankMultivariateNormal(T.zeros(2), T.tensor([[1.0], [0.5]]),
                                                                   T.tensor([1.0, 2.0])),
                                       D.MultivariateNormal(T.ones(2), T.tensor([[1.0, -0.2], [-0.2, 0.5]])))),
    ("Exponential", "Gamma", lambda D, T: (D.Exponential(T.tensor(2.0)), D.Gamma(T.tensor(0.5), T.tensor(1.5)))),
    ("Uniform", "Normal", lambda D, T: (D.Uniform(T.tensor(0.0), T.tensor(2.0)), D.Normal(T.tensor(1.0), T.tensor(3.0)))),
    ("Normal", "Gumbel", lambda D, T: (D.Normal(T.tensor(0.5), T.tensor(1.0)), D.Gumbel(T.tensor(0.0), T.tensor(2.0)))),
    ("Poisson", "Poisson", lambda D, T: (D.Poisson(T.tensor([1.0, 3.0])), D.Poisson(T.tensor([2.0, 0.5])))),
    ("Laplace", "Normal", lambda D, T: (D.Laplace(T.tensor(0.5), T.tensor(1.0)), D.Normal(T.tensor(0.0), T.tensor(2.0)))),
    ("Independent", "Independent", lambda D, T: (D.Independent(D.Normal(T.zeros(3), T.ones(3)), 1),
                                                D.Independent(D.Normal(T.ones(3), 2 * T.ones(3)), 1))),
    ("Binomial", "Binomial", lambda D, T: (D.Binomial(5, T.tensor(0.3)), D.Binomial(5, T.tensor(0.6)))),
    ("Geometric", "Geometric", lambda D, T: (D.Geometric(T.tensor(0.3)), D.Geometric(T.tensor(0.6)))),
    ("Beta", "Uniform", lambda D, T: (D.Beta(T.tensor(2.0), T.tensor(3.0)), D.Uniform(T.tensor(-1.0), T.tensor(2.0)))),
    ("Cauchy", "Cauchy", lambda D, T: (D.Cauchy(T.tensor(0.0), T.tensor(1.0)), D.Cauchy(T.tensor(1.0), T.tensor(2.0)))),
    ("Uniform", "Uniform", lambda D, T: (D.Uniform(T.tensor(0.0), T.tensor(1.0)), D.Uniform(T.tensor(0.5), T.tensor(2.0)))),
    ("Pareto", "Exponential", lambda D, T: (D.Pareto(T.tensor(1.0), T.tensor(3.0)), D.Exponential(T.tensor(1.0)))),
    ("ExpFamily", "ExpFamily", lambda D, T: (D.ContinuousBernoulli(probs=T.tensor(0.3)),
                                            D.ContinuousBernoulli(probs=T.tensor(0.8)))),
]


@pytest.mark.parametrize("pair", KL_PAIRS, ids=[f"{p}-{q}" for p, q, _ in KL_PAIRS])
def test_kl_divergence_matches_torch(pair: Any) -> None:
    _, _, build = pair
    tp, tq = build(td, torch)
    ep, eq = build(ed, ember)
    assert_close(ed.kl_divergence(ep, eq), td.kl_divergence(tp, tq), rtol=1e-5, atol=1e-6)


def test_register_kl_dispatch() -> None:
    class MyNormal(ed.Normal):
        pass

    with pytest.raises(NotImplementedError):
        ed.kl_divergence(ed.Beta(ember.tensor(1.0), ember.tensor(2.0)), ed.Poisson(ember.tensor(1.0)))

    @ed.register_kl(MyNormal, ed.Normal)
    def _kl(p: Any, q: Any) -> Any:
        return ember.tensor(42.0)

    try:
        assert ed.kl_divergence(MyNormal(0.0, 1.0), ed.Normal(0.0, 1.0)).item() == 42.0
        # an unrelated subclass still takes the Normal-Normal rule
        assert ed.kl_divergence(ed.Normal(0.0, 1.0), MyNormal(0.0, 1.0)).item() == 0.0
    finally:
        from ember.distributions import kl

        kl._KL_REGISTRY.pop((MyNormal, ed.Normal), None)
        kl._KL_MEMOIZE.clear()


def test_transformed_distribution_and_relaxed() -> None:
    base_t = td.Normal(torch.tensor(0.5, dtype=torch.float64), torch.tensor(1.5, dtype=torch.float64))
    base_e = ed.Normal(ember.tensor(0.5, dtype=ember.float64), ember.tensor(1.5, dtype=ember.float64))
    t = td.TransformedDistribution(base_t, [td.transforms.SigmoidTransform()])
    e = ed.TransformedDistribution(base_e, [ed.transforms.SigmoidTransform()])
    x = torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64)
    assert_close(e.log_prob(E(x)), t.log_prob(x))
    assert_close(e.cdf(E(x)), t.cdf(x))
    assert_close(e.icdf(E(x)), t.icdf(x))
    ember.manual_seed(0)
    s = e.rsample((1000,))
    assert bool(((s > 0) & (s < 1)).all())
