"""ASGD, Rprop, Adafactor, SparseAdam and Muon against torch.optim: same initial parameters and
gradients -> same trajectories, state dicts, resumed runs and argument errors."""

from __future__ import annotations

import copy
import inspect
from typing import Any

import ember
import ember.nn as nn
import ember.optim as optim
import numpy as np
import pytest
from _nn_testutil import close, same_error
from ember.optim.sparse_adam import _sparse_adam_update

RNG = np.random.default_rng(1234)
# a vector, a matrix and a 3-d tensor (Adafactor factors the last two dims of the latter two)
INIT = [np.array([1.0, -2.0, 0.5], dtype="float32"), np.array([[0.3, -0.7], [1.5, 0.01]], dtype="float32"),
        RNG.standard_normal((2, 3, 4)).astype("float32")]
COEF = [np.array([1.0, 0.5, -3.0], dtype="float32"), np.array([[2.0, -1.0], [0.25, 4.0]], dtype="float32"),
        RNG.standard_normal((2, 3, 4)).astype("float32")]
# Muon: 2-d only, square, tall and wide
INIT_2D = [RNG.standard_normal(s).astype("float32") for s in [(4, 4), (6, 3), (3, 5)]]
COEF_2D = [RNG.standard_normal(s).astype("float32") for s in [(4, 4), (6, 3), (3, 5)]]


def _tensor(lib: Any, a: np.ndarray) -> Any:
    return lib.from_numpy(a.copy())


def _params(lib: Any, init: list[np.ndarray], dtype: str = "float32") -> list[Any]:
    return [lib.nn.Parameter(_tensor(lib, a.astype(dtype))) for a in init]


def _make(lib: Any, name: str, params: list[Any], kwargs: dict[str, Any]) -> Any:
    cls = getattr(lib.optim, name)
    # two groups: the first with the default lr, the others with their own
    return cls([{"params": params[:1]}, {"params": params[1:], "lr": kwargs.pop("group_lr", 0.05)}], **kwargs)


def _steps(lib: Any, opt: Any, params: list[Any], coefs: list[np.ndarray], steps: int) -> None:
    cs = [_tensor(lib, c.astype(str(params[0].dtype).split(".")[-1])) for c in coefs]
    for _ in range(steps):
        opt.zero_grad()
        loss = sum(((p * p * p).abs() * c + p * c).sum() for p, c in zip(params, cs, strict=True))
        loss.backward()
        opt.step()


def _run(lib: Any, name: str, kwargs: dict[str, Any], steps: int, init: list[np.ndarray] = INIT,
         coefs: list[np.ndarray] = COEF, dtype: str = "float32") -> tuple[list[Any], Any]:
    params = _params(lib, init, dtype)
    opt = _make(lib, name, params, dict(kwargs))
    _steps(lib, opt, params, coefs, steps)
    return params, opt


def _same_state(se: dict[str, Any], st: dict[str, Any], atol: float, rtol: float) -> None:
    assert se["param_groups"] == st["param_groups"]
    assert list(se["state"]) == list(st["state"])
    for k, state in st["state"].items():
        assert list(se["state"][k]) == list(state)  # same keys, same order
        for key, v in state.items():
            e = se["state"][k][key]
            if isinstance(v, (int, float)):
                assert e == v and type(e) is type(v)
                continue
            assert str(e.dtype) == str(v.dtype) and tuple(e.shape) == tuple(v.shape), key
            close(e, v, atol=atol, rtol=rtol)


CASES = [
    ("ASGD", {}, 6),
    ("ASGD", {"lr": 0.1, "lambd": 0.05, "alpha": 0.5, "t0": 2.0}, 8),  # averaging starts at step 3
    ("ASGD", {"lr": 0.1, "lambd": 0.01, "t0": 0, "weight_decay": 0.1, "maximize": True}, 6),
    ("ASGD", {"lr": 0.05, "t0": 3, "weight_decay": 0.2, "group_lr": 0.2}, 6),
    ("Rprop", {}, 8),
    ("Rprop", {"lr": 0.1, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2)}, 10),
    ("Rprop", {"lr": 0.2, "maximize": True}, 8),
    ("Adafactor", {}, 6),
    ("Adafactor", {"lr": 0.1, "beta2_decay": -0.5, "eps": (1e-10, 1e-2), "d": 1.5, "weight_decay": 0.1}, 8),
    ("Adafactor", {"lr": 0.5, "weight_decay": 0.05, "maximize": True, "group_lr": 0.3}, 6),
    ("Adafactor", {"lr": 0.01, "eps": (1e-3, 1e-3), "d": 1.0}, 6),
]


@pytest.mark.parametrize("name,kwargs,steps", CASES)
def test_trajectory_matches_torch(torch: Any, name: str, kwargs: dict[str, Any], steps: int) -> None:
    pe, oe = _run(ember, name, kwargs, steps)
    pt, ot = _run(torch, name, kwargs, steps)
    for a, b in zip(pe, pt, strict=True):
        close(a, b, atol=1e-6, rtol=1e-5)
    assert oe.defaults == ot.defaults
    assert repr(oe) == repr(ot)
    _same_state(oe.state_dict(), ot.state_dict(), atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("name,kwargs", [("ASGD", {"t0": 1, "lambd": 0.01, "weight_decay": 0.1}),
                                         ("ASGD", {"t0": 2, "lambd": 0.05, "maximize": True}),
                                         ("ASGD", {"t0": 1, "lambd": 0.05, "weight_decay": 0.1, "maximize": True}),
                                         ("Rprop", {"lr": 0.1}), ("Adafactor", {"weight_decay": 0.1})])
def test_float64_and_foreach(torch: Any, name: str, kwargs: dict[str, Any]) -> None:
    # float64 (Adafactor's default epsilon1 follows the dtype), and torch's foreach=True path
    # (for ASGD it rounds differently from the per-parameter one: ember follows it)
    pe, _ = _run(ember, name, kwargs, 6, dtype="float64")
    pt, _ = _run(torch, name, kwargs, 6, dtype="float64")
    for a, b in zip(pe, pt, strict=True):
        close(a, b, atol=1e-12, rtol=1e-12)
    pe, oe = _run(ember, name, dict(kwargs, foreach=True), 6)
    pt, ot = _run(torch, name, dict(kwargs, foreach=True), 6)
    for a, b in zip(pe, pt, strict=True):
        close(a, b, atol=1e-6, rtol=1e-5)
    _same_state(oe.state_dict(), ot.state_dict(), atol=1e-6, rtol=1e-5)


MUON_CASES = [
    {},
    {"lr": 0.02},
    {"lr": 0.05, "momentum": 0.9, "nesterov": False, "weight_decay": 0.0},
    {"lr": 0.02, "weight_decay": 0.01, "adjust_lr_fn": "match_rms_adamw", "ns_steps": 3},
    {"lr": 0.02, "adjust_lr_fn": "original", "ns_coefficients": (2.0, -1.5, 0.5), "eps": 1e-5, "group_lr": 0.1},
]


@pytest.mark.parametrize("kwargs", MUON_CASES)
def test_muon_matches_torch(torch: Any, kwargs: dict[str, Any]) -> None:
    # torch runs the Newton–Schulz iterations in bfloat16, so does ember; the tolerance leaves room
    # for a bfloat16 ulp of the orthogonalised update (times the adjusted lr) where a CPU's bf16
    # GEMM rounds differently
    pe, oe = _run(ember, "Muon", kwargs, 5, INIT_2D, COEF_2D)
    pt, ot = _run(torch, "Muon", kwargs, 5, INIT_2D, COEF_2D)
    for a, b in zip(pe, pt, strict=True):
        close(a, b, atol=5e-4, rtol=1e-5)
    assert oe.defaults == ot.defaults
    assert repr(oe) == repr(ot)
    _same_state(oe.state_dict(), ot.state_dict(), atol=5e-4, rtol=1e-5)


def test_muon_newton_schulz_bits(torch: Any) -> None:
    from ember.optim.muon import _zeropower_via_newtonschulz as ns_e
    from torch.optim._muon import _zeropower_via_newtonschulz as ns_t

    for shape in [(2, 2), (5, 3), (3, 7), (32, 48)]:
        x = RNG.standard_normal(shape).astype("float32")
        e = ns_e(ember.from_numpy(x.copy()), (3.4445, -4.7750, 2.0315), 5, 1e-7)
        t = ns_t(torch.from_numpy(x.copy()), (3.4445, -4.7750, 2.0315), 5, 1e-7)
        assert str(e.dtype) == str(t.dtype) == "torch.bfloat16"
        # equal bits on some CPUs; bfloat16 GEMMs may round differently on others (AMX, AVX512-BF16)
        np.testing.assert_allclose(e.float().numpy(), t.float().numpy(), atol=3e-2, rtol=2e-2)


RESUME = [("ASGD", {"lr": 0.1, "lambd": 0.05, "t0": 2}, INIT, COEF), ("Rprop", {"lr": 0.1}, INIT, COEF),
          ("Adafactor", {"weight_decay": 0.1}, INIT, COEF), ("Muon", {"lr": 0.02}, INIT_2D, COEF_2D)]


@pytest.mark.parametrize("name,kwargs,init,coefs", RESUME)
def test_state_dict_roundtrip_resumes(torch: Any, name: str, kwargs: dict[str, Any], init: list[np.ndarray],
                                      coefs: list[np.ndarray]) -> None:
    atol = 5e-4 if name == "Muon" else 1e-6
    pe, oe = _run(ember, name, kwargs, 3, init, coefs)
    sd = copy.deepcopy(oe.state_dict())
    fresh = [nn.Parameter(p.detach().clone()) for p in pe]
    o2 = _make(ember, name, fresh, dict(kwargs, lr=0.5, group_lr=0.7))  # the loaded groups' options win
    o2.load_state_dict(sd)
    assert [g["lr"] for g in o2.param_groups] == [g["lr"] for g in oe.param_groups]
    assert o2.param_groups[1]["params"][0] is fresh[1]
    _steps(ember, o2, fresh, coefs, 3)
    _steps(ember, oe, pe, coefs, 3)  # uninterrupted
    pt, ot = _run(torch, name, kwargs, 6, init, coefs)
    for a, b, c in zip(fresh, pe, pt, strict=True):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
        close(a, c, atol=atol, rtol=1e-5)
    _same_state(o2.state_dict(), ot.state_dict(), atol=atol, rtol=1e-5)


@pytest.mark.parametrize("name", ["ASGD", "Rprop", "Adafactor", "SparseAdam", "Muon"])
def test_signature_matches_torch(torch: Any, name: str) -> None:
    def sig(cls: Any) -> list[tuple[str, Any, Any]]:
        return [(p.name, p.kind, p.default) for p in inspect.signature(cls.__init__).parameters.values()]

    assert sig(getattr(optim, name)) == sig(getattr(torch.optim, name))
    assert getattr(optim, name).__doc__


BAD = [
    ("ASGD", {"lr": -0.1}), ("ASGD", {"weight_decay": -1.0}),
    ("Rprop", {"lr": -1.0}), ("Rprop", {"etas": (1.0, 1.2)}), ("Rprop", {"etas": (0.5, 1.0)}),
    ("Rprop", {"etas": (0.0, 1.2)}),
    ("Adafactor", {"lr": -1.0}), ("Adafactor", {"beta2_decay": 0.5}), ("Adafactor", {"eps": (-1.0, 1e-3)}),
    ("Adafactor", {"eps": (None, -1.0)}), ("Adafactor", {"d": 0.5}), ("Adafactor", {"weight_decay": -0.1}),
    ("SparseAdam", {"lr": 0.0}), ("SparseAdam", {"lr": -1.0}), ("SparseAdam", {"eps": 0.0}),
    ("SparseAdam", {"betas": (1.0, 0.9)}), ("SparseAdam", {"betas": (0.9, -0.1)}),
    ("Muon", {"lr": -1.0}), ("Muon", {"momentum": -0.5}), ("Muon", {"weight_decay": -0.5}),
    ("Muon", {"adjust_lr_fn": "nope"}),
]


@pytest.mark.parametrize("name,kwargs", BAD)
def test_invalid_arguments_raise_as_torch(torch: Any, name: str, kwargs: dict[str, Any]) -> None:
    same_error(lambda: getattr(optim, name)(_params(ember, INIT_2D), **kwargs),
               lambda: getattr(torch.optim, name)(_params(torch, INIT_2D), **kwargs))


def test_tensor_lr_must_have_one_element(torch: Any) -> None:
    for name in ["ASGD", "Rprop", "Adafactor", "SparseAdam", "Muon"]:
        same_error(lambda: getattr(optim, name)(_params(ember, INIT_2D), lr=ember.tensor([0.1, 0.2])),  # noqa: B023
                   lambda: getattr(torch.optim, name)(_params(torch, INIT_2D), lr=torch.tensor([0.1, 0.2])))  # noqa: B023


def test_muon_rejects_non_2d(torch: Any) -> None:
    same_error(lambda: optim.Muon(_params(ember, INIT)), lambda: torch.optim.Muon(_params(torch, INIT)))
    # a parameter group added later is only checked when its gradient reaches the iteration
    for lib in (ember, torch):
        p = _params(lib, INIT_2D)
        opt = lib.optim.Muon(p[:1])
        vec = lib.nn.Parameter(lib.ones(3))
        opt.add_param_group({"params": [vec]})
        (vec * vec).sum().backward()
        with pytest.raises(ValueError, match="Param gradient must be a 2D matrix"):
            opt.step()


def test_muon_invalid_ns_options(torch: Any) -> None:
    for kwargs in ({"ns_steps": 100}, {"ns_coefficients": (1.0, 2.0)}):
        def run(lib: Any, kwargs: dict[str, Any] = kwargs) -> None:
            params = _params(lib, INIT_2D)
            _steps(lib, _make(lib, "Muon", params, dict(kwargs)), params, COEF_2D, 1)

        same_error(lambda: run(ember), lambda: run(torch))  # noqa: B023


def test_sparse_adam_dense_gradient_raises(torch: Any) -> None:
    def run(lib: Any) -> Any:
        params = _params(lib, INIT)
        opt = lib.optim.SparseAdam(params, lr=0.1)
        _steps(lib, opt, params, COEF, 1)
        return opt

    same_error(lambda: run(ember), lambda: run(torch))
    params = _params(ember, INIT)
    opt = optim.SparseAdam(params, lr=0.1)
    with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients, please consider Adam"):
        _steps(ember, opt, params, COEF, 1)
    assert len(opt.state) == 0  # nothing initialised for a rejected dense gradient
    no_grad = optim.SparseAdam(_params(ember, INIT))
    no_grad.step()  # parameters without gradients are skipped
    assert no_grad.defaults == torch.optim.SparseAdam(_params(torch, INIT)).defaults


def test_sparse_adam_complex_params(torch: Any) -> None:
    same_error(lambda: optim.SparseAdam([nn.Parameter(ember.ones(2)), nn.Parameter(ember.ones(2, dtype=ember.complex64))]),
               lambda: torch.optim.SparseAdam([torch.nn.Parameter(torch.ones(2)),
                                               torch.nn.Parameter(torch.ones(2, dtype=torch.complex64))]))


@pytest.mark.parametrize("maximize", [False, True])
def test_sparse_adam_masked_update_matches_torch(torch: Any, maximize: bool) -> None:
    # torch's SparseAdam on an Embedding(sparse=True) against ember's masked update fed with the
    # same coalesced indices and values
    kw = {"lr": 0.05, "betas": (0.8, 0.95), "eps": 1e-6}
    weight = RNG.standard_normal((6, 3)).astype("float32")
    emb = torch.nn.Embedding(6, 3, sparse=True)
    with torch.no_grad():
        emb.weight.copy_(torch.from_numpy(weight))
    opt = torch.optim.SparseAdam(emb.parameters(), maximize=maximize, **kw)
    p = ember.from_numpy(weight.copy())
    m, v = ember.zeros_like(p), ember.zeros_like(p)
    batches = [[1, 3, 3, 5], [0, 1], [2, 5, 5, 5], [4], [1, 3]]
    for step, ids in enumerate(batches, 1):
        opt.zero_grad()
        (emb(torch.tensor(ids)) ** 2 * torch.tensor([1.0, -2.0, 0.5])).sum().backward()
        g = emb.weight.grad.coalesce()
        values = -g._values() if maximize else g._values()
        opt.step()
        _sparse_adam_update(p, m, v, ember.from_numpy(g._indices().numpy().copy()),
                            ember.from_numpy(values.numpy().copy()), step, lr=kw["lr"], beta1=kw["betas"][0],
                            beta2=kw["betas"][1], eps=kw["eps"])
        state = opt.state[emb.weight]
        assert state["step"] == step
        close(p, emb.weight, atol=1e-6, rtol=1e-5)
        close(m, state["exp_avg"], atol=1e-6, rtol=1e-5)
        close(v, state["exp_avg_sq"], atol=1e-6, rtol=1e-5)


def test_rprop_complex_matches_torch(torch: Any) -> None:
    init = (RNG.standard_normal(4) + 1j * RNG.standard_normal(4)).astype("complex64")
    coef = (RNG.standard_normal(4) + 1j * RNG.standard_normal(4)).astype("complex64")
    out = []
    for lib in (ember, torch):
        p = lib.nn.Parameter(_tensor(lib, init))
        c = _tensor(lib, coef)
        opt = lib.optim.Rprop([p], lr=0.1)
        for _ in range(6):
            opt.zero_grad()
            lib.view_as_real(p * c + p * p).pow(2).sum().backward()
            opt.step()
        out.append((p, opt))
    close(out[0][0], out[1][0], atol=1e-6, rtol=1e-5)
    _same_state(out[0][1].state_dict(), out[1][1].state_dict(), atol=1e-6, rtol=1e-5)


def test_errors_for_unsupported_params(torch: Any) -> None:
    for name in ["Adafactor", "Muon"]:
        def run(lib: Any, name: str = name) -> None:
            p = lib.nn.Parameter(lib.ones(2, 2, dtype=lib.complex64))
            p.grad = lib.ones(2, 2, dtype=lib.complex64)
            getattr(lib.optim, name)([p]).step()

        same_error(lambda: run(ember), lambda: run(torch))  # noqa: B023


def test_closure_and_no_grad_params(torch: Any) -> None:
    for name, init in [("ASGD", INIT), ("Rprop", INIT), ("Adafactor", INIT), ("Muon", INIT_2D)]:
        p = _params(ember, init)
        opt = getattr(optim, name)(p)
        opt.step()  # no gradients yet: nothing happens
        assert len(opt.state) == 0

        def closure(p: list[Any] = p, opt: Any = opt) -> Any:
            opt.zero_grad()
            loss = (p[0] * p[0]).sum()
            loss.backward()
            return loss

        before = p[0].detach().clone()
        loss = opt.step(closure)
        assert float(loss.item()) == float((before * before).sum().item())
        assert list(opt.state) == [p[0]]  # only the parameter with a gradient has state
        assert not np.array_equal(p[0].detach().numpy(), before.numpy())
