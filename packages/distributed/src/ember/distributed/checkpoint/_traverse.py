"""Flattening nested state dicts to dotted keys (``{'model': {'0.weight': t}}`` ->
``'model.0.weight'``) and back, with PyTorch's rules: dicts are always entered, lists only
when they hold tensors or containers of tensors, everything else is a leaf."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import ember

OBJ_PATH = tuple[str | int, ...]
FLATTEN_MAPPING = dict[str, OBJ_PATH]


def _is_terminal(value: Any) -> bool:
    if isinstance(value, Mapping):
        return False
    if not isinstance(value, list):
        return True
    for entry in value:
        if isinstance(entry, (Mapping, list)) and not _is_terminal(entry):
            return False
        if isinstance(entry, ember.Tensor):
            return False
    return True


def traverse_state_dict(state_dict: Mapping[str, Any], visitor: Callable[[OBJ_PATH, Any], None]) -> None:
    """Call ``visitor(path, leaf)`` for every leaf, depth first in insertion order."""

    def visit(path: OBJ_PATH, value: Any) -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                visit(path + (str(k),), v)
        elif _is_terminal(value):
            visitor(path, value)
        else:
            for i, v in enumerate(value):
                visit(path + (i,), v)

    for key, value in state_dict.items():
        visit((str(key),), value)


def flatten_state_dict(state_dict: Mapping[str, Any]) -> tuple[dict[str, Any], FLATTEN_MAPPING]:
    flat: dict[str, Any] = {}
    mapping: FLATTEN_MAPPING = {}

    def add(path: OBJ_PATH, value: Any) -> None:
        fqn = ".".join(map(str, path))
        if fqn in flat:
            raise ValueError(f"duplicated flatten key {fqn}")
        flat[fqn] = value
        mapping[fqn] = path

    traverse_state_dict(state_dict, add)
    return flat, mapping


def set_element(root: Any, path: OBJ_PATH, value: Any) -> None:
    """Put ``value`` at ``path`` in ``root``, creating dicts/lists on the way."""
    cur = root
    for i in range(1, len(path)):
        prev, key = path[i - 1], path[i]
        default: Any = {} if isinstance(key, str) else []
        if isinstance(cur, Mapping):
            cur = cur.setdefault(prev, default)
        else:
            while len(cur) <= prev:
                cur.append(None)
            if cur[prev] is None:
                cur[prev] = default
            cur = cur[prev]
    last = path[-1]
    if isinstance(cur, list):
        while len(cur) <= last:
            cur.append(None)
    cur[last] = value


def get_element(root: Any, path: OBJ_PATH) -> Any:
    cur = root
    for key in path:
        cur = cur[key]
    return cur


def unflatten_state_dict(flat: Mapping[str, Any], mapping: FLATTEN_MAPPING) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for key, value in flat.items():
        set_element(nested, mapping[key], value)
    return nested
