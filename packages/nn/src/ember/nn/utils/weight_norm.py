"""The hook-based weight normalization (``torch.nn.utils.weight_norm``, deprecated there in
favour of ``parametrizations.weight_norm``): parameters ``<name>_g`` and ``<name>_v`` and a
forward pre-hook that recomputes ``<name>`` = g * v / ||v|| before every call."""

from __future__ import annotations

import warnings
from typing import Any, TypeVar

import ember
from ember import Tensor
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter
from ember.nn.utils.parametrizations import _norm_except_dim, _weight_norm

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]

M = TypeVar("M", bound=Module)


class WeightNorm:
    name: str
    dim: int

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int) -> WeightNorm:
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        with ember.no_grad():
            weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: M, name: str = "weight", dim: int | None = 0) -> M:
    """Replace ``module.<name>`` by ``<name>_g`` (magnitude) and ``<name>_v`` (direction)."""
    WeightNorm.apply(module, name, dim)  # type: ignore[arg-type]
    return module


def remove_weight_norm(module: M, name: str = "weight") -> M:
    """Fold ``<name>_g`` / ``<name>_v`` back into a single ``<name>`` parameter."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
