"""DTensor rule of the vector norms (``norm``, ``linalg.vector_norm``, ``_foreach_norm``).

A norm over a sharded dim is computed on each rank's part and left pending, as PyTorch does:
``_NormPartial(p)`` for a p-norm (the pieces combine as the p-norm of the local norms),
``Partial(max)``/``Partial(min)`` for the inf/-inf norms and ``Partial(sum)`` for the 0-"norm"
(a count). Partial inputs are settled first: the norm of a sum is not the sum of norms.
"""

from __future__ import annotations

import math
from typing import Any

import ember
from ember import Tensor

from ._dtensor import DTensor, DTensorSpec, adopt
from ._ops import _reduced_dims, _reduced_shape, _repl, _to, _unpartial, local_view
from .placement_types import Partial, Placement, Shard, _NormPartial


def _pending(order: Any) -> Placement:
    """The placement a norm of order ``order`` leaves where a shard was reduced."""
    if order == math.inf:
        return Partial("max")
    if order == -math.inf:
        return Partial("min")
    if order == 0:
        return Partial("sum")
    return _NormPartial(order)


def norm(self: DTensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
         dtype: Any = None) -> DTensor:
    """``self.norm(p, dim, keepdim)`` / ``linalg.vector_norm``: see the module doc."""
    order: Any = 2 if p in ("fro", None) else p
    dims = [dim] if isinstance(dim, int) else (list(dim) if dim is not None else None)
    if isinstance(order, str) or (p == "fro" and dims is not None and len(dims) == 2):
        # nuclear / matrix norms: on the whole value
        full = _to(self, _repl(self.device_mesh.ndim))
        out = Tensor.norm(local_view(full), p, dim, keepdim)
        return adopt(out, DTensorSpec(self.device_mesh, _repl(self.device_mesh.ndim),
                                      tuple(out.shape)))
    x = _to(self, _unpartial(self.placements))
    red = _reduced_dims(x, dims)
    local = local_view(x)
    if local.numel() == 0 and order in (math.inf, -math.inf):
        # an empty shard holds the identity of the max (norms are >= 0) or min reduction
        fill = 0.0 if order == math.inf else math.inf
        out = ember.full(_reduced_shape(local.shape, red, keepdim), fill, dtype=dtype or local.dtype)
    else:
        out = ember.linalg.vector_norm(local, float(order), dim=red if dims is not None else None,
                                       keepdim=keepdim, dtype=dtype)
    pend = _pending(order)
    placements: list[Placement] = []
    for q in x.placements:
        if isinstance(q, Shard) and q.dim in red:
            placements.append(pend)
        elif isinstance(q, Shard):
            placements.append(Shard(q.dim if keepdim else q.dim - sum(r < q.dim for r in red)))
        else:
            placements.append(q)
    return adopt(out, DTensorSpec(x.device_mesh, tuple(placements),
                                  _reduced_shape(x.shape, red, keepdim)))
