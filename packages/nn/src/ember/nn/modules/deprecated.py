"""Deprecated module classes PyTorch keeps for old code: ``NLLLoss2d`` and ``Container``.

As PyTorch's (``typing_extensions.deprecated`` on the class), each warns a ``FutureWarning`` when it
is instantiated and when it is subclassed, and carries the message as ``__deprecated__``.
"""

from __future__ import annotations

import warnings
from typing import Any

from ember import Tensor
from ember.nn.modules.loss import NLLLoss
from ember.nn.modules.module import Module

__all__ = ["NLLLoss2d", "Container"]

_NLLLOSS2D_MESSAGE = ("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in replacement and see "
                      "https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more details.")
_CONTAINER_MESSAGE = ("`nn.Container` is deprecated. All of its functionality is now implemented in `nn.Module`. "
                      "Subclass that instead.")


class NLLLoss2d(NLLLoss):
    """Deprecated alias of ``NLLLoss`` (which handles any number of spatial dimensions): the same
    arguments and results, with a ``FutureWarning`` when made.

    Args:
        weight (Tensor, optional): ``(C,)`` per-class weights.
        size_average, reduce: deprecated spellings of ``reduction``.
        ignore_index (int): a target value that contributes nothing.
        reduction (str): ``"mean"`` (the default), ``"sum"`` or ``"none"``.
    """

    __deprecated__ = _NLLLOSS2D_MESSAGE

    def __new__(cls, *args: Any, **kwargs: Any) -> NLLLoss2d:
        if cls is NLLLoss2d:  # a subclass warned when it was defined
            warnings.warn(_NLLLOSS2D_MESSAGE, FutureWarning, stacklevel=2)
        return super().__new__(cls)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        warnings.warn(_NLLLOSS2D_MESSAGE, FutureWarning, stacklevel=2)
        super().__init_subclass__(**kwargs)

    def __init__(self, weight: Tensor | None = None, size_average: Any = None, ignore_index: int = -100,
                 reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class Container(Module):
    """Deprecated: a Module whose keyword arguments become its submodules (``Container(fc=nn.Linear(2,
    3))`` registers ``fc``); everything it did is now ``Module``'s, so subclass that instead. Warns a
    ``FutureWarning`` when made.

    Args:
        kwargs: the submodules, by name.
    """

    __deprecated__ = _CONTAINER_MESSAGE

    def __new__(cls, *args: Any, **kwargs: Any) -> Container:
        if cls is Container:  # a subclass warned when it was defined
            warnings.warn(_CONTAINER_MESSAGE, FutureWarning, stacklevel=2)
        return super().__new__(cls)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        warnings.warn(_CONTAINER_MESSAGE, FutureWarning, stacklevel=2)
        super().__init_subclass__(**kwargs)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)
