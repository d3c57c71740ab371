"""``ember.nn.init``: in-place weight initialisation (all under no_grad, all taking ``generator=``).

The names without the trailing underscore (``normal``, ``xavier_uniform``...) are PyTorch's old,
deprecated spellings: they warn a ``FutureWarning`` and call the in-place function.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import ember
from ember import Tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
           "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "sparse_",
           "orthogonal_",
           # deprecated aliases (PyTorch keeps them for backward compatibility)
           "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform",
           "kaiming_normal", "orthogonal", "sparse"]

_P = ParamSpec("_P")
_R = TypeVar("_R")

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for ``nonlinearity`` (as ``torch.nn.init.calculate_gain``)."""
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fills ``tensor`` in place with samples drawn uniformly from ``[a, b)``; returns it.

    Args:
        tensor (Tensor): the tensor to fill.
        a (float): the lower bound.
        b (float): the upper bound.
        generator (Generator, optional): the random number generator to draw from.
    """
    with ember.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fills ``tensor`` in place with samples from the normal distribution ``N(mean, std ** 2)``;
    returns it.

    Args:
        tensor (Tensor): the tensor to fill.
        mean (float): the mean.
        std (float): the standard deviation.
        generator (Generator, optional): the random number generator to draw from.
    """
    with ember.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator: Any = None) -> Tensor:
    """N(mean, std²) restricted to [a, b], by rejection sampling."""

    if tensor.is_meta:  # no memory to draw into
        return tensor

    def cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    with ember.no_grad():
        if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
            # Most normal draws land inside: redraw only the rejected ones. The bounds are compared
            # as the tensor's dtype holds them (a half tensor's rounded bound is inside).
            lo = tensor.new_tensor(a, device="cpu").item()
            hi = tensor.new_tensor(b, device="cpu").item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                reject = (result < lo) | (result > hi)
                if not bool(reject.any()):
                    break
                result = ember.where(reject, ember.empty_like(result).normal_(mean, std, generator=generator), result)
            if result is not tensor:
                tensor.copy_(result)
            return tensor
        # Narrow window: uniform proposals on [a, b], accepted with probability pdf/peak.
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2
        tensor.uniform_(a, b, generator=generator)
        log_ratio = ((tensor - mean) / std).pow(2) * -0.5 - log_peak
        pending = ember.empty_like(tensor).uniform_(generator=generator).log() > log_ratio
        result = tensor
        while bool(pending.any()):
            cand = ember.empty_like(tensor).uniform_(a, b, generator=generator)
            result = ember.where(pending, cand, result)
            log_ratio = ((cand - mean) / std).pow(2) * -0.5 - log_peak
            accept_draw = ember.empty_like(tensor).uniform_(generator=generator).log() > log_ratio
            pending = ember.where(pending, accept_draw, pending)
        if result is not tensor:
            tensor.copy_(result)
        return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fills ``tensor`` in place with ``val``; returns it.

    Example::

        >>> nn.init.constant_(ember.empty(2), 0.5)
        tensor([0.5000, 0.5000])
    """
    with ember.no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fills ``tensor`` in place with ones; returns it."""
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fills ``tensor`` in place with zeros; returns it."""
    with ember.no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fills a 2-D ``tensor`` in place with the identity matrix (ones on the main diagonal); returns
    it.

    Example::

        >>> nn.init.eye_(ember.empty(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with ember.no_grad():
        tensor.copy_(ember.eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype))
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Identity-preserving init for 3/4/5-D conv weights (per group)."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    if tensor.is_meta:
        return tensor
    out_per_group = sizes[0] // groups
    min_dim = min(out_per_group, sizes[1])
    centre = tuple(s // 2 for s in sizes[2:])
    with ember.no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                tensor[(g * out_per_group + d, d) + centre] = 1
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot initialization: fills ``tensor`` with samples from ``U(-a, a)`` where
    ``a = gain * sqrt(6 / (fan_in + fan_out))``, which keeps the activations' variance about
    constant across layers; returns it.

    Args:
        tensor (Tensor): a tensor of at least 2 dimensions.
        gain (float): a scale, see ``calculate_gain``.
        generator (Generator, optional): the random number generator to draw from.
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot initialization with a normal distribution of standard deviation
    ``gain * sqrt(2 / (fan_in + fan_out))``; returns ``tensor``.

    Args:
        tensor (Tensor): a tensor of at least 2 dimensions.
        gain (float): a scale, see ``calculate_gain``.
        generator (Generator, optional): the random number generator to draw from.
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator: Any = None) -> Tensor:
    """He initialization: fills ``tensor`` with samples from ``U(-b, b)`` where
    ``b = gain * sqrt(3 / fan)``, suited to ReLU-like activations; returns it.

    Args:
        tensor (Tensor): a tensor of at least 2 dimensions.
        a (float): the negative slope of the activation after this layer (for ``leaky_relu``).
        mode (str): ``"fan_in"`` keeps the forward pass's variance, ``"fan_out"`` the backward's.
        nonlinearity (str): the activation, which sets the gain (``"relu"``, ``"leaky_relu"``...).
        generator (Generator, optional): the random number generator to draw from.
    """
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    bound = math.sqrt(3.0) * calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator: Any = None) -> Tensor:
    """He initialization with a normal distribution of standard deviation ``gain / sqrt(fan)``;
    returns ``tensor``.

    Args:
        tensor (Tensor): a tensor of at least 2 dimensions.
        a (float): the negative slope of the activation after this layer (for ``leaky_relu``).
        mode (str): ``"fan_in"`` keeps the forward pass's variance, ``"fan_out"`` the backward's.
        nonlinearity (str): the activation, which sets the gain (``"relu"``, ``"leaky_relu"``...).
        generator (Generator, optional): the random number generator to draw from.
    """
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Any = None) -> Tensor:
    """Fill ``tensor`` (>= 2-D, flattened to rows x rest) with a (semi-)orthogonal matrix: the Q
    of the QR of a standard-normal matrix, signs fixed by diag(R) so that Q is uniformly
    (Haar) distributed; then scale by ``gain``."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.is_meta:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
    if rows < cols:
        flattened = flattened.t()
    # ember's CUDA backend has no LAPACK: a device weight's QR runs on the host (once, at init)
    q, r = ember.linalg.qr(flattened.cpu())
    q = (q * ember.diag(r, 0).sign()).to(flattened.device)
    if rows < cols:
        q = q.t()
    with ember.no_grad():
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """Fills the 2-D ``tensor`` in place as a sparse matrix; returns it.

    Every element is drawn from ``N(0, std ** 2)``, then ``ceil(sparsity * rows)`` randomly chosen
    elements of each column are set to zero (Martens, "Deep learning via Hessian-free optimization",
    2010).

    Args:
        tensor (Tensor): a 2-D tensor.
        sparsity (float): the fraction of each column's elements to zero.
        std (float): the standard deviation of the non-zero values.
        generator (Generator, optional): the random number generator of the normal draws (the rows
            to zero come from the default generator, as in PyTorch).

    Example::

        >>> w = nn.init.sparse_(ember.empty(4, 3), sparsity=0.5)
        >>> (w == 0).sum(0).tolist()
        [2, 2, 2]
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with ember.no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            # PyTorch draws the permutation from the default generator, not `generator`.
            zero_rows = ember.randperm(rows)[:num_zeros]
            tensor[zero_rows, col] = 0
    return tensor


# for backward compatibility: PyTorch's spellings without the trailing underscore
def _make_deprecate(meth: Callable[_P, _R]) -> Callable[_P, _R]:
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.", FutureWarning,
                      stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"""
    {old_name}(...)

    Deprecated spelling of ``ember.nn.init.{new_name}``, which it calls after warning a ``FutureWarning``.

    .. warning::
        This method is now deprecated in favor of ``ember.nn.init.{new_name}``.
    """
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
