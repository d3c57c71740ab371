"""Selective activation checkpointing and the smaller knobs of ``torch.utils.checkpoint``.

``checkpoint(fn, *args, use_reentrant=False, context_fn=lambda: create_selective_checkpoint_contexts(policy))``
saves the outputs of the ops the policy picks and recomputes the rest. PyTorch does it with a
``TorchDispatchMode`` below autograd; ember uses a :class:`~ember.overrides.TorchFunctionMode` (every
ember function and Tensor method passes through one), so an "op" is the outermost overridable call,
e.g. ``ember.mm`` or ``Tensor.mm``:

* in the forward, an op the policy saves runs normally; its output (detached) and the tensors its
  autograd node saved are kept;
* in the recomputation, that op is not run: the kept output comes back (a leaf that requires grad as
  the original did, so the ops after it save the same tensors), and the kept saved tensors take
  the op's place in the checkpoint's list.
"""

from __future__ import annotations

import contextlib
import enum
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import ember
from ember import Tensor
from ember.overrides import TorchFunctionMode

__all__ = ["CheckpointPolicy", "SelectiveCheckpointContext", "create_selective_checkpoint_contexts",
           "SAC_IGNORED_OPS", "DefaultDeviceType", "get_device_states", "set_device_states",
           "set_checkpoint_early_stop", "set_checkpoint_debug_enabled"]


class CheckpointPolicy(enum.Enum):
    """What selective checkpointing does with one op's output.

    ``MUST_SAVE`` / ``PREFER_SAVE``: keep it from the forward pass (the op is not rerun);
    ``MUST_RECOMPUTE`` / ``PREFER_RECOMPUTE``: drop it and rerun the op during backward. (The
    ``PREFER`` forms let ``torch.compile`` override the choice; eager treats them as the ``MUST`` ones.)
    A policy function may also return a bool: True for ``MUST_SAVE``, False for ``PREFER_RECOMPUTE``.
    """

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


def _policy_from_bool(b: bool) -> CheckpointPolicy:
    # check policy is bool
    return CheckpointPolicy.MUST_SAVE if b else CheckpointPolicy.PREFER_RECOMPUTE


_SAVE = (CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE, CheckpointPolicy.MUST_CPU_OFFLOAD,
         CheckpointPolicy.PREFER_CPU_OFFLOAD)


@dataclass
class SelectiveCheckpointContext:
    """What a policy function is told besides the op: ``is_recompute`` is False in the forward
    pass and True during the recomputation (a policy must answer the same both times)."""

    is_recompute: bool


# ops never cached: detaching and metadata reads differ between the forward and the recomputation
# (the determinism check reads shapes), and caching them saves nothing
SAC_IGNORED_OPS: set[Any] = {Tensor.detach, Tensor.size, Tensor.dim, Tensor.stride, Tensor.numel,
                             Tensor.is_contiguous}


def _ignored(func: Any) -> bool:
    # a property read (Tensor.shape.__get__ ...) reaches the mode as the descriptor's __get__
    return func in SAC_IGNORED_OPS or getattr(func, "__name__", "") in ("__get__", "__set__", "__delete__")


class _VersionWrapper:
    """A cached output, with its version counter to catch an in-place change before it is reused."""

    def __init__(self, val: Any) -> None:
        self.requires_grad = isinstance(val, Tensor) and val.requires_grad
        self.val = val.detach() if isinstance(val, Tensor) else val
        self.version = self.val._version if isinstance(self.val, Tensor) else None

    def get_val(self, allow_cache_entry_mutation: bool) -> Any:
        if self.version is not None and not allow_cache_entry_mutation and self.val._version != self.version:
            raise RuntimeError("Tensor cached during selective activation checkpoint has been mutated")
        if isinstance(self.val, Tensor):
            # a fresh leaf that requires grad as the original output did: the ops after it record
            # (and save) what they did in the forward
            return self.val.detach().requires_grad_(self.requires_grad)
        return self.val


def _tree_map(fn: Callable[[Any], Any], out: Any) -> Any:
    if isinstance(out, (tuple, list)):
        return type(out)(_tree_map(fn, o) for o in out)
    return fn(out)


def _current_frame() -> Any:
    from ember.utils import checkpoint as _ckpt

    return _ckpt._frames[-1] if _ckpt._frames else None


def _decide(policy_fn: Callable[..., Any], is_recompute: bool, func: Any, args: Any, kwargs: Any) -> Any:
    policy = policy_fn(SelectiveCheckpointContext(is_recompute=is_recompute), func, *args, **kwargs)
    return _policy_from_bool(policy) if isinstance(policy, bool) else policy


class _CachingTorchFunctionMode(TorchFunctionMode):
    """The forward pass: run every op, keeping what the policy saves."""

    def __init__(self, policy_fn: Callable[..., Any], storage: dict[Any, list[Any]]) -> None:
        super().__init__()
        self.policy_fn = policy_fn
        self.storage = storage

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if _ignored(func) or _decide(self.policy_fn, False, func, args, kwargs) not in _SAVE:
            return func(*args, **kwargs)
        frame = _current_frame()
        kept: list[Tensor] = []
        previous = frame.keeping if frame is not None else None
        if frame is not None:
            frame.keeping = kept
        try:
            out = func(*args, **kwargs)
        finally:
            if frame is not None:
                frame.keeping = previous
        self.storage[func].append((_tree_map(_VersionWrapper, out), kept))
        return out


class _CachedTorchFunctionMode(TorchFunctionMode):
    """The recomputation: the ops the policy saves give back their kept outputs instead of running."""

    def __init__(self, policy_fn: Callable[..., Any], storage: dict[Any, list[Any]],
                 allow_cache_entry_mutation: bool) -> None:
        super().__init__()
        self.policy_fn = policy_fn
        self.storage = storage
        self.allow_cache_entry_mutation = allow_cache_entry_mutation

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if _ignored(func) or _decide(self.policy_fn, True, func, args, kwargs) not in _SAVE:
            return func(*args, **kwargs)
        storage = self.storage.get(func)
        if storage is None:
            raise RuntimeError(f"{func} encountered during backward, but not found in storage")
        if len(storage) == 0:
            raise RuntimeError("Trying to backward an extra time. You are only allowed to backward once on any "
                               "region computed under selective activation checkpoint.")
        out, kept = storage.pop(0)
        frame = _current_frame()
        if frame is not None:
            frame.add_recomputed(kept)
        return _tree_map(lambda w: w.get_val(self.allow_cache_entry_mutation), out)


def _op_name(op: Any) -> str:
    return str(getattr(op, "__name__", repr(op)))


def create_selective_checkpoint_contexts(policy_fn_or_list: Callable[..., Any] | list[Any],
                                         allow_cache_entry_mutation: bool = False) -> tuple[Any, Any]:
    """The ``context_fn`` result for selective activation checkpointing: a pair of modes, one for
    the forward pass and one for the recomputation.

    Args:
        policy_fn_or_list: a function ``policy(ctx, op, *args, **kwargs)`` returning a
            :class:`CheckpointPolicy` (or a bool, True to save), where ``op`` is the ember function or
            Tensor method called; or a list of ops to save (everything else is recomputed). A listed
            ``ember.mm`` also matches ``Tensor.mm`` (ops match by name).
        allow_cache_entry_mutation (bool): allow a saved output to be changed in place after the
            forward pass (by default reusing it then raises).

    Example::

        >>> from functools import partial
        >>> from ember.utils.checkpoint import checkpoint
        >>> x = ember.randn(3, 3, requires_grad=True)
        >>> ctx = partial(create_selective_checkpoint_contexts, [ember.mm])
        >>> out = checkpoint(lambda a: ember.mm(a, a).sin(), x, use_reentrant=False, context_fn=ctx)
        >>> out.sum().backward()
    """
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if not callable(op):
                raise ValueError(f"Expected op in `op_list` to be an OpOverload but got {op} of type {type(op)}. ")
        names = {_op_name(op) for op in policy_fn_or_list}
        ops = list(policy_fn_or_list)

        def policy_fn(ctx: SelectiveCheckpointContext, op: Any, *args: Any, **kwargs: Any) -> CheckpointPolicy:
            if op in ops or _op_name(op) in names:
                return CheckpointPolicy.MUST_SAVE
            return CheckpointPolicy.PREFER_RECOMPUTE
    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    storage: dict[Any, list[Any]] = defaultdict(list)
    return (_CachingTorchFunctionMode(policy_fn, storage),
            _CachedTorchFunctionMode(policy_fn, storage, allow_cache_entry_mutation))


# ---- the smaller knobs ----------------------------------------------------------------------------

_enable_checkpoint_early_stop: bool | None = None
_checkpoint_debug_enabled: bool | None = None


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool) -> Iterator[None]:
    """Whether non-reentrant checkpoints made inside the block may stop recomputing once every needed
    tensor exists. ember's recomputation always reruns the whole block (the gradients are the same);
    the setting is recorded for code that reads it."""
    global _enable_checkpoint_early_stop
    prev = _enable_checkpoint_early_stop
    try:
        _enable_checkpoint_early_stop = enable
        yield
    finally:
        _enable_checkpoint_early_stop = prev


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None) -> Iterator[None]:
    """Override checkpoint's ``debug`` flag inside the block (None: defer to each call's own)."""
    global _checkpoint_debug_enabled
    prev = _checkpoint_debug_enabled
    try:
        _checkpoint_debug_enabled = enabled
        yield
    finally:
        _checkpoint_debug_enabled = prev


class DefaultDeviceType:
    """The device type whose RNG state checkpointing saves when the inputs hold no accelerator
    tensor: the current accelerator's, else ``"cpu"``, unless set."""

    _default_device_type: str | None = None

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        """Set the default device type."""
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        """The default device type (the current accelerator's type, or ``"cpu"``, until set)."""
        if not DefaultDeviceType._default_device_type:
            acc = ember.accelerator.current_accelerator(True)
            DefaultDeviceType._default_device_type = acc.type if acc else "cpu"
        return DefaultDeviceType._default_device_type


def get_device_states(*args: Any) -> tuple[list[int], list[Tensor]]:
    """The accelerator devices the tensors in ``args`` live on and their RNG states, to restore for
    the recomputation. ember's tensors are on CPU (whose state checkpoint saves itself): empty."""
    devices = sorted({a.get_device() for a in args if isinstance(a, Tensor) and a.device.type != "cpu"})
    return devices, [ember.get_rng_state() for _ in devices]


def set_device_states(devices: list[int], states: list[Tensor], *, device_type: str | None = None) -> None:
    """Restore the RNG states :func:`get_device_states` returned (nothing to do on CPU)."""
    for _device, state in zip(devices, states, strict=False):
        ember.set_rng_state(state)
