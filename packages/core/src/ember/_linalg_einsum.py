"""ember.einsum and ember.tensordot: contractions lowered to permute / reshape / matmul / sum,
so autograd comes for free from those ops."""

from __future__ import annotations

from typing import Any

import ember
from ember._argcheck import checked
from ember._out import TENSORDOT_DEVICE, TENSORDOT_DTYPE, exact_with, write

_ELL = "..."


def _parse_term(term: str, ndim: int, n_ell: int, i: int) -> list:
    """Labels of one operand: letters as str, ellipsis dims as ints counted from the right."""
    if term.count(_ELL) > 1:
        raise RuntimeError(f"einsum(): found '.' for operand {i} for which an ellipsis was already found")
    letters = term.replace(_ELL, "")
    for ch in letters:
        if not ch.isalpha():
            raise RuntimeError(f"einsum(): invalid subscript given at index {term.index(ch)} in the equation "
                               f"string, subscripts must be in [a-zA-Z]")
    if _ELL not in term:
        if len(letters) != ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(letters)}) does not "
                               f"match the number of dimensions ({ndim}) for operand {i} and no ellipsis was "
                               f"given")
        return list(letters)
    e = ndim - len(letters)
    if e < 0:
        raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(letters)}) is more than "
                           f"the number of dimensions ({ndim}) for operand {i}")
    head, tail = term.split(_ELL)
    return list(head) + list(range(n_ell - e, n_ell)) + list(tail)


def _diagonalize(op: ember.Tensor, labels: list) -> tuple[ember.Tensor, list]:
    """Repeated labels in one operand take the diagonal (mask with an identity, sum one copy)."""
    while True:
        seen: dict = {}
        dup = None
        for d, lab in enumerate(labels):
            if lab in seen:
                dup = (seen[lab], d)
                break
            seen[lab] = d
        if dup is None:
            return op, labels
        i, j = dup
        n = op.shape[i]
        if op.shape[j] != n:
            raise RuntimeError(f"einsum(): subscript {labels[i]} is repeated for operand but the sizes don't "
                               f"match, {op.shape[j]} != {n}")
        shape = [1] * op.dim()
        shape[i] = shape[j] = n
        mask = ember.eye(n, dtype=op.dtype, device=op.device).reshape(shape)
        op = (op * mask).sum(j)
        labels = labels[:j] + labels[j + 1:]


def _contract(a: ember.Tensor, la: list, b: ember.Tensor, lb: list, keep: set, sizes: dict) -> tuple:
    """Contract two operands: shared labels not kept are summed (through a batched matmul)."""
    batch = [x for x in la if x in lb and x in keep]
    red = [x for x in la if x in lb and x not in keep]
    a_only = [x for x in la if x not in lb]
    b_only = [x for x in lb if x not in la]

    def arrange(t: ember.Tensor, labs: list, order: list) -> ember.Tensor:
        t = t.permute([labs.index(x) for x in order]) if order != labs else t
        return t.expand([sizes[x] for x in order]) if any(t.shape[k] != sizes[x] for k, x in enumerate(order)) else t

    def prod(xs: list) -> int:
        p = 1
        for x in xs:
            p *= sizes[x]
        return p

    A = arrange(a, la, batch + a_only + red).reshape(prod(batch), prod(a_only), prod(red))
    B = arrange(b, lb, batch + red + b_only).reshape(prod(batch), prod(red), prod(b_only))
    r = A.matmul(B).reshape([sizes[x] for x in batch + a_only + b_only])
    return r, batch + a_only + b_only


def einsum(equation: str, *operands: Any) -> ember.Tensor:
    """Einstein summation (explicit ``->`` or implicit output, ``...`` broadcasting)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return _einsum(equation, *operands)


@checked  # a non-tensor operand: PyTorch's "expected Tensor as element i in argument 1"
def _einsum(equation: str, *operands: ember.Tensor) -> ember.Tensor:
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    n_ell = max((op.dim() - len(t.replace(_ELL, "")) for t, op in zip(terms, operands, strict=True) if _ELL in t),
                default=0)
    labels = [_parse_term(t, op.dim(), n_ell, i) for i, (t, op) in enumerate(zip(terms, operands, strict=True))]
    sizes: dict = {}
    for i, (op, labs) in enumerate(zip(operands, labels, strict=True)):
        for d, x in enumerate(labs):
            s = op.shape[d]
            if x in sizes and sizes[x] != s and s != 1 and sizes[x] != 1:
                what = f"subscript {x}" if isinstance(x, str) else "ellipsis dimension"
                raise RuntimeError(f"einsum(): {what} has size {s} for operand {i} which does not broadcast "
                                   f"with previously seen size {sizes[x]}")
            sizes[x] = max(sizes.get(x, 1), s) if s != 0 and sizes.get(x, 1) != 0 else 0
    counts: dict = {}
    for labs in labels:
        for x in labs:
            counts[x] = counts.get(x, 0) + 1
    if arrow:
        out = _parse_term(rhs, n_ell + len(rhs.replace(_ELL, "")), n_ell, -1) if _ELL in rhs else list(rhs)
        for x in out:
            if isinstance(x, str) and x not in counts:
                raise RuntimeError(f"einsum(): output subscript {x} does not appear in the equation for any "
                                   f"input operand")
        if len(set(map(str, out))) != len(out):
            raise RuntimeError("einsum(): output subscript appears more than once in the output")
    else:
        out = list(range(n_ell)) + sorted(x for x in counts if isinstance(x, str) and counts[x] == 1)
    ops = []
    for op, labs in zip(operands, labels, strict=True):
        op, labs = _diagonalize(op, labs)
        # labels only this operand has and the output drops are summed right away
        lone = [d for d, x in enumerate(labs) if x not in out and sum(x in l2 for l2 in labels) == 1]
        if lone:
            op = op.sum(lone)
            labs = [x for d, x in enumerate(labs) if d not in lone]
        ops.append((op, labs))
    cur, cl = ops[0]
    for k in range(1, len(ops)):
        keep = set(out)
        for _, l2 in ops[k + 1:]:
            keep.update(l2)
        cur, cl = _contract(cur, cl, ops[k][0], ops[k][1], keep, sizes)
    drop = [d for d, x in enumerate(cl) if x not in out]
    if drop:
        cur = cur.sum(drop)
        cl = [x for x in cl if x in out]
    perm = [cl.index(x) for x in out]
    if perm != list(range(len(perm))):
        cur = cur.permute(perm)
    if tuple(cur.shape) != tuple(sizes[x] for x in out):
        cur = cur.expand([sizes[x] for x in out])
    return cur


def _numel(sizes: Any) -> int:
    n = 1
    for s in sizes:
        n *= s
    return n


def tensordot(a: ember.Tensor, b: ember.Tensor, dims: Any = 2, out: Any = None) -> ember.Tensor:
    """Sum over the paired dims ``dims`` of a and b (an int n pairs a's last n with b's first n)."""
    if isinstance(dims, ember.Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        da, db = dims
        da, db = ([da], [db]) if isinstance(da, int) else (list(da), list(db))
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype != b.dtype:  # aten's check, before the dims are wrapped
        raise RuntimeError("both inputs should have same dtype")
    da = [d % a.dim() for d in da] if a.dim() else da
    db = [d % b.dim() for d in db] if b.dim() else db
    for x, y in zip(da, db, strict=True):
        if a.shape[x] != b.shape[y]:
            xd = x - a.dim() if isinstance(dims, int) else x
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[x]} in dim "
                               f"{xd} and second has size {b.shape[y]} in dim {y}")
    fa = [d for d in range(a.dim()) if d not in da]
    fb = [d for d in range(b.dim()) if d not in db]
    # explicit sizes, not -1: a zero-size dim leaves -1 undefined
    m, k, n = _numel(a.shape[d] for d in fa), _numel(a.shape[d] for d in da), _numel(b.shape[d] for d in fb)
    A = a.permute(fa + da).reshape(m, k)
    B = b.permute(db + fb).reshape(k, n)
    # aten: a one-element result is dot's (its dtypes: no bool), any other mm's
    r = ember.dot(A.reshape(k), B.reshape(k)) if m == 1 and n == 1 else A.matmul(B)
    r = r.reshape([a.shape[d] for d in fa] + [b.shape[d] for d in fb])
    return write(r, out, exact_with(TENSORDOT_DTYPE), device=TENSORDOT_DEVICE)


