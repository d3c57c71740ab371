"""Per-module FSDP state and the forward hooks: lazy root detection, unshard before forward
(prefetching the next group), reshard after forward, input/output casts, and the saved-tensor
hooks that let a resharded group be all-gathered again in backward."""

from __future__ import annotations

from typing import Any

import ember
from ember import Tensor
from ember.autograd.graph import saved_tensors_hooks

from ._param_group import ParamGroup

_TB = ember._lib._C.TensorBase


class _Runtime:
    """Process-wide: FSDP forwards in progress and the groups the saved-tensor hooks watch."""

    def __init__(self) -> None:
        self.depth = 0
        self.hooks: saved_tensors_hooks | None = None
        self.watched: list[ParamGroup] = []
        self.order: list[FSDPState] = []  # forward order of this iteration
        self.prev_order: list[FSDPState] = []  # and of the one before (forward prefetch)
        self.watched_states: list[FSDPState] = []


_rt = _Runtime()


class _Packed:
    """A saved tensor that was a view of a group's unsharded buffer."""

    __slots__ = ("state", "offset", "size", "stride")

    def __init__(self, state: FSDPState, offset: int, size: tuple, stride: tuple) -> None:
        self.state, self.offset, self.size, self.stride = state, offset, size, stride


def _pack(t: Any) -> Any:
    if not isinstance(t, Tensor) or _TB.numel(t) == 0:
        return t
    ptr = t.data_ptr()
    for st in _rt.watched_states:
        full = st.group.full
        if full is None or full.dtype != t.dtype:
            continue
        base = full.data_ptr()
        if base <= ptr < base + full.numel() * full.element_size():
            return _Packed(st, (ptr - base) // full.element_size(), tuple(_TB.size(t)),
                           tuple(_TB.stride(t)))
    return t


def _unpack(x: Any) -> Any:
    if not isinstance(x, _Packed):
        return x
    full = x.state.unshard_for_backward()
    return full.as_strided(x.size, x.stride, x.offset)


def _cast_floats(obj: Any, dtype: Any) -> Any:
    if isinstance(obj, Tensor):
        return obj.to(dtype) if obj.is_floating_point() and obj.dtype != dtype else obj
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_cast_floats(o, dtype) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_cast_floats(o, dtype) for o in obj)
    if isinstance(obj, dict):
        return {k: _cast_floats(v, dtype) for k, v in obj.items()}
    return obj


class FSDPState:
    """What ``fully_shard`` attached to one module (or list of modules)."""

    def __init__(self, modules: list[Any], group: ParamGroup, mp: Any,
                 reshard_after_forward: bool | int | None) -> None:
        self.modules = modules
        self.group = group
        self.mp = mp
        self.auto_reshard = reshard_after_forward is None
        self.reshard_after_forward: bool | int = True if reshard_after_forward is None \
            else reshard_after_forward
        self.is_root: bool | None = None
        self.forward_prefetch: list[FSDPState] | None = None
        self.backward_prefetch: list[FSDPState] | None = None
        self.is_last_backward = True
        self.post_optim_event: Any = None
        self.handles = []
        for m in modules:
            self.handles.append(m.register_forward_pre_hook(self._pre_forward, prepend=True,
                                                            with_kwargs=True))
            self.handles.append(m.register_forward_hook(self._post_forward, always_call=True))

    # -- lazy init -------------------------------------------------------------------------
    def _lazy_init(self) -> None:
        """The first module to run forward outside any FSDP forward is the root: its
        reshard_after_forward defaults to False, every other one's to True."""
        if self.is_root is not None:
            return
        self.is_root = True
        seen = {id(self)}
        for m in self.modules:
            for sub in m.modules():
                st = getattr(sub, "_fsdp_state", None)
                if st is None or id(st) in seen:
                    continue
                seen.add(id(st))
                st.is_root = False
        self._validate_no_meta_params()
        if self.auto_reshard:
            self.reshard_after_forward = False

    def _validate_no_meta_params(self) -> None:
        """A model built on meta must be materialized (``to_empty``) before its first forward;
        torch checks the groups root first and names the first one's meta parameters."""
        names: dict[int, str] = {}
        states: list[FSDPState] = [self]
        for root in self.modules:
            for prefix, sub in root.named_modules():
                names[id(sub)] = prefix
                st = getattr(sub, "_fsdp_state", None)
                if st is not None and all(st is not s for s in states):
                    states.append(st)
        for st in states:
            meta = st.group.meta_names()
            if meta:
                fqns = [f"{names[id(owner)]}.{attr}" if names.get(id(owner)) else attr
                        for owner, attr in meta]
                raise RuntimeError("FSDP parameters should be materialized from meta device "
                                   "before training, but the following were still on meta "
                                   f"device: {fqns}")

    def _reshards(self) -> bool:
        return self.reshard_after_forward is not False

    # -- hooks -----------------------------------------------------------------------------
    def _pre_forward(self, module: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        if _rt.depth == 0:
            self._lazy_init()
            _rt.prev_order, _rt.order = (_rt.order or _rt.prev_order), []
            states = _subtree_states(self.modules)
            for st in states:  # a prefetch left from an iteration that did not use it is stale
                st.group.drop_prefetch()
            _rt.watched_states = [s for s in states if s._reshards()]
            if _rt.watched_states and ember.is_grad_enabled():
                _rt.hooks = saved_tensors_hooks(_pack, _unpack)
                _rt.hooks.__enter__()
        _rt.depth += 1
        if self.mp.param_dtype is not None and self.mp.cast_forward_inputs:
            args = _cast_floats(args, self.mp.param_dtype)
            kwargs = _cast_floats(kwargs, self.mp.param_dtype)
        if self not in _rt.order:
            _rt.order.append(self)
        self.group.register_unsharded()
        for nxt in self._next_forward():
            nxt.group.start_all_gather(prefetch=True)
        return args, kwargs

    def _next_forward(self) -> list[FSDPState]:
        """The group(s) to all-gather while this one computes: the explicit list, else the next
        group of the previous iteration's forward order (the implicit prefetch)."""
        if self.forward_prefetch is not None:
            return self.forward_prefetch
        order = _rt.prev_order
        if self in order:
            i = order.index(self)
            return order[i + 1: i + 2]
        return []

    def _post_forward(self, module: Any, args: tuple, output: Any) -> Any:
        if self.group.unsharded is not None and module is self.modules[-1]:
            recorded = any(t.grad_fn is not None for t in self.group.unsharded)
            if self._reshards() or not recorded:
                self.group.reshard(keep_post_forward=not isinstance(self.reshard_after_forward,
                                                                    bool))
        _rt.depth -= 1
        if _rt.depth == 0 and _rt.hooks is not None:
            _rt.hooks.__exit__(None, None, None)
            _rt.hooks = None
        if self.mp.output_dtype is not None:
            output = _cast_floats(output, self.mp.output_dtype)
        return output

    # -- backward --------------------------------------------------------------------------
    def unshard_for_backward(self) -> Tensor:
        """The group's unsharded buffer for a saved tensor; all-gathers it if resharded and
        starts the all-gather of the group whose backward comes next."""
        if self.group.full is not None:
            return self.group.full
        full = self.group.wait_all_gather()
        for nxt in self._next_backward():
            if nxt._reshards():
                nxt.group.start_all_gather(prefetch=True)
        return full

    def _next_backward(self) -> list[FSDPState]:
        if self.backward_prefetch is not None:
            return self.backward_prefetch
        order = _rt.order
        if self in order:
            i = order.index(self)
            return [order[i - 1]] if i > 0 else []
        return []


def _subtree_states(modules: list[Any]) -> list[FSDPState]:
    out, seen = [], set()
    for m in modules:
        for sub in m.modules():
            st = getattr(sub, "_fsdp_state", None)
            if st is not None and id(st) not in seen:
                seen.add(id(st))
                out.append(st)
    return out
