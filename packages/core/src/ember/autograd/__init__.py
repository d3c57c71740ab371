"""``ember.autograd``: reverse-mode automatic differentiation (the engine is in C++)."""

from __future__ import annotations

from typing import Any

from ember._lib import _C
from ember.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from ember.autograd.function import Function, FunctionCtx, InplaceFunction, once_differentiable
from ember.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    is_multithreading_enabled,
    is_view_replay_enabled,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)
from ember.autograd.gradcheck import gradcheck, gradgradcheck
from ember.autograd.variable import Variable

__all__ = ["Function", "FunctionCtx", "InplaceFunction", "backward", "grad", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "detect_anomaly", "set_detect_anomaly", "once_differentiable",
           "gradcheck", "gradgradcheck", "functional", "graph", "Variable", "is_grad_enabled",
           "is_inference_mode_enabled", "set_multithreading_enabled", "is_multithreading_enabled",
           "is_view_replay_enabled"]

_TENSOR = _C.TensorBase


def _as_tuple(x: Any) -> tuple[Any, ...]:
    if x is None:
        return ()
    if isinstance(x, _TENSOR):
        return (x,)
    return tuple(x)


def _make_grads(outputs: tuple[Any, ...], grads: tuple[Any, ...], is_grads_batched: bool = False) -> list[Any]:
    out = []
    for i, (o, g) in enumerate(zip(outputs, grads, strict=False)):
        if g is None:
            if o.requires_grad and o.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not o.is_floating_point():
                raise RuntimeError("grad can be implicitly created only for real scalar outputs but got "
                                   f"{o.dtype}")
            out.append(_C.ones_like(o))
        else:
            if not isinstance(g, _TENSOR):
                g = _C.full_like(o, g)
            if tuple(g.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                                   f"output[{i}] has a shape of {o.shape}.")
            out.append(g)
    return out


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, grad_variables: Any = None, inputs: Any = None) -> None:
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves (or of ``inputs``)."""
    if grad_variables is not None:
        grad_tensors = grad_variables
    tensors = _as_tuple(tensors)
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if len(inputs) == 0:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    grads = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(grads)} tensors and {len(tensors)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    _C._run_backward(tensors, _make_grads(tensors, grads), retain_graph, create_graph, inputs or (), True, True)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool | None = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple[Any, ...]:
    """The gradients of ``outputs`` with respect to ``inputs`` (nothing is accumulated into ``.grad``)."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    grads = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad requires one grad_output per output (got {len(grads)} for {len(outputs)})")
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        raise NotImplementedError("ember.autograd.grad: is_grads_batched=True is not supported")
    result = _C._run_backward(outputs, _make_grads(outputs, grads), retain_graph, create_graph, inputs,
                              allow_unused, False)
    if materialize_grads:
        result = tuple(r if r is not None else _C.zeros_like(i) for r, i in zip(result, inputs, strict=False))
    return tuple(result)


def __getattr__(name: str) -> Any:
    import importlib

    if name in ("functional", "graph", "forward_ad", "profiler", "variable"):
        return importlib.import_module(f"ember.autograd.{name}")
    raise AttributeError(f"module 'ember.autograd' has no attribute '{name}'")
