"""Fuzz: every public ``ember.nn.functional`` function on mutated calls, against PyTorch.

Each function has one or more valid seed calls below; hypothesis mutates them (shapes, zero-size
and 0-d tensors, dtypes, layouts, NaN/inf, edge and absurd numbers) as core's fuzz_props.py
describes, and ember must agree with PyTorch on values, dtype, shape and exception type.
ember runs in a worker subprocess: a crash or hang fails the property with the call.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("hypothesis")

import ember.nn.functional as F  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_CORE_TESTS = Path(__file__).resolve().parents[2] / "core" / "tests"


def _core_helper(name: str) -> Any:
    """A module of core's tests folder by name: `sibling` first, which core's conftest registers only
    when core's tests run in the same pytest process."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, _CORE_TESTS / f"{name}.py")
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


_core_helper("sibling")
FP = _core_helper("fuzz_props")
TS, DS = FP.TS, FP.DS
PENDING = FP.S.load("fuzz_pending").FUNCTIONAL  # red targets: see core's fuzz_pending.py
RUN_ALL = bool(os.environ.get("EMBER_FUZZ_ALL"))

EXAMPLES = 40  # per function


def t(*shape: int, dtype: str = "float32", dom: str = "default", values: tuple | None = None
      ) -> Any:
    return TS(tuple(shape), dtype, dom, values=values)


def idx(*values: int, shape: tuple | None = None) -> Any:
    return TS(shape or (len(values),), "int64", values=tuple(values))


x2, x3, x4, x5 = t(3, 4), t(2, 3, 5), t(2, 3, 6, 6), t(1, 2, 4, 4, 4)
probs = t(3, 4, values=(0.1, 0.5, 0.9, 0.3, 0.0, 1.0))
sign = t(3, 4, values=(1.0, -1.0, 1.0))
pos = t(3, 4, dom="positive")

ACTIVATIONS = ["hardsigmoid", "hardswish", "mish", "relu", "relu6", "selu", "silu", "sigmoid",
               "tanh", "tanhshrink", "softsign", "logsigmoid", "relu_", "selu_"]
SEEDS: dict[str, list] = {n: [((x2,), {})] for n in ACTIVATIONS}
for _n in ("hardsigmoid", "hardswish", "mish", "relu", "relu6", "selu", "silu"):
    SEEDS[_n].append(((x2,), {"inplace": False}))
SEEDS.update({
    "celu": [((x2,), {"alpha": 1.0, "inplace": False})], "celu_": [((x2,), {"alpha": 1.0})],
    "elu": [((x2,), {"alpha": 1.0, "inplace": False})], "elu_": [((x2,), {"alpha": 1.0})],
    "gelu": [((x2,), {}), ((x2,), {"approximate": "tanh"}), ((t(4, 16),), {})],
    "glu": [((x2,), {"dim": -1})],
    "hardshrink": [((x2,), {"lambd": 0.5})], "softshrink": [((x2,), {"lambd": 0.5})],
    "hardtanh": [((x2,), {"min_val": -1.0, "max_val": 1.0, "inplace": False})],
    "hardtanh_": [((x2,), {"min_val": -1.0, "max_val": 1.0})],
    "leaky_relu": [((x2,), {"negative_slope": 0.01, "inplace": False})],
    "leaky_relu_": [((x2,), {"negative_slope": 0.01})],
    "rrelu": [((x2,), {"lower": 0.125, "upper": 0.25, "training": False})],
    "rrelu_": [((x2,), {"lower": 0.125, "upper": 0.25, "training": False})],
    "softplus": [((x2,), {"beta": 1.0, "threshold": 20.0})],
    "threshold": [((x2, 0.5, -1.0), {"inplace": False})], "threshold_": [((x2, 0.5, -1.0), {})],
    "prelu": [((t(2, 3, 4), t(3)), {}), ((x2, t(1)), {})],
    "softmax": [((x2,), {"dim": 1}), ((x3,), {"dim": 0, "dtype": DS("float64")})],
    "log_softmax": [((x2,), {"dim": 1}), ((x3,), {"dim": -1, "dtype": DS("float64")})],
    "softmin": [((x2,), {"dim": 1})],
    "normalize": [((x2,), {"p": 2.0, "dim": 1, "eps": 1e-12}), ((x3,), {"p": 1.0, "dim": 0})],
    "linear": [((t(2, 4), t(3, 4), t(3)), {}), ((t(4), t(3, 4)), {})],
    "bilinear": [((t(2, 3), t(2, 4), t(5, 3, 4), t(5)), {})],
    "conv1d": [((t(2, 3, 8), t(4, 3, 3), t(4)), {"stride": 1, "padding": 1, "dilation": 1,
                                                  "groups": 1})],
    "conv2d": [((x4, t(4, 3, 3, 3), t(4)), {"stride": 2, "padding": 1, "dilation": 1,
                                             "groups": 1}),
               ((x4, t(3, 1, 3, 3)), {"padding": "same", "groups": 3})],
    "conv3d": [((x5, t(3, 2, 2, 2, 2)), {"stride": 1, "padding": 0})],
    "conv_transpose1d": [((t(2, 3, 5), t(3, 4, 3), t(4)), {"stride": 2, "padding": 1,
                                                           "output_padding": 1})],
    "conv_transpose2d": [((t(1, 3, 4, 4), t(3, 2, 3, 3)), {"stride": 2, "padding": 1,
                                                           "output_padding": 1, "groups": 1,
                                                           "dilation": 1})],
    "conv_transpose3d": [((t(1, 2, 3, 3, 3), t(2, 2, 2, 2, 2)), {"stride": 1})],
    "unfold": [((t(2, 3, 5, 5),), {"kernel_size": (2, 2), "dilation": 1, "padding": 0,
                                   "stride": 1})],
    "fold": [((t(2, 12, 16),), {"output_size": (5, 5), "kernel_size": (2, 2), "stride": 1})],
    "embedding": [((idx(0, 1, 2, 3, 4, 0, shape=(2, 3)), t(5, 4)), {"padding_idx": None}),
                  ((idx(0, 1, 2, 3), t(5, 4)), {"padding_idx": 1}),
                  ((idx(0, 1, 3), t(5, 4)), {"max_norm": 1.0, "norm_type": 2.0})],  # renorms w
    "embedding_bag": [((idx(0, 1, 2, 3, 4, 0), t(5, 4), idx(0, 3)), {"mode": "mean"}),
                      ((idx(0, 1, 2, 3, 4, 0), t(5, 4), idx(0, 2)), {"mode": "max"})],
    "one_hot": [((idx(0, 2, 1, 3),), {"num_classes": 5}), ((idx(0, 2, 1, 3),), {})],
    "pad": [((t(2, 3, 4), (1, 2)), {"mode": "constant", "value": 0.5}),
            ((t(1, 2, 5), (2, 1)), {"mode": "reflect"}),
            ((t(1, 2, 3, 4), (1, 1, 2, 0)), {"mode": "replicate"}),
            ((t(1, 2, 5), (1, 1)), {"mode": "circular"}),
            ((x5, (1, 1, 1, 0, 0, 1)), {"mode": "replicate"})],
    "pixel_shuffle": [((t(1, 8, 2, 3), 2), {})], "pixel_unshuffle": [((t(1, 2, 4, 6), 2), {})],
    "channel_shuffle": [((t(1, 6, 2, 2), 3), {})],
    "native_channel_shuffle": [((t(1, 6, 2, 2), 3), {})],
    "interpolate": [((t(1, 2, 4),), {"scale_factor": 2.0, "mode": "nearest"}),
                    ((x4,), {"size": (4, 5), "mode": "bilinear", "align_corners": False}),
                    ((x4,), {"scale_factor": 1.5, "mode": "bicubic", "align_corners": True}),
                    ((t(1, 1, 2, 3, 4),), {"scale_factor": 2, "mode": "trilinear"}),
                    ((t(1, 2, 5),), {"size": 7, "mode": "nearest-exact"}),
                    ((t(1, 2, 6),), {"size": 4, "mode": "area"}),
                    ((t(1, 2, 5),), {"size": 8, "mode": "linear"})],
    "upsample": [((t(1, 2, 4),), {"scale_factor": 2.0})],
    "upsample_nearest": [((t(1, 2, 3, 3),), {"scale_factor": 2})],
    "upsample_bilinear": [((t(1, 2, 3, 3),), {"size": (4, 5)})],
    "scaled_dot_product_attention": [
        ((t(2, 3, 4, 8), t(2, 3, 5, 8), t(2, 3, 5, 8)),
         {"attn_mask": None, "dropout_p": 0.0, "is_causal": False, "scale": None}),
        ((t(2, 3, 4, 8), t(2, 3, 4, 8), t(2, 3, 4, 8)), {"is_causal": True}),
        ((t(1, 2, 4, 8), t(1, 2, 5, 8), t(1, 2, 5, 8)), {"attn_mask": t(4, 5, dtype="bool")})],
    "cosine_similarity": [((x2, x2), {"dim": 1, "eps": 1e-8})],
    "pairwise_distance": [((x2, x2), {"p": 2.0, "eps": 1e-6, "keepdim": False})],
    "pdist": [((t(4, 3),), {"p": 2.0})],
    "avg_pool1d": [((t(2, 3, 8),), {"kernel_size": 3, "stride": 2, "padding": 1,
                                    "ceil_mode": False, "count_include_pad": True})],
    "avg_pool2d": [((x4,), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                            "count_include_pad": False, "divisor_override": None})],
    "avg_pool3d": [((x5,), {"kernel_size": 2, "stride": 2})],
    "local_response_norm": [((t(2, 4, 5), 3), {"alpha": 1e-4, "beta": 0.75, "k": 1.0})],
    "batch_norm": [((t(4, 3, 5), t(3), t(3, dom="positive"), t(3), t(3)),
                    {"training": False, "momentum": 0.1, "eps": 1e-5}),
                   ((t(4, 3), t(3), t(3, dom="positive")), {"training": True})],
    "instance_norm": [((x3,), {"weight": t(3), "bias": t(3), "use_input_stats": True,
                               "eps": 1e-5})],
    "layer_norm": [((t(2, 3, 4), (4,), t(4), t(4)), {"eps": 1e-5})],
    "group_norm": [((t(2, 4, 3), 2, t(4), t(4)), {"eps": 1e-5})],
    "rms_norm": [((t(2, 3, 4), (3, 4), t(3, 4)), {"eps": None})],
    "binary_cross_entropy": [((probs, probs), {"reduction": "mean"})],
    "binary_cross_entropy_with_logits": [((x2, probs), {"pos_weight": t(4, dom="positive"),
                                                        "reduction": "sum"})],
    "cosine_embedding_loss": [((x2, x2, t(3, values=(1.0, -1.0, 1.0))), {"margin": 0.0})],
    "cross_entropy": [((t(3, 5), idx(0, 4, 2)), {"ignore_index": -100, "reduction": "mean",
                                                 "label_smoothing": 0.0}),
                      ((t(3, 5), t(3, 5, dom="positive")), {"weight": t(5, dom="positive")}),
                      ((t(3, 5), idx(0, 4, 2)), {"label_smoothing": 0.1, "reduction": "none"})],
    "ctc_loss": [((t(6, 2, 4), idx(1, 2, 3, 1, 1, 2, shape=(2, 3)), idx(6, 5), idx(3, 2)),
                  {"blank": 0, "reduction": "mean", "zero_infinity": False})],
    "hinge_embedding_loss": [((x2, sign), {"margin": 1.0})],
    "huber_loss": [((x2, x2), {"reduction": "mean", "delta": 1.0})],
    "kl_div": [((x2, pos), {"reduction": "batchmean", "log_target": False})],
    "l1_loss": [((x2, x2), {"reduction": "none"})],
    "mse_loss": [((x2, x2), {"reduction": "sum"})],
    "smooth_l1_loss": [((x2, x2), {"reduction": "mean", "beta": 1.0})],
    "margin_ranking_loss": [((t(4), t(4), t(4, values=(1.0, -1.0))), {"margin": 0.0})],
    "nll_loss": [((t(3, 5), idx(0, 4, 2)), {"ignore_index": -100, "reduction": "mean"}),
                 ((t(2, 3, 2, 2), idx(0, 1, 2, 1, shape=(2, 2, 2))), {"weight": t(3)}),
                 ((t(3, 5), idx(0, 4, 1)), {"ignore_index": 1, "reduction": "none"})],
    "poisson_nll_loss": [((x2, pos), {"log_input": True, "full": False, "eps": 1e-8})],
    "triplet_margin_loss": [((x2, x2, x2), {"margin": 1.0, "p": 2.0, "eps": 1e-6,
                                            "swap": False})],
})
for _d, _x, _k in ((1, t(2, 3, 8), 3), (2, x4, 3), (3, x5, 2)):
    SEEDS[f"max_pool{_d}d"] = [((_x,), {"kernel_size": _k, "stride": 2, "padding": 1,
                                        "dilation": 1, "ceil_mode": False})]
    SEEDS[f"max_pool{_d}d_with_indices"] = [((_x,), {"kernel_size": _k, "stride": 2,
                                                     "ceil_mode": True, "return_indices": True})]
    SEEDS[f"adaptive_avg_pool{_d}d"] = [((_x, 3), {})]
    SEEDS[f"adaptive_max_pool{_d}d"] = [((_x, 3), {"return_indices": False})]
    SEEDS[f"adaptive_max_pool{_d}d_with_indices"] = [((_x, 2), {"return_indices": True})]
    SEEDS[f"lp_pool{_d}d"] = [((_x, 2.0, 2), {"stride": 2, "ceil_mode": False})]
SEEDS.update({  # the margin / likelihood losses and affine_grid (_functional/loss_margin.py, grid.py)
    "soft_margin_loss": [((x2, sign), {"reduction": "mean"})],
    "multilabel_soft_margin_loss": [((x2, probs), {"weight": t(4), "reduction": "sum"})],
    "multi_margin_loss": [((x2, idx(1, 0, 3)), {"p": 1, "margin": 1.0, "reduction": "mean"})],
    "multilabel_margin_loss": [((x2, idx(3, 0, -1, 1, 1, 2, 3, 0, -1, 1, 1, 1, shape=(3, 4))),
                                {"reduction": "none"})],
    "gaussian_nll_loss": [((x2, x2, pos), {"full": False, "eps": 1e-6, "reduction": "mean"})],
    "triplet_margin_with_distance_loss": [((x2, x2, x2), {"margin": 1.0, "swap": False, "reduction": "mean"})],
    "affine_grid": [((t(2, 2, 3), [2, 1, 3, 4]), {"align_corners": False})],
})
SEEDS.update({  # grid.py, fractional_pool.py, gumbel.py, conv_tbc, mha.py
    "grid_sample": [((x4, t(2, 3, 2, 2)), {"mode": "bilinear", "padding_mode": "zeros", "align_corners": False}),
                    ((x4, t(2, 2, 3, 2)), {"mode": "bicubic", "padding_mode": "reflection", "align_corners": True})],
    "fractional_max_pool2d": [((x4, 2), {"output_size": 2, "_random_samples": t(2, 3, 2, values=(0.1, 0.5, 0.9, 0.3, 0.7, 0.2))})],
    "fractional_max_pool2d_with_indices": [((x4, 2), {"output_size": 2, "_random_samples": t(2, 3, 2, values=(0.1, 0.5, 0.9, 0.3, 0.7, 0.2))})],
    "fractional_max_pool3d": [((x5, 2), {"output_size": 1, "_random_samples": t(1, 2, 3, values=(0.1, 0.5, 0.9, 0.3, 0.7, 0.2))})],
    "fractional_max_pool3d_with_indices": [((x5, 2), {"output_size": 1,
                                                      "_random_samples": t(1, 2, 3, values=(0.1, 0.5, 0.9, 0.3, 0.7, 0.2))})],
    "gumbel_softmax": [((x2,), {"tau": 1.0, "hard": False, "dim": -1})],
    "conv_tbc": [((t(5, 2, 3), t(2, 3, 4), t(4)), {"pad": 1})],
    "multi_head_attention_forward": [((t(3, 2, 4), t(3, 2, 4), t(3, 2, 4), 4, 2, t(12, 4), t(12), None, None,
                                       False, 0.0, t(4, 4), t(4)), {"need_weights": True})],
    "linear_cross_entropy": [((t(3, 4), t(5, 4), idx(0, 4, 2)), {"linear_bias": t(5), "reduction": "mean"})],
})
SEEDS["max_unpool1d"] = [((t(1, 1, 4), idx(1, 2, 5, 7, shape=(1, 1, 4)), 2), {})]
SEEDS["max_unpool2d"] = [((t(1, 1, 2, 2), idx(0, 3, 9, 14, shape=(1, 1, 2, 2)), 2), {})]
SEEDS["max_unpool3d"] = [((t(1, 1, 1, 1, 2), idx(0, 3, shape=(1, 1, 1, 1, 2)), 2), {})]
for _n in ("dropout", "alpha_dropout", "feature_alpha_dropout"):
    SEEDS[_n] = [((x3,), {"p": 0.5, "training": False}), ((x3,), {"p": 0.5, "training": True})]
for _d, _x in ((1, x3), (2, x4), (3, x5)):
    SEEDS[f"dropout{_d}d"] = [((_x,), {"p": 0.5, "training": False})]
RANDOM = {"gumbel_softmax", "dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d",
          "dropout3d", "rrelu", "rrelu_"}


def public_functions() -> list[str]:
    return sorted(n for n in dir(F) if not n.startswith("_") and callable(getattr(F, n))
                  and not inspect.isclass(getattr(F, n)) and not inspect.ismodule(getattr(F, n)))


def test_every_public_function_has_a_seed() -> None:
    missing = [n for n in public_functions() if n not in SEEDS]
    assert not missing, f"nn.functional functions with no fuzz seed: {missing}"


@st.composite
def calls(draw: Any, name: str) -> Any:
    args, kwargs = draw(st.sampled_from(SEEDS[name]))
    return FP.Call(("F", name), tuple(FP.mutate(draw, list(args))), FP.mutate(draw, kwargs),
                   name in RANDOM)


@pytest.fixture(autouse=True)
def _fresh_worker() -> None:
    """Each property starts in a fresh child of the worker's fork server."""
    FP.worker().reset()


def test_pending_names_exist() -> None:
    assert not set(PENDING) - set(SEEDS), "fuzz_pending.FUNCTIONAL names unknown functions"


@pytest.mark.parametrize("name", sorted(n for n in SEEDS if RUN_ALL or n not in PENDING))
@FP.ci_settings(EXAMPLES)
@given(data=st.data())
def test_fuzz_functional(name: str, data: Any) -> None:
    FP.check(FP.worker(), data.draw(calls(name), label="call"))
