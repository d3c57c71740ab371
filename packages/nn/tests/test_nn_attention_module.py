"""ember.nn.attention: SDPBackend, sdpa_kernel (its effect on scaled_dot_product_attention's
kernel choice, warnings and errors), the causal biases and the flex-attention helpers."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import ember
import ember.backends.cuda
import ember.nn.functional as F
import numpy as np
import pytest
from _nn_testutil import close, pair
from ember.nn.attention import SDPBackend, sdpa_kernel
from ember.nn.attention.bias import CausalBias, CausalVariant, causal_lower_right, causal_upper_left

RNG = np.random.default_rng(11)


def test_backend_enum_like_torch(torch: Any) -> None:
    tb = torch.nn.attention.SDPBackend
    assert {n: int(v) for n, v in SDPBackend.__members__.items()} == {n: int(v) for n, v in tb.__members__.items()}
    assert str(SDPBackend.MATH) == str(tb.MATH) and repr(SDPBackend.MATH) == repr(tb.MATH)
    assert SDPBackend.FLASH_ATTENTION.name == "FLASH_ATTENTION" and ember.nn.attention.WARN_FOR_UNFUSED_KERNELS is False


def _flags(lib: Any) -> list[bool]:
    c = lib.backends.cuda
    return [c.flash_sdp_enabled(), c.mem_efficient_sdp_enabled(), c.math_sdp_enabled(), c.cudnn_sdp_enabled()]


@pytest.mark.parametrize("backends", [[SDPBackend.MATH], [SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION],
                                      [], [SDPBackend.EFFICIENT_ATTENTION]])
def test_sdpa_kernel_sets_the_backend_flags(torch: Any, backends: list[Any]) -> None:
    tb = [getattr(torch.nn.attention.SDPBackend, b.name) for b in backends]
    with sdpa_kernel(backends), torch.nn.attention.sdpa_kernel(tb):
        assert _flags(ember) == _flags(torch)
        assert ember.nn.attention._cur_sdpa_kernel_backends() == backends or set(
            ember.nn.attention._cur_sdpa_kernel_backends()) == set(backends)
    assert _flags(ember) == _flags(torch) == [True] * 4


def test_sdpa_kernel_priority_and_argument_checks(torch: Any) -> None:
    A = ember.nn.attention
    before = A._cur_sdpa_kernel_backends(with_priority=True)
    tnames = [b.name for b in torch.nn.attention._cur_sdpa_kernel_backends(with_priority=True)]
    assert [b.name for b in before] == tnames
    with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION], set_priority=True) as r:
        assert r == {} and A._priority_order[:2] == [0, 1]
    assert A._cur_sdpa_kernel_backends(with_priority=True) == before
    for bad in ("math", (SDPBackend.MATH,)):
        with pytest.raises(AssertionError, match=f"got {type(bad).__name__}"):
            with sdpa_kernel(bad):  # type: ignore[arg-type]
                pass


def _run(lib: Any, backends: Any, *arrays: Any, mask: Any = None, stride: bool = False, **kw: Any) -> tuple[Any, Any]:
    """(result or exception, warning messages) of one attention call under sdpa_kernel."""
    names = backends if isinstance(backends, list) else [backends]
    enum = lib.nn.attention.SDPBackend
    ts = [lib.tensor(a) if lib is not ember else ember.from_numpy(a.copy()) for a in arrays]
    if stride:
        ts[0] = ts[0].transpose(-1, -2).contiguous().transpose(-1, -2)
    if mask is not None:
        kw["attn_mask"] = lib.tensor(mask) if lib is not ember else ember.from_numpy(mask.copy())
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            with lib.nn.attention.sdpa_kernel([getattr(enum, n) for n in names]):
                got: Any = lib.nn.functional.scaled_dot_product_attention(*ts, **kw)
        except Exception as e:  # noqa: BLE001 - compared with torch's
            got = e
    return got, [str(x.message).split(" (Triggered internally")[0] for x in w]


Q4 = RNG.normal(size=(2, 3, 4, 8)).astype(np.float32)
Q3 = RNG.normal(size=(3, 4, 8)).astype(np.float32)


@pytest.mark.parametrize("case", [
    ("MATH", (Q4, Q4, Q4), {}), ("FLASH_ATTENTION", (Q4, Q4, Q4), {}), ("EFFICIENT_ATTENTION", (Q4, Q4, Q4), {}),
    ("CUDNN_ATTENTION", (Q4, Q4, Q4), {}), ("OVERRIDEABLE", (Q4, Q4, Q4), {}), ("ERROR", (Q4, Q4, Q4), {}),
    ("FLASH_ATTENTION", (Q3, Q3, Q3), {}), ("FLASH_ATTENTION", (Q4, Q4, Q4), {"dropout_p": 0.2}),
    ("FLASH_ATTENTION", (Q4, Q4, Q4), {"stride": True}),
    ("FLASH_ATTENTION", (Q4, Q4[:1], Q4[:1]), {}), ("FLASH_ATTENTION", (Q4, Q4[:, :1], Q4[:, :1]), {}),
    ("FLASH_ATTENTION", (Q4, Q4, Q4[..., :5]), {}),
    ("FLASH_ATTENTION", (Q4, Q4, Q4), {"mask": np.ones((3, 4, 4), dtype=bool)}),
    ("FLASH_ATTENTION", (Q4, Q4, Q4), {"mask": np.ones((2, 4), dtype=bool)}),
    ("FLASH_ATTENTION", (Q4, Q4, Q4), {"mask": np.ones((4,), dtype=bool)}),
    ("MATH", (Q4, Q4, Q4), {"mask": np.tril(np.ones((4, 4), dtype=bool)), "is_causal": True}),
    ("FLASH_ATTENTION", (Q4[:, :, :0], Q4, Q4), {}),
    ([], (Q4[:, :, :0], Q4, Q4), {}),
])
def test_kernel_choice_errors_and_warnings_like_torch(torch: Any, case: tuple[Any, ...]) -> None:
    backends, arrays, kw = case
    ge, we = _run(ember, backends, *arrays, **kw)
    gt, wt = _run(torch, backends, *arrays, **kw)
    assert we == wt
    if isinstance(gt, Exception):
        assert type(ge) is type(gt) and str(ge) == str(gt)
    else:
        assert not isinstance(ge, Exception), ge
        close(ge, gt, atol=1e-5)


def test_flash_and_math_choice_shows_in_grad_fn(torch: Any) -> None:
    qe, qt = pair(torch, Q4, requires_grad=True)
    for b in ("MATH", "FLASH_ATTENTION"):
        with sdpa_kernel(SDPBackend[b]), torch.nn.attention.sdpa_kernel(getattr(torch.nn.attention.SDPBackend, b)):
            ye, yt = F.scaled_dot_product_attention(qe, qe, qe), torch.nn.functional.scaled_dot_product_attention(
                qt, qt, qt)
        # which kernel ran (ember's math composite ends in another node than aten's: compare the kernel)
        assert ("Flash" in type(ye.grad_fn).__name__) == ("Flash" in type(yt.grad_fn).__name__)
        close(ye, yt, atol=1e-5)
    ember.backends.cuda.enable_flash_sdp(False)
    try:
        assert "Flash" not in type(F.scaled_dot_product_attention(qe, qe, qe).grad_fn).__name__
    finally:
        ember.backends.cuda.enable_flash_sdp(True)


@pytest.mark.parametrize("kind", ["causal_and_mask", "f32_mask_f64_query"])
def test_fused_kernel_cases_like_torch(torch: Any, kind: str) -> None:
    # torch's fused CPU kernel takes an explicit mask together with is_causal, and a float32 mask for
    # float64 inputs: both run there (only the math path refuses the first)
    dtype = "float64" if kind == "f32_mask_f64_query" else "float32"
    (qe, qt), (ke, kt), (ve, vt) = (pair(torch, RNG.normal(size=(2, 2, 4, 8)), True, dtype) for _ in range(3))
    m = RNG.normal(size=(4, 4))
    me, mt = pair(torch, m)
    kw_e: dict[str, Any] = {"attn_mask": me, "is_causal": kind == "causal_and_mask"}
    kw_t: dict[str, Any] = {"attn_mask": mt, "is_causal": kind == "causal_and_mask"}
    ye = F.scaled_dot_product_attention(qe, ke, ve, **kw_e)
    yt = torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, **kw_t)
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__
    close(ye, yt, atol=1e-5)
    ye.sum().backward()
    yt.sum().backward()
    close(qe.grad, qt.grad, atol=1e-5)
    close(ke.grad, kt.grad, atol=1e-5)


# ---------------------------------------------------------------- bias


@pytest.mark.parametrize("make", ["causal_upper_left", "causal_lower_right"])
@pytest.mark.parametrize("lens", [(3, 5), (4, 4)])
def test_causal_bias_like_torch(torch: Any, make: str, lens: tuple[int, int]) -> None:
    import torch.nn.attention.bias as tbias

    be, bt = getattr(ember.nn.attention.bias, make)(*lens), getattr(tbias, make)(*lens)
    assert isinstance(be, CausalBias) and isinstance(be, ember.Tensor)
    assert tuple(be.shape) == tuple(bt.shape) and be.variant.name == bt.variant.name
    assert repr(be) == repr(bt)
    assert ember.equal(be._materialize(), ember.tensor(bt._materialize().numpy().tolist()))
    (qe, qt) = pair(torch, RNG.normal(size=(2, 2, lens[0], 8)), requires_grad=True)
    (ke, kt), (ve, vt) = (pair(torch, RNG.normal(size=(2, 2, lens[1], 8)), requires_grad=True) for _ in range(2))
    ye = F.scaled_dot_product_attention(qe, ke, ve, attn_mask=be)
    yt = torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, attn_mask=bt)
    assert type(ye) is ember.Tensor
    close(ye, yt, atol=1e-5)
    ye.sum().backward()
    yt.sum().backward()
    close(qe.grad, qt.grad, atol=1e-5)
    close(ve.grad, vt.grad, atol=1e-5)


def test_causal_bias_errors_and_warnings(torch: Any) -> None:
    q = ember.randn(1, 1, 2, 4)
    with pytest.raises(ValueError, match="CausalBias should not be used with causal=True"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=causal_upper_left(2, 2), is_causal=True)
    with pytest.raises(AssertionError, match="causal_lower_right only supports 2D tensors"):
        causal_lower_right(3)
    with pytest.raises(AssertionError, match="variant must be a CausalVariant, got int"):
        CausalBias(1, 2, 3)  # type: ignore[arg-type]
    with pytest.warns(UserWarning, match="Lower right causal bias will produce NaNs"):
        causal_lower_right(5, 3)
    assert int(CausalVariant.UPPER_LEFT) == 1 and int(CausalVariant.LOWER_RIGHT) == 2
    ember.nn.attention.WARN_FOR_UNFUSED_KERNELS = True
    try:
        k = ember.randn(1, 1, 4, 4)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            F.scaled_dot_product_attention(q, k, k, attn_mask=causal_lower_right(2, 4))
        assert [str(x.message) for x in w] == ["Efficient attention can't be used because:",
                                               "Flash attention can't be used because:"]
    finally:
        ember.nn.attention.WARN_FOR_UNFUSED_KERNELS = False


# ---------------------------------------------------------------- flex attention helpers and registry


def test_flex_attention_helpers(torch: Any) -> None:
    from ember.nn.attention import flex_attention as fe
    from torch.nn.attention import flex_attention as ft

    def causal(lib: Any) -> Callable[..., Any]:
        return lambda b, h, q, kv: q >= kv

    def window(b: Any, h: Any, q: Any, kv: Any) -> Any:
        return (q - kv) <= 1

    me = fe.create_mask(fe.and_masks(causal(ember), window), 2, 3, 4, 5)
    mt = ft.create_mask(ft.and_masks(causal(torch), window), 2, 3, 4, 5, device="cpu")
    assert me.dtype == ember.bool and ember.equal(me, ember.tensor(mt.numpy().tolist()))
    me = fe.create_mask(fe.or_masks(causal(ember), fe.noop_mask), None, None, 2, 2)
    assert bool(me.all()) and tuple(me.shape) == (1, 1, 2, 2)
    with pytest.raises(NotImplementedError, match="ember: torch.nn.attention.flex_attention is not implemented"):
        fe.flex_attention(ember.ones(1, 1, 2, 2), ember.ones(1, 1, 2, 2), ember.ones(1, 1, 2, 2))


def test_flash_impl_registry() -> None:
    A = ember.nn.attention
    removed: list[str] = []

    class Handle:
        def remove(self) -> None:
            removed.append("x")

    with pytest.raises(ValueError, match="Unknown flash attention impl 'X'"):
        A.activate_flash_attention_impl("X")
    A.register_flash_attention_impl("Mine", register_fn=Handle)
    try:
        A.activate_flash_attention_impl("Mine")
        assert A.current_flash_attention_impl() == "Mine" and "Mine" in A.list_flash_attention_impls()
        A.restore_flash_attention_impl()
        assert removed == ["x"] and A.current_flash_attention_impl() is None
    finally:
        A._FLASH_ATTENTION_IMPLS.pop("Mine", None)
    assert hasattr(ember.nn, "attention") and A._get_flash_version() == "2.5.7"
