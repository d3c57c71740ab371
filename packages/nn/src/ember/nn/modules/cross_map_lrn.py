"""``CrossMapLRN2d``: the legacy (Lua Torch) local response normalisation across channels.

It normalises each element of a 4-D ``(N, C, H, W)`` input by the squares of the elements at the
same position in neighbouring channels::

    scale[c] = k + alpha / size * sum(x[j] ** 2 for j in the window of c)
    out[c] = x[c] * scale[c] ** -beta

PyTorch's implementation is a Python autograd Function ported from Lua, and both of its passes have
quirks that this module reproduces so that results match it exactly:

* forward: the window of channel ``c`` is ``[c - p + 1, c + p - 1]`` with ``p = (size - 1) // 2 + 1``,
  except that channel 0 is never dropped once the window slides past it (``scale[c]`` for
  ``c >= p`` also counts ``x[0] ** 2``);
* backward: the gradient is not the exact derivative of that forward; the term through the
  normaliser sums ``g * out / scale`` over channels ``[c - q, c - q + size - 1]`` with
  ``q = size - (size - 1) // 2`` (rounded as PyTorch rounds it), and ``size == 1`` fails there.

Both passes are written here with vectorised ember operations over the channel dimension.
"""

from __future__ import annotations

from typing import Any

import ember
from ember import Tensor
from ember.autograd import Function
from ember.nn.modules.module import Module

__all__ = ["CrossMapLRN2d"]


def _window_sum(x: Tensor, before: int, after: int, width: int) -> Tensor:
    """``out[:, c] = sum(x[:, c - before + o] for o in range(width))``, out-of-range channels as zero."""
    channels = x.size(1)
    parts = []
    if before > 0:
        parts.append(x.new_zeros((x.size(0), before, *x.shape[2:])))
    parts.append(x)
    if after > 0:
        parts.append(x.new_zeros((x.size(0), after, *x.shape[2:])))
    padded = ember.cat(parts, 1) if len(parts) > 1 else x
    out = padded.narrow(1, 0, channels)
    for o in range(1, width):
        out = out + padded.narrow(1, o, channels)
    return out


def _scale(input: Tensor, size: int, alpha: float, k: float) -> Tensor:
    """``k + alpha / size * (windowed sum of squares)``, with PyTorch's channel-0 quirk."""
    channels = input.size(1)
    pre_pad = int((size - 1) / 2 + 1)
    square = input * input
    half = max(pre_pad - 1, 0)
    total = _window_sum(square, half, half, 2 * half + 1)
    if channels > pre_pad:  # channel 0 stays in the sums of channels pre_pad, pre_pad + 1, ...
        first = square.narrow(1, 0, 1)
        keep = ember.cat([ember.zeros(pre_pad, dtype=input.dtype, device=input.device),
                          ember.ones(channels - pre_pad, dtype=input.dtype, device=input.device)])
        total = total + first * keep.view(1, channels, 1, 1)
    return total.mul(alpha / size).add(k)


def _make_function() -> type[Function]:
    # Defined in a function so that its name, and so its node's name (CrossMapLRN2dBackward), is
    # PyTorch's without clashing with the module class below.
    class CrossMapLRN2d(Function):
        """The autograd Function of ``CrossMapLRN2d``, with PyTorch's hand-written backward."""

        @staticmethod
        def forward(ctx: Any, input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                    k: float = 1) -> Tensor:
            """Normalise ``input`` over neighbouring channels (see the module's docstring)."""
            ctx.size, ctx.alpha, ctx.beta, ctx.k = size, alpha, beta, k
            if input.dim() != 4:
                raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
            scale = _scale(input, size, alpha, k)
            output = input * scale.pow(-beta)
            ctx.scale = scale
            ctx.save_for_backward(input, output)
            return output

        @staticmethod
        def backward(ctx: Any, grad_output: Tensor) -> tuple[Tensor | None, ...]:
            """PyTorch's gradient of the forward (see the module docstring for how it differs from
            the exact derivative)."""
            input, output = ctx.saved_tensors
            size, scale = ctx.size, ctx.scale
            channels = input.size(1)
            inverse_pre_pad = int(size - (size - 1) / 2)
            if inverse_pre_pad + channels > channels + size - 1:
                raise RuntimeError(f"start ({inverse_pre_pad}) + length ({channels}) exceeds dimension size "
                                   f"({channels + size - 1}).")
            ratio = grad_output * output / scale
            accum = _window_sum(ratio, inverse_pre_pad, size - 1 - inverse_pre_pad, size)
            cache_ratio_value = 2 * ctx.alpha * ctx.beta / size
            grad_input = scale.pow(-ctx.beta) * grad_output - cache_ratio_value * input * accum
            return grad_input, None, None, None, None

    return CrossMapLRN2d


_cross_map_lrn2d = _make_function()


class CrossMapLRN2d(Module):
    """Local response normalisation across channels of a 4-D ``(N, C, H, W)`` input, the legacy
    (Lua Torch) form of ``LocalResponseNorm``.

    ``out[c] = x[c] * (k + alpha / size * sum(x[j] ** 2 for j near c)) ** -beta``, with PyTorch's
    windows and gradient (see this module file's docstring).

    Args:
        size (int): how many neighbouring channels to sum over.
        alpha (float): the multiplier of the sum of squares.
        beta (float): the exponent.
        k (float): the additive constant.

    Example::

        >>> from ember.nn.modules.cross_map_lrn import CrossMapLRN2d
        >>> lrn = CrossMapLRN2d(3, alpha=1e-4, beta=0.75, k=1)
        >>> lrn(ember.ones(1, 4, 2, 2)).shape
        torch.Size([1, 4, 2, 2])
    """

    size: int
    alpha: float
    beta: float
    k: float

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        """Normalise ``input`` (4-D) over neighbouring channels."""
        return _cross_map_lrn2d.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        """``size, alpha=..., beta=..., k=...``, shown in the module's repr."""
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
