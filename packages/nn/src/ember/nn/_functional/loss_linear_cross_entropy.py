"""``F.linear_cross_entropy``: cross entropy of a linear layer's logits, either as ``linear`` then
``cross_entropy`` (the reference path) or chunked over the batch so the ``(N, C)`` logits never
exist at once (``options=``): each chunk's logits are made, reduced to their log-sum-exp and
dropped; backward makes them again, chunk by chunk."""

from __future__ import annotations

import math
import warnings
from typing import Any

import ember
from ember import Tensor
from ember.autograd import Function
from ember.nn._functional.activation import linear
from ember.nn._functional.loss import cross_entropy


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *, linear_bias: Tensor | None = None,
                         weight: Tensor | None = None, reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options: Any = None) -> Tensor:
    """Cross entropy between ``linear(input, linear_weight, linear_bias)`` and ``target``: the same as
    ``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``, with ``ignore_index``
    defaulting to -100 for class-index targets.

    With ``options`` (a :class:`~ember.nn.LinearCrossEntropyOptions`), the loss is computed a chunk of
    the batch at a time, so the ``(N, C)`` logits never exist at once; backward recomputes each
    chunk's logits. Class-index int64 targets, ``label_smoothing=0`` and a ``(C,)`` bias only; other
    calls fall back to the reference path with a warning, as in PyTorch.

    Args:
        input (Tensor): ``(in_features,)`` or ``(N, in_features)`` samples.
        linear_weight (Tensor): ``(C, in_features)``, or ``(C, d_1, ..., d_K, in_features)`` for a
            K-dimensional loss (batched input only).
        target (Tensor): class indices ``()``, ``(N)`` or ``(N, d_1, ..., d_K)``, or class
            probabilities of the logits' shape.
        linear_bias (Tensor, optional): ``(C,)`` or ``(C, d_1, ..., d_K)``.
        weight (Tensor, optional): ``(C,)`` per-class weights.
        reduction (str): ``"mean"``, ``"sum"`` or ``"none"``.
        ignore_index (int, optional): a class index that contributes nothing; ``None``: -100.
        label_smoothing (float): mixes this much of the uniform distribution into the targets.
        options (LinearCrossEntropyOptions, optional): the chunked path's settings.

    Example::

        >>> F.linear_cross_entropy(ember.ones(2, 3), ember.zeros(4, 3), ember.tensor([0, 3]))
        tensor(1.3863)
    """
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    num_batches, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not num_batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires"
                           f" batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = ignore_index if ignore_index is not None else -100
    if options is not None:
        if (out_features or reduction not in {"mean", "sum", "none"} or label_smoothing != 0.0
                or target.dtype != ember.int64):
            warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                          "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, out_features == (). "
                          f"Got reduction={reduction!r}, label_smoothing={label_smoothing}, "
                          f"target.dtype={target.dtype}, out_features={out_features}, tracing=False, "
                          f"linear_bias.shape={tuple(linear_bias.shape) if linear_bias is not None else None}.",
                          stacklevel=2)
        else:
            return _chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index, options)
    if out_features:  # linear takes a 2-d weight: fold the K dims into the classes, then unfold the logits
        linear_weight = linear_weight.reshape((math.prod(out_features, start=num_classes), in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(math.prod(out_features, start=num_classes))
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)


def _chunked(input: Tensor, w: Tensor, target: Tensor, bias: Tensor | None, weight: Tensor | None, reduction: str,
             ignore_index: int, options: Any) -> Tensor:
    batched = input.dim() == 2
    if not batched:
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    if tuple(target.shape) != (input.shape[0],):
        raise RuntimeError(f"Expected target size {[input.shape[0]]}, got {list(target.shape)}")
    opts = options._adjust(num_batches=input.shape[0], in_features=input.shape[1], num_classes=w.shape[0],
                           dtype=input.dtype, device=input.device)
    valid = target != ignore_index
    bad = valid & ((target < 0) | (target >= w.shape[0]))
    if bool(bad.any()):
        # the chunked path gathers each row's target logit: PyTorch's gather error
        raise RuntimeError(f"index {int(target[bad][0])} is out of bounds for dimension 1 with size {w.shape[0]}")
    result = _ChunkedLinearCrossEntropy.apply(input, w, bias, weight, target, valid, reduction, opts)
    return result if batched or reduction != "none" else result.squeeze(0)


def _rows(weight: Tensor | None, target: Tensor, valid: Tensor, dtype: Any) -> tuple[Tensor, Tensor]:
    """Each row's target as a gather index (0 for an ignored row) and its class weight (0 when ignored)."""
    safe = ember.where(valid, target, ember.zeros_like(target))
    w = weight.to(dtype)[safe] if weight is not None else ember.ones(target.shape, dtype=dtype, device=target.device)
    return safe.unsqueeze(1), ember.where(valid, w, ember.zeros_like(w))


class _ChunkedLinearCrossEntropy(Function):
    @staticmethod
    def forward(ctx: Any, input: Tensor, w: Tensor, bias: Tensor | None, weight: Tensor | None, target: Tensor,
                valid: Tensor, reduction: str, opts: Any) -> Tensor:
        acc, step = opts.acc_dtype, opts.batch_chunk_size
        wa, ba = w.to(acc), bias.to(acc) if bias is not None else None
        safe, rw = _rows(weight, target, valid, acc)
        lse = ember.empty(input.shape[0], dtype=acc, device=input.device)
        losses = ember.empty(input.shape[0], dtype=acc, device=input.device)
        for lo in range(0, input.shape[0], step):
            logits = linear(input[lo:lo + step].to(acc), wa, ba)
            lse[lo:lo + step] = ember.logsumexp(logits, 1)
            losses[lo:lo + step] = (lse[lo:lo + step] - logits.gather(1, safe[lo:lo + step]).squeeze(1))
        losses.mul_(rw)
        total = rw.sum()
        ctx.save_for_backward(input, w, bias, safe, rw, lse)
        ctx.reduction, ctx.opts, ctx.total, ctx.done = reduction, opts, total, False
        if reduction == "none":
            return losses.to(input.dtype)
        out = losses.sum()
        return (out / total if reduction == "mean" else out).to(input.dtype)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        if ctx.done and not ctx.opts.allow_retain_graph and ctx.reduction != "none":
            raise RuntimeError("linear_cross_entropy chunked backward called twice; retain_graph=True / double "
                               "backward are not supported.")
        ctx.done = True
        input, w, bias, safe, rw, lse = ctx.saved_tensors
        acc, step = ctx.opts.acc_dtype, ctx.opts.batch_chunk_size
        wa, ba = w.to(acc), bias.to(acc) if bias is not None else None
        # d loss / d row loss times the incoming gradient; rows that do not count get exactly 0, also
        # when every row is ignored and the mean's total is 0, as nll_loss's backward gives
        g_rows = grad.to(acc) if ctx.reduction != "mean" else grad.to(acc) / ctx.total
        scale = ember.where(rw.ne(0), rw * g_rows, ember.zeros_like(rw))
        need_in, need_w, need_b = ctx.needs_input_grad[0], ctx.needs_input_grad[1], ctx.needs_input_grad[2]
        dev = input.device
        g_in = ember.empty(input.shape, dtype=acc, device=dev) if need_in else None
        g_w = ember.zeros(wa.shape, dtype=acc, device=dev) if need_w else None
        g_b = ember.zeros(wa.shape[0], dtype=acc, device=dev) if need_b else None
        for lo in range(0, input.shape[0], step):
            x = input[lo:lo + step].to(acc)
            # softmax minus the target's one-hot, each row times its weight and the gradient
            g = (linear(x, wa, ba) - lse[lo:lo + step].unsqueeze(1)).exp_()
            g.scatter_add_(1, safe[lo:lo + step], ember.full((g.shape[0], 1), -1.0, dtype=acc, device=dev))
            g.mul_(scale[lo:lo + step].unsqueeze(1))
            if g_in is not None:
                g_in[lo:lo + step] = g @ wa
            if g_w is not None:
                g_w += g.t() @ x
            if g_b is not None:
                g_b += g.sum(0)
        return (g_in.to(input.dtype) if g_in is not None else None, g_w.to(w.dtype) if g_w is not None else None,
                g_b.to(bias.dtype) if g_b is not None and bias is not None else None, None, None, None, None, None)
