"""``out=`` for the functions ember composes in Python, as aten's out= overloads behave.

The result is written into the given tensor(s), resized to fit (with aten's deprecation warning when
a tensor that has elements changes shape), after that op's dtype rule, and refused under autograd
where aten refuses it. The dtype rules differ by op in aten, so each function names its own:
``exact`` (most linalg kernels), ``cast`` (TensorIterator ops), ``castable(op)`` (linalg's "safely
castable" check) or ``exact_with(text)`` (a composite's own message).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import ember
from ember._dtype_names import legacy_name, meta_name
from ember._lib import _C

Check = Callable[[Any, Any], None]  # (result dtype, out dtype): raises when out may not take the result
# aten's tensordot_out check (inner and tensordot share it)
TENSORDOT_DTYPE = (
    "tensordot: Expected the output tensor to have dtype {want}, but got an output tensor with dtype {got}")
TENSORDOT_DEVICE = ("tensordot: Expected the output and input tensors to be on the same device, but got the output "
                    "tensor on {out}, input tensor a on {input}, and input tensor b on {input}")
# out= on another device than the result: the structured kernels' words, or a composite's own (``{out}``
# and ``{input}`` the devices), as same_device(op) for linalg's checkSameDevice
OTHER_DEVICE = "Expected out tensor to have device {input}, but got {out} instead"


def same_device(op: str, swapped: bool = False) -> str:
    """linalg's checkSameDevice message for ``op`` (``swapped``: the devices in the order aten passes them
    for matrix_norm / vecdot, the input's first)."""
    a, b = ("input", "out") if swapped else ("out", "input")
    return (f"{op}: Expected result and input tensors to be on the same device, but got result on {{{a}}} and input "
            f"on {{{b}}}")


def exact(r: Any, o: Any) -> None:
    """aten's linalg kernels: the out tensor must have the result's dtype."""
    raise RuntimeError(f"Expected out tensor to have dtype {meta_name(r)}, but got {meta_name(o)} instead")


def cast(r: Any, o: Any) -> None:
    """TensorIterator's rule: any dtype the result casts to under the type-promotion lattice."""
    if not _C.can_cast(r, o):
        raise RuntimeError(f"result type {legacy_name(r)} can't be cast to the desired output type {legacy_name(o)}")


def castable(op: str, what: str = "result") -> Check:
    """linalg's checkLinalgCompatibleDtype: castable, with the op's name (and the output's) in the message."""
    def check(r: Any, o: Any) -> None:
        if not _C.can_cast(r, o):
            raise RuntimeError(f"{op}: Expected {what} to be safely castable from {legacy_name(r)} dtype, but got "
                               f"{what} with dtype {legacy_name(o)}")
    return check


def exact_with(text: str) -> Check:
    """An exact-dtype rule with a composite's own message: ``text`` formats ``{want}``/``{got}``
    (ScalarType names) or ``{want_meta}``/``{got_meta}`` (TypeMeta names)."""
    def check(r: Any, o: Any) -> None:
        raise RuntimeError(text.format(want=legacy_name(r), got=legacy_name(o), want_meta=meta_name(r),
                                       got_meta=meta_name(o)))
    return check


def refuse_grad(op: str, *tensors: Any) -> None:
    """aten's refusal of an out= call whose inputs need a graph."""
    if ember.is_grad_enabled() and any(isinstance(t, ember.Tensor) and t.requires_grad for t in tensors):
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic differentiation, but "
                           "one of the arguments requires grad.")


def check_tuple(out: Any, n: int) -> None:
    """The parser's TypeError for an out= that is not a tuple of ``n`` tensors."""
    if not isinstance(out, (tuple, list)) or len(out) != n:
        raise TypeError(f"expected tuple of {n} elements but got {len(out) if isinstance(out, (tuple, list)) else 1}")


def write(result: Any, out: Any, check: Check | Sequence[Check] = exact, grad: str | None = None,
          inputs: Sequence[Any] = (), warn: bool = True, device: str = OTHER_DEVICE) -> Any:
    """``result`` (a tensor or a structseq of tensors) written into ``out`` and returned in
    ``result``'s form (a structseq named ``<op>_out``, as aten's); ``result`` itself when out is None.
    ``check`` is the dtype rule, or one per part of a structseq.
    ``grad`` names the aten op whose out= refuses autograd on ``inputs``; ``warn=False`` resizes silently
    (the few aten ops that resize with resize_, not resize_output); ``device`` the error for an out= on
    another device (OTHER_DEVICE's fields)."""
    if out is None:
        return result
    if grad is not None:  # the out= tensors too: aten refuses to write into one that requires grad
        refuse_grad(grad, *inputs, *(out if isinstance(out, (tuple, list)) else (out,)))
    if isinstance(result, ember.Tensor):
        _fill(out, result, check, warn, device)  # type: ignore[arg-type]
        return out
    check_tuple(out, len(result))
    checks = check if isinstance(check, (tuple, list)) else [check] * len(result)
    for o, r, c in zip(out, result, checks, strict=True):
        _fill(o, r, c, warn, device)
    return _out_type(type(result))(tuple(out))


def takes_out(check: Check | Sequence[Check] = exact, grad: str | None = None, warn: bool = True,
              device: str = OTHER_DEVICE) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: the function's ``out=`` keyword handled by ``write`` (the function computes the
    result as if no out were given); ``grad`` names the aten op refusing autograd on any argument."""
    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def with_out(*args: Any, out: Any = None, **kwargs: Any) -> Any:
            result = fn(*args, **kwargs)
            if out is None:
                return result
            inputs = [t for a in (*args, *kwargs.values()) for t in (a if isinstance(a, (tuple, list)) else (a,))]
            return write(result, out, check, grad, inputs, warn, device)
        return with_out
    return wrap



def exact_out(fn: Callable[..., Any], name: str, grad: str) -> Callable[..., Any]:
    """A compiled function given aten's ``out=`` of the exact result dtype; ``grad`` names the aten op
    that refuses autograd (checked before the work, as aten's)."""
    def with_out(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is None:
            return fn(*args, **kwargs)
        refuse_grad(grad, *args, *kwargs.values(), out)
        return write(fn(*args, **kwargs), out, exact)
    with_out.__name__ = with_out.__qualname__ = name
    with_out.__doc__ = _doc_with_out(fn.__doc__ or "", fn.__name__, name)
    return with_out


def _doc_with_out(doc: str, c_name: str, name: str) -> str:
    """The compiled function's docstring, its signature line (which Sphinx reads) under the public
    name and with the ``out`` keyword."""
    first, sep, rest = doc.partition("\n")
    if not first.startswith(c_name + "(") or ") -> " not in first:
        return doc
    params, _, ret = first[len(c_name) + 1:].rpartition(") -> ")
    params += ", out: Tensor | None = None" if "*" in params.split(", ") else ", *, out: Tensor | None = None"
    return f"{name}({params}) -> {ret}{sep}{rest}"


_OUT_TYPES: dict[type, Any] = {}


def _out_type(t: type) -> Any:
    if t not in _OUT_TYPES:
        _OUT_TYPES[t] = _C._return_type(f"{t.__name__}_out", list(t.__match_args__))
    return _OUT_TYPES[t]


def _fill(o: Any, r: ember.Tensor, check: Check, warn: bool, device: str) -> None:
    if not isinstance(o, ember.Tensor):
        raise TypeError(f"out= expects a Tensor, but got {type(o).__name__}")
    if o.device != r.device:  # out= never moves a result across devices
        raise RuntimeError(device.format(out=o.device, input=r.device))
    if o.dtype != r.dtype:
        check(r.dtype, o.dtype)
    if tuple(o.shape) != tuple(r.shape):
        if o.numel() and warn:
            warnings.warn(f"An output with one or more elements was resized since it had shape {list(o.shape)}, which "
                          f"does not match the required output shape {list(r.shape)}. This behavior is deprecated, and "
                          "in a future PyTorch release outputs will not be resized unless they have zero elements. You "
                          "can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                          "t.resize_(0).", UserWarning, stacklevel=4)
        o.resize_(tuple(r.shape))
    o.copy_(r)
