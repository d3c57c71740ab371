"""Objects that save and restore themselves through DCP (an optimizer wrapper, a data loader
position...): ``save`` stores their ``state_dict()``, ``load`` calls ``load_state_dict``."""

from __future__ import annotations

from typing import Any, Protocol, TypeVar, runtime_checkable

__all__ = ["Stateful", "StatefulT"]


@runtime_checkable
class Stateful(Protocol):
    def state_dict(self) -> dict[str, Any]:
        ...

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        ...


StatefulT = TypeVar("StatefulT", bound=Stateful)
