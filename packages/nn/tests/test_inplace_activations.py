"""In-place activations (inplace=True, the `_` functions, the modules) on a non-leaf that requires grad:
result written into the input, same object returned, version bumped, and torch's gradients and errors."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")

Act = Callable[[Any, Any], Any]  # (library, x) -> the activation applied in place to x

# (functional name, module class, kwargs both take); rrelu runs in eval mode (the mean slope), as its module's
# default call would not (modules train by default): RReLU's training draws are checked against ember below.
ACTIVATIONS = [
    ("relu", "ReLU", {}),
    ("relu6", "ReLU6", {}),
    ("leaky_relu", "LeakyReLU", {"negative_slope": 0.2}),
    ("hardtanh", "Hardtanh", {"min_val": -1.0, "max_val": 2.0}),
    ("elu", "ELU", {"alpha": 1.5}),
    ("selu", "SELU", {}),
    ("celu", "CELU", {"alpha": 0.5}),
    ("silu", "SiLU", {}),
    ("mish", "Mish", {}),
    ("hardsigmoid", "Hardsigmoid", {}),
    ("hardswish", "Hardswish", {}),
    ("threshold", "Threshold", {"threshold": 0.5, "value": -2.0}),
]
UNDERSCORED = [("relu_", {}), ("leaky_relu_", {"negative_slope": 0.2}), ("hardtanh_", {"min_val": 0.0, "max_val": 3.0}),
               ("elu_", {"alpha": 1.5}), ("selu_", {}), ("celu_", {"alpha": 0.5}),
               ("threshold_", {"threshold": 0.1, "value": 3.0}), ("rrelu_", {"lower": 0.1, "upper": 0.3})]
# the feature and alpha dropouts make the same random draws as torch's for the same seed
DROPOUTS = [("alpha_dropout", "AlphaDropout", 2), ("feature_alpha_dropout", "FeatureAlphaDropout", 3),
            ("dropout1d", "Dropout1d", 3), ("dropout1d", "Dropout1d", 2), ("dropout2d", "Dropout2d", 4),
            ("dropout2d", "Dropout2d", 3), ("dropout3d", "Dropout3d", 5), ("dropout3d", "Dropout3d", 4)]

# hits every activation's kinks and bounds exactly when the Linear is the identity
_EDGES = [-4.0, -3.0, -2.0, -1.0, -0.5, -0.1, 0.0, 0.1, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 7.0, 9.0]
N = len(_EDGES)


def _data(shape: tuple[int, ...], identity: bool) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(len(shape) * 10 + identity)
    rows = int(np.prod(shape[:-1]))
    inp = np.stack([rng.permutation(_EDGES) for _ in range(rows)]).reshape(shape).astype(np.float32)
    weight = np.eye(N, dtype=np.float32) if identity else rng.uniform(-0.6, 0.6, (N, N)).astype(np.float32)
    bias = np.zeros(N, np.float32) if identity else rng.uniform(-0.5, 0.5, N).astype(np.float32)
    return {"inp": inp, "weight": weight, "bias": bias, "up": rng.standard_normal(shape).astype(np.float32)}


def _run(lib: Any, data: dict[str, np.ndarray], act: Act) -> tuple[bool, int, list[np.ndarray]]:
    """x = Linear(inp); y = act(x); backward of sum(y * up): (y is x, x's version bump, [y, grads])."""
    lin = lib.nn.Linear(N, N)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor(data["weight"]))
        lin.bias.copy_(lib.tensor(data["bias"]))
    inp = lib.tensor(data["inp"], requires_grad=True)
    x = lin(inp)
    before = x._version
    lib.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dropout2d/3d's deprecated input ranks
        y = act(lib, x)
    (y * lib.tensor(data["up"])).sum().backward()
    arrays = [t.detach().numpy().copy() for t in (y, inp.grad, lin.weight.grad, lin.bias.grad)]
    return y is x, x._version - before, arrays


def _check(data: dict[str, np.ndarray], act: Act, ref: Act | None = None, same_version: bool = True) -> None:
    """ember's act against torch's (identity, version bump), and against ref's values (default: torch's act)."""
    e_same, e_bump, got = _run(ember, data, act)
    t_same, t_bump, want = _run(torch, data, act)
    if ref is not None:
        want = _run(ember, data, ref)[2]
    assert e_same == t_same  # True but for the alpha dropout modules, which ignore inplace in torch too
    assert e_bump == t_bump if same_version else e_bump >= 1
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def _functional(name: str, **kw: Any) -> Act:
    return lambda lib, x: getattr(lib.nn.functional, name)(x, **kw)


def _module(cls: str, **kw: Any) -> Act:
    return lambda lib, x: getattr(lib.nn, cls)(**kw)(x)


@pytest.mark.parametrize("identity", [True, False], ids=["edges", "random"])
@pytest.mark.parametrize("shape", [(3, N), (2, 2, N)])
@pytest.mark.parametrize(("name", "cls", "kw"), ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_activation_inplace_matches_torch(name: str, cls: str, kw: dict, shape: tuple[int, ...],
                                          identity: bool) -> None:
    data = _data(shape, identity)
    _check(data, _functional(name, inplace=True, **kw))
    _check(data, _module(cls, inplace=True, **kw))


@pytest.mark.parametrize(("name", "kw"), UNDERSCORED, ids=[u[0] for u in UNDERSCORED])
def test_underscored_functions_match_torch(name: str, kw: dict) -> None:
    _check(_data((3, N), True), _functional(name, **kw))


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("p", [0.0, 0.4, 1.0])
@pytest.mark.parametrize(("name", "cls", "ndim"), DROPOUTS, ids=[f"{d[0]}-{d[2]}d" for d in DROPOUTS])
def test_dropout_inplace_matches_torch(name: str, cls: str, ndim: int, p: float, training: bool) -> None:
    data = _data((2, 3, 2, 2, N)[-ndim:], False)
    # torch adds an unbatched input's batch dim with unsqueeze_/squeeze_ (two more bumps); ember bumps once
    unbatched = (name, ndim) in (("dropout1d", 2), ("dropout3d", 4))
    _check(data, _functional(name, p=p, training=training, inplace=True), same_version=not unbatched)
    if training:
        _check(data, _module(cls, p=p, inplace=True), same_version=not unbatched)


@pytest.mark.parametrize("form", ["functional", "module"])
def test_random_draws_match_out_of_place(form: str) -> None:
    # plain dropout and training rrelu draw differently from torch: the reference is ember's out-of-place op
    data = _data((3, N), True)
    for name, cls, kw in (("dropout", "Dropout", {"p": 0.4}), ("rrelu", "RReLU", {"lower": 0.1, "upper": 0.3})):
        fkw = {**kw, "training": True}
        act = _functional(name, inplace=True, **fkw) if form == "functional" else _module(cls, inplace=True, **kw)
        _check(data, act, ref=_functional(name, **fkw))


@pytest.mark.parametrize(("name", "cls", "kw"), ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_inplace_on_view_of_non_leaf(name: str, cls: str, kw: dict) -> None:
    # the write goes through a view: the base's gradient must see it
    def act(lib: Any, x: Any) -> Any:
        getattr(lib.nn.functional, name)(x[:, 2:11], inplace=True, **kw)
        return x

    _check(_data((3, N), True), act)


_LEAF_CASES = [(name, kw) for name, _, kw in ACTIVATIONS] + [
    ("rrelu", {"training": True}), ("dropout", {"p": 0.4}), ("alpha_dropout", {"p": 0.4, "training": True}),
    ("feature_alpha_dropout", {"p": 0.4, "training": True}), ("dropout1d", {"p": 0.4}), ("dropout2d", {"p": 0.4}),
    ("dropout3d", {"p": 0.4})]


@pytest.mark.parametrize(("name", "kw"), _LEAF_CASES, ids=[c[0] for c in _LEAF_CASES])
def test_leaf_requiring_grad_raises(name: str, kw: dict) -> None:
    for lib in (torch, ember):
        fn = getattr(lib.nn.functional, name)
        leaf = lib.ones(*(2, 3, 4) if name == "dropout1d" else (2, 3, 4, 4), requires_grad=True)
        with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place"):
            fn(leaf, inplace=True, **kw)
        with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is being used in an"):
            fn(leaf[:, 1:], inplace=True, **kw)


@pytest.mark.parametrize(("name", "cls", "kw"), ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_leaf_under_no_grad(name: str, cls: str, kw: dict) -> None:
    # no_grad lifts the leaf check: the values are written and the version bumped, as in torch
    results = []
    for lib in (torch, ember):
        leaf = lib.tensor(_data((3, N), True)["inp"], requires_grad=True)
        with lib.no_grad():
            y = getattr(lib.nn.functional, name)(leaf, inplace=True, **kw)
        assert y is leaf and leaf._version == 1 and leaf.requires_grad and leaf.grad_fn is None
        results.append(leaf.detach().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6, atol=1e-6)
