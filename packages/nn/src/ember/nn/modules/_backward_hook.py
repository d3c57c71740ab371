"""Full backward hooks for modules: :class:`BackwardHook` lives in ``ember.utils.hooks`` (as
``torch.utils.hooks.BackwardHook``); re-exported here for ``Module``'s call path."""

from __future__ import annotations

from ember.utils.hooks import BackwardHook

__all__ = ["BackwardHook"]
