"""``skip_init``: build a module without initialising its parameters and buffers."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from ember.nn.modules.module import Module

__all__ = ["skip_init"]

_M = TypeVar("_M", bound="Module")


def skip_init(module_cls: type[_M], *args: Any, **kwargs: Any) -> _M:
    """Instantiate ``module_cls(*args, **kwargs)`` with its parameters and buffers left uninitialised,
    as if made by ``ember.empty``: for when a custom initialisation follows anyway.

    The module must take a ``device`` argument that it passes to every parameter and buffer it
    creates, and its constructor must compute nothing from them beyond initialising them (the
    functions of ``ember.nn.init``). ``device`` (default ``"cpu"``) is where the module ends up.

    Args:
        module_cls: a subclass of ``ember.nn.Module``.
        args: the positional arguments of its constructor.
        kwargs: the keyword arguments of its constructor.

    Returns:
        the module, its parameters and buffers holding uninitialised memory.

    Raises:
        RuntimeError: ``module_cls`` is not a Module class, or its constructor takes no ``device``.

    Example::

        >>> m = nn.utils.skip_init(nn.Linear, 5, 1)
        >>> m.weight.shape, m.weight.requires_grad
        (torch.Size([1, 5]), True)
    """
    from ember.nn.modules.module import Module

    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    # built on the meta device (nothing allocated, no initialiser's draws), then given memory
    kwargs["device"] = "meta"
    return cast("_M", module_cls(*args, **kwargs).to_empty(device=final_device))
