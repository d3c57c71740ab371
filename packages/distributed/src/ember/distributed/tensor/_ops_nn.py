"""DTensor rules of contractions and layers: einsum (and bmm/dot through it), addmm/baddbmm,
layer_norm, embedding, mse_loss, dropout.

einsum's rule is per mesh dim: the first operand sharded there names a letter; every operand
with that letter is sharded on it and the others are replicated, so the local einsum computes
the local piece -- a Shard of the result where the letter survives, a Partial sum where it is
contracted away. A Partial operand (the others replicated) leaves a Partial result: einsum is
linear in each operand. These are PyTorch's placements for mm/bmm/einsum.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ember
from ember import Tensor

from ._dtensor import DTensor, DTensorSpec, adopt
from ._ops import METHODS, _matmul, _repl, _to, _unpartial, check_mesh, local_view, mixed_error
from ._ops_shape import _laid_out, _same, _wrap
from ._utils import chunk_offset, chunk_sizes
from .placement_types import Partial, Placement, Replicate, Shard


class _MaskPartial(Partial):
    """An embedding lookup in a row-sharded table: each rank holds the rows it owns and zeros
    elsewhere, so the value is the sum (PyTorch's placement of the same name)."""

    def __init__(self, offset_shape: Sequence[int], offset_dim: int = 0) -> None:
        super().__init__("sum")
        self.offset_shape = ember.Size(offset_shape)
        self.offset_dim = offset_dim

    def __eq__(self, other: object) -> bool:
        return (type(other) is _MaskPartial and other.offset_shape == self.offset_shape
                and other.offset_dim == self.offset_dim)

    def __hash__(self) -> int:
        return hash(("_MaskPartial", tuple(self.offset_shape), self.offset_dim))

    def __repr__(self) -> str:
        return (f"_MaskPartial(reduce_op=sum, offset_shape={self.offset_shape!r}, "
                f"offset_dim={self.offset_dim})")

    def __str__(self) -> str:
        return "MaskP(sum)"


def _all_dtensors(name: str, *ts: Any) -> None:
    for t in ts:
        if t is not None and not isinstance(t, DTensor):
            raise mixed_error(name, "default")


# -- einsum ----------------------------------------------------------------------------------
def _einsum_placements(ins: list[str], rhs: str, ops: Sequence[DTensor]) -> tuple[list, tuple]:
    """(each operand's placements, the result's), per mesh dim as the module doc says."""
    n = ops[0].device_mesh.ndim
    per_op: list[list[Placement]] = [[] for _ in ops]
    out: list[Placement] = []
    used: set[str] = set()
    for i in range(n):
        letter = None
        for sub, t in zip(ins, ops):
            p = t.placements[i]
            if isinstance(p, Shard) and sub[p.dim] not in used:
                letter = sub[p.dim]
                break
        sizes = [t.shape[sub.index(letter)] for sub, t in zip(ins, ops) if letter and letter in sub]
        if letter is not None and len(set(sizes)) == 1:  # (a broadcast size-1 dim: replicate)
            used.add(letter)
            for k, sub in enumerate(ins):
                per_op[k].append(Shard(sub.index(letter)) if letter in sub else Replicate())
            out.append(Shard(rhs.index(letter)) if letter in rhs else Partial("sum"))
            continue
        lead = next((k for k, t in enumerate(ops) if t.placements[i].is_partial("sum")), None)
        for k, t in enumerate(ops):
            per_op[k].append(t.placements[i] if k == lead else Replicate())
        out.append(ops[lead].placements[i] if lead is not None else Replicate())
    return per_op, tuple(out)


def _einsum(equation: str, *operands: Any) -> DTensor:
    ops = list(operands[0]) if len(operands) == 1 and isinstance(operands[0], (list, tuple)) \
        else list(operands)
    _all_dtensors("_einsum", *ops)
    mesh = check_mesh(ops, "einsum")
    eq = equation.replace(" ", "")
    lhs, _, rhs = eq.partition("->")
    ins = lhs.split(",")
    if "->" not in eq:  # implicit output: the letters seen once, sorted
        rhs = "".join(sorted(c for c in set(lhs) if c.isalpha() and lhs.count(c) == 1))
    plain = "..." not in eq and all(len(set(s)) == len(s) and len(s) == t.dim()
                                    for s, t in zip(ins, ops))
    if plain:
        per_op, po = _einsum_placements(ins, rhs, ops)
    else:  # ellipses or repeated letters: on the whole values
        per_op, po = [list(_repl(mesh.ndim)) for _ in ops], _repl(mesh.ndim)
        ops = [_to(t, _unpartial(t.placements)) for t in ops]
    local = [_to(t, tuple(p)) for t, p in zip(ops, per_op)]
    out = ember.einsum(equation, *[local_view(t) for t in local])
    if plain:
        size = {c: t.shape[k] for s, t in zip(ins, ops) for k, c in enumerate(s)}
        shape = tuple(size[c] for c in rhs)
    else:
        shape = tuple(Tensor.size(out))
    return adopt(out, DTensorSpec(mesh, po, shape))


def _bmm(self: Any, other: Any) -> DTensor:
    _all_dtensors("bmm", self, other)
    return _einsum("bij,bjk->bik", self, other)


def _dot(self: Any, other: Any) -> DTensor:
    _all_dtensors("dot", self, other)
    return _einsum("i,i->", self, other)


def _plus_scaled(name: str, prod: Any, input: Any, beta: Any, alpha: Any) -> DTensor:
    """``beta * input + alpha * prod`` by the elementwise rules (a replicated input joins a
    Partial product as a Partial term)."""
    if alpha != 1:
        prod = METHODS["mul"](prod, alpha)
    if beta == 0:
        return prod  # type: ignore[no-any-return]
    if beta != 1:
        input = METHODS["mul"](input, beta)
    return METHODS["add"](prod, input)  # type: ignore[no-any-return]


def _addmm(input: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> DTensor:
    _all_dtensors("addmm", input, mat1, mat2)
    return _plus_scaled("addmm", _matmul(mat1, mat2), input, beta, alpha)


def _baddbmm(input: Any, b1: Any, b2: Any, *, beta: Any = 1, alpha: Any = 1) -> DTensor:
    _all_dtensors("baddbmm", input, b1, b2)
    return _plus_scaled("baddbmm", _bmm(b1, b2), input, beta, alpha)


# -- layers ----------------------------------------------------------------------------------
def _layer_norm(f: Callable[..., Any]) -> Callable[..., Any]:
    """The normalized dims whole, the others keep their shards; weight and bias replicated."""
    def run(input: Any, normalized_shape: Any, weight: Any = None, bias: Any = None,
            eps: float = 1e-5) -> DTensor:
        _all_dtensors("native_layer_norm", input, weight, bias)
        k = 1 if isinstance(normalized_shape, int) else len(normalized_shape)
        x = _laid_out(input, range(input.dim() - k, input.dim()), linear=False)
        w, b = ((_to(t, _repl(t.device_mesh.ndim)) if t is not None else None) for t in (weight, bias))
        out = f(local_view(x), normalized_shape, local_view(w), local_view(b), eps)
        return _wrap(out, x, _same)  # type: ignore[no-any-return]

    return run


def _embedding(f: Callable[..., Any]) -> Callable[..., Any]:
    """Lookups in a table sharded by columns give column shards; by rows, each rank looks up
    the rows it owns (zeros elsewhere: a _MaskPartial sum); a replicated table keeps the
    indices' shards."""
    def run(input: Any, weight: Any, padding_idx: Any = None, max_norm: Any = None,
            norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> DTensor:
        _all_dtensors("embedding", input, weight)
        mesh = check_mesh([input, weight], "embedding")
        wp: list[Placement] = []
        ip: list[Placement] = []
        op: list[Placement] = []
        rows = None  # the mesh dim splitting the rows
        for i, (w, x) in enumerate(zip(weight.placements, input.placements)):
            if w.is_partial():
                w = Shard(1)  # as PyTorch: the table's terms reduce-scattered by columns
            if isinstance(w, Shard) and w.dim == 0 and rows is None:
                rows = i
                trio: tuple[Placement, Placement, Placement] = (w, Replicate(), _MaskPartial(weight.shape))
            elif isinstance(w, Shard):
                trio = (Shard(1), Replicate(), Shard(input.dim()))
            else:
                x = Replicate() if x.is_partial() else x
                trio = (Replicate(), x, x)
            wp.append(trio[0])
            ip.append(trio[1])
            op.append(trio[2])
        weight, input = _to(weight, wp), _to(input, ip)
        idx, table = local_view(input), local_view(weight)
        kw = dict(max_norm=max_norm, norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq,
                  sparse=sparse)
        if rows is None:
            out = f(idx, table, padding_idx, **kw)
        else:
            n, me = mesh.size(rows), mesh.get_coordinate()[rows]
            off, cnt = chunk_offset(weight.shape[0], n, me), chunk_sizes(weight.shape[0], n)[me]
            outside = (idx < off) | (idx >= off + cnt)
            pad = padding_idx % weight.shape[0] - off if padding_idx is not None else None
            pad = pad if pad is not None and 0 <= pad < cnt else None
            if cnt == 0:
                out = ember.zeros((*idx.shape, table.shape[1]), dtype=table.dtype)
            else:
                out = f((idx - off).masked_fill(outside, 0), table, pad, **kw)
                out = out.masked_fill(outside.unsqueeze(-1), 0)
        shape = (*input.shape, weight.shape[1])
        return adopt(out, DTensorSpec(mesh, tuple(op), shape))

    return run


def _mse_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
              reduction: str = "mean", weight: Any = None) -> DTensor:
    """(input - target)^2 and its reduction, by the elementwise and reduction rules."""
    _all_dtensors("mse_loss", input, target)
    # one op in PyTorch, not linear: Partial inputs are replicated first
    input, target = (_to(t, _unpartial(t.placements)) for t in (input, target))
    d = METHODS["sub"](input, target)
    sq = METHODS["mul"](d, d)
    if reduction == "none":
        return sq  # type: ignore[no-any-return]
    return METHODS["sum" if reduction == "sum" else "mean"](sq)  # type: ignore[no-any-return]


def _dropout(f: Callable[..., Any], elementwise: Callable[..., Any]) -> Callable[..., Any]:
    """Dropout that drops nothing (eval, p=0) is the identity: any layout stays, a Partial
    too; else elementwise."""
    def run(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
        if isinstance(input, DTensor) and (not training or p == 0):
            out = f(local_view(input), p, training, inplace)
            return input if inplace else adopt(out, input._spec)
        return elementwise(input, p, training, inplace)

    return run


# functions reached by name (ember.einsum's checked inner function, ``_einsum``)
BY_NAME: dict[str, Callable[..., Any]] = {"_einsum": _einsum}


def install(rules: dict[Any, Any], methods: dict[str, Callable[..., Any]],
            elementwise: Callable[..., Callable[..., Any]],
            function_form: Callable[..., Callable[..., Any]]) -> None:
    """Route the functions (and the bmm/dot methods) here."""
    for name, rule in (("bmm", _bmm), ("dot", _dot)):  # the methods: d.bmm(x)
        methods[name] = rules[getattr(Tensor, name)] = rule
    funcs: tuple[tuple[str, Callable[..., Any]], ...] = (
        ("einsum", _einsum), ("bmm", _bmm), ("dot", _dot), ("addmm", _addmm), ("baddbmm", _baddbmm))
    for name, rule in funcs:
        f = getattr(ember, name, None)
        if f is not None:
            rules[f] = function_form(rule, name, self_first=False)
    try:
        import ember.nn.functional as F
    except ImportError:  # ember-nn not installed
        return
    rules[F.layer_norm] = _layer_norm(F.layer_norm)
    rules[F.embedding] = _embedding(F.embedding)
    rules[F.mse_loss] = _mse_loss
    rules[F.dropout] = _dropout(F.dropout, elementwise(F.dropout, "dropout"))

