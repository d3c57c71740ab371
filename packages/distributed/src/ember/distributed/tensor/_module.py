"""``distribute_module``: a module's parameters and buffers made DTensors, with optional input
and output conversion hooks."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

import ember

from ..device_mesh import DeviceMesh, _mesh_or_default
from ._dtensor import DTensor, distribute_tensor
from .placement_types import Replicate


def _replicate_params_buffers(m: Any, mesh: DeviceMesh) -> None:
    """The module's own parameters and buffers not already DTensors, replicated on ``mesh``."""
    full_replicate = [Replicate()] * mesh.ndim
    for key, param in list(m._parameters.items()):
        if param is not None and not isinstance(param, DTensor):
            m.register_parameter(key, ember.nn.Parameter(
                distribute_tensor(param.data, mesh, full_replicate), param.requires_grad))
    for key, buffer in list(m._buffers.items()):
        if buffer is not None and not isinstance(buffer, DTensor):
            m._buffers[key] = distribute_tensor(buffer, mesh, full_replicate)


def _arity(fn: Callable[..., Any]) -> int:
    return len(inspect.signature(fn).parameters)


def distribute_module(module: Any, device_mesh: DeviceMesh | None = None,
                      partition_fn: Callable[[str, Any, DeviceMesh], None] | None = None,
                      input_fn: Callable[[Any, Any, DeviceMesh], Any] | None = None,
                      output_fn: Callable[[Any, Any, DeviceMesh], Any] | None = None) -> Any:
    """Makes every parameter and buffer of ``module`` a DTensor on ``device_mesh``: those that
    ``partition_fn(name, submodule, mesh)`` (called on every submodule) leaves as plain tensors
    are replicated. ``input_fn(module, inputs, mesh)`` runs as a forward pre-hook and
    ``output_fn(module, outputs, mesh)`` as a forward hook (their return values replace the
    inputs/outputs when not None). Returns ``module`` itself; a second call raises.

    Args:
        module (nn.Module): the module to distribute.
        device_mesh (DeviceMesh, optional): the mesh (the 1-d mesh over the default group if None).
        partition_fn (callable, optional): shards chosen parameters of each submodule.
        input_fn (callable, optional): converts the inputs before forward.
        output_fn (callable, optional): converts the outputs after forward.
    """
    if getattr(module, "_distribute_module_applied", False):
        raise RuntimeError("distribute_module should only be called once on a module, but it has "
                           "already been called on this module!")
    mesh = _mesh_or_default(device_mesh)
    if partition_fn is None:
        for sub in module.modules():
            _replicate_params_buffers(sub, mesh)
    else:
        for name, sub in module.named_modules():
            partition_fn(name, sub, mesh)
            _replicate_params_buffers(sub, mesh)
    if input_fn is not None:
        fn_in = input_fn
        n = _arity(fn_in)
        if n == 2:
            warnings.warn("Deprecating input_fn that takes two arguments (inputs, device_mesh), "
                          "please use input_fn that takes in (module, inputs, device_mesh) "
                          "instead!", FutureWarning, stacklevel=2)
            module.register_forward_pre_hook(lambda _, inputs: fn_in(inputs, mesh))  # type: ignore[call-arg]
        elif n == 3:
            module.register_forward_pre_hook(lambda mod, inputs: fn_in(mod, inputs, mesh))
        else:
            raise ValueError(f"input_fn should take in 3 arguments, but got {n} arguments!")
    if output_fn is not None:
        fn_out = output_fn
        n = _arity(fn_out)
        if n == 2:
            warnings.warn("Deprecating output_fn that takes two arguments (inputs, device_mesh), "
                          "please use output_fn that takes in (module, inputs, device_mesh) "
                          "instead!", FutureWarning, stacklevel=2)
            module.register_forward_hook(
                lambda mod, inputs, outputs: fn_out(outputs, mesh))  # type: ignore[call-arg]
        elif n == 3:
            module.register_forward_hook(lambda mod, inputs, outputs: fn_out(mod, outputs, mesh))
        else:
            raise ValueError(f"output_fn should take in 3 arguments, but got {n} arguments!")
    module._distribute_module_applied = True
    return module
