"""One valid call of every Python-level top-level function (``torch.trace``, ``torch.dropout``, ...),
written once for ember and torch: ``CALLS[name](L)`` returns ``(args, kwargs)`` built with library ``L``.
test_argument_types.py replaces each tensor and each flag in turn with a wrong-typed value."""

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


def _spd(L: Any) -> Any:
    a = _x(L, 3, 3)
    return a @ a.T + 3 * L.eye(3)


def _pool(L: Any) -> tuple[list[Any], dict[str, Any]]:
    return [_x(L, 1, 2, 6), 2, 2, 0, 1, False], {}


def _pool2(L: Any) -> tuple[list[Any], dict[str, Any]]:
    return [_x(L, 1, 2, 4, 4), 2, 2, 0, 1, False], {}


def _drop(L: Any) -> tuple[list[Any], dict[str, Any]]:
    return [_x(L, 2, 3, 4), 0.0, True], {}


CALLS: dict[str, Call] = {
    "adaptive_avg_pool1d": lambda L: ([_x(L, 1, 2, 6), 3], {}),
    "adaptive_max_pool1d": lambda L: ([_x(L, 1, 2, 6), 3], {}),
    "alpha_dropout": _drop,
    "alpha_dropout_": _drop,
    "avg_pool1d": lambda L: ([_x(L, 1, 2, 6), 2, 2, 0, False, True], {}),
    "bilinear": lambda L: ([_x(L, 3, 4), _x(L, 3, 2), _x(L, 5, 4, 2), _x(L, 5)], {}),
    "binary_cross_entropy_with_logits": lambda L: ([_x(L, 3, 4), _x(L, 3, 4).sigmoid(), _x(L, 4).exp(),
                                                    _x(L, 4).exp(), 1], {}),
    "cdist": lambda L: ([_x(L, 3, 4), _x(L, 2, 4)], {}),
    "celu": lambda L: ([_x(L, 3, 4), 1.0], {}),
    "celu_": lambda L: ([_x(L, 3, 4), 1.0], {}),
    "chain_matmul": lambda L: ([_x(L, 2, 3), _x(L, 3, 4), _x(L, 4, 2)], {}),
    "channel_shuffle": lambda L: ([_x(L, 1, 4, 2, 2), 2], {}),
    "cholesky_inverse": lambda L: ([L.linalg.cholesky(_spd(L)), False], {}),
    "cholesky_solve": lambda L: ([_x(L, 3, 2), L.linalg.cholesky(_spd(L)), False], {}),
    "cosine_embedding_loss": lambda L: ([_x(L, 3, 4), _x(L, 3, 4).cos(), L.tensor([1.0, -1.0, 1.0]), 0.0, 1], {}),
    "cosine_similarity": lambda L: ([_x(L, 3, 4), _x(L, 3, 4).cos(), 1, 1e-8], {}),
    "cross": lambda L: ([_x(L, 2, 3), _x(L, 2, 3).cos()], {"dim": 1}),
    "ctc_loss": lambda L: ([_x(L, 5, 2, 4).log_softmax(2), L.tensor([[1, 2], [3, 1]]), L.tensor([5, 5]),
                            L.tensor([2, 2]), 0, 1, False], {}),
    "cumulative_trapezoid": lambda L: ([_x(L, 3, 4), _x(L, 3, 4).cumsum(1)], {"dim": 1}),
    "det": lambda L: ([_spd(L)], {}),
    "dropout": _drop,
    "dropout_": _drop,
    "einsum": lambda L: (["ij,jk->ik", _x(L, 2, 3), _x(L, 3, 4)], {}),
    "embedding_bag": lambda L: ([_x(L, 4, 3), L.tensor([0, 2, 1, 3]), L.tensor([0, 2]), False, 1, False, None,
                                 False], {}),
    "feature_alpha_dropout": _drop,
    "feature_alpha_dropout_": _drop,
    "feature_dropout": _drop,
    "feature_dropout_": _drop,
    "frobenius_norm": lambda L: ([_x(L, 3, 4), [0, 1], False], {}),
    "hardshrink": lambda L: ([_x(L, 3, 4), 0.5], {}),
    "hinge_embedding_loss": lambda L: ([_x(L, 3, 4), L.tensor([[1.0, -1.0, 1.0, -1.0]] * 3), 1.0, 1], {}),
    "instance_norm": lambda L: ([_x(L, 2, 3, 4), None, None, None, None, True, 0.1, 1e-5, False], {}),
    "inverse": lambda L: ([_spd(L)], {}),
    "is_complex": lambda L: ([_x(L, 2)], {}),
    "is_floating_point": lambda L: ([_x(L, 2)], {}),
    "is_nonzero": lambda L: ([_x(L, 1)], {}),
    "kl_div": lambda L: ([_x(L, 3, 4).log_softmax(1), _x(L, 3, 4).softmax(1), 1], {"log_target": False}),
    "kron": lambda L: ([_x(L, 2, 2), _x(L, 2, 3)], {}),
    "logdet": lambda L: ([_spd(L)], {}),
    "logit": lambda L: ([_x(L, 3, 4).sigmoid(), 1e-6], {}),
    "margin_ranking_loss": lambda L: ([_x(L, 3), _x(L, 3).cos(), L.tensor([1.0, -1.0, 1.0]), 0.0, 1], {}),
    "matrix_power": lambda L: ([_spd(L), 3], {}),
    "max_pool1d": _pool,
    "max_pool1d_with_indices": _pool,
    "max_pool2d": _pool2,
    "max_pool3d": lambda L: ([_x(L, 1, 1, 4, 4, 4), 2, 2, 0, 1, False], {}),
    "native_batch_norm": lambda L: ([_x(L, 4, 3), L.ones(3), L.zeros(3), L.zeros(3), L.ones(3), True, 0.1, 1e-5],
                                    {}),
    "native_channel_shuffle": lambda L: ([_x(L, 1, 4, 2, 2), 2], {}),
    "native_group_norm": lambda L: ([_x(L, 2, 4, 3), L.ones(4), L.zeros(4), 2, 4, 3, 2, 1e-5], {}),
    "native_layer_norm": lambda L: ([_x(L, 2, 3, 4), [4], L.ones(4), L.zeros(4), 1e-5], {}),
    "native_norm": lambda L: ([_x(L, 3, 4)], {}),
    "nonzero": lambda L: ([_x(L, 3, 4)], {"as_tuple": True}),
    "nuclear_norm": lambda L: ([_x(L, 3, 4)], {"keepdim": False}),
    "numel": lambda L: ([_x(L, 3, 4)], {}),
    "pairwise_distance": lambda L: ([_x(L, 3, 4), _x(L, 3, 4).cos(), 2.0, 1e-6, False], {}),
    "pdist": lambda L: ([_x(L, 3, 4), 2.0], {}),
    "poisson_nll_loss": lambda L: ([_x(L, 3, 4), _x(L, 3, 4).sigmoid(), True, False, 1e-8, 1], {}),
    "prelu": lambda L: ([_x(L, 3, 4), L.tensor([0.25])], {}),
    "qr": lambda L: ([_x(L, 3, 3), True], {}),
    "relu_": lambda L: ([_x(L, 3, 4)], {}),
    "rms_norm": lambda L: ([_x(L, 2, 3, 4), [4], _x(L, 4).exp()], {}),
    "rrelu": lambda L: ([_x(L, 3, 4), 0.125, 0.25, False], {}),
    "rrelu_": lambda L: ([_x(L, 3, 4), 0.125, 0.25, False], {}),
    "selu": lambda L: ([_x(L, 3, 4)], {}),
    "selu_": lambda L: ([_x(L, 3, 4)], {}),
    "slogdet": lambda L: ([_spd(L)], {}),
    "svd": lambda L: ([_x(L, 3, 3), True, True], {}),
    "tensor": lambda L: ([[1.0, 2.0]], {"requires_grad": False, "pin_memory": False}),
    "tensordot": lambda L: ([_x(L, 2, 3), _x(L, 3, 4)], {"dims": 1}),
    "threshold": lambda L: ([_x(L, 3, 4), 0.1, 20.0], {}),
    "threshold_": lambda L: ([_x(L, 3, 4), 0.1, 20.0], {}),
    "trace": lambda L: ([_x(L, 3, 3)], {}),
    "trapezoid": lambda L: ([_x(L, 3, 4), _x(L, 3, 4).cumsum(1)], {"dim": 1}),
    "triplet_margin_loss": lambda L: ([_x(L, 3, 4), _x(L, 3, 4).cos(), _x(L, 3, 4).sin(), 1.0, 2.0, 1e-6, False,
                                       1], {}),
    "where": lambda L: ([_x(L, 3, 4) > 0], {}),
}


def _i(L: Any, *values: int) -> Any:
    return L.tensor(values, dtype=L.int64)


# The composite ops of ember/_composite_*.py (test_composite_parity.py has their value and gradient cases).
CALLS.update({
    "addbmm": lambda L: ([_x(L, 2, 4), _x(L, 3, 2, 5), _x(L, 3, 5, 4)], {}),
    "addmv": lambda L: ([_x(L, 3), _x(L, 3, 4), _x(L, 4)], {}),
    "addmv_": lambda L: ([_x(L, 3), _x(L, 3, 4), _x(L, 4)], {}),
    "addr": lambda L: ([_x(L, 3, 4), _x(L, 3), _x(L, 4)], {}),
    "alias_copy": lambda L: ([_x(L, 3, 4)], {}),
    "as_strided_copy": lambda L: ([_x(L, 3, 4), (2, 2), (1, 4), 1], {}),
    "as_strided_scatter": lambda L: ([_x(L, 3, 4), _x(L, 2, 2), (2, 2), (4, 1), 1], {}),
    "block_diag": lambda L: ([_x(L, 2, 3), _x(L, 3)], {}),
    "cartesian_prod": lambda L: ([_x(L, 2), _x(L, 3)], {}),
    "column_stack": lambda L: ([[_x(L, 3), _x(L, 3, 2)]], {}),
    "combinations": lambda L: ([_x(L, 4), 2, False], {}),
    "corrcoef": lambda L: ([_x(L, 3, 5)], {}),
    "cov": lambda L: ([_x(L, 3, 5)], {"correction": 1, "fweights": _i(L, 1, 2, 1, 1, 3), "aweights": _x(L, 5).abs()}),
    "cummax": lambda L: ([_x(L, 3, 4), 1], {}),
    "cummin": lambda L: ([_x(L, 3, 4), 0], {}),
    "detach_copy": lambda L: ([_x(L, 3, 4)], {}),
    "diagflat": lambda L: ([_x(L, 3), 1], {}),
    "diagonal_copy": lambda L: ([_x(L, 3, 4), 1], {}),
    "diagonal_scatter": lambda L: ([_x(L, 3, 4), _x(L, 3), 1], {}),
    "diff": lambda L: ([_x(L, 3, 4), 1, -1, _x(L, 3, 1), _x(L, 3, 2)], {}),
    "dist": lambda L: ([_x(L, 3, 4), _x(L, 4), 3], {}),
    "dsplit": lambda L: ([_x(L, 1, 2, 4), 2], {}),
    "erfinv": lambda L: ([_x(L, 3, 4)], {}),
    "expand_copy": lambda L: ([_x(L, 3, 1), (3, 4)], {}),
    "float_power": lambda L: ([_x(L, 3).abs(), _x(L, 3)], {}),
    "frexp": lambda L: ([_x(L, 3, 4)], {}),
    "gcd": lambda L: ([_i(L, 12, 18), _i(L, 8, 27)], {}),
    "gcd_": lambda L: ([_i(L, 12, 18), _i(L, 8, 27)], {}),
    "gradient": lambda L: ([_x(L, 3, 4)], {"edge_order": 1}),
    "histogram": lambda L: ([_x(L, 3, 4), 4], {"weight": _x(L, 3, 4).abs(), "density": False}),
    "hsplit": lambda L: ([_x(L, 2, 6), 3], {}),
    "inner": lambda L: ([_x(L, 2, 3), _x(L, 4, 3)], {}),
    "isin": lambda L: ([_i(L, 1, 2, 3), _i(L, 2, 5)], {"assume_unique": False, "invert": False}),
    "lcm": lambda L: ([_i(L, 12, 18), _i(L, 8, 27)], {}),
    "lcm_": lambda L: ([_i(L, 12, 18), _i(L, 8, 27)], {}),
    "ldexp": lambda L: ([_x(L, 3), _i(L, 1, 2, 3)], {}),
    "ldexp_": lambda L: ([_x(L, 3), _i(L, 1, 2, 3)], {}),
    "logcumsumexp": lambda L: ([_x(L, 3, 4), 1], {}),
    "logit_": lambda L: ([_x(L, 3, 4).abs(), 0.1], {}),
    "nan_to_num": lambda L: ([_x(L, 3, 4) / 0], {}),
    "nan_to_num_": lambda L: ([_x(L, 3, 4) / 0], {}),
    "norm": lambda L: ([_x(L, 3, 4), "fro", (0, 1), False], {}),
    "std_mean": lambda L: ([_x(L, 3, 4), 1], {"keepdim": True}),
    "var_mean": lambda L: ([_x(L, 3, 4), 1], {"keepdim": True}),
    "tensor_split": lambda L: ([_x(L, 3, 4), 2, 1], {}),
    "nanquantile": lambda L: ([_x(L, 3, 4), 0.3, 1, False], {}),
    "narrow_copy": lambda L: ([_x(L, 3, 4), 1, 1, 2], {}),
    "nextafter": lambda L: ([_x(L, 3), _x(L, 3).cos()], {}),
    "permute_copy": lambda L: ([_x(L, 2, 3, 4), (2, 0, 1)], {}),
    "positive": lambda L: ([_x(L, 3)], {}),
    "quantile": lambda L: ([_x(L, 3, 4), _x(L, 2).abs(), 1, True], {}),
    "renorm": lambda L: ([_x(L, 3, 4), 2, 0, 0.5], {}),
    "scalar_tensor": lambda L: ([2.5], {"pin_memory": False}),
    "select_copy": lambda L: ([_x(L, 3, 4), 1, 2], {}),
    "select_scatter": lambda L: ([_x(L, 3, 4), _x(L, 3), 1, 2], {}),
    "sgn": lambda L: ([_x(L, 3)], {}),
    "sinc": lambda L: ([_x(L, 3)], {}),
    "sinc_": lambda L: ([_x(L, 3)], {}),
    "slice_copy": lambda L: ([_x(L, 3, 4), 1, 1, 4, 2], {}),
    "slice_scatter": lambda L: ([_x(L, 3, 4), _x(L, 3, 2), 1, 0, 4, 2], {}),
    "split_copy": lambda L: ([_x(L, 5, 2), 2], {}),
    "split_with_sizes_copy": lambda L: ([_x(L, 5, 2), [1, 4]], {}),
    "squeeze_copy": lambda L: ([_x(L, 3, 1, 2)], {}),
    "t_copy": lambda L: ([_x(L, 3, 4)], {}),
    "transpose_copy": lambda L: ([_x(L, 2, 3, 4), 0, 2], {}),
    "tril_indices": lambda L: ([3, 4, 0], {"pin_memory": False}),
    "triu_indices": lambda L: ([3, 4, 1], {"pin_memory": False}),
    "unbind_copy": lambda L: ([_x(L, 3, 2), 1], {}),
    "unfold_copy": lambda L: ([_x(L, 7), 0, 3, 2], {}),
    "unsqueeze_copy": lambda L: ([_x(L, 3), 0], {}),
    "vander": lambda L: ([_x(L, 4), 3, True], {}),
    "vdot": lambda L: ([_x(L, 4), _x(L, 4).cos()], {}),
    "view_copy": lambda L: ([_x(L, 3, 4), (2, 6)], {}),
    "vsplit": lambda L: ([_x(L, 4, 2), [1]], {}),
})
