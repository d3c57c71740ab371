"""The DTensor methods whose result depends on the layout: sharding rules for pointwise ops,
reductions, matmul and views. Each rule decides the placements (redistributing an operand
first when the local shards do not line up), runs the core op on the local tensors and wraps
the result; autograd records the core ops on the local tensors as usual. The rules run with
subclass dispatch off (as DTensor methods, and from ``__torch_function__``, which maps the
top-level functions of the same names here), so their core calls see local shards.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable, Sequence
from typing import Any

import ember
from ember import Tensor

from ._dtensor import DTensor, DTensorSpec, _plain_view, adopt, local_dispatch
from .placement_types import Partial, Placement, Replicate, Shard, _NormPartial, _StridedShard

# PyTorch's names of the aten ops behind a Python name, for its error messages.
_ATEN = {"__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub", "__rsub__": "rsub",
         "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_",
         "__truediv__": "div", "__rtruediv__": "div", "__itruediv__": "div_", "true_divide": "div",
         "__pow__": "pow", "__rpow__": "pow", "__and__": "bitwise_and", "__or__": "bitwise_or",
         "__xor__": "bitwise_xor", "__invert__": "bitwise_not", "__matmul__": "mm",
         "__rmatmul__": "mm", "matmul": "mm", "__getitem__": "index", "__setitem__": "index_put_",
         "linear": "mm", "bmm": "bmm"}
_OVERLOAD = {"where": "self", "masked_fill": "Scalar", "masked_fill_": "Scalar", "lerp": "Scalar",
             "lerp_": "Scalar", "copy_": "default", "mm": "default", "bmm": "default", "addmm": "default"}


def aten_name(name: str) -> str:
    """``aten.<op>`` of a Python function or method name (``__radd__`` -> ``aten.add``)."""
    op = _ATEN.get(name) or (name[2:-2] if name.startswith("__") and name.endswith("__") else name)
    return f"aten.{op}"


def mixed_error(name: str, overload: str | None = None) -> RuntimeError:
    """PyTorch's error for a plain tensor among a DTensor op's operands."""
    op = aten_name(name)
    ov = overload or _OVERLOAD.get(op[5:], "Tensor")
    return RuntimeError(f"{op}.{ov} got mixed torch.Tensor and DTensor, need to convert all "
                        "torch.Tensor to DTensor before calling distributed operators!")


def _is_plain_tensor(a: Any) -> bool:
    return isinstance(a, Tensor) and not isinstance(a, DTensor)


def _repl(n: int) -> tuple[Placement, ...]:
    return tuple(Replicate() for _ in range(n))


def _unpartial(ps: Sequence[Placement]) -> tuple[Placement, ...]:
    return tuple(Replicate() if p.is_partial() else p for p in ps)


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


def _operand_placements(ref: Sequence[Placement], out_ndim: int, shape: Sequence[int],
                        own: Sequence[Placement] | None = None) -> tuple:
    """The placements an operand of ``shape`` needs to line up with a result sharded as ``ref``:
    a dim it broadcasts along (absent or size 1) is replicated; under a Partial result an
    operand keeps its own (already lined up: a Partial term or a replicated factor)."""
    res: list[Placement] = []
    for i, p in enumerate(ref):
        if isinstance(p, Shard):
            j = p.dim - (out_ndim - len(shape))
            res.append(Shard(j) if j >= 0 and shape[j] != 1 else Replicate())
        elif p.is_partial() and own is not None:
            res.append(own[i])
        else:
            res.append(p)
    return tuple(res)


# Ops under which a Partial stays Partial: sums of same-placed Partials, scaling by a number.
_SUM_LINEAR = {"add", "sub", "__add__", "__radd__", "__sub__", "__rsub__", "add_", "sub_",
               "__iadd__", "__isub__"}
_SCALE_LINEAR = {"mul", "__mul__", "__rmul__", "div", "__truediv__", "mul_", "div_", "neg",
                 "__neg__", "neg_", "__imul__", "__itruediv__", "true_divide", "multiply",
                 "divide", "negative"}


_MUL_LINEAR = {"mul", "__mul__", "__rmul__", "multiply", "mul_", "__imul__"}
_DIV_LINEAR = {"div", "divide", "true_divide", "__truediv__", "div_", "__itruediv__"}


def inplace_partial_error(name: str, args: Sequence[Any]) -> RuntimeError:
    """PyTorch's error for an in-place op that would need its Partial input replicated."""
    others = args[1:]
    ov = _OVERLOAD.get(name) or ("default" if not others else "Tensor"
                                 if any(isinstance(a, Tensor) and a.dim() > 0 for a in others)
                                 else "Scalar")
    return RuntimeError(f"{aten_name(name)}.{ov}: in-place operations that require placement "
                        f"changes are not supported. The input has placement "
                        f"{tuple(args[0].placements)}, but no valid strategy preserves this "
                        "placement. Please use the out-of-place version of this operation "
                        "instead.")


def _linear_in_partial(name: str, args: tuple, dts: list[DTensor],
                       inplace: bool) -> Callable[[int, DTensor], tuple] | None:
    """Where the op is linear in a Partial(sum) operand and nothing is sharded, the placements
    each operand takes so that the result stays Partial, as PyTorch's: ``P * R``, ``P * P`` and
    ``P / R`` (the other factor replicated), ``P + R`` (the replicated term made Partial)."""
    if any(not (p.is_replicate() or p.is_partial("sum")) for d in dts for p in d.placements):
        return None
    if name in _MUL_LINEAR or name in _DIV_LINEAR:
        partial = [i for i, a in enumerate(args) if isinstance(a, DTensor)
                   and any(p.is_partial() for p in a.placements)]
        if not partial or (partial[0] != 0 and name in _DIV_LINEAR):
            return None
        lead = partial[0]  # one factor stays Partial (by position: x * x has two)
        return lambda i, d: d.placements if i == lead else _unpartial(d.placements)
    if name in _SUM_LINEAR and len(dts) == len(args) > 1:
        target = tuple(Partial("sum") if any(d.placements[i].is_partial() for d in dts)
                       else Replicate() for i in range(len(dts[0].placements)))
        if inplace and target != args[0].placements:
            return None
        return lambda i, d: target
    return None


def check_mesh(dts: Sequence[DTensor], name: str) -> Any:
    mesh = dts[0].device_mesh
    for d in dts[1:]:
        if d.device_mesh != mesh:
            raise NotImplementedError(f"{name}: DTensor operands on different meshes "
                                      f"({mesh} and {d.device_mesh})")
    return mesh


def _align(name: str, args: tuple, kwargs: dict, inplace: bool) -> tuple[DTensorSpec, tuple, dict]:
    """The operands redistributed so that the local op computes the local piece of the result
    (an in-place op writes ``args[0]``, whose placements stay)."""
    vals = (*args, *kwargs.values())
    dts = []
    for a in vals:
        if isinstance(a, DTensor):
            dts.append(a)
        elif isinstance(a, Tensor) and a.dim() > 0:  # a 0-d tensor counts as a number
            raise mixed_error(name)
    if inplace and not isinstance(args[0], DTensor):
        raise mixed_error(name)
    mesh = check_mesh(dts, name)
    if any(p.is_partial() for d in dts for p in d.placements):
        first = dts[0]
        ok = ((name in _SUM_LINEAR and len(dts) == len(vals) > 1
               and all(d.placements == first.placements for d in dts))
              or (name in _SCALE_LINEAR and len(dts) == 1 and args[0] is first))
        if any(isinstance(p, _NormPartial) for d in dts for p in d.placements):
            ok = False  # no pointwise op is linear in a norm's terms: PyTorch settles them
            keep = None
        else:
            keep = None if ok else _linear_in_partial(name, args, dts, inplace)
        if keep is not None:  # the Partial stays: the other operands moved to match it
            args = tuple(_to(a, keep(i, a)) if isinstance(a, DTensor) else a
                         for i, a in enumerate(args))
            kwargs = {k: _to(v, _unpartial(v.placements)) if isinstance(v, DTensor) else v
                      for k, v in kwargs.items()}
            dts = [a for a in (*args, *kwargs.values()) if isinstance(a, DTensor)]
        elif not ok:
            if inplace and any(p.is_partial() for p in args[0].placements):
                raise inplace_partial_error(name, args)
            swap = {id(d): _to(d, _unpartial(d.placements)) for d in dts}
            args = tuple(swap.get(id(a), a) for a in args)
            kwargs = {k: swap.get(id(v), v) for k, v in kwargs.items()}
            dts = [swap[id(d)] for d in dts]
    out_shape = _broadcast_shape([d.shape for d in dts])
    if inplace:
        ref = args[0]
    else:  # the operand that spans the result, the most sharded one first
        spanning = [d for d in dts if tuple(d.shape) == out_shape]
        spanning.sort(key=lambda d: (-sum(p.is_shard() for p in d.placements),
                                     -sum(p.is_partial() for p in d.placements)))
        ref = spanning[0] if spanning else dts[0]
    target = ref.placements

    def fix(a: Any) -> Any:
        if isinstance(a, DTensor) and a is not ref:
            return _to(a, _operand_placements(target, len(out_shape), a.shape, a.placements))
        return a

    args = tuple(fix(a) for a in args)
    kwargs = {k: fix(v) for k, v in kwargs.items()}
    return DTensorSpec(mesh, target, out_shape), args, kwargs


# compiled functions and methods: run with dispatch off, they see a DTensor as its local piece
_COMPILED = (types.BuiltinFunctionType, types.MethodDescriptorType, types.WrapperDescriptorType,
             types.MethodWrapperType)


def as_local(base: Callable[..., Any]) -> Callable[..., Any]:
    """``base`` run on the local pieces: a Python-level op (a composite such as ``F.mish``)
    gets plain tensors -- the DTensor operands' local views -- since inside it DTensor's own
    methods would answer ``x * y`` with the global rules; a compiled one takes DTensors as they
    are (dispatch is off inside rules)."""
    if isinstance(base, _COMPILED):
        return base

    def run(*args: Any, **kwargs: Any) -> Any:
        return base(*[local_view(a) for a in args], **{k: local_view(v) for k, v in kwargs.items()})

    return run


def local_view(a: Any) -> Any:
    """A DTensor's local piece as a plain tensor (a view autograd follows; lists too)."""
    if isinstance(a, DTensor):
        return _plain_view(a)
    if isinstance(a, (list, tuple)) and any(isinstance(x, DTensor) for x in a):
        return type(a)(local_view(x) for x in a)
    return a


def elementwise(base: Callable[..., Any], name: str) -> Callable[..., Any]:
    """An op elementwise in its tensor operands (``base`` a Tensor method or a function): the
    operands lined up, the op on the local pieces, the result wrapped."""
    run = as_local(base)

    def op(*args: Any, **kwargs: Any) -> Any:
        spec, args, kwargs = _align(name, args, kwargs, inplace=False)
        out = run(*args, **kwargs)
        if out is NotImplemented:
            return out
        return adopt(out, spec)

    op.__name__ = op.__qualname__ = name
    op.strided_same = True  # type: ignore[attr-defined]
    return op


def elementwise_(base: Callable[..., Any], name: str) -> Callable[..., Any]:
    """The in-place form: the other operands lined up with ``args[0]``, which it returns."""
    run = as_local(base)

    def op(*args: Any, **kwargs: Any) -> Any:
        _, args, kwargs = _align(name, args, kwargs, inplace=True)
        run(*args, **kwargs)
        return args[0]

    op.__name__ = op.__qualname__ = name
    op.strided_same = True  # type: ignore[attr-defined]
    return op


def _pointwise(name: str) -> Callable[..., Any]:
    return elementwise(getattr(Tensor, name), name)


def _inplace(name: str) -> Callable[..., Any]:
    return elementwise_(getattr(Tensor, name), name)


def wrap(out: Any, spec: DTensorSpec) -> Any:
    """The tensors of a core result (one, or a tuple/list/return type of them) as DTensors of
    ``spec``; other values as they are."""
    if isinstance(out, Tensor):
        return adopt(out, spec)
    if isinstance(out, (tuple, list)):
        return type(out)(wrap(o, spec) for o in out)  # a return type takes one iterable
    return out


def along_dim(base: Callable[..., Any], name: str, reduces: bool = False,
              default: int | None = None) -> Callable[..., Any]:
    """An op along one dim (``base(self, dim, ...)``: softmax, cumsum, sort, max(dim)): that dim
    (all dims without one) and any Partial replicated first, then the op on the local pieces;
    a reduction drops the dim unless keepdim."""
    run = as_local(base)

    def op(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(self, DTensor) or any(_is_plain_tensor(a) and a.dim() > 0
                                                for a in (*args, *kwargs.values())):
            raise mixed_error(name, "default")
        dim = kwargs.get("dim", args[0] if args else default)
        d = dim % max(self.dim(), 1) if isinstance(dim, int) else None
        target = tuple(Replicate() if p.is_partial() or (isinstance(p, Shard) and d in (None, p.dim))
                       else p for p in self.placements)
        out = run(_to(self, target), *args, **kwargs)
        shape, placements = tuple(self.shape), target
        if reduces and d is None:  # replicated whole: the local result is the global one
            first = out[0] if isinstance(out, (tuple, list)) else out
            shape = tuple(Tensor.size(first))
        elif reduces and d is not None:
            if kwargs.get("keepdim", args[1] if len(args) > 1 else False):
                shape = shape[:d] + (1,) + shape[d + 1:]
            else:  # d dropped: later shard dims shift down
                shape = shape[:d] + shape[d + 1:]
                placements = tuple(Shard(p.dim - (p.dim > d)) if isinstance(p, Shard) else p
                                   for p in target)
        return wrap(out, DTensorSpec(self.device_mesh, placements, shape))

    op.__name__ = op.__qualname__ = name
    return op


def _same_spec(name: str) -> Callable[..., Any]:
    """Ops that keep shape and layout (casts, clone, contiguous)."""
    base = getattr(Tensor, name)

    def op(self: DTensor, *args: Any, **kwargs: Any) -> Any:
        out = base(self, *args, **kwargs)
        if out is self:
            return out
        if any(p.is_partial() for p in self.placements) and (
                name == "clone" or not (out.is_floating_point() or out.is_complex())):
            # as PyTorch: a clone, or a cast to integers/bool (not linear), of a Partial
            # value is replicated
            self = _to(self, _unpartial(self.placements))
            out = base(self, *args, **kwargs)
        return adopt(out, self._spec)

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
        if isinstance(p, (Shard, _StridedShard)):
            if p.dim in red:
                out.append(Partial(kind))
            else:
                e = p.dim if keepdim else p.dim - sum(r < p.dim for r in red)
                out.append(_StridedShard(e, split_factor=p.split_factor)
                           if isinstance(p, _StridedShard) else Shard(e))
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


_sum.strided_ok = True  # type: ignore[attr-defined]  # its placements carry a _StridedShard


def _mean(self: DTensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> DTensor:
    red = _reduced_dims(self, dim)
    mesh = self.device_mesh
    split = [(i, p.dim) for i, p in enumerate(self.placements) if isinstance(p, Shard) and p.dim in red]
    # Even shards: every local mean counts alike, so their average is the mean (PyTorch's
    # Partial(avg)); a Partial input or uneven shards go through the sum (then replicated).
    even = all(self.shape[d] % math.prod(mesh.size(j) for j, q in enumerate(self.placements)
                                         if q == Shard(d)) == 0 for _, d in split)
    if not split or (even and not any(p.is_partial() for p in self.placements)):
        if any(p.is_partial() for p in self.placements):
            self = _to(self, _unpartial(self.placements))
        out = Tensor.mean(self, dim=red, keepdim=keepdim, dtype=dtype) if dim is not None \
            else Tensor.mean(self, dtype=dtype)
        return adopt(out, DTensorSpec(mesh, _reduce_placements(self, red, keepdim, "avg"),
                                      _reduced_shape(self.shape, red, keepdim)))
    count = math.prod(self.shape[d] for d in red)
    s = _sum(self, dim, keepdim, dtype=dtype)
    s = s / count
    return _to(s, _unpartial(s.placements))  # PyTorch's placements for uneven shards


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
    binary = elementwise(getattr(Tensor, "maximum" if kind == "max" else "minimum"), kind)
    along = along_dim(getattr(Tensor, kind), kind, reduces=True)

    def op(self: DTensor, *args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[0], Tensor) or isinstance(kwargs.get("other"), Tensor):
            return binary(self, *args, **kwargs)  # max(a, b): elementwise
        if args or kwargs:
            return along(self, *args, **kwargs)  # max(dim): (values, indices)
        return extreme(self)

    op.__name__ = op.__qualname__ = kind
    return op


def _norm(self: DTensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
          dtype: Any = None) -> DTensor:
    """The vector norms' rule (``_ops_norm``: a pending norm placement over sharded dims)."""
    from ._ops_norm import norm

    return norm(self, p, dim, keepdim, dtype)


# -- matmul ----------------------------------------------------------------------------------
def _mm_dims(a: DTensor, b: DTensor) -> tuple[int, int, dict[int, int], dict[int, int], set[int]]:
    """matmul's contraction dims of a and b, where each of their other dims lands in the result
    (batch dims right-aligned), and the result's batch dims both operands have (not broadcast):
    sharding one of those on one operand alone would pair the wrong batches."""
    na, nb = a.dim(), b.dim()
    out_nd = (0 if nb == 1 else nb - 1) if na == 1 else (na - 1 if nb == 1 else max(na, nb))
    a_out = {i: (i if nb == 1 else i + out_nd - na) for i in range(na - 1)}
    b_out = {j: j + out_nd - nb for j in range(nb - 2)} if nb >= 2 else {}
    if nb >= 2:
        b_out[nb - 1] = out_nd - 1
    shared = {o for i, o in a_out.items() if i < na - 2 and a.shape[i] != 1} & \
        {o for j, o in b_out.items() if j < nb - 2 and b.shape[j] != 1}
    return na - 1, (0 if nb == 1 else nb - 2), a_out, b_out, shared


def _mm_placements(a: DTensor, b: DTensor) -> tuple[tuple, tuple, tuple]:
    """(a's, b's, result's) placements, per mesh dim. A sharded contraction dim gives a
    Partial sum (the other operand narrowed locally to match); a sharded row, column or batch
    dim stays sharded in the result (the other operand replicated); else both are replicated."""
    ka, kb, a_out, b_out, shared = _mm_dims(a, b)
    pa_all, pb_all, po_all = [], [], []
    for pa, pb in zip(a.placements, b.placements):
        sa = pa.dim if isinstance(pa, Shard) else -1
        sb = pb.dim if isinstance(pb, Shard) else -1
        po: Placement
        if pa.is_replicate() and pb.is_replicate():
            po = Replicate()
        elif sa == ka and (sb == kb or pb.is_replicate()):
            pb, po = Shard(kb), Partial("sum")
        elif sb == kb and pa.is_replicate():
            pa, po = Shard(ka), Partial("sum")
        elif (pa.is_partial("sum") and pb.is_replicate()) or (pa.is_replicate() and pb.is_partial("sum")):
            po = Partial("sum")
        elif sa in a_out and sb in b_out and a_out[sa] == b_out[sb]:  # one batch dim on both
            po = Shard(a_out[sa])
        elif sa in a_out and a_out[sa] not in shared:
            pb, po = Replicate(), Shard(a_out[sa])
        elif sb in b_out and b_out[sb] not in shared:
            pa, po = Replicate(), Shard(b_out[sb])
        else:
            pa, pb, po = Replicate(), Replicate(), Replicate()
        pa_all.append(pa)
        pb_all.append(pb)
        po_all.append(po)
    return tuple(pa_all), tuple(pb_all), tuple(po_all)


def _matmul(self: DTensor, other: Any) -> DTensor:
    if not isinstance(other, DTensor) or not isinstance(self, DTensor):
        raise mixed_error("mm", "default")
    mesh = check_mesh([self, other], "matmul")
    pa, pb, po = _mm_placements(self, other)
    a, b = _to(self, pa), _to(other, pb)
    out = Tensor.matmul(a, b)
    shape = _matmul_shape(tuple(self.shape), tuple(other.shape))
    return adopt(out, DTensorSpec(mesh, po, shape))


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
    return _matmul(other, self)


def linear(input: Any, weight: Any, bias: Any = None) -> Any:
    """``F.linear`` of DTensors: ``input @ weight.T + bias`` by the matmul and add rules."""
    for t in (input, weight, bias):
        if t is not None and not isinstance(t, DTensor):
            raise mixed_error("mm" if bias is None else "addmm", "default")
    out = _matmul(input, DTensor.t(weight))
    if bias is None:
        return out
    if any(p.is_partial("sum") for p in out.placements):  # PyTorch's addmm: a Partial bias term
        bias = _to(bias, tuple(Partial("sum") if po.is_partial("sum") and pb.is_replicate() else pb
                               for po, pb in zip(out.placements, bias.placements)))
    return out + bias


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
              "cpu", "requires_grad_", "long", "int", "short", "char", "byte", "bool")


METHODS: dict[str, Callable[..., Any]] = {}  # DTensor's layout-aware methods (the rules)


def install() -> None:
    """Put the layout-aware methods on DTensor (once, at import); each runs with subclass
    dispatch off, so its core calls see the local shards."""
    m = METHODS
    m.update({name: _pointwise(name) for name in _POINTWISE if hasattr(Tensor, name)})
    m.update({name: _inplace(name) for name in _INPLACE if hasattr(Tensor, name)})
    m.update({name: _same_spec(name) for name in _SAME_SPEC if hasattr(Tensor, name)})
    m.update(sum=_sum, mean=_mean, amax=_extreme("max", "amax"), amin=_extreme("min", "amin"),
             max=_max_min("max"), min=_max_min("min"), norm=_norm, matmul=_matmul, mm=_matmul,
             __matmul__=_matmul, __rmatmul__=_rmatmul, t=_dim_map("t", _transpose_map),
             transpose=_dim_map("transpose", _transpose_map),
             permute=_dim_map("permute", _permute_map),
             unsqueeze=_dim_map("unsqueeze", _unsqueeze_map), squeeze=_squeeze,
             __getitem__=_getitem)
    from . import _ops_shape  # the dim-moving ops and reductions, in their own module

    m.update(_ops_shape.methods())
    from . import _ops_view  # views with PyTorch's (strided) placements

    m.update(_ops_view.methods())
    from . import _ops_index  # gather/scatter/index_add

    m.update(_ops_index.methods())
    for name, rule in m.items():
        setattr(DTensor, name, local_dispatch(rule))
    DTensor.__hash__ = lambda self: id(self)  # type: ignore[method-assign]  # __eq__ is elementwise
