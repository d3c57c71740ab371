"""User script: iterative magnitude pruning (torch.nn.utils.prune) of a small CNN with fine-tuning in
between, as in the pruning tutorial, compared with torch; plus the pruning API's details."""

from __future__ import annotations

import importlib
from typing import Any

import ember
import numpy as np
import pytest
from _user_scripts_util import assert_runs_match, to_np


def _prune_mod(lib: Any) -> Any:
    return importlib.import_module(f"{lib.__name__}.nn.utils.prune")


def _prune_script(lib: Any, x_np: np.ndarray, y_np: np.ndarray, rounds: int = 3) -> dict[str, Any]:
    torch = lib
    nn = torch.nn
    F = torch.nn.functional
    prune = _prune_mod(lib)

    class LeNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, 3)
            self.conv2 = nn.Conv2d(4, 8, 3)
            self.fc1 = nn.Linear(8 * 2 * 2, 16)
            self.fc2 = nn.Linear(16, 3)

        def forward(self, x: Any) -> Any:
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.relu(self.conv2(x))
            x = x.view(-1, int(x.nelement() / x.shape[0]))
            return self.fc2(F.relu(self.fc1(x)))

    torch.manual_seed(4)
    model = LeNet()
    x, y = torch.from_numpy(x_np), torch.from_numpy(y_np)
    log: list[float] = []
    for _ in range(rounds):
        # prune: structured on conv channels, unstructured on the rest, then a global pass
        prune.ln_structured(model.conv1, name="weight", amount=1, n=2, dim=0)
        prune.l1_unstructured(model.conv2, name="weight", amount=0.2)
        prune.random_unstructured(model.fc1, name="bias", amount=2)
        parameters_to_prune = ((model.conv2, "weight"), (model.fc1, "weight"), (model.fc2, "weight"))
        prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.1)
        hook = next(h for h in model.conv2._forward_pre_hooks.values() if h._tensor_name == "weight")
        log += [len(list(hook)), float(prune.is_pruned(model))]
        # fine-tune: the optimizer sees the *_orig parameters
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        for _ in range(3):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            log.append(loss.item())
        for m in model.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)) and hasattr(m, "weight_mask"):
                sparsity = 100.0 * float(torch.sum(m.weight == 0)) / float(m.weight.nelement())
                log.append(sparsity)
    names_before = sorted(k for k in model.state_dict())
    for m, n in [(model.conv1, "weight"), (model.conv2, "weight"), (model.fc1, "weight"), (model.fc1, "bias"),
                 (model.fc2, "weight")]:
        prune.remove(m, n)
    assert not prune.is_pruned(model)
    assert {"conv1.weight_orig", "conv1.weight_mask", "fc1.bias_orig"} <= set(names_before)
    return {"losses": log, "params": {**model.state_dict(), "out": model(x)}}


def test_iterative_pruning_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=(12, 1, 10, 10)).astype(np.float32), rng.integers(0, 3, size=12)
    res_e, res_t = _prune_script(ember, x, y), _prune_script(torch, x, y)
    assert_runs_match(res_e, res_t)


def _both(fn: Any) -> tuple[Any, Any]:
    torch = pytest.importorskip("torch")
    out = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        out.append(fn(lib, _prune_mod(lib)))
    return out[0], out[1]


def _same_error(fn: Any) -> None:
    torch = pytest.importorskip("torch")
    errs = []
    for lib in (torch, ember):
        with pytest.raises(Exception) as e:
            fn(lib, _prune_mod(lib))
        errs.append(e.value)
    assert type(errs[1]) is type(errs[0])
    assert str(errs[1]).replace("ember", "torch") == str(errs[0])


def test_prune_layout_and_hooks() -> None:
    def fn(lib: Any, P: Any) -> Any:
        m = lib.nn.Linear(4, 3)
        P.l1_unstructured(m, "weight", amount=0.3)
        hooks = [type(h).__name__ for h in m._forward_pre_hooks.values()]
        layout = ([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()], list(m.state_dict()))
        P.random_unstructured(m, "weight", amount=2)
        hook = next(iter(m._forward_pre_hooks.values()))
        chain = [type(h).__name__ for h in hook]
        w = m.weight.detach().clone()
        orig = m.weight_orig
        P.remove(m, "weight")
        assert m.weight is orig  # the same Parameter object, now masked
        return hooks, layout, chain, hook._tensor_name, len(hook), to_np(w), to_np(m.weight), \
            [n for n, _ in m.named_parameters()], len(m._forward_pre_hooks), \
            type(m.weight).__name__, m.weight.requires_grad
    t, e = _both(fn)
    np.testing.assert_allclose(e[5], t[5])
    np.testing.assert_allclose(e[6], t[6])
    assert e[:5] == t[:5] and e[7:] == t[7:]


def test_prune_weight_updates_through_mask() -> None:
    def fn(lib: Any, P: Any) -> Any:
        m = lib.nn.Linear(3, 2)
        P.l1_unstructured(m, "weight", amount=3)
        with lib.no_grad():
            m.weight_orig.fill_(2.0)
        stale = to_np(m.weight)
        m(lib.ones(1, 3)).sum().backward()  # the pre-hook recomputes weight; grads reach weight_orig
        return stale, to_np(m.weight), to_np(m.weight_orig.grad), m.weight.grad_fn is not None, m.weight.is_leaf
    t, e = _both(fn)
    for a, b in zip(e[:3], t[:3], strict=True):
        np.testing.assert_allclose(a, b)
    assert e[3:] == t[3:]


@pytest.mark.parametrize("case", ["random_unstructured", "random_structured", "ln_structured", "ln_inf", "custom",
                                  "identity", "global_random", "global_scores", "structured_chain", "zero_amount"])
def test_prune_masks_match(case: str) -> None:
    def fn(lib: Any, P: Any) -> Any:
        conv = lib.nn.Conv2d(3, 6, 2)
        lin = lib.nn.Linear(5, 4)
        if case == "random_unstructured":
            P.random_unstructured(lin, "weight", amount=0.45)
            P.random_unstructured(lin, "weight", amount=3)
            return [lin.weight_mask, lin.weight, lib.rand(2)]
        if case == "random_structured":
            P.random_structured(conv, "weight", amount=0.5, dim=1)
            P.random_structured(conv, "weight", amount=2, dim=0)
            return [conv.weight_mask, lib.rand(2)]
        if case == "ln_structured":
            P.ln_structured(conv, "weight", amount=0.34, n=1, dim=0)
            P.ln_structured(conv, "weight", amount=0.5, n=2, dim=-1)
            return [conv.weight_mask, conv.weight]
        if case == "ln_inf":
            P.ln_structured(lin, "weight", amount=2, n=float("inf"), dim=1)
            P.ln_structured(lin, "weight", amount=1, n=float("-inf"), dim=0)
            return [lin.weight_mask]
        if case == "custom":
            P.custom_from_mask(lin, "bias", mask=lib.tensor([True, False, True, True]))
            P.l1_unstructured(lin, "bias", amount=0.34, importance_scores=lib.tensor([4.0, 3.0, 2.0, 1.0]))
            return [lin.bias_mask, lin.bias]
        if case == "identity":
            P.identity(lin, "weight")
            return [lin.weight_mask, lin.weight]
        if case == "global_random":
            P.l1_unstructured(lin, "weight", amount=0.5)
            P.global_unstructured([(lin, "weight"), (conv, "bias"), (lin, "bias")], P.RandomUnstructured, amount=4)
            return [lin.weight_mask, conv.bias_mask, lin.bias_mask, lib.rand(2)]
        if case == "global_scores":
            scores = {(lin, "bias"): lib.tensor([3.0, 1.0, 2.0, 0.5])}
            P.global_unstructured([(lin, "bias"), (conv, "bias")], P.L1Unstructured, importance_scores=scores,
                                  amount=0.3)
            return [lin.bias_mask, conv.bias_mask]
        if case == "structured_chain":
            P.l1_unstructured(conv, "weight", amount=0.6)
            P.ln_structured(conv, "weight", amount=2, n=1, dim=0)
            P.random_structured(conv, "weight", amount=1, dim=0)
            return [conv.weight_mask, lib.rand(2)]
        P.random_unstructured(lin, "weight", amount=0.0)
        P.random_structured(conv, "weight", amount=0, dim=0)
        return [lin.weight_mask, conv.weight_mask, lib.rand(2)]
    t, e = _both(fn)
    for a, b in zip(e, t, strict=True):
        np.testing.assert_allclose(to_np(a), to_np(b), rtol=1e-6)


def test_prune_method_objects() -> None:
    def fn(lib: Any, P: Any) -> Any:
        t = lib.arange(4.0)
        out = [P.L1Unstructured(0.5).prune(t), P.L1Unstructured(0.5).prune(t, importance_scores=lib.tensor([3.0, 2, 1, 0])),
               P.L1Unstructured(0.5).prune(t, default_mask=lib.tensor([0.0, 1, 1, 1])),
               P.CustomFromMask(lib.tensor([0, 1, 1, 0])).compute_mask(t, lib.tensor([1.0, 1, 0, 1])),
               P.L1Unstructured(0.5).compute_mask(t, lib.ones(4, dtype=lib.bool)),
               P.RandomStructured(0.5, dim=0).compute_mask(t.reshape(2, 2), lib.tensor([[1.0, 0], [1, 1]]))]
        kinds = [getattr(c, "PRUNING_TYPE", None) for c in (P.Identity, P.RandomUnstructured, P.L1Unstructured, P.RandomStructured,
                                          P.LnStructured, P.CustomFromMask, P.PruningContainer)]
        bases = [issubclass(c, P.BasePruningMethod) for c in (P.Identity, P.PruningContainer, P.CustomFromMask)]
        return [to_np(o) for o in out], [str(o.dtype).split(".")[-1] for o in out], kinds, bases
    t, e = _both(fn)
    for a, b in zip(e[0], t[0], strict=True):
        np.testing.assert_array_equal(a, b)
    assert e[1:] == t[1:]


@pytest.mark.parametrize("case", ["neg", "float", "type", "count", "remove", "structured_1d", "dim", "scores",
                                  "global_type", "global_scores", "global_iter", "container", "chain_count"])
def test_prune_errors_match(case: str) -> None:
    def fn(lib: Any, P: Any) -> Any:
        m = lib.nn.Linear(4, 3)
        if case == "neg":
            P.l1_unstructured(m, "weight", amount=-1)
        if case == "float":
            P.RandomUnstructured(1.5)
        if case == "type":
            P.LnStructured("a", n=2)
        if case == "count":
            P.l1_unstructured(m, "weight", amount=13)
        if case == "remove":
            P.remove(m, "bias")
        if case == "structured_1d":
            P.ln_structured(m, "bias", 0.5, n=2, dim=0)
        if case == "dim":
            P.random_structured(m, "weight", 0.5, dim=2)
        if case == "scores":
            P.l1_unstructured(m, "weight", 0.5, importance_scores=lib.ones(2, 2))
        if case == "global_type":
            P.global_unstructured([(m, "weight")], P.LnStructured, amount=0.5, n=1, dim=0)
        if case == "global_scores":
            P.global_unstructured([(m, "weight")], P.L1Unstructured, importance_scores=[1], amount=0.5)
        if case == "global_iter":
            P.global_unstructured(m, P.L1Unstructured, amount=0.5)
        if case == "container":
            c = P.PruningContainer(P.Identity.apply(lib.nn.Linear(2, 2), "weight"))
            c.add_pruning_method(3)
        if case == "chain_count":
            P.ln_structured(m, "weight", amount=2, n=1, dim=0)
            P.ln_structured(m, "weight", amount=2, n=1, dim=0)
    _same_error(fn)


def test_failed_prune_leaves_module_usable() -> None:
    P = _prune_mod(ember)
    m = ember.nn.Linear(4, 3)
    P.ln_structured(m, "weight", amount=2, n=1, dim=0)
    with pytest.raises(ValueError, match="smaller than the number of parameters to prune=1"):
        P.ln_structured(m, "weight", amount=2, n=1, dim=0)
    hooks = list(m._forward_pre_hooks.values())
    assert [type(h).__name__ for h in hooks] == ["LnStructured"]  # the refused method left no trace
    P.ln_structured(m, "weight", amount=1, n=1, dim=0)
    assert m.weight_mask.sum().item() == 0.0
    P.remove(m, "weight")
    assert sorted(n for n, _ in m.named_parameters()) == ["bias", "weight"]
