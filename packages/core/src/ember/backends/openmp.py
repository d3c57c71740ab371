"""``ember.backends.openmp``: ember's CPU kernels run their parallel loops on OpenMP."""

from __future__ import annotations


def is_available() -> bool:
    return True
