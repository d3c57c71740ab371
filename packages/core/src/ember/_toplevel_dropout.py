"""torch.dropout(input, p, train) and its feature / alpha / in-place variants, with aten's
signatures (``train`` required): the plain one runs the fused core kernel (native_dropout), the
others draw their noise as aten's _dropout_impl does."""

from __future__ import annotations

import math
from collections.abc import Callable

import ember
from ember._tensor import Tensor

__all__ = ["alpha_dropout", "alpha_dropout_", "dropout", "dropout_", "feature_alpha_dropout", "feature_alpha_dropout_",
           "feature_dropout", "feature_dropout_"]

# aten's _dropout_impl: the same checks and early returns, in this order
_SELU_ALPHA_SCALE = 1.7580993408473766  # selu's alpha * scale: alpha dropout's saturation value is its negative


def _dropout(input: Tensor, p: float, train: bool, *, feature: bool, alpha: bool, inplace: bool) -> Tensor:
    if not 0 <= p <= 1:  # NaN fails too
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * ember.zeros((), dtype=input.dtype)
    name = input.type().split(".")[-1].replace("Tensor", "")  # aten's noise has input's dtype: bernoulli_,
    if input.is_complex():  # then scaled in place by a float
        raise NotImplementedError(f'"bernoulli_scalar_cpu_" not implemented for \'{name}\'')
    if not input.is_floating_point():
        raise RuntimeError(f"result type Float can't be cast to the desired output type {name}")
    if not feature and not alpha:
        out, _ = ember.native_dropout(input, p, True)  # the fused core kernel
        return input.copy_(out) if inplace else out
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    # feature dropout drops whole channels: one draw per (sample, channel)
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2) if feature else tuple(input.shape)
    noise = ember.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    if not alpha:
        noise = noise / (1 - p)
        return input.mul_(noise) if inplace else input * noise
    # With alpha' = selu's alpha*scale, kept units become a*x + alpha'*a*p and dropped ones -alpha'*a*(1-p): for
    # zero-mean, unit-variance input, the output keeps both (a scales, the shift recentres).
    a = 1.0 / math.sqrt((_SELU_ALPHA_SCALE ** 2 * p + 1) * (1 - p))
    b = (noise - 1) * (_SELU_ALPHA_SCALE * a) + _SELU_ALPHA_SCALE * a * p
    noise = noise * a
    return input.mul_(noise).add_(b) if inplace else input * noise + b


def _variant(name: str, feature: bool, alpha: bool, inplace: bool) -> Callable[[Tensor, float, bool], Tensor]:
    def op(input: Tensor, p: float, train: bool) -> Tensor:
        return _dropout(input, p, train, feature=feature, alpha=alpha, inplace=inplace)

    op.__name__ = op.__qualname__ = name
    kind = ("feature " if feature else "") + ("alpha " if alpha else "") + "dropout"
    op.__doc__ = f"{kind} with probability p when train is true{' (in place)' if inplace else ''}, as torch.{name}."
    return op


# torch.dropout(input, p, train) and its feature / alpha / in-place variants: train is required, as in aten
dropout = _variant("dropout", False, False, False)
dropout_ = _variant("dropout_", False, False, True)
feature_dropout = _variant("feature_dropout", True, False, False)
feature_dropout_ = _variant("feature_dropout_", True, False, True)
alpha_dropout = _variant("alpha_dropout", False, True, False)
alpha_dropout_ = _variant("alpha_dropout_", False, True, True)
feature_alpha_dropout = _variant("feature_alpha_dropout", True, True, False)
feature_alpha_dropout_ = _variant("feature_alpha_dropout_", True, True, True)
