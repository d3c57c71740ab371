"""``default_collate`` / ``default_convert``: turn lists of samples into batches.

Collation recurses through mappings, namedtuples and sequences; the leaves are handled
by a per-type function map (``default_collate_fn_map``), which users may extend. Inside a
DataLoader worker, tensors are stacked straight into shared memory so that the batch
reaches the main process without another copy.
"""

from __future__ import annotations

import collections.abc
import copy
import re
from collections.abc import Callable
from typing import Any

import ember

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map",
           "collate_tensor_fn", "default_collate_err_msg_format"]

import sys

# dtype.str of string ('S', 'a', 'U') and object ('O') arrays, which cannot become tensors.
_np_str_obj_array_pattern = re.compile(r"[SaUO]")
default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)
CollateFnMap = dict[type | tuple[type, ...], Callable[..., Any]]


def _shape_list(t: Any) -> str:
    return str(list(t.shape))


def _check_same_shape(batch: list[Any]) -> None:
    shape = batch[0].shape
    for i, t in enumerate(batch):
        if t.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {_shape_list(batch[0])} "
                               f"at entry 0 and {_shape_list(t)} at entry {i}")


def collate_tensor_fn(batch: list[Any], *, collate_fn_map: CollateFnMap | None = None) -> Any:
    """Stack equal-shaped tensors along a new first dimension."""
    from ember.utils.data._worker import get_worker_info

    _check_same_shape(batch)
    if get_worker_info() is None:
        return ember.stack(batch, 0)  # promotes mixed dtypes; autograd sees the stack
    from ember.multiprocessing._shared_memory import empty_shared

    # In a worker the batch is stacked straight into shared memory. As in PyTorch, the
    # buffer has the first tensor's dtype, so stack(out=) refuses inputs that need autograd
    # or cannot be cast to it (RuntimeError / TypeError, re-raised in the main process).
    out = empty_shared((len(batch), *batch[0].shape), batch[0].dtype)
    return ember.stack(batch, 0, out=out)


def collate_numpy_array_fn(batch: list[Any], *, collate_fn_map: CollateFnMap | None = None) -> Any:
    elem = batch[0]
    if _np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([ember.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: list[Any], *, collate_fn_map: CollateFnMap | None = None) -> Any:
    import numpy as np

    # Through an array, so the NumPy dtype (float32, int32, ...) is kept.
    return ember.from_numpy(np.asarray(batch)).clone()


def collate_float_fn(batch: list[Any], *, collate_fn_map: CollateFnMap | None = None) -> Any:
    return ember.tensor(batch, dtype=ember.float64)


def collate_int_fn(batch: list[Any], *, collate_fn_map: CollateFnMap | None = None) -> Any:
    return ember.tensor(batch)


def collate_str_fn(batch: list[Any], *, collate_fn_map: CollateFnMap | None = None) -> Any:
    return batch


default_collate_fn_map: CollateFnMap = {ember.Tensor: collate_tensor_fn}
_numpy_registered = False


def _register_numpy() -> None:
    """Add NumPy's types to the map (right after Tensor, as PyTorch orders them) once
    NumPy is loaded: there can be no arrays to collate before that, and importing NumPy
    eagerly would cost every ``import ember.utils.data``."""
    global _numpy_registered
    import numpy as np

    _numpy_registered = True
    rest = {k: v for k, v in default_collate_fn_map.items() if k is not ember.Tensor}
    for k in rest:
        del default_collate_fn_map[k]
    default_collate_fn_map[np.ndarray] = collate_numpy_array_fn  # memmap is a subclass
    default_collate_fn_map[(np.bool_, np.number, np.object_)] = collate_numpy_scalar_fn
    default_collate_fn_map.update(rest)


default_collate_fn_map[float] = collate_float_fn
default_collate_fn_map[int] = collate_int_fn  # bool too (a subclass): a bool tensor
default_collate_fn_map[str] = collate_str_fn
default_collate_fn_map[bytes] = collate_str_fn
if "numpy" in sys.modules:
    _register_numpy()


def _rebuild_mapping(elem: Any, values: dict[Any, Any]) -> Any:
    """A mapping of ``elem``'s type holding ``values`` (a plain dict if that type can't)."""
    try:
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update(values)
            return clone
        return type(elem)(values)
    except TypeError:
        return values


def _rebuild_sequence(elem: Any, values: list[Any]) -> Any:
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, v in enumerate(values):
                clone[i] = v
            return clone
        return type(elem)(values)
    except TypeError:
        return values


def collate(batch: Any, *, collate_fn_map: CollateFnMap | None = None) -> Any:
    """Collate ``batch`` (a sequence of samples) using ``collate_fn_map`` for the leaves.

    The map is searched by the exact type of ``batch[0]`` first, then by ``isinstance``
    in insertion order. Mappings, namedtuples and sequences are collated field by field.
    """
    if not _numpy_registered and "numpy" in sys.modules:
        _register_numpy()
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        fn = collate_fn_map.get(elem_type)
        if fn is not None:
            return fn(batch, collate_fn_map=collate_fn_map)
        for key, fn in collate_fn_map.items():
            if isinstance(elem, key):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        values = {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
        return _rebuild_mapping(elem, values)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch, strict=False)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        # Each column stays a tuple (so a column of strings comes back as a tuple).
        columns = [collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch, strict=True)]
        if isinstance(elem, tuple):
            return columns  # a list, as PyTorch has always returned
        return _rebuild_sequence(elem, columns)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def default_collate(batch: Any) -> Any:
    """Stack a list of samples into a batch: tensors, NumPy arrays and numbers become
    tensors with a new first dimension; str/bytes stay lists; mappings, namedtuples and
    sequences are collated field by field (tuples become lists)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data: Any) -> Any:
    """Convert NumPy arrays and scalars inside ``data`` to tensors, leaving everything
    else as it is (used when automatic batching is off)."""
    if isinstance(data, ember.Tensor):
        return data
    data_type = type(data)
    # NumPy bytes_ scalars are not exempt (PyTorch tries to convert them and raises TypeError).
    if data_type.__module__ == "numpy" and data_type.__name__ not in ("str_", "string_"):
        if data_type.__name__ == "ndarray":
            if _np_str_obj_array_pattern.search(data.dtype.str):
                return data
            return ember.as_tensor(data)
        import numpy as np

        # A NumPy scalar (or another ndarray type such as memmap) goes through an array, which keeps
        # its dtype; a bytes_ array cannot become a tensor and raises TypeError.
        return ember.from_numpy(np.asarray(data)).clone()
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return data_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data
