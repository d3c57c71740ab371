"""``ember.nn.functional``: stateless versions of the layers and losses (as ``torch.nn.functional``)."""

from __future__ import annotations

from ember.nn._functional.activation import (
    bilinear,
    celu,
    dropout,
    elu,
    gelu,
    glu,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    leaky_relu,
    linear,
    log_softmax,
    logsigmoid,
    mish,
    normalize,
    prelu,
    relu,
    relu6,
    relu_,
    selu,
    sigmoid,
    silu,
    softmax,
    softmin,
    softplus,
    softshrink,
    softsign,
    tanh,
    tanhshrink,
    threshold,
)
from ember.nn._functional.attention import dropout1d, dropout2d, dropout3d, one_hot, scaled_dot_product_attention
from ember.nn._functional.conv import (  # conv area
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
    fold,
    pixel_shuffle,
    pixel_unshuffle,
    unfold,
)
from ember.nn._functional.loss import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    huber_loss,
    kl_div,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)
from ember.nn._functional.norm import batch_norm, layer_norm
from ember.nn._functional.padding import pad  # conv area

__all__ = [
    "batch_norm", "bilinear", "binary_cross_entropy", "binary_cross_entropy_with_logits", "celu", "cross_entropy",
    "dropout", "dropout1d", "dropout2d", "dropout3d", "elu", "gelu", "glu", "hardshrink", "hardsigmoid", "hardswish",
    "hardtanh", "huber_loss", "kl_div", "l1_loss", "layer_norm", "leaky_relu", "linear", "log_softmax", "logsigmoid",
    "mish", "mse_loss", "nll_loss", "normalize", "one_hot", "prelu", "relu", "relu6", "relu_",
    "scaled_dot_product_attention", "selu", "sigmoid", "silu", "smooth_l1_loss", "softmax", "softmin", "softplus",
    "softshrink", "softsign", "tanh", "tanhshrink", "threshold",
]
__all__ += ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "fold", "pad",
            "pixel_shuffle", "pixel_unshuffle", "unfold"]  # conv area
