"""Neural-network building blocks.

This package will provide :class:`Module` and :class:`Parameter`, the layers
(``Linear``, ``Conv2d``, normalisation, dropout, recurrent cells, ...), the loss
functions, weight initialisation in ``ember.nn.init``, and the stateless
operations in ``ember.nn.functional``, mirroring :mod:`torch.nn`.
"""

from __future__ import annotations

__all__: list[str] = []
