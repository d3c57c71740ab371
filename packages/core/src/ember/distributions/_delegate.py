"""Read-only properties that forward to an attribute of an inner object: the base distribution of
a transformed distribution, or the categorical a multivariate distribution is built on."""

from __future__ import annotations

from operator import attrgetter
from typing import Any

__all__: list[str] = []


def _delegated_property(owner: str, name: str, doc: str) -> property:
    """A read-only property, documented by ``doc``, returning ``name`` of the object found at the
    dotted path ``owner`` from the instance (``"base_dist"``, ``"base_dist.base_dist"``, ...)."""
    get = attrgetter(f"{owner}.{name}")

    def fget(self: Any) -> Any:
        return get(self)

    fget.__name__ = fget.__qualname__ = name
    fget.__doc__ = doc
    return property(fget, doc=doc)
