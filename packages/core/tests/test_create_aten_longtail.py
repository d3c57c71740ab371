"""asarray, frombuffer, from_file, empty_permuted (ember/_composite_create.py) and nonzero_static,
unsafe_chunk / unsafe_split / unsafe_split_with_sizes, resize_as_, norm_except_dim,
embedding_renorm_ (ember/_composite_aten.py) against PyTorch 2.13: values, dtypes, shapes,
strides, requires_grad, errors; memory sharing and gradients where they apply."""

from __future__ import annotations

import array
import warnings

import ember
import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")


def outcome(fn, m, values=True, strides=True):
    """What fn(m) gives, comparable between ember and torch: values (rounded), dtype, shape,
    strides, requires_grad, whether it has a history -- or the exception's type and message."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(m)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    if isinstance(r, (tuple, list)):
        return [outcome(lambda _: x, m, values, strides) for x in r]
    if not isinstance(r, m.Tensor):
        return r
    vals = [("nan" if v != v else round(v, 5)) if isinstance(v, float) else v
            for v in r.detach().reshape(-1).tolist()] if values else None
    return vals, str(r.dtype), tuple(r.shape), r.stride() if strides else None, r.requires_grad, r.grad_fn is not None


def same(fn, values=True, strides=True):
    assert outcome(fn, ember, values, strides) == outcome(fn, torch, values, strides)


def _leaf(m):
    return m.ones(3, requires_grad=True)


ASARRAY_KW = [{}, {"requires_grad": True}, {"requires_grad": False}, {"copy": True},
              {"copy": True, "requires_grad": True}, {"dtype": "float64"}, {"dtype": "float64", "requires_grad": True},
              {"copy": False}, {"copy": False, "requires_grad": True}, {"dtype": "float32"},
              {"dtype": "float64", "copy": False}]


def _kw(m, kw):
    return {k: getattr(m, v) if k == "dtype" else v for k, v in kw.items()}


@pytest.mark.parametrize("kw", ASARRAY_KW, ids=str)
@pytest.mark.parametrize("leaf", [True, False], ids=["leaf", "nonleaf"])
def test_asarray_of_tensors(kw, leaf):
    same(lambda m: m.asarray(_leaf(m) if leaf else _leaf(m) * 2, **_kw(m, kw)))


ASARRAY_OBJS = {
    "np_scalar": lambda m: m.asarray(np.float32(2)), "int": lambda m: m.asarray(3), "float": lambda m: m.asarray(3.0),
    "bool": lambda m: m.asarray(True), "list": lambda m: m.asarray([1, 2.0]),
    "nested_int8": lambda m: m.asarray([[1, 2], [3, 4]], dtype=m.int8),
    "array_i": lambda m: m.asarray(array.array("i", [1, 2, 3])),
    "array_d": lambda m: m.asarray(array.array("d", [1, 2, 3])),
    "bytearray_u8": lambda m: m.asarray(bytearray(b"\x01\x02\x03\x04"), dtype=m.uint8),
    "bytes": lambda m: m.asarray(b"\x01\x02\x03\x04"), "memoryview": lambda m: m.asarray(memoryview(b"abcd")),
    "list_nocopy": lambda m: m.asarray([1, 2], copy=False), "str": lambda m: m.asarray("abc"),
    "none": lambda m: m.asarray(None), "np_int_to_float_nocopy": lambda m: m.asarray(np.arange(3), dtype=m.float32,
                                                                                      copy=False),
    "np_int_grad": lambda m: m.asarray(np.arange(3), requires_grad=True),
    "int_list_grad": lambda m: m.asarray([1, 2], requires_grad=True),
    "float_list_grad": lambda m: m.asarray([1.0, 2], requires_grad=True),
    "cuda": lambda m: m.asarray(m.ones(2), device="cuda"),
    "np_grad": lambda m: m.asarray(np.ones(3), requires_grad=True),
    "np_dtype": lambda m: m.asarray(np.ones(3), dtype=m.float32),
    "np_transposed": lambda m: m.asarray(np.ones((2, 3)).T), "np_copy": lambda m: m.asarray(np.ones(3), copy=True),
}


@pytest.mark.parametrize("case", list(ASARRAY_OBJS))
def test_asarray_of_other_objects(case):
    same(ASARRAY_OBJS[case])


def test_asarray_shares_memory():
    a = np.arange(3.0)
    t = ember.asarray(a)
    a[0] = 9
    assert t.tolist() == [9.0, 1.0, 2.0]
    b = bytearray(8)
    u = ember.asarray(b, dtype=ember.int32)
    u[1] = 7
    assert b[4] == 7
    x = ember.ones(3)
    assert ember.asarray(x) is x


BUF = bytes(range(1, 9))
FROMBUFFER = {
    "int16": lambda m: m.frombuffer(bytearray(BUF), dtype=m.int16),
    "count_offset": lambda m: m.frombuffer(bytearray(BUF), dtype=m.int16, count=2, offset=2),
    "odd_rest": lambda m: m.frombuffer(bytearray(BUF), dtype=m.int16, offset=1),
    "odd_rest4": lambda m: m.frombuffer(bytearray(BUF), dtype=m.int32, offset=3),
    "too_many": lambda m: m.frombuffer(bytearray(BUF), dtype=m.int32, count=3),
    "offset_end": lambda m: m.frombuffer(bytearray(BUF), dtype=m.int32, offset=8),
    "offset_neg": lambda m: m.frombuffer(bytearray(BUF), dtype=m.int32, offset=-1),
    "count0": lambda m: m.frombuffer(bytearray(BUF), dtype=m.int32, count=0),
    "count_neg": lambda m: m.frombuffer(bytearray(BUF), dtype=m.int32, count=-2),
    "empty": lambda m: m.frombuffer(bytearray(), dtype=m.int32),
    "grad": lambda m: m.frombuffer(bytearray(BUF), dtype=m.float32, requires_grad=True),
    "int_grad": lambda m: m.frombuffer(bytearray(BUF), dtype=m.int32, requires_grad=True),
    "list": lambda m: m.frombuffer([1, 2], dtype=m.int32), "bytes": lambda m: m.frombuffer(BUF, dtype=m.uint8),
    "array": lambda m: m.frombuffer(array.array("i", [1, 2, 3]), dtype=m.int32),
    "strided": lambda m: m.frombuffer(memoryview(bytearray(BUF))[::2], dtype=m.uint8),
    "bfloat16": lambda m: m.frombuffer(bytearray(BUF), dtype=m.bfloat16),
}


@pytest.mark.parametrize("case", list(FROMBUFFER))
def test_frombuffer(case):
    same(FROMBUFFER[case])


def test_frombuffer_shares_memory():
    b = bytearray(BUF)
    t = ember.frombuffer(b, dtype=ember.uint8)
    b[0] = 99
    t[1] = 42
    assert t[0].item() == 99 and b[1] == 42


def test_from_file(tmp_path):
    path = str(tmp_path / "f.bin")
    np.arange(6, dtype=np.float32).tofile(path)
    for args, kw in [((), {"size": 6}), ((), {"size": 7}), ((), {"size": 3, "dtype": "float64"}), ((), {}),
                     ((False, 2), {}), ((), {"size": 2, "requires_grad": True})]:
        same(lambda m, a=args, k=kw: m.from_file(path, *a, **_kw(m, k)))
    same(lambda m: m.from_file(str(tmp_path / "missing.bin"), size=2))
    shared = ember.from_file(path, True, 6)
    shared[0] = 100
    assert np.fromfile(path, dtype=np.float32)[0] == 100
    private = ember.from_file(path, False, 6)
    private[0] = 7
    assert np.fromfile(path, dtype=np.float32)[0] == 100 and private[0].item() == 7
    new = str(tmp_path / "new.bin")
    assert ember.from_file(new, True, 2).tolist() == [0.0, 0.0]
    assert (tmp_path / "new.bin").stat().st_size == 8


EMPTY_PERMUTED = [((2, 3, 4), (0, 2, 1), {}), ((2, 3, 4), (2, 0, 1), {"dtype": "int8"}),
                  ([2, 3, 4], [2, 0, 1], {"requires_grad": True}), ((2, 3, 4), (0, 1), {}),
                  ((2, 3, 4), (0, 1, 1), {}), ((2, 3, 4), (0, 1, 3), {}), ((2, 3, 4), (0, 1, -1), {}), ((), (), {}),
                  ((2, -1), (0, 1), {}), (3, (0,), {})]


@pytest.mark.parametrize("size,layout,kw", EMPTY_PERMUTED, ids=str)
def test_empty_permuted(size, layout, kw):
    same(lambda m: m.empty_permuted(size, layout, **_kw(m, kw)), values=False)


NZ = [[[0, 1], [2, 0], [3, 4]]]


@pytest.mark.parametrize("data,kw", [
    (NZ[0], {"size": 2}), (NZ[0], {"size": 6, "fill_value": -7}), (NZ[0], {"size": 0}), (NZ[0], {"size": -1}),
    (3.0, {"size": 2}), ([0.0, 1.5, 2.0], {"size": 3}), ([True, False], {"size": 1}),
    (NZ[0], {"size": 2, "fill_value": 2.5}),
], ids=str)
def test_nonzero_static(data, kw):
    same(lambda m: m.nonzero_static(m.tensor(data), **kw))
    same(lambda m: m.tensor(data).nonzero_static(**kw))


SPLITS = {
    "split": lambda m, x: m.unsafe_split(x, 4), "chunk": lambda m, x: m.unsafe_chunk(x, 4),
    "sizes": lambda m, x: m.unsafe_split_with_sizes(x, [2, 4]),
    "bad_sizes": lambda m, x: m.unsafe_split_with_sizes(x, [2, 3]), "split0": lambda m, x: m.unsafe_split(x, 0),
    "chunk0": lambda m, x: m.unsafe_chunk(x, 0), "split_list": lambda m, x: m.unsafe_split(x, [2, 4]),
    "dim1": lambda m, x: m.unsafe_split(x.reshape(2, 3), 2, 1), "chunk_neg": lambda m, x: m.unsafe_chunk(
        x.reshape(2, 3), 2, -1), "bad_dim": lambda m, x: m.unsafe_split(x, 2, 1),
    "method_split": lambda m, x: x.unsafe_split(2), "method_chunk": lambda m, x: x.unsafe_chunk(3),
    "method_sizes": lambda m, x: x.unsafe_split_with_sizes([1, 5]),
}


@pytest.mark.parametrize("case", list(SPLITS))
def test_unsafe_split_family(case):
    same(lambda m: SPLITS[case](m, m.arange(6.0).requires_grad_()))


def test_unsafe_split_outputs_modify_in_place_and_backward():
    for m in (ember, torch):
        x = m.arange(6.0).requires_grad_()
        z = x * 1
        parts = m.unsafe_split(z, 2)
        parts[0].add_(1)
        assert z.tolist() == [1.0, 2.0, 2.0, 3.0, 4.0, 5.0]
        parts = m.unsafe_chunk(x * 1, 3)
        (parts[0].sum() * 2 + parts[2].sum()).backward()
        assert x.grad.tolist() == [2.0, 2.0, 0.0, 0.0, 1.0, 1.0]


@pytest.mark.parametrize("args", [(), (3, 1), (2, -1), (2, 2), (2, -2), (2, 3), (2.5, 0), (0, 1), (1, 0)], ids=str)
def test_norm_except_dim(args):
    # (strides of the size-1 dims are PyTorch's transpose artifacts: not compared)
    same(lambda m: m.norm_except_dim(m.arange(24.0).reshape(2, 3, 4), *args), strides=False)


@pytest.mark.parametrize("make", [lambda m: m.arange(3), lambda m: m.tensor(3.0), lambda m: m.tensor([3.0, -4.0])])
def test_norm_except_dim_edges(make):
    same(lambda m: m.norm_except_dim(make(m), 2, 0), strides=False)


def test_norm_except_dim_gradients():
    v = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda q: ember.norm_except_dim(q, 2, 1), (v,))
    tv = torch.tensor(v.detach().numpy(), requires_grad=True)
    torch.norm_except_dim(tv, 3, 0).sum().backward()
    ember.norm_except_dim(v, 3, 0).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), tv.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("idx,max_norm,norm_type", [
    ([0, 2, 2], 5.0, 2.0), ([[1, 3]], 1.0, 1.0), ([1, 5], 1.0, 1.0), ([-1], 1.0, 1.0), ([1], 1.0, float("inf")),
    ([1], 1.0, 0.0), ([-5, 7], 1.0, 2.0), ([3, 7, 5], 1.0, 2.0), ([-1, 3], 1.0, 2.0), ([], 1.0, 2.0), ([1], 1, 2),
], ids=str)
def test_embedding_renorm_(idx, max_norm, norm_type):
    def run(m):
        w = m.arange(12.0).reshape(4, 3)
        try:
            m.embedding_renorm_(w, m.tensor(idx, dtype=m.int64), max_norm, norm_type)
        except IndexError as e:
            return w, str(e)
        return w, None

    (we, ee), (wt, et) = run(ember), run(torch)
    assert ee == et
    assert we.tolist() == wt.tolist()  # bit for bit: the scale is computed in double, as aten does


@pytest.mark.parametrize("case", ["float_idx", "int32_idx", "1d", "int_weight", "leaf"])
def test_embedding_renorm_errors(case):
    make = {"float_idx": lambda m: (m.arange(12.0).reshape(4, 3), m.tensor([1.0, 2])),
            "int32_idx": lambda m: (m.arange(12.0).reshape(4, 3), m.tensor([1, 2], dtype=m.int32)),
            "1d": lambda m: (m.arange(12.0), m.tensor([1])),
            "int_weight": lambda m: (m.arange(12).reshape(4, 3), m.tensor([1])),
            "leaf": lambda m: (m.arange(12.0).reshape(4, 3).requires_grad_(), m.tensor([1]))}[case]
    same(lambda m: m.embedding_renorm_(*make(m), 1.0, 2.0))


@pytest.mark.parametrize("template,kw", [((2, 2), {}), ((3, 4), {"memory_format": "channels_last"}),
                                         ((1, 3, 2, 2), {"memory_format": "channels_last"})], ids=str)
def test_resize_as_(template, kw):
    def run(m):
        x = m.arange(6.0)
        r = m.resize_as_(x, m.zeros(template), **{k: getattr(m, v) for k, v in kw.items()})
        assert r is x
        return r

    same(run, values=False)
    same(lambda m: m.resize_as_(m.arange(6.0).requires_grad_(), m.zeros(2, 3)))


THETA = [[[1.0, 0.2, 0.0], [0.1, 1.0, 0.3]]]
AFFINE = {
    "4d": lambda m: m.affine_grid_generator(m.tensor(THETA), [1, 1, 2, 3], False),
    "corners": lambda m: m.affine_grid_generator(m.tensor(THETA), [1, 1, 2, 3], True),
    "tuple": lambda m: m.affine_grid_generator(m.tensor(THETA), (1, 1, 2, 3), False),
    "3d_size": lambda m: m.affine_grid_generator(m.tensor(THETA), [1, 1, 2], False),
    "5d_size_2d_theta": lambda m: m.affine_grid_generator(m.tensor(THETA), [1, 1, 2, 2, 2], False),
    "5d": lambda m: m.affine_grid_generator(m.ones(2, 3, 4), [2, 1, 3, 1, 2], True),
    "float64": lambda m: m.affine_grid_generator(m.tensor(THETA, dtype=m.float64), [1, 1, 2, 3], False),
    "float16": lambda m: m.affine_grid_generator(m.tensor(THETA).half(), [1, 1, 2, 3], False),
    "batch": lambda m: m.affine_grid_generator(m.tensor(THETA), [2, 1, 2, 3], False),
    "flag": lambda m: m.affine_grid_generator(m.tensor(THETA), [1, 1, 2, 3], 1),
    "2d_theta": lambda m: m.affine_grid_generator(m.tensor(THETA)[0], [1, 1, 2, 3], False),
    "3x3": lambda m: m.affine_grid_generator(m.ones(1, 3, 3), [1, 1, 2, 3], False),
    "empty": lambda m: m.affine_grid_generator(m.tensor(THETA), [1, 1, 0, 3], False),
    "unit": lambda m: m.affine_grid_generator(m.tensor(THETA), [1, 1, 1, 1], True),
}


@pytest.mark.parametrize("case", list(AFFINE))
def test_affine_grid_generator(case):
    same(AFFINE[case])


def test_affine_grid_generator_gradient():
    grads = []
    for m in (ember, torch):
        th = m.tensor(THETA, requires_grad=True)
        g = m.affine_grid_generator(th, [1, 1, 2, 3], False)
        (g * g).sum().backward()
        grads.append(th.grad.tolist())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)


X2 = [1.0, 2.0]
COND = {
    "bool": lambda m: m.cond(True, lambda x: x + 1, lambda x: x - 1, (m.tensor(X2),)),
    "tensor_false": lambda m: m.cond(m.tensor(False), lambda x: x + 1, lambda x: x - 1, (m.tensor(X2),)),
    "tensor_many": lambda m: m.cond(m.tensor([True, False]), lambda x: x + 1, lambda x: x - 1, (m.tensor(X2),)),
    "int": lambda m: m.cond(1, lambda x: x + 1, lambda x: x - 1, (m.tensor(X2),)),
    "list": lambda m: m.cond(True, lambda x: x + 1, lambda x: x - 1, [m.tensor(X2)]),
    "tuple_out": lambda m: m.cond(True, lambda x: (x + 1, x * 2), lambda x: (x - 1, x), (m.tensor(X2),)),
    "no_operands": lambda m: m.cond(False, lambda: 1, lambda: 2),
    "not_callable": lambda m: m.cond(m.tensor(True), lambda x: x + 1, 5, (m.tensor(X2),)),
    "bare_operand": lambda m: m.cond(m.tensor(True), lambda x: x + 1, lambda x: x - 1, m.tensor(X2)),
    "int_operand": lambda m: m.cond(m.tensor(True), lambda x, y: x + y, lambda x, y: x - y, (m.tensor(X2), 2)),
    "float_pred": lambda m: m.cond(m.tensor(1.0), lambda x: x + 1, lambda x: x - 1, (m.tensor(X2),)),
}


@pytest.mark.parametrize("case", list(COND))
def test_cond(case):
    same(COND[case])


def test_cond_gradient():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    ember.cond(x.sum() > 0, lambda t: (t * t).sum(), lambda t: t.sum(), (x,)).backward()
    assert x.grad.tolist() == [2.0, 4.0]


BINOMIAL_ERRORS = {
    "double_prob": lambda m: m.binomial(m.ones(3), m.ones(3, dtype=m.float64) / 2),
    "long_count": lambda m: m.binomial(m.ones(3).long(), m.ones(3) / 2),
    "half": lambda m: m.binomial(m.ones(3).half(), m.ones(3).half() / 2),
    "bfloat16": lambda m: m.binomial(m.ones(3).bfloat16(), m.ones(3).bfloat16() / 2),
    "generator_int": lambda m: m.binomial(m.ones(3), m.ones(3) / 2, 5),
    "edges": lambda m: m.binomial(m.tensor([-1.0, 3.0, 3.5, 3.0, 7.0]), m.tensor([0.5, -0.2, 1.5, float("nan"), 0.0])),
    "broadcast_shape": lambda m: m.binomial(m.tensor([3.0]), m.tensor([[1.0, 1.0]])),
    "float64": lambda m: m.binomial(m.tensor([4.0], dtype=m.float64), m.tensor([1.0], dtype=m.float64)),
}


@pytest.mark.parametrize("case", list(BINOMIAL_ERRORS))
def test_binomial_dtypes_edges_and_errors(case):
    same(BINOMIAL_ERRORS[case])


@pytest.mark.parametrize("n,p", [(50.0, 0.3), (5.0, 0.3), (1000.0, 0.9), (12.0, 0.95), (3.5, 0.5), (20.5, 0.4)])
def test_binomial_distribution_matches_torch(n, p):
    """Mean and variance of 200k draws against PyTorch's (and the exact moments for whole counts);
    fractional counts go through ember's tensor-round samplers, whole ones through NumPy's."""
    N = 200_000
    ember.manual_seed(0)
    e = ember.binomial(ember.full((N,), n), ember.full((N,), p)).numpy().astype(np.float64)
    torch.manual_seed(0)
    t = torch.binomial(torch.full((N,), n), torch.full((N,), p)).numpy().astype(np.float64)
    assert (e == np.floor(e)).all() and e.min() >= 0 and e.max() <= n
    tol_mean = 6 * np.sqrt(t.var() / N) + 1e-9
    assert abs(e.mean() - t.mean()) < 2 * tol_mean
    assert abs(e.var() - t.var()) < 0.05 * t.var() + 1e-9
    if n == int(n):
        assert abs(e.mean() - n * p) < tol_mean


def test_binomial_small_counts_follow_the_pmf():
    from math import comb

    N, n, p = 100_000, 4, 0.3
    e = ember.binomial(ember.full((N,), float(n)), ember.full((N,), p)).numpy()
    freq = np.bincount(e.astype(np.int64), minlength=n + 1) / N
    pmf = np.array([comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)])
    np.testing.assert_allclose(freq, pmf, atol=0.01)


def test_binomial_is_reproducible_with_seeds_and_generators():
    c, p = ember.full((1000,), 30.0), ember.full((1000,), 0.4)
    ember.manual_seed(5)
    a = ember.binomial(c, p)
    ember.manual_seed(5)
    assert ember.equal(a, ember.binomial(c, p))
    g1, g2 = ember.Generator().manual_seed(7), ember.Generator().manual_seed(7)
    assert ember.equal(ember.binomial(c, p, generator=g1), ember.binomial(c, p, generator=g2))
    half = ember.full((1000,), 30.5)  # fractional counts: the tensor-round samplers
    g1, g2 = ember.Generator().manual_seed(7), ember.Generator().manual_seed(7)
    assert ember.equal(ember.binomial(half, p, g1), ember.binomial(half, p, g2))


def test_binomial_without_numpy(monkeypatch):
    from ember import _sample_binomial

    monkeypatch.setattr(_sample_binomial, "_numpy", lambda: None)
    N = 100_000
    for n, p in [(40.0, 0.3), (6.0, 0.7)]:
        e = ember.binomial(ember.full((N,), n), ember.full((N,), p)).numpy()
        assert abs(e.mean() - n * p) < 6 * np.sqrt(n * p * (1 - p) / N)
        assert abs(e.var() - n * p * (1 - p)) < 0.05 * n * p * (1 - p)
    edges = ember.binomial(ember.tensor([-1.0, 3.0, 3.5, 3.0]), ember.tensor([0.5, -0.2, 1.5, float("nan")]))
    assert edges[:3].tolist() == [0.0, 0.0, 3.5] and edges[3].isnan()


@pytest.mark.parametrize("name", ["new_empty", "new_zeros", "new_ones"])
def test_new_factories_take_size_keyword(name: str) -> None:
    torch = pytest.importorskip("torch")
    for size in [(2, 3), [4], ()]:
        mine = getattr(ember.ones(2, dtype=ember.float64), name)(size=size)
        theirs = getattr(torch.ones(2, dtype=torch.float64), name)(size=size)
        assert tuple(mine.shape) == tuple(theirs.shape) and str(mine.dtype) == str(theirs.dtype)
    with pytest.raises(TypeError, match="multiple values for argument 'size'"):
        getattr(ember.ones(2), name)(2, size=(3,))
    with pytest.raises(TypeError, match="unexpected keyword argument 'sz'"):
        getattr(ember.ones(2), name)(sz=2)


@pytest.mark.parametrize("name", ["new_empty", "new_zeros", "new_ones", "new_full"])
def test_new_factories_take_layout_and_pin_memory(name: str) -> None:
    """PyTorch's new_* take layout= and pin_memory= too (torch.autograd.gradcheck passes layout=)."""
    torch = pytest.importorskip("torch")
    for L in (ember, torch):
        x = L.ones(2, dtype=L.float64)
        args = ((2, 3), 1.5) if name == "new_full" else ((2, 3),)
        y = getattr(x, name)(*args, layout=L.strided, pin_memory=False)
        assert tuple(y.shape) == (2, 3) and y.layout == L.strided and str(y.dtype) == "torch.float64"
        if not L.cuda.is_available():
            with pytest.raises(RuntimeError, match="pin_memory=True requires"):
                getattr(x, name)(*args, pin_memory=True)
