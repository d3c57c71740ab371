"""Activation modules: thin wrappers over ``ember.nn.functional``."""

from __future__ import annotations

import warnings
from typing import Any

import ember
from ember import Tensor
from ember.nn import functional as F
from ember.nn.modules.attention import MultiheadAttention as MultiheadAttention
from ember.nn.modules.linear import NonDynamicallyQuantizableLinear as NonDynamicallyQuantizableLinear
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "Sigmoid", "Tanh",
           "Softplus", "Softsign", "Hardtanh", "Hardsigmoid", "Hardswish", "LogSigmoid", "Tanhshrink",
           "Softshrink", "Hardshrink", "Threshold", "GLU", "Softmax", "LogSoftmax", "Softmin", "PReLU", "Softmax2d",
           "RReLU", "MultiheadAttention"]


def _inplace_repr(inplace: bool) -> str:
    return "inplace=True" if inplace else ""


class ReLU(Module):
    """Rectified linear unit ``max(0, x)`` (the module form of ``F.relu``), applied to every
    element; the output has the input's shape.

    Args:
        inplace (bool): write the result into the input.

    Example::

        >>> nn.ReLU()(ember.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Hardtanh(Module):
    """Clamping to ``[min_val, max_val]`` (the module form of ``F.hardtanh``), applied to every
    element; the output has the input's shape.

    Args:
        min_val (float): the lower bound.
        max_val (float): the upper bound.
        inplace (bool): write the result into the input.
    """

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None) -> None:
        super().__init__()
        # the old keyword names still work, with PyTorch's deprecation warning
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`", FutureWarning,
                          stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`", FutureWarning,
                          stacklevel=2)
            max_val = max_value
        if min_val >= max_val:
            raise AssertionError("max_val must be greater than min_val")
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{inplace}"


class ReLU6(Hardtanh):
    """ReLU capped at 6, ``min(max(0, x), 6)`` (the module form of ``F.relu6``), applied to every
    element; the output has the input's shape.

    Args:
        inplace (bool): write the result into the input.
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class LeakyReLU(Module):
    """Leaky ReLU: ``x`` where positive, ``negative_slope * x`` elsewhere (the module form of
    ``F.leaky_relu``), applied to every element; the output has the input's shape.

    Args:
        negative_slope (float): the slope of the negative part.
        inplace (bool): write the result into the input.
    """

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class _AlphaInplace(Module):
    # ELU's and CELU's state; a private base so that CELU is not an ELU (as in PyTorch)
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class ELU(_AlphaInplace):
    """Exponential linear unit: ``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere (the
    module form of ``F.elu``), applied to every element; the output has the input's shape.

    Args:
        alpha (float): the negative saturation value (as ``-alpha``).
        inplace (bool): write the result into the input.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)


class CELU(_AlphaInplace):
    """Continuously differentiable ELU, ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` (the
    module form of ``F.celu``), applied to every element; the output has the input's shape.

    Args:
        alpha (float): the negative saturation value.
        inplace (bool): write the result into the input.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)


class _InplaceOnly(Module):
    # the state of the activations whose one option is ``inplace``; a private base so that none of
    # them is another's subclass (SiLU is not a SELU, as in PyTorch)
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class SELU(_InplaceOnly):
    """Scaled ELU with the self-normalizing constants (alpha about 1.6733, scale about 1.0507) (the
    module form of ``F.selu``), applied to every element; the output has the input's shape.

    Args:
        inplace (bool): write the result into the input.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)


class GELU(Module):
    """Gaussian error linear unit ``x * Phi(x)`` (the module form of ``F.gelu``), applied to every
    element; the output has the input's shape.

    Args:
        approximate (str): ``"none"`` (exact) or ``"tanh"`` (the tanh approximation).

    Example::

        >>> nn.GELU()(ember.tensor([0.0]))
        tensor([0.])
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(_InplaceOnly):
    """Sigmoid linear unit ``x * sigmoid(x)`` (the module form of ``F.silu``), applied to every
    element; the output has the input's shape.

    Args:
        inplace (bool): write the result into the input.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, inplace=self.inplace)


class Mish(_InplaceOnly):
    """Mish, ``x * tanh(softplus(x))`` (the module form of ``F.mish``), applied to every element;
    the output has the input's shape.

    Args:
        inplace (bool): write the result into the input.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, inplace=self.inplace)


class Hardsigmoid(_InplaceOnly):
    """Piecewise-linear sigmoid (0 below -3, 1 above 3) (the module form of ``F.hardsigmoid``),
    applied to every element; the output has the input's shape.

    Args:
        inplace (bool): write the result into the input.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)


class Hardswish(_InplaceOnly):
    """``x * hardsigmoid(x)`` (the module form of ``F.hardswish``), applied to every element; the
    output has the input's shape.

    Args:
        inplace (bool): write the result into the input.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)


class _Plain(Module):
    _fn: Any = None

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input)


class Sigmoid(_Plain):
    """The logistic function ``1 / (1 + exp(-x))`` (the module form of ``F.sigmoid``), applied to
    every element; the output has the input's shape.

    Example::

        >>> nn.Sigmoid()(ember.tensor([0.0]))
        tensor([0.5000])
    """

    _fn = staticmethod(F.sigmoid)


class Tanh(_Plain):
    """The hyperbolic tangent (the module form of ``F.tanh``), applied to every element; the output
    has the input's shape.
    """

    _fn = staticmethod(F.tanh)


class Softsign(_Plain):
    """``x / (1 + |x|)`` (the module form of ``F.softsign``), applied to every element; the output
    has the input's shape.
    """

    _fn = staticmethod(F.softsign)


class LogSigmoid(_Plain):
    """``log(sigmoid(x))``, computed stably (the module form of ``F.logsigmoid``), applied to every
    element; the output has the input's shape.
    """

    _fn = staticmethod(F.logsigmoid)


class Tanhshrink(_Plain):
    """``x - tanh(x)`` (the module form of ``F.tanhshrink``), applied to every element; the output
    has the input's shape.
    """

    _fn = staticmethod(F.tanhshrink)


class Softplus(Module):
    """Smooth ReLU ``log(1 + exp(beta * x)) / beta`` (linear above ``threshold``) (the module form
    of ``F.softplus``), applied to every element; the output has the input's shape.

    Args:
        beta (float): the sharpness.
        threshold (float): where the function turns linear.
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class _Lambd(Module):
    # Softshrink's and Hardshrink's state; a private base so that neither subclasses the other
    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self) -> str:
        return str(self.lambd)


class Softshrink(_Lambd):
    """Soft thresholding (every element moved ``lambd`` toward zero, those within ``lambd`` zeroed)
    (the module form of ``F.softshrink``), applied to every element; the output has the input's
    shape.

    Args:
        lambd (float): the threshold.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class Hardshrink(_Lambd):
    """Hard thresholding (elements within ``lambd`` of zero set to zero) (the module form of
    ``F.hardshrink``), applied to every element; the output has the input's shape.

    Args:
        lambd (float): the threshold.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)


class Threshold(Module):
    """Replacement of every element not above ``threshold`` by ``value`` (the module form of
    ``F.threshold``), applied to every element; the output has the input's shape.

    Args:
        threshold (float): elements at or below it are replaced.
        value (float): the replacement.
        inplace (bool): write the result into the input.
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class RReLU(Module):
    """Randomized leaky ReLU: in training a random slope in ``[lower, upper]`` per negative
    element, their mean in eval mode (the module form of ``F.rrelu``), applied to every element;
    the output has the input's shape.

    Args:
        lower (float): the smallest slope.
        upper (float): the largest slope.
        inplace (bool): write the result into the input.
    """

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")


class GLU(Module):
    """Gated linear unit (the module form of ``F.glu``): splits the input in halves ``a, b`` along
    ``dim`` and returns ``a * sigmoid(b)``.

    Args:
        dim (int): the dimension to split (its size must be even).
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class _DimModule(Module):
    # the softmax family's state; a private base so that LogSoftmax is not a Softmax (as in PyTorch)
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_DimModule):
    """Softmax along ``dim`` (the module form of ``F.softmax``): every slice is positive and sums to 1.

    Args:
        dim (int): the dimension to normalize over.

    Example::

        >>> nn.Softmax(dim=-1)(ember.tensor([[1.0, 1.0]]))
        tensor([[0.5000, 0.5000]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)


class LogSoftmax(_DimModule):
    """The logarithm of the softmax along ``dim`` (the module form of ``F.log_softmax``), the usual
    input of ``NLLLoss``.

    Args:
        dim (int): the dimension to normalize over.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Softmin(_DimModule):
    """``softmax(-x)`` along ``dim`` (the module form of ``F.softmin``).

    Args:
        dim (int): the dimension to normalize over.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)


class PReLU(Module):
    """LeakyReLU with learned slopes (one shared, or one per channel)."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None) -> None:
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(ember.full((num_parameters,), init, dtype=dtype, device=device))

    def reset_parameters(self) -> None:
        """Re-initializes the learned parameters with the layer's default initialization (as at construction)."""
        with ember.no_grad():
            self.weight.fill_(self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Softmax2d(Module):
    """Softmax over the channel dim of (N, C, H, W) or (C, H, W) inputs."""

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3)
