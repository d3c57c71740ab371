"""Activation checkpointing (``torch.utils.checkpoint``): run a block without keeping its
intermediate activations and recompute them during backward, trading compute for memory.

Two variants, as in PyTorch: ``use_reentrant=True`` (an autograd Function whose backward
reruns the block and calls backward on it) and ``use_reentrant=False`` (the block's saved
tensors are dropped through saved-tensor hooks and recomputed, all at once, the first time
backward asks for one). Both restore the RNG state so dropout draws the same mask, and the
forward's autocast settings so the recomputed tensors have the saved dtypes.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import ember
from ember import Tensor
from ember.autograd.function import Function
from ember.autograd.graph import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "check_backward_validity",
           "detach_variable", "get_device_states", "set_device_states", "noop_context_fn", "set_checkpoint_early_stop",
           "DefaultDeviceType", "set_checkpoint_debug_enabled", "CheckpointPolicy", "SelectiveCheckpointContext",
           "create_selective_checkpoint_contexts", "SAC_IGNORED_OPS"]

# the non-reentrant checkpoints being run or recomputed, innermost last: selective checkpointing's
# modes find the one whose saved tensors they are part of (checkpoint_sac.py)
_frames: list[_Frame] = []


class CheckpointError(RuntimeError):
    """Raised when recomputation does not reproduce what the forward pass saved."""


def noop_context_fn() -> tuple[contextlib.AbstractContextManager[Any], contextlib.AbstractContextManager[Any]]:
    """The default ``context_fn``: no context around the forward pass nor the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """Detached copies of the tensors in ``inputs`` that keep their requires_grad flag."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs: Iterable[Any]) -> None:
    """Warn when no tensor in ``inputs`` requires grad (the reentrant variant then gives no gradients)."""
    if not any(isinstance(inp, Tensor) and inp.requires_grad for inp in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def _autocast_state() -> list[tuple[str, bool, Any, bool]]:
    """The autocast settings the forward ran under (CPU, and CUDA where present): the recomputation
    reruns under them, whatever is active when backward runs, so it saves the same dtypes."""
    devices = ["cpu"] + (["cuda"] if ember.cuda.is_available() else [])
    cache = ember.is_autocast_cache_enabled()
    return [(d, ember.is_autocast_enabled(d), ember.get_autocast_dtype(d), cache) for d in devices]


def _autocast_context(state: list[tuple[str, bool, Any, bool]]) -> contextlib.ExitStack:
    stack = contextlib.ExitStack()
    for device, enabled, dtype, cache in state:
        stack.enter_context(ember.autocast(device, dtype=dtype, enabled=enabled, cache_enabled=cache))
    return stack


class CheckpointFunction(Function):
    """The reentrant variant: forward under no_grad, backward reruns the block with grad."""

    @staticmethod
    def forward(ctx: Any, run_function: Callable[..., Any], preserve_rng_state: bool, *args: Any) -> Any:
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = ember.get_rng_state()
        ctx.autocast_state = _autocast_state()
        ctx.inputs, ctx.tensor_indices = [], []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with ember.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> tuple[Any, ...]:
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors, strict=False):
            inputs[i] = t
        with ember.random.fork_rng(enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                ember.set_rng_state(ctx.fwd_cpu_state)
            detached = detach_variable(tuple(inputs))
            with ember.enable_grad(), _autocast_context(ctx.autocast_state):
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs, strict=False)
                 if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        ember.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in detached)


def _meta(t: Tensor) -> dict[str, Any]:
    return {"shape": t.shape, "dtype": t.dtype, "device": t.device}


class _Frame:
    """One non-reentrant checkpoint call: what recomputation needs, and its results."""

    def __init__(self, recompute: Callable[[], None], determinism_check: str) -> None:
        self.recompute = recompute
        self.determinism_check = determinism_check
        self.metadata: list[dict[str, Any]] = []
        self.recomputed: dict[int, Tensor] = {}
        self.unpacked: set[int] = set()
        # selective checkpointing: while an op whose output is saved runs in the forward, the tensors
        # its autograd node saves are kept here (the recomputation skips the op, so cannot make them)
        self.keeping: list[Tensor] | None = None
        self._saved: list[Tensor] = []

    def pack(self, t: Tensor) -> int:
        # Keep only the position (and metadata for the determinism check): the tensor is dropped.
        self.metadata.append(_meta(t))
        if self.keeping is not None:
            self.keeping.append(t.detach() if t.requires_grad else t)
        return len(self.metadata) - 1

    def add_recomputed(self, tensors: list[Tensor]) -> None:
        """During recomputation, take ``tensors`` (kept in the forward) as the next saved ones."""
        self._saved.extend(tensors)

    def unpack(self, k: int) -> Tensor:
        if k not in self.recomputed:
            self._run_recompute()
            self.unpacked = set()
        t = self.recomputed[k]
        # Once backward has read every saved tensor, free them (another backward recomputes).
        self.unpacked.add(k)
        if len(self.unpacked) == len(self.metadata):
            self.recomputed = {}
        return t

    def _run_recompute(self) -> None:
        saved: list[Tensor] = []
        self._saved = saved

        def pack(t: Tensor) -> None:
            saved.append(t.detach() if t.requires_grad else t)

        def unpack(_: Any) -> Tensor:
            raise CheckpointError("torch.utils.checkpoint: unpacking a tensor saved during recomputation")

        _frames.append(self)
        try:
            with saved_tensors_hooks(pack, unpack):
                self.recompute()
        finally:
            _frames.pop()
            self._saved = []
        if self.determinism_check == "default":
            if len(saved) != len(self.metadata):
                raise CheckpointError(
                    "torch.utils.checkpoint: A different number of tensors was saved during the original "
                    "forward and recomputation.\n"
                    f"Number of tensors saved during forward: {len(self.metadata)}\n"
                    f"Number of tensors saved during recomputation: {len(saved)}")
            pairs = enumerate(zip(self.metadata, saved, strict=True))
            bad = [(k, m, _meta(t)) for k, (m, t) in pairs if _meta(t) != m]
            if bad:
                lines = "".join(f"tensor at position {k}:\nsaved metadata: {m}\nrecomputed metadata: {r}\n"
                                for k, m, r in bad)
                raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have "
                                      "different metadata than during the forward pass.\n" + lines)
        self.recomputed = dict(enumerate(saved))


def _checkpoint_without_reentrant(function: Callable[..., Any], preserve_rng_state: bool,
                                  context_fn: Callable[..., Any], determinism_check: str, *args: Any,
                                  **kwargs: Any) -> Any:
    forward_context, recompute_context = context_fn()
    fwd_state = ember.get_rng_state() if preserve_rng_state else None
    autocast_state = _autocast_state()

    def recompute() -> None:
        with ember.random.fork_rng(enabled=preserve_rng_state):
            if preserve_rng_state:
                ember.set_rng_state(fwd_state)
            with ember.enable_grad(), _autocast_context(autocast_state), recompute_context:
                function(*args, **kwargs)

    frame = _Frame(recompute, determinism_check)
    _frames.append(frame)
    try:
        with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
            return function(*args, **kwargs)
    finally:
        _frames.pop()


def checkpoint(function: Callable[..., Any], *args: Any, use_reentrant: bool | None = None,
               context_fn: Callable[..., Any] = noop_context_fn, determinism_check: str = "default",
               debug: bool = False, early_stop: bool = True, **kwargs: Any) -> Any:
    """Run ``function(*args, **kwargs)`` without storing its activations; recompute in backward.

    ``early_stop`` is accepted for PyTorch's signature: ember always recomputes the whole block at once."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
                      "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
                      "exception. use_reentrant=False is recommended, but if you need to preserve the current "
                      "default behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, *args, **kwargs)


def checkpoint_sequential(functions: Any, segments: int, input: Any, use_reentrant: bool | None = None,
                          **kwargs: Any) -> Any:
    """Split a sequence of modules into ``segments`` chunks; checkpoint all but the last."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
                      "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is not "
                      "passed. use_reentrant=False is recommended, but if you need to preserve the current "
                      "default behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start: int, end: int, functions: list[Any]) -> Callable[[Any], Any]:
        def forward(x: Any) -> Any:
            for j in range(start, end + 1):
                x = functions[j](x)
            return x

        return forward

    if isinstance(functions, ember.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)


# selective activation checkpointing and the device-state helpers (a file of their own)
from ember.utils._checkpoint_sac import (  # noqa: E402
    SAC_IGNORED_OPS,
    CheckpointPolicy,
    DefaultDeviceType,
    SelectiveCheckpointContext,
    create_selective_checkpoint_contexts,
    get_device_states,
    set_checkpoint_debug_enabled,
    set_checkpoint_early_stop,
    set_device_states,
)
