"""Parity inputs for the ops of ops/nn_loss.yaml: aten's nll_loss_forward and
nll_loss_backward, mse_loss and mse_loss_backward, smooth_l1_loss and huber_loss and their
backwards, and one_hot, compared with ``torch.ops.aten``
through parity_inputs' ``torch._nn`` shim."""

from __future__ import annotations

from typing import Any

import ember._nn  # noqa: F401  (makes ember._nn an attribute of ember)
import parity_inputs as H

H.install_torch_nn()
T, Case = H.T, H.Case


def C(id: str, *args: Any) -> Case:
    return Case(id, args, {}, method=False, inplace=False, out=False)


def _targets(values: tuple, shape: tuple) -> T:
    return T(shape, "int64", values=values)


def nll_forward_cases(op: dict) -> list:
    t4 = _targets((0, 3, 1, -100), (4,))
    return [
        C("mean", T((4, 5), "float64"), t4, None, 1, -100),
        C("sum-weighted", T((4, 5), "float64"), t4, T((5,), "float64", dom="positive"), 2, -100),
        C("none", T((4, 5)), t4, None, 0, -100),
        C("ignore-0", T((4, 5), "float64"), _targets((0, 3, 1, 0), (4,)), None, 1, 0),
        C("3d-input", T((2, 3, 2), "float64"), _targets((0, 1, 2, 0), (2, 2)), None, 1, -100),
        C("2d-target", T((2, 3)), _targets((0, 1, 2, 0), (2, 2)), None, 1, -100),
        C("1d-input", T((5,), "float64"), T((), "int64", values=(3,)), None, 2, -100),
        C("all-ignored", T((2, 3), "float64"), _targets((-100, -100), (2,)), None, 1, -100),
        C("target-out-of-range", T((2, 3)), _targets((0, 3), (2,)), None, 1, -100),
        C("negative-target", T((2, 3)), _targets((-1, 0), (2,)), None, 1, -100),
        C("batch-mismatch", T((3, 3)), _targets((0, 1), (2,)), None, 1, -100),
        C("int32-target", T((2, 3)), T((2,), "int32", values=(0, 1)), None, 1, -100),
    ]


def nll_backward_cases(op: dict) -> list:
    t4 = _targets((0, 3, 1, -100), (4,))
    return [
        C("mean", T((), "float64"), T((4, 5), "float64"), t4, None, 1, -100, T((), "float64", values=(3.0,))),
        C("sum-weighted", T((), "float64"), T((4, 5), "float64"), t4, T((5,), "float64", dom="positive"), 2,
          -100, T((), "float64", values=(2.5,))),
        C("none", T((4,), "float64"), T((4, 5), "float64"), t4, None, 0, -100, T((), "float64", values=(0.0,))),
        C("1d-input", T((), "float64"), T((5,), "float64"), T((), "int64", values=(2,)), None, 2, -100,
          T((), "float64", values=(1.0,))),
        # per-sample losses: aten reads grad_output.size(0) before its dtype (IndexError for a 0-d one)
        C("none-0d-grad", T((), "float64"), T((4, 5), "float64"), t4, None, 0, -100, T((), "float64", values=(3.0,))),
        C("none-0d-float32-grad", T(()), T((4, 5), "float64"), t4, None, 0, -100, T((), "float64", values=(3.0,))),
    ]


def one_hot_cases(op: dict) -> list:
    return [
        C("inferred", _targets((0, 3, 1, 3), (4,))),
        C("given", _targets((0, 3, 1, 2, 0, 1), (2, 3)), 5),
        C("0d", T((), "int64", values=(2,)), 4),
        C("empty-given", T((0,), "int64"), 3),
        C("empty-inferred", T((0,), "int64")),
        C("negative", _targets((0, -1), (2,)), 3),
        C("too-large", _targets((0, 3), (2,)), 3),
        C("zero-classes", _targets((0, 1), (2,)), 0),
        C("int32", T((2,), "int32", values=(0, 1)), 3),
        C("float", T((2,), "float32", values=(0.0, 1.0)), 3),
    ]


# mse_loss's dtype rule (float kernels only) is checked by F.mse_loss before the op (test_losses.py):
# the cases are the float inputs F.mse_loss passes on, reductions 0 none, 1 mean, 2 sum.
def mse_cases(op: dict) -> list:
    return [
        C("mean", T((4, 5), "float64"), T((4, 5), "float64"), 1),
        C("sum", T((4, 5), "float64"), T((4, 5), "float64"), 2),
        C("none", T((3,)), T((3,)), 0),
        C("0d", T((), "float64"), T((), "float64"), 1),
        C("empty-mean", T((0, 2), "float64"), T((0, 2), "float64"), 1),
    ]


def mse_backward_cases(op: dict) -> list:
    return [
        C("mean", T((), "float64"), T((4, 5), "float64"), T((4, 5), "float64"), 1),
        C("sum", T((), "float64"), T((4, 5), "float64"), T((4, 5), "float64"), 2),
        C("none", T((3,), "float64"), T((3,), "float64"), T((3,), "float64"), 0),
    ]


# smooth_l1_loss / huber_loss (beta / delta last): reductions, the zone parameter, broadcasts,
# dtype promotion (huber writes self's dtype), the half types, and aten's refusals.
def pointwise_loss_cases(op: dict) -> list:
    huber = op["name"] == "huber_loss"
    return [
        C("mean", T((4, 5), "float64"), T((4, 5), "float64"), 1, 1.0),
        C("sum-0.5", T((4, 5), "float64"), T((4, 5), "float64"), 2, 0.5),
        C("none-2.5", T((3, 4)), T((3, 4)), 0, 2.5),
        C("none-strided", T((5, 6), view="t"), T((6, 5)), 0, 0.7),
        C("broadcast", T((3, 1), "float64"), T((1, 4), "float64"), 0, 1.0),
        C("mixed-dtypes", T((3, 4)), T((3, 4), "float64"), 0, 1.0),
        C("int-self-float-target", T((3,), "int64"), T((3,)), 0, 1.0),
        C("float16", T((8, 9), "float16"), T((8, 9), "float16"), 0, 0.3),
        C("bfloat16", T((8, 9), "bfloat16"), T((8, 9), "bfloat16"), 0, 0.3),
        C("0d", T((), "float64"), T((), "float64"), 1, 1.0),
        C("empty-mean", T((0, 2), "float64"), T((0, 2), "float64"), 1, 1.0),
        C("int", T((3,), "int64"), T((3,), "int64"), 0, 1.0),
        C("bool", T((3,), "bool"), T((3,), "bool"), 0, 1.0),
        C("zero-param", T((3,)), T((3,)), 0, 0.0),
        C("negative-param", T((3,)), T((3,)), 0, -1.0),
        C("huge-param", T((3,)), T((3,)), 0, 1e300),
        *([C("other-reduction", T((3,)), T((3,)), 5, 1.0)] if huber else []),
    ]


# The backwards (grad_output first). Negative beta / delta are left out: torch's scalar tail and
# its vector loop disagree there (torch_known_wrong: loss-backward-negative-zone).
def pointwise_loss_backward_cases(op: dict) -> list:
    return [
        C("mean", T((), "float64"), T((4, 5), "float64"), T((4, 5), "float64"), 1, 1.0),
        C("sum-0.5", T((), "float64"), T((4, 5), "float64"), T((4, 5), "float64"), 2, 0.5),
        C("none", T((3, 4)), T((3, 4)), T((3, 4)), 0, 2.5),
        C("broadcast-grad", T((2, 1, 4)), T((3, 4)), T((3, 4)), 0, 1.0),
        C("mixed-dtypes", T(()), T((3, 4)), T((3, 4), "float64"), 1, 1.0),
        C("float16", T((8, 9), "float16"), T((8, 9), "float16"), T((8, 9), "float16"), 0, 0.3),
        C("bfloat16", T((8, 9), "bfloat16"), T((8, 9), "bfloat16"), T((8, 9), "bfloat16"), 0, 0.3),
        C("int-sum", T((), "int64"), T((20,), "int64"), T((20,), "int64"), 2, 1.0),
        C("int-float-grad", T(()), T((3,), "int32"), T((3,), "int32"), 1, 1.0),
        C("bool", T((), "bool"), T((3,), "bool"), T((3,), "bool"), 1, 1.0),
        C("zero-param", T(()), T((3,)), T((3,)), 1, 0.0),
        C("huge-param", T(()), T((3,)), T((3,)), 2, 1e300),
    ]


BUILDERS = {"nll_loss_forward": nll_forward_cases, "nll_loss_backward": nll_backward_cases, "one_hot": one_hot_cases,
            "mse_loss": mse_cases, "mse_loss_backward": mse_backward_cases,
            "smooth_l1_loss": pointwise_loss_cases, "huber_loss": pointwise_loss_cases,
            "smooth_l1_loss_backward": pointwise_loss_backward_cases,
            "huber_loss_backward": pointwise_loss_backward_cases}
