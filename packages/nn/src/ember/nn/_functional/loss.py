"""Loss functions, composed from differentiable ember ops (no gather: one-hot masks instead)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import ember
from ember import Tensor
from ember._autocast_policy import autocast_op
from ember.nn._functional._checks import float_kernel, scalar_name
from ember.nn._functional.activation import log_softmax, logsigmoid


def legacy_get_string(size_average: Any, reduce: Any, emit_warning: bool = True) -> str:
    """Map the deprecated size_average/reduce flags to a reduction string."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if (size_average and reduce) else ("sum" if reduce else "none")
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                      stacklevel=3)
    return ret


def _reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return legacy_get_string(size_average, reduce)
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _warn_size(input: Tensor, target: Tensor) -> None:
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have "
                      "the same size.", stacklevel=3)


def _weighted(loss: Tensor, weight: Tensor | None, reduction: str, input: Tensor) -> Tensor:
    if weight is None:
        return _reduce(loss, reduction)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "mean":
        return loss.sum() / weight.sum()
    return _reduce(loss, reduction)


@autocast_op("fp32")
def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Mean squared error: the squared differences ``(input - target) ** 2``, reduced.

    Args:
        input (Tensor): the predictions.
        target (Tensor): the targets, broadcastable to ``input``.
        size_average, reduce: deprecated spellings of ``reduction``.
        reduction (str): ``"mean"`` (the default) or ``"sum"`` of the per-element losses, or
            ``"none"`` to return them all.
        weight (Tensor, optional): a per-element weight of the squared errors.

    Example::

        >>> F.mse_loss(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 4.0]))
        tensor(2.)
    """
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    input, target = ember.broadcast_tensors(input, target)  # as F.mse_loss, before any kernel
    if weight is not None:  # F.mse_loss's own composite
        d = input - target
        return _weighted(d * d, weight, reduction, input)
    enum = _reduction_enum(reduction)  # F.mse_loss reads the enum before aten's kernel runs
    dtype = ember.result_type(input, target)  # mse's output is the promoted type
    float_kernel(dtype, "mse_cpu")
    # aten's mse_loss op (its own MseLossBackward0), on operands of the common dtype (a bool target is a number)
    input, target = (t if t.dtype == dtype else t.to(dtype) for t in (input, target))
    return ember._nn.mse_loss(input, target, enum)


@autocast_op("fp32")
def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Mean absolute error: the differences ``|input - target|``, reduced.

    Args:
        input (Tensor): the predictions.
        target (Tensor): the targets, broadcastable to ``input``.
        size_average, reduce: deprecated spellings of ``reduction``.
        reduction (str): ``"mean"`` (the default) or ``"sum"`` of the per-element losses, or
            ``"none"`` to return them all.
        weight (Tensor, optional): a per-element weight of the absolute errors.

    Example::

        >>> F.l1_loss(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 4.0]))
        tensor(1.)
    """
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    input, target = ember.broadcast_tensors(input, target)
    return _weighted((input - target).abs(), weight, reduction, input)


@autocast_op("fp32")
def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """Squared error for differences below ``beta`` (divided by ``2 * beta``) and absolute error
    minus ``beta / 2`` above it: less sensitive to outliers than ``mse_loss``.

    Args:
        input (Tensor): the predictions.
        target (Tensor): the targets.
        size_average, reduce: deprecated spellings of ``reduction``.
        reduction (str): ``"mean"`` (the default) or ``"sum"`` of the per-element losses, or
            ``"none"`` to return them all.
        beta (float): where the loss turns from quadratic to linear.

    Example::

        >>> F.smooth_l1_loss(ember.tensor([0.0, 0.0]), ember.tensor([0.5, 3.0]), reduction="none")
        tensor([0.1250, 2.5000])
    """
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    input, target = ember.broadcast_tensors(input, target)
    if beta == 0.0:  # F.smooth_l1_loss takes aten's l1_loss
        return _reduce((input - target).abs(), reduction)
    # aten's smooth_l1_loss op (SmoothL1LossBackward0), which checks beta and the dtypes
    return ember._nn.smooth_l1_loss(input, target, _reduction_enum(reduction), beta)


@autocast_op("fp32")
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """Huber loss: ``0.5 * d ** 2`` for differences ``|d|`` up to ``delta``, ``delta * (|d| - delta / 2)``
    beyond (``smooth_l1_loss`` times ``delta``).

    Args:
        input (Tensor): the predictions.
        target (Tensor): the targets.
        reduction (str): ``"mean"`` (the default) or ``"sum"`` of the per-element losses, or
            ``"none"`` to return them all.
        delta (float): where the loss turns from quadratic to linear.
        weight (Tensor, optional): a per-element weight.

    Example::

        >>> F.huber_loss(ember.tensor([0.0, 0.0]), ember.tensor([0.5, 3.0]), reduction="none")
        tensor([0.1250, 2.5000])
    """
    _warn_size(input, target)
    x, y = ember.broadcast_tensors(input, target)
    if weight is None:  # aten's huber_loss op (HuberLossBackward0), which checks delta and the dtypes
        return ember._nn.huber_loss(x, y, _reduction_enum(reduction), delta)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    # F.huber_loss: the weighted loss is reduced by a plain mean (not divided by the weights' sum)
    return _reduce(ember._nn.huber_loss(x, y, 0, delta) * weight, reduction)


@autocast_op("fp32", cuda="banned")  # CUDA autocast refuses it, as aten's
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Binary cross-entropy between probabilities ``input`` (in ``[0, 1]``) and targets:
    ``-(target * log(input) + (1 - target) * log(1 - input))``, each log clamped at -100.

    Args:
        input (Tensor): the predicted probabilities.
        target (Tensor): the targets in ``[0, 1]``, of ``input``'s shape.
        weight (Tensor, optional): a per-element rescaling.
        size_average, reduce: deprecated spellings of ``reduction``.
        reduction (str): ``"mean"`` (the default) or ``"sum"`` of the per-element losses, or
            ``"none"`` to return them all.

    Example::

        >>> F.binary_cross_entropy(ember.tensor([0.5]), ember.tensor([1.0]))
        tensor(0.6931)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if target.dtype != input.dtype:  # aten's TensorIterator with common dtype off, output input's dtype
        raise RuntimeError(f"Found dtype {scalar_name(target)} but expected {scalar_name(input)}")
    float_kernel(input, "binary_cross_entropy")
    # aten checks each element's input, then its target, in order; NaN fails (meta tensors hold no
    # values to check, and PyTorch's meta kernel checks none)
    bad_in = ~((input >= 0) & (input <= 1)).reshape(-1)
    bad = bad_in | ~((target >= 0) & (target <= 1)).reshape(-1)
    if not bad.is_meta and bool(bad.any()):
        first = int(bad.to(ember.uint8).argmax().item())
        raise RuntimeError(f"all elements of {'input' if bool(bad_in[first]) else 'target'} should be between 0 and 1")
    # PyTorch clamps each log at -100 so that 0 * log(0) stays finite.
    loss = -(target * ember.log(input).clamp(min=-100) + (1 - target) * ember.log(1 - input).clamp(min=-100))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@autocast_op("fp32")
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """``binary_cross_entropy`` of ``sigmoid(input)``, computed from the logits directly, which is
    stable for large ``|input|``.

    Args:
        input (Tensor): the logits.
        target (Tensor): the targets in ``[0, 1]``, of ``input``'s shape.
        weight (Tensor, optional): a per-element rescaling.
        size_average, reduce: deprecated spellings of ``reduction``.
        reduction (str): ``"mean"`` (the default) or ``"sum"`` of the per-element losses, or
            ``"none"`` to return them all.
        pos_weight (Tensor, optional): the weight of the positive term, per class (last dimension).

    Example::

        >>> F.binary_cross_entropy_with_logits(ember.tensor([0.0]), ember.tensor([1.0]))
        tensor(0.6931)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    # aten's composite, op for op (each rounding in half types): (1 - y) x - w_pos(y) log_sigmoid(x)
    # aten's in-place steps keep their left operand's dtype: the loss has (1 - target)'s
    ls = logsigmoid(input)
    if not target.is_floating_point():
        raise RuntimeError(f"result type Float can't be cast to the desired output type {_type_name(target)}")
    if pos_weight is not None:
        ls = _inplace_op(ls, (pos_weight - 1) * target + 1, ember.mul)
    loss = _inplace_op(1 - target, input, ember.mul)
    loss = _inplace_op(loss, ls, ember.sub)
    if weight is not None:
        loss = _inplace_op(loss, weight, ember.mul)
    return _reduce(loss, reduction)


def _inplace_op(self: Tensor, other: Tensor, op: Callable[[Tensor, Tensor], Tensor]) -> Tensor:
    """aten's ``self.op_(other)`` without writing self: the result keeps self's shape and dtype."""
    shape = tuple(ember.broadcast_shapes(tuple(self.shape), tuple(other.shape)))
    if shape != tuple(self.shape):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(shape)}")
    return op(self, other).to(self.dtype)


def _type_name(t: Tensor) -> str:
    return t.type().replace("torch.", "").replace("Tensor", "")


_REDUCTION_ENUM = {"none": 0, "mean": 1, "sum": 2}  # aten's Reduction


def _reduction_enum(reduction: str) -> int:
    """aten's Reduction value of a reduction name (F's _Reduction.get_enum)."""
    if reduction not in _REDUCTION_ENUM:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTION_ENUM[reduction]


def _class_target(target: Tensor) -> None:
    """nll_loss_forward's target rules, in aten's order: at most one dim, then Long or Byte."""
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.dtype not in (ember.int64, ember.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_name(target)}")


def _nll_checked(input: Tensor, target: Tensor, weight: Tensor | None) -> Tensor:
    """PyTorch's argument errors for nll_loss on batched input (N, C, ...); the target as Long."""
    if input.dim() >= 2:  # aten's nll_loss_nd checks the batch sizes before its kernels check the dtype
        n = target.shape[0] if target.dim() else 0
        if input.shape[0] != n:
            raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({n}).")
    if input.dim() > 2:
        return _nll2d_checked(input, target, weight)
    _class_target(target)
    n_classes = input.shape[1]
    if target.dim() == 0:  # nll_loss_forward reads target.size(0)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if tuple(target.shape) != (input.shape[0],):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")
    # nll_loss (2-d) wants a 1-d weight of n_classes elements
    if weight is not None and (weight.numel() != n_classes or weight.dim() != 1):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes "
                           f"but got weight tensor of shape: {list(weight.shape)}")
    return target.long()


def _nll2d_checked(input: Tensor, target: Tensor, weight: Tensor | None) -> Tensor:
    """nll_loss_nd's rules for input (N, C, d1, ...), then its nll_loss2d kernel's, in aten's order. An input
    of other than 4 dims is viewed as (N, C, 1, -1), its target as (N, 1, -1) (both (N, 0, 0) when empty)."""
    n, c = input.shape[0], input.shape[1]
    shape, tshape = tuple(input.shape), tuple(target.shape)
    if input.dim() != 4:
        if tshape != (n,) + shape[2:]:
            raise RuntimeError(f"Expected target size {list((n,) + shape[2:])}, got {list(tshape)}")
        shape = (n, c, 1, input.numel() // (n * c)) if input.numel() else (n, c, 0, 0)
        tshape = (n, 1, target.numel() // n) if target.numel() else (n, 0, 0)
    if len(tshape) != 3:
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of dimension: "
                           f"{len(tshape)}")
    if target.dtype not in (ember.int64, ember.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_name(target)}")
    if weight is not None and weight.numel() != c:  # a weight of any rank
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if (shape[0], shape[2], shape[3]) != tshape:
        raise RuntimeError(f"size mismatch (got input: {list(shape)} , target: {list(tshape)}")
    if not input.is_floating_point():
        raise NotImplementedError(f'"nll_loss2d_forward_out_frame" not implemented for \'{_type_name(input)}\'')
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_type_name(input)} but found {_type_name(weight)}")
    if target.dtype != ember.int64:  # the kernel reads the target as int64
        raise RuntimeError(f"expected scalar type Long but found {_type_name(target)}")
    return target


def _nll_fused(input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int, reduction: str) -> Tensor:
    """nll_loss of batched input in one core kernel (targets bound-checked there: IndexError)."""
    target = _nll_checked(input, target, weight)
    if weight is not None and weight.requires_grad and ember.is_grad_enabled():
        raise RuntimeError("The function 'nll_loss_forward' is not differentiable with respect to argument "
                           "'weight'. This input cannot have requires_grad True.")
    if input.dim() > 2:  # (N, C, d1, ...) as (N*d1*..., C), the way aten's nll_loss_nd reshapes
        # (its checks passed: the target has one element per row)
        flat = input.movedim(1, -1).reshape(target.numel(), input.shape[1])
        w = weight.reshape(-1) if weight is not None else None  # nll_loss2d takes a weight of any rank
        out = ember._nn.nll_loss_forward(flat, target.reshape(-1), w, _REDUCTION_ENUM[reduction], ignore_index)[0]
        return out.reshape(target.shape) if reduction == "none" else out
    return ember._nn.nll_loss_forward(input, target, weight, _REDUCTION_ENUM[reduction], ignore_index)[0]


def _nll(input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int,
         reduction: str) -> tuple[Tensor, Tensor]:
    """Per-element −w_y·x_y and the weights w_y (0 where ignored): label smoothing needs both."""
    target = _nll_checked(input, target, weight)
    n_classes = input.shape[1]
    valid = target != ignore_index
    bad = valid & ((target < 0) | (target >= n_classes))
    if target.numel() and not bad.is_meta and bool(bad.any()):  # a meta target has no classes to check
        # checked before any read: an out-of-range class never indexes memory
        value = int(ember.where(bad, target, 0).abs().amax().item())
        value = value if bool((target == value).any()) else -value
        raise IndexError(f"Target {value} is out of bounds.")
    safe = ember.where(valid, target, 0)
    if n_classes == 0:  # every target ignored (any other was out of bounds): no class to read
        w = ember.zeros(tuple(target.shape), dtype=input.dtype, device=input.device)
        return w.clone(), w
    picked = input.gather(1, safe.unsqueeze(1)).squeeze(1)
    w = valid.to(input.dtype) if weight is None else weight[safe] * valid
    return -(picked * w), w


def _batched(input: Tensor, target: Tensor, probs: bool = False) -> tuple[Tensor, Tensor, bool]:
    """(input, target) with a batch dim of 1 added to a 1-D input; class-index targets checked as aten's
    nll_loss checks them there (class probabilities: cross_entropy's own checks)."""
    if input.dim() == 0:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    if input.dim() == 1:
        if probs:
            return input.unsqueeze(0), target.unsqueeze(0), True
        _class_target(target)  # aten's nll_loss on a 1-D input: before the size rule below
        if target.dim() == 1 and target.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
        return input.unsqueeze(0), target.reshape(1), True  # a 0-d target or one of size 1: the batch's
    return input, target, False


def _check_int64(value: int) -> None:
    """An int argument beyond int64: the ValueError of PyTorch's argument parser, before the kernel's checks."""
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        raise ValueError("Overflow when unpacking long long")


@autocast_op("fp32")
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood: ``-input[n, target[n]]`` for every sample, where ``input`` holds
    log-probabilities (``log_softmax``'s output). Classes are on dimension 1.

    Args:
        input (Tensor): ``(N, C)`` or ``(N, C, *)`` log-probabilities.
        target (Tensor): ``(N)`` or ``(N, *)`` class indices.
        weight (Tensor, optional): ``(C,)`` per-class weights; the mean divides by the weights' sum.
        ignore_index (int): a target value that contributes nothing.
        size_average, reduce: deprecated spellings of ``reduction``.
        reduction (str): ``"mean"`` (the default) or ``"sum"`` of the per-element losses, or
            ``"none"`` to return them all.

    Example::

        >>> F.nll_loss(ember.tensor([[-1.0, -2.0]]), ember.tensor([1]))
        tensor(2.)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_int64(ignore_index)
    x, t, unbatched = _batched(input, target)
    loss = _nll_fused(x, t, weight, ignore_index, reduction)
    return loss.squeeze(0) if (reduction == "none" and unbatched) else loss


@autocast_op("fp32")
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross-entropy of the raw scores ``input`` (logits; classes on dimension 1) against
    ``target``, which holds class indices or class probabilities: ``log_softmax`` followed by
    ``nll_loss``.

    Args:
        input (Tensor): ``(N, C)``, ``(C,)`` or ``(N, C, *)`` logits.
        target (Tensor): class indices ``(N)`` / ``(N, *)``, or probabilities of ``input``'s shape.
        weight (Tensor, optional): ``(C,)`` per-class weights.
        ignore_index (int): a target index that contributes nothing.
        size_average, reduce: deprecated spellings of ``reduction``.
        reduction (str): ``"mean"`` (the default) or ``"sum"`` of the per-element losses, or
            ``"none"`` to return them all.
        label_smoothing (float): mixes this much of the uniform distribution into the targets.

    Example::

        >>> F.cross_entropy(ember.tensor([[0.0, 0.0]]), ember.tensor([0]))
        tensor(0.6931)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_int64(ignore_index)
    probs = tuple(input.shape) == tuple(target.shape)
    if probs:  # aten's checks of class-probability targets come before its log_softmax and its smoothing check
        if not target.is_floating_point():
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{scalar_name(target)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if input.dim() == 0:  # it reads the class count, input.size(1), next
            raise IndexError("Dimension specified as 1 but tensor has no dimensions")
    if label_smoothing > 1.0:  # aten's only check; a negative or NaN one means no smoothing
        # the double as C++'s stream writes it (%g): 2, 1e+300, 9.0072e+15
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    if input.dim() == 0 or not (probs or input.is_floating_point()):
        # aten's log_softmax runs before nll_loss's checks: its IndexError (a 0-d input's class
        # dim is 1) or its dtype error comes first
        log_softmax(input, 0 if input.dim() == 1 else 1)
    x, t, unbatched = _batched(input, target, probs)
    n_classes = x.shape[1]
    if probs:
        if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
            raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {n_classes} classes "
                               f"or no classes but got weight tensor of shape: {list(weight.shape)}")
    lsm = log_softmax(x, 1)
    wshape = [1] * x.dim()
    wshape[1] = n_classes
    if probs:
        # Class probabilities: −Σ_c w_c p_c log q_c; 'mean' divides by the batch size.
        if label_smoothing > 0:
            t = t * (1 - label_smoothing) + (label_smoothing / n_classes if n_classes else math.inf)
        terms = lsm * t if weight is None else lsm * t * weight.reshape(wshape)
        # 'mean' and 'sum' negate the sum of every term (aten's order: the same rounding, and -0 for no terms)
        if reduction == "mean":
            return -terms.sum() / (x.numel() / n_classes if n_classes else math.nan)  # aten's 0 / 0: NaN
        if reduction == "sum":
            return -terms.sum()
        loss = -terms.sum(1)
        return loss.squeeze(0) if unbatched else loss
    if not label_smoothing > 0:  # (aten's nll_loss path)
        loss = _nll_fused(lsm, t, weight, ignore_index, reduction)
        return loss.squeeze(0) if (reduction == "none" and unbatched) else loss
    if not lsm.is_floating_point() or (weight is not None and weight.dtype != lsm.dtype):
        _nll_fused(lsm, t, weight, ignore_index, reduction)  # aten takes the nll_loss first: its kernel's dtype error
    loss, w = _nll(lsm, t, weight, ignore_index, reduction)
    if unbatched and target.dim() == 1:
        # aten adds the smoothing term of shape [1] into the 0-d loss of a 1-D input's size-1 target (any
        # reduction): its in-place broadcast error
        raise RuntimeError("output with shape [] doesn't match the broadcast shape [1]")
    if weight is not None and reduction == "mean" and t.dtype == ember.uint8 and bool((t != ignore_index).any()):
        # aten's smoothed mean gathers the weights of the kept targets by the target itself
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    valid = (t != ignore_index).unsqueeze(1)
    terms = lsm if weight is None else lsm * weight.reshape(wshape)
    smooth = -ember.where(valid, terms, 0.0).sum(1)
    if reduction == "mean":
        nll_part = loss.sum() / w.sum()
        smooth_part = smooth.sum() / w.sum()
    elif reduction == "sum":
        nll_part, smooth_part = loss.sum(), smooth.sum()
    else:
        nll_part, smooth_part = loss, smooth
    # (no classes: label_smoothing / 0 is inf in aten's double arithmetic, and its product with the empty sum NaN)
    out = (1 - label_smoothing) * nll_part + smooth_part * (label_smoothing / n_classes if n_classes else math.inf)
    return out.squeeze(0) if (reduction == "none" and unbatched) else out


def _xlogy_self(t: Tensor) -> Tensor:
    """xlogy(t, t) as aten's kernel computes it: for float16/bfloat16 log(t) is rounded to t's type before the
    product (measured: torch.xlogy on half inputs), where ember.xlogy computes in float32."""
    if t.dtype not in (ember.float16, ember.bfloat16):
        return ember.xlogy(t, t)
    return ember.where(t == 0, 0.0, t * ember.log(t))  # NaN stays NaN: NaN == 0 is false


@autocast_op("fp32")
def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence of ``target`` from the distribution whose log-probabilities are
    ``input``: ``target * (log(target) - input)`` summed as ``reduction`` says
    (``"batchmean"``, the sum divided by the batch size, is the mathematically right mean).

    Args:
        input (Tensor): log-probabilities.
        target (Tensor): probabilities (log-probabilities with ``log_target``).
        size_average, reduce: deprecated spellings of ``reduction``.
        reduction (str): ``"mean"``, ``"batchmean"``, ``"sum"`` or ``"none"``.
        log_target (bool): ``target`` holds log-probabilities.

    Example::

        >>> p = ember.tensor([[0.5, 0.5]])
        >>> F.kl_div(p.log(), p, reduction="batchmean")
        tensor(0.)
    """
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if input.is_complex() or target.is_complex():  # aten's first check
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not input.is_floating_point() or not target.is_floating_point():
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = ember.exp(target) * (target - input)
    else:
        loss = _xlogy_self(target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() != 0 else loss.sum()
    return _reduce(loss, reduction)
