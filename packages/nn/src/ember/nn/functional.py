"""``ember.nn.functional``: stateless versions of the layers and losses (as ``torch.nn.functional``)."""

from __future__ import annotations

from ember.nn._functional.activation import (
    bilinear,
    celu,
    celu_,
    elu,
    elu_,
    gelu,
    glu,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    linear,
    log_softmax,
    logsigmoid,
    mish,
    normalize,
    prelu,
    relu,
    relu6,
    relu_,
    rrelu,
    rrelu_,
    selu,
    selu_,
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
    threshold_,
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
from ember.nn._functional.ctc import ctc_loss
from ember.nn._functional.distance import cosine_similarity, pairwise_distance, pdist
from ember.nn._functional.dropout import alpha_dropout, dropout, feature_alpha_dropout
from ember.nn._functional.embedding import embedding, embedding_bag
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
from ember.nn._functional.loss_embedding_ranking import (
    cosine_embedding_loss,
    hinge_embedding_loss,
    margin_ranking_loss,
    poisson_nll_loss,
    triplet_margin_loss,
)
from ember.nn._functional.norm import (
    batch_norm,
    group_norm,
    instance_norm,
    layer_norm,
    local_response_norm,
    rms_norm,
)
from ember.nn._functional.padding import pad  # conv area

__all__ = [
    "batch_norm", "bilinear", "binary_cross_entropy", "binary_cross_entropy_with_logits", "celu", "cross_entropy",
    "dropout", "dropout1d", "dropout2d", "dropout3d", "elu", "gelu", "glu", "hardshrink", "hardsigmoid", "hardswish",
    "hardtanh", "huber_loss", "kl_div", "l1_loss", "layer_norm", "leaky_relu", "linear", "log_softmax", "logsigmoid",
    "mish", "mse_loss", "nll_loss", "normalize", "one_hot", "prelu", "relu", "relu6", "relu_",
    "scaled_dot_product_attention", "selu", "sigmoid", "silu", "smooth_l1_loss", "softmax", "softmin", "softplus",
    "softshrink", "softsign", "tanh", "tanhshrink", "threshold",
    "alpha_dropout", "embedding", "embedding_bag", "feature_alpha_dropout", "group_norm", "instance_norm",
    "local_response_norm", "rms_norm",
    "channel_shuffle", "cosine_embedding_loss", "cosine_similarity", "ctc_loss", "hinge_embedding_loss",
    "margin_ranking_loss", "native_channel_shuffle", "pairwise_distance", "pdist", "poisson_nll_loss", "rrelu",
    "rrelu_", "triplet_margin_loss",
    "celu_", "elu_", "hardtanh_", "leaky_relu_", "selu_", "threshold_",
]
# torch.nn.functional.channel_shuffle is the top-level op itself
from ember import channel_shuffle, native_channel_shuffle  # noqa: E402

# pooling / upsampling (helper "pool")
from ember.nn._functional.pooling import (  # noqa: E402
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool2d_with_indices,
    max_pool3d,
    max_pool3d_with_indices,
    max_unpool1d,
    max_unpool2d,
    max_unpool3d,
)
from ember.nn._functional.upsampling import interpolate, upsample, upsample_bilinear, upsample_nearest  # noqa: E402

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
from ember import conv_tbc  # noqa: E402  (torch.nn.functional.conv_tbc is torch.conv_tbc)
from ember.nn._functional.gumbel import gumbel_softmax  # noqa: E402

__all__ += ["gumbel_softmax"]
__all__ += ["conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
            "fold", "pad", "pixel_shuffle", "pixel_unshuffle", "unfold"]  # conv area

from ember.nn._functional.fractional_pool import (  # noqa: E402
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
)
from ember.nn._functional.grid import (  # noqa: E402
    GRID_SAMPLE_INTERPOLATION_MODES as GRID_SAMPLE_INTERPOLATION_MODES,
)
from ember.nn._functional.grid import (  # noqa: E402
    GRID_SAMPLE_PADDING_MODES as GRID_SAMPLE_PADDING_MODES,
)
from ember.nn._functional.grid import (  # noqa: E402
    affine_grid,
    grid_sample,
)
from ember.nn._functional.loss_linear_cross_entropy import linear_cross_entropy  # noqa: E402
from ember.nn._functional.loss_margin import (  # noqa: E402
    gaussian_nll_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    soft_margin_loss,
    triplet_margin_with_distance_loss,
)
from ember.nn._functional.mha import multi_head_attention_forward  # noqa: E402

__all__ += ["fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
            "fractional_max_pool3d_with_indices"]
__all__ += ["multi_head_attention_forward", "linear_cross_entropy"]
__all__ += ["affine_grid", "grid_sample", "gaussian_nll_loss", "multi_margin_loss", "multilabel_margin_loss",
            "multilabel_soft_margin_loss", "soft_margin_loss", "triplet_margin_with_distance_loss"]

# PyTorch's TypeError for a wrong-typed tensor or flag argument (ember/_argcheck.py). Most of
# torch.nn.functional reaches its parser first; these check values in Python before (dropout's p,
# hardtanh's bounds, batch_norm's eps, the losses' reduction / margin), so are checked after the call.
# Messages name the op PyTorch's parser reports where its function forwards to a differently named one.
from ember._argcheck import check_names as _check_names  # noqa: E402

_VALUES_FIRST = ["affine_grid", "alpha_dropout", "batch_norm", "dropout", "dropout1d", "dropout2d", "dropout3d",
                 "feature_alpha_dropout", "fractional_max_pool2d", "fractional_max_pool2d_with_indices",
                 "fractional_max_pool3d", "fractional_max_pool3d_with_indices", "grid_sample", "hardtanh",
                 "instance_norm", "interpolate", "lp_pool1d", "lp_pool2d", "lp_pool3d", "poisson_nll_loss",
                 "triplet_margin_loss",
                 "upsample", "upsample_bilinear", "upsample_nearest"]
_OP_NAMES = {
    "adaptive_max_pool1d_with_indices": "adaptive_max_pool1d", "affine_grid": "affine_grid_generator",
    "cross_entropy": "cross_entropy_loss",
    "dropout1d": "feature_dropout", "dropout2d": "feature_dropout", "dropout3d": "feature_dropout",
    "fold": "col2im", "grid_sample": "grid_sampler", "logsigmoid": "log_sigmoid", "nll_loss": "nll_loss_nd",
    # lp_pool forwards its flags to the avg pool of x ** p, whose parser names itself
    "lp_pool1d": "avg_pool1d", "lp_pool2d": "avg_pool2d", "lp_pool3d": "avg_pool3d",
    "unfold": "im2col",
}
_check_names(globals(), _VALUES_FIRST, _OP_NAMES, after=True)
# plain Python in PyTorch with no parser behind it (gumbel_softmax takes any truthy `hard`): they check
# their tensors themselves
_UNPARSED = ("gumbel_softmax", "multi_head_attention_forward")
_check_names(globals(), [n for n in list(globals()) if not n.startswith("_") and n not in _UNPARSED], _OP_NAMES)
