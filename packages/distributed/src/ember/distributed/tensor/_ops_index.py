"""DTensor rules of the index-driven ops (gather, scatter/scatter_add, index_add) and of the
classification losses (nll_loss, cross_entropy), with PyTorch's placements.

Per mesh dim each op keeps a shard it can compute locally: a dim the op does not index along
(every operand sharded alike on it), the indexed dim of a gather with one index per row
(each rank looks up what it owns, zeros elsewhere: a _MaskPartial sum), an index_add into a
Partial (the added source becomes a Partial term). A Partial input is reduce-scattered onto such a
dim where one exists (cheaper than replicating, PyTorch's choice); otherwise replicated.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ember
from ember import Tensor

from ._dtensor import DTensor, DTensorSpec, adopt
from ._ops import _to, check_mesh, local_view, mixed_error
from ._ops_nn import _MaskPartial
from ._utils import chunk_offset, chunk_sizes
from .placement_types import Partial, Placement, Replicate, Shard


def _dts(name: str, *ts: Any) -> None:
    for t in ts:
        if isinstance(t, Tensor) and not isinstance(t, DTensor):
            raise mixed_error(name, "default")


def _free_dims(x: DTensor, dim: int, others: Sequence[Any]) -> list[int]:
    """Dims other than ``dim`` on which the operands agree in size (shardable alike)."""
    if any(o.dim() != x.dim() for o in others):
        return []
    return [d for d in range(x.dim()) if d != dim and all(o.shape[d] == x.shape[d] for o in others)]


def _pick(p: Placement, others: Sequence[Placement], free: list[int]) -> Placement:
    """The placement of one mesh dim for an op shardable on ``free`` dims: the input's shard if
    free, else an operand's; a Partial input goes to the first free dim; else Replicate."""
    if isinstance(p, Shard) and p.dim in free:
        return p
    if p.is_partial():
        return Shard(free[0]) if free else Replicate()
    if not p.is_partial():  # an operand's shard: the input is moved to it (or split locally)
        for q in others:
            if isinstance(q, Shard) and q.dim in free:
                return q
    return Replicate()


def _gather(self: Any, dim: int, index: Any, *, sparse_grad: bool = False) -> DTensor:
    _dts("gather", self, index)
    mesh = check_mesh([self, index], "gather")
    d = dim % max(self.dim(), 1)
    free = [k for k in range(self.dim()) if k != d] if self.dim() == index.dim() else []
    xin: list[Placement] = []
    xid: list[Placement] = []
    out: list[Placement] = []
    mask = None
    for i, (p, q) in enumerate(zip(self.placements, index.placements)):
        one = d < index.dim() and index.shape[d] == 1
        if one and (p.is_shard(d) or (p.is_partial() and not (isinstance(q, Shard) and q.dim in free))) \
                and mask is None:
            mask = i  # each rank looks up the rows it owns
            xin.append(Shard(d))
            xid.append(Replicate())
            out.append(_MaskPartial(self.shape, d))
            continue
        t = _pick(p, [q], free)
        if t.is_replicate() and isinstance(q, Shard) and q.dim == d:
            xin.append(Replicate())  # index sharded along the gather dim: the input whole
            xid.append(q)
            out.append(q)
            continue
        xin.append(t)
        xid.append(t)
        out.append(t)
    x, idx = _to(self, xin), _to(index, xid)
    lx, li = local_view(x), local_view(idx)
    if mask is None:
        res = ember.gather(lx, d, li, sparse_grad=sparse_grad)
    else:
        n, me = mesh.size(mask), mesh.get_coordinate()[mask]
        off, cnt = chunk_offset(self.shape[d], n, me), chunk_sizes(self.shape[d], n)[me]
        outside = (li < off) | (li >= off + cnt)
        if cnt == 0:
            res = ember.zeros(tuple(li.shape), dtype=lx.dtype)
        else:
            res = ember.gather(lx, d, (li - off).masked_fill(outside, 0)).masked_fill(outside, 0)
    return adopt(res, DTensorSpec(mesh, tuple(out), tuple(index.shape)))


def _inplace_error(name: str, overload: str, placements: Any) -> RuntimeError:
    return RuntimeError(f"aten.{name}.{overload}: in-place operations that require placement "
                        "changes are not supported. The input has placement "
                        f"{tuple(placements)}, but no valid strategy preserves this placement. "
                        "Please use the out-of-place version of this operation instead.")


def _scatter_like(name: str) -> Any:
    """scatter / scatter_ / scatter_add (/ _): shardable on the dims every operand shares."""
    inplace = name.endswith("_")
    base = getattr(Tensor, name)

    def op(self: Any, dim: int, index: Any, src: Any = None, *, value: Any = None,
           reduce: Any = None) -> DTensor:
        if src is None:
            src = value
        _dts(name, self, index, src)
        tensors = [t for t in (index, src) if isinstance(t, DTensor)]
        mesh = check_mesh([self, *tensors], name)
        d = dim % max(self.dim(), 1)
        free = _free_dims(self, d, tensors)
        target = tuple(_pick(p, [t.placements[i] for t in tensors], free)
                       for i, p in enumerate(self.placements))
        if inplace and target != self.placements:
            ov = "src" if isinstance(src, Tensor) else "value"
            raise _inplace_error(name, ov, self.placements)
        x = _to(self, target)
        args = [local_view(_to(t, target)) if isinstance(t, DTensor) else t for t in (index, src)]
        kw = {} if reduce is None else {"reduce": reduce}
        res = base(local_view(x), d, *args, **kw)
        if inplace:
            return self  # type: ignore[no-any-return]
        return adopt(res, DTensorSpec(mesh, target, tuple(self.shape)))

    op.__name__ = op.__qualname__ = name
    return op


def _index_add(self: Any, dim: int, index: Any, source: Any, *, alpha: Any = 1) -> DTensor:
    """A shard off the indexed dim stays (the source sharded alike); a Partial input stays
    Partial (the source joins as a Partial term); else the input is replicated."""
    _dts("index_add", self, index, source)
    mesh = check_mesh([self, index, source], "index_add")
    d = dim % max(self.dim(), 1)
    xin: list[Placement] = []
    src: list[Placement] = []
    for p, q in zip(self.placements, source.placements):
        if isinstance(p, Shard) and p.dim != d:
            xin.append(p)
            src.append(p)
        elif p.is_partial("sum") and type(p) is Partial:
            xin.append(p)
            src.append(Partial("sum"))
        elif p.is_replicate() and isinstance(q, Shard) and q.dim != d:
            xin.append(q)
            src.append(q)
        else:
            xin.append(Replicate())
            src.append(Replicate())
    x, s = _to(self, xin), _to(source, src)
    idx = _to(index, tuple(Replicate() for _ in xin))
    res = Tensor.index_add(local_view(x), d, local_view(idx), local_view(s), alpha=alpha)
    return adopt(res, DTensorSpec(mesh, tuple(xin), tuple(self.shape)))


_NLL_UNEVEN = ("The intermediate results of nll_loss cannot be evenly sharded,                 "
               "        resulting in biased mean result.")


def _loss(f: Any, name: str, log_softmax: bool) -> Any:
    """nll_loss / cross_entropy: the class dim (1, or 0 for a 1-d input) whole; a shard of the
    batch (or spatial) dims stays, the target sharded alike; the reduction leaves a Partial
    (avg for the mean: even shards only, as PyTorch refuses otherwise)."""
    def run(input: Any, target: Any, weight: Any = None, size_average: Any = None,
            ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
            **kwargs: Any) -> DTensor:
        _dts(name, input, target, weight)
        mesh = check_mesh([t for t in (input, target, weight) if t is not None], name)
        c = 1 if input.dim() > 1 else 0
        xin = tuple(Replicate() if p.is_partial() or p.is_shard(c) else p for p in input.placements)
        tgt = tuple(Shard(p.dim - (p.dim > c)) if isinstance(p, Shard) else p for p in xin)
        x, t = _to(input, xin), _to(target, tgt)
        w = _to(weight, tuple(Replicate() for _ in xin)) if weight is not None else None
        lx = local_view(x)
        if log_softmax:
            out = f(lx, local_view(t), local_view(w), ignore_index=ignore_index,
                    reduction=reduction, **kwargs)
        else:
            out = f(lx, local_view(t), local_view(w), ignore_index=ignore_index,
                    reduction=reduction)
        if reduction == "none":
            return adopt(out, DTensorSpec(mesh, tgt, tuple(target.shape)))
        if reduction == "mean":
            for k in range(target.dim()):
                ways = math.prod(mesh.size(i) for i, p in enumerate(tgt) if p == Shard(k))
                if target.shape[k] % ways:
                    raise RuntimeError(_NLL_UNEVEN)
        kind = "avg" if reduction == "mean" else "sum"
        out_pl = tuple(Partial(kind) if isinstance(p, Shard) else p for p in tgt)
        return adopt(out, DTensorSpec(mesh, out_pl, ()))

    return run


def methods() -> dict[str, Any]:
    """The rules under the Tensor method names."""
    return {"gather": _gather, "scatter": _scatter_like("scatter"),
            "scatter_": _scatter_like("scatter_"), "scatter_add": _scatter_like("scatter_add"),
            "scatter_add_": _scatter_like("scatter_add_"), "index_add": _index_add}


FUNCTIONS = ("gather", "scatter", "scatter_add", "index_add")


def install(rules: dict[Any, Any]) -> None:
    try:
        import ember.nn.functional as F
    except ImportError:  # ember-nn not installed
        return
    rules[F.nll_loss] = _loss(F.nll_loss, "nll_loss", False)
    rules[F.cross_entropy] = _loss(F.cross_entropy, "cross_entropy", True)
