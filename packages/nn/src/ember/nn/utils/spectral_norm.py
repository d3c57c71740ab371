"""The hook-based spectral normalization (``torch.nn.utils.spectral_norm``): parameter
``<name>_orig``, buffers ``<name>_u`` / ``<name>_v`` (power-iteration vectors) and a forward
pre-hook that sets ``<name>`` = W / sigma(W) before every call."""

from __future__ import annotations

from typing import Any, TypeVar

import ember
from ember import Tensor
from ember.nn import functional as F
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]

M = TypeVar("M", bound=Module)


class SpectralNorm:
    # Version of the state-dict layout (1: <name>_orig, <name>_u, <name>_v; no <name>).
    _version: int = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(self.dim, *[d for d in range(weight_mat.dim()) if d != self.dim])
        height = weight_mat.size(0)
        return weight_mat.reshape(height, -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            # Updated in place: the buffers persist the estimate across calls.
            with ember.no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(ember.mv(weight_mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(ember.mv(weight_mat, v), dim=0, eps=self.eps))
                # Clones so that backward does not see the next in-place update.
                u = u.clone()
                v = v.clone()
        sigma = ember.dot(u, ember.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        with ember.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> SpectralNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        with ember.no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # A plain attribute until the first forward (the pre-hook recomputes it).
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(_StateDictHook(fn))
        return fn


class _StateDictHook:
    """Records the layout version in the state dict's metadata, as torch does."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module: Module, state_dict: dict[str, Any], prefix: str, local_metadata: Any) -> None:
        if local_metadata is None:
            return
        if "spectral_norm" not in local_metadata:
            local_metadata["spectral_norm"] = {}
        key = self.fn.name + ".version"
        if key in local_metadata["spectral_norm"]:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        local_metadata["spectral_norm"][key] = self.fn._version


def spectral_norm(module: M, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> M:
    """Replace ``module.<name>`` by ``<name>_orig`` / sigma, sigma estimated by power iteration."""
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: M, name: str = "weight") -> M:
    """Fold the spectral normalization of ``<name>`` back into a plain parameter."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for k, hook in list(module._state_dict_hooks.items()):
        if isinstance(hook, _StateDictHook) and hook.fn.name == name:
            del module._state_dict_hooks[k]
    return module
