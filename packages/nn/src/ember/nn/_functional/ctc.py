"""Connectionist temporal classification loss: the forward (alpha) recursion in log space, batched over
samples and stepped over time; autograd of the recursion gives the gradient."""

from __future__ import annotations

import math
import operator
from typing import Any

import ember
from ember import Tensor
from ember.nn._functional._checks import parse_int64, scalar_name

# Stands in for log(0): finite, so the log-sum-exp steps of unreachable states keep finite gradients
# (-inf would give inf * 0 = nan); any path through it is rounded away against real log-probabilities.
_LOG_ZERO = -1e30


def _lengths(v: Any, name: str) -> list[int]:
    """A lengths argument: a tensor or a sequence of ints (PyTorch's two overloads: an int or floats match neither)."""
    if isinstance(v, Tensor):
        return [int(x) for x in v.reshape(-1).tolist()]
    try:
        if isinstance(v, (list, tuple)):
            return [operator.index(x) for x in v]
    except TypeError:
        pass
    raise TypeError(f"ctc_loss(): argument '{name}' must be Tensor or tuple of ints, not {type(v).__name__}")


_WHERE = "for argument #2 'targets' (while checking arguments for ctc_loss_allocate_outputs)"


def _padded_targets(targets: Tensor, target_lengths: list[int], batch: int) -> list[list[int]]:
    rows = targets.tolist()
    if targets.dim() == 1:  # the targets of all samples, concatenated
        if len(rows) != sum(target_lengths):
            raise RuntimeError(f"Expected tensor to have size {sum(target_lengths)} at dimension 0, but got size "
                               f"{len(rows)} {_WHERE}")
        out, start = [], 0
        for n in target_lengths:
            out.append(rows[start:start + n])
            start += n
        return out
    if len(rows) != batch:
        raise RuntimeError(f"Expected tensor to have size {batch} at dimension 0, but got size {len(rows)} {_WHERE}")
    for row, n in zip(rows, target_lengths, strict=True):
        if n > len(row):
            raise RuntimeError(f"Expected tensor to have size at least {n} at dimension 1, but got size {len(row)} "
                               f"{_WHERE}")
    return [row[:n] for row, n in zip(rows, target_lengths, strict=True)]


def _label_in_range(v: float, classes: int) -> bool:
    """A target label names a class of log_probs (a float label truncates, as aten's cast does)."""
    return math.isfinite(v) and 0 <= int(v) < classes


def _lse(*xs: Tensor) -> Tensor:
    """log(Σ exp(x)) over finite tensors, with the max shifted out."""
    m = xs[0]
    for x in xs[1:]:
        m = ember.maximum(m, x)
    m = m.detach()
    total = ember.exp(xs[0] - m)
    for x in xs[1:]:
        total = total + ember.exp(x - m)
    return m + ember.log(total)


def _shift(alpha: Tensor, k: int) -> Tensor:
    """alpha moved k states to the right along dim 1, filled with log(0)."""
    fill = ember.full((alpha.shape[0], k), _LOG_ZERO, dtype=alpha.dtype, device=alpha.device)
    return ember.cat([fill, alpha[:, : alpha.shape[1] - k]], 1)


def _log_likelihood(log_probs: Tensor, labels: list[list[int]], in_lens: list[int], blank: int) -> Tensor:
    """log p(labels | log_probs) per sample; log_probs (T, N, C)."""
    n = len(labels)
    width = 2 * max((len(lab) for lab in labels), default=0) + 1
    # the extended label sequence: blank, l1, blank, l2, ..., blank (padded with blanks)
    ext = [[blank] * width for _ in range(n)]
    for b, lab in enumerate(labels):
        ext[b][1: 2 * len(lab): 2] = lab
    dev = log_probs.device
    ext_t = ember.tensor(ext, dtype=ember.int64, device=dev)
    # aten's rule: a label state (odd s) may skip the blank before it unless it repeats the previous label (a
    # label equal to the blank id is still a label)
    skip = ember.tensor([[s >= 2 and s % 2 == 1 and row[s] != row[s - 2] for s in range(width)] for row in ext],
                        device=dev)
    steps = log_probs.gather(2, ext_t.unsqueeze(0).expand(log_probs.shape[0], n, width))
    state = ember.arange(width, device=dev).unsqueeze(0)
    has_label = ember.tensor([[len(lab) > 0] for lab in labels], device=dev)
    alpha = ember.where((state == 0) | ((state == 1) & has_label), steps[0], _LOG_ZERO)
    in_len = ember.tensor([[t] for t in in_lens], device=dev)
    for t in range(1, log_probs.shape[0]):
        from_skip = ember.where(skip, _shift(alpha, 2), _LOG_ZERO)
        new = _lse(alpha, _shift(alpha, 1), from_skip) + steps[t]
        alpha = ember.where(in_len > t, new, alpha)  # past its input length a sample's alpha stays put
    last = ember.tensor([[2 * len(lab)] for lab in labels], device=dev)
    end = alpha.gather(1, last).squeeze(1)
    before = ember.where(has_label.squeeze(1), alpha.gather(1, (last - 1).clamp(min=0)).squeeze(1), _LOG_ZERO)
    return _lse(end, before)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """CTC loss of (T, N, C) (or unbatched (T, C)) log-probabilities against padded (N, S) or concatenated
    targets. The gradient with respect to ``log_probs`` is PyTorch's: the exact one plus exp(log_probs) over
    each sample's input length, which cancels when log_probs come from a log_softmax (as they should)."""
    # aten's checks in its order: the parser, the lengths' type, the dtype dispatch, then the shapes
    parse_int64(blank, "ctc_loss", "blank")
    for name, v in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if isinstance(v, Tensor) and (v.is_floating_point() or v.is_complex() or v.dtype == ember.bool):
            raise RuntimeError(f"{name} must be integral")
    unbatched = log_probs.dim() != 3
    lp = log_probs.unsqueeze(1) if unbatched else log_probs  # a 0-d input: unsqueeze's IndexError
    tg = targets.unsqueeze(0) if unbatched else targets
    if lp.dtype not in (ember.float32, ember.float64):
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for \'{scalar_name(lp)}\'')
    where = "(while checking arguments for ctc_loss_allocate_outputs)"
    if lp.dim() != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {lp.dim()}-dimensional tensor for argument #1 "
                           f"'log_probs' {where}")
    if not 1 <= tg.dim() <= 2:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {tg.dim()}-dimensional tensor for argument #2 "
                           f"'targets' {where}")
    steps, batch, classes = lp.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    in_lens, tgt_lens = _lengths(input_lengths, "input_lengths"), _lengths(target_lengths, "target_lengths")
    if len(in_lens) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tgt_lens) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    for n in tgt_lens:  # aten checks the targets before the input lengths
        if n < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {n} {where}")
    labels = _padded_targets(tg, tgt_lens, batch)
    for n in in_lens:
        if not 0 <= n <= steps:
            bound = "at least 0" if n < 0 else f"at most {steps}"
            raise RuntimeError(f"Expected input_lengths to have value {bound}, but got value {n} {where}")
    # PyTorch reads log_probs out of bounds for such a label (undefined behaviour, garbage loss): an error
    bad = next((v for lab in labels for v in lab if not _label_in_range(v, classes)), None)
    if bad is not None:
        raise RuntimeError(f"ctc_loss(): target {bad} is out of the label range [0, {classes}) of log_probs "
                           f"{tuple(lp.shape)}")
    # a float label is its truncation throughout, as aten's cast makes it: 0.5 repeats a 0 before it
    labels = [[int(v) for v in lab] for lab in labels]
    work = lp.float() if lp.dtype in (ember.float16, ember.bfloat16) else lp
    nll = -_log_likelihood(work, labels, in_lens, blank)
    impossible = nll > -_LOG_ZERO / 2
    # PyTorch's backward adds exp(log_probs) over the valid steps: a zero-valued term with that gradient
    valid = (ember.arange(steps, device=lp.device).reshape(steps, 1, 1)
             < ember.tensor(in_lens, device=lp.device).reshape(1, batch, 1))
    extra = (ember.exp(work) * valid).sum((0, 2))
    loss = nll + (extra - extra.detach())
    fill = 0.0 if zero_infinity else float("inf")
    loss = ember.where(impossible, ember.full_like(loss, fill), loss).to(log_probs.dtype)
    if reduction == "mean":
        return (loss / ember.tensor(tgt_lens, dtype=loss.dtype, device=loss.device).clamp(min=1)).mean()
    if reduction == "sum":
        return loss.sum()
    return loss.squeeze(0) if unbatched else loss
