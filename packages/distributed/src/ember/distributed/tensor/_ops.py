"""The DTensor methods whose result depends on the layout: sharding rules for pointwise ops,
reductions, matmul and views. Each rule decides the placements (redistributing an operand
first when the local shards do not line up), runs the core op on the local tensors and wraps
the result; autograd records the core ops on the local tensors as usual.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import ember
from ember import Tensor

from ._dtensor import DTensor, DTensorSpec, adopt
from .placement_types import Partial, Placement, Replicate, Shard

_MIXED = ("{op}: got mixed torch.Tensor and DTensor, need to convert all torch.Tensor to "
          "DTensor before calling distributed operators!")


def _is_plain_tensor(a: Any) -> bool:
    return isinstance(a, Tensor) and not isinstance(a, DTensor)


def _repl(n: int) -> tuple[Placement, ...]:
    return tuple(Replicate() for _ in range(n))


def _to(d: DTensor, placements: Sequence[Placement]) -> DTensor:
    return d if tuple(placements) == d.placements else d.redistribute(placements=placements)


def _broadcast_shape(shapes: list[Sequence[int]]) -> tuple[int, ...]:
    n = max(len(s) for s in shapes)
    out = [1] * n
    for s in shapes:
        for i, v in enumerate(s):
            j = n - len(s) + i
            if v != 1:
                out[j] = v
    return tuple(out)


def _operand_placements(ref: Sequence[Placement], out_ndim: int, shape: Sequence[int]) -> tuple:
    """The placements an operand of ``shape`` needs to line up with a result sharded as ``ref``:
    a dim it broadcasts along (absent or size 1) is replicated."""
    res: list[Placement] = []
    for p in ref:
        if isinstance(p, Shard):
            j = p.dim - (out_ndim - len(shape))
            res.append(Shard(j) if j >= 0 and shape[j] != 1 else Replicate())
        else:
            res.append(p)
    return tuple(res)


# Ops under which a Partial stays Partial: sums of same-placed Partials, scaling by a number.
_SUM_LINEAR = {"add", "sub", "__add__", "__radd__", "__sub__", "__rsub__", "add_", "sub_"}
_SCALE_LINEAR = {"mul", "__mul__", "__rmul__", "div", "__truediv__", "mul_", "div_", "neg",
                 "__neg__", "neg_"}


def _align(name: str, self: DTensor, args: tuple, kwargs: dict,
           inplace: bool) -> tuple[DTensorSpec, tuple, dict, DTensor]:
    """Operands redistributed so that the local op computes the local piece of the result."""
    dts = [self] + [a for a in (*args, *kwargs.values()) if isinstance(a, DTensor)]
    for a in (*args, *kwargs.values()):
        if _is_plain_tensor(a) and a.dim() > 0:
            raise RuntimeError(_MIXED.format(op=f"aten.{name.strip('_')}"))
    mesh = self.device_mesh
    for d in dts:
        if d.device_mesh != mesh:
            raise NotImplementedError(f"{name}: DTensor operands on different meshes "
                                      f"({mesh} and {d.device_mesh})")
    has_partial = any(p.is_partial() for d in dts for p in d.placements)
    if has_partial:
        same = all(d.placements == self.placements for d in dts)
        ok = ((name in _SUM_LINEAR and same and len(dts) == 1 + len(args) + len(kwargs)
               and all(d.placements == self.placements for d in dts))
              or (name in _SCALE_LINEAR and len(dts) == 1
                  and name not in ("__rtruediv__",)))
        if not ok or (name in _SUM_LINEAR and len(dts) == 1):
            if inplace and any(p.is_partial() for p in self.placements):
                raise RuntimeError(f"{name}: in-place op on a Partial DTensor needs its other "
                                   "operands to be Partial the same way")
            dts = [_to(d, [Replicate() if p.is_partial() else p for p in d.placements])
                   for d in dts]
            mapping = {id(o): n for o, n in zip([self] + [a for a in (*args, *kwargs.values())
                                                          if isinstance(a, DTensor)], dts)}
            self = mapping.get(id(self), self) if not inplace else self
            args = tuple(mapping.get(id(a), a) for a in args)
            kwargs = {k: mapping.get(id(v), v) for k, v in kwargs.items()}
            dts = [self] + [a for a in (*args, *kwargs.values()) if isinstance(a, DTensor)]
    out_shape = _broadcast_shape([d.shape for d in dts])
    if inplace:
        ref = self
    else:  # the operand that spans the result, the most sharded one first
        spanning = [d for d in dts if tuple(d.shape) == out_shape]
        spanning.sort(key=lambda d: -sum(p.is_shard() for p in d.placements))
        ref = spanning[0] if spanning else self
    target = ref.placements

    def fix(a: Any) -> Any:
        if isinstance(a, DTensor) and a is not ref:
            return _to(a, _operand_placements(target, len(out_shape), a.shape))
        return a

    if not inplace:
        self = fix(self)
    args = tuple(fix(a) for a in args)
    kwargs = {k: fix(v) for k, v in kwargs.items()}
    return DTensorSpec(mesh, target, out_shape), args, kwargs, self


def _pointwise(name: str) -> Callable[..., Any]:
    base = getattr(Tensor, name)

    def op(self: DTensor, *args: Any, **kwargs: Any) -> Any:
        spec, args, kwargs, me = _align(name, self, args, kwargs, inplace=False)
        out = base(me, *args, **kwargs)
        if out is NotImplemented:
            return out
        return adopt(out, spec)

    op.__name__ = op.__qualname__ = name
    return op


def _inplace(name: str) -> Callable[..., Any]:
    base = getattr(Tensor, name)

    def op(self: DTensor, *args: Any, **kwargs: Any) -> Any:
        _, args, kwargs, _ = _align(name, self, args, kwargs, inplace=True)
        base(self, *args, **kwargs)
        return self

    op.__name__ = op.__qualname__ = name
    return op


def _same_spec(name: str) -> Callable[..., Any]:
    """Ops that keep shape and layout (casts, clone, contiguous)."""
    base = getattr(Tensor, name)

    def op(self: DTensor, *args: Any, **kwargs: Any) -> Any:
        out = base(self, *args, **kwargs)
        return out if out is self else adopt(out, self._spec)

    op.__name__ = op.__qualname__ = name
    return op


# -- reductions ------------------------------------------------------------------------------
def _reduced_dims(self: DTensor, dim: Any) -> list[int]:
    n = self.dim()
    if dim is None:
        return list(range(n))
    dims = [dim] if isinstance(dim, int) else list(dim)
    if not dims:
        return list(range(n))
    return sorted(d % max(n, 1) for d in dims)


def _reduce_placements(self: DTensor, red: list[int], keepdim: bool, kind: str) -> tuple:
    out: list[Placement] = []
    for p in self.placements:
        if isinstance(p, Shard):
            if p.dim in red:
                out.append(Partial(kind))
            else:
                out.append(Shard(p.dim if keepdim else p.dim - sum(r < p.dim for r in red)))
        else:
            out.append(p)
    return tuple(out)


def _reduced_shape(shape: Sequence[int], red: list[int], keepdim: bool) -> tuple[int, ...]:
    return tuple(1 if i in red else s for i, s in enumerate(shape) if keepdim or i not in red)


def _sum(self: DTensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> DTensor:
    if any(p.is_partial() and not p.is_partial("sum") for p in self.placements):
        self = _to(self, [Replicate() if p.is_partial() else p for p in self.placements])
    red = _reduced_dims(self, dim)
    out = Tensor.sum(self, dim=red if dim is not None else None, keepdim=keepdim, dtype=dtype) \
        if dim is not None else Tensor.sum(self, dtype=dtype)
    spec = DTensorSpec(self.device_mesh, _reduce_placements(self, red, keepdim, "sum"),
                       _reduced_shape(self.shape, red, keepdim))
    return adopt(out, spec)


def _mean(self: DTensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> DTensor:
    red = _reduced_dims(self, dim)
    if not any(isinstance(p, Shard) and p.dim in red for p in self.placements):
        if any(p.is_partial() for p in self.placements):
            self = _to(self, [Replicate() if p.is_partial() else p for p in self.placements])
        out = Tensor.mean(self, dim=red, keepdim=keepdim, dtype=dtype) if dim is not None \
            else Tensor.mean(self, dtype=dtype)
        return adopt(out, DTensorSpec(self.device_mesh, _reduce_placements(self, red, keepdim, "sum"),
                                      _reduced_shape(self.shape, red, keepdim)))
    count = math.prod(self.shape[d] for d in red)
    s = _sum(self, dim, keepdim, dtype=dtype)
    s = s / count
    # torch hands the mean of a sharded dim back replicated
    return _to(s, [Replicate() if p.is_partial() else p for p in s.placements])


def _extreme(kind: str, base_name: str) -> Callable[..., Any]:
    base = getattr(Tensor, base_name)

    def op(self: DTensor, dim: Any = None, keepdim: bool = False) -> DTensor:
        if any(p.is_partial() for p in self.placements):
            self = _to(self, [Replicate() if p.is_partial() else p for p in self.placements])
        red = _reduced_dims(self, dim)
        local = self.to_local()
        if local.numel() == 0 and any(isinstance(p, Shard) for p in self.placements):
            # an empty shard holds the identity of the reduction
            fill = -math.inf if kind == "max" else math.inf
            if not local.dtype.is_floating_point:
                info = ember.iinfo(local.dtype)
                fill = info.min if kind == "max" else info.max
            out = ember.full(_local_reduced(local.shape, red, keepdim), fill, dtype=local.dtype)
        else:
            out = base(self, dim=red, keepdim=keepdim) if dim is not None else base(self)
        spec = DTensorSpec(self.device_mesh, _reduce_placements(self, red, keepdim, kind),
                           _reduced_shape(self.shape, red, keepdim))
        return adopt(out, spec)

    op.__name__ = op.__qualname__ = base_name
    return op


def _local_reduced(shape: Sequence[int], red: list[int], keepdim: bool) -> tuple[int, ...]:
    return _reduced_shape(shape, red, keepdim)


def _max_min(kind: str) -> Callable[..., Any]:
    extreme = _extreme(kind, "amax" if kind == "max" else "amin")

    def op(self: DTensor, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs:
            full = self.full_tensor()
            return getattr(full, kind)(*args, **kwargs)
        return extreme(self)

    op.__name__ = op.__qualname__ = kind
    return op


def _norm(self: DTensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
          dtype: Any = None) -> DTensor:
    """Vector p-norm over all elements (or ``dim``): local sums of |x|^p summed across ranks."""
    order = 2.0 if p in ("fro", None) else float(p)
    if any(q.is_partial() for q in self.placements) or order in (math.inf, -math.inf, 0.0):
        full = _to(self, _repl(self.device_mesh.ndim))
        out = Tensor.norm(full, p, dim, keepdim, dtype=dtype) if dtype is not None \
            else Tensor.norm(full, p, dim, keepdim)
        return adopt(out, DTensorSpec(self.device_mesh, _repl(self.device_mesh.ndim),
                                      tuple(out.shape)))
    powered = _sum(self.abs() ** order, dim, keepdim)
    total = _to(powered, [Replicate() if q.is_partial() else q for q in powered.placements])
    return total ** (1.0 / order)


# -- matmul ----------------------------------------------------------------------------------
def _mm_placements(a: DTensor, b: DTensor) -> tuple[tuple, tuple, tuple]:
    """(a's, b's, result's) placements, per mesh dim; a combination without a local rule
    replicates both operands on that mesh dim."""
    out_nd = max(a.dim(), b.dim())
    pa_all, pb_all, po_all = [], [], []
    for pa, pb in zip(a.placements, b.placements):
        po: Placement | None = None
        if a.dim() >= 2 and b.dim() >= 2:
            ka, kb = a.dim() - 1, b.dim() - 2
            if pa.is_replicate() and pb.is_replicate():
                po = Replicate()
            elif isinstance(pa, Shard) and pa.dim != ka and pb.is_replicate() and \
                    (pa.dim == a.dim() - 2 or b.dim() == 2):
                po = Shard(pa.dim + out_nd - a.dim())
            elif pa.is_replicate() and isinstance(pb, Shard) and pb.dim == b.dim() - 1 and \
                    a.dim() == 2:
                po = Shard(out_nd - 1)
            elif isinstance(pa, Shard) and pa.dim == ka and isinstance(pb, Shard) and pb.dim == kb:
                po = Partial("sum")
            elif pa.is_partial("sum") and pb.is_replicate():
                po = Partial("sum")
            elif pa.is_replicate() and pb.is_partial("sum"):
                po = Partial("sum")
        elif pa.is_replicate() and pb.is_replicate():
            po = Replicate()
        if po is None:
            pa, pb, po = Replicate(), Replicate(), Replicate()
        pa_all.append(pa)
        pb_all.append(pb)
        po_all.append(po)
    return tuple(pa_all), tuple(pb_all), tuple(po_all)


def _matmul(self: DTensor, other: Any) -> DTensor:
    if _is_plain_tensor(other):
        raise RuntimeError(_MIXED.format(op="aten.matmul"))
    pa, pb, po = _mm_placements(self, other)
    a, b = _to(self, pa), _to(other, pb)
    out = Tensor.matmul(a, b)
    shape = _matmul_shape(tuple(self.shape), tuple(other.shape))
    return adopt(out, DTensorSpec(self.device_mesh, po, shape))


def _matmul_shape(a: tuple, b: tuple) -> tuple:
    if len(a) == 1 and len(b) == 1:
        return ()
    if len(b) == 1:
        return a[:-1]
    if len(a) == 1:
        return b[:-2] + b[-1:]
    batch = _broadcast_shape([a[:-2], b[:-2]]) if (a[:-2] or b[:-2]) else ()
    return batch + (a[-2], b[-1])


def _rmatmul(self: DTensor, other: Any) -> DTensor:
    if _is_plain_tensor(other):
        raise RuntimeError(_MIXED.format(op="aten.matmul"))
    return _matmul(other, self)


# -- views -----------------------------------------------------------------------------------
def _new_shape(self: DTensor, shape: tuple) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, ember.Size)):
        shape = tuple(shape[0])
    shape = tuple(int(s) for s in shape)
    n = self.numel()
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in shape:
        rest = math.prod(s for s in shape if s != -1)
        if rest == 0 or n % rest:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {n}")
        shape = tuple(n // rest if s == -1 else s for s in shape)
    if math.prod(shape) != n:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {n}")
    return shape


def _reshape_like(name: str) -> Callable[..., Any]:
    base = getattr(Tensor, name)

    def op(self: DTensor, *shape: Any) -> DTensor:
        new = _new_shape(self, shape)
        old = tuple(self.shape)
        placements: list[Placement] = []
        local = list(new)
        for i, p in enumerate(self.placements):
            if not isinstance(p, Shard):
                placements.append(p)
                continue
            d = p.dim
            before = math.prod(old[:d])
            e = next((k for k in range(len(new) + 1) if math.prod(new[:k]) == before), None)
            if e is None or e >= len(new):
                raise RuntimeError(f"{name}: cannot reshape a tensor sharded on dim {d} from "
                                   f"{list(old)} to {list(new)}; redistribute it first")
            if new[e] == old[d]:
                pass
            elif new[e] % old[d] == 0 and old[d] % self.device_mesh.size(i) == 0:
                pass  # a merge of the shard dim with following dims: exact for even shards
            else:
                raise RuntimeError(f"Cannot flatten unevenly sharded tensor: dimension {d} (size "
                                   f"{old[d]}) is not evenly divisible by mesh dimension {i} "
                                   f"(size {self.device_mesh.size(i)}). Please redistribute "
                                   "the tensor before this operation.")
            placements.append(Shard(e))
            local_d = Tensor.size(self, d)
            local[e] = new[e] // old[d] * local_d
        out = base(self, tuple(local))
        return adopt(out, DTensorSpec(self.device_mesh, tuple(placements), new))

    op.__name__ = op.__qualname__ = name
    return op


def _flatten(self: DTensor, start_dim: int = 0, end_dim: int = -1) -> DTensor:
    n = self.dim()
    if n == 0:
        return _reshape_like("reshape")(self, 1)
    s, e = start_dim % n, end_dim % n
    shape = tuple(self.shape)
    new = shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:]
    return _reshape_like("reshape")(self, new)


def _dim_map(name: str, mapping: Callable[[DTensor, tuple], tuple[Callable[[int], int], tuple]]):
    base = getattr(Tensor, name)

    def op(self: DTensor, *args: Any, **kwargs: Any) -> DTensor:
        remap, shape = mapping(self, args, **kwargs)
        out = base(self, *args, **kwargs)
        placements = tuple(Shard(remap(p.dim)) if isinstance(p, Shard) else p
                           for p in self.placements)
        return adopt(out, DTensorSpec(self.device_mesh, placements, shape))

    op.__name__ = op.__qualname__ = name
    return op


def _transpose_map(self: DTensor, args: tuple) -> tuple:
    n = max(self.dim(), 1)
    if not args:  # t()
        a, b = (0, 1) if self.dim() == 2 else (0, 0)
    else:
        a, b = args[0] % n, args[1] % n
    shape = list(self.shape)
    if self.dim() >= 2:
        shape[a], shape[b] = shape[b], shape[a]
    return (lambda d: b if d == a else a if d == b else d), tuple(shape)


def _permute_map(self: DTensor, args: tuple) -> tuple:
    dims = tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    n = max(self.dim(), 1)
    dims = tuple(d % n for d in dims)
    shape = tuple(self.shape[d] for d in dims)
    return (lambda d: dims.index(d)), shape


def _unsqueeze_map(self: DTensor, args: tuple) -> tuple:
    d = args[0] % (self.dim() + 1)
    shape = list(self.shape)
    shape.insert(d, 1)
    return (lambda k: k + 1 if k >= d else k), tuple(shape)


def _squeeze(self: DTensor, dim: Any = None) -> DTensor:
    n = self.dim()
    dims = range(n) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    drop = sorted({d % max(n, 1) for d in dims if n and self.shape[d % n] == 1})
    out = Tensor.view(self, tuple(s for i, s in enumerate(Tensor.size(self)) if i not in drop))
    placements = tuple(Shard(p.dim - sum(k < p.dim for k in drop)) if isinstance(p, Shard) else p
                       for p in self.placements)
    shape = tuple(s for i, s in enumerate(self.shape) if i not in drop)
    return adopt(out, DTensorSpec(self.device_mesh, placements, shape))


def _getitem(self: DTensor, index: Any) -> DTensor:
    """Indexing sees the whole value: a sharded DTensor is replicated first."""
    full = _to(self, _repl(self.device_mesh.ndim))
    out = Tensor.__getitem__(full, index)
    return adopt(out, DTensorSpec(self.device_mesh, _repl(self.device_mesh.ndim),
                                  tuple(Tensor.size(out))))


_POINTWISE = (
    "add", "sub", "mul", "div", "true_divide", "neg", "abs", "exp", "log", "sqrt", "rsqrt",
    "sin", "cos", "tanh", "sigmoid", "relu", "pow", "square", "reciprocal", "sign", "clamp",
    "clamp_min", "clamp_max", "maximum", "minimum", "lerp", "addcmul", "addcdiv", "eq", "ne",
    "lt", "le", "gt", "ge", "where", "masked_fill", "float_power", "log1p", "expm1", "erf",
    "floor", "ceil", "round", "trunc", "logical_not", "isnan", "isfinite", "nan_to_num",
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__neg__", "__pow__", "__rpow__", "__abs__", "__eq__", "__ne__", "__lt__",
    "__le__", "__gt__", "__ge__", "__and__", "__or__", "__xor__", "__invert__",
)
_INPLACE = (
    "add_", "sub_", "mul_", "div_", "copy_", "lerp_", "addcmul_", "addcdiv_", "clamp_",
    "clamp_min_", "clamp_max_", "pow_", "masked_fill_", "__iadd__", "__isub__", "__imul__", "__itruediv__",
)
_SAME_SPEC = ("clone", "contiguous", "to", "float", "double", "half", "bfloat16", "type_as",
              "cpu", "requires_grad_")


def install() -> None:
    """Put the layout-aware methods on DTensor (once, at import)."""
    for name in _POINTWISE:
        if hasattr(Tensor, name):
            setattr(DTensor, name, _pointwise(name))
    for name in _INPLACE:
        if hasattr(Tensor, name):
            setattr(DTensor, name, _inplace(name))
    for name in _SAME_SPEC:
        if hasattr(Tensor, name):
            setattr(DTensor, name, _same_spec(name))
    DTensor.__hash__ = lambda self: id(self)  # __eq__ is elementwise: identity hashing
    DTensor.sum = _sum
    DTensor.mean = _mean
    DTensor.amax = _extreme("max", "amax")
    DTensor.amin = _extreme("min", "amin")
    DTensor.max = _max_min("max")
    DTensor.min = _max_min("min")
    DTensor.norm = _norm
    DTensor.matmul = DTensor.mm = DTensor.__matmul__ = _matmul
    DTensor.__rmatmul__ = _rmatmul
    DTensor.view = _reshape_like("view")
    DTensor.reshape = _reshape_like("reshape")
    DTensor.flatten = _flatten
    DTensor.t = _dim_map("t", _transpose_map)
    DTensor.transpose = _dim_map("transpose", _transpose_map)
    DTensor.permute = _dim_map("permute", _permute_map)
    DTensor.unsqueeze = _dim_map("unsqueeze", _unsqueeze_map)
    DTensor.squeeze = _squeeze
    DTensor.__getitem__ = _getitem
