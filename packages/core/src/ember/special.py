"""ember.special: torch.special. The functions with their own kernels come from the C++ core
(ops/special.yaml, bound as ``_C._special_<name>``); the rest are PyTorch's aliases of top-level
ops (``psi`` is ``digamma``, ``expit`` is ``sigmoid``, ...) and ``multigammaln``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import ember
from ember import _out
from ember._lib import _C
from ember._special_toplevel import mvlgamma as _mvlgamma

if TYPE_CHECKING:  # not a runtime name: torch.special has no Tensor attribute either
    from ember._tensor import Tensor

_KERNELS = (
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
    "chebyshev_polynomial_v", "chebyshev_polynomial_w", "entr", "erfcx", "hermite_polynomial_h",
    "hermite_polynomial_he", "i0e", "i1", "i1e", "laguerre_polynomial_l", "legendre_polynomial_p", "log_ndtr",
    "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "ndtri",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
    "spherical_bessel_j0", "xlog1py", "zeta",
)
globals().update({name: getattr(_C, f"_special_{name}") for name in _KERNELS})

# torch.special names that are the top-level op under another (or the same) name.
_ALIASES = {
    "digamma": "digamma", "psi": "digamma", "erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "exp2": "exp2",
    "expit": "sigmoid", "expm1": "expm1", "gammainc": "igamma", "gammaincc": "igammac", "gammaln": "lgamma",
    "i0": "i0", "log1p": "log1p", "logit": "logit", "logsumexp": "logsumexp", "polygamma": "polygamma",
    "round": "round", "sinc": "sinc", "xlogy": "xlogy",
}
globals().update({name: getattr(ember, target) for name, target in _ALIASES.items()})


def ndtr(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The standard normal CDF, as PyTorch composes it: (1 + erf(x / sqrt 2)) / 2 in the input's
    dtype (so 0 below about -8.3 in float64 and coarse in float16, exactly as PyTorch)."""
    x = input if input.is_floating_point() or input.is_complex() else input.to(ember.get_default_dtype())
    result = (1 + ember.erf(x * math.sqrt(0.5))) * 0.5
    if out is None:
        return result
    # aten's special_ndtr_out: the result made first, then cast-checked, resized and copied into out
    # (an expanded out= of another shape is resized, not refused for its overlap)
    return _out.write(result, out, _out.cast, device="Expected all tensors to be on the same device, but found at "
                      "least two devices, {input} and {out}!")


def multigammaln(input: Tensor, p: int, *, out: Tensor | None = None) -> Tensor:
    """The multivariate log-gamma function of dimension ``p`` (``ember.mvlgamma``)."""
    return _mvlgamma(input, p, out=out)


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """softmax along ``dim``, computed in ``dtype`` when given."""
    return ember.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """log(softmax(input)) along ``dim``, computed in ``dtype`` when given."""
    return ember.log_softmax(input, dim, dtype=dtype)


__all__ = sorted([*_KERNELS, *_ALIASES, "log_softmax", "multigammaln", "ndtr", "softmax"])

# __torch_function__ for the Python-level functions above (ember/_torch_function.py)
from ember._torch_function import make_dispatchable as _make_dispatchable  # noqa: E402

_make_dispatchable(globals())
