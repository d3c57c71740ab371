"""The user's additions to the ``weights_only`` allow-list (``add_safe_globals`` & co)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SafeGlobal = Callable[..., Any] | tuple[Callable[..., Any], str]

_user_globals: set[Any] = set()


def add_safe_globals(safe_globals: list[SafeGlobal]) -> None:
    """Mark functions/classes as safe for ``weights_only`` loading.

    Each item is the object itself (matched by ``{__module__}.{__qualname__}``)
    or ``(obj, "full.path")`` to match a different name in the checkpoint.
    """
    global _user_globals
    _user_globals = _user_globals.union(safe_globals)


def get_safe_globals() -> list[SafeGlobal]:
    """The user-added safe globals."""
    return list(_user_globals)


def clear_safe_globals() -> None:
    """Forget every user-added safe global."""
    global _user_globals
    _user_globals = set()


def _remove_safe_globals(safe_globals: list[SafeGlobal]) -> None:
    global _user_globals
    _user_globals = _user_globals - set(safe_globals)


class safe_globals:
    """Context manager: the given globals are safe for ``weights_only`` loads inside the block."""

    def __init__(self, safe_globals: list[SafeGlobal]) -> None:
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc: Any) -> None:
        _remove_safe_globals(self.safe_globals)


def user_globals() -> dict[str, Any]:
    """``{"module.qualname": obj}`` for the current user allow-list."""
    out: dict[str, Any] = {}
    for item in _user_globals:
        if isinstance(item, tuple):
            if len(item) != 2:
                raise ValueError(
                    f"Expected tuple of length 2 (global, str of callable full path), but got tuple of "
                    f"length: {len(item)}"
                )
            if type(item[1]) is not str:
                raise TypeError(
                    f"Expected second item in tuple to be str of callable full path, but got: {type(item[1])}"
                )
            out[item[1]] = item[0]
        else:
            out[f"{item.__module__}.{item.__qualname__}"] = item
    return out
