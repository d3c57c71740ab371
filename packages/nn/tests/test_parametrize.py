"""ember.nn.utils.parametrize / parametrizations / weight_norm / spectral_norm / stateless vs torch."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import ember
import ember.nn as nn
import numpy as np
import pytest
from ember.nn.utils import parametrizations as PZ
from ember.nn.utils import parametrize as P


def _t2e(t: Any) -> Any:
    return ember.from_numpy(t.detach().numpy().copy())


def _load(em: Any, tm: Any) -> None:
    em.load_state_dict({k: _t2e(v) for k, v in tm.state_dict().items()})


def _close(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


def _sym(lib: Any) -> Any:
    class Symmetric(lib.nn.Module):
        def forward(self, x: Any) -> Any:
            return x.triu() + x.triu(1).mT

        def right_inverse(self, a: Any) -> Any:
            return a.triu()

    return Symmetric()


class _Split:
    """right_inverse returning two tensors: original0 / original1."""

    @staticmethod
    def make(lib: Any) -> Any:
        class Split(lib.nn.Module):
            def forward(self, a: Any, b: Any) -> Any:
                return a + b

            def right_inverse(self, w: Any) -> Any:
                return w / 2, w / 2

        return Split()


def test_register_state_dict_keys_and_values_match_torch(torch: Any) -> None:
    tm, em = torch.nn.Linear(4, 4), nn.Linear(4, 4)
    torch.nn.utils.parametrize.register_parametrization(tm, "weight", _sym(torch))
    P.register_parametrization(em, "weight", _sym(ember))
    assert type(em).__name__ == type(tm).__name__ == "ParametrizedLinear"
    assert list(em.state_dict()) == list(tm.state_dict())
    _load(em, tm)
    _close(em.weight, tm.weight)
    assert P.is_parametrized(em) and P.is_parametrized(em, "weight") and not P.is_parametrized(em, "bias")
    assert P.type_before_parametrizations(em) is nn.Linear
    # assignment goes through right_inverse
    val = np.arange(16, dtype=np.float32).reshape(4, 4)
    tm.weight = torch.tensor(val)
    em.weight = ember.tensor(val.tolist())
    _close(em.parametrizations.weight.original, tm.parametrizations.weight.original)
    _close(em.weight, tm.weight)


def test_gradients_flow_to_original(torch: Any) -> None:
    tm, em = torch.nn.Linear(3, 3), nn.Linear(3, 3)
    torch.nn.utils.parametrize.register_parametrization(tm, "weight", _sym(torch))
    P.register_parametrization(em, "weight", _sym(ember))
    _load(em, tm)
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    tm(torch.tensor(x)).pow(2).sum().backward()
    em(ember.tensor(x.tolist())).pow(2).sum().backward()
    _close(em.parametrizations.weight.original.grad, tm.parametrizations.weight.original.grad)
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]


def test_sequence_right_inverse_original0_original1(torch: Any) -> None:
    tm, em = torch.nn.Linear(3, 2), nn.Linear(3, 2)
    torch.nn.utils.parametrize.register_parametrization(tm, "weight", _Split.make(torch))
    P.register_parametrization(em, "weight", _Split.make(ember))
    assert list(em.state_dict()) == list(tm.state_dict())
    assert "parametrizations.weight.original1" in em.state_dict()
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        P.remove_parametrizations(em, "weight", leave_parametrized=False)
    P.remove_parametrizations(em, "weight")
    assert type(em) is nn.Linear and isinstance(em.weight, nn.Parameter)


def test_chain_unsafe_and_errors(torch: Any) -> None:
    em = nn.Linear(3, 3)
    P.register_parametrization(em, "weight", _sym(ember))
    P.register_parametrization(em, "weight", _sym(ember))
    assert len(em.parametrizations.weight) == 2

    class Shrink(nn.Module):
        def forward(self, x: Any) -> Any:
            return x[:2]

    with pytest.raises(ValueError, match="may not change the shape"):
        P.register_parametrization(nn.Linear(3, 3), "weight", Shrink())
    m = P.register_parametrization(nn.Linear(3, 3), "weight", Shrink(), unsafe=True)
    assert m.weight.shape == (2, 3)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
        P.register_parametrization(nn.Linear(3, 3), "nope", Shrink())
    with pytest.raises(ValueError, match="does not have a parametrization on bias"):
        P.remove_parametrizations(em, "bias")


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations(torch: Any, leave: bool) -> None:
    tm, em = torch.nn.Linear(3, 3), nn.Linear(3, 3)
    torch.nn.utils.parametrize.register_parametrization(tm, "weight", _sym(torch))
    P.register_parametrization(em, "weight", _sym(ember))
    _load(em, tm)
    w_obj = em.parametrizations.weight.original
    torch.nn.utils.parametrize.remove_parametrizations(tm, "weight", leave_parametrized=leave)
    P.remove_parametrizations(em, "weight", leave_parametrized=leave)
    assert type(em) is nn.Linear and not hasattr(em, "parametrizations")
    assert em.weight is w_obj  # the same Parameter object survives
    _close(em.weight, tm.weight)
    assert list(em.state_dict()) == list(tm.state_dict())


def test_cached_computes_once() -> None:
    calls = []

    class Count(nn.Module):
        def forward(self, x: Any) -> Any:
            calls.append(1)
            return x * 2

    m = P.register_parametrization(nn.Linear(2, 2), "weight", Count())
    calls.clear()
    with P.cached():
        a, b = m.weight, m.weight
        assert a is b
    assert len(calls) == 1
    _ = m.weight
    assert len(calls) == 2


def test_weight_norm_matches_torch(torch: Any) -> None:
    for dim in (0, 1, None):
        tm, em = torch.nn.Linear(5, 3), nn.Linear(5, 3)
        _load(em, tm)
        torch.nn.utils.parametrizations.weight_norm(tm, dim=dim)
        PZ.weight_norm(em, dim=dim)
        assert list(em.state_dict()) == list(tm.state_dict())
        for k, v in tm.state_dict().items():
            _close(em.state_dict()[k], v)
        x = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)
        tm(torch.tensor(x)).sum().backward()
        em(ember.tensor(x.tolist())).sum().backward()
        for pe, pt in zip(em.parameters(), tm.parameters(), strict=True):
            _close(pe.grad, pt.grad, rtol=1e-4, atol=1e-5)


def test_weight_norm_loads_old_g_v_keys(torch: Any) -> None:
    tm = torch.nn.Linear(4, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.nn.utils.weight_norm(tm)
    em = PZ.weight_norm(nn.Linear(4, 2))
    em.load_state_dict({k: _t2e(v) for k, v in tm.state_dict().items()})
    _close(em.weight, tm.weight)


def test_spectral_norm_parametrization_matches_torch(torch: Any) -> None:
    tm, em = torch.nn.Linear(6, 4), nn.Linear(6, 4)
    _load(em, tm)
    torch.nn.utils.parametrizations.spectral_norm(tm)
    PZ.spectral_norm(em)
    assert list(em.state_dict()) == list(tm.state_dict())
    _load(em, tm)  # same u, v
    x = np.random.default_rng(2).standard_normal((3, 6)).astype(np.float32)
    for _ in range(3):  # training mode: one power iteration per access
        yt, ye = tm(torch.tensor(x)), em(ember.tensor(x.tolist()))
        _close(ye, yt, rtol=1e-4, atol=1e-5)
    yt.sum().backward()
    ye.sum().backward()
    _close(em.parametrizations.weight.original.grad, tm.parametrizations.weight.original.grad, rtol=1e-4, atol=1e-5)
    tm.eval()
    em.eval()
    _close(em.weight, tm.weight, rtol=1e-4, atol=1e-6)
    s = np.linalg.svd(em.weight.detach().numpy(), compute_uv=False)
    assert abs(s[0] - 1) < 1e-3


@pytest.mark.parametrize("omap", [None, "matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_orthogonal_matches_torch(torch: Any, omap: str | None, shape: tuple[int, int]) -> None:
    tm, em = torch.nn.Linear(shape[1], shape[0]).double(), nn.Linear(shape[1], shape[0]).double()
    _load(em, tm)
    torch.nn.utils.parametrizations.orthogonal(tm, orthogonal_map=omap)
    PZ.orthogonal(em, orthogonal_map=omap)
    assert list(em.state_dict()) == list(tm.state_dict())
    _load(em, tm)  # same base (torch completes rectangular ones randomly)
    rng = np.random.default_rng(3)
    delta = rng.standard_normal(shape) * 0.1
    np.fill_diagonal(delta, 0.0)  # householder reads only the signs of the diagonal
    with torch.no_grad():
        tm.parametrizations.weight.original.add_(torch.tensor(delta))
    with ember.no_grad():
        em.parametrizations.weight.original.add_(ember.tensor(delta.tolist(), dtype=ember.float64))
    _close(em.weight, tm.weight, rtol=1e-9, atol=1e-10)
    w = em.weight.detach().numpy()
    small = min(shape)
    gram = w.T @ w if shape[0] >= shape[1] else w @ w.T
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-10)
    x = rng.standard_normal((2, shape[1]))
    tm(torch.tensor(x)).pow(2).sum().backward()
    em(ember.tensor(x.tolist(), dtype=ember.float64)).pow(2).sum().backward()
    _close(em.parametrizations.weight.original.grad, tm.parametrizations.weight.original.grad, rtol=1e-7,
           atol=1e-9)


def test_old_weight_norm_hooks(torch: Any) -> None:
    tm, em = torch.nn.Linear(5, 3), nn.Linear(5, 3)
    _load(em, tm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.nn.utils.weight_norm(tm)
    with pytest.warns(FutureWarning, match="deprecated"):
        nn.utils.weight_norm(em)
    assert list(em.state_dict()) == list(tm.state_dict()) == ["bias", "weight_g", "weight_v"]
    for k, v in tm.state_dict().items():
        _close(em.state_dict()[k], v)
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"), pytest.warns(FutureWarning):
        nn.utils.weight_norm(em)
    x = np.random.default_rng(4).standard_normal((2, 5)).astype(np.float32)
    tm(torch.tensor(x)).sum().backward()
    em(ember.tensor(x.tolist())).sum().backward()
    _close(em.weight_g.grad, tm.weight_g.grad, rtol=1e-4)
    _close(em.weight_v.grad, tm.weight_v.grad, rtol=1e-4)
    torch.nn.utils.remove_weight_norm(tm)
    nn.utils.remove_weight_norm(em)
    assert list(em.state_dict()) == ["bias", "weight"]
    _close(em.weight, tm.weight)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        nn.utils.remove_weight_norm(em)


def test_old_spectral_norm_hooks(torch: Any) -> None:
    tm, em = torch.nn.Linear(6, 4), nn.Linear(6, 4)
    _load(em, tm)
    torch.nn.utils.spectral_norm(tm)
    nn.utils.spectral_norm(em)
    assert list(em.state_dict()) == list(tm.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    _load(em, tm)
    x = np.random.default_rng(5).standard_normal((3, 6)).astype(np.float32)
    for _ in range(3):
        yt, ye = tm(torch.tensor(x)), em(ember.tensor(x.tolist()))
        _close(ye, yt, rtol=1e-4, atol=1e-5)
    _close(em.weight_u, tm.weight_u, rtol=1e-4, atol=1e-6)
    yt.sum().backward()
    ye.sum().backward()
    _close(em.weight_orig.grad, tm.weight_orig.grad, rtol=1e-4, atol=1e-5)
    torch.nn.utils.remove_spectral_norm(tm)
    nn.utils.remove_spectral_norm(em)
    assert list(em.state_dict()) == list(tm.state_dict())
    _close(em.weight, tm.weight, rtol=1e-4, atol=1e-6)


def test_functional_call(torch: Any) -> None:
    tm, em = torch.nn.Linear(3, 2), nn.Linear(3, 2)
    _load(em, tm)
    w = np.ones((2, 3), dtype=np.float32)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    yt = torch.func.functional_call(tm, {"weight": torch.tensor(w)}, (torch.tensor(x),))
    with pytest.warns(FutureWarning):
        ye = nn.utils.stateless.functional_call(em, {"weight": ember.tensor(w.tolist())}, (ember.tensor(x.tolist()),))
    _close(ye, yt)
    _close(em.weight, tm.weight)  # restored
    assert isinstance(em.weight, nn.Parameter)
    with pytest.raises(RuntimeError, match="Unexpected key"):
        nn.utils.stateless._functional_call(em, {"nope": ember.ones(1)}, ember.ones(1, 3), strict=True)
    # gradients flow to the given tensors
    wt = ember.tensor(w.tolist(), requires_grad=True)
    nn.utils.stateless._functional_call(em, {"weight": wt}, ember.tensor(x.tolist())).sum().backward()
    np.testing.assert_allclose(wt.grad.numpy(), np.tile(x.sum(0), (2, 1)))


def test_functional_call_tied_weights() -> None:
    lin = nn.Linear(2, 2, bias=False)
    seq = nn.Sequential(lin, lin)
    w = ember.eye(2) * 2
    y = nn.utils.stateless._functional_call(seq, {"0.weight": w}, ember.ones(1, 2))
    np.testing.assert_allclose(y.detach().numpy(), [[4.0, 4.0]])
    with pytest.raises(ValueError, match="which are tied"):
        nn.utils.stateless._functional_call(seq, {"0.weight": w, "1.weight": w + 1}, ember.ones(1, 2))


def test_deepcopy_parametrized() -> None:
    m = P.register_parametrization(nn.Linear(2, 2), "weight", _sym(ember))
    m2 = copy.deepcopy(m)
    np.testing.assert_allclose(m2.weight.detach().numpy(), m.weight.detach().numpy())
    assert m2.parametrizations.weight.original is not m.parametrizations.weight.original


@pytest.mark.parametrize("shape", [(4, 4), (3, 6), (6, 3), (2, 3, 4)])
def test_init_orthogonal_matches_torch(torch: Any, shape: tuple[int, ...]) -> None:
    ember.manual_seed(0)
    torch.manual_seed(0)
    e = nn.init.orthogonal_(ember.empty(*shape), gain=2.0)
    t = torch.nn.init.orthogonal_(torch.empty(*shape), gain=2.0)
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-5, atol=1e-6)
    flat = e.numpy().reshape(shape[0], -1) / 2
    gram = flat @ flat.T if flat.shape[0] <= flat.shape[1] else flat.T @ flat
    np.testing.assert_allclose(gram, np.eye(min(flat.shape)), atol=1e-5)
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions"):
        nn.init.orthogonal_(ember.empty(3))
