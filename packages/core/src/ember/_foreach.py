"""torch's multi-tensor ``_foreach_*`` ops (the optimizers' foreach path).

The C++ bodies live in csrc/autograd/foreach.cpp. PyTorch's in-place forms return the very list
(or tuple) they were given; the generated bindings build a new list, so the in-place forms
are wrapped here to hand back their argument; the fused optimizer steps return None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember._lib import _C

_INPLACE = ("add_", "sub_", "mul_", "div_", "maximum_", "addcmul_", "addcdiv_", "lerp_", "sqrt_", "neg_",
            "zero_", "copy_")
_OUT_OF_PLACE = ("add", "sub", "mul", "div", "maximum", "addcmul", "addcdiv", "lerp", "sqrt", "neg", "norm")


def _returning_self(name: str) -> Callable[..., Any]:
    impl = getattr(_C, name)

    def op(self: Any, *args: Any, **kwargs: Any) -> Any:
        impl(self, *args, **kwargs)
        return self

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"In place, for every tensor of ``self`` (returns ``self``): torch.{name}."
    return op


def _returning_none(name: str) -> Callable[..., Any]:
    impl = getattr(_C, name)

    def op(*args: Any, **kwargs: Any) -> None:
        impl(*args, **kwargs)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.{name}: a whole optimizer step, one pass over each parameter (returns None)."
    return op


OPS: dict[str, Callable[..., Any]] = {f"_foreach_{n}": getattr(_C, f"_foreach_{n}") for n in _OUT_OF_PLACE}
OPS.update({f"_foreach_{n}": _returning_self(f"_foreach_{n}") for n in _INPLACE})
OPS.update({n: _returning_none(n) for n in ("_fused_adam_", "_fused_adamw_", "_fused_sgd_")})
