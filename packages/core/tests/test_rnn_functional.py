"""torch.lstm / gru / rnn_tanh / rnn_relu (ember/_rnn_functional.py) against PyTorch 2.13: the
padded and packed forms, batch_first, bidirectional and stacked layers, no biases, LSTM
projections; outputs, final states and weight gradients; the errors PyTorch gives."""

from __future__ import annotations

import ember
import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
pytest.importorskip("ember.nn")

KINDS = {"lstm": ("LSTM", {}), "gru": ("GRU", {}), "rnn_tanh": ("RNN", {}), "rnn_relu": ("RNN", {"nonlinearity": "relu"})}


def _params(kind, layers, bidir, bias, proj):
    cls, kw = KINDS[kind]
    if proj:
        kw = {**kw, "proj_size": 3}
    torch.manual_seed(0)
    m = getattr(torch.nn, cls)(4, 5, num_layers=layers, bidirectional=bidir, bias=bias, dtype=torch.float64, **kw)
    return [p.detach().clone() for p in m._flat_weights]


def _hidden(m, kind, layers, bidir, batch, proj):
    d = layers * (2 if bidir else 1)
    torch.manual_seed(1)
    h = torch.randn(d, batch, 3 if proj else 5, dtype=torch.float64)
    c = torch.randn(d, batch, 5, dtype=torch.float64)
    conv = (lambda t: t) if m is torch else (lambda t: ember.tensor(t.numpy()))
    return (conv(h), conv(c)) if kind == "lstm" else conv(h)


def _run(m, kind, packed, layers, bidir, bias, proj, batch_first):
    raw = _params(kind, layers, bidir, bias, proj)
    ps = [(p.clone() if m is torch else ember.tensor(p.numpy())).requires_grad_() for p in raw]
    torch.manual_seed(2)
    x = torch.randn(6, 3, 4, dtype=torch.float64)
    hx = _hidden(m, kind, layers, bidir, 3, proj)
    fn = getattr(m, kind)
    if packed:
        pk = torch.nn.utils.rnn.pack_padded_sequence(x, [6, 4, 2])
        data = pk.data if m is torch else ember.tensor(pk.data.numpy())
        sizes = pk.batch_sizes if m is torch else ember.tensor(pk.batch_sizes.numpy())
        out = fn(data, sizes, hx, ps, bias, layers, 0.0, False, bidir)
    else:
        xin = x.transpose(0, 1).contiguous() if batch_first else x
        xin = xin if m is torch else ember.tensor(xin.numpy())
        out = fn(xin, hx, ps, bias, layers, 0.0, False, bidir, batch_first)
    sum(o.sum() * (i + 1) for i, o in enumerate(out)).backward()
    return [o.detach().numpy() for o in out], [p.grad.numpy() for p in ps]


CASES = [(kind, packed, layers, bidir, bias, proj, bf)
         for kind in KINDS for packed, layers, bidir, bias, proj, bf in [
             (False, 1, False, True, False, False), (False, 2, True, True, False, True),
             (True, 2, True, True, False, False), (False, 1, False, False, False, False),
             (True, 1, False, True, False, False)]] + [
    ("lstm", False, 2, False, True, True, False), ("lstm", True, 1, True, False, True, False)]


@pytest.mark.parametrize("kind,packed,layers,bidir,bias,proj,batch_first", CASES, ids=str)
def test_matches_torch(kind, packed, layers, bidir, bias, proj, batch_first):
    eo, eg = _run(ember, kind, packed, layers, bidir, bias, proj, batch_first)
    to, tg = _run(torch, kind, packed, layers, bidir, bias, proj, batch_first)
    assert len(eo) == len(to)
    for a, b in zip(eo + eg, to + tg):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)


def test_returns_tuples_of_the_right_length():
    for m in (ember, torch):
        x, h = m.randn(3, 2, 4), m.zeros(1, 2, 5)
        ps = [m.randn(20, 4), m.randn(20, 5), m.randn(20), m.randn(20)]
        r = m.lstm(x, (h, h), ps, True, 1, 0.0, False, False, False)
        assert isinstance(r, tuple) and len(r) == 3
        r = m.gru(x, h, [p[:15] for p in ps], True, 1, 0.0, False, False, False)
        assert isinstance(r, tuple) and len(r) == 2


def test_errors():
    for m in (ember, torch):
        x, h = m.randn(3, 2, 4), m.zeros(1, 2, 5)
        ps = [m.randn(20, 4), m.randn(20, 5), m.randn(20), m.randn(20)]
        with pytest.raises(RuntimeError, match="lstm expects two hidden states"):
            m.lstm(x, (h,), ps, True, 1, 0.0, False, False, False)
        with pytest.raises(RuntimeError, match="ArrayRef size 3 not divisible by stride 4"):
            m.lstm(x, (h, h), ps[:3], True, 1, 0.0, False, False, False)
        with pytest.raises(RuntimeError):
            m.lstm(x, (h, h), ps, True, 2, 0.0, False, False, False)


def test_dropout_between_layers_in_training():
    ember.manual_seed(0)
    x, h = ember.randn(4, 2, 3), ember.zeros(2, 2, 3)
    ps = [ember.randn(3, 3), ember.randn(3, 3), ember.randn(3), ember.randn(3)] * 2
    a = ember.rnn_tanh(x, h, ps, True, 2, 0.0, True, False, False)[0]
    b = ember.rnn_tanh(x, h, ps, True, 2, 0.9999, True, False, False)[0]
    c = ember.rnn_tanh(x, h, ps, True, 2, 0.9999, False, False, False)[0]
    assert not np.allclose(a.numpy(), b.numpy()) and np.allclose(a.numpy(), c.numpy())
