"""Data loading utilities.

This package will provide :class:`Dataset`, :class:`IterableDataset`,
:class:`TensorDataset`, the samplers, ``default_collate`` and
:class:`DataLoader` with multi-process workers, mirroring
:mod:`torch.utils.data`.
"""

from __future__ import annotations

__all__: list[str] = []
