"""Top-level functions that take DTensors: ``ember.matmul``/``mm`` and ``nn.functional.linear``.

ember has no ``__torch_function__``, so these few module functions are wrapped (when this
package is imported) by a check that sends DTensor arguments to the DTensor rules and
everything else, unchanged, to the original function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember

from ._dtensor import DTensor


def _dispatching(original: Callable[..., Any], dtensor_impl: Callable[..., Any]) -> Callable[..., Any]:
    def fn(*args: Any, **kwargs: Any) -> Any:
        for a in args:
            if isinstance(a, DTensor):
                return dtensor_impl(*args, **kwargs)
        return original(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = original.__name__
    fn.__doc__ = original.__doc__
    fn.__wrapped__ = original  # type: ignore[attr-defined]
    return fn


def _linear(input: Any, weight: Any, bias: Any = None) -> Any:
    from ._ops import _MIXED

    for t in (input, weight, bias):
        if t is not None and not isinstance(t, DTensor):
            raise RuntimeError(_MIXED.format(op="aten.linear"))
    out = input.matmul(weight.t())
    return out if bias is None else out + bias


def install() -> None:
    if getattr(ember.matmul, "__wrapped__", None) is not None:
        return
    ember.matmul = _dispatching(ember.matmul, lambda a, b: DTensor.matmul(a, b) if isinstance(a, DTensor)
                                else DTensor.__rmatmul__(b, a))
    ember.mm = _dispatching(ember.mm, lambda a, b: DTensor.matmul(a, b) if isinstance(a, DTensor)
                            else DTensor.__rmatmul__(b, a))
    try:
        import ember.nn.functional as F
    except ImportError:  # ember-nn not installed: nothing to wrap
        return
    F.linear = _dispatching(F.linear, _linear)
