"""TransformerDecoderLayer, TransformerDecoder and Transformer: torch's weights copied into ember
give the same outputs and parameter gradients (masks, causal hints, norm_first, batch_first)."""

from __future__ import annotations

import warnings
from typing import Any

import ember
import ember.nn as nn
import ember.nn.functional as F
import numpy as np
import pytest
from _nn_testutil import close, copy_params, pair

RNG = np.random.default_rng(23)


def _grads_equal(e: Any, t: Any, atol: float = 1e-5) -> None:
    eg = dict(e.named_parameters())
    assert list(eg) == [n for n, _ in t.named_parameters()]
    for name, p in t.named_parameters():
        if p.grad is None:
            assert eg[name].grad is None or float(eg[name].grad.abs().max()) == 0.0, name
            continue
        close(eg[name].grad, p.grad, atol=atol, rtol=1e-4)


def _pair_module(torch: Any, make_t: Any, make_e: Any) -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, e = make_t(), make_e()
    copy_params(t, e)
    return e, t


LAYER_CASES = [
    {}, {"norm_first": True}, {"batch_first": True}, {"activation": "gelu"}, {"bias": False},
    {"norm_first": True, "batch_first": True, "activation": "gelu"},
]


@pytest.mark.parametrize("kw", LAYER_CASES, ids=[str(k) for k in LAYER_CASES])
@pytest.mark.parametrize("train", [False, True])
def test_decoder_layer(torch: Any, kw: dict, train: bool) -> None:
    e, t = _pair_module(torch, lambda: torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **kw),
                        lambda: nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **kw))
    e.train(train)
    t.train(train)
    bf = kw.get("batch_first", False)
    tshape, mshape = ((3, 5, 8), (3, 4, 8)) if bf else ((5, 3, 8), (4, 3, 8))
    etg, ttg = pair(torch, RNG.standard_normal(tshape), requires_grad=True)
    emem, tmem = pair(torch, RNG.standard_normal(mshape), requires_grad=True)
    emask = nn.Transformer.generate_square_subsequent_mask(5)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(5)
    kpm = np.zeros((3, 4), dtype=bool)
    kpm[1, 3] = True
    ekpm, tkpm = ember.tensor(kpm.tolist()), torch.tensor(kpm)
    eo = e(etg, emem, tgt_mask=emask, memory_key_padding_mask=ekpm, tgt_is_causal=True)
    to = t(ttg, tmem, tgt_mask=tmask, memory_key_padding_mask=tkpm, tgt_is_causal=True)
    close(eo, to, atol=1e-5)
    (eo * eo).sum().backward()
    (to * to).sum().backward()
    _grads_equal(e, t)
    close(etg.grad, ttg.grad, atol=1e-5)
    close(emem.grad, tmem.grad, atol=1e-5)


def test_decoder_layer_callable_activation(torch: Any) -> None:
    e, t = _pair_module(torch, lambda: torch.nn.TransformerDecoderLayer(4, 1, 8, dropout=0.0,
                                                                        activation=torch.nn.functional.silu),
                        lambda: nn.TransformerDecoderLayer(4, 1, 8, dropout=0.0, activation=F.silu))
    etg, ttg = pair(torch, RNG.standard_normal((3, 2, 4)))
    emem, tmem = pair(torch, RNG.standard_normal((2, 2, 4)))
    close(e(etg, emem), t(ttg, tmem), atol=1e-5)


@pytest.mark.parametrize("norm", [False, True])
def test_decoder_stack(torch: Any, norm: bool) -> None:
    def make(lib: Any) -> Any:
        layer = lib.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)
        return lib.nn.TransformerDecoder(layer, 2, norm=lib.nn.LayerNorm(8) if norm else None)

    e, t = _pair_module(torch, lambda: make(torch), lambda: make(ember))
    assert list(e.state_dict()) == list(t.state_dict())
    etg, ttg = pair(torch, RNG.standard_normal((4, 2, 8)), requires_grad=True)
    emem, tmem = pair(torch, RNG.standard_normal((3, 2, 8)), requires_grad=True)
    # the causal mask is detected from its values (tgt_is_causal=None)
    eo = e(etg, emem, tgt_mask=nn.Transformer.generate_square_subsequent_mask(4))
    to = t(ttg, tmem, tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(4))
    close(eo, to, atol=1e-5)
    eo.sum().backward()
    to.sum().backward()
    _grads_equal(e, t)


@pytest.mark.parametrize("kw", [{}, {"batch_first": True, "norm_first": True}])
def test_transformer(torch: Any, kw: dict) -> None:
    e, t = _pair_module(torch, lambda: torch.nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, **kw),
                        lambda: nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, **kw))
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    bf = kw.get("batch_first", False)
    src_shape, tgt_shape = ((2, 5, 8), (2, 4, 8)) if bf else ((5, 2, 8), (4, 2, 8))
    es, ts = pair(torch, RNG.standard_normal(src_shape), requires_grad=True)
    etg, ttg = pair(torch, RNG.standard_normal(tgt_shape), requires_grad=True)
    eo = e(es, etg, tgt_mask=nn.Transformer.generate_square_subsequent_mask(4))
    to = t(ts, ttg, tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(4))
    close(eo, to, atol=1e-5)
    (eo * eo).sum().backward()
    (to * to).sum().backward()
    _grads_equal(e, t, atol=2e-5)
    close(es.grad, ts.grad, atol=1e-5)


def test_transformer_init_and_errors(torch: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = nn.Transformer(8, 2, 1, 1, 16)
    w = m.decoder.layers[0].linear1.weight
    bound = (6 / (8 + 16)) ** 0.5  # xavier_uniform
    assert float(w.abs().max()) <= bound
    assert float(m.decoder.layers[0].linear1.bias.abs().max()) <= 1 / 8 ** 0.5  # 1-D: Linear's own init
    mask = nn.Transformer.generate_square_subsequent_mask(3, dtype=ember.float64)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64)
    assert mask.dtype == ember.float64 and mask.tolist() == tmask.tolist()
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        m(ember.zeros(3, 2, 8), ember.zeros(3, 3, 8))
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        m(ember.zeros(3, 2, 8), ember.zeros(3, 2, 4))
