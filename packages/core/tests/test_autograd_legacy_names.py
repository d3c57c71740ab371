"""ember.autograd's legacy and flag names against PyTorch: Variable (a tensor is one),
is_multithreading_enabled / set_multithreading_enabled, is_view_replay_enabled."""

from __future__ import annotations

import warnings

import ember
import pytest

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("lib", [ember, torch], ids=["ember", "torch"])
def test_variable(lib: object) -> None:
    V = lib.autograd.Variable  # type: ignore[attr-defined]
    t = lib.ones(2)  # type: ignore[attr-defined]
    v = V(t, requires_grad=True)
    assert v is not t and v.requires_grad and not t.requires_grad and v.data_ptr() == t.data_ptr()
    h = lib.ones(2, requires_grad=True) * 2  # type: ignore[attr-defined]
    assert V(h).grad_fn is None and not V(h).requires_grad
    assert isinstance(lib.ones(1), V) and isinstance(lib.nn.Parameter(lib.ones(1)), V)  # type: ignore[attr-defined]
    assert not isinstance(3, V)
    assert tuple(V().shape) == (0,)
    assert lib.autograd.variable.Variable is V  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got int"):
        V(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        V(lib.ones(1), volatile=True)  # type: ignore[attr-defined]
    assert [str(w.message) for w in caught] == [
        "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."]


@pytest.mark.parametrize("lib", [ember, torch], ids=["ember", "torch"])
def test_multithreading_flag(lib: object) -> None:
    ag = lib.autograd  # type: ignore[attr-defined]
    assert ag.is_multithreading_enabled() is True and ag.is_view_replay_enabled() is False
    with ag.set_multithreading_enabled(False):
        assert ag.is_multithreading_enabled() is False
    assert ag.is_multithreading_enabled() is True
