"""ember._nn: the pooling / upsampling kernels under PyTorch's ``torch._C._nn`` names.

The generated bindings live on the extension as ``_C.__nn_<name>`` (ops/nn_pool.yaml,
namespace ``_nn``); ember.nn.functional builds max_pool2d, interpolate, ... on them.
"""

from __future__ import annotations

from ember._lib import _C

_PREFIX = "__nn_"
globals().update({k[len(_PREFIX):]: v for k, v in vars(_C).items() if k.startswith(_PREFIX)})
