"""DLPack methods of ``ember.Tensor`` (``__dlpack__``, ``__dlpack_device__``)."""

from __future__ import annotations


class DLPackMethods:
    """Mixed into ``ember.Tensor``; the DLPack work fills it in."""

    __slots__ = ()
