"""Optimization algorithms.

This package will provide :class:`Optimizer` and its subclasses (``SGD``,
``Adam``, ``AdamW``, ...) together with the learning-rate schedulers in
``ember.optim.lr_scheduler``, mirroring :mod:`torch.optim`.
"""

from __future__ import annotations

__all__: list[str] = []
