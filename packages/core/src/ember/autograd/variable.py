"""``torch.autograd.variable``: the pre-0.4 ``Variable`` wrapper. Tensors and Variables merged
long ago, so ``Variable(t)`` gives a detached alias of the tensor (sharing its memory, requiring
grad if asked) and every tensor is an instance of ``Variable``, as in PyTorch."""

from __future__ import annotations

import warnings
from typing import Any

from ember._lib import _C

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, _C.TensorBase)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False, volatile=False)`` returns ``data`` detached (same
    memory, no history; an empty float tensor without data), requiring grad if asked;
    ``isinstance(t, Variable)`` holds for every tensor."""

    def __new__(cls, data: Any = None, requires_grad: bool = False, volatile: bool = False) -> Any:  # type: ignore[misc]
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          stacklevel=2)
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, _C.TensorBase):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out
