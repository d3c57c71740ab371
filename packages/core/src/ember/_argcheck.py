"""PyTorch's argument TypeErrors for ember's pure-Python functions, read from their annotations.

PyTorch's functions reach its C++ argument parser, which refuses ``None`` or a list where a
Tensor belongs and anything but ``True``/``False`` for a flag, naming the function and the
argument. ember's Python-level functions get the same errors from one wrapper applied where
the public names are exported: ``checked(fn)`` reads which parameters are annotated
``Tensor``, ``Tensor | None``, ``bool`` or ``bool | None`` and returns ``_C._checked``, a C
callable that checks those (a type compare each) and calls ``fn`` unchanged (Note [Checked
Python functions] in csrc/python/py_argcheck.cpp). ``after=True`` checks after the call, in
the order of PyTorch's Python functions (their own value checks come first). Measured cost:
15-35 ns a call, nearly all of it the interpreter re-entered from C instead of an inlined call.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ember._lib import _C

_KINDS = {
    "Tensor": "Tensor", "ember.Tensor": "Tensor",
    "Tensor | None": "Tensor?", "ember.Tensor | None": "Tensor?", "Optional[Tensor]": "Tensor?",
    "bool": "bool", "bool | None": "bool?", "Optional[bool]": "bool?",
}
# PyTorch picks which op to call by these flags' truth value (relu_ or relu), so any object
# works there; every other flag reaches its parser.
_LOOSE_FLAGS = frozenset({"inplace", "return_indices"})
_CO_VARARGS = 0x04


def _text(ann: Any) -> str:
    """An annotation as source text: strings (``from __future__ import annotations``) as they are."""
    if isinstance(ann, str):
        return ann
    if isinstance(ann, types.UnionType):
        return " | ".join(_text(a) for a in ann.__args__)
    return "None" if ann is type(None) else getattr(ann, "__name__", "")


def spec_of(fn: types.FunctionType) -> tuple[tuple[int, str, str], ...]:
    """(position or -1 for keyword-only, name, kind) for each parameter the annotations pin down."""
    while hasattr(fn, "__wrapped__"):  # a decorated function (autocast_op): the original's parameters
        fn = fn.__wrapped__
    code = fn.__code__
    ann = fn.__annotations__
    npos, nkw = code.co_argcount, code.co_kwonlyargcount
    spec = []
    for i, name in enumerate(code.co_varnames[:npos + nkw]):
        kind = _KINDS.get(_text(ann.get(name, "")))
        if kind is None or (kind.startswith("bool") and name in _LOOSE_FLAGS):
            continue
        spec.append((i if i < npos else -1, name, kind))
    if code.co_flags & _CO_VARARGS:
        name = code.co_varnames[npos + nkw]
        if _KINDS.get(_text(ann.get(name, ""))) == "Tensor":
            spec.append((npos, name, "*Tensor"))
    return tuple(spec)


def checked(fn: Callable[..., Any], name: str | None = None, *, after: bool = False) -> Callable[..., Any]:
    """``fn`` raising PyTorch's TypeError for a wrong-typed argument; ``name`` is the function named in it.
    ``after``: check once fn has returned or raised AttributeError/TypeError, as PyTorch's Python functions
    (whose own checks of values run before its parser sees the arguments)."""
    if not isinstance(fn, types.FunctionType):
        return fn  # C functions parse their own arguments
    spec = spec_of(fn)
    return _C._checked(fn, name or fn.__name__, spec, after) if spec else fn


def check_names(namespace: dict[str, Any], names: Iterable[str], op_names: Mapping[str, str] | None = None, *,
                after: bool = False) -> None:
    """Replace each of ``names`` in ``namespace`` by its checked version (messages name ``op_names[name]``)."""
    op_names = op_names or {}
    for name in names:
        fn = namespace.get(name)
        wrapped = checked(fn, op_names.get(name, name), after=after) if fn is not None else fn
        if wrapped is not fn:
            # found again by pickle (and read) as this module's attribute, as PyTorch's functions are
            wrapped.__module__, wrapped.__qualname__ = namespace.get("__name__"), name
            namespace[name] = wrapped


def no_internal_overlap(t: Any) -> None:
    """at::assert_no_internal_overlap for a tensor an in-place op writes: only the case aten is sure of,
    a dim of size > 1 with stride 0 (an expanded view), as a composite's final copy_ would see it too late."""
    if t.numel() > 0 and any(st == 0 and n > 1 for n, st in zip(t.shape, t.stride())):
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")


def parse_int64(v: Any, name: str, what: str) -> None:
    """PyTorch's parser on an int or int-list argument, before the op runs: a Python int beyond int64 is a
    ValueError, or as a sequence's element a TypeError naming the argument and position."""
    for j, n in enumerate(v if isinstance(v, (list, tuple)) else (v,)):
        if isinstance(n, int) and not -(2**63) <= n < 2**63:
            if not isinstance(v, (list, tuple)):
                raise ValueError("Overflow when unpacking long long")
            raise TypeError(f"{name}(): argument '{what}' failed to unpack the object at pos {j + 1} with error "
                            '"Overflow when unpacking long long"')
