"""Lazy modules and their placeholders (UninitializedParameter / UninitializedBuffer), compared with torch.

The two libraries draw different random numbers, so after the first ("dry run") forward the test
copies torch's materialized tensors into ember's module and compares outputs and gradients.
"""

from __future__ import annotations

import copy
import inspect
import math
import pickle
from typing import Any

import ember
import ember.nn as nn
import ember.nn.functional as F
import numpy as np
import pytest
from _nn_testutil import close, copy_params, same_error, to_np
from ember._lib import _C
from ember.nn.modules.lazy import LazyModuleMixin
from ember.nn.parameter import is_lazy

# (class name, constructor args, constructor kwargs, input shape, regular class)
CASES = [
    ("LazyLinear", (3,), {}, (4, 5), "Linear"),
    ("LazyLinear", (2,), {"bias": False}, (2, 3, 6), "Linear"),
    ("LazyConv1d", (4, 3), {}, (2, 3, 8), "Conv1d"),
    ("LazyConv1d", (4, 3), {"groups": 2, "padding": 1, "padding_mode": "reflect"}, (2, 6, 7), "Conv1d"),
    ("LazyConv2d", (4, 3), {"stride": 2, "bias": False}, (2, 3, 7, 7), "Conv2d"),
    ("LazyConv2d", (2, (2, 3)), {}, (3, 5, 6), "Conv2d"),  # unbatched: in_channels from dim 0
    ("LazyConv3d", (2, 2), {"padding": 1}, (1, 3, 3, 4, 3), "Conv3d"),
    ("LazyConvTranspose1d", (4, 3), {"stride": 2, "output_padding": 1}, (2, 3, 5), "ConvTranspose1d"),
    ("LazyConvTranspose2d", (4, 2), {"groups": 2}, (2, 4, 3, 3), "ConvTranspose2d"),
    ("LazyConvTranspose3d", (2, 2), {"bias": False}, (1, 3, 2, 3, 2), "ConvTranspose3d"),
    ("LazyBatchNorm1d", (), {}, (6, 4), "BatchNorm1d"),
    ("LazyBatchNorm1d", (), {"momentum": None}, (5, 3, 4), "BatchNorm1d"),
    ("LazyBatchNorm2d", (), {}, (4, 3, 3, 2), "BatchNorm2d"),
    ("LazyBatchNorm3d", (), {"affine": False}, (3, 2, 2, 3, 2), "BatchNorm3d"),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 6), "InstanceNorm1d"),
    ("LazyInstanceNorm2d", (), {"track_running_stats": False}, (2, 3, 4, 4), "InstanceNorm2d"),
    ("LazyInstanceNorm3d", (), {"bias": False}, (2, 3, 2, 3, 2), "InstanceNorm3d"),
]
IDS = [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


def _data(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def _pair(torch: Any, a: np.ndarray, requires_grad: bool = False) -> tuple[Any, Any]:
    return (ember.tensor(a.tolist(), requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def _sd_summary(sd: Any) -> list[tuple[str, str]]:
    """A state dict as (key, placeholder repr or shape) pairs."""
    return [(k, repr(v) if type(v).__name__.startswith("Uninitialized") else str(tuple(v.shape))) for k, v in sd.items()]


@pytest.mark.parametrize("name,args,kwargs,shape,regular", CASES, ids=IDS)
def test_dry_run_then_same_outputs_and_grads(torch: Any, name: str, args: tuple, kwargs: dict, shape: tuple,
                                             regular: str) -> None:
    me, mt = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(me) == repr(mt)
    assert me.has_uninitialized_params() and mt.has_uninitialized_params()
    assert _sd_summary(me.state_dict()) == _sd_summary(mt.state_dict())
    a = _data(shape)
    xe, xt = _pair(torch, a)
    me(xe)
    mt(xt)
    # cls_to_become: a regular module now, hooks gone, shapes inferred as torch's
    assert type(me) is getattr(nn, regular) and type(mt) is getattr(torch.nn, regular)
    assert isinstance(me, getattr(nn, regular)) and not isinstance(me, LazyModuleMixin)
    assert not hasattr(me, "has_uninitialized_params") and not hasattr(me, "_initialize_hook")
    assert not me._forward_pre_hooks and not me._load_state_dict_pre_hooks
    assert repr(me) == repr(mt)
    assert _sd_summary(me.state_dict()) == _sd_summary(mt.state_dict())
    assert all(type(p) is nn.Parameter for p in me.parameters())
    assert all(type(b) is ember.Tensor for b in me.buffers())
    # the same tensors in both: same forward and backward
    copy_params(mt, me)
    xe, xt = _pair(torch, _data(shape, 1), requires_grad=True)
    ye, yt = me(xe), mt(xt)
    close(ye, yt, atol=1e-5)
    g = _data(tuple(yt.shape), 2)
    ye.backward(ember.from_numpy(g))
    yt.backward(torch.from_numpy(g))
    close(xe.grad, xt.grad, atol=1e-5)
    for (ne, pe), (nt, pt) in zip(me.named_parameters(), mt.named_parameters(), strict=True):
        assert ne == nt
        close(pe.grad, pt.grad, atol=1e-4)
    for (ne, be), (nt, bt) in zip(me.named_buffers(), mt.named_buffers(), strict=True):
        assert ne == nt
        close(be, bt, atol=1e-6)


@pytest.mark.parametrize("name,args,kwargs,shape,regular", CASES, ids=IDS)
def test_materialized_then_reset_parameters(torch: Any, name: str, args: tuple, kwargs: dict, shape: tuple,
                                            regular: str) -> None:
    """After materialize the regular layer's reset_parameters runs: the layer's own init."""
    me = getattr(nn, name)(*args, **kwargs)
    mt = getattr(torch.nn, name)(*args, **kwargs)
    xe, xt = _pair(torch, _data(shape))
    me(xe)
    mt(xt)
    if "Norm" in name:  # deterministic init: ones, zeros, running statistics of this batch
        for (_, pe), (_, pt) in zip(me.named_parameters(), mt.named_parameters(), strict=True):
            close(pe, pt)
        for (_, be), (_, bt) in zip(me.named_buffers(), mt.named_buffers(), strict=True):
            close(be, bt, atol=1e-6)
    else:  # U(-1/sqrt(fan_in), 1/sqrt(fan_in)), as torch's
        w = to_np(me.weight)
        fan_in = w.shape[1] * int(np.prod(w.shape[2:]))
        bound = 1 / math.sqrt(fan_in)
        assert np.abs(w).max() <= bound + 1e-7 and np.abs(w).max() > bound / 4
        if me.bias is not None:
            assert np.abs(to_np(me.bias)).max() <= bound + 1e-7


def test_inferred_attributes(torch: Any) -> None:
    lin = nn.LazyLinear(3)
    lin(ember.ones(2, 7))
    assert (lin.in_features, lin.out_features, tuple(lin.weight.shape), tuple(lin.bias.shape)) == (7, 3, (3, 7), (3,))
    conv = nn.LazyConvTranspose2d(6, 3, groups=3)
    conv(ember.ones(1, 9, 4, 4))
    assert (conv.in_channels, conv.out_channels, tuple(conv.weight.shape)) == (9, 6, (9, 2, 3, 3))
    bn = nn.LazyBatchNorm1d()
    bn(ember.ones(4, 5))
    assert bn.num_features == 5 and tuple(bn.running_var.shape) == (5,)


def test_uninitialized_placeholders_match_torch(torch: Any) -> None:
    for name in ("UninitializedParameter", "UninitializedBuffer"):
        se = inspect.signature(getattr(nn, name))
        st = inspect.signature(getattr(torch.nn, name))
        assert [(p.name, p.default, p.kind) for p in se.parameters.values()] == \
            [(p.name, p.default, p.kind) for p in st.parameters.values()]
    pe, pt = nn.UninitializedParameter(), torch.nn.UninitializedParameter()
    assert repr(pe) == repr(pt) == "<UninitializedParameter>" and str(pe) == str(pt)
    assert isinstance(pe, nn.Parameter) and is_lazy(pe)
    assert (pe.requires_grad, str(pe.dtype), str(pe.device)) == (pt.requires_grad, str(pt.dtype), str(pt.device))
    assert tuple(pe.size()) == tuple(pt.size()) == (0,)
    be, bt = nn.UninitializedBuffer(), torch.nn.UninitializedBuffer()
    assert repr(be) == repr(bt) == "<UninitializedBuffer>"
    assert isinstance(be, nn.Buffer) and isinstance(bt, torch.nn.Buffer)
    assert not isinstance(be, nn.Parameter)
    assert (be.requires_grad, be.persistent) == (bt.requires_grad, bt.persistent)
    assert not is_lazy(ember.zeros(1)) and not is_lazy(nn.Parameter(ember.zeros(1)))
    same_error(lambda: nn.UninitializedParameter(dtype=ember.long), lambda: torch.nn.UninitializedParameter(
        dtype=torch.long))
    same_error(lambda: nn.UninitializedBuffer(True, dtype=ember.long), lambda: torch.nn.UninitializedBuffer(
        True, dtype=torch.long))
    assert nn.UninitializedParameter(requires_grad=False, dtype=ember.long).dtype == ember.long


def test_materialize(torch: Any) -> None:
    p = nn.UninitializedParameter(dtype=ember.float64)
    p.materialize((2, 3))
    assert type(p) is nn.Parameter and tuple(p.shape) == (2, 3) and p.dtype == ember.float64 and p.requires_grad
    p = nn.UninitializedParameter(requires_grad=False)
    p.materialize([4], dtype=ember.float16)
    assert type(p) is nn.Parameter and p.dtype == ember.float16 and not p.requires_grad
    b = nn.UninitializedBuffer()
    b.materialize((3,))
    assert type(b) is ember.Tensor and tuple(b.shape) == (3,) and not b.requires_grad
    assert (b * 0).sum().item() == 0  # usable now


def _uninit_uses(lib: Any) -> list[Any]:
    p = lib.nn.UninitializedParameter()
    b = lib.nn.UninitializedBuffer()
    x = lib.ones(2, 3)
    return [lambda: p.dim(), lambda: p + 1, lambda: lib.add(p, 1), lambda: p.detach(), lambda: p.clone(),
            lambda: p.numel(), lambda: p.requires_grad_(False), lambda: b.sum(), lambda: b.mul_(2),
            lambda: lib.nn.functional.linear(x, p), lambda: copy.deepcopy(b), lambda: lib.cat([b, b]),
            lambda: p.element_size()]


def test_using_uninitialized_raises_as_torch(torch: Any) -> None:
    for fe, ft in zip(_uninit_uses(ember), _uninit_uses(torch), strict=True):
        with pytest.raises(Exception) as et:
            ft()
        with pytest.raises(type(et.value)) as ee:
            fe()
        assert type(et.value) is ValueError
        head, tail = "Attempted to use an uninitialized parameter in ", ". This error happens when you are using"
        assert str(ee.value).startswith(head) and tail in str(ee.value)
        assert str(ee.value).split(" objects. ")[-1] == str(et.value).split(" objects. ")[-1]
    pe, pt = nn.UninitializedParameter(), torch.nn.UninitializedParameter()
    same_error(lambda: pe.shape, lambda: pt.shape)
    same_error(lambda: pe.share_memory_(), lambda: pt.share_memory_())
    same_error(lambda: nn.LazyLinear(2).share_memory(), lambda: torch.nn.LazyLinear(2).share_memory())
    # calling forward itself skips the initializing hook: the parameters are used uninitialized
    with pytest.raises(ValueError):
        torch.nn.LazyLinear(2).forward(torch.ones(1, 3))
    with pytest.raises(ValueError):
        nn.LazyLinear(2).forward(ember.ones(1, 3))
    with pytest.raises(ValueError):
        nn.LazyConv2d(2, 1).forward(ember.ones(1, 3, 2, 2))


def test_allowed_uses_match_torch(torch: Any) -> None:
    pe, pt = nn.UninitializedParameter(), torch.nn.UninitializedParameter()
    assert pe.grad is None and pe.is_leaf and pe.get_device() == pt.get_device() == -1
    assert not pe.is_complex() and pe.is_floating_point()
    assert hash(pe) == hash(pe)
    for conv in ("float", "cpu"):  # nothing changes: the placeholder itself
        assert getattr(pe, conv)() is pe and getattr(pt, conv)() is pt
    for e, t in ((pe.double(), pt.double()), (pe.to(ember.float16), pt.to(torch.float16)), (pe.data, pt.data)):
        assert type(e).__name__ == type(t).__name__ == "Tensor"
        assert str(e.dtype) == str(t.dtype) and tuple(e.shape) == (0,)
    be, bt = nn.UninitializedBuffer(), torch.nn.UninitializedBuffer()
    for e, t in ((be.double(), bt.double()), (be.data, bt.data)):
        assert type(e).__name__ == type(t).__name__ == "UninitializedBuffer"
    ce = nn.UninitializedBuffer()
    ce.copy_(ember.empty(0))


def test_errors_of_lazy_machinery_match_torch(torch: Any) -> None:
    def custom(lib: Any, init: bool) -> Any:
        class M(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.w = lib.nn.UninitializedParameter()

            if init:
                def initialize_parameters(self, x: Any) -> None:
                    pass  # leaves w uninitialized

            def forward(self, x: Any) -> Any:
                return x

        return M()

    same_error(lambda: custom(ember, False)(ember.ones(1)), lambda: custom(torch, False)(torch.ones(1)))
    same_error(lambda: custom(ember, True)(ember.ones(1)), lambda: custom(torch, True)(torch.ones(1)))
    m = custom(ember, True)
    assert m.cls_to_become is None and m.has_uninitialized_params()
    same_error(lambda: nn.LazyConv2d(2, 3)(ember.ones(2, 3)), lambda: torch.nn.LazyConv2d(2, 3)(torch.ones(2, 3)))
    same_error(lambda: nn.LazyConv1d(2, 3, groups=2)(ember.ones(1, 3, 5)),
               lambda: torch.nn.LazyConv1d(2, 3, groups=2)(torch.ones(1, 3, 5)))
    same_error(lambda: nn.LazyConvTranspose2d(2, 3, padding_mode="reflect"),
               lambda: torch.nn.LazyConvTranspose2d(2, 3, padding_mode="reflect"))
    same_error(lambda: nn.LazyBatchNorm2d()(ember.ones(2, 3, 4)), lambda: torch.nn.LazyBatchNorm2d()(torch.ones(2, 3, 4)))
    same_error(lambda: nn.LazyLinear(2)._replicate_for_data_parallel(),
               lambda: torch.nn.LazyLinear(2)._replicate_for_data_parallel())
    same_error(lambda: LazyModuleMixin.initialize_parameters(nn.LazyLinear(2)),
               lambda: torch.nn.modules.lazy.LazyModuleMixin.initialize_parameters(torch.nn.LazyLinear(2)))


@pytest.mark.parametrize("name,args,kwargs,shape,regular", CASES, ids=IDS)
def test_state_dict_of_uninitialized_module(torch: Any, name: str, args: tuple, kwargs: dict, shape: tuple,
                                            regular: str) -> None:
    me, mt = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    sde, sdt = me.state_dict(), mt.state_dict()
    assert list(sde) == list(sdt)
    for k in sdt:
        assert type(sde[k]).__name__ == type(sdt[k]).__name__, k
    sdk = me.state_dict(keep_vars=True)
    assert all(sdk[k] is v for k, v in [*me._parameters.items(), *me._buffers.items()] if v is not None)
    assert [n for n, _ in me.named_parameters()] == [n for n, _ in mt.named_parameters()]
    assert [n for n, _ in me.named_buffers()] == [n for n, _ in mt.named_buffers()]
    # an uninitialized state dict loads into an uninitialized module (nothing to do)
    fresh = getattr(nn, name)(*args, **kwargs)
    assert repr(fresh.load_state_dict(me.state_dict())) == "<All keys matched successfully>"
    assert fresh.has_uninitialized_params() == mt.has_uninitialized_params()


@pytest.mark.parametrize("name,args,kwargs,shape,regular", CASES, ids=IDS)
def test_load_state_dict_materializes(torch: Any, name: str, args: tuple, kwargs: dict, shape: tuple,
                                      regular: str) -> None:
    """Loading initialized tensors into a lazy module materializes it from the state dict; the
    first forward then keeps those values (as torch: the module stays lazy until it)."""
    src = getattr(torch.nn, name)(*args, **kwargs)
    src(torch.from_numpy(_data(shape)))
    sd_t = src.state_dict()
    me, mt = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    copy_params(src, me)
    mt.load_state_dict(sd_t)
    assert type(me).__name__ == type(mt).__name__ == name  # still lazy
    assert me.has_uninitialized_params() == mt.has_uninitialized_params() is False
    assert repr(me) == repr(mt)
    for k, v in me.state_dict().items():
        close(v, sd_t[k])
    xe, xt = _pair(torch, _data(shape, 3), requires_grad=True)
    if "InstanceNorm" in name:  # num_features stays 0 (only the hook sets it): the affine check fails
        same_error(lambda: me(xe), lambda: mt(xt))
        assert type(me).__name__ == type(mt).__name__ == regular
        return
    ye, yt = me(xe), mt(xt)
    assert type(me).__name__ == type(mt).__name__ == regular
    assert repr(me) == repr(mt)
    close(ye, yt, atol=1e-5)
    ye.sum().backward()
    yt.sum().backward()
    close(xe.grad, xt.grad, atol=1e-4)


def test_load_state_dict_errors_match_torch(torch: Any) -> None:
    # an uninitialized tensor loaded into an initialized module: the shape error, raised
    init_e, init_t = nn.Linear(3, 2), torch.nn.Linear(3, 2)
    same_error(lambda: init_e.load_state_dict(nn.LazyLinear(2).state_dict()),
               lambda: init_t.load_state_dict(torch.nn.LazyLinear(2).state_dict()))
    # loaded from a state dict of in_features 3, then called on 4 features
    src = torch.nn.Linear(3, 2)
    me, mt = nn.LazyLinear(2), torch.nn.LazyLinear(2)
    copy_params(src, me)
    mt.load_state_dict(src.state_dict())
    same_error(lambda: me(ember.ones(1, 4)), lambda: mt(torch.ones(1, 4)))
    # strict: a missing placeholder key is reported as torch's
    me, mt = nn.LazyLinear(2), torch.nn.LazyLinear(2)
    w = src.weight.detach().numpy().copy()
    same_error(lambda: me.load_state_dict({"weight": ember.from_numpy(w)}),
               lambda: mt.load_state_dict({"weight": torch.from_numpy(w)}))
    res_e = me.load_state_dict({"weight": ember.from_numpy(w)}, strict=False)
    res_t = mt.load_state_dict({"weight": torch.from_numpy(w)}, strict=False)
    assert res_e.missing_keys == res_t.missing_keys == ["bias"]
    assert is_lazy(me.bias) and not is_lazy(me.weight) and tuple(me.weight.shape) == (2, 3)


def test_dtype_and_device_kwargs(torch: Any) -> None:
    for name, args, shape in (("LazyLinear", (3,), (2, 4)), ("LazyConv2d", (2, 1), (1, 3, 2, 2)),
                              ("LazyConvTranspose1d", (2, 1), (1, 3, 2)), ("LazyBatchNorm1d", (), (2, 3)),
                              ("LazyInstanceNorm2d", (), (1, 3, 2, 2))):
        me = getattr(nn, name)(*args, dtype=ember.float64, device="cpu")
        mt = getattr(torch.nn, name)(*args, dtype=torch.float64, device="cpu")
        for e, t in zip([*me.parameters(), *me.buffers()], [*mt.parameters(), *mt.buffers()], strict=True):
            assert str(e.dtype) == str(t.dtype) and str(e.device) == str(t.device)
        me(ember.ones(shape, dtype=ember.float64))
        mt(torch.ones(shape, dtype=torch.float64))
        for (n, e), (_, t) in zip([*me.named_parameters(), *me.named_buffers()],
                                  [*mt.named_parameters(), *mt.named_buffers()], strict=True):
            assert str(e.dtype) == str(t.dtype) and str(e.device) == str(t.device), n
            assert tuple(e.shape) == tuple(t.shape), n


def test_module_conversion_before_dry_run(torch: Any) -> None:
    """.to()/.double() before the dry run convert the placeholders: the parameters are then
    materialized with that dtype (as torch's)."""
    for conv in (lambda m, lib: m.double(), lambda m, lib: m.to(lib.float64), lambda m, lib: m.to(dtype=lib.float64)):
        me, mt = conv(nn.LazyBatchNorm2d(), ember), conv(torch.nn.LazyBatchNorm2d(), torch)
        assert is_lazy(me.weight) and is_lazy(me.running_mean)
        assert str(me.weight.dtype) == str(mt.weight.dtype) == "torch.float64"
        assert str(me.running_mean.dtype) == str(mt.running_mean.dtype) == "torch.float64"
        assert str(me.num_batches_tracked.dtype) == str(mt.num_batches_tracked.dtype)
        me(ember.ones(2, 3, 2, 2, dtype=ember.float64))
        assert me.weight.dtype == me.running_mean.dtype == ember.float64
    me = nn.Sequential(nn.LazyLinear(2), nn.ReLU(), nn.LazyLinear(1)).to(ember.float64)
    assert repr(me[0].weight) == "<UninitializedParameter>"
    assert me(ember.ones(3, 4, dtype=ember.float64)).dtype == ember.float64
    assert all(p.dtype == ember.float64 for p in me.parameters())


def test_batchnorm_running_stats(torch: Any) -> None:
    me, mt = nn.LazyBatchNorm1d(momentum=0.3), torch.nn.LazyBatchNorm1d(momentum=0.3)
    assert [type(b).__name__ for b in me.buffers()] == [type(b).__name__ for b in mt.buffers()] == \
        ["UninitializedBuffer", "UninitializedBuffer", "Tensor"]
    assert me.num_batches_tracked.item() == 0 and me.num_batches_tracked.dtype == ember.int64
    for seed in range(3):
        xe, xt = _pair(torch, _data((8, 5), seed))
        close(me(xe), mt(xt), atol=1e-5)
    for (_n, be), (_, bt) in zip(me.named_buffers(), mt.named_buffers(), strict=True):
        close(be, bt, atol=1e-6)
    assert me.num_batches_tracked.item() == 3
    me.eval()
    mt.eval()
    xe, xt = _pair(torch, _data((4, 5), 9))
    close(me(xe), mt(xt), atol=1e-5)


def test_batchnorm_without_running_stats_or_affine(torch: Any) -> None:
    for kwargs in ({"track_running_stats": False}, {"affine": False}, {"affine": False, "track_running_stats": False},
                   {"bias": False}):
        me, mt = nn.LazyBatchNorm2d(**kwargs), torch.nn.LazyBatchNorm2d(**kwargs)
        assert repr(me) == repr(mt)
        assert _sd_summary(me.state_dict()) == _sd_summary(mt.state_dict())
        assert [n for n, b in me._buffers.items() if b is None] == [n for n, b in mt._buffers.items() if b is None]
        assert me.has_uninitialized_params() == mt.has_uninitialized_params()
        a = _data((4, 3, 2, 2))
        xe, xt = _pair(torch, a)
        ye, yt = me(xe), mt(xt)
        assert type(me).__name__ == type(mt).__name__ == "BatchNorm2d"
        assert repr(me) == repr(mt)  # num_features stays 0 when nothing was lazy, as torch
        close(ye, yt, atol=1e-5)
        me.eval()
        mt.eval()
        close(me(xe), mt(xt), atol=1e-5)


def test_training_after_dry_run(torch: Any) -> None:
    def net(lib: Any) -> Any:
        return lib.nn.Sequential(lib.nn.LazyLinear(8), lib.nn.Tanh(), lib.nn.LazyLinear(1))

    me, mt = net(ember), net(torch)
    a, target = _data((16, 5)), _data((16, 1), 1)
    xe, xt = _pair(torch, a)
    te, tt = _pair(torch, target)
    me(xe)
    mt(xt)
    assert [type(m).__name__ for m in me] == ["Linear", "Tanh", "Linear"]
    copy_params(mt, me)
    oe = ember.optim.SGD(me.parameters(), lr=0.1, momentum=0.9)
    ot = torch.optim.SGD(mt.parameters(), lr=0.1, momentum=0.9)
    losses_e, losses_t = [], []
    for _ in range(5):
        oe.zero_grad()
        ot.zero_grad()
        le = F.mse_loss(me(xe), te)
        lt = torch.nn.functional.mse_loss(mt(xt), tt)
        le.backward()
        lt.backward()
        oe.step()
        ot.step()
        losses_e.append(le.item())
        losses_t.append(lt.item())
    np.testing.assert_allclose(losses_e, losses_t, rtol=1e-5)
    assert losses_e[-1] < losses_e[0]
    for pe, pt in zip(me.parameters(), mt.parameters(), strict=True):
        close(pe, pt, atol=1e-5)


def test_hooks_and_kwargs_forward(torch: Any) -> None:
    """The initializing hook sees the forward's arguments (ConvTranspose's output_size too); the
    user's hooks keep working."""
    me, mt = nn.LazyConvTranspose2d(2, 3, stride=2), torch.nn.LazyConvTranspose2d(2, 3, stride=2)
    seen = []
    me.register_forward_pre_hook(lambda m, args: seen.append(type(m).__name__))
    ye = me(ember.ones(1, 3, 4, 4), output_size=[10, 10])
    yt = mt(torch.ones(1, 3, 4, 4), output_size=[10, 10])
    assert tuple(ye.shape) == tuple(yt.shape) == (1, 2, 10, 10)
    me(ember.ones(1, 3, 4, 4))
    assert seen == ["ConvTranspose2d", "ConvTranspose2d"] and len(me._forward_pre_hooks) == 1


def test_deepcopy_and_pickle(torch: Any) -> None:
    me = nn.Sequential(nn.LazyLinear(3), nn.LazyConv1d(2, 1))
    mc = copy.deepcopy(me)
    assert repr(mc[0].weight) == "<UninitializedParameter>" and mc[0].weight is not me[0].weight
    mc(ember.ones(4, 6))  # initializes the copy only
    assert type(mc[0]).__name__ == "Linear" and tuple(mc[0].weight.shape) == (3, 6)
    assert type(me[0]).__name__ == "LazyLinear" and len(me[0]._forward_pre_hooks) == 1
    me(ember.ones(4, 2))
    assert tuple(me[0].weight.shape) == (3, 2) and type(me[1]).__name__ == "Conv1d"
    # an UninitializedBuffer cannot be deep-copied (Tensor.__deepcopy__ is a use of it), as torch's
    for lib in (torch, ember):
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
            copy.deepcopy(lib.nn.LazyBatchNorm1d())
    p = nn.UninitializedParameter(requires_grad=False)
    q = copy.deepcopy(p)
    assert type(q) is nn.UninitializedParameter and not q.requires_grad
    r = pickle.loads(pickle.dumps(p))
    assert type(r) is nn.UninitializedParameter and not r.requires_grad
    lazy = pickle.loads(pickle.dumps(nn.LazyLinear(2)))
    lazy(ember.ones(1, 3))
    assert type(lazy).__name__ == "Linear" and tuple(lazy.weight.shape) == (2, 3)


def test_dispatch_cost_only_while_placeholders_live() -> None:
    """ember-specific: the bindings consult __torch_function__ only while an uninitialized tensor
    lives (PyTorch always looks); materializing or dropping one ends it."""
    import gc

    gc.collect()
    before = _C._torch_function_state()
    m = nn.Sequential(nn.LazyLinear(4), nn.LazyBatchNorm1d(), nn.LazyConv1d(2, 1))
    assert _C._torch_function_state() != before
    m.double()
    m[0](ember.ones(2, 3, dtype=ember.float64))
    m[1](ember.ones(2, 4, dtype=ember.float64))
    m[2](ember.ones(1, 3, 2, dtype=ember.float64))
    gc.collect()
    assert _C._torch_function_state() == before
    x = nn.UninitializedParameter()
    assert _C._torch_function_state() != before
    del x
    gc.collect()
    assert _C._torch_function_state() == before
