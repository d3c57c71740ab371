"""Bottleneck: a first-pass profiler for whole scripts.

Run as ``python -m ember.utils.bottleneck script.py``; it will summarise the
script with cProfile and the ember profiler, mirroring
:mod:`torch.utils.bottleneck`.
"""

from __future__ import annotations

__all__: list[str] = []
