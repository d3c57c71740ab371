"""``torch.nn.modules.channelshuffle``: ember's ``ChannelShuffle`` lives in ``pixelshuffle.py``."""

from __future__ import annotations

from ember.nn.modules.module import Module as Module
from ember.nn.modules.pixelshuffle import ChannelShuffle as ChannelShuffle

__all__ = ["ChannelShuffle"]

