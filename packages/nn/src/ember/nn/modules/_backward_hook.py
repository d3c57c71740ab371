"""Full backward hooks for modules, built from identity autograd Functions.

An identity node wraps the outputs (its backward sees grad_output) and another wraps the
tensor inputs (its backward sees grad_input); together they give ``hook(module, grad_input,
grad_output)`` the same view PyTorch's BackwardHook gives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember import Tensor
from ember.autograd import Function, is_grad_enabled


class _Identity(Function):
    @staticmethod
    def forward(ctx: Any, callback: Callable[..., tuple[Any, ...]], materialize: bool, *tensors: Tensor) -> Any:
        ctx.callback = callback
        # PyTorch shows None (not zeros) in grad_output for outputs that got no gradient
        ctx.set_materialize_grads(materialize)
        out = tuple(t.view_as(t) for t in tensors)
        # as PyTorch's BackwardHookFunction: tensors that needed no grad stay that way
        ctx.mark_non_differentiable(*[o for o, t in zip(out, tensors, strict=True) if not t.requires_grad])
        return out

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        return (None, None) + tuple(ctx.callback(grads))


def _pack(indices: list[int], values: tuple[Any, ...], size: int) -> tuple[Any, ...]:
    out: list[Any] = [None] * size
    for i, v in zip(indices, values, strict=False):
        out[i] = v
    return tuple(out)


class BackwardHook:
    """Per-call state: wires one forward call's inputs and outputs to the module's hooks."""

    def __init__(self, module: Any, user_hooks: list[Callable[..., Any]],
                 user_pre_hooks: list[Callable[..., Any]]) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs: tuple[Any, ...] | None = None
        self.n_inputs = 0
        self.input_index: list[int] | None = None
        self.n_outputs = 0
        self.output_index: list[int] = []

    def _wrap(self, args: tuple[Any, ...], callback: Callable[..., tuple[Any, ...]],
              materialize: bool) -> tuple[tuple[Any, ...], list[int] | None]:
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (is_grad_enabled() and any(t.requires_grad for t in tensors)):
            return args, None
        new = _Identity.apply(callback, materialize, *tensors)
        out = list(args)
        for i, t in zip(index, new, strict=False):
            out[i] = t
        return tuple(out), index

    def _call_hooks(self, grad_input: tuple[Any, ...]) -> tuple[Any, ...] | None:
        result = None
        for hook in self.user_hooks:
            r = hook(self.module, grad_input if result is None else result, self.grad_outputs)
            if r is None:
                continue
            r = r if isinstance(r, tuple) else (r,)
            if len(r) != len(grad_input):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(r)}, "
                                   f"but expected {len(grad_input)}")
            result = r
        return result

    def setup_input_hook(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        self.n_inputs = len(args)

        def on_grad_input(grads: tuple[Any, ...]) -> tuple[Any, ...]:
            assert self.input_index is not None
            if self.grad_outputs is None:  # the outputs' node never ran: nothing flowed through us
                return grads
            packed = _pack(self.input_index, grads, self.n_inputs)
            res = self._call_hooks(packed)
            self.grad_outputs = None
            if res is None:
                return grads
            return tuple(res[i] for i in self.input_index)

        new_args, self.input_index = self._wrap(args, on_grad_input, True)
        return new_args

    def setup_output_hook(self, result: Any) -> Any:
        is_tuple = isinstance(result, tuple)
        outs = result if is_tuple else (result,)
        self.n_outputs = len(outs)

        def on_grad_output(grads: tuple[Any, ...]) -> tuple[Any, ...]:
            packed = _pack(self.output_index, grads, self.n_outputs)
            for hook in self.user_pre_hooks:
                r = hook(self.module, packed)
                if r is not None:
                    r = r if isinstance(r, tuple) else (r,)
                    if len(r) != len(packed):
                        raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, "
                                           f"got {len(r)}, but expected {len(packed)}")
                    packed = r
            self.grad_outputs = packed
            if self.input_index is None:
                # No input needs a gradient: the full hooks fire now, with all-None grad_input.
                res = self._call_hooks((None,) * self.n_inputs)
                if res is not None and any(g is not None for g in res):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                       "always return None or None for all gradients.")
                self.grad_outputs = None
            return tuple(packed[i] for i in self.output_index)

        new, index = self._wrap(outs, on_grad_output, False)
        self.output_index = index or []
        return new if is_tuple else new[0]
