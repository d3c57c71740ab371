"""Flatten and Unflatten (reshape-based)."""

from __future__ import annotations

from collections.abc import Sequence

from ember import Tensor
from ember.nn.modules.module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flattens dimensions ``start_dim`` to ``end_dim`` into one (``input.flatten(start_dim,
    end_dim)``); by default every dimension but the batch one.

    Args:
        start_dim (int): the first dimension to flatten.
        end_dim (int): the last dimension to flatten.

    Example::

        >>> nn.Flatten()(ember.ones(2, 3, 4)).shape
        torch.Size([2, 12])
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dimension ``dim`` into the shape ``unflattened_size`` (the inverse of ``Flatten``).

    Args:
        dim (int): the dimension to split.
        unflattened_size (sequence of int): its new shape (whose product is its size).

    Example::

        >>> nn.Unflatten(1, (3, 4))(ember.ones(2, 12)).shape
        torch.Size([2, 3, 4])
    """

    def __init__(self, dim: int | str, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        if isinstance(dim, int):
            if not isinstance(unflattened_size, (tuple, list)) or not all(isinstance(e, int) for e in unflattened_size):
                raise TypeError("unflattened_size must be tuple of ints, but found type "
                                f"{type(unflattened_size).__name__}")
        else:
            raise TypeError("invalid argument type for dim parameter: named tensors are not supported")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        d = self.dim % input.dim()
        sizes = list(self.unflattened_size)
        if -1 in sizes:
            known = 1
            for s in sizes:
                if s != -1:
                    known *= s
            sizes[sizes.index(-1)] = input.shape[d] // known
        prod = 1
        for s in sizes:
            prod *= s
        if prod != input.shape[d]:
            raise RuntimeError(f"unflatten: Provided sizes {list(self.unflattened_size)} don't multiply up to the "
                               f"size of dim {self.dim} ({input.shape[d]}) in the input tensor")
        return input.reshape(*input.shape[:d], *sizes, *input.shape[d + 1:])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
