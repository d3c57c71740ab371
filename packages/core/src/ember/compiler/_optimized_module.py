"""``OptimizedModule``: what ``ember.compile(module)`` returns, shaped as PyTorch's."""

from __future__ import annotations

from typing import Any

from ember.nn import Module

# Attributes that live on the wrapper; every other one is read from and written to the original.
_OWN = frozenset({"_orig_mod", "dynamo_ctx", "_torchdynamo_orig_callable", "get_compiler_config", "forward",
                  "_forward", "__dict__", "named_children_walk", "_super_module_initialized"})


class OptimizedModule(Module):
    """Wraps ``_orig_mod`` (a registered child, so state_dict keys carry ``_orig_mod.``); calls run it eagerly."""

    def __init__(self, mod: Module) -> None:
        super().__init__()
        self._orig_mod = mod
        self._torchdynamo_orig_callable = mod.__call__
        self.forward = mod.__call__  # the original's hooks run inside, as under PyTorch

    def __getattr__(self, name: str) -> Any:
        mods = self.__dict__.get("_modules", {})
        if "_orig_mod" not in mods:  # still inside Module.__init__
            raise AttributeError(f"'OptimizedModule' object has no attribute '{name}'")
        if name == "_orig_mod":
            return mods["_orig_mod"]
        return getattr(mods["_orig_mod"], name)

    @property
    def training(self) -> bool:  # type: ignore[override]
        return self._orig_mod.training

    @training.setter
    def training(self, value: bool) -> None:
        if "_orig_mod" in self.__dict__.get("_modules", {}):  # Module.__init__ sets it before there is one
            self._orig_mod.training = value

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _OWN or "_orig_mod" not in self.__dict__.get("_modules", {}):
            super().__setattr__(name, value)
        else:
            setattr(self._orig_mod, name, value)

    def __delattr__(self, name: str) -> None:
        if name in _OWN:
            super().__delattr__(name)
        else:
            delattr(self._orig_mod, name)

    def _call_impl(self, *args: Any, **kwargs: Any) -> Any:
        return Module._call_impl(self, *args, **kwargs)

    def get_compiler_config(self) -> dict[str, Any]:
        return {}

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(dir(self._orig_mod)))
