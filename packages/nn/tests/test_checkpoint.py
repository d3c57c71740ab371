"""ember.utils.checkpoint vs torch: recomputation happens, grads equal the uncheckpointed ones
and torch's on the same model, RNG state is restored (dropout), errors and warnings."""

from __future__ import annotations

import importlib
import warnings
from typing import Any

import ember
import ember.nn as enn
import numpy as np
import pytest
from ember.utils import checkpoint as C


def _pair_model(torch: Any, p_drop: float = 0.0) -> tuple[Any, Any]:
    tm = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.Tanh(), torch.nn.Linear(8, 8), torch.nn.GELU(),
                             torch.nn.Linear(8, 3))
    em = enn.Sequential(enn.Linear(5, 8), enn.Tanh(), enn.Linear(8, 8), enn.GELU(), enn.Linear(8, 3))
    em.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    return tm, em


def test_import_paths() -> None:
    mod = importlib.import_module("ember.utils.checkpoint")
    assert mod.checkpoint is C.checkpoint
    assert ember.utils.checkpoint is mod


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_recomputes_and_grads_match_torch(torch: Any, use_reentrant: bool) -> None:
    tm, em = _pair_model(torch)
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    calls = {"n": 0}

    def block(lib_model: Any) -> Any:
        def run(h: Any) -> Any:
            calls["n"] += 1
            return lib_model[2](lib_model[1](lib_model[0](h)))
        return run

    xt = torch.tensor(x, requires_grad=True)
    yt = tm[4](tm[3](torch.utils.checkpoint.checkpoint(block(tm), xt, use_reentrant=use_reentrant)))
    yt.pow(2).sum().backward()
    calls["n"] = 0
    xe = ember.tensor(x.tolist(), requires_grad=True)
    ye = em[4](em[3](C.checkpoint(block(em), xe, use_reentrant=use_reentrant)))
    assert calls["n"] == 1
    ye.pow(2).sum().backward()
    assert calls["n"] == 2  # the block ran again during backward
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)
    for (n, pe), (_, pt) in zip(em.named_parameters(), tm.named_parameters(), strict=False):
        np.testing.assert_allclose(pe.grad.numpy(), pt.grad.numpy(), rtol=1e-5, atol=1e-6, err_msg=n)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_dropout_mask_is_replayed(use_reentrant: bool) -> None:
    lin = enn.Linear(6, 6)
    drop = enn.Dropout(0.5)
    x = ember.randn(3, 6, requires_grad=True)

    def f(h: Any) -> Any:
        return drop(lin(h)) * 2

    ember.manual_seed(7)
    ref = f(x)
    ref.sum().backward()
    g_ref = x.grad.clone()
    x.grad = None
    ember.manual_seed(7)
    out = C.checkpoint(f, x, use_reentrant=use_reentrant)
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    ember.randn(100)  # move the RNG on before backward: recomputation must not see it
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), g_ref.numpy())


def test_without_preserved_rng_the_mask_differs() -> None:
    drop = enn.Dropout(0.5)
    x = ember.ones(200, requires_grad=True)
    out = C.checkpoint(drop, x, use_reentrant=False, preserve_rng_state=False)
    out.sum().backward()
    # backward used a fresh mask: the gradient is not the forward's mask
    assert not np.array_equal((out.detach().numpy() != 0), (x.grad.numpy() != 0))


def test_kwargs_and_context_fn_non_reentrant() -> None:
    entered = []

    class Ctx:
        def __init__(self, name: str) -> None:
            self.name = name

        def __enter__(self) -> None:
            entered.append(self.name)

        def __exit__(self, *a: Any) -> None:
            pass

    x = ember.randn(4, requires_grad=True)
    y = C.checkpoint(lambda a, scale=1.0: (a * scale).sin(), x, scale=3.0, use_reentrant=False,
                     context_fn=lambda: (Ctx("fwd"), Ctx("recompute")))
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.cos(3 * x.detach().numpy()), rtol=1e-6)
    assert entered == ["fwd", "recompute"]


def test_errors_and_warnings(torch: Any) -> None:
    x = ember.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        C.checkpoint(lambda a: a * 2, x)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        C.checkpoint(lambda a: a, x, use_reentrant=True, foo=1)
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        C.checkpoint(lambda a: a, x, use_reentrant=True, context_fn=lambda: (None, None))
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        C.checkpoint(lambda a: a * 2, ember.ones(2), use_reentrant=True)
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        C.checkpoint(lambda a: a, x, use_reentrant=False, determinism_check="bad")


def test_determinism_check_detects_changed_recomputation() -> None:
    state = {"first": True}

    def f(a: Any) -> Any:
        if state["first"]:
            state["first"] = False
            return (a * a).sum()
        return (a[:2] * a[:2]).sum()  # saves differently shaped tensors

    x = ember.randn(4, requires_grad=True)
    y = C.checkpoint(f, x, use_reentrant=False)
    with pytest.raises(C.CheckpointError, match="different metadata|different number"):
        y.backward()


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_sequential_matches_torch(torch: Any, use_reentrant: bool) -> None:
    tm, em = _pair_model(torch)
    x = np.random.default_rng(1).standard_normal((2, 5)).astype(np.float32)
    xt, xe = torch.tensor(x, requires_grad=True), ember.tensor(x.tolist(), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yt = torch.utils.checkpoint.checkpoint_sequential(tm, 2, xt, use_reentrant=use_reentrant)
    ye = C.checkpoint_sequential(em, 2, xe, use_reentrant=use_reentrant)
    yt.sum().backward()
    ye.sum().backward()
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(em[0].weight.grad.numpy(), tm[0].weight.grad.numpy(), rtol=1e-5, atol=1e-6)
