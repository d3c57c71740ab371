"""One valid call of every public ``nn.functional`` function, written once for ember and torch.

``CALLS[name](L)`` returns ``(args, kwargs)`` built with library ``L`` (``ember`` or ``torch``):
deterministic inputs, so both libraries see the same values. test_functional_arg_types.py replaces
each tensor (and each flag) in turn with a wrong-typed value and compares the exception with torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Call = Callable[[Any], tuple[list[Any], dict[str, Any]]]


def _x(L: Any, *shape: int) -> Any:
    """A float tensor with distinct, sign-mixed values, the same in both libraries."""
    n = 1
    for s in shape:
        n *= s
    return (L.arange(n, dtype=L.float32).reshape(shape) * 0.37 - n * 0.1).sin()


def _p(L: Any, *shape: int) -> Any:
    """Probabilities in (0, 1)."""
    return _x(L, *shape).sigmoid()


def _i(L: Any, values: list[Any]) -> Any:
    return L.tensor(values)


def _conv(dim: int, transposed: bool = False) -> Call:
    def call(L: Any) -> tuple[list[Any], dict[str, Any]]:
        w = _x(L, 2, 2, *(2,) * dim)
        return [_x(L, 1, 2, *(4,) * dim), w, _x(L, 2)], {"stride": 1}
    return call


def _pool(dim: int, **kw: Any) -> Call:
    return lambda L: ([_x(L, 1, 2, *(4,) * dim), 2], dict(kw))


def _unpool(dim: int) -> Call:
    def call(L: Any) -> tuple[list[Any], dict[str, Any]]:
        pool = getattr(L.nn.functional, f"max_pool{dim}d")
        out, idx = pool(_x(L, 1, 1, *(4,) * dim), 2, return_indices=True)
        return [out, idx, 2], {}
    return call


def _loss2(L: Any) -> tuple[list[Any], dict[str, Any]]:
    return [_x(L, 3, 4), _x(L, 3, 4).cos()], {}


CALLS: dict[str, Call] = {
    # pooling
    "adaptive_avg_pool1d": lambda L: ([_x(L, 1, 2, 6), 3], {}),
    "adaptive_avg_pool2d": lambda L: ([_x(L, 1, 2, 6, 6), 3], {}),
    "adaptive_avg_pool3d": lambda L: ([_x(L, 1, 2, 4, 4, 4), 2], {}),
    "adaptive_max_pool1d": lambda L: ([_x(L, 1, 2, 6), 3], {"return_indices": False}),
    "adaptive_max_pool1d_with_indices": lambda L: ([_x(L, 1, 2, 6), 3], {}),
    "adaptive_max_pool2d": lambda L: ([_x(L, 1, 2, 6, 6), 3], {"return_indices": False}),
    "adaptive_max_pool2d_with_indices": lambda L: ([_x(L, 1, 2, 6, 6), 3], {}),
    "adaptive_max_pool3d": lambda L: ([_x(L, 1, 2, 4, 4, 4), 2], {"return_indices": False}),
    "adaptive_max_pool3d_with_indices": lambda L: ([_x(L, 1, 2, 4, 4, 4), 2], {}),
    "avg_pool1d": _pool(1, ceil_mode=False, count_include_pad=True),
    "avg_pool2d": _pool(2, ceil_mode=False, count_include_pad=True),
    "avg_pool3d": _pool(3, ceil_mode=False, count_include_pad=True),
    "lp_pool1d": lambda L: ([_x(L, 1, 2, 4), 2.0, 2], {"ceil_mode": False}),
    "lp_pool2d": lambda L: ([_x(L, 1, 2, 4, 4), 2.0, 2], {"ceil_mode": False}),
    "lp_pool3d": lambda L: ([_x(L, 1, 2, 4, 4, 4), 2.0, 2], {"ceil_mode": False}),
    "max_pool1d": _pool(1, ceil_mode=False, return_indices=False),
    "max_pool1d_with_indices": _pool(1, ceil_mode=False),
    "max_pool2d": _pool(2, ceil_mode=False, return_indices=False),
    "max_pool2d_with_indices": _pool(2, ceil_mode=False),
    "max_pool3d": _pool(3, ceil_mode=False, return_indices=False),
    "max_pool3d_with_indices": _pool(3, ceil_mode=False),
    "max_unpool1d": _unpool(1),
    "max_unpool2d": _unpool(2),
    "max_unpool3d": _unpool(3),
    # dropout (p=0 or training=False keep the result deterministic)
    "alpha_dropout": lambda L: ([_x(L, 4, 4), 0.5], {"training": False, "inplace": False}),
    "dropout": lambda L: ([_x(L, 4, 4), 0.0], {"training": True, "inplace": False}),
    "dropout1d": lambda L: ([_x(L, 2, 3, 4), 0.0], {"training": True, "inplace": False}),
    "dropout2d": lambda L: ([_x(L, 2, 3, 4, 4), 0.0], {"training": True, "inplace": False}),
    "dropout3d": lambda L: ([_x(L, 2, 3, 2, 2, 2), 0.0], {"training": True, "inplace": False}),
    "feature_alpha_dropout": lambda L: ([_x(L, 2, 3, 4), 0.5], {"training": False, "inplace": False}),
    # normalization
    "batch_norm": lambda L: ([_x(L, 4, 3), L.zeros(3), L.ones(3), _x(L, 3).exp(), _x(L, 3)],
                             {"training": True, "momentum": 0.1, "eps": 1e-5}),
    "group_norm": lambda L: ([_x(L, 2, 4, 3), 2, _x(L, 4).exp(), _x(L, 4)], {"eps": 1e-5}),
    "instance_norm": lambda L: ([_x(L, 2, 3, 4), None, None, _x(L, 3).exp(), _x(L, 3)],
                                {"use_input_stats": True, "momentum": 0.1, "eps": 1e-5}),
    "layer_norm": lambda L: ([_x(L, 2, 3, 4), [4], _x(L, 4).exp(), _x(L, 4)], {"eps": 1e-5}),
    "local_response_norm": lambda L: ([_x(L, 2, 3, 4), 2], {}),
    "rms_norm": lambda L: ([_x(L, 2, 3, 4), [4], _x(L, 4).exp()], {}),
    "normalize": lambda L: ([_x(L, 3, 4)], {"p": 2.0, "dim": 1}),
    # linear / attention / embedding
    "linear": lambda L: ([_x(L, 3, 4), _x(L, 5, 4), _x(L, 5)], {}),
    "bilinear": lambda L: ([_x(L, 3, 4), _x(L, 3, 2), _x(L, 5, 4, 2), _x(L, 5)], {}),
    "scaled_dot_product_attention": lambda L: ([_x(L, 1, 2, 3, 4), _x(L, 1, 2, 3, 4).cos(), _x(L, 1, 2, 3, 4).sin()],
                                               {"is_causal": False}),
    "embedding": lambda L: ([_i(L, [[0, 2], [1, 3]]), _x(L, 4, 3)], {"scale_grad_by_freq": False, "sparse": False}),
    "embedding_bag": lambda L: ([_i(L, [0, 2, 1, 3]), _x(L, 4, 3), _i(L, [0, 2])],
                                {"mode": "mean", "scale_grad_by_freq": False, "sparse": False}),
    "one_hot": lambda L: ([_i(L, [0, 2, 1])], {"num_classes": 4}),
    "cosine_similarity": lambda L: ([_x(L, 3, 4), _x(L, 3, 4).cos()], {"dim": 1}),
    "pairwise_distance": lambda L: ([_x(L, 3, 4), _x(L, 3, 4).cos()], {"keepdim": False}),
    "pdist": lambda L: ([_x(L, 3, 4)], {"p": 2.0}),
    # conv family
    "conv1d": _conv(1),
    "conv2d": _conv(2),
    "conv3d": _conv(3),
    "conv_transpose1d": _conv(1, True),
    "conv_transpose2d": _conv(2, True),
    "conv_transpose3d": _conv(3, True),
    "fold": lambda L: ([_x(L, 1, 4, 4), (3, 3), 2], {}),
    "unfold": lambda L: ([_x(L, 1, 1, 3, 3), 2], {}),
    "pixel_shuffle": lambda L: ([_x(L, 1, 4, 2, 2), 2], {}),
    "pixel_unshuffle": lambda L: ([_x(L, 1, 1, 4, 4), 2], {}),
    "channel_shuffle": lambda L: ([_x(L, 1, 4, 2, 2), 2], {}),
    "native_channel_shuffle": lambda L: ([_x(L, 1, 4, 2, 2), 2], {}),
    "pad": lambda L: ([_x(L, 1, 2, 3), [1, 1]], {"mode": "constant", "value": 0.5}),
    "interpolate": lambda L: ([_x(L, 1, 1, 3)], {"size": 6, "mode": "linear", "align_corners": False}),
    "upsample": lambda L: ([_x(L, 1, 1, 3)], {"size": 6, "mode": "nearest"}),
    "upsample_bilinear": lambda L: ([_x(L, 1, 1, 3, 3)], {"size": 6}),
    "upsample_nearest": lambda L: ([_x(L, 1, 1, 3)], {"size": 6}),
    # losses
    "binary_cross_entropy": lambda L: ([_p(L, 3, 4), _p(L, 3, 4).flip(0), _p(L, 3, 4)], {"reduction": "mean"}),
    "binary_cross_entropy_with_logits": lambda L: ([_x(L, 3, 4), _p(L, 3, 4), _p(L, 3, 4)],
                                                   {"pos_weight": _p(L, 4), "reduction": "mean"}),
    "cosine_embedding_loss": lambda L: ([_x(L, 3, 4), _x(L, 3, 4).cos(), _i(L, [1.0, -1.0, 1.0])], {}),
    "cross_entropy": lambda L: ([_x(L, 3, 4), _i(L, [0, 3, 1]), _p(L, 4)], {"label_smoothing": 0.1}),
    "ctc_loss": lambda L: ([_x(L, 5, 2, 4).log_softmax(2), _i(L, [[1, 2], [3, 1]]), _i(L, [5, 5]), _i(L, [2, 2])],
                           {"zero_infinity": False}),
    "hinge_embedding_loss": lambda L: ([_x(L, 3, 4), _i(L, [[1.0, -1.0, 1.0, -1.0]] * 3)], {}),
    "huber_loss": _loss2,
    "kl_div": lambda L: ([_x(L, 3, 4).log_softmax(1), _p(L, 3, 4)], {"reduction": "batchmean", "log_target": False}),
    "l1_loss": _loss2,
    "margin_ranking_loss": lambda L: ([_x(L, 3), _x(L, 3).cos(), _i(L, [1.0, -1.0, 1.0])], {}),
    "mse_loss": _loss2,
    "nll_loss": lambda L: ([_x(L, 3, 4).log_softmax(1), _i(L, [0, 3, 1]), _p(L, 4)], {"ignore_index": -100}),
    "poisson_nll_loss": lambda L: ([_x(L, 3, 4), _p(L, 3, 4)], {"log_input": True, "full": False}),
    "smooth_l1_loss": _loss2,
    "triplet_margin_loss": lambda L: ([_x(L, 3, 4), _x(L, 3, 4).cos(), _x(L, 3, 4).sin()], {"swap": False}),
    # activations
    "celu": lambda L: ([_x(L, 3, 4)], {"alpha": 1.0, "inplace": False}),
    "celu_": lambda L: ([_x(L, 3, 4)], {}),
    "elu": lambda L: ([_x(L, 3, 4)], {"alpha": 1.0, "inplace": False}),
    "elu_": lambda L: ([_x(L, 3, 4)], {}),
    "gelu": lambda L: ([_x(L, 3, 4)], {"approximate": "tanh"}),
    "glu": lambda L: ([_x(L, 3, 4)], {"dim": -1}),
    "hardshrink": lambda L: ([_x(L, 3, 4)], {"lambd": 0.5}),
    "hardsigmoid": lambda L: ([_x(L, 3, 4)], {"inplace": False}),
    "hardswish": lambda L: ([_x(L, 3, 4)], {"inplace": False}),
    "hardtanh": lambda L: ([_x(L, 3, 4)], {"min_val": -0.5, "max_val": 0.5, "inplace": False}),
    "hardtanh_": lambda L: ([_x(L, 3, 4)], {}),
    "leaky_relu": lambda L: ([_x(L, 3, 4)], {"negative_slope": 0.1, "inplace": False}),
    "leaky_relu_": lambda L: ([_x(L, 3, 4)], {}),
    "log_softmax": lambda L: ([_x(L, 3, 4)], {"dim": 1}),
    "logsigmoid": lambda L: ([_x(L, 3, 4)], {}),
    "mish": lambda L: ([_x(L, 3, 4)], {"inplace": False}),
    "prelu": lambda L: ([_x(L, 3, 4), _p(L, 1)], {}),
    "relu": lambda L: ([_x(L, 3, 4)], {"inplace": False}),
    "relu6": lambda L: ([_x(L, 3, 4)], {"inplace": False}),
    "relu_": lambda L: ([_x(L, 3, 4)], {}),
    "rrelu": lambda L: ([_x(L, 3, 4)], {"training": False, "inplace": False}),
    "rrelu_": lambda L: ([_x(L, 3, 4)], {"training": False}),
    "selu": lambda L: ([_x(L, 3, 4)], {"inplace": False}),
    "selu_": lambda L: ([_x(L, 3, 4)], {}),
    "sigmoid": lambda L: ([_x(L, 3, 4)], {}),
    "silu": lambda L: ([_x(L, 3, 4)], {"inplace": False}),
    "softmax": lambda L: ([_x(L, 3, 4)], {"dim": 1}),
    "softmin": lambda L: ([_x(L, 3, 4)], {"dim": 1}),
    "softplus": lambda L: ([_x(L, 3, 4)], {"beta": 2.0, "threshold": 10.0}),
    "softshrink": lambda L: ([_x(L, 3, 4)], {"lambd": 0.5}),
    "softsign": lambda L: ([_x(L, 3, 4)], {}),
    "tanh": lambda L: ([_x(L, 3, 4)], {}),
    "tanhshrink": lambda L: ([_x(L, 3, 4)], {}),
    "threshold": lambda L: ([_x(L, 3, 4), 0.1, 20.0], {"inplace": False}),
    "threshold_": lambda L: ([_x(L, 3, 4), 0.1, 20.0], {}),
}

CALLS.update({  # the margin / likelihood losses of _functional/loss_margin.py, affine_grid
    "affine_grid": lambda L: ([_x(L, 2, 2, 3), [2, 1, 3, 4]], {"align_corners": False}),
    "gaussian_nll_loss": lambda L: ([_x(L, 3, 4), _x(L, 3, 4).cos(), _x(L, 3, 4).exp()], {"full": True}),
    "multi_margin_loss": lambda L: ([_x(L, 3, 4), _i(L, [1, 0, 3])], {"weight": _x(L, 4).exp()}),
    "multilabel_margin_loss": lambda L: ([_x(L, 2, 4), _i(L, [[3, 0, -1, 1], [1, 2, 3, -1]])], {}),
    "multilabel_soft_margin_loss": lambda L: ([_x(L, 3, 4), _p(L, 3, 4).round()], {"weight": _x(L, 4).exp()}),
    "soft_margin_loss": lambda L: ([_x(L, 3, 4), _x(L, 3, 4).sign()], {}),
    "triplet_margin_with_distance_loss": lambda L: ([_x(L, 3, 4), _x(L, 3, 4).cos(), _x(L, 3, 4).sin()],
                                                    {"swap": True}),
})

CALLS.update({  # grid_sample, fractional max pooling, gumbel_softmax, conv_tbc, multi_head_attention_forward
    "grid_sample": lambda L: ([_x(L, 1, 2, 4, 5), _x(L, 1, 3, 2, 2)], {"mode": "bilinear", "align_corners": False}),
    "fractional_max_pool2d": lambda L: ([_x(L, 1, 2, 6, 6), 2], {"output_size": 3,
                                                                 "_random_samples": _p(L, 1, 2, 2)}),
    "fractional_max_pool2d_with_indices": lambda L: ([_x(L, 1, 2, 6, 6), 2], {"output_size": 3,
                                                                              "_random_samples": _p(L, 1, 2, 2)}),
    "fractional_max_pool3d": lambda L: ([_x(L, 1, 2, 4, 4, 4), 2], {"output_size": 2,
                                                                    "_random_samples": _p(L, 1, 2, 3)}),
    "fractional_max_pool3d_with_indices": lambda L: ([_x(L, 1, 2, 4, 4, 4), 2],
                                                     {"output_size": 2, "_random_samples": _p(L, 1, 2, 3)}),
    # logits far apart: the sample's argmax (and so the hard result) does not depend on the noise
    "gumbel_softmax": lambda L: ([_x(L, 3, 4) * 1000], {"tau": 0.5, "hard": True}),
    "conv_tbc": lambda L: ([_x(L, 5, 2, 3), _x(L, 2, 3, 4), _x(L, 4)], {}),
    "multi_head_attention_forward": lambda L: ([_x(L, 3, 2, 4), _x(L, 3, 2, 4), _x(L, 3, 2, 4), 4, 2, _x(L, 12, 4),
                                                _x(L, 12), None, None, False, 0.0, _x(L, 4, 4), _x(L, 4)],
                                               {"need_weights": True}),
    "linear_cross_entropy": lambda L: ([_x(L, 3, 4), _x(L, 5, 4), _i(L, [0, 4, 2])], {"linear_bias": _x(L, 5)}),
})

