"""Regression tests for what the library-code scripts found: antialiased interpolate, grouped-query SDPA's
per-tensor head checks, ``torch._assert``, ``torch.utils._pytree`` and ``torch.mps``."""

from __future__ import annotations

import collections
import warnings
from typing import Any

import ember
import numpy as np
import pytest


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("kw", [{"size": (3, 4)}, {"size": (11, 2)}, {"scale_factor": 0.37}, {"size": (1, 1)},
                                {"scale_factor": (2.3, 0.5)}, {"scale_factor": 0.5, "recompute_scale_factor": True}])
def test_interpolate_antialias_matches_torch(torch: Any, mode: str, align_corners: bool, kw: dict) -> None:
    # timm's pos-embedding resize: F.interpolate(..., mode="bicubic", antialias=True) was NotImplementedError
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 9, 7)).astype(np.float32)
    g = rng.standard_normal(tuple(torch.nn.functional.interpolate(
        torch.from_numpy(x), mode=mode, align_corners=align_corners, antialias=True, **kw).shape)).astype(np.float32)
    grads, outs = [], []
    for lib in (ember, torch):
        xi = lib.from_numpy(x.copy()).requires_grad_()
        y = lib.nn.functional.interpolate(xi, mode=mode, align_corners=align_corners, antialias=True, **kw)
        y.backward(lib.from_numpy(g.copy()))
        outs.append(y.detach().numpy())
        grads.append(xi.grad.numpy())
        assert y.dtype == lib.float32
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-5)


def test_interpolate_antialias_float64_and_errors(torch: Any) -> None:
    x = np.arange(2 * 3 * 6 * 6, dtype=np.float64).reshape(2, 3, 6, 6)
    a = ember.nn.functional.interpolate(ember.from_numpy(x.copy()), size=(4, 5), mode="bicubic", antialias=True)
    b = torch.nn.functional.interpolate(torch.from_numpy(x), size=(4, 5), mode="bicubic", antialias=True)
    assert a.dtype == ember.float64
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    for dt in ("float16", "bfloat16"):
        with pytest.raises(NotImplementedError, match="compute_index_ranges_weights"):
            ember.nn.functional.interpolate(ember.ones(1, 1, 4, 4, dtype=getattr(ember, dt)), size=2, mode="bilinear",
                                            antialias=True)
    with pytest.raises(RuntimeError, match="Input and output sizes should be greater than 0"):
        ember.nn.functional.interpolate(ember.ones(1, 1, 4, 4), size=(0, 2), mode="bilinear", antialias=True)
    cl = ember.ones(1, 3, 6, 6).contiguous(memory_format=ember.channels_last)
    out = ember.nn.functional.interpolate(cl, size=(3, 3), mode="bilinear", antialias=True)
    assert out.is_contiguous(memory_format=ember.channels_last)


def _sdpa(lib: Any, qs: tuple, ks: tuple, vs: tuple, **kw: Any) -> Any:
    g = lib.Generator().manual_seed(0)
    q, k, v = (lib.randn(*s, generator=g) for s in (qs, ks, vs))
    try:
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, **kw).numpy()
    except Exception as e:  # noqa: BLE001 - the error itself is compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("shapes", [
    ((2, 4, 5, 8), (2, 2, 7, 8), (2, 1, 7, 8)),  # key and value grouped separately
    ((2, 4, 5, 8), (2, 2, 7, 8), (2, 4, 7, 8)),
    ((2, 4, 5, 8), (1, 2, 7, 8), (1, 2, 7, 8)),
    ((4, 5, 8), (2, 7, 8), (2, 7, 8)),
    ((2, 4, 5, 8), (2, 3, 7, 8), (2, 3, 7, 8)),  # not a divisor: aten's own message
    ((2, 4, 5, 8), (2, 8, 7, 8), (2, 8, 7, 8)),
    ((2, 4, 5, 8), (2, 2, 7, 8), (2, 3, 7, 8)),
    ((5, 8), (7, 8), (7, 8)),  # enable_gqa reads dim -3
])
@pytest.mark.parametrize("is_causal", [False, True])
def test_sdpa_enable_gqa_heads(torch: Any, shapes: tuple, is_causal: bool) -> None:
    a = _sdpa(ember, *shapes, enable_gqa=True, is_causal=is_causal)
    b = _sdpa(torch, *shapes, enable_gqa=True, is_causal=is_causal)
    if isinstance(b, tuple):
        assert a == b
    else:
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_assert_function(torch: Any) -> None:
    for lib in (ember, torch):
        lib._assert(True, "never")
        lib._assert(lib.tensor(True), "never")
        with pytest.raises(AssertionError, match="boom"):
            lib._assert(lib.tensor(False), "boom")
        with pytest.raises(AssertionError) as info:
            lib._assert(0, 3)
        assert info.value.args == (3,)


NT = collections.namedtuple("NT", "x y")


class _Out(collections.OrderedDict):
    pass


def _pytree_run(lib: Any) -> list[Any]:
    P = lib.utils._pytree
    if _Out not in P.SUPPORTED_NODES:
        P.register_pytree_node(_Out, lambda o: (list(o.values()), list(o.keys())), lambda v, k: _Out(zip(k, v)),
                               serialized_type_name="tests._Out")
    tree = {"b": [1, (2, None)], "a": NT(3, {"z": 4}), "c": collections.OrderedDict(q=5),
            "d": collections.defaultdict(int, {"k": 6}), "e": collections.deque([7, 8], maxlen=4), "o": _Out(u=9, v=[10]),
            "r": lib.tensor([[1.0, 3.0]]).max(dim=1)}
    leaves, spec = P.tree_flatten(tree)
    out: list[Any] = [[x if not hasattr(x, "tolist") else x.tolist() for x in leaves], repr(spec).replace("torch", "T")
                      .replace("ember", "T"), spec.num_leaves, spec.num_nodes, spec.num_children, spec.is_leaf()]
    ints = [x * 10 if isinstance(x, int) else x for x in leaves]
    rebuilt = P.tree_unflatten(ints, spec)
    out += [repr({k: v for k, v in rebuilt.items() if k != "r"}), type(rebuilt["r"]).__name__]
    out += [repr(P.tree_map(lambda x: x + 1 if isinstance(x, int) else x, [tree["a"], (1, 2)],
                            is_leaf=lambda x: isinstance(x, tuple) and not hasattr(x, "_fields")))]
    out += [P.tree_structure([1, 2]) == P.tree_structure([3, 4]), P.tree_structure([1, 2]) == P.tree_structure((3, 4))]
    out += [P.tree_map_only(int, lambda x: -x, [1, "a", 2.0]), P.tree_map_only((int, float), lambda x: -x, [1, 2.0])]
    out += [P.tree_any(lambda x: x == 4, tree), P.tree_all(lambda x: isinstance(x, int), [1, 2]),
            P.tree_map(lambda a, b: (a, b), [1, 2], [10, [20, 3]])]
    for f in [lambda: P.tree_map(lambda a, b: a + b, [1, 2], [10, 20, 30]),
              lambda: P.tree_map(lambda a, b: a, [1, 2], (1, 2)),
              lambda: P.tree_map(lambda a, b: a, {"a": 1}, {"b": 1}),
              lambda: P.tree_unflatten([1], P.tree_structure([1, 2])),
              lambda: P.tree_map(lambda a, b: a, [1, [2]], [1, 2])]:
        try:
            out.append(repr(f()))
        except ValueError as e:
            out.append(str(e))
    out += [repr(P.tree_flatten(None)), P.tree_leaves([None, 1]), P.tree_leaves({}), repr(P.tree_structure(3))]
    out += [repr(P.tree_flatten_with_path({"a": [1, 2], "n": NT(3, 4)})[0]),
            repr(P.tree_map_with_path(lambda p, x: P.keystr(p), {"a": [1, NT(2, 3)]}))]
    with pytest.raises(ValueError, match="already registered"):
        P.register_pytree_node(list, lambda x: (x, None), lambda v, c: v)
    return out


def test_utils_pytree_matches_torch(torch: Any) -> None:
    # transformers registers ModelOutput with torch.utils._pytree; accelerate/diffusers call tree_map
    import ember.utils._pytree as ep

    assert ember.utils._pytree is ep
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        a, b = _pytree_run(ember), _pytree_run(torch)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x == y


def test_mps_module(torch: Any) -> None:
    # accelerate / transformers probe torch.mps and seed it unconditionally
    for lib in (ember, torch):
        assert lib.mps.device_count() == 0 and lib.mps.manual_seed(0) is None
        assert not lib.mps.is_available() and not lib.backends.mps.is_available()
        for fn in ("empty_cache", "synchronize", "current_allocated_memory", "seed"):
            with pytest.raises(RuntimeError, match="without MPS backend"):
                getattr(lib.mps, fn)()


def _dynamo_run(lib: Any) -> list[Any]:
    d, c = lib._dynamo, lib._dynamo.config
    out: list[Any] = []
    x = lib.ones(3)
    out.append((d.mark_dynamic(x, 0), d.mark_static(x, 0), d.maybe_mark_dynamic(x, 0), d.graph_break()))
    with c.patch(suppress_errors=True):
        out.append(c.suppress_errors)
    with c.patch("verbose", True):
        out.append(c.verbose)
    out.append(c.suppress_errors)

    @c.patch(cache_size_limit=3)
    def limits() -> tuple[int, int]:
        return c.cache_size_limit, c.recompile_limit

    out += [limits(), c.cache_size_limit]
    for bad in (lambda: c.patch(nope=1).__enter__(), lambda: c.nope, lambda: setattr(c, "nope", 1)):
        with pytest.raises(AttributeError) as info:
            bad()
        out.append(str(info.value))
    c.suppress_errors = True
    out.append(c.suppress_errors)
    c.suppress_errors = False
    c.cache_size_limit = 64  # the old name writes the new one
    out.append(c.recompile_limit)
    c.cache_size_limit = 8

    @d.disable
    def double(v: int) -> int:
        return v * 2

    out += [double(2), d.optimize("eager")(lambda v: v + 1)(1), d.is_compiling(), d.allow_in_graph(abs)(-1)]
    return out


def test_dynamo_module(torch: Any) -> None:
    # `torch._dynamo.config.suppress_errors = True` and @torch._dynamo.disable in library code
    import torch._dynamo  # noqa: F401 - torch loads it lazily

    assert _dynamo_run(ember) == _dynamo_run(torch)


@pytest.mark.parametrize("use_reentrant", [True, False])
@pytest.mark.parametrize("fwd_autocast", [True, False])
def test_checkpoint_recomputes_under_forward_autocast(torch: Any, use_reentrant: bool, fwd_autocast: bool) -> None:
    # a bf16-autocast forward through checkpoint(), backward outside autocast: the recomputation must use the
    # forward's autocast state (was a CheckpointError for saved-dtype mismatch / a wrong-dtype grad)
    results = []
    for lib in (ember, torch):
        lib.manual_seed(0)
        lin = lib.nn.Linear(4, 4)
        x = lib.randn(3, 4, requires_grad=True)
        seen: list[tuple[bool, str]] = []

        def block(a: Any, lib: Any = lib, lin: Any = lin, seen: list = seen) -> Any:
            seen.append((lib.is_autocast_enabled("cpu"), str(lib.get_autocast_dtype("cpu")).split(".")[-1]))
            return lin(a).relu()

        with lib.autocast("cpu", dtype=lib.bfloat16, enabled=fwd_autocast):
            y = lib.utils.checkpoint.checkpoint(block, x, use_reentrant=use_reentrant)
        y.float().sum().backward()
        results.append((str(y.dtype).split(".")[-1], seen, x.grad.numpy(), lin.weight.grad.numpy()))
    (de, se, gxe, gwe), (dt, st, gxt, gwt) = results
    assert de == dt and se == st
    np.testing.assert_allclose(gxe, gxt, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gwe, gwt, rtol=1e-5, atol=1e-6)


def _deepcopy_run(lib: Any) -> list[Any]:
    import copy

    out: list[Any] = []
    w = lib.ones(2, requires_grad=True)
    w.grad = lib.full((2,), 3.0)
    w.tag = [1]
    c = copy.deepcopy(w)  # MAML-style `fast_weights = deepcopy(w)`: a fresh leaf, grad and attributes copied
    out += [c.is_leaf, c.grad_fn is None, c.requires_grad, c.grad.tolist(), c.tag, c.tag is w.tag]
    (c * 2).sum().backward()
    out.append(c.grad.tolist())
    x = lib.arange(6.0)
    d = copy.deepcopy({"a": x, "b": x[2:], "c": x.view(2, 3)})  # views keep sharing one copied storage
    d["a"][3] = 100.0
    out += [d["b"].tolist(), d["c"].tolist(), d["b"].storage_offset(), x.tolist()]
    with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
        copy.deepcopy(w * 2)
    return out


def test_tensor_deepcopy(torch: Any) -> None:
    assert _deepcopy_run(ember) == _deepcopy_run(torch)


def test_parameter_subclass_with_extra_new_arguments(torch: Any) -> None:
    # bitsandbytes' Params4bit pattern: a Parameter subclass whose __new__ takes more keywords
    out = []
    for lib in (ember, torch):
        class QParam(lib.nn.Parameter):
            def __new__(cls, data: Any = None, requires_grad: bool = False, quant_state: Any = None) -> Any:
                self = lib.Tensor._make_subclass(cls, lib.empty(0) if data is None else data, requires_grad)
                self.quant_state = quant_state
                return self

        lib.manual_seed(0)
        lin = lib.nn.Linear(2, 2)
        lin.weight = QParam(lin.weight.detach().clone(), requires_grad=True, quant_state={"absmax": 1.0})
        out.append((type(lin.weight).__name__, lin.weight.quant_state, lin.weight.requires_grad,
                    [n for n, _ in lin.named_parameters()], lin(lib.ones(1, 2)).tolist()))
        with pytest.raises(TypeError):
            lib.nn.Parameter(lib.ones(1), True, 3)
    assert out[0] == out[1]


@pytest.mark.parametrize("layout", ["t", "permute", "channels_last", "strided_slice"])
def test_dropout_mask_on_permuted_input_matches_torch(torch: Any, layout: str) -> None:
    # PyTorch draws the mask in the input's memory order and keeps its strides: dropout after a batch_first
    # attention output (a transpose) or on a channels_last activation drew a different mask before
    make = {"t": lambda lib: lib.ones(6, 5).t(), "permute": lambda lib: lib.ones(2, 3, 4).permute(2, 0, 1),
            "channels_last": lambda lib: lib.ones(2, 3, 4, 4).to(memory_format=lib.channels_last),
            "strided_slice": lambda lib: lib.ones(4, 6)[:, ::2]}[layout]
    out = []
    for lib in (ember, torch):
        x = make(lib).requires_grad_()
        lib.manual_seed(7)
        y = lib.nn.functional.dropout(x, 0.4)
        y.backward(lib.ones_like(y))
        after = lib.rand(2)
        out.append((y.detach().numpy().copy(), y.stride(), x.grad.numpy().copy(), after.numpy()))
    for a, b in zip(*out):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_transformer_layer_batch_first_dropout_matches_torch(torch: Any) -> None:
    outs = []
    for lib in (ember, torch):
        lib.manual_seed(0)
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, batch_first=True)
        x = lib.randn(2, 3, 8)
        outs.append((layer(x).detach().numpy(), lib.rand(2).numpy()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(outs[0][1], outs[1][1])


def _inference_mode_run(lib: Any) -> list[Any]:
    out: list[Any] = []
    lin = lib.nn.Linear(2, 2)
    with lib.inference_mode():
        out.append((lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
        with lib.inference_mode(False):  # a training step nested in an inference block
            out.append((lib.is_grad_enabled(), lib.is_inference_mode_enabled(), lin(lib.ones(1, 2)).requires_grad))
        out.append((lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
    with lib.no_grad():
        with lib.inference_mode(False):
            out.append((lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
        out.append(lib.is_grad_enabled())
    return out


def test_inference_mode_false_enables_grad(torch: Any) -> None:
    assert _inference_mode_run(ember) == _inference_mode_run(torch)


def _group_norm_run(lib: Any) -> list[Any]:
    out: list[Any] = []
    for kw in ({}, {"bias": False}, {"affine": False}, {"affine": False, "bias": True}):
        lib.manual_seed(0)
        g = lib.nn.GroupNorm(2, 4, **kw)
        if g.weight is not None:
            g.weight.data.mul_(2)
        y = g(lib.randn(2, 4, 3))
        g.reset_parameters()
        out.append((repr(g), sorted(g.state_dict()), [n for n, _ in g.named_parameters()],
                    round(float((y * lib.arange(3.0)).sum().detach()), 4)))
    return out


def test_group_norm_bias_keyword(torch: Any) -> None:
    # GroupNorm(..., bias=False): a scale-only affine (PyTorch 2.13's keyword; was a TypeError)
    assert _group_norm_run(ember) == _group_norm_run(torch)


def test_checkpoint_early_stop_keyword(torch: Any) -> None:
    import inspect

    for lib in (ember, torch):
        lin = lib.nn.Linear(2, 2)
        x = lib.ones(1, 2, requires_grad=True)
        for reentrant in (False, True):
            lib.utils.checkpoint.checkpoint(lin, x, use_reentrant=reentrant, early_stop=False).sum().backward()
    assert (list(inspect.signature(ember.utils.checkpoint.checkpoint).parameters)
            == list(inspect.signature(torch.utils.checkpoint.checkpoint).parameters))


def test_norm_and_hardtanh_keywords(torch: Any) -> None:
    # InstanceNorm*d(..., bias=False) and Hardtanh's deprecated min_value / max_value (PyTorch 2.13 signatures)
    out = []
    for lib in (ember, torch):
        res = []
        for kw in ({"affine": True}, {"affine": True, "bias": False}, {"affine": True, "track_running_stats": True,
                                                                       "bias": False}):
            lib.manual_seed(0)
            m = lib.nn.InstanceNorm2d(3, **kw)
            m.weight.data.mul_(3)
            y = m(lib.randn(2, 3, 4, 4))
            res.append((repr(m), sorted(m.state_dict()), round(float((y * lib.arange(4.0)).sum().detach()), 4)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            h = lib.nn.Hardtanh(min_value=-2.0, max_value=3.0)
        res.append((repr(h), h(lib.tensor([-5.0, 5.0])).tolist(), [(w.category, str(w.message)) for w in caught]))
        out.append(res)
    assert out[0] == out[1]


@pytest.mark.parametrize("foreach", [None, True])
def test_clip_grad_norm_mixed_dtypes(torch: Any, foreach: Any) -> None:
    # bf16 and fp32 gradients (a partly-cast model): the total norm is promoted to float32 as PyTorch's,
    # not computed in the first gradient's dtype
    out = []
    for lib in (ember, torch):
        a = lib.nn.Parameter(lib.ones(3, dtype=lib.bfloat16))
        b = lib.nn.Parameter(lib.ones(2))
        a.grad = lib.full((3,), 2.0, dtype=lib.bfloat16)
        b.grad = lib.full((2,), 3.0)
        n = lib.nn.utils.clip_grad_norm_([a, b], 1.0, foreach=foreach)
        out.append((str(n.dtype).split(".")[-1], n.item(), a.grad.float().tolist(), b.grad.tolist()))
    assert out[0] == out[1]


def _hub_run(lib: Any, tmp: Any, monkeypatch: Any) -> list[Any]:
    import hashlib
    import os
    import shutil

    src = tmp / "src"
    src.mkdir()
    monkeypatch.setenv("TORCH_HOME", str(tmp / "home"))
    lib.hub._hub_dir = None
    lib.save({"w": lib.arange(3.0)}, str(src / "m.pth"))
    digest = hashlib.sha256((src / "m.pth").read_bytes()).hexdigest()
    shutil.copy(src / "m.pth", src / f"model-{digest[:8]}.pth")
    shutil.copy(src / "m.pth", src / "bad-deadbeef.pth")
    (src / "hubconf.py").write_text("dependencies = ['numpy']\n"
                                    "def tiny(scale=1.0):\n    return {'scale': scale}\n")
    out: list[Any] = [os.path.relpath(lib.hub.get_dir(), tmp), lib.hub.HASH_REGEX.pattern]
    sd = lib.hub.load_state_dict_from_url(f"file://{src}/m.pth", progress=False, weights_only=True)
    out.append(sd["w"].tolist())
    sd = lib.utils.model_zoo.load_url(f"file://{src}/model-{digest[:8]}.pth", check_hash=True, progress=False)
    out.append(sd["w"].tolist())
    with pytest.raises(RuntimeError, match="invalid hash value") as info:
        lib.hub.load_state_dict_from_url(f"file://{src}/bad-deadbeef.pth", check_hash=True, progress=False)
    out.append(str(info.value).replace(digest, "<digest>"))  # the two libraries' files differ in bytes
    out.append(sorted(n.replace(digest[:8], "<h>") for n in os.listdir(os.path.join(lib.hub.get_dir(), "checkpoints"))))
    lib.hub.load_state_dict_from_url(f"file://{src}/m.pth", model_dir=str(tmp / "md"), file_name="r.pth",
                                     progress=False)
    out.append(sorted(os.listdir(tmp / "md")))
    out.append(lib.hub.load(str(src), "tiny", source="local", scale=2.0))
    for bad in (lambda: lib.hub.load(str(src), "nope", source="local"),
                lambda: lib.hub.load(str(src), "tiny", source="bogus")):
        with pytest.raises((RuntimeError, ValueError)) as err:
            bad()
        out.append((type(err.value).__name__, str(err.value)))
    lib.hub.set_dir(str(tmp / "elsewhere"))
    out.append(os.path.relpath(lib.hub.get_dir(), tmp))
    lib.hub._hub_dir = None
    return out


def test_hub_cache_and_local_load(torch: Any, tmp_path: Any, monkeypatch: Any) -> None:
    # timm / torchvision import torch.hub at import time and fetch pretrained weights through it
    (tmp_path / "e").mkdir()
    (tmp_path / "t").mkdir()
    import torch.utils.model_zoo  # noqa: F401 - torch loads it lazily

    assert _hub_run(ember, tmp_path / "e", monkeypatch) == _hub_run(torch, tmp_path / "t", monkeypatch)


def test_types_aliases(torch: Any) -> None:
    # `from torch.types import Device, Number, _size` in library signatures
    import typing

    for name in ("Device", "Number", "_size", "_dtype", "_device", "_int", "_float", "_bool", "FileLike",
                 "IntLikeType", "_TensorOrTensors", "Storage"):
        assert hasattr(ember.types, name) and hasattr(torch.types, name), name
    assert ember.types._dtype is ember.dtype and ember.types._device is ember.device
    assert set(typing.get_args(ember.types.Number)) == set(typing.get_args(torch.types.Number)) == {int, float, bool}
    assert str in typing.get_args(ember.types.Device) and type(None) in typing.get_args(ember.types.Device)



def _library_run(lib: Any) -> list[Any]:
    out: list[Any] = []

    def op(fn: Any, annotations: dict[str, Any], name: str, **kw: Any) -> Any:
        # real annotation objects: this file's annotations are strings (__future__), which torch cannot resolve
        fn.__annotations__ = annotations
        return lib.library.custom_op(name, mutates_args=kw.pop("mutates_args", ()), **kw)(fn)

    T = lib.Tensor
    mysin = op(lambda x, scale=1.0: x.sin() * scale, {"x": T, "scale": float, "return": T}, "lc30::mysin")

    out.append((type(mysin).__name__, mysin(lib.zeros(2)).tolist(), lib.ops.lc30.mysin(lib.ones(1), 2.0).tolist(),
                lib.ops.lc30.mysin.default(lib.ones(1)).tolist()))
    x = lib.ones(2, requires_grad=True)
    y = mysin(x)
    out.append((y.requires_grad, type(y.grad_fn).__name__.startswith("GeneratedBackwardFor_lc30_mysin_default")))
    with pytest.raises(RuntimeError) as info:  # no formula registered yet
        y.sum().backward()
    out.append(str(info.value))

    def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
        ctx.save_for_backward(inputs[0])
        ctx.scale = inputs[1]

    def backward(ctx: Any, grad: Any) -> Any:
        (saved,) = ctx.saved_tensors
        return grad * saved.cos() * ctx.scale, None

    mysin.register_autograd(backward, setup_context=setup_context)
    x = lib.ones(2, requires_grad=True)
    mysin(x, scale=3.0).sum().backward()
    out.append([round(v, 5) for v in x.grad.tolist()])
    mysin.register_fake(lambda x, scale=1.0: lib.empty_like(x))
    with lib.no_grad():
        out.append(mysin(x).requires_grad)

    def add_one(x: Any) -> None:
        x.add_(1)

    addone_ = op(add_one, {"x": T, "return": None}, "lc30::addone_", mutates_args={"x"})

    t = lib.zeros(2)
    addone_(t)
    out.append((t.tolist(), lib.ops.lc30.addone_(t), t.tolist()))
    ns = lib.library.Library("lc30b", "DEF")
    ns.define("twice(Tensor x) -> Tensor")
    ns.impl("twice", lambda x: x * 2, "CompositeExplicitAutograd")
    out.append(lib.ops.lc30b.twice(lib.ones(2)).tolist())
    lib.library.define("lc30b::thrice", "(Tensor x) -> Tensor", lib=ns)
    lib.library.impl("lc30b::thrice", "cpu", lambda x: x * 3, lib=ns)
    out.append(lib.ops.lc30b.thrice(lib.ones(1)).tolist())
    lib.library.define("lc30b::sq", "(Tensor x) -> Tensor", lib=ns)
    ns.impl("sq", lambda x: x * x, "CompositeImplicitAutograd")  # differentiable as written
    x = lib.full((2,), 3.0, requires_grad=True)
    lib.ops.lc30b.sq(x).sum().backward()
    out.append(x.grad.tolist())
    with pytest.raises(AttributeError) as err:
        _ = lib.ops.lc30b.nope
    out.append(str(err.value))

    kern = op(lambda x: x + 1, {"x": T, "return": T}, "lc30::kern", device_types="cpu")

    kern.register_kernel("cuda")(lambda x: x + 2)
    out.append(kern(lib.zeros(1)).tolist())
    return out


def test_library_custom_ops(torch: Any) -> None:
    # torch.library: bitsandbytes-style Library.define/impl and custom_op with register_autograd, called
    # through torch.ops.<ns>.<op>
    assert _library_run(ember) == _library_run(torch)
