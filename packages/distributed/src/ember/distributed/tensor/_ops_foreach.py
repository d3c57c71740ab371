"""DTensor rules of the ``_foreach_*`` ops (the optimizers' multi-tensor steps).

``_foreach_<op>(tensors, other...)`` is ``<op>`` applied per index, so each result is laid out
as the per-tensor rule lays it out (a Shard stays a Shard, ``Partial * 2`` stays Partial,
``sqrt(Partial)`` is replicated first), as in PyTorch. The common case -- every operand at an
index laid out as the tensor itself, nothing Partial (FSDP2's sharded parameters and states)
-- is one core foreach call on the local shards; anything else goes index by index through the
elementwise rules. PyTorch's errors where it has no rule (``_foreach_addcdiv``,
``_foreach_maximum`` with numbers, ``_foreach_copy_``), for a plain tensor among the operands,
and for an in-place op that would need a Partial input replicated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ember import Tensor

from ._dtensor import DTensor, adopt
from ._ops import METHODS, _norm, elementwise, elementwise_, local_view, mixed_error

# in-place ops PyTorch keeps a Partial input Partial under (the others need it replicated first)
_PARTIAL_INPLACE = {"add": "List", "sub": "List", "mul": None, "div": None, "neg": None}
# overload names of the per-tensor op that PyTorch's in-place error names (else Scalar/Tensor)
_ELEM_OVERLOAD = {("clamp_min", "Scalar"): "default", ("clamp_max", "Scalar"): "default",
                  ("clamp_min", "List"): "Tensor", ("clamp_max", "List"): "Tensor",
                  ("pow", "Scalar"): "Tensor_Scalar", ("pow", "List"): "Tensor_Tensor",
                  ("maximum", "List"): "default", ("minimum", "List"): "default",
                  ("lerp", "List"): "Tensor", ("add", "Tensor"): "Scalar", ("sub", "Tensor"): "Scalar",
                  ("clamp_min", "Tensor"): "default", ("clamp_max", "Tensor"): "default",
                  ("pow", "Tensor"): "Tensor_Scalar"}


def _kind(x: Any) -> str:
    """PyTorch's overload name for a foreach op's second operand."""
    if x is None:
        return "default"
    if isinstance(x, Tensor):
        return "Tensor"
    if isinstance(x, (list, tuple)):
        return "List" if x and isinstance(x[0], Tensor) else "ScalarList"
    return "Scalar"


def _no_strategy(name: str, overload: str) -> NotImplementedError:
    return NotImplementedError(f"Operator aten.{name}.{overload} does not have a sharding strategy "
                               "registered.")


def _inplace_error(name: str, overload: str, placements: Any) -> RuntimeError:
    return RuntimeError(f"aten.{name}.{overload}: in-place operations that require placement "
                        "changes are not supported. The input has placement "
                        f"{tuple(placements)}, but no valid strategy preserves this placement. "
                        "Please use the out-of-place version of this operation instead.")


def _at(arg: Any, i: int, n: int) -> Any:
    """The operand of index ``i``: a list entry (tensor or number list), else the value itself."""
    return arg[i] if isinstance(arg, (list, tuple)) and len(arg) == n else arg


def _check_operands(name: str, overload: str, tensors: Sequence[Any], rest: Sequence[Any]) -> None:
    """PyTorch's checks: list lengths, and no plain tensor (a 0-d one counts as a number)."""
    n = len(tensors)
    for a in rest:
        if isinstance(a, (list, tuple)) and a and isinstance(a[0], Tensor) and len(a) != n:
            raise RuntimeError(f"Tensor lists must have the same number of tensors, got {n} and "
                               f"{len(a)}")
    for a in (tensors, *rest):
        for x in (a if isinstance(a, (list, tuple)) else (a,)):
            if isinstance(x, Tensor) and not isinstance(x, DTensor) and (x.dim() > 0 or a is tensors):
                raise mixed_error(name, overload)


def _fast(tensors: Sequence[Any], rest: Sequence[Any]) -> bool:
    """Every operand at each index laid out as that index's tensor (or a replicated number),
    nothing Partial: the local op computes each local result."""
    n = len(tensors)
    for i, t in enumerate(tensors):
        spec = t._spec
        if any(p.is_partial() for p in spec.placements):
            return False
        for a in rest:
            x = _at(a, i, n)
            if isinstance(x, DTensor):
                xs = x._spec
                if xs.placements != spec.placements or xs.shape != spec.shape:
                    if xs.shape or not all(p.is_replicate() for p in xs.placements):
                        return False
    return True


def _elem_rule(op: str, inplace: bool) -> Callable[..., Any]:
    """The per-tensor DTensor rule of ``op`` (``add``) or its in-place form (``add_``)."""
    name = op + "_" if inplace else op
    rule = METHODS.get(name)
    if rule is None:
        make = elementwise_ if inplace else elementwise
        rule = make(getattr(Tensor, name), name)
    return rule


def _prepare_partial_inplace(op: str, foreach: str, kind: str, tensors: Sequence[Any],
                             rest: Sequence[Any]) -> None:
    """An in-place op on a Partial tensor: allowed where the op keeps the Partial (sums of
    Partials, scaling); else PyTorch's error."""
    for t in tensors:
        if not any(p.is_partial() for p in t.placements):
            continue
        need = _PARTIAL_INPLACE.get(op, "none")
        if need is None or need == kind:
            continue
        if foreach in ("_foreach_addcmul_", "_foreach_addcdiv_"):
            raise _inplace_error(foreach, kind, t.placements)
        ov = "default" if kind == "default" else _ELEM_OVERLOAD.get(
            (op, kind), "Tensor" if kind == "List" else "Scalar")
        raise _inplace_error(op, ov, t.placements)


def foreach_rule(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """The rule of ``_foreach_<op>`` / ``_foreach_<op>_`` (``func`` the core op)."""
    inplace = name.endswith("_")
    op = name[len("_foreach_"):].rstrip("_")
    value_pos = {"addcmul": 2, "addcdiv": 2, "lerp": 1}.get(op, 0)  # where the overload shows

    def run(tensors: Sequence[Any], *rest: Any, **kwargs: Any) -> Any:
        other = rest[value_pos] if len(rest) > value_pos else None
        if op in ("addcmul", "addcdiv", "lerp") and other is None:
            other = kwargs.get("value", kwargs.get("weight", kwargs.get("scalars", 1)))
        kind = _kind(other)
        if op in ("maximum", "minimum") and kind == "Tensor":
            kind = "Scalar"  # PyTorch's name for a number given as a tensor
        _check_operands(name, kind, tensors, rest)
        if not any(isinstance(t, DTensor) for t in tensors):
            return func(tensors, *rest, **kwargs)  # a DTensor only among the other operands
        if (name == "_foreach_addcdiv" or name == "_foreach_copy_"
                or (op in ("maximum", "minimum") and kind in ("Scalar", "ScalarList"))):
            raise _no_strategy(name, "default" if op == "copy" else kind)
        if inplace:
            _prepare_partial_inplace(op, name, kind, tensors, rest)
        if _fast(tensors, rest):
            out = func(local_view(list(tensors)), *[local_view(a) for a in rest],
                       **{k: local_view(v) for k, v in kwargs.items()})
            if inplace:
                return out
            return tuple(adopt(o, t._spec) for o, t in zip(out, tensors))
        rule = _elem_rule(op, inplace)
        n = len(tensors)
        if op in ("addcmul", "addcdiv") and len(rest) > 2:  # the per-tensor op takes value=
            kwargs = {**kwargs, "value": rest[2]}
            rest = rest[:2]
        res = [rule(t, *[_at(a, i, n) for a in rest], **{k: _at(v, i, n) for k, v in kwargs.items()})
               for i, t in enumerate(tensors)]
        return None if inplace else tuple(res)

    run.__name__ = run.__qualname__ = name
    return run


def foreach_norm(tensors: Sequence[Any], ord: Any = 2, dtype: Any = None) -> tuple[Any, ...]:
    """One DTensor norm per tensor (a reduction: the local norms are not the answer)."""
    _check_operands("_foreach_norm", "Scalar", tensors, ())
    return tuple(_norm(t, ord, dtype=dtype) for t in tensors)


def foreach_zero_(tensors: Sequence[Any]) -> None:
    """zero_ per tensor: a Partial one would need replicating first (PyTorch refuses)."""
    _check_operands("_foreach_zero_", "default", tensors, ())
    for t in tensors:
        if isinstance(t, DTensor) and any(p.is_partial() for p in t.placements):
            raise _inplace_error("zero", "default", t.placements)
    for t in tensors:
        Tensor.zero_(t)

