"""Identity, Linear and Bilinear."""

from __future__ import annotations

import math
from typing import Any

import ember
from ember import Tensor
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["Bilinear", "Identity", "Linear"]
__all__ += ["LazyLinear"]  # noqa: F822  (found by __getattr__ below)


class Identity(Module):
    """Returns its input; accepts and ignores any constructor arguments."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """y = x Wᵀ + b."""

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(ember.empty((out_features, in_features), dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(ember.empty(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-initializes the learned parameters with the layer's default initialization (as at construction)."""
        # kaiming_uniform_(a=√5) gives U(−1/√fan_in, 1/√fan_in), PyTorch's historical default.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """A :class:`Linear` under another name: ``MultiheadAttention.out_proj`` is one, as in PyTorch,
    where quantization tooling recognises the name (it keeps the layer unquantized); its state dict
    keys and repr match PyTorch's through it."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)


class Bilinear(Module):
    """y_k = x1ᵀ W_k x2 + b_k."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(ember.empty((out_features, in1_features, in2_features), dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(ember.empty(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-initializes the learned parameters with the layer's default initialization (as at construction)."""
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


def __getattr__(name: str) -> Any:
    # torch.nn.modules.linear also holds LazyLinear; ember's lazy.py builds on this file, so it is
    # found on first use
    if name in ("LazyLinear", "LazyModuleMixin"):
        from ember.nn.modules import lazy

        return getattr(lazy, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
