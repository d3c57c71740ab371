"""Benchmarking utilities.

This package will provide :class:`Timer` (with ``timeit``,
``blocked_autorange`` and ``adaptive_autorange``), :class:`Measurement`
and :class:`Compare` for side-by-side tables, mirroring
:mod:`torch.utils.benchmark`. Timing C++ snippets needs the optional
``cpp`` extra: ``pip install ember-benchmark[cpp]``.
"""

from __future__ import annotations

__all__: list[str] = []
