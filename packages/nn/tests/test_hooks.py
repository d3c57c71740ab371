"""Forward and backward hooks, compared with torch where values matter."""

from __future__ import annotations

from typing import Any

import ember
import ember.nn as nn
import pytest
from _nn_testutil import close, copy_params, pair


def test_forward_pre_and_post_hooks() -> None:
    m = nn.Linear(2, 2)
    calls: list[str] = []

    def pre(mod: Any, args: Any) -> Any:
        calls.append("pre")
        return args[0] * 0  # non-tuple return is wrapped

    def pre_first(mod: Any, args: Any) -> None:
        calls.append("first")

    def post(mod: Any, args: Any, out: Any) -> Any:
        calls.append("post")
        return out + 1

    h1 = m.register_forward_pre_hook(pre)
    m.register_forward_pre_hook(pre_first, prepend=True)
    h3 = m.register_forward_hook(post)
    y = m(ember.ones(1, 2))
    assert calls == ["first", "pre", "post"]
    close(y, m.bias.detach().reshape(1, 2) + 1)
    h1.remove()
    h3.remove()
    close(m(ember.zeros(1, 2)), m.bias.detach().reshape(1, 2))


def test_hooks_with_kwargs_and_always_call() -> None:
    class M(nn.Module):
        def forward(self, x: Any, *, scale: float = 1.0) -> Any:
            if scale < 0:
                raise ValueError("negative")
            return x * scale

    m = M()
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"scale": kwargs["scale"] * 2}), with_kwargs=True)
    seen: list[Any] = []
    m.register_forward_hook(lambda mod, args, kwargs, out: seen.append(kwargs["scale"]), with_kwargs=True)
    assert m(ember.ones(1), scale=3.0).item() == 6.0 and seen == [6.0]
    always: list[int] = []
    with m.register_forward_hook(lambda mod, args, out: always.append(1), always_call=True):
        with pytest.raises(ValueError):
            m(ember.ones(1), scale=-1.0)
    assert always == [1]
    m(ember.ones(1), scale=1.0)
    assert always == [1]  # the context manager removed it


def _backward_record(lib: Any, m: Any, x: Any) -> tuple[list[Any], list[Any]]:
    got_in: list[Any] = []
    got_out: list[Any] = []

    def hook(mod: Any, gin: Any, gout: Any) -> Any:
        got_in.append([None if g is None else g.detach().numpy().copy() for g in gin])
        got_out.append([g.detach().numpy().copy() for g in gout])
        return (gin[0] * 2,)

    def pre(mod: Any, gout: Any) -> Any:
        return (gout[0] * 3,)

    m.register_full_backward_pre_hook(pre)
    m.register_full_backward_hook(hook)
    m(x).sum().backward()
    return got_in, got_out


def test_full_backward_hooks_match_torch(torch: Any) -> None:
    te = torch.nn.Linear(3, 2)
    ee = nn.Linear(3, 2)
    copy_params(te, ee)
    xe, xt = pair(torch, [[1.0, -2.0, 0.5]], requires_grad=True)
    ein, eout = _backward_record(ember, ee, xe)
    tin, tout = _backward_record(torch, te, xt)
    close(ein[0][0], tin[0][0])
    close(eout[0][0], tout[0][0])
    close(xe.grad, xt.grad)
    close(ee.weight.grad, te.weight.grad)


def test_full_backward_hook_without_input_grad(torch: Any) -> None:
    ee = nn.Linear(3, 2)
    seen: list[Any] = []
    ee.register_full_backward_hook(lambda mod, gin, gout: seen.append((gin, gout[0].shape)))
    ee(ember.ones(1, 3)).sum().backward()
    assert seen and seen[0][0] == (None,) and seen[0][1] == (1, 2)
    assert ee.weight.grad is not None


def test_backward_hooks_multiple_inputs_outputs_match_torch(torch: Any) -> None:
    def record(lib: Any, y_requires_grad: bool) -> list[Any]:
        class Two(lib.nn.Module):
            def forward(self, x: Any, y: Any, k: int = 3) -> Any:
                return x * 2, y * k

        m = Two()
        seen: list[Any] = []

        def as_lists(gs: Any) -> Any:
            return tuple(None if g is None else g.tolist() for g in gs)

        m.register_full_backward_pre_hook(lambda mod, go: seen.append(as_lists(go)))
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((as_lists(gi), as_lists(go))))
        x, y = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=y_requires_grad)
        a, _ = m(x, y, 3)
        a.sum().backward()
        return seen

    for flag in (False, True):
        assert record(ember, flag) == record(torch, flag)
