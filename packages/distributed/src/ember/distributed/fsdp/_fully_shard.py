"""``fully_shard`` (FSDP2) and ``FSDPModule``, the class every sharded module joins."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ember import nn

from ..device_mesh import DeviceMesh, _mesh_or_default, _split_group
from ._api import MixedPrecisionPolicy, OffloadPolicy
from ._param_group import DTensorParameter, ParamGroup
from ._state import FSDPState

_FSDP_CLASSES: dict[type, type] = {}


def _post_forward_group(mesh: DeviceMesh, k: int) -> tuple[Any, int]:
    """Groups of ``k`` consecutive ranks of the shard dim (all ranks take part in the split)."""
    rows = mesh.mesh.reshape(-1, k).tolist()
    return _split_group([[int(r) for r in row] for row in rows], f"fsdp_post_forward_{k}"), k


def _resolve_reshard(value: Any, shard_size: int) -> bool | int:
    """torch's reading of reshard_after_forward: a bool, or an int factor of the shard size
    (1 means False, the size itself means True)."""
    if not isinstance(value, (bool, int)):
        raise ValueError("reshard_after_forward should be a bool or an int representing the "
                         f"group size to reshard to, not {value}")
    if isinstance(value, bool):
        return value
    if value < 1 or value > shard_size or shard_size % value != 0:
        raise ValueError("If passing reshard_after_forward as an int, it should be a factor of "
                         f"{shard_size}, not {value}")
    if value == 1:
        warnings.warn("reshard_after_forward=1 (int) means resharding parameters to world size "
                      "1, instead of reshard_after_forward=True (bool)", stacklevel=3)
        return False
    return True if value == shard_size else value


def fully_shard(module: Any, *, mesh: DeviceMesh | None = None,
                reshard_after_forward: bool | int | None = None,
                shard_placement_fn: Callable[[Any], Any] | None = None,
                mp_policy: MixedPrecisionPolicy = MixedPrecisionPolicy(),
                offload_policy: OffloadPolicy = OffloadPolicy(),
                ignored_params: set[Any] | None = None, dp_mesh_dims: Any = None) -> Any:
    """Shard the parameters of ``module`` (those not claimed by an earlier ``fully_shard`` of a
    submodule: call it bottom-up) over ``mesh`` as one group: one all-gather before its
    forward, one reduce-scatter of its gradients after backward. Returns ``module``, whose
    class becomes ``FSDP<Orig>``."""
    modules = list(module) if isinstance(module, (list, tuple)) else [module]
    for m in modules:
        if not isinstance(m, nn.Module):
            raise ValueError(f"fully_shard does not support containers that do not implement "
                             f"forward: {type(m)}" if isinstance(m, (nn.ModuleList, nn.ModuleDict))
                             else f"fully_shard: expected an nn.Module, got {type(m).__name__}")
        if isinstance(m, (nn.ModuleList, nn.ModuleDict)):
            raise ValueError(f"fully_shard does not support containers that do not implement "
                             f"forward: {m}")
    if dp_mesh_dims is not None:
        raise NotImplementedError("fully_shard: dp_mesh_dims is not supported")
    if not isinstance(mp_policy, MixedPrecisionPolicy):
        raise TypeError(f"mp_policy must be a MixedPrecisionPolicy, got {type(mp_policy).__name__}")
    mesh = _mesh_or_default(mesh)
    if mesh.ndim not in (1, 2):
        raise ValueError(f"fully_shard expects a 1D or 2D DeviceMesh but got {mesh}")
    shard_size = mesh.size(mesh.ndim - 1)
    reshard = None if reshard_after_forward is None else _resolve_reshard(reshard_after_forward,
                                                                          shard_size)
    post_group = _post_forward_group(mesh, reshard) if isinstance(reshard, int) and \
        not isinstance(reshard, bool) else None
    ignored = {id(p) for p in (ignored_params or ())}
    params: list[tuple[list[tuple[Any, str]], Any]] = []
    by_id: dict[int, int] = {}
    for m in modules:
        for owner in m.modules():
            for name, p in list(owner._parameters.items()):
                if p is None or isinstance(p, DTensorParameter) or id(p) in ignored:
                    continue
                if id(p) in by_id:
                    params[by_id[id(p)]][0].append((owner, name))
                    continue
                by_id[id(p)] = len(params)
                params.append(([(owner, name)], p))
    group = ParamGroup(params, mesh, shard_placement_fn, mp_policy, post_group)
    state = FSDPState(modules, group, mp_policy, reshard)
    for m in modules:
        object.__setattr__(m, "_fsdp_state", state)
        cls = type(m)
        if not isinstance(m, FSDPModule):
            new_cls = _FSDP_CLASSES.get(cls)
            if new_cls is None:
                new_cls = type(f"FSDP{cls.__name__}", (FSDPModule, cls), {})
                _FSDP_CLASSES[cls] = new_cls
            m.__class__ = new_cls
    return module


class UnshardHandle:
    """Handle of an async ``FSDPModule.unshard``: ``wait()`` makes the unsharded parameters
    usable (they are then registered on the module)."""

    def __init__(self, groups: list[ParamGroup] | None = None) -> None:
        self._groups = groups

    def wait(self) -> None:
        for g in self._groups or ():
            g.register_unsharded()
        self._groups = None


class FSDPModule:
    """Mixin of the ``FSDP<Orig>`` classes ``fully_shard`` swaps modules to."""

    _fsdp_state: FSDPState

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        # A container building ``type(self)(...)`` (e.g. Sequential slicing) gets the original.
        orig = cls.__mro__[2] if cls.__mro__[1] is FSDPModule else cls
        self = orig.__new__(orig)
        self.__init__(*args, **kwargs)
        return self

    def __deepcopy__(self, memo: Any) -> Any:
        raise AssertionError("FSDP does not support deepcopy. Please use state dict for "
                             "serialization.")

    def _fsdp_modules(self, recurse: bool) -> Iterable[FSDPModule]:
        if not recurse:
            return [self]
        return [m for m in self.modules() if isinstance(m, FSDPModule)]  # type: ignore[attr-defined]

    def _groups(self, recurse: bool = False) -> list[ParamGroup]:
        seen, out = set(), []
        for m in self._fsdp_modules(recurse):
            st = m._fsdp_state
            if id(st) not in seen:
                seen.add(id(st))
                out.append(st.group)
        return out

    def _apply(self, fn: Callable[[Any], Any], recurse: bool = True) -> Any:
        # Module._apply (to_empty after building on meta, to, cpu) replaces the registered
        # parameters: reshard first so the sharded ones are the ones replaced, then make the
        # group's flat shard (what the all-gather sends) hold the new shards again.
        self.reshard()
        ret = super()._apply(fn, recurse)  # type: ignore[misc]
        self._fsdp_state.group.reset_sharded()
        return ret

    # -- unshard / reshard -----------------------------------------------------------------
    def unshard(self, async_op: bool = False) -> UnshardHandle | None:
        """All-gather this module's parameters and register them unsharded on the module."""
        group = self._fsdp_state.group
        group.start_all_gather()
        handle = UnshardHandle([group])
        if async_op:
            return handle
        handle.wait()
        return None

    def reshard(self) -> None:
        """Free the unsharded parameters and register the sharded ones."""
        self._fsdp_state.group.reshard()

    # -- settings --------------------------------------------------------------------------
    def set_is_last_backward(self, is_last_backward: bool) -> None:
        self._fsdp_state.is_last_backward = is_last_backward

    def set_requires_gradient_sync(self, requires_gradient_sync: bool, *,
                                   recurse: bool = True) -> None:
        """False: backward accumulates unsharded gradients without reduce-scatter (the next
        synced backward reduces their sum)."""
        for g in self._groups(recurse):
            g.requires_gradient_sync = bool(requires_gradient_sync)

    def set_requires_all_reduce(self, requires_all_reduce: bool, *, recurse: bool = True) -> None:
        for g in self._groups(recurse):
            g.requires_all_reduce = bool(requires_all_reduce)

    def set_reshard_after_forward(self, reshard_after_forward: bool, recurse: bool = True) -> None:
        if not isinstance(reshard_after_forward, bool):
            raise ValueError(f"reshard_after_forward should be a bool, got "
                             f"{type(reshard_after_forward)}")
        for m in self._fsdp_modules(recurse):
            m._fsdp_state.reshard_after_forward = reshard_after_forward
            m._fsdp_state.auto_reshard = False

    def set_reshard_after_backward(self, reshard_after_backward: bool, *,
                                   recurse: bool = True) -> None:
        for g in self._groups(recurse):
            g.reshard_after_backward = bool(reshard_after_backward)

    def set_modules_to_forward_prefetch(self, modules: list[FSDPModule]) -> None:
        _check_fsdp_modules(modules)
        self._fsdp_state.forward_prefetch = [m._fsdp_state for m in modules]

    def set_modules_to_backward_prefetch(self, modules: list[FSDPModule]) -> None:
        _check_fsdp_modules(modules)
        self._fsdp_state.backward_prefetch = [m._fsdp_state for m in modules]

    def set_all_reduce_hook(self, hook: Callable[[Any], None], *, stream: Any = None) -> None:
        self._fsdp_state.group.all_reduce_hook = hook

    def set_post_optim_event(self, event: Any) -> None:
        self._fsdp_state.post_optim_event = event  # CPU: the step has finished when it returns

    def set_gradient_divide_factor(self, factor: float) -> None:
        self._fsdp_state.group.divide_factor = float(factor)

    def set_reduce_scatter_divide_factor(self, factor: float) -> None:
        warnings.warn("FSDPModule.set_reduce_scatter_divide_factor is deprecated; use "
                      "set_gradient_divide_factor", FutureWarning, stacklevel=2)
        self.set_gradient_divide_factor(factor)

    def set_force_sum_reduction_for_comms(self, enable: bool) -> None:
        """ember reduces with sums and divides after, whatever this says."""
        self._fsdp_state.force_sum = bool(enable)

    def set_unshard_in_backward(self, unshard_in_backward: bool) -> None:
        self._fsdp_state.unshard_in_backward = bool(unshard_in_backward)

    def set_custom_all_gather(self, comm: Any) -> None:
        raise NotImplementedError("FSDPModule.set_custom_all_gather is not supported by ember")

    def set_custom_reduce_scatter(self, comm: Any) -> None:
        raise NotImplementedError("FSDPModule.set_custom_reduce_scatter is not supported by ember")


def _check_fsdp_modules(modules: Any) -> None:
    for m in modules:
        if not isinstance(m, FSDPModule):
            raise ValueError(f"Expects FSDPModule but got {type(m).__name__}: {m}")


def register_fsdp_forward_method(module: Any, method_name: str) -> None:
    """Run FSDP's forward hooks (unshard before, reshard after) around ``module.method_name``."""
    if not isinstance(module, FSDPModule):
        return
    if not hasattr(module, method_name):
        raise ValueError(f"{type(module)} does not have a method {method_name}")
    orig = getattr(module, method_name)
    state = module._fsdp_state

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        args, kwargs = state._pre_forward(module, args, kwargs)
        out = orig(*args, **kwargs)
        return state._post_forward(module, args, out)

    object.__setattr__(module, method_name, wrapped)



