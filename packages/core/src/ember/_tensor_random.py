"""In-place random sampling methods of ``ember.Tensor`` (uniform_, normal_, ...)."""

from __future__ import annotations


class RandomMethods:
    """Mixed into ``ember.Tensor``; the random-numbers work fills it in."""

    __slots__ = ()
