"""The meta device: tensors with sizes, strides and dtype but no memory, as PyTorch's "meta" is used
to build a model without allocating it (``with torch.device("meta")``, then ``to_empty`` and a
state dict). Each case runs the same code on ember and on torch and compares the outcome: the
result's device, shape, strides and dtype, or the error's type and text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")


def _describe(r: Any) -> Any:
    """What a result shows without values: nested structures of (device, shape, strides, dtype)."""
    if isinstance(r, (tuple, list)):
        return type(r).__name__ if not hasattr(r, "_fields") else "tuple", [_describe(x) for x in r]
    if hasattr(r, "shape") and hasattr(r, "device"):
        return (str(r.device), tuple(r.shape), tuple(r.stride()), str(r.dtype).replace("ember.", "torch."))
    return repr(r).replace("ember", "torch")


def _outcome(fn: Callable[[], Any]) -> Any:
    try:
        return _describe(fn())
    except Exception as e:  # noqa: BLE001 -- the outcome compared is the exception itself
        return f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"


def _m(L: Any, *shape: int, dtype: Any = None) -> Any:
    return L.ones(*shape, device="meta", dtype=dtype)


# (name, build): build(L) runs on ember or torch and returns the result compared.
CASES: list[tuple[str, Callable[[Any], Any]]] = [
    ("empty", lambda L: L.empty(2, 3, device="meta")),
    ("zeros_int", lambda L: L.zeros(4, dtype=L.int64, device="meta")),
    ("full", lambda L: L.full((2,), 3.0, device="meta")),
    ("arange", lambda L: L.arange(5, device="meta")),
    ("linspace", lambda L: L.linspace(0, 1, 5, device="meta")),
    ("eye", lambda L: L.eye(3, device="meta")),
    ("randn", lambda L: L.randn(3, 4, device="meta")),
    ("randperm", lambda L: L.randperm(5, device="meta")),
    ("tensor_data", lambda L: L.tensor([1, 2], device="meta")),
    ("empty_strided", lambda L: L.empty_strided((2, 3), (1, 2), device="meta")),
    ("channels_last", lambda L: L.empty(2, 3, 4, 5, device="meta", memory_format=L.channels_last)),
    ("add", lambda L: _m(L, 2, 3) + _m(L, 3)),
    ("add_cpu_scalar", lambda L: _m(L, 2, 3) + L.tensor(1.0)),
    ("add_number", lambda L: _m(L, 2, 3) * 2),
    ("promote", lambda L: _m(L, 2, dtype=L.int32) + _m(L, 2, dtype=L.float16)),
    ("mismatch_meta_cpu", lambda L: _m(L, 2, 3) + L.ones(2, 3)),
    ("mismatch_cpu_meta", lambda L: L.ones(2, 3) + _m(L, 2, 3)),
    ("cat_mismatch", lambda L: L.cat([_m(L, 2, 3), L.ones(2, 3)])),
    ("matmul", lambda L: _m(L, 2, 3) @ _m(L, 3, 4)),
    ("bmm", lambda L: L.bmm(_m(L, 5, 2, 3), _m(L, 5, 3, 4))),
    ("linear", lambda L: L.nn.functional.linear(_m(L, 8, 3), _m(L, 4, 3), _m(L, 4))),
    ("sum", lambda L: _m(L, 2, 3).sum()),
    ("mean_dim", lambda L: _m(L, 2, 3, 4).mean(1, keepdim=True)),
    ("max_dim", lambda L: _m(L, 3, 4).max(0)),
    ("argmax", lambda L: _m(L, 3, 4).argmax(1)),
    ("sort", lambda L: _m(L, 3, 4).sort()),
    ("topk", lambda L: _m(L, 3, 8).topk(2)),
    ("cumsum", lambda L: _m(L, 3, 4).cumsum(1)),
    ("softmax", lambda L: _m(L, 3, 4).softmax(-1)),
    ("log_softmax", lambda L: L.log_softmax(_m(L, 3, 4), 1)),
    ("layer_norm", lambda L: L.nn.functional.layer_norm(_m(L, 2, 5), (5,))),
    ("conv2d", lambda L: L.nn.functional.conv2d(_m(L, 1, 3, 8, 8), _m(L, 4, 3, 3, 3), padding=1)),
    ("max_pool2d", lambda L: L.nn.functional.max_pool2d(_m(L, 1, 3, 8, 8), 2)),
    ("embedding", lambda L: L.nn.functional.embedding(L.zeros(2, 5, dtype=L.long, device="meta"), _m(L, 10, 4))),
    ("cross_entropy", lambda L: L.nn.functional.cross_entropy(_m(L, 4, 10),
                                                              L.zeros(4, dtype=L.long, device="meta"))),
    ("sdpa", lambda L: L.nn.functional.scaled_dot_product_attention(_m(L, 2, 4, 6, 8), _m(L, 2, 4, 6, 8),
                                                                    _m(L, 2, 4, 6, 8))),
    ("gelu", lambda L: L.nn.functional.gelu(_m(L, 3))),
    ("where", lambda L: L.where(_m(L, 3) > 0, _m(L, 3), 0.0)),
    ("index_select_out_of_range", lambda L: _m(L, 5).index_select(0, L.tensor([0, 9], device="meta"))),
    ("getitem_slice", lambda L: _m(L, 5, 4)[1:, ::2]),
    ("getitem_tensor", lambda L: _m(L, 5, 4)[L.tensor([0, 4])]),
    ("getitem_meta_index", lambda L: _m(L, 5, 4)[L.zeros(3, dtype=L.long, device="meta")]),
    ("gather", lambda L: _m(L, 3, 4).gather(1, L.zeros(3, 2, dtype=L.long, device="meta"))),
    ("scatter_add", lambda L: _m(L, 3, 4).scatter_add(1, L.zeros(3, 2, dtype=L.long, device="meta"), _m(L, 3, 2))),
    ("view_transpose", lambda L: _m(L, 2, 3, 4).view(6, 4).t()),
    ("permute_contiguous", lambda L: _m(L, 2, 3, 4).permute(2, 0, 1).contiguous()),
    ("clone_preserve", lambda L: _m(L, 2, 3).t().clone()),
    ("to_dtype", lambda L: _m(L, 2, 3).to(L.float16)),
    ("uniform_", lambda L: _m(L, 2, 3).uniform_()),
    ("normal_", lambda L: _m(L, 2, 3).normal_(0, 0.02)),
    ("bernoulli_tensor", lambda L: _m(L, 3).bernoulli_(_m(L, 3))),
    ("zero_", lambda L: _m(L, 2, 3).zero_()),
    ("fill_", lambda L: _m(L, 2, 3).fill_(5)),
    ("copy_from_cpu", lambda L: _m(L, 2, 3).copy_(L.zeros(3))),
    ("copy_bad_shape", lambda L: _m(L, 2, 3).copy_(L.zeros(4))),
    ("to_meta", lambda L: L.zeros(3).to("meta")),
    ("to_meta_non_blocking", lambda L: L.zeros(3).to("meta", non_blocking=True)),
    ("empty_like_cpu", lambda L: L.empty_like(_m(L, 2, 3), device="cpu")),
    ("new_empty", lambda L: _m(L, 2).new_empty(3)),
    ("new_zeros", lambda L: _m(L, 2).new_zeros((2, 2))),
    ("one_hot_classes", lambda L: L.nn.functional.one_hot(L.zeros(3, dtype=L.long, device="meta"), 5)),
    ("one_hot_infer", lambda L: L.nn.functional.one_hot(L.zeros(3, dtype=L.long, device="meta"))),
    ("max_unpool2d", lambda L: L.nn.functional.max_unpool2d(_m(L, 1, 2, 3, 3), L.zeros(1, 2, 3, 3, dtype=L.long,
                                                                                       device="meta"), 2)),
    ("rrelu_training", lambda L: L.rrelu(_m(L, 3), training=True)),
    ("embedding_renorm_", lambda L: L.embedding_renorm_(_m(L, 10, 4), L.zeros(3, dtype=L.long, device="meta"),
                                                        1.0, 2.0)),
    ("type", lambda L: (_m(L, 2).type(), L.typename(_m(L, 2, dtype=L.long)))),
    ("share_memory_", lambda L: _m(L, 2).share_memory_()),
    # no data to read
    ("cpu", lambda L: _m(L, 2, 3).cpu()),
    ("copy_to_cpu", lambda L: L.zeros(3).copy_(_m(L, 3))),
    ("item", lambda L: _m(L, 1).item()),
    ("item_many", lambda L: _m(L, 3).item()),
    ("bool", lambda L: bool(_m(L, 1))),
    ("float", lambda L: float(_m(L, 1))),
    ("tolist", lambda L: _m(L, 2).tolist()),
    ("numpy", lambda L: _m(L, 2).numpy()),
    ("pin_memory", lambda L: _m(L, 2).pin_memory()),
    ("generator", lambda L: L.Generator("meta")),
    # attributes
    ("is_meta", lambda L: (_m(L, 2).is_meta, L.ones(2).is_meta, _m(L, 2).is_cpu, _m(L, 2).is_cuda)),
    ("get_device", lambda L: _m(L, 2).get_device()),
    ("device", lambda L: (L.device("meta"), L.device("meta:0"), L.device("meta", 1), str(L.device("meta")))),
    ("data_ptr", lambda L: _m(L, 2, 3)[1].data_ptr()),
    ("nbytes", lambda L: (_m(L, 2, 3).untyped_storage().nbytes(), _m(L, 2, 3).element_size())),
    ("repr", lambda L: (repr(_m(L, 2, 3)), repr(_m(L, 0)), repr(L.zeros(2, dtype=L.long, device="meta")))),
    ("repr_grad", lambda L: repr(_m(L, 2).requires_grad_())),
]


@pytest.mark.parametrize("name,build", CASES, ids=[c[0] for c in CASES])
def test_meta_matches_torch(name: str, build: Callable[[Any], Any]) -> None:
    assert _outcome(lambda: build(ember)) == _outcome(lambda: build(torch))


def _grads(L: Any) -> Any:
    x = L.ones(4, 3, device="meta", requires_grad=True)
    w = L.ones(5, 3, device="meta", requires_grad=True)
    y = L.nn.functional.linear(x, w).relu().sort(1).values.sum()
    y.backward()
    return x.grad, w.grad


def test_backward_on_meta() -> None:
    assert _outcome(lambda: _grads(ember)) == _outcome(lambda: _grads(torch))


def _build_and_materialise(L: Any) -> Any:
    """The low-memory loading idiom: build on meta, move to the CPU without copying, then load."""
    def make() -> Any:
        return L.nn.Sequential(L.nn.Linear(3, 4), L.nn.LayerNorm(4), L.nn.ReLU(), L.nn.Linear(4, 2))

    L.manual_seed(0)
    source = make()
    with L.device("meta"):
        model = make()
    before = [(str(p.device), type(p).__name__) for p in model.parameters()]
    model.to_empty(device="cpu")
    model.load_state_dict(source.state_dict())
    out = model(L.ones(2, 3))
    return before, [str(p.device) for p in model.parameters()], out.detach().numpy().round(5).tolist()


def test_build_on_meta_then_load() -> None:
    assert _build_and_materialise(ember) == _build_and_materialise(torch)


def _assign_load(L: Any) -> Any:
    m = L.nn.Linear(3, 2, device="meta")
    sd = {"weight": L.ones(2, 3), "bias": L.zeros(2)}
    m.load_state_dict(sd, assign=True)
    return str(m.weight.device), type(m.weight).__name__, m.weight.requires_grad, m(L.ones(1, 3)).tolist()


def test_load_state_dict_assign_from_meta() -> None:
    assert _assign_load(ember) == _assign_load(torch)


def test_module_to_from_meta_names_to_empty() -> None:
    for L in (ember, torch):
        with pytest.raises(NotImplementedError, match=r"Please use torch.nn.Module.to_empty\(\)"):
            L.nn.Linear(3, 4, device="meta").to("cpu")


def _init_on_meta(L: Any) -> Any:
    """nn.init on meta tensors runs (nothing to write) and leaves the CPU generator alone."""
    L.manual_seed(0)
    w = L.empty(4, 4, device="meta")
    for init in (L.nn.init.kaiming_uniform_, L.nn.init.xavier_normal_, L.nn.init.trunc_normal_, L.nn.init.zeros_):
        init(w)
    return _describe(w), L.rand(2).tolist()


def test_init_on_meta_leaves_the_generator() -> None:
    assert _init_on_meta(ember) == _init_on_meta(torch)


def _set_data(L: Any, meta_first: bool) -> Any:
    p = L.nn.Parameter(L.ones(2, device="meta" if meta_first else "cpu"))
    p.data = L.ones(2, device="cpu" if meta_first else "meta")
    return p


@pytest.mark.parametrize("meta_first", [True, False])
def test_set_data_across_meta_refused(meta_first: bool) -> None:
    assert _outcome(lambda: _set_data(ember, meta_first)) == _outcome(lambda: _set_data(torch, meta_first))


def test_default_device_meta() -> None:
    ember.set_default_device("meta")
    try:
        assert ember.zeros(2).device.type == "meta"
        assert ember.get_default_device() == ember.device("meta")
    finally:
        ember.set_default_device(None)
    assert ember.zeros(2).device.type == "cpu"


def test_save_load_meta_both_ways(tmp_path: Any) -> None:
    """A meta tensor is saved as PyTorch saves it (sizes, strides, dtype; no bytes) and loads in
    either library."""
    ours, theirs = tmp_path / "ember.pt", tmp_path / "torch.pt"
    ember.save({"w": ember.ones(2, 3, device="meta").t(), "p": ember.nn.Parameter(ember.empty(4, device="meta")),
                "i": ember.zeros(2, dtype=ember.int64, device="meta")}, ours)
    torch.save({"w": torch.ones(2, 3, device="meta").t(), "p": torch.nn.Parameter(torch.empty(4, device="meta")),
                "i": torch.zeros(2, dtype=torch.int64, device="meta")}, theirs)
    for path in (ours, theirs):
        for L in (ember, torch):
            got = L.load(path, weights_only=True)
            assert {k: _describe(v) for k, v in got.items()} == {
                "w": ("meta", (3, 2), (1, 3), "torch.float32"), "p": ("meta", (4,), (1,), "torch.float32"),
                "i": ("meta", (2,), (1,), "torch.int64")}
            assert type(got["p"]).__name__ == "Parameter" and got["p"].requires_grad


def test_load_with_map_location_meta(tmp_path: Any) -> None:
    """map_location="meta" loads a checkpoint's shapes and dtypes without their values."""
    path = tmp_path / "w.pt"
    torch.save({"w": torch.ones(2, 3).t(), "n": torch.arange(4)}, path)
    got = {k: _describe(v) for k, v in ember.load(path, map_location="meta", weights_only=True).items()}
    want = {k: _describe(v) for k, v in torch.load(path, map_location="meta", weights_only=True).items()}
    assert got == want
