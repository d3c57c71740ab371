"""Model averaging (torch.distributed.algorithms.model_averaging): averaging the parameters
themselves across ranks, as post-local SGD does after its local steps."""

from __future__ import annotations

from . import averagers, utils

__all__ = ["averagers", "utils"]
