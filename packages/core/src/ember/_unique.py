"""ember.unique / unique_consecutive and their Tensor methods, as PyTorch writes them in Python.

The work is the generated ``_VF`` ops (ops/index.yaml: ``_unique2``, ``unique_dim``,
``unique_consecutive``, each returning values, inverse and counts); these functions pass the
flags by keyword, as torch.functional does, so a wrong-typed argument raises the TypeError of
the op PyTorch reaches (``_unique2(): argument 'sorted' must be bool, not NoneType``), and
return the outputs asked for.
"""

from __future__ import annotations

from typing import Any

from ember._lib import _C

__all__ = ["unique", "unique_consecutive"]


def _picked(r: Any, return_inverse: Any, return_counts: Any) -> Any:
    values, inverse, counts = r
    if not return_inverse and not return_counts:
        return values
    return (values, *((inverse,) if return_inverse else ()), *((counts,) if return_counts else ()))


def unique(input: Any, sorted: Any = True, return_inverse: Any = False, return_counts: Any = False,
           dim: Any = None) -> Any:
    """unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None) -> Tensor or tuple

    The distinct elements of ``input`` in ascending order (or, with ``dim``, its distinct
    slices along that dimension), optionally with where each element went and how often each
    value occurs.

    Args:
        input: the tensor.
        sorted: accepted for compatibility; the result is always sorted.
        return_inverse: also return, for every element of ``input``, the index of its value in the result.
        return_counts: also return how many times each distinct value occurs.
        dim: the dimension whose slices are compared, or None to flatten.

    Returns:
        The distinct values, or a tuple of them with the inverse and/or the counts.

    Example::

        >>> ember.unique(ember.tensor([3, 1, 3, 2]), return_counts=True)
        (tensor([1, 2, 3]), tensor([1, 1, 2]))
    """
    if dim is not None:
        r = _C.__VF_unique_dim(input, dim, sorted=sorted, return_inverse=return_inverse,
                               return_counts=return_counts)
    else:
        r = _C.__VF__unique2(input, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts)
    return _picked(r, return_inverse, return_counts)


def unique_consecutive(input: Any, return_inverse: Any = False, return_counts: Any = False, dim: Any = None) -> Any:
    """unique_consecutive(input, return_inverse=False, return_counts=False, dim=None) -> Tensor or tuple

    Collapses every run of equal consecutive elements (or slices along ``dim``) into one,
    keeping the order; values that repeat later in the tensor are kept again.

    Args:
        input: the tensor.
        return_inverse: also return, for every element of ``input``, the index of its run in the result.
        return_counts: also return the length of each run.
        dim: the dimension whose slices are compared, or None to flatten.

    Returns:
        The collapsed values, or a tuple of them with the inverse and/or the counts.

    Example::

        >>> ember.unique_consecutive(ember.tensor([1, 1, 2, 2, 1]))
        tensor([1, 2, 1])
    """
    r = _C.__VF_unique_consecutive(input, return_inverse=return_inverse, return_counts=return_counts, dim=dim)
    return _picked(r, return_inverse, return_counts)


class UniqueMethods:
    """Tensor.unique / Tensor.unique_consecutive (mixed into ember.Tensor)."""

    def unique(self, sorted: Any = True, return_inverse: Any = False, return_counts: Any = False,
               dim: Any = None) -> Any:
        """unique(sorted=True, return_inverse=False, return_counts=False, dim=None) -> Tensor or tuple

        Method form of ``ember.unique``: the distinct values of this tensor, in ascending order.

        Args:
            sorted: accepted for compatibility; the result is always sorted.
            return_inverse: also return the index in the result of every element's value.
            return_counts: also return how many times each distinct value occurs.
            dim: the dimension whose slices are compared, or None to flatten.

        Returns:
            The distinct values, or a tuple of them with the inverse and/or the counts.

        Example::

            >>> ember.tensor([2, 0, 2]).unique()
            tensor([0, 2])
        """
        return unique(self, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts, dim=dim)

    def unique_consecutive(self, return_inverse: Any = False, return_counts: Any = False, dim: Any = None) -> Any:
        """unique_consecutive(return_inverse=False, return_counts=False, dim=None) -> Tensor or tuple

        Method form of ``ember.unique_consecutive``: every run of equal consecutive elements
        collapsed into one.

        Args:
            return_inverse: also return the index of every element's run in the result.
            return_counts: also return the length of each run.
            dim: the dimension whose slices are compared, or None to flatten.

        Returns:
            The collapsed values, or a tuple of them with the inverse and/or the counts.

        Example::

            >>> ember.tensor([1, 1, 3, 1]).unique_consecutive()
            tensor([1, 3, 1])
        """
        return unique_consecutive(self, return_inverse=return_inverse, return_counts=return_counts, dim=dim)
