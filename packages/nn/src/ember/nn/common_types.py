"""``torch.nn.common_types``: the type aliases layer signatures use (``_size_2_t`` for an int or a pair),
so that custom layers annotated against PyTorch's names import unchanged."""

from __future__ import annotations

from typing import TypeAlias, TypeVar, Union

from ember import Tensor

T = TypeVar("T")

# a scalar, or a tuple of scalars (of any length or of a given one)
_scalar_or_tuple_any_t: TypeAlias = Union[T, tuple[T, ...]]  # noqa: UP007  (a generic alias needs Union)
_scalar_or_tuple_1_t: TypeAlias = Union[T, tuple[T]]  # noqa: UP007
_scalar_or_tuple_2_t: TypeAlias = Union[T, tuple[T, T]]  # noqa: UP007
_scalar_or_tuple_3_t: TypeAlias = Union[T, tuple[T, T, T]]  # noqa: UP007
_scalar_or_tuple_4_t: TypeAlias = Union[T, tuple[T, T, T, T]]  # noqa: UP007
_scalar_or_tuple_5_t: TypeAlias = Union[T, tuple[T, T, T, T, T]]  # noqa: UP007
_scalar_or_tuple_6_t: TypeAlias = Union[T, tuple[T, T, T, T, T, T]]  # noqa: UP007

# sizes (kernel_size, stride, padding...): an int or a tuple of ints
_size_any_t: TypeAlias = _scalar_or_tuple_any_t[int]
_size_1_t: TypeAlias = _scalar_or_tuple_1_t[int]
_size_2_t: TypeAlias = _scalar_or_tuple_2_t[int]
_size_3_t: TypeAlias = _scalar_or_tuple_3_t[int]
_size_4_t: TypeAlias = _scalar_or_tuple_4_t[int]
_size_5_t: TypeAlias = _scalar_or_tuple_5_t[int]
_size_6_t: TypeAlias = _scalar_or_tuple_6_t[int]

# output sizes where None keeps the input's size (adaptive pooling)
_size_any_opt_t: TypeAlias = _scalar_or_tuple_any_t[int | None]
_size_2_opt_t: TypeAlias = _scalar_or_tuple_2_t[int | None]
_size_3_opt_t: TypeAlias = _scalar_or_tuple_3_t[int | None]

# scale factors (upsampling, fractional pooling)
_ratio_2_t: TypeAlias = _scalar_or_tuple_2_t[float]
_ratio_3_t: TypeAlias = _scalar_or_tuple_3_t[float]
_ratio_any_t: TypeAlias = _scalar_or_tuple_any_t[float]

_tensor_list_t: TypeAlias = _scalar_or_tuple_any_t[Tensor]
# a pooling result with or without its indices
_maybe_indices_t: TypeAlias = _scalar_or_tuple_2_t[Tensor]
