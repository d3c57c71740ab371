"""Inference tensors (made under inference_mode), side by side with PyTorch 2.13: the flag, what
views inherit, and the errors for using them outside the mode (in-place, saved for backward,
requires_grad, the version counter)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")


def _flags(lib: Any) -> tuple[bool, ...]:
    normal = lib.ones(3)
    with lib.inference_mode():
        made = lib.ones(3)
        view_of_normal = normal[1:]
        computed = normal * 2
        with lib.inference_mode(False):
            made_off = lib.ones(3)
    return (normal.is_inference(), made.is_inference(), made[1:].is_inference(), view_of_normal.is_inference(),
            computed.is_inference(), made_off.is_inference(), lib.is_inference(made), (made + 1).is_inference())


def test_which_tensors_are_inference_tensors() -> None:
    assert _flags(ember) == _flags(torch)


def _inference(lib: Any) -> Any:
    with lib.inference_mode():
        return lib.ones(3)


CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "inplace": lambda lib, x: x.add_(1),
    "inplace-view": lambda lib, x: x[1:].mul_(2),
    "saved-for-backward": lambda lib, x: (x * lib.ones(3, requires_grad=True)).sum().backward(),
    "requires-grad": lambda lib, x: x.requires_grad_(),
    "version": lambda lib, x: x._version,
}


def _outcome(lib: Any, call: Callable[[Any, Any], Any]) -> str:
    try:
        call(lib, _inference(lib))
    except RuntimeError as e:
        return str(e)
    return "ok"


@pytest.mark.parametrize("name", sorted(CALLS))
def test_errors_outside_the_mode(name: str) -> None:
    ours, theirs = _outcome(ember, CALLS[name]), _outcome(torch, CALLS[name])
    assert ours == theirs
    assert theirs != "ok"


def test_allowed_inside_the_mode_and_out_of_place_outside() -> None:
    for lib in (ember, torch):
        x = _inference(lib)
        with lib.inference_mode():
            x.add_(1)
        y = x * 2  # out of place, no grad: allowed anywhere
        assert y.tolist() == [4.0, 4.0, 4.0] and not y.is_inference()
