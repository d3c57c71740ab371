"""Distributed communication package.

This package will provide process groups (``init_process_group``,
``get_rank``, ``get_world_size``), the collectives (``all_reduce``,
``broadcast``, ``all_gather``, ``barrier``, ...) over MPI, and
``DistributedDataParallel``, mirroring :mod:`torch.distributed`.
"""

from __future__ import annotations

__all__: list[str] = []
