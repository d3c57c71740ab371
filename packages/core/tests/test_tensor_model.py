"""The tensor model: dtypes, promotion, broadcasting, views, version counters (spec/core.md §1–§4)."""

from __future__ import annotations

import ember
import pytest

torch = pytest.importorskip("torch")


def test_import_and_namespace() -> None:
    assert ember.float32.is_floating_point and not ember.int64.is_floating_point
    assert repr(ember.float32) == "torch.float32"
    assert ember.get_default_dtype() == ember.float32


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda t: t.tensor([1, 2, 3]) + 2.5, "float32"),
        (lambda t: t.tensor([1, 2], dtype=t.int32) + 5, "int32"),
        (lambda t: t.tensor([1.0], dtype=t.float16) + 2.5, "float16"),
        (lambda t: t.tensor([1], dtype=t.uint8) + t.tensor([1], dtype=t.int8), "int16"),
        (lambda t: t.tensor(1) + t.tensor(1.5), "float32"),
        (lambda t: t.tensor(1, dtype=t.int8) + t.tensor(1000), "int64"),
        (lambda t: t.tensor([1, 2]) * True, "int64"),
        (lambda t: t.tensor([True]) + t.tensor([True]), "bool"),
        (lambda t: t.tensor([True]) + 1, "int64"),
        (lambda t: t.tensor([True]) + 1.5, "float32"),
        (lambda t: t.tensor([1.0], dtype=t.float16) + t.tensor(1.0, dtype=t.float64), "float16"),
        (lambda t: t.tensor([1.0], dtype=t.float16) + t.tensor([1.0], dtype=t.float64), "float64"),
        (lambda t: t.tensor([1, 2]) + t.tensor(1.5, dtype=t.float64), "float64"),
        (lambda t: t.tensor([1, 2], dtype=t.int32) + t.tensor(5), "int32"),
        (lambda t: t.tensor([1.0], dtype=t.float16) + t.tensor([1.0], dtype=t.bfloat16), "float32"),
        (lambda t: t.tensor([1, 2]) / t.tensor([2, 2]), "float32"),
        (lambda t: t.add(5, 5), "int64"),
        (lambda t: t.where(t.tensor([True, False]), t.tensor([1, 2]), 0.5), "float32"),
        (lambda t: t.clamp(t.tensor([1, 2]), min=1.5), "float32"),
        (lambda t: t.maximum(t.tensor([1, 2]), t.tensor([1.0, 3.0])), "float32"),
    ],
)
def test_type_promotion(make, expected) -> None:  # type: ignore[no-untyped-def]
    assert str(make(torch).dtype) == f"torch.{expected}"
    assert str(make(ember).dtype) == f"torch.{expected}"


def test_scalar_wraps_into_tensor_dtype() -> None:
    assert (ember.tensor([1], dtype=ember.uint8) + 300).tolist() == [45]
    assert (ember.tensor([250, 3], dtype=ember.uint8) - 5).tolist() == [245, 254]
    assert (ember.tensor([1, 2], dtype=ember.int8) + 1000).tolist() == [-23, -22]


def test_inplace_casting_errors() -> None:
    x = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        x.add_(1.5)
    with pytest.raises(RuntimeError):
        ember.tensor([True]).add_(1)
    f = ember.zeros(2)
    f.add_(ember.tensor([1, 2]))
    assert f.tolist() == [1.0, 2.0]


def test_broadcasting_and_errors() -> None:
    assert (ember.ones(3, 1) + ember.ones(1, 4)).shape == (3, 4)
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        ember.ones(3) + ember.ones(2)
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        ember.ones(3).add_(ember.ones(2, 3))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ember.ones(3, 1).expand(3, 4).add_(1)


def test_views_share_storage_and_version() -> None:
    a = ember.arange(12).reshape(3, 4)
    v = a[1, 1:3]
    v.fill_(-1)
    assert a[1].tolist() == [4, -1, -1, 7]
    b = ember.zeros(4)
    b.add_(1)
    b[0:1].mul_(2)
    assert b._version == b[0:1]._version == 2  # add_ and the view's mul_ (zeros starts at 0, as in torch)
    t = ember.ones(3, 2).t()
    assert t.stride() == (1, 2) and not t.is_contiguous()
    assert t.clone().stride() == (1, 2)
    assert t.contiguous().is_contiguous()
    c = ember.ones(2, 3)
    assert c.contiguous() is c


def test_view_errors() -> None:
    x = ember.arange(12)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        x.view(-1, -1)
    with pytest.raises(RuntimeError, match=r"shape '\[5, -1\]' is invalid for input of size 12"):
        x.view(5, -1)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.view(3, 4).t().view(12)
    assert x.view(3, 4).t().reshape(12).tolist() == [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]


def test_indexing_basic() -> None:
    x = ember.arange(24).reshape(2, 3, 4)
    assert x[1, 1:3:1, ...].tolist() == [[16, 17, 18, 19], [20, 21, 22, 23]]
    assert x[..., None].shape == (2, 3, 4, 1)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 2"):
        x[5]
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        ember.tensor(1.0)[0]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]


def test_conversions() -> None:
    t = ember.tensor([[1.5]])
    assert t.item() == 1.5 and float(t) == 1.5 and int(t) == 1
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        ember.ones(2).item()
    with pytest.raises(ValueError, match="only one element tensors"):
        float(ember.ones(2))
    with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
        bool(ember.ones(2))
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(ember.tensor(1))
    f = ember.ones(2)
    assert f.float() is f and f.to(ember.float32) is f
    assert f.type() == "torch.FloatTensor"


def test_numpy_shares_memory() -> None:
    np = pytest.importorskip("numpy")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = ember.from_numpy(a)
    t[0, 0] = 100.0
    assert a[0, 0] == 100.0
    n = t.numpy()
    n[1, 2] = -1
    assert t[1, 2].item() == -1
    assert ember.tensor(a).data_ptr() != t.data_ptr()
    with pytest.raises(ValueError, match="negative"):
        ember.from_numpy(a[:, ::-1])
    with pytest.raises(TypeError, match="BFloat16"):
        ember.ones(2, dtype=ember.bfloat16).numpy()


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks a machine without a GPU")
def test_cuda_stub_raises_clearly() -> None:
    with pytest.raises(RuntimeError, match="Torch not compiled with CUDA enabled"):
        ember.ones(2).cuda()
    with pytest.raises(AssertionError):
        ember.ones(2).to("cuda")
    assert ember.cuda.is_available() is False


def test_pickle_round_trip() -> None:
    import pickle

    import ember

    t = ember.arange(6.0).reshape(2, 3).t()
    u = pickle.loads(pickle.dumps(t))
    assert u.tolist() == t.tolist() and u.dtype == t.dtype and not u.requires_grad
    b = pickle.loads(pickle.dumps(ember.ones(2, dtype=ember.bfloat16, requires_grad=True)))
    assert b.dtype == ember.bfloat16 and b.requires_grad and b.is_leaf
    assert pickle.loads(pickle.dumps(ember.empty(0, 3))).shape == (0, 3)
    assert pickle.loads(pickle.dumps(ember.tensor(5))).item() == 5
