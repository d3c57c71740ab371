"""DTensor rules of the ops that move, pick or repeat whole dims (split/chunk/unbind, narrow,
select, slicing, expand/repeat, index_select, flip/roll, tril/triu), the reductions that
PyTorch leaves sharded or Partial (var/std, argmax, all/any/prod, topk, logsumexp) and the new_*
factories.

One shape for all of them: the op works *across* some dims (the split dim, the reduced dim);
a shard on those is gathered first, a shard on any other dim stays and follows that dim into
the result, and a Partial stays Partial where the op is linear (picking and copying elements),
else it is replicated first -- PyTorch's placements. The op then runs on the local pieces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import ember
from ember import Tensor

from ._dtensor import DTensor, DTensorSpec, adopt
from ._ops import (
    _getitem,
    _reduce_placements,
    _reduced_dims,
    _reduced_shape,
    _repl,
    _to,
    _unpartial,
    along_dim,
    local_view,
    mixed_error,
)
from .placement_types import Placement, Replicate, Shard

DimMap = Callable[[int], "int | None"]


def _dim(self: DTensor, d: int) -> int:
    return d % max(self.dim(), 1)


def _laid_out(self: DTensor, bound: Iterable[int], linear: bool) -> DTensor:
    """``self`` with its shards on ``bound`` dims (and, unless ``linear``, its Partials)
    replicated: the local op then computes the local piece of the result."""
    bound = set(bound)
    target = tuple(Replicate() if (isinstance(p, Shard) and p.dim in bound)
                   or (p.is_partial() and not linear) else p for p in self.placements)
    return _to(self, target)


def _wrap(out: Any, src: DTensor, dim_map: DimMap) -> Any:
    """The local result(s) as DTensors: a shard of ``src`` on dim d is a shard on
    ``dim_map(d)`` of the result, whose global size there is ``src``'s (the op keeps that dim
    whole); every other dim is whole locally."""
    if isinstance(out, (tuple, list)):
        return type(out)(_wrap(o, src, dim_map) for o in out)
    if not isinstance(out, Tensor):
        return out
    shape = list(Tensor.size(out))
    placements: list[Placement] = []
    for p in src.placements:
        if isinstance(p, Shard):
            e = dim_map(p.dim)
            assert e is not None, "a dropped dim must be replicated first"
            shape[e] = src.shape[p.dim]
            placements.append(Shard(e))
        else:
            placements.append(p)
    return adopt(out, DTensorSpec(src.device_mesh, tuple(placements), shape))


def _same(d: int) -> int:
    return d


def _check_self(name: str, self: Any, *others: Any) -> None:
    if not isinstance(self, DTensor) or any(isinstance(o, Tensor) and not isinstance(o, DTensor)
                                            and o.dim() > 0 for o in others):
        raise mixed_error(name, "default")


# -- splitting and picking -------------------------------------------------------------------
def _split(name: str) -> Callable[..., Any]:
    """split/chunk/tensor_split: the split dim whole, the pieces sharded as the input."""
    base = getattr(Tensor, name)

    def op(self: DTensor, sections: Any, dim: int = 0) -> Any:
        _check_self(name, self)
        x = _laid_out(self, [_dim(self, dim)], linear=True)
        return _wrap(base(x, sections, dim), x, _same)

    op.__name__ = op.__qualname__ = name
    return op


def _unbind(self: DTensor, dim: int = 0) -> Any:
    _check_self("unbind", self)
    d = _dim(self, dim)
    if any(p.is_shard(d) for p in self.placements):  # PyTorch refuses to gather for it
        raise RuntimeError(str((f"Attempted to unbind along the sharded dimension {d}. ",
                                "It cannot be performed without redistribution, which is "
                                "disallowed by the current operator.")))
    return _wrap(Tensor.unbind(self, d), self, lambda k: k - (k > d))


def _narrow(self: DTensor, dim: int, start: Any, length: int) -> DTensor:
    _check_self("narrow", self)
    x = _laid_out(self, [_dim(self, dim)], linear=True)
    return _wrap(Tensor.narrow(x, dim, start, length), x, _same)  # type: ignore[no-any-return]


def _select(self: DTensor, dim: int, index: int) -> DTensor:
    _check_self("select", self)
    d = _dim(self, dim)
    x = _laid_out(self, [d], linear=True)
    return _wrap(Tensor.select(x, d, index), x, lambda k: k - (k > d))  # type: ignore[no-any-return]


def _basic_index(index: Any, ndim: int) -> list[tuple[int | None, Any]] | None:
    """A basic index (ints, slices, None, ...) as (input dim, item) pairs in order; None for
    advanced indexing (tensors, lists, bools)."""
    items = list(index) if isinstance(index, tuple) else [index]
    if any(not (isinstance(i, (int, slice)) or i is None or i is Ellipsis) or isinstance(i, bool)
           for i in items):
        return None
    used = sum(1 for i in items if i is not None and i is not Ellipsis)
    if items.count(Ellipsis) > 1 or used > ndim:
        return None
    out: list[tuple[int | None, Any]] = []
    d = 0
    for i in items:
        if i is Ellipsis:
            for _ in range(ndim - used):
                out.append((d, slice(None)))
                d += 1
        elif i is None:
            out.append((None, None))
        else:
            out.append((d, i))
            d += 1
    out.extend((k, slice(None)) for k in range(d, ndim))
    return out


def _index(self: DTensor, index: Any) -> DTensor:
    """Basic indexing keeps the shards (and Partials) of the dims taken whole; a dim cut or
    picked is gathered first. Advanced indexing sees the whole value."""
    pairs = _basic_index(index, self.dim())
    if pairs is None or any(isinstance(i, DTensor) for i in (index if isinstance(index, tuple) else (index,))):
        return _getitem(self, index)
    bound = [d for d, i in pairs if d is not None and i != slice(None)]
    out_dim: dict[int, int] = {}
    e = 0
    for d, i in pairs:
        if isinstance(i, int) and d is not None:
            continue  # the dim is dropped
        if d is not None:
            out_dim[d] = e
        e += 1
    x = _laid_out(self, bound, linear=True)
    return _wrap(Tensor.__getitem__(x, index), x, out_dim.get)  # type: ignore[no-any-return]


def _sizes(args: tuple) -> tuple[int, ...]:
    if len(args) == 1 and isinstance(args[0], (tuple, list, ember.Size)):
        return tuple(args[0])
    return tuple(args)


def _expand(self: DTensor, *sizes: Any) -> DTensor:
    """A shard stays on its dim (moved by the new leading dims); a size-1 dim broadcast to
    more is whole everywhere."""
    _check_self("expand", self)
    new = _sizes(sizes)
    off = len(new) - self.dim()
    bound = [d for d in range(self.dim()) if self.shape[d] == 1 and new[d + off] not in (1, -1)]
    x = _laid_out(self, bound, linear=True)
    local = list(new)
    for p in x.placements:
        if isinstance(p, Shard):
            local[p.dim + off] = -1  # the local size of the shard
    return _wrap(Tensor.expand(x, tuple(local)), x, lambda d: d + off)  # type: ignore[no-any-return]


def _expand_as(self: DTensor, other: Any) -> DTensor:
    return _expand(self, tuple(other.shape))


def _repeat(self: DTensor, *sizes: Any) -> DTensor:
    """Dims repeated more than once are whole; the others keep their shards."""
    _check_self("repeat", self)
    reps = _sizes(sizes)
    off = len(reps) - self.dim()
    x = _laid_out(self, [d for d in range(self.dim()) if reps[d + off] != 1], linear=True)
    return _wrap(Tensor.repeat(x, reps), x, lambda d: d + off)  # type: ignore[no-any-return]


def _index_select(self: DTensor, dim: int, index: Any) -> DTensor:
    _check_self("index_select", self, index)
    if not isinstance(index, DTensor):
        raise mixed_error("index_select", "default")
    d = _dim(self, dim)
    x = _laid_out(self, [d], linear=True)
    idx = _to(index, _repl(index.device_mesh.ndim))
    return _wrap(Tensor.index_select(x, d, idx), x, _same)  # type: ignore[no-any-return]


def _along(name: str, dims: Callable[..., Sequence[int]], linear: bool) -> Callable[..., Any]:
    """Shape-keeping ops across ``dims(self, *args)`` (flip, roll, tril)."""
    base = getattr(Tensor, name)

    def op(self: DTensor, *args: Any, **kwargs: Any) -> Any:
        _check_self(name, self)
        x = _laid_out(self, [_dim(self, d) for d in dims(self, *args, **kwargs)], linear)
        return _wrap(base(x, *args, **kwargs), x, _same)

    op.__name__ = op.__qualname__ = name
    return op


def _flip_dims(self: DTensor, dims: Any) -> Sequence[int]:
    return [dims] if isinstance(dims, int) else list(dims)


def _roll_dims(self: DTensor, shifts: Any, dims: Any = None) -> Sequence[int]:
    if dims is None:
        return list(range(self.dim()))
    return [dims] if isinstance(dims, int) else list(dims)


def _last_two(self: DTensor, *args: Any, **kwargs: Any) -> Sequence[int]:
    return [-2, -1]


# -- reductions ------------------------------------------------------------------------------
def _partial_reduce(name: str, kind: str) -> Callable[..., Any]:
    """all/any/prod/count_nonzero: a reduced shard leaves a Partial (``product`` for all and
    prod, ``sum`` for any and count_nonzero), as PyTorch; a Partial input is replicated first."""
    base = getattr(Tensor, name)

    def op(self: DTensor, dim: Any = None, keepdim: bool = False, **kwargs: Any) -> DTensor:
        _check_self(name, self)
        x = _to(self, _unpartial(self.placements))
        red = _reduced_dims(x, dim)
        if name == "count_nonzero":
            out = base(x, dim) if dim is not None else base(x)
        elif dim is None:
            out = base(x, **kwargs)
        else:
            out = base(x, dim, keepdim, **kwargs)
        keep = keepdim and name != "count_nonzero"
        return adopt(out, DTensorSpec(x.device_mesh, _reduce_placements(x, red, keep, kind),
                                      _reduced_shape(x.shape, red, keep)))

    op.__name__ = op.__qualname__ = name
    return op


def _sorting(self: DTensor, d: int) -> DTensor:
    """``self`` laid out for sorting along ``d``: that dim whole; a Partial reduce-scattered
    onto the first other dim (PyTorch's choice: cheaper than replicating), else replicated."""
    shard_to = next((k for k in range(self.dim()) if k != d
                     and not any(p.is_shard(k) for p in self.placements)), None)
    target: list[Placement] = []
    for p in self.placements:
        if p.is_partial():
            target.append(Shard(shard_to) if shard_to is not None else Replicate())
            shard_to = None  # one mesh dim per tensor dim
        else:
            target.append(Replicate() if p.is_shard(d) else p)
    return _to(self, tuple(target))


def _topk(self: DTensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    _check_self("topk", self)
    x = _sorting(self, _dim(self, dim))
    return _wrap(Tensor.topk(x, k, dim, largest, sorted), x, _same)


def _sort(name: str) -> Callable[..., Any]:
    base = getattr(Tensor, name)

    def op(self: DTensor, dim: int = -1, descending: bool = False, **kwargs: Any) -> Any:
        _check_self(name, self)
        x = _sorting(self, _dim(self, dim))
        return _wrap(base(x, dim, descending, **kwargs), x, _same)

    op.__name__ = op.__qualname__ = name
    return op


# -- factories -------------------------------------------------------------------------------
def _new(name: str) -> Callable[..., Any]:
    """new_zeros & co.: a replicated DTensor of the given global size."""
    base = getattr(Tensor, name)

    def op(self: DTensor, *args: Any, **kwargs: Any) -> DTensor:
        out = base(self, *args, **kwargs)
        mesh = self.device_mesh
        return adopt(out, DTensorSpec(mesh, _repl(mesh.ndim), tuple(Tensor.size(out))))

    op.__name__ = op.__qualname__ = name
    return op


def _new_tensor(self: DTensor, *args: Any, **kwargs: Any) -> Tensor:
    """A plain tensor, as PyTorch's (the data is not laid out on the mesh)."""
    return Tensor.new_tensor(local_view(self), *args, **kwargs)  # type: ignore[no-any-return]


def methods() -> dict[str, Callable[..., Any]]:
    """The rules, under the Tensor method names (installed on DTensor by ``_ops.install``)."""
    reduce_along = {name: along_dim(getattr(Tensor, name), name, reduces=True)
                    for name in ("var", "std", "argmax", "argmin", "logsumexp", "var_mean",
                                 "std_mean") if hasattr(Tensor, name)}
    return {
        **reduce_along,
        "split": _split("split"), "chunk": _split("chunk"), "tensor_split": _split("tensor_split"),
        "unbind": _unbind, "narrow": _narrow, "select": _select, "__getitem__": _index,
        "expand": _expand, "expand_as": _expand_as, "repeat": _repeat,
        "index_select": _index_select, "flip": _along("flip", _flip_dims, True),
        "roll": _along("roll", _roll_dims, True), "tril": _along("tril", _last_two, False),
        "triu": _along("triu", _last_two, False), "all": _partial_reduce("all", "product"),
        "any": _partial_reduce("any", "sum"), "prod": _partial_reduce("prod", "product"),
        "count_nonzero": _partial_reduce("count_nonzero", "sum"), "topk": _topk,
        "sort": _sort("sort"), "argsort": _sort("argsort"),
        "new_zeros": _new("new_zeros"), "new_ones": _new("new_ones"),
        "new_empty": _new("new_empty"), "new_full": _new("new_full"), "new_tensor": _new_tensor,
    }


# the methods above that ember also has as top-level functions (ember.split(x, ...))
FUNCTIONS = ("split", "chunk", "tensor_split", "unbind", "narrow", "select", "index_select",
             "flip", "roll", "tril", "triu", "var", "std", "argmax", "argmin", "logsumexp",
             "var_mean", "std_mean", "all", "any", "prod", "count_nonzero", "topk", "sort", "argsort")
