"""The dropout family of torch.nn.functional: dropout, alpha_dropout, feature_alpha_dropout (the
channel-wise dropout1d/2d/3d live beside the attention ops that use them)."""

from __future__ import annotations

import ember
from ember import Tensor


def _check_p(p: float) -> None:
    # torch.nn.functional's first check, before the input's rank (NaN passes it)
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


# The dropout family runs the top-level ops (core), as torch.nn.functional calls torch.dropout etc.
def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """During training, zeroes every element with probability ``p`` and scales the others by
    ``1 / (1 - p)`` so the expected value is unchanged; with ``training=False`` it returns
    ``input``.

    Args:
        input (Tensor): the activations.
        p (float): the probability of zeroing an element.
        training (bool): apply dropout (True) or pass ``input`` through.
        inplace (bool): write the result into ``input``.

    Example::

        >>> F.dropout(ember.ones(3), p=0.5, training=False)
        tensor([1., 1., 1.])
    """
    _check_p(p)
    perm = _memory_order(input) if training else None
    if perm is not None:
        # a permuted dense input (channels_last, a batch_first attention output): PyTorch's mask takes
        # its draws in memory order and the result keeps the input's strides; the core op draws in
        # logical order, so it runs on the contiguous view in memory order and is permuted back
        view = input.permute(perm)
        inverse = sorted(range(len(perm)), key=perm.__getitem__)
        if inplace:
            ember.dropout_(view, p, training)
            return input
        return ember.dropout(view, p, training).permute(inverse)
    return ember.dropout_(input, p, training) if inplace else ember.dropout(input, p, training)


def _memory_order(t: Tensor) -> list[int] | None:
    """The dim order that makes a non-contiguous but dense, non-overlapping ``t`` contiguous, else None."""
    if t.dim() < 2 or t.is_contiguous() or t.numel() == 0:
        return None
    perm = sorted(range(t.dim()), key=lambda d: (-t.stride(d), d))
    return perm if t.permute(perm).is_contiguous() else None


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped elements are set to SELU's negative saturation value and
    the result is scaled and shifted so mean and variance are kept. Identity unless ``training``.

    Args:
        input (Tensor): the activations.
        p (float): the probability of dropping an element.
        training (bool): apply dropout (True) or pass ``input`` through.
        inplace (bool): write the result into ``input``.
    """
    _check_p(p)
    return ember.alpha_dropout_(input, p, training) if inplace else ember.alpha_dropout(input, p, training)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """``alpha_dropout`` of whole channels: every ``(sample, channel)`` map is dropped or kept as one.

    Args:
        input (Tensor): ``(N, C, *)`` activations.
        p (float): the probability of dropping a channel.
        training (bool): apply dropout (True) or pass ``input`` through.
        inplace (bool): write the result into ``input``.
    """
    _check_p(p)
    if inplace:
        return ember.feature_alpha_dropout_(input, p, training)
    return ember.feature_alpha_dropout(input, p, training)
