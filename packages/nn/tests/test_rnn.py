"""RNN / LSTM / GRU and their cells against torch.nn: the same weights (torch's state_dict loaded
into ember) give the same outputs, hidden states and parameter gradients; packed sequences,
bidirectional multi-layer stacks, proj_size, unbatched inputs, reprs and errors."""

from __future__ import annotations

import warnings
from typing import Any

import ember
import ember.nn as nn
import numpy as np
import pytest
from _nn_testutil import close, copy_params, pair
from ember.nn.utils import rnn as ernn

RNG = np.random.default_rng(5)


def _modules(torch: Any, cls: str, *args: Any, dtype: str = "float32", **kw: Any) -> tuple[Any, Any]:
    t = getattr(torch.nn, cls)(*args, **kw)
    if dtype == "float64":
        t = t.double()
    e = getattr(nn, cls)(*args, **kw, dtype=getattr(ember, dtype))
    copy_params(t, e)
    return e, t


def _grads_equal(e: Any, t: Any, atol: float = 1e-5) -> None:
    eg = dict(e.named_parameters())
    for name, p in t.named_parameters():
        assert eg[name].grad is not None, name
        close(eg[name].grad, p.grad, atol=atol, rtol=1e-4)


def _loss(out: Any) -> Any:
    # every output element gets a different gradient
    return (out * out).sum() + out.sum()


def _flat(obj: Any) -> list:
    if isinstance(obj, (tuple, list)):
        return [x for o in obj for x in _flat(o)]
    return [obj]


LAYER_CASES = [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("RNN", {"bias": False}),
    ("LSTM", {}), ("LSTM", {"proj_size": 3}), ("LSTM", {"bias": False}),
    ("GRU", {}), ("GRU", {"bias": False}),
    ("RNN", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"num_layers": 2, "bidirectional": True, "proj_size": 2}),
    ("GRU", {"num_layers": 3, "bidirectional": True, "batch_first": True}),
    ("LSTM", {"batch_first": True}),
]


@pytest.mark.parametrize("cls, kw", LAYER_CASES, ids=[f"{c}-{k}" for c, k in LAYER_CASES])
@pytest.mark.parametrize("with_hx", [False, True])
def test_layer_matches_torch(torch: Any, cls: str, kw: dict, with_hx: bool) -> None:
    e, t = _modules(torch, cls, 4, 5, **kw)
    T, B = 6, 3
    shape = (B, T, 4) if kw.get("batch_first") else (T, B, 4)
    ex, tx = pair(torch, RNG.standard_normal(shape), requires_grad=True)
    dirs = 2 if kw.get("bidirectional") else 1
    layers = kw.get("num_layers", 1)
    hw = kw.get("proj_size", 0) or 5
    ehx = thx = None
    leaves = [(ex, tx)]
    if with_hx:
        eh, th = pair(torch, RNG.standard_normal((layers * dirs, B, hw)), requires_grad=True)
        leaves.append((eh, th))
        if cls == "LSTM":
            ec, tc = pair(torch, RNG.standard_normal((layers * dirs, B, 5)), requires_grad=True)
            leaves.append((ec, tc))
            ehx, thx = (eh, ec), (th, tc)
        else:
            ehx, thx = eh, th
    eo, eh_n = e(ex, ehx)
    to, th_n = t(tx, thx)
    close(eo, to, atol=1e-5)
    for a, b in zip(_flat(eh_n), _flat(th_n), strict=True):
        close(a, b, atol=1e-5)
    el = _loss(eo) + sum(_loss(h) for h in _flat(eh_n))
    tl = _loss(to) + sum(_loss(h) for h in _flat(th_n))
    el.backward()
    tl.backward()
    _grads_equal(e, t)
    for a, b in leaves:
        close(a.grad, b.grad, atol=1e-5)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_float64_and_eval(torch: Any, cls: str) -> None:
    e, t = _modules(torch, cls, 3, 4, num_layers=2, dropout=0.3, dtype="float64")
    e.eval()
    t.eval()  # eval: no dropout between layers
    ex, tx = pair(torch, RNG.standard_normal((5, 2, 3)), requires_grad=True, dtype="float64")
    eo, _ = e(ex)
    to, _ = t(tx)
    close(eo, to, atol=1e-12)
    eo.sum().backward()
    to.sum().backward()
    _grads_equal(e, t, atol=1e-12)
    close(ex.grad, tx.grad, atol=1e-12)


def test_dropout_between_layers_train() -> None:
    ember.manual_seed(0)
    m = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = ember.randn(5, 2, 3)
    a, _ = m(x)
    b, _ = m(x)
    assert not bool((a == b).all())  # random masks in training
    m.eval()
    c, _ = m(x)
    d, _ = m(x)
    assert bool((c == d).all())


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_unbatched(torch: Any, cls: str) -> None:
    e, t = _modules(torch, cls, 3, 4, num_layers=2, bidirectional=True)
    ex, tx = pair(torch, RNG.standard_normal((5, 3)), requires_grad=True)
    eo, eh = e(ex)
    to, th = t(tx)
    assert tuple(eo.shape) == tuple(to.shape)
    close(eo, to, atol=1e-5)
    for a, b in zip(_flat(eh), _flat(th), strict=True):
        assert tuple(a.shape) == tuple(b.shape)
        close(a, b, atol=1e-5)
    eo.sum().backward()
    to.sum().backward()
    close(ex.grad, tx.grad, atol=1e-5)


@pytest.mark.parametrize("cls, kw", [("LSTM", {}), ("GRU", {"num_layers": 2, "bidirectional": True}),
                                     ("RNN", {"bidirectional": True}),
                                     ("LSTM", {"num_layers": 2, "bidirectional": True, "proj_size": 2})])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequence(torch: Any, cls: str, kw: dict, enforce_sorted: bool) -> None:
    e, t = _modules(torch, cls, 3, 4, **kw)
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    ex, tx = pair(torch, RNG.standard_normal((5, 4, 3)), requires_grad=True)
    ep = ernn.pack_padded_sequence(ex, lengths, enforce_sorted=enforce_sorted)
    tp = torch.nn.utils.rnn.pack_padded_sequence(tx, lengths, enforce_sorted=enforce_sorted)
    dirs = 2 if kw.get("bidirectional") else 1
    hw = kw.get("proj_size", 0) or 4
    eh, th = pair(torch, RNG.standard_normal((kw.get("num_layers", 1) * dirs, 4, hw)), requires_grad=True)
    if cls == "LSTM":
        ec, tc = pair(torch, RNG.standard_normal((kw.get("num_layers", 1) * dirs, 4, 4)), requires_grad=True)
        ehx, thx = (eh, ec), (th, tc)
    else:
        ehx, thx = eh, th
    eo, eh_n = e(ep, ehx)
    to, th_n = t(tp, thx)
    assert isinstance(eo, ernn.PackedSequence)
    close(eo.data, to.data, atol=1e-5)
    assert eo.batch_sizes.tolist() == to.batch_sizes.tolist()
    for a, b in zip(_flat(eh_n), _flat(th_n), strict=True):
        close(a, b, atol=1e-5)
    epad, elen = ernn.pad_packed_sequence(eo, batch_first=True)
    tpad, tlen = torch.nn.utils.rnn.pad_packed_sequence(to, batch_first=True)
    close(epad, tpad, atol=1e-5)
    assert elen.tolist() == tlen.tolist()
    el = _loss(epad) + sum(_loss(h) for h in _flat(eh_n))
    tl = _loss(tpad) + sum(_loss(h) for h in _flat(th_n))
    el.backward()
    tl.backward()
    _grads_equal(e, t)
    close(ex.grad, tx.grad, atol=1e-5)
    close(eh.grad, th.grad, atol=1e-5)


CELL_CASES = [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu", "bias": False}), ("LSTMCell", {}),
              ("LSTMCell", {"bias": False}), ("GRUCell", {}), ("GRUCell", {"bias": False})]


@pytest.mark.parametrize("cls, kw", CELL_CASES, ids=[f"{c}-{k}" for c, k in CELL_CASES])
@pytest.mark.parametrize("batched", [True, False])
def test_cells(torch: Any, cls: str, kw: dict, batched: bool) -> None:
    e, t = _modules(torch, cls, 3, 4, **kw)
    shape = (2, 3) if batched else (3,)
    hshape = (2, 4) if batched else (4,)
    ex, tx = pair(torch, RNG.standard_normal(shape), requires_grad=True)
    eh, th = pair(torch, RNG.standard_normal(hshape), requires_grad=True)
    if cls == "LSTMCell":
        ec, tc = pair(torch, RNG.standard_normal(hshape), requires_grad=True)
        eo, to = e(ex, (eh, ec)), t(tx, (th, tc))
    else:
        eo, to = e(ex, eh), t(tx, th)
    for a, b in zip(_flat(eo), _flat(to), strict=True):
        assert tuple(a.shape) == tuple(b.shape)
        close(a, b, atol=1e-6)
    sum(_loss(o) for o in _flat(eo)).backward()
    sum(_loss(o) for o in _flat(to)).backward()
    _grads_equal(e, t)
    close(ex.grad, tx.grad, atol=1e-5)
    close(eh.grad, th.grad, atol=1e-5)
    # no hidden state: zeros
    for a, b in zip(_flat(e(ex)), _flat(t(tx)), strict=True):
        close(a, b, atol=1e-6)


def test_cell_double_backward(torch: Any) -> None:
    e, t = _modules(torch, "LSTMCell", 3, 4, dtype="float64")
    ex, tx = pair(torch, RNG.standard_normal((2, 3)), requires_grad=True, dtype="float64")
    res = []
    for lib, m, x in ((ember, e, ex), (torch, t, tx)):
        h, c = m(x)
        (g,) = lib.autograd.grad((h * c).sum(), x, create_graph=True)
        (g * g).sum().backward()
        res.append((g, m.weight_hh.grad))
    close(res[0][0], res[1][0], atol=1e-10)
    close(res[0][1], res[1][1], atol=1e-10)


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
def test_layer_double_backward(torch: Any, cls: str) -> None:
    e, t = _modules(torch, cls, 3, 4, num_layers=2, bidirectional=True, dtype="float64")
    ex, tx = pair(torch, RNG.standard_normal((5, 2, 3)), requires_grad=True, dtype="float64")
    res = []
    for lib, m, x in ((ember, e, ex), (torch, t, tx)):
        out, _ = m(x)
        (g,) = lib.autograd.grad((out * out).sum(), x, create_graph=True)
        (g * g).sum().backward()
        res.append((g, m.weight_hh_l1.grad, m.weight_ih_l0_reverse.grad))
    for a, b in zip(res[0], res[1], strict=True):
        close(a, b, atol=1e-10)


@pytest.mark.parametrize("cls, kw", [("RNN", {"nonlinearity": "relu", "num_layers": 2, "bias": False,
                                             "batch_first": True, "dropout": 0.5, "bidirectional": True}),
                                     ("LSTM", {"proj_size": 2}), ("GRU", {}), ("RNNCell", {"nonlinearity": "relu"}),
                                     ("LSTMCell", {"bias": False}), ("GRUCell", {})])
def test_repr_and_state_dict(torch: Any, cls: str, kw: dict) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e, t = _modules(torch, cls, 3, 4, **kw)
    assert repr(e) == repr(t)
    assert list(e.state_dict().keys()) == list(t.state_dict().keys())
    for (n1, p1), (n2, p2) in zip(e.named_parameters(), t.named_parameters(), strict=True):
        assert n1 == n2 and tuple(p1.shape) == tuple(p2.shape)
    # the other way round: ember's weights load into torch
    t.load_state_dict({k: torch.from_numpy(v.detach().numpy().copy()) for k, v in e.state_dict().items()})


def test_init_range() -> None:
    m = nn.LSTM(3, 16, num_layers=2)
    bound = 1 / 4
    for p in m.parameters():
        assert float(p.abs().max()) <= bound
    assert float(m.weight_hh_l1.std()) > 0.05
    m.flatten_parameters()
    assert len(m.all_weights) == 2 and len(m._flat_weights) == 8


def test_errors(torch: Any) -> None:
    with pytest.raises(ValueError, match="dropout should be a number"):
        nn.LSTM(3, 4, dropout=1.5)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        nn.GRU(3, 4, proj_size=2)
    with pytest.raises(ValueError, match="Unknown nonlinearity 'gelu'"):
        nn.RNN(3, 4, nonlinearity="gelu")
    with pytest.raises(TypeError, match="hidden_size should be of type int"):
        nn.GRU(3, 4.0)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.GRU(3, 4, dropout=0.2)
    m = nn.LSTM(3, 4)
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D tensor instead"):
        m(ember.zeros(1, 2, 3, 3))
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 5"):
        m(ember.zeros(2, 2, 5))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 4\), got \[1, 3, 4\]"):
        m(ember.zeros(2, 2, 3), (ember.zeros(1, 3, 4), ember.zeros(1, 2, 4)))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[1, 2, 5\]"):
        nn.GRU(3, 4)(ember.zeros(2, 2, 3), ember.zeros(1, 2, 5))
    with pytest.raises(RuntimeError, match="For batched 3-D input, hx should also be 3-D but got 2-D tensor"):
        nn.GRU(3, 4)(ember.zeros(2, 2, 3), ember.zeros(2, 4))
    with pytest.raises(ValueError, match="GRUCell: Expected input to be 1D or 2D, got 3D instead"):
        nn.GRUCell(3, 4)(ember.zeros(1, 2, 3))
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 5 expected 3"):
        nn.LSTMCell(3, 4)(ember.zeros(2, 5))


# -------------------------------------------------------------------- ember.nn.utils.rnn
def _seqs(torch: Any, lengths: list[int], feat: tuple = (2,)) -> tuple[list, list]:
    arrays = [RNG.standard_normal((n,) + feat) for n in lengths]
    pairs = [pair(torch, a, requires_grad=True) for a in arrays]
    return [p[0] for p in pairs], [p[1] for p in pairs]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence(torch: Any, batch_first: bool, padding_side: str) -> None:
    es, ts = _seqs(torch, [2, 4, 1])
    e = ernn.pad_sequence(es, batch_first=batch_first, padding_value=-1.5, padding_side=padding_side)
    t = torch.nn.utils.rnn.pad_sequence(ts, batch_first=batch_first, padding_value=-1.5, padding_side=padding_side)
    close(e, t)
    (e * e).sum().backward()
    (t * t).sum().backward()
    for a, b in zip(es, ts, strict=True):
        close(a.grad, b.grad)
    with pytest.raises(ValueError, match="Expected padding_side to be one of left or right, but got middle."):
        ernn.pad_sequence(es, padding_side="middle")


def test_pack_and_pad_roundtrip(torch: Any) -> None:
    es, ts = _seqs(torch, [3, 5, 1, 3], feat=(2, 2))
    ep = ernn.pack_sequence(es, enforce_sorted=False)
    tp = torch.nn.utils.rnn.pack_sequence(ts, enforce_sorted=False)
    assert isinstance(ep, tuple) and ep._fields == tp._fields
    close(ep.data, tp.data)
    for f in ("batch_sizes", "sorted_indices", "unsorted_indices"):
        assert getattr(ep, f).tolist() == getattr(tp, f).tolist(), f
    for bf in (False, True):
        ea, el = ernn.pad_packed_sequence(ep, batch_first=bf, padding_value=2.0, total_length=7)
        ta, tl = torch.nn.utils.rnn.pad_packed_sequence(tp, batch_first=bf, padding_value=2.0, total_length=7)
        close(ea, ta)
        assert el.tolist() == tl.tolist() and el.dtype == ember.int64
    for a, b in zip(ernn.unpack_sequence(ep), torch.nn.utils.rnn.unpack_sequence(tp), strict=True):
        close(a, b)
    ea, el = ernn.pad_packed_sequence(ep)
    for a, b in zip(ernn.unpad_sequence(ea, el), ts, strict=True):
        close(a, b)
    (ep.data * ep.data).sum().backward()
    (tp.data * tp.data).sum().backward()
    for a, b in zip(es, ts, strict=True):
        close(a.grad, b.grad)
    with pytest.raises(ValueError, match="Expected total_length to be at least the length of the longest"):
        ernn.pad_packed_sequence(ep, total_length=2)


def test_pack_padded_errors_and_to(torch: Any) -> None:
    x = ember.zeros(4, 3, 2)
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        ernn.pack_padded_sequence(x, [1, 3, 2])
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        ernn.pack_padded_sequence(x, [3, 2, 0])
    p = ernn.pack_padded_sequence(x, ember.tensor([4, 2, 1]), batch_first=False)
    assert p.batch_sizes.tolist() == [3, 2, 1, 1]
    assert p.sorted_indices is None and p.unsorted_indices is None
    q = p.to(ember.float64)
    assert q.data.dtype == ember.float64 and q.batch_sizes is p.batch_sizes
    assert p.to(ember.float32) is p
    assert p.double().data.dtype == ember.float64
