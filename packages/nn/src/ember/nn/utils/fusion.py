"""Folding an eval-mode BatchNorm into the convolution or linear layer before it.

In eval mode a BatchNorm is an affine map per channel, ``y = (x - mean) / sqrt(var + eps) * w + b``;
applied after a convolution or a linear layer it can be merged into that layer's weight and bias,
which saves a pass over the activations at inference time.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, TypeVar

import ember
from ember import Tensor
from ember.nn.parameter import Parameter

if TYPE_CHECKING:
    from ember.nn.modules.conv import _ConvNd
    from ember.nn.modules.linear import Linear
    from ember.nn.modules.normalization import _BatchNorm

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]

ConvT = TypeVar("ConvT", bound="_ConvNd")
LinearT = TypeVar("LinearT", bound="Linear")


def _check_eval(layer: object, bn: object) -> None:
    if getattr(layer, "training", False) or getattr(bn, "training", False):
        raise AssertionError("Fusion only for eval!")


def _running_stats(bn: _BatchNorm) -> tuple[Tensor, Tensor]:
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    return bn.running_mean, bn.running_var


def fuse_conv_bn_eval(conv: ConvT, bn: _BatchNorm, transpose: bool = False) -> ConvT:
    """Fuse a convolution module and the BatchNorm module after it into one new convolution module.

    ``conv`` is left as it is: the result is a deep copy whose weight and bias have the BatchNorm
    folded in (see ``fuse_conv_bn_weights``).

    Args:
        conv (ember.nn.modules.conv._ConvNd): a convolution module, in eval mode.
        bn (ember.nn.modules.normalization._BatchNorm): a BatchNorm module, in eval mode and with
            its running statistics.
        transpose (bool): ``True`` when ``conv`` is a transposed convolution (its output channels
            are then the weight's dimension 1).

    Returns:
        the fused convolution module (of ``conv``'s class).

    Raises:
        AssertionError: either module is in training mode, or ``bn`` keeps no running statistics.

    Example::

        >>> conv, bn = nn.Conv2d(3, 4, 3).eval(), nn.BatchNorm2d(4).eval()
        >>> fused = nn.utils.fuse_conv_bn_eval(conv, bn)
        >>> x = ember.randn(1, 3, 5, 5)
        >>> ember.allclose(fused(x), bn(conv(x)), atol=1e-6)
        True
    """
    _check_eval(conv, bn)
    fused_conv = copy.deepcopy(conv)
    mean, var = _running_stats(bn)
    fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(
        fused_conv.weight, fused_conv.bias, mean, var, bn.eps, bn.weight, bn.bias, transpose)
    return fused_conv


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor, bn_eps: float,
                         bn_w: Tensor | None, bn_b: Tensor | None,
                         transpose: bool = False) -> tuple[Parameter, Parameter]:
    """Fold BatchNorm parameters into a convolution's weight and bias.

    The weight is scaled per output channel by ``bn_w / sqrt(bn_rv + bn_eps)`` and the bias becomes
    ``(conv_b - bn_rm) * bn_w / sqrt(bn_rv + bn_eps) + bn_b``; both keep the convolution's dtypes.

    Args:
        conv_w (Tensor): the convolution's weight.
        conv_b (Tensor, optional): the convolution's bias (``None``: zeros).
        bn_rm (Tensor): the BatchNorm's running mean.
        bn_rv (Tensor): the BatchNorm's running variance.
        bn_eps (float): the BatchNorm's epsilon.
        bn_w (Tensor, optional): the BatchNorm's weight (``None``: ones).
        bn_b (Tensor, optional): the BatchNorm's bias (``None``: zeros).
        transpose (bool): ``True`` for a transposed convolution, whose output channels are the
            weight's dimension 1.

    Returns:
        the fused weight and bias, as Parameters that require grad as ``conv_w`` and ``conv_b`` do.
    """
    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    if conv_b is None:
        conv_b = ember.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ember.ones_like(bn_rm)
    if bn_b is None:
        bn_b = ember.zeros_like(bn_rm)
    inv_std = ember.rsqrt(bn_rv + bn_eps)
    trailing = [1] * (conv_w.dim() - 2)
    shape = [1, -1, *trailing] if transpose else [-1, 1, *trailing]
    fused_w = (conv_w * (bn_w * inv_std).reshape(shape)).to(dtype=weight_dtype)
    fused_b = ((conv_b - bn_rm) * inv_std * bn_w + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear: LinearT, bn: _BatchNorm) -> LinearT:
    """Fuse a linear module and the BatchNorm module after it into one new linear module.

    ``linear`` is left as it is: the result is a deep copy whose weight and bias have the BatchNorm
    folded in (see ``fuse_linear_bn_weights``). The BatchNorm's features must equal the linear
    layer's output features, or be 1 (it then broadcasts).

    Args:
        linear (ember.nn.Linear): a linear module, in eval mode.
        bn (ember.nn.modules.normalization._BatchNorm): a BatchNorm module, in eval mode and with
            its running statistics.

    Returns:
        the fused linear module (of ``linear``'s class).

    Raises:
        AssertionError: either module is in training mode, the feature counts do not fit, or ``bn``
            keeps no running statistics.

    Example::

        >>> linear, bn = nn.Linear(3, 4).eval(), nn.BatchNorm1d(4).eval()
        >>> fused = nn.utils.fuse_linear_bn_eval(linear, bn)
        >>> x = ember.randn(2, 3)
        >>> ember.allclose(fused(x), bn(linear(x)), atol=1e-6)
        True
    """
    _check_eval(linear, bn)
    fused_linear = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
                             f"got linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    mean, var = _running_stats(bn)
    fused_linear.weight, fused_linear.bias = fuse_linear_bn_weights(
        fused_linear.weight, fused_linear.bias, mean, var, bn.eps, bn.weight, bn.bias)
    return fused_linear


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor, bn_eps: float,
                           bn_w: Tensor, bn_b: Tensor) -> tuple[Parameter, Parameter]:
    """Fold BatchNorm parameters into a linear layer's weight and bias.

    Each output row of the weight is scaled by ``bn_w / sqrt(bn_rv + bn_eps)`` and the bias becomes
    ``(linear_b - bn_rm) * bn_w / sqrt(bn_rv + bn_eps) + bn_b``.

    Args:
        linear_w (Tensor): the linear layer's weight.
        linear_b (Tensor, optional): the linear layer's bias (``None``: zeros).
        bn_rm (Tensor): the BatchNorm's running mean.
        bn_rv (Tensor): the BatchNorm's running variance.
        bn_eps (float): the BatchNorm's epsilon.
        bn_w (Tensor): the BatchNorm's weight.
        bn_b (Tensor): the BatchNorm's bias.

    Returns:
        the fused weight and bias, as Parameters that require grad as ``linear_w`` and ``linear_b``
        do.
    """
    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    if linear_b is None:
        linear_b = ember.zeros_like(bn_rm)
    bn_scale = bn_w * ember.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=weight_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
