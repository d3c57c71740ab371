"""default_collate / default_convert / collate, compared with PyTorch where it exists."""

from __future__ import annotations

import collections
from typing import Any

import ember
import numpy as np
import pytest
from ember.utils.data import collate, default_collate, default_collate_fn_map, default_convert

Point = collections.namedtuple("Point", ["x", "y"])


def plain(x: Any, lib: Any) -> Any:
    """A library-neutral description of a (collated) value: tensors become
    ('tensor', dtype name, shape, values); containers keep their type name."""
    if isinstance(x, lib.Tensor):
        return ("tensor", str(x.dtype), tuple(x.shape), x.tolist())
    if isinstance(x, dict):
        return (type(x).__name__, {k: plain(v, lib) for k, v in x.items()})
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__, tuple(plain(v, lib) for v in x))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [plain(v, lib) for v in x])
    if isinstance(x, np.ndarray):
        return ("ndarray", x.dtype.str, x.tolist())
    return x


def to_lib(x: Any, lib: Any) -> Any:
    """Build the same input for either library ('T' markers become tensors)."""
    if isinstance(x, tuple) and x and x[0] == "T":
        return lib.tensor(x[1], dtype=getattr(lib, x[2]))
    if isinstance(x, dict):
        return {k: to_lib(v, lib) for k, v in x.items()}
    if isinstance(x, Point):
        return Point(*(to_lib(v, lib) for v in x))
    if isinstance(x, list):
        return [to_lib(v, lib) for v in x]
    if isinstance(x, tuple):
        return tuple(to_lib(v, lib) for v in x)
    return x


BATCHES = {
    "ints": [0, 1, 2, 3],
    "floats": [0.5, 1.5],
    "bools": [True, False, True],
    "strs": ["a", "b", "c"],
    "bytes": [b"a", b"b"],
    "tensors": [("T", [1.0, 2.0], "float32"), ("T", [3.0, 4.0], "float32")],
    "int_tensors_2d": [("T", [[1, 2]], "int64"), ("T", [[3, 4]], "int64")],
    "scalar_tensors": [("T", 1, "int32"), ("T", 2, "int32")],
    "dicts": [{"A": 0, "B": 1.0}, {"A": 100, "B": 2.0}],
    "namedtuples": [Point(0, 0), Point(1, 1)],
    "tuples": [(1, "a"), (2, "b")],
    "lists": [[0, 1], [2, 3]],
    "nested": [{"img": ("T", [1.0], "float64"), "meta": (1, "x")}, {"img": ("T", [2.0], "float64"), "meta": (2, "y")}],
    "np_arrays": [np.ones(2, dtype=np.float32), np.zeros(2, dtype=np.float32)],
    "np_float64": [np.arange(3.0), np.arange(3.0)],
    "np_scalars_f32": [np.float32(1), np.float32(2)],
    "np_scalars_i32": [np.int32(1), np.int32(2)],
    "np_bool": [np.bool_(True), np.bool_(False)],
    "tuple_of_tensor_and_label": [(("T", [1.0, 2.0], "float32"), 0), (("T", [3.0, 4.0], "float32"), 1)],
}


@pytest.mark.parametrize("name", sorted(BATCHES))
def test_default_collate_matches_torch(name: str) -> None:
    torch = pytest.importorskip("torch")
    from torch.utils.data import default_collate as torch_collate

    batch = BATCHES[name]
    assert plain(default_collate(to_lib(batch, ember)), ember) == plain(torch_collate(to_lib(batch, torch)), torch)


def test_documented_examples() -> None:
    assert default_collate([0, 1, 2, 3]).tolist() == [0, 1, 2, 3]
    assert default_collate(["a", "b", "c"]) == ["a", "b", "c"]
    out = default_collate([{"A": 0, "B": 1}, {"A": 100, "B": 100}])
    assert {k: v.tolist() for k, v in out.items()} == {"A": [0, 100], "B": [1, 100]}
    p = default_collate([Point(0, 0), Point(1, 1)])
    assert type(p) is Point and p.x.tolist() == [0, 1]
    t = default_collate([(0, 1), (2, 3)])
    assert isinstance(t, list) and [v.tolist() for v in t] == [[0, 2], [1, 3]]
    assert default_collate([0.5, 1.5]).dtype == ember.float64  # float64, not the default dtype
    assert default_collate([True, False]).dtype == ember.bool


def test_tuple_outer_container_becomes_list_inner_strings_stay_tuple() -> None:
    out = default_collate([(1, "a"), (2, "b")])
    assert isinstance(out, list)
    assert out[0].tolist() == [1, 2] and out[1] == ("a", "b")


@pytest.mark.parametrize("batch, exc, match", [
    ([None, None], TypeError, "found <class 'NoneType'>"),
    ([object()], TypeError, "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists"),
    ([[1, 2], [3]], RuntimeError, "each element in list of batch should be of equal size"),
    ([np.array(["a"]), np.array(["b"])], TypeError, "found <U1"),
    ([np.array([object()], dtype=object)], TypeError, "found object"),
])
def test_errors(batch: list[Any], exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        default_collate(batch)


def test_unequal_tensor_shapes_name_both() -> None:
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[3\] at entry 0 "
                                           r"and \[4\] at entry 1"):
        default_collate([ember.zeros(3), ember.zeros(4)])


def test_error_messages_match_torch() -> None:
    pytest.importorskip("torch")
    from torch.utils.data import default_collate as torch_collate

    for batch in ([None], [[1, 2], [3]], [np.array(["a"])]):
        with pytest.raises(Exception) as theirs:
            torch_collate(batch)
        with pytest.raises(Exception) as ours:
            default_collate(batch)
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value) == str(theirs.value)


def test_mixed_dtypes_promote() -> None:
    out = default_collate([ember.tensor([1], dtype=ember.int32), ember.tensor([2.5])])
    assert out.dtype == ember.float32 and out.tolist() == [[1.0], [2.5]]


def test_collated_tensors_are_new_memory() -> None:
    a, b = ember.zeros(2), ember.ones(2)
    out = default_collate([a, b])
    out[0, 0] = 5.0
    assert a.tolist() == [0.0, 0.0]


def test_collate_in_worker_context_uses_shared_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    from ember.utils.data import _worker

    assert not default_collate([ember.zeros(2), ember.ones(2)]).is_shared()
    monkeypatch.setattr(_worker, "_worker_info", _worker.WorkerInfo(id=0, num_workers=1, seed=0, dataset=None))
    out = default_collate([ember.zeros(2), ember.ones(2)])
    assert out.is_shared() and out.tolist() == [[0.0, 0.0], [1.0, 1.0]]


@pytest.mark.parametrize("data", [
    0, "s", b"b", None, [1, 2], (1, 2), {"a": 1}, Point(0, 0),
    np.array([0, 1]), np.float32(1.5), np.int64(3), (np.ones(1), 2), [np.array([0, 1]), np.array([2, 3])],
    Point(np.array(0), np.array(0)), {"a": np.zeros(2)}, np.array(["x"]),
])
def test_default_convert_matches_torch(data: Any) -> None:
    torch = pytest.importorskip("torch")
    from torch.utils.data import default_convert as torch_convert

    assert plain(default_convert(data), ember) == plain(torch_convert(data), torch)


def test_default_convert_shares_numpy_memory() -> None:
    a = np.zeros(3)
    t = default_convert(a)
    a[0] = 7.0
    assert t.tolist()[0] == 7.0


def test_collate_with_custom_fn_map() -> None:
    def add_one(batch: list[Any], *, collate_fn_map: Any = None) -> Any:
        return [x + 1 for x in batch]

    assert collate([1, 2], collate_fn_map={int: add_one}) == [2, 3]
    # Subclass lookup goes through isinstance in insertion order.
    assert collate([True], collate_fn_map={int: add_one}) == [2]
    assert ember.Tensor in default_collate_fn_map and int in default_collate_fn_map
    out = collate([{"a": 1}, {"a": 2}], collate_fn_map={int: add_one})
    assert out == {"a": [2, 3]}


def test_mapping_type_is_kept() -> None:
    od = [collections.OrderedDict(a=1), collections.OrderedDict(a=2)]
    out = default_collate(od)
    assert type(out) is collections.OrderedDict and out["a"].tolist() == [1, 2]
