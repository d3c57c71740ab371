"""Activation functions and softmax family, composed from differentiable ember ops."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import ember
from ember import Tensor
from ember._argcheck import no_internal_overlap
from ember._autocast_policy import ACTIVE as _autocast_active
from ember._autocast_policy import autocast_op, cast_args
from ember._lib import _C
from ember.nn._functional._checks import fits, float_kernel, meta_name, refuse_complex_autograd, scalar_name

_HALF_TYPES = (ember.float16, ember.bfloat16)



def _in_float(fn: Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    """fn computed in float32 for float16/bfloat16 inputs and rounded once at the end: PyTorch's
    activation kernels compute in "opmath" float, so a composite of several half-precision ops
    (each rounding) would differ from it. The gradient flows through the casts, so it is float32 too."""
    def run(x: Tensor) -> Tensor:
        return fn(x.float()).to(x.dtype) if x.dtype in _HALF_TYPES else fn(x)
    return run


def _inplace(fn: Callable[[Tensor], Tensor], input: Tensor, inplace: bool,
             check: Callable[[Tensor], None] | None = None, overlap_ok: bool = False) -> Tensor:
    """fn(input); with inplace, written into input by one copy_, which autograd records as input's new history.
    ``check`` is the kernel's own dtype/argument check: aten runs it after the in-place overlap check.
    ``overlap_ok``: aten's kernel skips that check (threshold_): an expanded input is written through one
    element per stride-0 run, the value every alias of it gets."""
    if inplace and overlap_ok:
        if check is not None:
            check(input)
        target = input
        for d, (n, st) in enumerate(zip(input.shape, input.stride())):
            if st == 0 and n > 1:
                target = target.narrow(d, 0, 1)
        if target is not input:
            target.copy_(fn(target.clone()))
            return input
    if inplace:
        no_internal_overlap(input)
    if check is not None:
        check(input)
    if not inplace:
        return fn(input)
    # fn's ops may save their argument for backward, and copy_ bumps input's version: under autograd fn runs
    # on a clone (as PyTorch's silu_/mish_ do), so backward goes copy_ -> fn -> clone -> input's old history.
    src = input.clone() if input.requires_grad and ember.is_grad_enabled() else input
    return input.copy_(fn(src))


def _float_only(kernel: str) -> Callable[[Tensor], None]:
    return lambda x: float_kernel(x, kernel)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """Rectified linear unit: ``max(0, x)`` for every element.

    Args:
        input (Tensor): the activations.
        inplace (bool): write the result into ``input``.

    Example::

        >>> F.relu(ember.tensor([-1.0, 0.5]))
        tensor([0.0000, 0.5000])
    """
    return input.relu_() if inplace else ember.relu(input)


def relu_(input: Tensor) -> Tensor:
    """In-place form of ``relu``: the result is written into ``input``, which is returned."""
    return input.relu_()


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """Clamps every element to ``[min_val, max_val]`` (a piecewise-linear tanh).

    Args:
        input (Tensor): the activations.
        min_val (float): the lower bound.
        max_val (float): the upper bound.
        inplace (bool): write the result into ``input``.

    Example::

        >>> F.hardtanh(ember.tensor([-2.0, 0.5, 2.0]))
        tensor([-1.0000,  0.5000,  1.0000])
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    # aten's kernel (HardtanhBackward0): NaN passes, integer inputs keep their dtype
    return _inplace(lambda x: ember._nn.hardtanh(x, min_val, max_val), input, inplace, _bounds_fit(min_val, max_val))


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place form of ``hardtanh``: the result is written into ``input``, which is returned."""
    # PyTorch's hardtanh_ is the aten op itself: no Python bounds check, min > max clamps to max_val
    return _inplace(lambda x: ember._nn.hardtanh(x, min_val, max_val), input, True, _bounds_fit(min_val, max_val))


def _bounds_fit(*bounds: float) -> Callable[[Tensor], None]:
    # aten's float hardtanh is clamp, converting its bounds to the input's own type (integers: ember._nn's check)
    def check(x: Tensor) -> None:
        if x.is_floating_point() and not any(math.isnan(b) for b in bounds):  # aten's clamp fills NaN first
            for b in bounds:
                fits(b, x.dtype, opmath=False)
    return check


@autocast_op("lower")
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """max(0, x) + w·min(0, x), with one learned slope per channel (dim 1, or dim 0 of a 1-D input)."""
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {scalar_name(input)} and {scalar_name(weight)}")
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() >= 2 else 1  # aten: a 1-D input has one channel
        if channels != weight.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    w = weight
    if input.dim() != weight.dim():  # aten's composite: the slopes viewed along dim 1
        shape = [1] * input.dim()
        if input.dim() > 1:
            shape[1] = weight.numel()
        w = weight.reshape(shape)
    return ember._nn._prelu_kernel(input, w)  # aten's kernel pair (PreluKernelBackward0)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """ReLU capped at 6: ``min(max(0, x), 6)`` for every element.

    Args:
        input (Tensor): the activations.
        inplace (bool): write the result into ``input``.

    Example::

        >>> F.relu6(ember.tensor([-1.0, 3.0, 9.0]))
        tensor([0., 3., 6.])
    """
    return _inplace(lambda x: ember._nn.hardtanh(x, 0, 6), input, inplace)  # aten's relu6 is hardtanh(0, 6)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """Leaky ReLU: ``x`` where positive, ``negative_slope * x`` elsewhere.

    Args:
        input (Tensor): the activations.
        negative_slope (float): the slope of the negative part.
        inplace (bool): write the result into ``input``.

    Example::

        >>> F.leaky_relu(ember.tensor([-10.0, 1.0]))
        tensor([-0.1000,  1.0000])
    """
    # aten's kernel pair: LeakyReluBackward0, or LeakyReluBackward1 (from the result) in place
    return ember._nn.leaky_relu_(input, negative_slope) if inplace else ember._nn.leaky_relu(input, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place form of ``leaky_relu``: the result is written into ``input``, which is returned."""
    return leaky_relu(input, negative_slope, inplace=True)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Exponential linear unit: ``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere.

    Args:
        input (Tensor): the activations.
        alpha (float): the value the negative part saturates at (as ``-alpha``).
        inplace (bool): write the result into ``input``.

    Example::

        >>> F.elu(ember.tensor([-1.0, 1.0]))
        tensor([-0.6321,  1.0000])
    """
    # aten's kernel pair: EluBackward0, or EluBackward1 (from the result) in place
    return ember._nn.elu_(input, alpha) if inplace else ember._nn.elu(input, alpha)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place form of ``elu``: the result is written into ``input``, which is returned."""
    return elu(input, alpha, inplace=True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """Scaled exponential linear unit, ``scale * elu(x, alpha)`` with the constants (alpha about
    1.6733, scale about 1.0507) that keep activations at zero mean and unit variance.

    Args:
        input (Tensor): the activations.
        inplace (bool): write the result into ``input``.
    """
    return ember.selu_(input) if inplace else ember.selu(input)


def selu_(input: Tensor) -> Tensor:
    """In-place form of ``selu``: the result is written into ``input``, which is returned."""
    return selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Continuously differentiable ELU: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Args:
        input (Tensor): the activations.
        alpha (float): the saturation value of the negative part.
        inplace (bool): write the result into ``input``.
    """
    return ember.celu_(input, alpha) if inplace else ember.celu(input, alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place form of ``celu``: the result is written into ``input``, which is returned."""
    return celu(input, alpha, inplace=True)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Gaussian error linear unit: ``x * Phi(x)`` with ``Phi`` the standard normal CDF, or its tanh
    approximation with ``approximate="tanh"``.

    Args:
        input (Tensor): the activations.
        approximate (str): ``"none"`` (exact, with erf) or ``"tanh"``.

    Example::

        >>> F.gelu(ember.tensor([0.0, 1.0]))
        tensor([0.0000, 0.8413])
    """
    return ember._nn.gelu(input, approximate=approximate)  # aten's kernel (GeluBackward0)


def sigmoid(input: Tensor) -> Tensor:
    """The logistic function ``1 / (1 + exp(-x))`` of every element.

    Args:
        input (Tensor): the activations.

    Example::

        >>> F.sigmoid(ember.tensor([0.0]))
        tensor([0.5000])
    """
    return ember.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    """The hyperbolic tangent of every element.

    Args:
        input (Tensor): the activations.
    """
    return ember.tanh(input)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """Sigmoid linear unit (swish): ``x * sigmoid(x)``.

    Args:
        input (Tensor): the activations.
        inplace (bool): write the result into ``input``.

    Example::

        >>> F.silu(ember.tensor([0.0, 1.0]))
        tensor([0.0000, 0.7311])
    """
    # aten's silu kernel also takes complex inputs, but its derivative refuses them
    refuse_complex_autograd("silu", input)
    if input.is_complex():
        return _inplace(lambda x: x * ember.sigmoid(x), input, inplace)
    return _inplace(ember._nn.silu, input, inplace, _float_only("silu_cpu"))  # SiluBackward0


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """Smooth approximation of ReLU: ``log(1 + exp(beta * x)) / beta``, returning ``x`` itself where
    ``beta * x`` exceeds ``threshold`` (for numerical stability).

    Args:
        input (Tensor): the activations.
        beta (float): the sharpness.
        threshold (float): above it the function is linear.

    Example::

        >>> F.softplus(ember.tensor([0.0]))
        tensor([0.6931])
    """
    return ember._nn.softplus(input, beta, threshold)  # aten's kernel (SoftplusBackward0)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """Mish: ``x * tanh(softplus(x))``.

    Args:
        input (Tensor): the activations.
        inplace (bool): write the result into ``input``.
    """
    return _inplace(_in_float(lambda x: x * ember.tanh(softplus(x))), input, inplace, _float_only("mish_cpu"))


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)`` for every element.

    Args:
        input (Tensor): the activations.

    Example::

        >>> F.softsign(ember.tensor([1.0, -3.0]))
        tensor([ 0.5000, -0.7500])
    """
    return input / (1 + input.abs())


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """Piecewise-linear sigmoid: 0 below -3, 1 above 3, ``x / 6 + 1 / 2`` between.

    Args:
        input (Tensor): the activations.
        inplace (bool): write the result into ``input``.

    Example::

        >>> F.hardsigmoid(ember.tensor([-4.0, 0.0, 4.0]))
        tensor([0.0000, 0.5000, 1.0000])
    """
    return _inplace(ember._nn.hardsigmoid, input, inplace)  # aten's kernel: NaN passes, computed in float


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * hardsigmoid(x)``: 0 below -3, ``x`` above 3, ``x * (x + 3) / 6`` between.

    Args:
        input (Tensor): the activations.
        inplace (bool): write the result into ``input``.

    Example::

        >>> F.hardswish(ember.tensor([-4.0, 0.0, 4.0]))
        tensor([-0., 0., 4.])
    """
    # aten's kernel pair (HardswishBackward0): the slope x/3 + 1/2 on (-3, 3), 0 at or below -3, 1 from 3 up
    return _inplace(ember._nn.hardswish, input, inplace, _float_only("hardswish_cpu"))


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))`` for every element, computed without overflow for large ``|x|``.

    Args:
        input (Tensor): the activations.

    Example::

        >>> F.logsigmoid(ember.tensor([0.0]))
        tensor([-0.6931])
    """
    return ember._nn.log_sigmoid(input)  # aten's kernel (LogSigmoidBackward0)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)`` for every element.

    Args:
        input (Tensor): the activations.
    """
    return input - ember.tanh(input)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Soft thresholding: moves every element ``lambd`` toward zero, and sets to zero those within
    ``lambd`` of it.

    Args:
        input (Tensor): the activations.
        lambd (float): the threshold, non-negative.

    Example::

        >>> F.softshrink(ember.tensor([-1.0, 0.2, 2.0]))
        tensor([-0.5000,  0.0000,  1.5000])
    """
    return ember._nn.softshrink(input, lambd)  # aten's kernel (SoftshrinkBackward0) and its lambd check


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Hard thresholding: sets to zero the elements within ``lambd`` of zero and keeps the others.

    Args:
        input (Tensor): the activations.
        lambd (float): the threshold.

    Example::

        >>> F.hardshrink(ember.tensor([-1.0, 0.2, 2.0]))
        tensor([-1.,  0.,  2.])
    """
    return ember.hardshrink(input, lambd)  # aten's kernel (HardshrinkBackward0), lambd in the input's dtype


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """Replaces every element not greater than ``threshold`` by ``value``.

    Args:
        input (Tensor): the activations.
        threshold (float): elements at or below it are replaced.
        value (float): the replacement.
        inplace (bool): write the result into ``input``.

    Example::

        >>> F.threshold(ember.tensor([0.5, 2.0]), 1.0, 0.0)
        tensor([0., 2.])
    """
    return _threshold(input, threshold, value, inplace)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In-place form of ``threshold``: the result is written into ``input``, which is returned."""
    return _threshold(input, threshold, value, True)


def _threshold(input: Tensor, th: float, value: float, inplace: bool) -> Tensor:
    # a separate name: the public functions' `threshold` parameter shadows the function itself.
    # aten's kernel: x <= th ? value : x, so NaN passes and integer inputs keep their dtype.
    def check(x: Tensor) -> None:
        # aten's float kernel: the threshold compared in opmath, the value written in the input's type
        if x.is_floating_point():
            fits(th, x.dtype)
            fits(value, x.dtype, opmath=False)
    return _inplace(lambda x: ember._nn.threshold(x, th, value), input, inplace, check, overlap_ok=True)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit: splits ``input`` in two halves ``a, b`` along ``dim`` and returns
    ``a * sigmoid(b)``.

    Args:
        input (Tensor): the tensor; its size along ``dim`` must be even.
        dim (int): the dimension to split.

    Example::

        >>> F.glu(ember.tensor([[1.0, 2.0, 0.0, 0.0]]))
        tensor([[0.5000, 1.0000]])
    """
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return ember._nn.glu(input, dim)  # aten's kernel pair (GluBackward0)


def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
                  "dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """Softmax along ``dim``: ``exp(x) / sum(exp(x))``, so every slice along ``dim`` is positive and
    sums to 1 (computed stably by subtracting the maximum first).

    Args:
        input (Tensor): the scores.
        dim (int): the dimension to normalize over.
        dtype (ember.dtype, optional): convert ``input`` to this dtype first.

    Example::

        >>> F.softmax(ember.tensor([0.0, 0.0]), dim=0)
        tensor([0.5000, 0.5000])
    """
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return ember.softmax(input, dim, dtype=dtype)  # fused kernel (SoftmaxBackward0)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``softmax(-x)`` along ``dim``: the smallest scores get the largest weights.

    Args:
        input (Tensor): the scores.
        dim (int): the dimension to normalize over.
        dtype (ember.dtype, optional): convert ``input`` to this dtype first.
    """
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return ember.softmax(-input, dim)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """The logarithm of ``softmax`` along ``dim``, computed directly (more accurate than
    ``softmax(x).log()``); the usual input of ``nll_loss``.

    Args:
        input (Tensor): the scores.
        dim (int): the dimension to normalize over.
        dtype (ember.dtype, optional): convert ``input`` to this dtype first.

    Example::

        >>> F.log_softmax(ember.tensor([0.0, 0.0]), dim=0)
        tensor([-0.6931, -0.6931])
    """
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return ember.log_softmax(input, dim, dtype=dtype)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU: negative elements are multiplied by a slope drawn uniformly from
    ``[lower, upper]`` per element when ``training``, by the mean of the bounds otherwise.

    Args:
        input (Tensor): the activations.
        lower (float): the smallest slope.
        upper (float): the largest slope.
        training (bool): draw random slopes (True) or use their mean (False).
        inplace (bool): write the result into ``input``.

    Example::

        >>> F.rrelu(ember.tensor([-2.0, 3.0]), 0.25, 0.75)
        tensor([-1.,  3.])
    """
    if input.is_meta:  # no elements to draw slopes for: the mean slope gives the same shape and graph
        training = False
    return ember.rrelu_(input, lower, upper, training) if inplace else ember.rrelu(input, lower, upper, training)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    """In-place form of ``rrelu``: the result is written into ``input``, which is returned."""
    return ember.rrelu_(input, lower, upper, training and not input.is_meta)


def _scalar_name(t: Tensor) -> str:
    return t.type().replace("torch.", "").replace("Tensor", "")


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Affine map ``input @ weight.T + bias`` over the last dimension.

    Args:
        input (Tensor): ``(*, in_features)``.
        weight (Tensor): ``(out_features, in_features)``.
        bias (Tensor, optional): ``(out_features,)``.

    Returns:
        Tensor: ``(*, out_features)``.

    Example::

        >>> F.linear(ember.tensor([[1.0, 2.0]]), ember.tensor([[1.0, 1.0]]), ember.tensor([0.5]))
        tensor([[3.5000]])
    """
    if not _C._profiler_active():
        return _linear(input, weight, bias)
    _C._record_op_enter("aten::linear", input, weight, bias)  # PyTorch's composite op event
    try:
        return _linear(input, weight, bias)
    finally:
        if _C._profiler_active():
            _C._record_function_exit()


def _linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    if _autocast_active[0]:  # aten::linear is on autocast's lower-precision list
        input, weight, bias = cast_args("lower", input, weight, bias)
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.dim()}D and "
                           f"{weight.dim()}D")
    # (no dtype check of its own: addmm's or matmul's, on the path aten takes, names the mismatch)
    if (input.dim() != 2 and bias is not None and bias.dim() > 0 and bias.is_contiguous()
            and input.is_contiguous()):
        # aten's _flatten_nd_linear: the rows through one addmm, viewed back (a view, as aten's is; a 1-D
        # weight fails in addmm there too). flatten, as reshape(-1, 0) is ambiguous
        rows = input.reshape(1, input.shape[0]) if input.dim() == 1 else input.flatten(0, -2)
        out = ember.addmm(bias, rows, weight.t())
        return out.view(*input.shape[:-1], out.shape[-1])
    if input.dim() == 2 and bias is not None:
        return ember.addmm(bias, input, weight.t())
    # aten's matmul path: batch dims folded into one GEMM, a tensor of its own (no view), the bias added in place
    out = ember.matmul(input, weight.t())
    return out if bias is None else out.add_(bias)


def _bilinear_checks(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    """aten's bilinear checks, in order (dtypes printed as caffe2's type names)."""
    ts = [("input1", input1), ("input2", input2), ("weight", weight)] + ([("bias", bias)] if bias is not None else [])
    if any(t.dtype != input1.dtype for _, t in ts):
        got = ", ".join(f"{n}: {meta_name(t)}" for n, t in ts)
        raise RuntimeError(f"All tensors must have the same dtype, got {got}")
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.size(i) != input2.size(i):
            raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {input1.size(i)} and "
                               f"{input2.size(i)}")
    if input1.size(input1.dim() - 1) != weight.size(1):
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.size(input1.dim() - 1)} "
                           f"but expected {weight.size(1)}")
    if input2.size(input2.dim() - 1) != weight.size(2):
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.size(input2.dim() - 1)} "
                           f"but expected {weight.size(2)}")
    if bias is not None and bias.size(0) != weight.size(0):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.size(0)} but expected "
                           f"{weight.size(0)}")


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Bilinear map ``y[..., o] = x1 @ weight[o] @ x2 + bias[o]``.

    Args:
        input1 (Tensor): ``(*, in1)``.
        input2 (Tensor): ``(*, in2)``.
        weight (Tensor): ``(out, in1, in2)``.
        bias (Tensor, optional): ``(out,)``.

    Returns:
        Tensor: ``(*, out)``.
    """
    # y_k = x1ᵀ W_k x2 (+ b_k): contract x1 with W (out, in1, in2), then with x2.
    _bilinear_checks(input1, input2, weight, bias)
    refuse_complex_autograd("_trilinear", input1, input2, weight, bias)  # aten's bilinear is _trilinear
    lead, dtype = input1.shape[:-1], input1.dtype
    half = dtype in _HALF_TYPES  # computed in float32 and rounded once (the contraction has two steps)
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    w = weight
    if half:
        x1, x2, w = x1.float(), x2.float(), weight.float()
    out_f, in1, in2 = weight.shape
    tmp = ember.matmul(x1, w.permute(1, 0, 2).reshape(in1, out_f * in2)).reshape(-1, out_f, in2)
    out = (tmp * x2.unsqueeze(1)).sum(-1)
    if bias is not None:
        out = out + (bias.float() if half else bias)
    return out.reshape(*lead, out_f).to(dtype) if half else out.reshape(*lead, out_f)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None) -> Tensor:
    """Divides ``input`` by its ``p``-norm along ``dim`` (at least ``eps``), so every slice has norm 1.

    Args:
        input (Tensor): the vectors.
        p (float): the norm's order.
        dim (int): the dimension holding the vectors.
        eps (float): the smallest divisor.
        out (Tensor, optional): where to write the result.

    Example::

        >>> F.normalize(ember.tensor([[3.0, 4.0]]))
        tensor([[0.6000, 0.8000]])
    """
    # torch.Tensor.norm (Python) hands an int dim to linalg.vector_norm as [dim], so an int past
    # int64 is the parser's TypeError for a list element; ember's norm binding takes the list too
    dims = [dim] if isinstance(dim, int) and not isinstance(dim, bool) else dim
    denom = input.norm(p, dims, keepdim=True).clamp(min=eps).expand_as(input)
    return input / denom if out is None else ember.div(input, denom, out=out)

