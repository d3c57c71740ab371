"""``ember.backends.mha``: the fast-path switch of ``nn.MultiheadAttention`` (recorded)."""

from __future__ import annotations

_fastpath = [True]


def get_fastpath_enabled() -> bool:
    return _fastpath[0]


def set_fastpath_enabled(value: bool) -> None:
    _fastpath[0] = bool(value)
