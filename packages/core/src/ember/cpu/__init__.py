"""``ember.cpu``: the CPU device module (as ``torch.cpu``)."""

from __future__ import annotations

from typing import Any


def is_available() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def synchronize(device: Any = None) -> None:
    """CPU ops are synchronous: nothing to wait for."""


def __getattr__(name: str) -> Any:
    if name == "amp":
        import importlib

        return importlib.import_module("ember.cpu.amp")
    raise AttributeError(f"module 'ember.cpu' has no attribute '{name}'")
