"""nn.utils fusion / memory format / skip_init / clip_grad_norm, nn.init's deprecated aliases and
sparse_, and the CrossMapLRN2d, NLLLoss2d and Container modules, against torch."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import ember
import ember.nn as nn
import numpy as np
import pytest
from _nn_testutil import close, copy_params, same_error
from ember.nn import init
from ember.nn.modules.cross_map_lrn import CrossMapLRN2d
from ember.nn.modules.deprecated import Container, NLLLoss2d


def _warnings_of(fn: Any) -> list[tuple[type, str]]:
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        fn()
    return [(w.category, str(w.message)) for w in rec]


def _randomise_bn(torch: Any, bn: Any) -> None:
    """Running statistics and affine parameters away from their defaults."""
    g = torch.Generator().manual_seed(3)
    with torch.no_grad():
        bn.running_mean.copy_(torch.randn(bn.num_features, generator=g))
        bn.running_var.copy_(torch.rand(bn.num_features, generator=g) + 0.5)
        if bn.weight is not None:
            bn.weight.copy_(torch.randn(bn.num_features, generator=g))
            bn.bias.copy_(torch.randn(bn.num_features, generator=g))


def _pair(torch: Any, name: str, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """The same module in torch and ember (torch's random init copied over), both in eval mode."""
    t = getattr(torch.nn, name)(*args, **kwargs)
    if "BatchNorm" in name and kwargs.get("track_running_stats", True):
        _randomise_bn(torch, t)
    e = getattr(nn, name)(*args, **kwargs)
    copy_params(t, e)
    return e.eval(), t.eval()


# ---------------------------------------------------------------------------------------- fusion


CONV_CASES = [("Conv1d", "BatchNorm1d", (2, 3, 9), False), ("Conv2d", "BatchNorm2d", (2, 3, 7, 6), False),
              ("Conv3d", "BatchNorm3d", (1, 3, 5, 5, 4), False),
              ("ConvTranspose2d", "BatchNorm2d", (2, 3, 5, 4), True),
              ("ConvTranspose1d", "BatchNorm1d", (2, 3, 6), True)]


@pytest.mark.parametrize("conv_name,bn_name,shape,transpose", CONV_CASES)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_fuse_conv_bn_eval_matches_torch(torch: Any, conv_name: str, bn_name: str, shape: tuple[int, ...],
                                         transpose: bool, bias: bool, affine: bool) -> None:
    ce, ct = _pair(torch, conv_name, 3, 4, 3, bias=bias)
    be, bt = _pair(torch, bn_name, 4, affine=affine, eps=1e-3)
    fe = nn.utils.fuse_conv_bn_eval(ce, be, transpose=transpose)
    ft = torch.nn.utils.fuse_conv_bn_eval(ct, bt, transpose=transpose)
    assert type(fe) is type(ce) and fe is not ce
    assert isinstance(fe.weight, nn.Parameter) and isinstance(fe.bias, nn.Parameter)
    close(fe.weight, ft.weight)
    close(fe.bias, ft.bias)
    assert (ce.bias is None) == (not bias)  # the input module is left alone
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    xe, xt = ember.from_numpy(x), torch.from_numpy(x)
    close(fe(xe), ft(xt), atol=1e-5)
    close(fe(xe), be(ce(xe)), atol=1e-5)


@pytest.mark.parametrize("out_features,bn_features", [(4, 4), (4, 1)])
@pytest.mark.parametrize("bias", [True, False])
def test_fuse_linear_bn_eval_matches_torch(torch: Any, out_features: int, bn_features: int, bias: bool) -> None:
    le, lt = _pair(torch, "Linear", 3, out_features, bias=bias)
    be, bt = _pair(torch, "BatchNorm1d", bn_features)
    fe = nn.utils.fuse_linear_bn_eval(le, be)
    ft = torch.nn.utils.fuse_linear_bn_eval(lt, bt)
    assert type(fe) is nn.Linear and fe is not le
    close(fe.weight, ft.weight)
    close(fe.bias, ft.bias)
    x = np.random.default_rng(1).standard_normal((5, 3)).astype("float32")
    close(fe(ember.from_numpy(x)), ft(torch.from_numpy(x)), atol=1e-5)


def test_fuse_errors_match_torch(torch: Any) -> None:
    ce, ct = _pair(torch, "Conv2d", 3, 4, 3)
    be, bt = _pair(torch, "BatchNorm2d", 4)
    same_error(lambda: nn.utils.fuse_conv_bn_eval(ce.train(), be),
               lambda: torch.nn.utils.fuse_conv_bn_eval(ct.train(), bt))
    ce.eval(), ct.eval()
    same_error(lambda: nn.utils.fuse_conv_bn_eval(ce, be.train()),
               lambda: torch.nn.utils.fuse_conv_bn_eval(ct, bt.train()))
    ne, nt = _pair(torch, "BatchNorm2d", 4, track_running_stats=False)
    same_error(lambda: nn.utils.fuse_conv_bn_eval(ce, ne), lambda: torch.nn.utils.fuse_conv_bn_eval(ct, nt))
    le, lt = _pair(torch, "Linear", 3, 4)
    b3e, b3t = _pair(torch, "BatchNorm1d", 3)
    same_error(lambda: nn.utils.fuse_linear_bn_eval(le, b3e), lambda: torch.nn.utils.fuse_linear_bn_eval(lt, b3t))
    n4e, n4t = _pair(torch, "BatchNorm1d", 4, track_running_stats=False)
    same_error(lambda: nn.utils.fuse_linear_bn_eval(le, n4e), lambda: torch.nn.utils.fuse_linear_bn_eval(lt, n4t))
    same_error(lambda: nn.utils.fuse_linear_bn_eval(le.train(), b3e),
               lambda: torch.nn.utils.fuse_linear_bn_eval(lt.train(), b3t))


def test_fuse_weights_functions(torch: Any) -> None:
    rng = np.random.default_rng(2)
    w = rng.standard_normal((4, 2, 3, 3))
    rm, rv, bw, bb = rng.standard_normal(4), rng.random(4) + 0.5, rng.standard_normal(4), rng.standard_normal(4)
    ew = [ember.from_numpy(a.copy()) for a in (w, rm, rv, bw, bb)]
    tw = [torch.from_numpy(a.copy()) for a in (w, rm, rv, bw, bb)]
    for transpose in (False, True):
        wt = np.ascontiguousarray(w.transpose(1, 0, 2, 3))  # (in, out, kH, kW), as a transposed conv's
        shape_w = ember.from_numpy(wt.copy()) if transpose else ew[0]
        shape_t = torch.from_numpy(wt.copy()) if transpose else tw[0]
        fe = nn.utils.fuse_conv_bn_weights(shape_w, None, *ew[1:3], 1e-5, None, None, transpose=transpose)
        ft = torch.nn.utils.fuse_conv_bn_weights(shape_t, None, *tw[1:3], 1e-5, None, None, transpose=transpose)
        for a, b in zip(fe, ft, strict=True):
            assert isinstance(a, nn.Parameter) and a.requires_grad == b.requires_grad
            assert str(a.dtype) == str(b.dtype)
            close(a, b)
    # dtypes follow the conv weight and bias; requires_grad follows them too
    cb = ember.zeros(4, dtype=ember.float32)
    fe = nn.utils.fuse_conv_bn_weights(ew[0].requires_grad_(), cb, *ew[1:3], 1e-5, *ew[3:])
    ft = torch.nn.utils.fuse_conv_bn_weights(tw[0].requires_grad_(), torch.zeros(4), *tw[1:3], 1e-5, *tw[3:])
    assert [str(p.dtype) for p in fe] == [str(p.dtype) for p in ft]
    assert [p.requires_grad for p in fe] == [p.requires_grad for p in ft] == [True, False]
    close(fe[0], ft[0].detach()), close(fe[1], ft[1].detach())
    lw = rng.standard_normal((4, 3)).astype("float32")
    fe = nn.utils.fuse_linear_bn_weights(ember.from_numpy(lw), None, *[e.float() for e in ew[1:3]], 1e-5,
                                         *[e.float() for e in ew[3:]])
    ft = torch.nn.utils.fuse_linear_bn_weights(torch.from_numpy(lw), None, *[t.float() for t in tw[1:3]], 1e-5,
                                               *[t.float() for t in tw[3:]])
    for a, b in zip(fe, ft, strict=True):
        assert isinstance(a, nn.Parameter) and a.requires_grad == b.requires_grad
        close(a, b.detach())


# --------------------------------------------------------------------- memory format, skip_init


def test_convert_conv2d_weight_memory_format(torch: Any) -> None:
    e = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Sequential(nn.ConvTranspose2d(4, 2, 2), nn.Conv3d(2, 2, 1)))
    t = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3),
                            torch.nn.Sequential(torch.nn.ConvTranspose2d(4, 2, 2), torch.nn.Conv3d(2, 2, 1)))
    copy_params(t, e)
    assert nn.utils.convert_conv2d_weight_memory_format(e, ember.channels_last) is e
    torch.nn.utils.convert_conv2d_weight_memory_format(t, torch.channels_last)
    for (name, pe), pt in zip(e.named_parameters(), t.parameters(), strict=True):
        assert tuple(pe.stride()) == tuple(pt.stride()), name
        assert isinstance(pe, nn.Parameter)
        close(pe, pt.detach())
    assert e[0].weight.is_contiguous(memory_format=ember.channels_last)
    x = np.random.default_rng(3).standard_normal((1, 3, 6, 6)).astype("float32")
    close(e[0](ember.from_numpy(x)), t[0](torch.from_numpy(x)), atol=1e-5)
    nn.utils.convert_conv2d_weight_memory_format(e, ember.contiguous_format)
    assert e[0].weight.is_contiguous()


def test_convert_conv3d_weight_memory_format(torch: Any) -> None:
    e = nn.Sequential(nn.Conv3d(3, 4, 2), nn.ConvTranspose3d(4, 2, 2), nn.Conv2d(2, 2, 2))
    t = torch.nn.Sequential(torch.nn.Conv3d(3, 4, 2), torch.nn.ConvTranspose3d(4, 2, 2), torch.nn.Conv2d(2, 2, 2))
    copy_params(t, e)
    assert nn.utils.convert_conv3d_weight_memory_format(e, ember.channels_last_3d) is e
    torch.nn.utils.convert_conv3d_weight_memory_format(t, torch.channels_last_3d)
    for pe, pt in zip(e.parameters(), t.parameters(), strict=True):
        assert tuple(pe.stride()) == tuple(pt.stride())
        close(pe, pt.detach())


def test_skip_init(torch: Any) -> None:
    m = nn.utils.skip_init(nn.Linear, 5, 3)
    assert type(m) is nn.Linear and m.weight.shape == (3, 5) and m.bias.shape == (3,)
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    m2 = nn.utils.skip_init(nn.Conv2d, in_channels=2, out_channels=4, kernel_size=3, bias=False, device="cpu")
    assert m2.weight.shape == (4, 2, 3, 3) and m2.bias is None and m2.weight.device.type == "cpu"
    bn = nn.utils.skip_init(nn.BatchNorm1d, 3)
    assert bn.running_mean.shape == (3,) and not isinstance(bn.running_mean, nn.Parameter)

    class NoDevice(nn.Module):
        def __init__(self) -> None:
            super().__init__()

    class NoDeviceT(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()

    same_error(lambda: nn.utils.skip_init(NoDevice), lambda: torch.nn.utils.skip_init(NoDeviceT))
    same_error(lambda: nn.utils.skip_init(int, 3), lambda: torch.nn.utils.skip_init(int, 3))
    same_error(lambda: nn.utils.skip_init(3), lambda: torch.nn.utils.skip_init(3))


def test_utils_submodules_importable() -> None:
    import ember.nn.utils.fusion as fusion
    import ember.nn.utils.init as uinit
    import ember.nn.utils.memory_format as mf

    assert fusion.fuse_conv_bn_eval is nn.utils.fuse_conv_bn_eval
    assert uinit.skip_init is nn.utils.skip_init
    assert mf.convert_conv2d_weight_memory_format is nn.utils.convert_conv2d_weight_memory_format
    assert sorted(fusion.__all__) == ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
                                      "fuse_linear_bn_weights"]


def test_utils_all_matches_torch(torch: Any) -> None:
    assert set(torch.nn.utils.__all__) <= set(nn.utils.__all__)


def test_clip_grad_norm_deprecated(torch: Any) -> None:
    pe = nn.Parameter(ember.zeros(2))
    pe.grad = ember.tensor([3.0, 4.0])
    pt = torch.nn.Parameter(torch.zeros(2))
    pt.grad = torch.tensor([3.0, 4.0])
    out: dict[str, Any] = {}
    we = _warnings_of(lambda: out.setdefault("e", nn.utils.clip_grad_norm(pe, 1.0, norm_type=2.0)))
    wt = _warnings_of(lambda: out.setdefault("t", torch.nn.utils.clip_grad_norm(pt, 1.0, norm_type=2.0)))
    assert we == wt and we[0][0] is FutureWarning
    close(out["e"], out["t"])
    close(pe.grad, pt.grad)
    assert nn.utils.clip_grad_norm.__name__ == "clip_grad_norm"
    assert nn.utils.clip_grad_norm.__deprecated__ == torch.nn.utils.clip_grad_norm.__deprecated__


# ------------------------------------------------------------------------------------- nn.init

ALIASES = ["uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform",
           "kaiming_normal", "orthogonal", "sparse"]
ALIAS_ARGS: dict[str, tuple[tuple[int, ...], tuple[Any, ...]]] = {
    "constant": ((3, 4), (0.25,)), "dirac": ((4, 2, 3), ()), "sparse": ((6, 4), (0.5,)),
}


@pytest.mark.parametrize("name", ALIASES)
def test_init_deprecated_aliases(torch: Any, name: str) -> None:
    shape, args = ALIAS_ARGS.get(name, ((4, 5), ()))
    ember.manual_seed(0)
    expected = getattr(init, name + "_")(ember.empty(*shape), *args)
    ember.manual_seed(0)
    out: dict[str, Any] = {}
    we = _warnings_of(lambda: out.setdefault("e", getattr(init, name)(ember.empty(*shape), *args)))
    wt = _warnings_of(lambda: getattr(torch.nn.init, name)(torch.empty(*shape), *args))
    assert we == wt == [(FutureWarning, f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`.")]
    close(out["e"], expected)
    assert getattr(init, name).__name__ == name
    assert name in init.__all__


def test_init_alias_warning_points_at_caller() -> None:
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        init.normal(ember.empty(2))
    assert rec[0].filename == __file__


def test_init_all_matches_torch(torch: Any) -> None:
    assert set(torch.nn.init.__all__) <= set(init.__all__)


@pytest.mark.parametrize("rows,cols,sparsity", [(6, 4, 0.5), (5, 3, 0.1), (4, 2, 0.0), (3, 3, 1.0)])
def test_sparse_matches_torch(torch: Any, rows: int, cols: int, sparsity: float) -> None:
    ember.manual_seed(7)
    torch.manual_seed(7)
    e = init.sparse_(ember.empty(rows, cols), sparsity, std=0.5)
    t = torch.nn.init.sparse_(torch.empty(rows, cols), sparsity, std=0.5)
    close(e, t)
    assert ((e == 0).sum(0) == int(np.ceil(sparsity * rows))).all()


def test_sparse_errors(torch: Any) -> None:
    for shape in [(3,), (2, 3, 4)]:
        same_error(lambda s=shape: init.sparse_(ember.empty(*s), 0.5),
                   lambda s=shape: torch.nn.init.sparse_(torch.empty(*s), 0.5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        same_error(lambda: init.sparse(ember.empty(3), 0.5), lambda: torch.nn.init.sparse(torch.empty(3), 0.5))


# ---------------------------------------------------------------------------------- CrossMapLRN2d


@pytest.mark.parametrize("size", [2, 3, 4, 5, 6, 9])
@pytest.mark.parametrize("channels", [1, 3, 8])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_map_lrn2d_matches_torch(torch: Any, size: int, channels: int, dtype: str) -> None:
    rng = np.random.default_rng(size * 10 + channels)
    x = rng.standard_normal((2, channels, 3, 4)).astype(dtype)
    g = rng.standard_normal((2, channels, 3, 4)).astype(dtype)
    xe = ember.from_numpy(x.copy()).requires_grad_()
    xt = torch.from_numpy(x.copy()).requires_grad_()
    me, mt = CrossMapLRN2d(size, alpha=0.5, beta=0.8, k=1.5), torch.nn.CrossMapLRN2d(size, alpha=0.5, beta=0.8, k=1.5)
    ye, yt = me(xe), mt(xt)
    tol = 1e-5 if dtype == "float32" else 1e-12
    close(ye, yt, atol=tol, rtol=tol)
    ye.backward(ember.from_numpy(g.copy()))
    yt.backward(torch.from_numpy(g.copy()))
    close(xe.grad, xt.grad, atol=tol, rtol=tol)
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__ == "CrossMapLRN2dBackward"


def test_cross_map_lrn2d_defaults_repr_errors(torch: Any) -> None:
    me, mt = CrossMapLRN2d(5), torch.nn.CrossMapLRN2d(5)
    assert repr(me) == repr(mt) == "CrossMapLRN2d(5, alpha=0.0001, beta=0.75, k=1)"
    x = np.random.default_rng(4).standard_normal((1, 6, 2, 2)).astype("float32") * 10
    close(me(ember.from_numpy(x)), mt(torch.from_numpy(x)), atol=1e-5)
    same_error(lambda: me(ember.ones(2, 3, 4)), lambda: mt(torch.ones(2, 3, 4)))
    same_error(lambda: me(ember.ones(1, 2, 3, 4, 5)), lambda: mt(torch.ones(1, 2, 3, 4, 5)))
    # size 1: the forward works, PyTorch's backward fails
    xe, xt = ember.ones(1, 3, 2, 2, requires_grad=True), torch.ones(1, 3, 2, 2, requires_grad=True)
    close(CrossMapLRN2d(1)(xe), torch.nn.CrossMapLRN2d(1)(xt))
    same_error(lambda: CrossMapLRN2d(1)(xe).sum().backward(),
               lambda: torch.nn.CrossMapLRN2d(1)(xt).sum().backward())
    y = CrossMapLRN2d(3)(ember.ones(1, 2, 2, 2))
    assert y.grad_fn is None


# ------------------------------------------------------------------------- NLLLoss2d, Container


def test_nllloss2d_warns_and_matches_torch(torch: Any) -> None:
    made: dict[str, Any] = {}
    we = _warnings_of(lambda: made.setdefault("e", NLLLoss2d(ignore_index=1, reduction="sum")))
    wt = _warnings_of(lambda: made.setdefault("t", torch.nn.NLLLoss2d(ignore_index=1, reduction="sum")))
    assert we == wt and we[0][0] is FutureWarning
    me, mt = made["e"], made["t"]
    assert isinstance(me, nn.NLLLoss) and me.ignore_index == 1 and me.reduction == "sum"
    assert repr(me) == repr(mt) == "NLLLoss2d()"
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 4, 5)).astype("float32")
    y = rng.integers(0, 3, (2, 4, 5))
    close(me(ember.from_numpy(x), ember.from_numpy(y)), mt(torch.from_numpy(x), torch.from_numpy(y)), atol=1e-5)
    assert NLLLoss2d.__deprecated__ == torch.nn.NLLLoss2d.__deprecated__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        w = ember.tensor([1.0, 2.0, 0.5])
        m = NLLLoss2d(w)
        assert m.weight is not None and m.ignore_index == -100 and m.reduction == "mean"


def test_deprecated_classes_warn_on_subclassing(torch: Any) -> None:
    def define_e() -> None:
        class Sub(NLLLoss2d):
            pass

        made.append(Sub)

    def define_t() -> None:
        class Sub(torch.nn.NLLLoss2d):
            pass

        made.append(Sub)

    made: list[Any] = []
    assert _warnings_of(define_e) == _warnings_of(define_t) != []
    # the subclass itself warns on definition only, as torch's
    assert _warnings_of(made[0]) == _warnings_of(made[1]) == []

    def define_ce() -> None:
        class Sub(Container):
            pass

    def define_ct() -> None:
        class Sub(torch.nn.Container):
            pass

    assert _warnings_of(define_ce) == _warnings_of(define_ct) != []


def test_container_warns_and_registers(torch: Any) -> None:
    made: dict[str, Any] = {}
    we = _warnings_of(lambda: made.setdefault("e", Container(act=nn.ReLU(), fc=nn.Linear(2, 3))))
    wt = _warnings_of(lambda: made.setdefault("t", torch.nn.Container(act=torch.nn.ReLU(), fc=torch.nn.Linear(2, 3))))
    assert we == wt and we[0][0] is FutureWarning
    ce, ct = made["e"], made["t"]
    assert repr(ce) == repr(ct)
    assert [n for n, _ in ce.named_children()] == ["act", "fc"]
    assert set(ce.state_dict()) == set(ct.state_dict()) == {"fc.weight", "fc.bias"}
    assert Container.__deprecated__ == torch.nn.Container.__deprecated__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        clone = copy.deepcopy(ce)
    assert clone.fc is not ce.fc


def test_warnings_point_at_caller() -> None:
    p = nn.Parameter(ember.zeros(2))
    for make in (lambda: NLLLoss2d(), lambda: Container(), lambda: nn.utils.clip_grad_norm(p, 1.0)):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            make()
        assert rec[0].filename == __file__
