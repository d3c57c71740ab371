"""MultiheadAttention and TransformerEncoder(Layer): same weights as torch → same outputs and grads."""

from __future__ import annotations

import warnings
from typing import Any

import ember
import ember.nn as nn
import numpy as np
import pytest
from _nn_testutil import close, copy_params, pair

RNG = np.random.default_rng(11)


def _mha_pair(torch: Any, **kw: Any) -> tuple[Any, Any]:
    t = torch.nn.MultiheadAttention(4, 2, **kw)
    with torch.no_grad():
        for p in t.parameters():
            p.uniform_(-0.5, 0.5)  # non-zero biases too
    e = nn.MultiheadAttention(4, 2, **kw)
    copy_params(t, e)
    return e, t


CASES = [
    {}, {"batch_first": True}, {"kdim": 3, "vdim": 5}, {"add_bias_kv": True, "add_zero_attn": True},
    {"bias": False},
]


@pytest.mark.parametrize("kw", CASES)
@pytest.mark.parametrize("masks", ["none", "key_padding", "bool_attn", "float_attn_and_padding"])
def test_mha_matches_torch(torch: Any, kw: dict[str, Any], masks: str) -> None:
    e, t = _mha_pair(torch, **kw)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert repr(e) == repr(t)
    n, lq, ls = 2, 3, 4
    bf = kw.get("batch_first", False)
    qshape = (n, lq, 4) if bf else (lq, n, 4)
    kshape = (n, ls, kw.get("kdim", 4)) if bf else (ls, n, kw.get("kdim", 4))
    vshape = (n, ls, kw.get("vdim", 4)) if bf else (ls, n, kw.get("vdim", 4))
    qe, qt = pair(torch, RNG.normal(size=qshape), requires_grad=True)
    ke, kt = pair(torch, RNG.normal(size=kshape), requires_grad=True)
    ve, vt = pair(torch, RNG.normal(size=vshape), requires_grad=True)
    ekw: dict[str, Any] = {}
    tkw: dict[str, Any] = {}
    if masks in ("key_padding", "float_attn_and_padding"):
        kpm = np.array([[False, False, True, False], [False, True, True, False]])
        ekw["key_padding_mask"], tkw["key_padding_mask"] = ember.tensor(kpm.tolist()), torch.tensor(kpm)
    if masks == "bool_attn":
        am = np.array([[False, True, False, False], [False, False, False, True], [True, False, False, False]])
        ekw["attn_mask"], tkw["attn_mask"] = ember.tensor(am.tolist()), torch.tensor(am)
    if masks == "float_attn_and_padding":
        ekw["attn_mask"], tkw["attn_mask"] = pair(torch, RNG.normal(size=(n * 2, lq, ls)))
    for need_weights, avg in [(True, True), (True, False), (False, True)]:
        with warnings.catch_warnings(record=True) as got_e:
            warnings.simplefilter("always")
            oe, we = e(qe, ke, ve, need_weights=need_weights, average_attn_weights=avg, **ekw)
        with warnings.catch_warnings(record=True) as got_t:
            warnings.simplefilter("always")
            ot, wt = t(qt, kt, vt, need_weights=need_weights, average_attn_weights=avg, **tkw)
        assert [str(w.message) for w in got_e] == [str(w.message) for w in got_t]
        close(oe, ot, atol=1e-5)
        if need_weights:
            close(we, wt, atol=1e-5)
        else:
            assert we is None and wt is None
    oe.sum().backward()
    ot.sum().backward()
    for a, b in [(qe, qt), (ke, kt), (ve, vt)]:
        close(a.grad, b.grad, atol=1e-5)
    for (_, pe), (_, pt) in zip(e.named_parameters(), t.named_parameters(), strict=True):
        close(pe.grad, pt.grad, atol=1e-5)


def test_mha_unbatched_and_eval(torch: Any) -> None:
    e, t = _mha_pair(torch)
    e.eval()
    t.eval()
    xe, xt = pair(torch, RNG.normal(size=(3, 4)))
    with torch.no_grad():
        ot, wt = t(xt, xt, xt)
    oe, we = e(xe, xe, xe)
    close(oe, ot, atol=1e-5)
    close(we, wt, atol=1e-5)
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(4, 3)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        e(xe, xe, xe, is_causal=True)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_matches_torch(torch: Any, norm_first: bool, batch_first: bool) -> None:
    def build(lib: Any) -> Any:
        layer = lib.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, activation="gelu", norm_first=norm_first,
                                               batch_first=batch_first)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lib.nn.TransformerEncoder(layer, 2, norm=lib.nn.LayerNorm(4))

    t = build(torch)
    with torch.no_grad():
        for p in t.parameters():
            p.add_(torch.rand(p.shape) * 0.1)
    e = build(ember)
    copy_params(t, e)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    xe, xt = pair(torch, RNG.normal(size=(2, 3, 4) if batch_first else (3, 2, 4)), requires_grad=True)
    causal = np.triu(np.full((3, 3), -np.inf, dtype="float32"), 1)
    me, mt = ember.from_numpy(causal), torch.from_numpy(causal)
    ye, yt = e(xe, mask=me), t(xt, mask=mt)
    close(ye, yt, atol=1e-5)
    (ye * ye).sum().backward()
    (yt * yt).sum().backward()
    close(xe.grad, xt.grad, atol=1e-4)
    for (_, pe), (_, pt) in zip(e.named_parameters(), t.named_parameters(), strict=True):
        close(pe.grad, pt.grad, atol=1e-4)


def test_encoder_layer_activation_error_and_warning() -> None:
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(4, 2, activation="tanh")
    with pytest.warns(UserWarning, match="enable_nested_tensor is True"):
        nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2), 1)
