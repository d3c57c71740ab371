"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss and nn.LinearCrossEntropyOptions against
PyTorch 2.13: the reference path and the chunked path (options=) both equal PyTorch's reference
path (linear then cross_entropy) in values and gradients; errors, fallback warnings and the
options' resolution as PyTorch's."""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")


def _t(lib: Any, a: np.ndarray, dtype: str = "float64", grad: bool = True) -> Any:
    t = lib.tensor(a.tolist(), dtype=getattr(lib, dtype))
    return t.requires_grad_() if grad else t


def _run(lib: Any, n: int, c: int, reduction: str, ignore: Any, bias: bool, weighted: bool, chunk: int | None,
         dtype: str = "float64") -> list[np.ndarray]:
    rng = np.random.default_rng(n * 100 + c)
    x = _t(lib, rng.standard_normal((n, 4) if n else (4,)), dtype)
    w = _t(lib, rng.standard_normal((c, 4)), dtype)
    b = _t(lib, rng.standard_normal(c), dtype) if bias else None
    target = lib.tensor(rng.integers(0, c, (n,) if n else ()).tolist())
    if n > 2 and ignore is not None:
        target[1] = ignore
    cw = _t(lib, np.abs(rng.standard_normal(c)), dtype, grad=False) if weighted else None
    opts = lib.nn.LinearCrossEntropyOptions(batch_chunk_size=chunk) if chunk else None
    kw = {"ignore_index": ignore} if ignore not in (None, -100) else {}
    out = lib.nn.functional.linear_cross_entropy(x, w, target, linear_bias=b, weight=cw, reduction=reduction,
                                                 options=opts, **kw)
    out.sum().backward()
    grads = [x.grad, w.grad] + ([b.grad] if bias else [])
    return [np.array(out.detach().float().tolist())] + [np.array(g.float().tolist()) for g in grads]


CONFIGS = list(itertools.product([0, 1, 5, 9], [3, 7], ["mean", "sum", "none"], [None, -100, 2], [False, True],
                                 [False, True]))


@pytest.mark.parametrize("chunk", [None, 2, 4, 100])
def test_values_and_gradients_equal_torch_reference(chunk: int | None) -> None:
    for cfg in CONFIGS:
        ours, ref = _run(ember, *cfg, chunk), _run(torch, *cfg, None)
        for a, b in zip(ours, ref):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, equal_nan=True, err_msg=str((cfg, chunk)))


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_low_precision_chunks_accumulate_in_float32(dtype: str) -> None:
    ours, theirs = _run(ember, 9, 7, "mean", None, True, False, 4, dtype), _run(torch, 9, 7, "mean", None, True,
                                                                               False, 4, dtype)
    tol = 1e-5 if dtype == "float32" else 2e-2
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _error(lib: Any, call: Any) -> str:
    try:
        call(lib)
    except Exception as e:  # noqa: BLE001 - type and message compared
        return f"{type(e).__name__}: {e}"
    return "ok"


ERRORS = {
    "input-3d": lambda L: L.nn.functional.linear_cross_entropy(L.ones(2, 2, 3), L.ones(4, 3), L.tensor([0, 1])),
    "weight-1d": lambda L: L.nn.functional.linear_cross_entropy(L.ones(2, 3), L.ones(3), L.tensor([0, 1])),
    "in-features": lambda L: L.nn.functional.linear_cross_entropy(L.ones(2, 3), L.ones(4, 5), L.tensor([0, 1])),
    "bias-shape": lambda L: L.nn.functional.linear_cross_entropy(L.ones(2, 3), L.ones(4, 3), L.tensor([0, 1]),
                                                                 linear_bias=L.ones(3)),
    "k-dim-unbatched": lambda L: L.nn.functional.linear_cross_entropy(L.ones(3), L.ones(4, 2, 3), L.tensor([0, 1])),
    "probs-ignore": lambda L: L.nn.functional.linear_cross_entropy(L.ones(2, 3), L.ones(4, 3), L.ones(2, 4) / 4,
                                                                   ignore_index=1),
    "chunked-target-range": lambda L: L.nn.functional.linear_cross_entropy(
        L.ones(2, 3), L.ones(4, 3), L.tensor([0, 4]), options=L.nn.LinearCrossEntropyOptions()),
    "chunked-negative-target": lambda L: L.nn.functional.linear_cross_entropy(
        L.ones(2, 3), L.ones(4, 3), L.tensor([-5, 1]), options=L.nn.LinearCrossEntropyOptions()),
    "options-policy": lambda L: L.nn.LinearCrossEntropyOptions(acc_policy="fast"),
    "options-method": lambda L: L.nn.LinearCrossEntropyOptions(chunking_method="aspect_ratio:0"),
    "options-chunk": lambda L: L.nn.LinearCrossEntropyOptions(batch_chunk_size=0),
    "module-weight": lambda L: L.nn.LinearCrossEntropyLoss(3, 4, weight=L.ones(3)),
    "module-smoothing": lambda L: L.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=1.5),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name: str) -> None:
    ours, theirs = _error(ember, ERRORS[name]), _error(torch, ERRORS[name])
    assert ours == theirs and theirs != "ok"


def test_k_dimensional_and_probability_targets_use_the_reference_path() -> None:
    def call(L: Any, options: Any) -> Any:
        x = L.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], dtype=L.float64)
        w = L.tensor(np.linspace(-1, 1, 4 * 2 * 3).reshape(4, 2, 3).tolist(), dtype=L.float64)
        t = L.tensor([[0, 3], [2, 1]])
        return L.nn.functional.linear_cross_entropy(x, w, t, options=options).item()

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ours = call(ember, ember.nn.LinearCrossEntropyOptions())
    assert any("options`` ignored" in str(w.message) for w in seen)
    assert ours == pytest.approx(call(torch, None), rel=1e-12)


def test_options_resolution_matches_torch() -> None:
    for n, c, d, chunk, method, dtype in itertools.product([1, 7, 64, 1000], [5, 300], [3, 32], [None, 8],
                                                             ["auto", "aspect_ratio", "aspect_ratio:3", None],
                                                             ["float32", "bfloat16"]):
        def resolve(L: Any) -> str:
            try:
                o = L.nn.LinearCrossEntropyOptions(batch_chunk_size=chunk, chunking_method=method)
                r = o._adjust(num_batches=n, in_features=d, num_classes=c, dtype=getattr(L, dtype),
                              device=L.device("cpu"))
            except ValueError as e:
                return str(e)
            return f"{r.acc_policy} {r.chunking_method} {r.batch_chunk_size} {str(r.acc_dtype).split('.')[-1]}"

        assert resolve(ember) == resolve(torch), (n, c, d, chunk, method, dtype)


def test_second_backward_needs_allow_retain_graph() -> None:
    for lib in (ember, torch):
        x, w = lib.ones(3, 2, requires_grad=True), lib.ones(4, 2, requires_grad=True)
        loss = lib.nn.functional.linear_cross_entropy(x, w, lib.tensor([0, 1, 2]),
                                                      options=lib.nn.LinearCrossEntropyOptions())
        loss.backward(retain_graph=True)
        with pytest.raises(RuntimeError, match="chunked backward called twice"):
            loss.backward()
        loss = lib.nn.functional.linear_cross_entropy(
            x, w, lib.tensor([0, 1, 2]), options=lib.nn.LinearCrossEntropyOptions(allow_retain_graph=True))
        loss.backward(retain_graph=True)
        loss.backward()


def test_module_matches_torch() -> None:
    mods = []
    for lib in (ember, torch):
        lib.manual_seed(0)
        mods.append(lib.nn.LinearCrossEntropyLoss(3, 4, out_features=(2,), bias=True, dtype=lib.float64))
    mods[0].linear.weight.data = ember.tensor(mods[1].linear.weight.tolist(), dtype=ember.float64)
    mods[0].linear.bias.data = ember.tensor(mods[1].linear.bias.tolist(), dtype=ember.float64)
    x, t = [[0.5, -1.0, 2.0]], [[0, 3]]
    ours = mods[0](ember.tensor(x, dtype=ember.float64), ember.tensor(t))
    theirs = mods[1](torch.tensor(x, dtype=torch.float64), torch.tensor(t))
    assert ours.item() == pytest.approx(theirs.item(), rel=1e-12)
    assert repr(mods[0]) == repr(mods[1])
    assert sorted(mods[0].state_dict()) == sorted(mods[1].state_dict())
