"""Side-by-side sweep: default_collate, default_convert and collate(collate_fn_map=...) give
what PyTorch gives (values, dtypes, container types, error types and texts)."""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import ember
import numpy as np
import pytest
from ember_data_testlib import outcome

torch = pytest.importorskip("torch")

Point = collections.namedtuple("Point", ["x", "y"])


class Ordered(collections.OrderedDict):
    """A dict subclass: collate keeps it (a MutableMapping is copied and updated)."""


class FrozenMap(collections.abc.Mapping):
    """A read-only mapping whose constructor takes a dict: collate rebuilds it by type."""

    def __init__(self, d: dict[Any, Any]) -> None:
        self._d = dict(d)

    def __getitem__(self, k: Any) -> Any:
        return self._d[k]

    def __iter__(self) -> Any:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)


class NoArgMap(collections.abc.Mapping):
    """A read-only mapping that cannot be rebuilt by its type: collate falls back to a dict."""

    def __init__(self, *args: Any) -> None:
        if args:
            raise TypeError("takes no arguments")
        self._d = {"a": 1, "b": 2.0}

    def __getitem__(self, k: Any) -> Any:
        return self._d[k]

    def __iter__(self) -> Any:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)


class Seq(collections.abc.Sequence):
    """A read-only sequence rebuilt from a list."""

    def __init__(self, items: list[Any]) -> None:
        self._items = list(items)

    def __getitem__(self, i: Any) -> Any:
        return self._items[i]

    def __len__(self) -> int:
        return len(self._items)


def _memmap() -> Any:
    # A file-backed array (a subclass of ndarray): collated like any other array.
    import tempfile

    m = np.memmap(tempfile.TemporaryFile(), dtype=np.float32, mode="w+", shape=(3,))
    m[:] = [1, 2, 3]
    return m


def T(L: Any, data: Any, dtype: str = "float32") -> Any:
    return L.tensor(data, dtype=getattr(L, dtype))


# Each case builds the same batch with either library (L is ember or torch) and collates it.
COLLATE: dict[str, Callable[[Any], Any]] = {
    "ints": lambda L: L.utils.data.default_collate([0, 1, 2]),
    "bools": lambda L: L.utils.data.default_collate([True, False]),
    "floats": lambda L: L.utils.data.default_collate([0.5, 1.5]),
    "ints_then_floats": lambda L: L.utils.data.default_collate([1, 2.5]),
    "strs": lambda L: L.utils.data.default_collate(["a", "b"]),
    "bytes": lambda L: L.utils.data.default_collate([b"a", b"b"]),
    "tensors": lambda L: L.utils.data.default_collate([T(L, [1.0, 2.0]), T(L, [3.0, 4.0])]),
    "scalar_tensors": lambda L: L.utils.data.default_collate([T(L, 1, "int32"), T(L, 2, "int32")]),
    "mixed_dtype_tensors": lambda L: L.utils.data.default_collate([T(L, [1], "int32"), T(L, [2.0], "float64")]),
    "bool_tensors": lambda L: L.utils.data.default_collate([T(L, [True], "bool"), T(L, [False], "bool")]),
    "mismatched_tensors": lambda L: L.utils.data.default_collate([T(L, [1.0, 2.0]), T(L, [3.0])]),
    "mismatched_2d": lambda L: L.utils.data.default_collate([T(L, [[1.0]]), T(L, [[1.0]]), T(L, [[1.0, 2.0]])]),
    "dicts": lambda L: L.utils.data.default_collate([{"a": 0, "b": 1.0}, {"a": 1, "b": 2.0}]),
    "ordered_dict_subclass": lambda L: L.utils.data.default_collate([Ordered(a=0, b="x"), Ordered(a=1, b="y")]),
    "defaultdict": lambda L: L.utils.data.default_collate(
        [collections.defaultdict(int, a=1), collections.defaultdict(int, a=2)]),
    "frozen_mapping": lambda L: L.utils.data.default_collate([FrozenMap({"a": 1}), FrozenMap({"a": 2})]),
    "unrebuildable_mapping": lambda L: L.utils.data.default_collate([NoArgMap(), NoArgMap()]),
    "dict_missing_key": lambda L: L.utils.data.default_collate([{"a": 0, "b": 1}, {"a": 1}]),
    "namedtuples": lambda L: L.utils.data.default_collate([Point(0, 1.0), Point(2, 3.0)]),
    "namedtuple_of_tensors": lambda L: L.utils.data.default_collate(
        [Point(T(L, [1.0]), "a"), Point(T(L, [2.0]), "b")]),
    "tuples": lambda L: L.utils.data.default_collate([(1, "a"), (2, "b")]),
    "lists": lambda L: L.utils.data.default_collate([[0, 1], [2, 3]]),
    "custom_sequence": lambda L: L.utils.data.default_collate([Seq([1, 2]), Seq([3, 4])]),
    "unequal_lists": lambda L: L.utils.data.default_collate([[0, 1], [2]]),
    "unequal_tuples": lambda L: L.utils.data.default_collate([(0,), (1, 2)]),
    "nested": lambda L: L.utils.data.default_collate(
        [{"x": (T(L, [1.0]), [1, 2]), "y": {"z": "s"}}, {"x": (T(L, [2.0]), [3, 4]), "y": {"z": "t"}}]),
    "numpy_arrays": lambda L: L.utils.data.default_collate([np.arange(3), np.arange(3, 6)]),
    "numpy_float32": lambda L: L.utils.data.default_collate([np.ones(2, np.float32), np.zeros(2, np.float32)]),
    "numpy_mismatched": lambda L: L.utils.data.default_collate([np.ones(2), np.ones(3)]),
    "numpy_str_array": lambda L: L.utils.data.default_collate([np.array(["a"]), np.array(["b"])]),
    "numpy_object_array": lambda L: L.utils.data.default_collate([np.array([{}]), np.array([{}])]),
    "numpy_0d": lambda L: L.utils.data.default_collate([np.array(1.5), np.array(2.5)]),
    "numpy_scalars_f32": lambda L: L.utils.data.default_collate([np.float32(1), np.float32(2)]),
    "numpy_scalars_i16": lambda L: L.utils.data.default_collate([np.int16(1), np.int16(2)]),
    "numpy_scalars_u8": lambda L: L.utils.data.default_collate([np.uint8(1), np.uint8(200)]),
    "numpy_scalars_bool": lambda L: L.utils.data.default_collate([np.bool_(True), np.bool_(False)]),
    "numpy_scalars_mixed": lambda L: L.utils.data.default_collate([np.int32(1), np.float64(2.5)]),
    "numpy_str_scalars": lambda L: L.utils.data.default_collate([np.str_("a"), np.str_("b")]),
    "numpy_bytes_scalars": lambda L: L.utils.data.default_collate([np.bytes_(b"a"), np.bytes_(b"b")]),
    "numpy_memmap": lambda L: L.utils.data.default_collate([_memmap(), _memmap()]),
    "numpy_2d_then_1d": lambda L: L.utils.data.default_collate([np.ones((1, 2)), np.ones(2)]),
    "parameters": lambda L: (lambda b: (b, b.requires_grad))(
        L.utils.data.default_collate([L.nn.Parameter(L.ones(2)), L.nn.Parameter(L.zeros(2))])),
    "list_of_namedtuples_of_dicts": lambda L: L.utils.data.default_collate(
        [[Point({"k": 1}, 2.0)], [Point({"k": 3}, 4.0)]]),
    "none": lambda L: L.utils.data.default_collate([None, None]),
    "objects": lambda L: L.utils.data.default_collate([object(), object()]),
    "sets": lambda L: L.utils.data.default_collate([{1}, {2}]),
    "complex": lambda L: L.utils.data.default_collate([1j, 2j]),
    "empty_batch": lambda L: L.utils.data.default_collate([]),
}


@pytest.mark.parametrize("name", sorted(COLLATE))
def test_default_collate(name: str) -> None:
    assert outcome(lambda: COLLATE[name](ember)) == outcome(lambda: COLLATE[name](torch))


CONVERT: dict[str, Callable[[Any], Any]] = {
    "int": lambda L: L.utils.data.default_convert(3),
    "str": lambda L: L.utils.data.default_convert("s"),
    "tensor": lambda L: L.utils.data.default_convert(T(L, [1.0])),
    "numpy_array": lambda L: L.utils.data.default_convert(np.arange(4, dtype=np.int16)),
    "numpy_str_array": lambda L: L.utils.data.default_convert(np.array(["a", "b"])),
    "numpy_scalar": lambda L: L.utils.data.default_convert(np.float32(2.5)),
    "numpy_bool": lambda L: L.utils.data.default_convert(np.bool_(True)),
    "numpy_str_scalar": lambda L: L.utils.data.default_convert(np.str_("a")),
    "numpy_bytes_scalar": lambda L: L.utils.data.default_convert(np.bytes_(b"a")),
    "dict": lambda L: L.utils.data.default_convert({"a": np.arange(2), "b": "x"}),
    "ordered": lambda L: L.utils.data.default_convert(Ordered(a=np.arange(2))),
    "frozen_mapping": lambda L: L.utils.data.default_convert(FrozenMap({"a": np.arange(2)})),
    "unrebuildable_mapping": lambda L: L.utils.data.default_convert(NoArgMap()),
    "namedtuple": lambda L: L.utils.data.default_convert(Point(np.array(0), 1)),
    "tuple": lambda L: L.utils.data.default_convert((np.array([1]), 2)),
    "list": lambda L: L.utils.data.default_convert([np.array([1]), "a"]),
    "custom_sequence": lambda L: L.utils.data.default_convert(Seq([np.array([1]), 2])),
    "bytes": lambda L: L.utils.data.default_convert(b"ab"),
    "set": lambda L: L.utils.data.default_convert({1, 2}),
    "none": lambda L: L.utils.data.default_convert(None),
}


# Cases where only the exception type can match: the text comes from the tensor constructor
# (PyTorch: "new(): invalid data type 'numpy.bytes_'"; ember names the array conversion).
TYPE_ONLY = {"numpy_bytes_scalar"}


@pytest.mark.parametrize("name", sorted(CONVERT))
def test_default_convert(name: str) -> None:
    ours, theirs = outcome(lambda: CONVERT[name](ember)), outcome(lambda: CONVERT[name](torch))
    if name in TYPE_ONLY:
        ours, theirs = ours[:2], theirs[:2]
    assert ours == theirs


def _custom_map(L: Any) -> dict[Any, Any]:
    # Tensors summed instead of stacked; strings upper-cased; numbers left to the default map.
    def tensor_fn(batch: Any, *, collate_fn_map: Any = None) -> Any:
        return sum(batch)

    def str_fn(batch: Any, *, collate_fn_map: Any = None) -> Any:
        return [s.upper() for s in batch]

    m = {L.Tensor: tensor_fn, str: str_fn}
    m.update({k: v for k, v in L.utils.data._utils.collate.default_collate_fn_map.items() if k not in m})
    return m


class Tagged(int):
    """An int subclass: not in the map by exact type, found by the isinstance scan."""


CUSTOM: dict[str, Callable[[Any], Any]] = {
    "custom_map": lambda L: L.utils.data._utils.collate.collate(
        [{"t": T(L, [1.0]), "s": "a", "n": 1}, {"t": T(L, [2.0]), "s": "b", "n": 2}],
        collate_fn_map=_custom_map(L)),
    "subclass_by_isinstance": lambda L: L.utils.data._utils.collate.collate(
        [Tagged(1), Tagged(2)], collate_fn_map={int: lambda b, *, collate_fn_map=None: ("ints", list(b))}),
    "tuple_key": lambda L: L.utils.data._utils.collate.collate(
        [1.5, 2.5], collate_fn_map={(int, float): lambda b, *, collate_fn_map=None: max(b)}),
    "no_map": lambda L: L.utils.data._utils.collate.collate([[1, 2], [3, 4]]),
    "empty_map": lambda L: L.utils.data._utils.collate.collate([1, 2], collate_fn_map={}),
    "map_order_matters": lambda L: L.utils.data._utils.collate.collate(
        [True, False], collate_fn_map={int: lambda b, *, collate_fn_map=None: "int",
                                       bool: lambda b, *, collate_fn_map=None: "bool"}),
}


@pytest.mark.parametrize("name", sorted(CUSTOM))
def test_collate_fn_map(name: str) -> None:
    assert outcome(lambda: CUSTOM[name](ember)) == outcome(lambda: CUSTOM[name](torch))


def test_default_map_keys_and_order() -> None:
    # The same types in the same order: users extend the map and rely on the scan order.
    ours = [k if isinstance(k, tuple) else (k,) for k in ember.utils.data.default_collate_fn_map]
    theirs = [k if isinstance(k, tuple) else (k,) for k in torch.utils.data._utils.collate.default_collate_fn_map]

    def names(keys: list[tuple[type, ...]]) -> list[tuple[str, ...]]:
        return [tuple("Tensor" if t in (ember.Tensor, torch.Tensor) else t.__name__ for t in k) for k in keys]

    assert names(ours) == names(theirs)


def test_error_format_text() -> None:
    ours = ember.utils.data._utils.collate.default_collate_err_msg_format
    assert ours == torch.utils.data._utils.collate.default_collate_err_msg_format


@pytest.mark.parametrize("kwargs", [dict(batch_size=2), dict(batch_size=None)])
def test_loader_uses_collate_or_convert(kwargs: dict[str, Any]) -> None:
    # batch_size=None means default_convert per sample; otherwise default_collate.
    data = [{"a": np.arange(2), "b": (1, "x")}, {"a": np.arange(2, 4), "b": (2, "y")}]

    def run(L: Any) -> Any:
        return list(L.utils.data.DataLoader(data, **kwargs))

    assert outcome(lambda: run(ember)) == outcome(lambda: run(torch))
