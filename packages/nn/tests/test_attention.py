"""scaled_dot_product_attention, one_hot and channel-wise dropout."""

from __future__ import annotations

from typing import Any

import ember
import ember.nn as nn
import ember.nn.functional as F
import numpy as np
import pytest
from _nn_testutil import close, pair

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("kind", ["none", "causal", "bool", "float", "scale", "gqa"])
def test_sdpa_matches_torch(torch: Any, kind: str) -> None:
    hk = 1 if kind == "gqa" else 2
    qe, qt = pair(torch, RNG.normal(size=(2, 2, 4, 3)), requires_grad=True)
    ke, kt = pair(torch, RNG.normal(size=(2, hk, 5 if kind != "causal" else 4, 3)), requires_grad=True)
    ve, vt = pair(torch, RNG.normal(size=tuple(ke.shape[:-1]) + (6,)), requires_grad=True)
    kw_e: dict[str, Any] = {}
    kw_t: dict[str, Any] = {}
    if kind == "causal":
        kw_e = kw_t = {"is_causal": True}
    elif kind == "bool":
        mask = RNG.random(size=(4, 5)) > 0.4
        mask[:, 0] = True
        kw_e, kw_t = {"attn_mask": ember.tensor(mask.tolist())}, {"attn_mask": torch.tensor(mask)}
    elif kind == "float":
        me, mt = pair(torch, RNG.normal(size=(2, 1, 4, 5)))
        kw_e, kw_t = {"attn_mask": me}, {"attn_mask": mt}
    elif kind == "scale":
        kw_e = kw_t = {"scale": 0.3}
    elif kind == "gqa":
        kw_e = kw_t = {"enable_gqa": True}
    ye = F.scaled_dot_product_attention(qe, ke, ve, **kw_e)
    yt = torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, **kw_t)
    close(ye, yt, atol=1e-5)
    ye.sum().backward()
    yt.sum().backward()
    for a, b in [(qe, qt), (ke, kt), (ve, vt)]:
        close(a.grad, b.grad, atol=1e-5)


@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_reads_strided_rows(torch: Any, causal: bool) -> None:
    # the fused kernel reads (B, L, H, E) storage seen as (B, H, L, E), and keys broadcast over
    # heads (stride 0), through their strides
    def run(lib: Any, arrays: list[Any]) -> list[Any]:
        leaves = [pair(torch, a, requires_grad=True)[0 if lib is ember else 1] for a in arrays]
        q, k, v = (t.transpose(1, 2) for t in leaves)
        k = k[:, :1].expand(-1, 3, -1, -1)
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        (out * out).sum().backward()
        return [out, *(t.grad for t in leaves)]

    arrays = [RNG.normal(size=(2, n, 3, 8)) for n in (9, 12, 12)]
    for a, b in zip(run(ember, arrays), run(torch, arrays)):
        close(a, b, atol=1e-5)


def test_sdpa_mask_with_causal_errors() -> None:
    q = ember.ones(1, 2, 2)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=ember.ones(2, 2), is_causal=True)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("strided", [False, True])
def test_sdpa_masked_nan_key_follows_the_path(torch: Any, dtype: str, strided: bool) -> None:
    # aten's math path (taken for a key whose last dim is not unit-stride) adds the causal mask,
    # so a NaN score at a masked position makes its row NaN; the fused kernel never computes it
    q = RNG.normal(size=(1, 2, 4, 3))
    k = RNG.normal(size=(1, 2, 4, 6))
    k[0, 1, 2] = np.nan
    v = RNG.normal(size=(1, 2, 4, 3))
    (qe, qt), (ke, kt), (ve, vt) = (pair(torch, a, dtype=dtype) for a in (q, k, v))
    ke, kt = (ke[..., ::2], kt[..., ::2]) if strided else (ke[..., :3].contiguous(), kt[..., :3].contiguous())
    ye = F.scaled_dot_product_attention(qe, ke, ve, is_causal=True)
    yt = torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, is_causal=True)
    assert bool(ye[0, 1, 0].isnan().all()) == strided
    close(ye.float(), yt.float(), atol=1e-3 if dtype == "float16" else 1e-5, rtol=1e-3)


def test_sdpa_math_path_fully_masked_row_is_zero(torch: Any) -> None:
    # aten's _safe_softmax: a row with no key to attend gives 0, not NaN
    mask = [[True, False, False], [False, False, False], [True, True, True]]
    (qe, qt), (ke, kt), (ve, vt) = (pair(torch, RNG.normal(size=(1, 3, 3))) for _ in range(3))
    ye = F.scaled_dot_product_attention(qe, ke, ve, attn_mask=ember.tensor(mask))
    yt = torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, attn_mask=torch.tensor(mask))
    close(ye, yt, atol=1e-6)
    assert ye[0, 1].abs().sum().item() == 0.0


def test_one_hot(torch: Any) -> None:
    t = [[0, 2], [1, 3]]
    assert F.one_hot(ember.tensor(t)).tolist() == torch.nn.functional.one_hot(torch.tensor(t)).tolist()
    assert F.one_hot(ember.tensor(t), 6).shape == (2, 2, 6)
    assert F.one_hot(ember.tensor([1])).dtype == ember.int64
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor of type LongTensor."):
        F.one_hot(ember.tensor([1.0]))
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes."):
        F.one_hot(ember.tensor([3]), 2)


@pytest.mark.parametrize("cls,shape", [("Dropout1d", (4, 30, 5)), ("Dropout2d", (4, 30, 2, 2)),
                                       ("Dropout3d", (30, 2, 2, 2))])
def test_channel_dropout(torch: Any, cls: str, shape: tuple[int, ...]) -> None:
    d = getattr(nn, cls)(0.5)
    assert repr(d) == repr(getattr(torch.nn, cls)(0.5))
    y = d(ember.ones(*shape))
    # each channel is all-zero or all-2
    flat = y.reshape(-1, int(np.prod(shape[-(len(shape) - (1 if cls == "Dropout3d" else 2)):])))
    per_channel = flat.amax(-1)
    assert bool(((flat == per_channel.unsqueeze(-1)).all()).item())
    assert set(per_channel.tolist()) <= {0.0, 2.0} and len(set(per_channel.tolist())) == 2
    assert d.eval()(ember.ones(*shape)).tolist() == ember.ones(*shape).tolist()
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input"):
        F.dropout1d(ember.ones(2))
