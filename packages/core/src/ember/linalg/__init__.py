"""ember.linalg: linear algebra (norms now; decompositions with the linear-algebra issue)."""

from __future__ import annotations

from ember._lib import _C

vector_norm = _C._linalg_vector_norm

__all__ = ["vector_norm"]
