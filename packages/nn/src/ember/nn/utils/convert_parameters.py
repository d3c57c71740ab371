"""Flatten parameters into one vector and back (``parameters_to_vector`` / ``vector_to_parameters``)."""

from __future__ import annotations

from collections.abc import Iterable

import ember
from ember import Tensor


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """One 1-D tensor holding every parameter's values, in order (differentiable)."""
    params = list(parameters)
    if not params:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    # As PyTorch: a view of each (a non-contiguous parameter is refused) joined by cat, which keeps
    # the parameters' device (meta included), promotes mixed dtypes and refuses mixed devices.
    return ember.cat([p.view(-1) for p in params])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters' data (not differentiable)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {ember.typename(vec)}")
    offset = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[offset:offset + n].view_as(p).data
        offset += n
