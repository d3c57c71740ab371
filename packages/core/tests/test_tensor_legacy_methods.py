"""The Tensor methods of ember/_tensor_legacy_methods.py against PyTorch 2.13: Python 2 dunders,
__reversed__, __setstate__, apply_/map_/map2_, as_subclass, const_data_ptr, dim_order,
is_pinned/pin_memory, is_set_to, new, resize/resize_as, module_load."""

from __future__ import annotations

import warnings

import ember
import pytest
from test_create_aten_longtail import same

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("case", [
    lambda m: m.tensor([1.0, 2.0, 3.0]).__div__(2), lambda m: m.tensor([3, 4]).__div__(2),
    lambda m: m.tensor([1.0, 2.0]).__div__(m.tensor([2, 4])), lambda m: m.tensor([3.0, 4.0]).__idiv__(2),
    lambda m: m.tensor([3, 4]).__idiv__(2), lambda m: m.tensor(3.7).__long__(), lambda m: m.tensor(-3.7).__long__(),
    lambda m: m.tensor([1.0, 2.0]).__long__(), lambda m: m.tensor(True).__long__(),
    lambda m: m.tensor(0.0).__nonzero__(), lambda m: m.tensor([2]).__nonzero__(),
    lambda m: m.tensor([1, 2]).__nonzero__(), lambda m: m.tensor([1.0, 2.0, 3.0]).__reversed__(),
    lambda m: m.tensor(3.0).__reversed__(), lambda m: m.arange(6).reshape(2, 3).__reversed__(),
    lambda m: list(reversed(m.arange(3))),
])
def test_python2_dunders_and_reversed(case):
    same(case)


def test_idiv_is_in_place_and_reversed_has_grad():
    for m in (ember, torch):
        x = m.tensor([2.0, 4.0])
        assert x.__idiv__(2) is x and x.tolist() == [1.0, 2.0]
    x = ember.arange(3.0, requires_grad=True)
    (x.__reversed__() * ember.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [3.0, 2.0, 1.0]


def test_setstate_legacy_forms():
    for m in (ember, torch):
        t = m.empty(0)
        t.__setstate__((True, None, None))
        assert t.requires_grad
        t = m.empty(0)
        t.__setstate__((m.tensor([1.0, 2.0]), None, None, False, None))
        assert t.tolist() == [1.0, 2.0] and not t.requires_grad
    same(lambda m: m.empty(0).__setstate__((m.ones(2), False, None)))
    same(lambda m: (m.ones(2, requires_grad=True) * 2).__setstate__((True, None, None)))


def _fresh(m, data=(1.0, 2.0, 3.0)):
    return m.tensor(list(data))


APPLY = {
    "apply": lambda m: _fresh(m).apply_(lambda v: v * 2),
    "apply_int_div": lambda m: m.tensor([1, 2]).apply_(lambda v: v / 2),
    "apply_grad": lambda m: _fresh(m).requires_grad_().apply_(lambda v: v),
    "apply_transposed": lambda m: m.arange(6.0).reshape(2, 3).t().apply_(lambda v: v + 1),
    "apply_bool": lambda m: m.tensor([True, False]).apply_(lambda v: not v),
    "map": lambda m: _fresh(m).map_(m.tensor([10.0, 20.0, 30.0]), lambda a, b: a + b),
    "map_broadcast": lambda m: _fresh(m).map_(m.tensor([10.0]), lambda a, b: a + b),
    "map_dtype": lambda m: _fresh(m).map_(m.tensor([10, 20, 30]), lambda a, b: a + b),
    "map_not_broadcastable": lambda m: _fresh(m).map_(m.ones(2), lambda a, b: a + b),
    "map_grad": lambda m: _fresh(m).requires_grad_().map_(_fresh(m), lambda a, b: a),
    "map_other_grad": lambda m: _fresh(m).map_(_fresh(m).requires_grad_(), lambda a, b: a),
    "map2": lambda m: _fresh(m).map2_(m.tensor([10.0, 20.0, 30.0]), m.tensor([1.0]), lambda a, b, c: a + b * c),
    "map2_x_dtype": lambda m: _fresh(m).map2_(m.tensor([10, 20, 30]), m.tensor([1.0]), lambda a, b, c: a),
    "map2_y_dtype": lambda m: _fresh(m).map2_(m.tensor([10.0, 20, 30]), m.tensor([1]), lambda a, b, c: a),
    "map2_grad": lambda m: _fresh(m).requires_grad_().map2_(_fresh(m), _fresh(m), lambda a, b, c: a),
}


@pytest.mark.parametrize("case", list(APPLY))
def test_apply_and_map(case):
    same(APPLY[case])


def test_apply_is_in_place():
    x = ember.tensor([1.0, 2.0])
    assert x.apply_(lambda v: v + 1) is x and x.tolist() == [2.0, 3.0]


def test_as_subclass():
    class Tagged(ember.Tensor):
        pass

    a = ember.ones(2, requires_grad=True)
    b = a * 2
    s = b.as_subclass(Tagged)
    assert type(s) is Tagged and s.data_ptr() == b.data_ptr() and s.grad_fn is not None
    (s * 3).sum().backward()
    assert a.grad.tolist() == [6.0, 6.0]
    same(lambda m: m.ones(2).as_subclass(int))
    same(lambda m: m.ones(2).as_subclass(m.Tensor))


def test_const_data_ptr():
    x = ember.arange(6.0).reshape(2, 3)
    assert x.const_data_ptr() == x.data_ptr() and x[1].const_data_ptr() == x[1].data_ptr()


DIM_ORDER = {
    "contiguous": (lambda m: m.empty(2, 3), {}), "t": (lambda m: m.empty(2, 3).t(), {}),
    "channels_last": (lambda m: m.empty(2, 3, 4, 5).to(memory_format=m.channels_last), {}),
    "scalar": (lambda m: m.tensor(1.0), {}), "size1": (lambda m: m.empty(2, 1, 4), {}),
    "expanded": (lambda m: m.empty(2, 3).expand(4, 2, 3), {}), "ones": (lambda m: m.empty(1, 3, 1, 1), {}),
    "overlap": (lambda m: m.empty_strided((2, 3), (1, 1)), {}),
    "transposed4": (lambda m: m.empty(2, 3, 5, 7).transpose(1, 2), {}),
    "permuted": (lambda m: m.empty(2, 3, 4).permute(2, 0, 1), {}),
    "check": (lambda m: m.empty(2, 3), {"ambiguity_check": True}),
    "check_size1": (lambda m: m.empty(2, 1, 4), {"ambiguity_check": True}),
    "check_list": (lambda m: m.empty(2, 3), {"ambiguity_check": ["contiguous_format"]}),
    "check_bad": (lambda m: m.empty(2, 3), {"ambiguity_check": 3}),
    "check_bad_list": (lambda m: m.empty(2, 3), {"ambiguity_check": [1]}),
    "check_ones": (lambda m: m.empty(1, 3, 1, 1), {"ambiguity_check": True}),
    "check_ones_list": (lambda m: m.empty(1, 3, 1, 1), {"ambiguity_check": ["contiguous_format", "channels_last"]}),
    "check_ones_one": (lambda m: m.empty(1, 2, 3, 4), {"ambiguity_check": ["contiguous_format"]}),
    "check_expanded": (lambda m: m.empty(3).expand(2, 3), {"ambiguity_check": True}),
}


@pytest.mark.parametrize("case", list(DIM_ORDER))
def test_dim_order(case):
    make, kw = DIM_ORDER[case]

    def run(m):
        k = {n: [getattr(m, f) if isinstance(f, str) else f for f in v] if isinstance(v, list) else v
             for n, v in kw.items()}
        return make(m).dim_order(**k)

    same(run)


@pytest.mark.parametrize("case", [
    lambda m: m.ones(2).is_pinned(), lambda m: m.ones(2).is_pinned("cpu"), lambda m: m.ones(2).pin_memory(),
    lambda m: m.ones(2).pin_memory("cpu"),
])
def test_pinned_memory_on_the_cpu(case):
    if ember.cuda.is_available():
        pytest.skip("compared with PyTorch's CPU-only build: ember can pin here")
    same(case)


@pytest.mark.parametrize("case", [
    lambda m, x: x.is_set_to(x.view(6)), lambda m, x: x.is_set_to(x), lambda m, x: x.is_set_to(x.view(2, 3)),
    lambda m, x: x.is_set_to(x.clone()), lambda m, x: x.is_set_to(1), lambda m, x: x[0].is_set_to(x[0]),
    lambda m, x: x.t().is_set_to(x),
])
def test_is_set_to(case):
    same(lambda m: case(m, m.arange(6.0).reshape(2, 3)))


NEW = {
    "sizes": (lambda m, x: x.new(2, 3), False), "list": (lambda m, x: x.new([1, 2]), True),
    "empty": (lambda m, x: x.new(), True), "tensor": (lambda m, x: x.new(x), True),
    "tuple": (lambda m, x: x.new((2, 3)), True), "size": (lambda m, x: x.new(m.Size([2])), False),
    "float": (lambda m, x: x.new(2.5), True),
    "long_from_floats": (lambda m, x: m.tensor([1, 2]).new([1.5]), True), "str": (lambda m, x: x.new("a"), True),
    "ragged": (lambda m, x: x.new([[1, 2], [3]]), True), "negative": (lambda m, x: x.new(-1), True),
    "other_dtype": (lambda m, x: x.new(m.tensor([1, 2])), True),
}


@pytest.mark.parametrize("case", list(NEW))
def test_new(case):
    fn, values = NEW[case]
    same(lambda m: fn(m, m.arange(6.0).reshape(2, 3)), values=values)


def test_new_refuses_keywords_but_device():
    # (PyTorch's parser adds "didn't match" lines whose placement ember does not reproduce)
    for m in (ember, torch):
        with pytest.raises(TypeError, match=r"^new\(\) received an invalid combination of arguments - got \(int, "
                                            r"dtype=torch.dtype\)"):
            m.ones(1).new(2, dtype=m.int32)


def test_new_aliases_a_tensor_of_its_dtype():
    x = ember.arange(3.0)
    assert x.new(x).data_ptr() == x.data_ptr()


@pytest.mark.parametrize("case", [
    lambda m, x: x.resize(3, 2), lambda m, x: x.resize((3, 2)), lambda m, x: x.resize(4), lambda m, x: x.resize(2, 2),
    lambda m, x: x.resize_as(m.ones(6)), lambda m, x: x.resize_as(m.ones(5)), lambda m, x: x.t().resize(6),
])
def test_resize_out_of_place(case):
    same(lambda m: case(m, m.arange(6.0).reshape(2, 3).requires_grad_()))


def test_resize_warns_and_has_gradients():
    x = ember.arange(6.0).reshape(2, 3).requires_grad_()
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        y = x.resize(3, 2)
    (y * ember.arange(6.0).reshape(3, 2)).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        x.resize_as(ember.ones(6))


@pytest.mark.parametrize("case", [
    lambda m: m.ones(2).module_load(m.zeros(2, dtype=m.float64)),
    lambda m: m.ones(2).module_load(m.zeros(2, dtype=m.float64), assign=True),
    lambda m: m.ones(2, requires_grad=True).module_load(m.zeros(2)),
])
def test_module_load(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(case)


@pytest.mark.parametrize("name", ["nonzero_static", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes"])
def test_method_forms_exist(name):
    assert callable(getattr(ember.Tensor, name))
