"""Selective activation checkpointing (create_selective_checkpoint_contexts) and the smaller knobs
of ember.utils.checkpoint."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any

import ember
import ember.utils.checkpoint as ckpt
import numpy as np
import pytest
from _nn_testutil import close
from ember.overrides import TorchFunctionMode
from ember.utils.checkpoint import (
    CheckpointPolicy,
    SelectiveCheckpointContext,
    checkpoint,
    create_selective_checkpoint_contexts,
    noop_context_fn,
)

RNG = np.random.default_rng(3)
_COUNTED = ("mm", "sin", "relu", "dropout")


class _Count(TorchFunctionMode):
    """Records the ops that actually run (it sits below the selective-checkpoint mode)."""

    def __init__(self, calls: list[str]) -> None:
        super().__init__()
        self.calls = calls

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        name = getattr(func, "__name__", "")
        if name in _COUNTED:
            self.calls.append(name)
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def _stack(*cms: Any) -> Iterator[None]:
    with contextlib.ExitStack() as es:
        for cm in cms:
            es.enter_context(cm)
        yield


def _counting(inner: Callable[[], tuple[Any, Any]], calls: list[str]) -> Callable[[], tuple[Any, Any]]:
    def context_fn() -> tuple[Any, Any]:
        fwd, rec = inner()
        return _stack(_Count(calls), fwd), _stack(_Count(calls), rec)

    return context_fn


def _block(x: ember.Tensor, w: ember.Tensor) -> ember.Tensor:
    y = ember.mm(x, w)
    return ember.nn.functional.dropout(ember.sin(y).relu(), 0.3) * 2


def _run(context_fn: Any, use_ckpt: bool = True) -> tuple[list[Any], list[str]]:
    ember.manual_seed(0)
    x = ember.tensor(RNG.normal(size=(4, 3)).tolist(), requires_grad=True)
    w = ember.tensor(RNG.normal(size=(3, 5)).tolist(), requires_grad=True)
    calls: list[str] = []
    ember.manual_seed(1)
    if use_ckpt:
        out = checkpoint(_block, x, w, use_reentrant=False, context_fn=_counting(context_fn, calls))
    else:
        out = _block(x, w)
    (out * out).sum().backward()
    return [out, x.grad, w.grad], calls


def _policy_save(*ops: Any) -> Callable[..., CheckpointPolicy]:
    def policy(ctx: SelectiveCheckpointContext, op: Any, *args: Any, **kwargs: Any) -> CheckpointPolicy:
        assert isinstance(ctx.is_recompute, bool)
        return CheckpointPolicy.MUST_SAVE if op in ops else CheckpointPolicy.PREFER_RECOMPUTE

    return policy


@pytest.mark.parametrize("how", ["list", "policy", "bool"])
def test_saved_op_is_not_rerun_and_gradients_match(how: str) -> None:
    global RNG
    RNG = np.random.default_rng(3)
    plain, _ = _run(noop_context_fn, use_ckpt=False)
    RNG = np.random.default_rng(3)
    full, calls_full = _run(noop_context_fn)
    assert calls_full == ["mm", "sin", "relu", "dropout"] * 2  # plain checkpoint reruns everything
    if how == "list":
        ctx = functools.partial(create_selective_checkpoint_contexts, [ember.mm])
    elif how == "policy":
        ctx = functools.partial(create_selective_checkpoint_contexts, _policy_save(ember.mm))
    else:
        ctx = functools.partial(create_selective_checkpoint_contexts, lambda c, op, *a, **k: op is ember.mm)
    RNG = np.random.default_rng(3)
    sel, calls = _run(ctx)
    assert calls == ["mm", "sin", "relu", "dropout", "sin", "relu", "dropout"]
    for a, b, c in zip(plain, full, sel):
        close(a, b, atol=1e-6)
        close(a, c, atol=1e-6)


def test_saving_several_ops_including_random_ones() -> None:
    global RNG
    RNG = np.random.default_rng(3)
    plain, _ = _run(noop_context_fn, use_ckpt=False)
    RNG = np.random.default_rng(3)
    ctx = functools.partial(create_selective_checkpoint_contexts,
                            _policy_save(ember.mm, ember.nn.functional.dropout, ember.Tensor.relu))
    sel, calls = _run(ctx)
    assert calls == ["mm", "sin", "relu", "dropout", "sin"]
    for a, c in zip(plain, sel):
        close(a, c, atol=1e-6)


def test_module_block_matches_torch(torch: Any) -> None:
    # a small MLP under selective checkpointing gives torch's gradients (the same weights)
    torch.manual_seed(0)
    mt = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    me = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.Tanh(), ember.nn.Linear(8, 2))
    me.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy()) for k, v in mt.state_dict().items()})
    xt = torch.tensor(RNG.normal(size=(3, 4)), dtype=torch.float32, requires_grad=True)
    xe = ember.from_numpy(xt.detach().numpy().copy()).requires_grad_()
    ops_t = [torch.ops.aten.addmm.default, torch.ops.aten.mm.default]
    yt = torch.utils.checkpoint.checkpoint(
        mt, xt, use_reentrant=False,
        context_fn=functools.partial(torch.utils.checkpoint.create_selective_checkpoint_contexts, ops_t))
    ye = checkpoint(me, xe, use_reentrant=False,
                    context_fn=functools.partial(create_selective_checkpoint_contexts, [ember.nn.functional.linear]))
    yt.pow(2).sum().backward()
    ye.pow(2).sum().backward()
    close(ye, yt, atol=1e-6)
    close(xe.grad, xt.grad, atol=1e-6)
    for pe, pt in zip(me.parameters(), mt.parameters()):
        close(pe.grad, pt.grad, atol=1e-6)


def test_errors() -> None:
    with pytest.raises(TypeError, match="policy_fn_or_list must be either a function or a list of ops."):
        create_selective_checkpoint_contexts(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Expected op in `op_list` to be an OpOverload"):
        create_selective_checkpoint_contexts(["mm"])
    # a cached output changed in place before backward
    x = ember.randn(3, 3, requires_grad=True)

    def f(a: ember.Tensor) -> tuple[ember.Tensor, ember.Tensor]:
        y = ember.mm(a, a)
        return y.sin(), y

    ctx = functools.partial(create_selective_checkpoint_contexts, [ember.mm])
    out, y = checkpoint(f, x, use_reentrant=False, context_fn=ctx)
    with ember.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="Tensor cached during selective activation checkpoint has been mutated"):
        out.sum().backward()
    ok = functools.partial(create_selective_checkpoint_contexts, [ember.mm], allow_cache_entry_mutation=True)
    out, y = checkpoint(f, x, use_reentrant=False, context_fn=ok)
    with ember.no_grad():
        y.add_(1)
    out.sum().backward()
    # the kept outputs serve one backward
    out, _ = checkpoint(f, x, use_reentrant=False, context_fn=ctx)
    out.sum().backward(retain_graph=True)
    with pytest.raises(RuntimeError, match="Trying to backward an extra time"):
        out.sum().backward()


def test_knobs_like_torch(torch: Any) -> None:
    tc = torch.utils.checkpoint
    assert set(tc.__all__) - set(ckpt.__all__) == {"GraphExecGroup"}
    assert {p.name: p.value for p in CheckpointPolicy} == {p.name: p.value for p in tc.CheckpointPolicy}
    assert ckpt.DefaultDeviceType.get_device_type() == tc.DefaultDeviceType.get_device_type() == "cpu"
    ckpt.DefaultDeviceType.set_device_type()
    try:
        assert ckpt.DefaultDeviceType.get_device_type() == "cuda"
    finally:
        ckpt.DefaultDeviceType._default_device_type = None
    assert ckpt.get_device_states(ember.ones(2), 3) == ([], []) == tc.get_device_states(torch.ones(2), 3)
    ckpt.set_device_states([], [])
    from ember.utils import _checkpoint_sac as sac

    with ckpt.set_checkpoint_early_stop(False), ckpt.set_checkpoint_debug_enabled(True):
        assert sac._enable_checkpoint_early_stop is False and sac._checkpoint_debug_enabled is True
    assert sac._enable_checkpoint_early_stop is None and sac._checkpoint_debug_enabled is None
    assert issubclass(ckpt.CheckpointError, RuntimeError)
    assert callable(ckpt.checkpoint_sequential)
