"""with_modules=True: each nn.Module call becomes a `nn.Module: <Class>_<n>` range, so ops
show the module hierarchy they ran in (n numbers the instances of a class in call order)."""

from __future__ import annotations

import threading
from typing import Any

from ._record import record_function


class ModuleRanges:
    """Global module forward hooks opening/closing one range per module call."""

    def __init__(self) -> None:
        self._handles: list[Any] = []
        self._names: dict[int, str] = {}
        self._per_class: dict[str, int] = {}
        self._open = threading.local()

    def _name(self, mod: Any) -> str:
        name = self._names.get(id(mod))
        if name is None:
            cls = type(mod).__name__
            n = self._per_class.get(cls, 0)
            self._per_class[cls] = n + 1
            name = self._names[id(mod)] = f"nn.Module: {cls}_{n}"
        return name

    def _pre(self, mod: Any, args: Any) -> None:
        rf = record_function(self._name(mod))
        rf.__enter__()
        stack = getattr(self._open, "stack", None)
        if stack is None:
            stack = self._open.stack = []
        stack.append(rf)

    def _post(self, mod: Any, args: Any, out: Any) -> None:
        stack = getattr(self._open, "stack", None)
        if stack:
            stack.pop().__exit__(None, None, None)

    def install(self) -> None:
        try:
            from ember.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
        except ImportError:  # ember-nn not installed: no modules to observe
            return
        self._handles = [register_module_forward_pre_hook(self._pre), register_module_forward_hook(self._post)]

    def remove(self) -> None:
        for h in self._handles:
            h.remove()
        self._handles = []
