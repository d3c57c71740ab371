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

# pooling / upsampling (helper "pool")
from ember.nn._functional.pooling import (  # noqa: E402
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices, adaptive_max_pool2d, adaptive_max_pool2d_with_indices, adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices, avg_pool1d, avg_pool2d, avg_pool3d, lp_pool1d, lp_pool2d, lp_pool3d,
    max_pool1d, max_pool1d_with_indices, max_pool2d, max_pool2d_with_indices, max_pool3d, max_pool3d_with_indices,
    max_unpool1d, max_unpool2d, max_unpool3d,
)
from ember.nn._functional.upsampling import interpolate, upsample, upsample_bilinear, upsample_nearest  # noqa: E402

__all__ = [
    "batch_norm", "bilinear", "binary_cross_entropy", "binary_cross_entropy_with_logits", "celu", "cross_entropy",
    "dropout", "dropout1d", "dropout2d", "dropout3d", "elu", "gelu", "glu", "hardshrink", "hardsigmoid", "hardswish",
    "hardtanh", "huber_loss", "kl_div", "l1_loss", "layer_norm", "leaky_relu", "linear", "log_softmax", "logsigmoid",
    "mish", "mse_loss", "nll_loss", "normalize", "one_hot", "prelu", "relu", "relu6", "relu_",
    "scaled_dot_product_attention", "selu", "sigmoid", "silu", "smooth_l1_loss", "softmax", "softmin", "softplus",
    "softshrink", "softsign", "tanh", "tanhshrink", "threshold",
]
__all__ += [  # pooling / upsampling
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_pool3d",
    "max_pool3d_with_indices",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
    "interpolate",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
]
