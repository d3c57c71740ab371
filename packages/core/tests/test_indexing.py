"""Tensor.__getitem__ / __setitem__ with advanced indices, compared with PyTorch.

Random index expressions (ints, slices with steps, None, Ellipsis, integer tensors, lists and
bool masks) run through both libraries; results, errors and gradients must agree.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
import ember  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def to_ember(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return ember.from_numpy(x.detach().numpy().copy())
    if isinstance(x, tuple):
        return tuple(to_ember(i) for i in x)
    if isinstance(x, list):
        return [to_ember(i) for i in x]
    return x


def same(e: Any, t: torch.Tensor) -> None:
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    assert str(e.dtype).rsplit(".", 1)[-1] == str(t.dtype).rsplit(".", 1)[-1]
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def outcome(fn: Any) -> Any:
    try:
        return fn(), None
    except Exception as exc:  # noqa: BLE001 - the type is what we compare
        return None, type(exc)


# ---- the random index expressions -----------------------------------------------------------

@st.composite
def index_exprs(draw: Any) -> tuple:
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=4)))
    ndim = len(shape)
    parts: list = []
    d = 0
    use_ellipsis = draw(st.booleans()) and ndim > 0
    ellipsis_at = draw(st.integers(0, 3)) if use_ellipsis else -1
    n_parts = draw(st.integers(1, 4))
    for k in range(n_parts):
        if k == ellipsis_at:
            parts.append(Ellipsis)
            # The ellipsis swallows some dims; the rest of the expression targets trailing dims.
            d = max(d, ndim - draw(st.integers(0, max(ndim - d, 0))))
            continue
        kind = draw(st.sampled_from(["int", "slice", "none", "tensor", "list", "mask", "tensor2d"]))
        if kind == "none":
            parts.append(None)
            continue
        if d >= ndim:
            break
        size = shape[d]
        if kind == "int":
            parts.append(draw(st.integers(-size - 1, size)))
            d += 1
        elif kind == "slice":
            start = draw(st.none() | st.integers(-size - 1, size + 1))
            stop = draw(st.none() | st.integers(-size - 1, size + 1))
            step = draw(st.none() | st.integers(1, 3))
            parts.append(slice(start, stop, step))
            d += 1
        elif kind in ("tensor", "list", "tensor2d"):
            lo, hi = -size, max(size - 1, -size)
            if draw(st.integers(0, 9)) == 0:
                hi += 2  # sometimes out of range
            n = draw(st.integers(0, 3))
            vals = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n)) if size or hi > lo else []
            if kind == "list":
                parts.append(list(vals))
            elif kind == "tensor":
                parts.append(torch.tensor(vals, dtype=torch.int64))
            else:
                parts.append(torch.tensor(vals + vals, dtype=torch.int64).reshape(2, len(vals)))
            d += 1
        else:
            k_dims = draw(st.integers(0, min(2, ndim - d)))
            mshape = shape[d:d + k_dims]
            bits = draw(st.lists(st.booleans(), min_size=int(np.prod(mshape)), max_size=int(np.prod(mshape))))
            parts.append(torch.tensor(bits, dtype=torch.bool).reshape(mshape))
            d += k_dims
    index = parts[0] if len(parts) == 1 and draw(st.booleans()) else tuple(parts)
    return shape, index


def make_input(shape: tuple, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.arange(int(np.prod(shape)), dtype=torch.float64).reshape(shape).to(dtype)


@settings(max_examples=300, deadline=None)
@given(index_exprs())
def test_getitem_matches_torch(case: tuple) -> None:
    shape, index = case
    xt = make_input(shape)
    rt, et = outcome(lambda: xt[index])
    re, ee = outcome(lambda: to_ember(xt)[to_ember(index)])
    assert ee == et, (index, ee, et)
    if et is None:
        same(re, rt.contiguous())


@settings(max_examples=300, deadline=None)
@given(index_exprs(), st.sampled_from(["scalar", "full", "row", "int-tensor"]))
def test_setitem_matches_torch(case: tuple, value_kind: str) -> None:
    shape, index = case
    xt = make_input(shape)
    target, err = outcome(lambda: xt[index])
    if err is None:
        # Duplicate targets make the written value order-dependent: use a scalar then.
        pos = make_input(shape, torch.float64)[index]
        if pos.numel() != pos.unique().numel():
            value_kind = "scalar"
        if value_kind == "full":
            value = torch.arange(target.numel(), dtype=torch.float32).reshape(target.shape) + 100
        elif value_kind == "row" and target.dim() > 0:
            value = torch.arange(target.shape[-1], dtype=torch.float32) - 50
        elif value_kind == "int-tensor":
            value = torch.tensor(-7)
        else:
            value = -3.5
    else:
        value = 1.0
    xe = to_ember(xt)

    def put(x: Any, idx: Any, v: Any) -> Any:
        x[idx] = v
        return x

    rt, et = outcome(lambda: put(xt, index, value))
    re, ee = outcome(lambda: put(xe, to_ember(index), to_ember(value)))
    assert ee == et, (index, ee, et)
    if et is None:
        same(re, rt)


# ---- fixed cases: placement, masks, dtypes, errors ------------------------------------------

CASES = [
    (lambda t: (t([0, 2]), slice(None), t([1, 3])), (3, 4, 5)),       # separated -> first
    (lambda t: (slice(None), t([0, 2]), t([1, 3])), (3, 4, 5)),       # adjacent -> in place
    (lambda t: (0, slice(None), t([1, 3])), (3, 4, 5)),               # int + tensor
    (lambda t: (t([[0], [2]]), t([1, 3, 0])), (3, 4)),                # broadcasting
    (lambda t: (Ellipsis, t([1, -1])), (2, 3, 4)),
    (lambda t: (None, t([1, 0]), None), (3, 4)),
    (lambda t: t(True), (3,)),
    (lambda t: t(False), (3, 2)),
    (lambda t: (slice(None), t([[True, False, True, True]] * 3)), (2, 3, 4)),
    (lambda t: t([[True, False], [False, True], [True, True]]), (3, 2, 2)),
    (lambda t: ([], ), (3, 2)),
    (lambda t: (t([0, 1]), t([0, 1, 2])), (3, 4)),                    # shape mismatch
    (lambda t: t([5]), (3,)),                                        # out of range
    (lambda t: t([1.0]), (3,)),                                      # float index
    (lambda t: t([True, False]), (3,)),                              # mask shape mismatch
    (lambda t: (t([0]), t([0]), t([0])), (3, 4)),                     # too many
]


def _ten(lib: Any) -> Any:
    return lambda v: lib.tensor(v)


@pytest.mark.parametrize("make_index,shape", CASES, ids=[str(i) for i in range(len(CASES))])
def test_fixed_getitem(make_index: Any, shape: tuple) -> None:
    xt = make_input(shape)
    rt, et = outcome(lambda: xt[make_index(_ten(torch))])
    re, ee = outcome(lambda: to_ember(xt)[make_index(_ten(ember))])
    assert ee == et
    if et is None:
        same(re, rt.contiguous())


def test_out_of_range_message() -> None:
    x = ember.zeros(3)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x[ember.tensor([5])]
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x[[5]] = 1.0
    assert x.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
def test_setitem_value_dtypes(dtype: str) -> None:
    """Python numbers are cast; tensor values of another dtype are an error (index_put_'s rule)."""
    xt = torch.zeros(3, 4, dtype=getattr(torch, dtype))
    xe = to_ember(xt)
    idx = [[0, 2], [1, 3]]
    for v in (torch.tensor([1.7, -2.2]), torch.tensor([1, 0], dtype=getattr(torch, dtype)), 3, 2.5, True):
        def put(x: Any, i: Any, val: Any) -> Any:
            x[i] = val
            return x
        _, et = outcome(lambda v=v: put(xt, idx, v))
        _, ee = outcome(lambda v=v: put(xe, idx, to_ember(v)))
        assert ee == et
        same(xe, xt)


def test_setitem_mask_tensor_value() -> None:
    xt = torch.arange(12.0).reshape(3, 4)
    xe = to_ember(xt)
    xt[xt > 5] = torch.tensor(0.5)
    xe[xe > 5] = ember.tensor(0.5)
    same(xe, xt)
    xt[:, torch.tensor([True, False, True, False])] = torch.tensor([[1.0, 2.0]])
    xe[:, ember.tensor([True, False, True, False])] = ember.tensor([[1.0, 2.0]])
    same(xe, xt)


# ---- gradients through indexing ---------------------------------------------------------------

GRAD_INDEXES = [
    lambda t: (t([0, 2, 0]),),
    lambda t: (slice(None), t([[1, 1], [0, 3]])),
    lambda t: (t([True, False, True]),),
    lambda t: (1, t([3, 0, 3])),
    lambda t: (t([0, 2]), slice(1, None), None),
]


@pytest.mark.parametrize("k", range(len(GRAD_INDEXES)))
def test_getitem_grad(k: int) -> None:
    make = GRAD_INDEXES[k]
    xt = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    xe = to_ember(xt).requires_grad_(True)
    yt = xt[make(_ten(torch))]
    ye = xe[make(_ten(ember))]
    assert ye.grad_fn is not None
    gt = torch.randn(yt.shape, dtype=torch.float64)
    yt.backward(gt)
    ye.backward(to_ember(gt))
    same(xe.grad, xt.grad)


@pytest.mark.parametrize("k", range(len(GRAD_INDEXES)))
def test_setitem_grad(k: int) -> None:
    make = GRAD_INDEXES[k]
    if k == 0:  # duplicate targets: the surviving write is unspecified
        make = lambda t: (t([0, 2]),)  # noqa: E731
    xt = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    xe = to_ember(xt).requires_grad_(True)
    shape = xt.detach()[make(_ten(torch))].shape
    vt = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    ve = to_ember(vt).requires_grad_(True)
    at, ae = xt * 2, xe * 2
    at[make(_ten(torch))] = vt
    ae[make(_ten(ember))] = ve
    gt = torch.randn(3, 4, dtype=torch.float64)
    at.backward(gt)
    ae.backward(to_ember(gt))
    same(xe.grad, xt.grad)
    same(ve.grad, vt.grad)


def test_getitem_grad_fn_name() -> None:
    x = ember.randn(3, 4, requires_grad=True)
    assert type(x[[0, 1]].grad_fn).__name__ == "IndexBackward0"


def test_gradcheck_through_index() -> None:
    gradcheck = ember.autograd.gradcheck
    x = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    idx = ember.tensor([[0, 2], [2, 2]])
    assert gradcheck(lambda a: a[idx, 1:] * a[idx, 1:], (x,))
    assert ember.autograd.gradgradcheck(lambda a: a[idx] ** 2, (x,))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_gradcheck(reduce: str, include_self: bool) -> None:
    """Every reduction, both include_self modes: first and second derivatives (float64, no ties)."""
    g = ember.Generator().manual_seed(3)
    x = ember.randn(4, 5, dtype=ember.float64, generator=g).requires_grad_()
    src = ember.randn(3, 5, dtype=ember.float64, generator=g).requires_grad_()
    idx = ember.randint(0, 4, (3, 5), generator=g)

    def fn(a: Any, b: Any) -> Any:
        return ember.scatter_reduce(a, 0, idx, b, reduce, include_self=include_self)

    assert ember.autograd.gradcheck(fn, (x, src))
    assert ember.autograd.gradgradcheck(fn, (x, src))


def test_scatter_reduce_prod_zeros_grad_matches_torch() -> None:
    """prod with one and with two zeros meeting at a position (the exclusive-product rule)."""
    torch = pytest.importorskip("torch")
    x = torch.tensor([[1.5, 0.0, 2.0], [3.0, -1.0, 0.5]], dtype=torch.float64)
    src = torch.tensor([[0.0, 2.0, 0.0], [4.0, 0.0, 0.0]], dtype=torch.float64)
    idx = torch.tensor([[0, 0, 1], [0, 1, 1]])
    for include_self in (True, False):
        xt, st_ = x.clone().requires_grad_(), src.clone().requires_grad_()
        torch.scatter_reduce(xt, 0, idx, st_, "prod", include_self=include_self).sum().backward()
        xe = ember.tensor(x.numpy()).requires_grad_()
        se = ember.tensor(src.numpy()).requires_grad_()
        ember.scatter_reduce(xe, 0, ember.tensor(idx.numpy()), se, "prod", include_self=include_self).sum().backward()
        np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy())
        np.testing.assert_allclose(se.grad.numpy(), st_.grad.numpy())


def test_index_into_empty_dim_counts_broadcast_indices() -> None:
    # aten checks an index into a dim of size 0 after broadcasting: an empty broadcast reads nothing
    for shape, idx in [((0, 0), lambda m: (m.tensor([0]), m.tensor([], dtype=m.bool))),
                       ((0, 3), lambda m: (m.tensor([0]), m.zeros(0, dtype=m.int64))),
                       ((0, 3), lambda m: (m.tensor([0]),))]:
        rt, et = outcome(lambda: torch.zeros(shape)[idx(torch)])
        re, ee = outcome(lambda: ember.zeros(shape)[idx(ember)])
        assert ee == et
        if et is None:
            assert tuple(re.shape) == tuple(rt.shape)
        xt, xe = torch.zeros(shape), ember.zeros(shape)
        _, et = outcome(lambda: xt.__setitem__(idx(torch), 1.0))
        _, ee = outcome(lambda: xe.__setitem__(idx(ember), 1.0))
        assert ee == et


@pytest.mark.parametrize("expr", ["x[None]", "x[:, None]", "x[..., None]", "x[None, 0]", "x[1:3, None, ::2]",
                                  "x[True]", "x[None, None]"])
def test_new_unit_dims_take_unsqueeze_strides(expr: str) -> None:
    # a None (or True) dim gets unsqueeze's stride, as aten's applySlicing makes it
    r_t, r_e = eval(expr, {"x": torch.randn(4, 5)}), eval(expr, {"x": ember.randn(4, 5)})
    assert tuple(r_e.shape) == tuple(r_t.shape) and r_e.stride() == r_t.stride()


@pytest.mark.parametrize("index, value_shape", [(slice(0, 2), (3,)), (0, (2, 5)), ((0, slice(1, 3)), (1, 1, 2))])
def test_setitem_broadcast_matches_torch(index: Any, value_shape: tuple[int, ...]) -> None:
    # the value is expanded to the indexed view before the copy (expand's errors), profiler or not
    outs = []
    for lib in (torch, ember):
        x, v = lib.zeros(4, 5), lib.arange(float(np.prod(value_shape))).reshape(value_shape)
        try:
            x[index] = v
            outs.append(x.tolist())
        except RuntimeError as e:
            outs.append(str(e))
    assert outs[0] == outs[1]
