"""Custom differentiable operations: ``ember.autograd.Function``.

The ctx object that forward/backward receive is also the graph node users see as
``output.grad_fn`` (a subclass of ``_C._FunctionBase`` named ``<Fn>Backward``).
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

from ember._lib import _C

_TENSOR = _C.TensorBase


class FunctionCtx:
    """What ``ctx`` offers inside forward/setup_context/backward."""

    def save_for_backward(self, *tensors: Any) -> None:
        """Keeps ``tensors`` (inputs or outputs of forward, or None) for ``backward``, which reads
        them from ``ctx.saved_tensors``; saving through the context lets autograd check they
        were not modified in between."""
        for t in tensors:
            if t is not None and not isinstance(t, _TENSOR):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        """Keeps ``tensors`` for ``jvp`` (forward-mode differentiation)."""
        self.saved_for_forward = tensors

    def mark_dirty(self, *args: Any) -> None:
        """Declares the input tensors that forward modified in place (they must be returned as
        outputs)."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args: Any) -> None:
        """Declares outputs that are not differentiable (indices, masks): they get no gradient and
        backward receives zeros for them."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """With False, backward receives None instead of zero tensors for outputs whose gradient is
        undefined."""
        self.materialize_grads = value


class BackwardCFunction(_C._FunctionBase, FunctionCtx):
    """Base of the per-Function ctx/node classes."""

    _forward_cls: type[Function]

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        saved = getattr(self, "_saved", None)
        if saved is None:
            if getattr(self, "_released", False):
                raise RuntimeError(
                    "Trying to backward through the graph a second time (or directly access saved tensors after "
                    "they have already been freed). Saved intermediate values of the graph are freed when you "
                    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
                    "through the graph a second time or if you need to access saved tensors after calling "
                    "backward.")
            return ()
        out = []
        for t, version, original in saved:
            if t is not None and t._version != version:
                # PyTorch names the forward op (MyFnBackward -> MyFn)
                op = re.sub(r"Backward\d*$", "", self.name())
                hint = ("Hint: the backtrace further above shows the operation that failed to compute its gradient. "
                        "The variable in question was changed in there or anywhere later. Good luck!"
                        if _C.is_anomaly_enabled() else
                        "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
                        "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an inplace "
                    f"operation: [{t.type()} {list(t.shape)}], which is output 0 of {op}, is at version "
                    f"{t._version}; expected version {version} instead. {hint}")
            out.append(original if original is not None else t)
        return tuple(out)

    saved_variables = saved_tensors

    def _release_saved(self) -> None:
        self._saved = None
        self._released = True

    def _do_backward(self, grads: tuple[Any, ...]) -> tuple[Any, ...]:
        fn = self._forward_cls
        if getattr(self, "materialize_grads", True):
            metas = self._output_metas
            grads = tuple(g if g is not None or m is None else _C.zeros(m[0], dtype=m[1], device=m[2])
                          for g, m in zip(grads, metas, strict=False))
        result = fn.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self._input_kinds)
        if len(result) != n:
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                                   f"(expected {n}, got {len(result)})")
        out = []
        for i, (r, is_tensor) in enumerate(zip(result, self._input_kinds, strict=False)):
            if not is_tensor:
                if r is not None:
                    raise RuntimeError(f"function {self.name()} returned a gradient different than None at "
                                       f"position {i + 1}, but the corresponding forward input was not a Variable")
                out.append(None)
            else:
                out.append(r)
        return tuple(out)

    def name(self) -> str:  # type: ignore[override]
        return type(self).__name__


class _FunctionMeta(type):
    """Gives each Function subclass its ctx/node class ``<Name>Backward``."""

    def __init__(cls, name: str, bases: tuple[type, ...], attrs: dict[str, Any]) -> None:
        backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=_FunctionMeta):
    """Base class for custom autograd operations: define ``forward`` and ``backward``
    staticmethods."""

    generate_vmap_rule = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        import warnings

        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions are all static, "
                      "so you should invoke them on the class itself.", DeprecationWarning, stacklevel=2)

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        """The computation, on plain tensors (autograd does not record inside). Either take ``ctx``
        first and save what backward needs on it, or define ``setup_context`` and leave ``ctx`` out.
        """
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        """Saves on ``ctx`` what backward needs, from forward's ``inputs`` and ``output`` (when
        forward does not take ``ctx``)."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """The gradients of the inputs from the gradients of the outputs: one value per forward input
        (None for inputs that need none), given one ``grad_output`` per forward output.
        """
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """Forward-mode derivative: the output tangents (one per forward output) from the input
        tangents (one per forward input: zeros for a tensor input without tangent, None for a
        non-tensor); used when the Function is applied to dual tensors (``forward_ad``)."""
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Runs the function on ``args`` and records it in the autograd graph: how a custom Function is
        called (``MyFn.apply(x)``), never ``forward`` directly.
        """
        ctx = cls._backward_cls()
        tensors = [a for a in args if isinstance(a, _TENSOR)]
        ctx.needs_input_grad = tuple(isinstance(a, _TENSOR) and a.requires_grad for a in args)
        ctx._input_kinds = tuple(isinstance(a, _TENSOR) for a in args)
        record = _C.is_grad_enabled() and any(t.requires_grad for t in tensors)
        custom_setup = cls.setup_context is not Function.setup_context
        # Forward AD (only loaded once a dual level was used): dual inputs go through cls.jvp,
        # and forward itself runs on the primals alone.
        fwd_ad = sys.modules.get("ember.autograd.forward_ad")
        fw_tangents = fwd_ad._function_inputs(args) if fwd_ad is not None else None
        if fw_tangents is not None and cls.jvp is Function.jvp:
            Function.jvp(ctx)
        prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)
        try:
            with fwd_ad._suspended() if fw_tangents is not None else nullcontext():
                if custom_setup:
                    output = cls.forward(*args, **kwargs)
                else:
                    output = cls.forward(ctx, *args, **kwargs)
        finally:
            _C._set_grad_enabled(prev)
        if custom_setup:
            cls.setup_context(ctx, args, output)
        is_tuple = isinstance(output, tuple)
        outputs = output if is_tuple else (output,)
        dirty = tuple(getattr(ctx, "dirty_tensors", ()))
        # An input returned unchanged becomes a new tensor (a view): the node is
        # its creator, and the input keeps its own history.
        outputs = tuple(o.detach() if isinstance(o, _TENSOR) and any(o is a for a in args)
                        and not any(o is d for d in dirty) else o for o in outputs)
        ctx._output_metas = tuple((tuple(o.shape), o.dtype, o.device) if isinstance(o, _TENSOR) else None
                                  for o in outputs)  # the zeros of an unused output's gradient: same place
        if record:
            non_diff = tuple(getattr(ctx, "non_differentiable", ()))
            _C._function_record(ctx, ctx.name(), tuple(args), outputs, dirty, non_diff)
        _save(ctx, outputs)
        if fw_tangents is not None:
            fwd_ad._function_jvp(cls, ctx, args, outputs, fw_tangents)
        return outputs if is_tuple else outputs[0]


def _save(ctx: Any, outputs: tuple[Any, ...]) -> None:
    to_save = getattr(ctx, "to_save", None)
    if to_save is None:
        return
    saved = []
    for t in to_save:
        if t is None:
            saved.append((None, 0, None))
        elif any(t is o for o in outputs):
            # An output that kept itself alive through its own node would leak.
            saved.append((t.detach(), t._version, None))
        else:
            saved.append((t, t._version, None))
    ctx._saved = saved
    del ctx.to_save


class InplaceFunction(Function):
    """A custom Function whose forward may modify its input in place when constructed with
    inplace=True (kept for old code)."""

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = inplace


def once_differentiable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run backward without recording a graph (its result is not differentiable again)."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        from ember.autograd.grad_mode import no_grad

        with no_grad():
            return fn(ctx, *args)

    return wrapper
