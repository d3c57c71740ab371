"""Placeholders for the parts of torch.distributed ember does not implement (RPC, pipelining,
tensor parallel): the names import, and using one raises NotImplementedError naming it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def message(qualname: str) -> str:
    """The error text for an unimplemented ``qualname`` (e.g. ``torch.distributed.rpc.init_rpc``)."""
    return f"ember: {qualname} is not implemented"


def stub_class(module: str, name: str, doc: str) -> type:
    """A class named ``name`` whose construction raises NotImplementedError."""
    qual = f"{module.replace('ember.', 'torch.', 1)}.{name}"

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(message(qual))

    cls = type(name, (), {"__init__": __init__, "__doc__": doc, "__module__": module})
    return cls


def stub_function(module: str, name: str, doc: str) -> Callable[..., Any]:
    """A function named ``name`` that raises NotImplementedError."""
    qual = f"{module.replace('ember.', 'torch.', 1)}.{name}"

    def fn(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(message(qual))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__module__ = module
    return fn
