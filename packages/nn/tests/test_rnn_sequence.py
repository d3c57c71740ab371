"""The whole-sequence path of LSTM / GRU layers (ember._lib._C._lstm_layer / _lstm_sequence /
_gru_sequence, one autograd node per direction and layer) against torch.nn: outputs, final states and the
gradients of every input, initial state and parameter, including reverse directions,
outputs that get no gradient, double backward, and the op's argument checks."""

from __future__ import annotations

from typing import Any

import ember
import ember.nn as nn
import numpy as np
import pytest
from _nn_testutil import close, copy_params, pair

RNG = np.random.default_rng(11)


def _build(torch: Any, cls: str, dtype: str, **kw: Any) -> tuple[Any, Any]:
    t = getattr(torch.nn, cls)(3, 5, **kw)
    t = t.double() if dtype == "float64" else t
    e = getattr(nn, cls)(3, 5, **kw, dtype=getattr(ember, dtype))
    copy_params(t, e)
    return e, t


def _node_names(t: Any) -> set[str]:
    seen, todo, names = set(), [t.grad_fn], set()
    while todo:
        fn = todo.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        names.add(type(fn).__name__)
        todo.extend(f for f, _ in fn.next_functions)
    return names


@pytest.mark.parametrize("cls", ["LSTM", "GRU"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", [{}, {"num_layers": 2, "bidirectional": True},
                                {"batch_first": True, "bias": False}, {"num_layers": 3, "bidirectional": True,
                                                                        "batch_first": True}])
@pytest.mark.parametrize("use", ["all", "states"])
def test_sequence_path_matches_torch(torch: Any, cls: str, dtype: str, kw: dict, use: str) -> None:
    e, t = _build(torch, cls, dtype, **kw)
    lstm, D, L = cls == "LSTM", 2 if kw.get("bidirectional") else 1, kw.get("num_layers", 1)
    shape = (4, 6, 3) if kw.get("batch_first") else (6, 4, 3)
    ex, tx = pair(torch, RNG.standard_normal(shape), requires_grad=True, dtype=dtype)
    eh, th = pair(torch, RNG.standard_normal((L * D, 4, 5)), requires_grad=True, dtype=dtype)
    ec, tc = pair(torch, RNG.standard_normal((L * D, 4, 5)), requires_grad=True, dtype=dtype)
    w = RNG.standard_normal((L * D, 4, 5))
    res = []
    for lib, m, x, h, c in ((ember, e, ex, eh, ec), (torch, t, tx, th, tc)):
        out, hid = m(x, (h, c) if lstm else h)
        hn, cn = hid if lstm else (hid, None)
        ww = lib.tensor(w, dtype=getattr(lib, dtype))
        loss = (hn * ww).sum() + (0 if cn is None else (cn * cn * ww).sum())
        if use == "all":  # every output element gets a different gradient
            loss = loss + (out * out).sum() + out.sum()
        loss.backward()
        res.append([out, hn] + ([cn] if lstm else []) + [x.grad, h.grad] + ([c.grad] if lstm else []))
        if lib is ember:
            node = "LstmLayerBackward0" if lstm else "RnnSequenceBackward0"
            assert node in _node_names(out), _node_names(out)
    tol = 1e-5 if dtype == "float32" else 1e-11
    for a, b in zip(res[0], res[1], strict=True):
        close(a, b, atol=tol, rtol=1e-4)
    eg = dict(e.named_parameters())
    for name, p in t.named_parameters():
        close(eg[name].grad, p.grad, atol=tol * 10, rtol=1e-4)


@pytest.mark.parametrize("cls", ["LSTM", "GRU"])
@pytest.mark.parametrize("batch, hidden, kw", [(13, 37, {}), (29, 64, {"bidirectional": True}),
                                               (30, 19, {"bias": False})])
def test_sequence_wide_float32(torch: Any, cls: str, batch: int, hidden: int, kw: dict) -> None:
    # float32 on AVX-512 takes the packed hidden-weight GEMM: batches past one row tile (12 rows)
    # and gate widths off the panel width (32 columns) exercise its ragged tiles
    t = getattr(torch.nn, cls)(7, hidden, **kw)
    e = getattr(nn, cls)(7, hidden, **kw)
    copy_params(t, e)
    ex, tx = pair(torch, RNG.standard_normal((9, batch, 7)), requires_grad=True, dtype="float32")
    w = RNG.standard_normal((9, batch, hidden * (2 if kw.get("bidirectional") else 1)))
    res = []
    for lib, m, x in ((ember, e, ex), (torch, t, tx)):
        out, _ = m(x)
        (out * lib.tensor(w, dtype=lib.float32)).sum().backward()
        res.append((out, x.grad))
    for a, b in zip(res[0], res[1], strict=True):
        close(a, b, atol=1e-5, rtol=1e-4)
    eg = dict(e.named_parameters())
    for name, p in t.named_parameters():
        close(eg[name].grad, p.grad, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("cls", ["LSTM", "GRU"])
def test_sequence_double_backward(torch: Any, cls: str) -> None:
    # create_graph: the node replays its steps with the differentiable cell ops
    e, t = _build(torch, cls, "float64", bidirectional=True)
    ex, tx = pair(torch, RNG.standard_normal((4, 2, 3)), requires_grad=True, dtype="float64")
    res = []
    for lib, m, x in ((ember, e, ex), (torch, t, tx)):
        out, hid = m(x)
        hn = hid[0] if cls == "LSTM" else hid
        gx, gw = lib.autograd.grad((out * out).sum() + (hn * hn).sum(), (x, m.weight_hh_l0), create_graph=True)
        ((gx * gx).sum() + (gw * gw).sum()).backward()
        res.append((gx, gw, x.grad, m.weight_hh_l0_reverse.grad, m.bias_hh_l0.grad))
    for a, b in zip(res[0], res[1], strict=True):
        close(a, b, atol=1e-10, rtol=1e-7)


def test_sequence_no_grad_and_grad_fn() -> None:
    xg, h0, c0 = ember.randn(3, 2, 8), ember.randn(2, 2), ember.randn(2, 2)
    w = ember.randn(8, 2).requires_grad_()
    y, hn, cn = ember._lib._C._lstm_sequence(xg, h0, c0, w, None, True)
    assert y.shape == (3, 2, 2) and hn.shape == (2, 2) and cn.shape == (2, 2)
    assert type(y.grad_fn).__name__ == "RnnSequenceBackward0"
    close(hn, y[0])  # reverse: the last step processed is t = 0
    with ember.no_grad():
        y2, _, _ = ember._lib._C._lstm_sequence(xg, h0, c0, w, None, True)
    assert y2.grad_fn is None
    close(y2, y)


@pytest.mark.parametrize("need", ["all", "x", "w_ih", "w_hh", "biases", "states"])
def test_lstm_layer_partial_grads(torch: Any, need: str) -> None:
    # the node makes only what is asked: dW_ih and dW_hh from one GEMM when both are wanted,
    # separately otherwise; the two bias gradients are separate tensors
    T, B, n_in, H = 5, 3, 4, 6
    tx = torch.tensor(RNG.standard_normal((T, B, n_in)))
    shapes = ((4 * H, n_in), (4 * H,), (B, H), (B, H), (4 * H, H), (4 * H,))
    tw = [torch.tensor(RNG.standard_normal(s)) for s in shapes]
    names = ["x", "w_ih", "b_ih", "h0", "c0", "w_hh", "b_hh"]
    want = {"all": names, "x": ["x"], "w_ih": ["w_ih"], "w_hh": ["w_hh"], "biases": ["b_ih", "b_hh"],
            "states": ["h0", "c0"]}[need]
    ts = [tx] + tw
    es = [ember.tensor(t.tolist(), dtype=ember.float64) for t in ts]
    for t, e, n in zip(ts, es, names, strict=True):
        t.requires_grad_(n in want)
        e.requires_grad_(n in want)
    ey, eh, ec = ember._lib._C._lstm_layer(es[0], es[1], es[2], es[3], es[4], es[5], es[6], False)
    assert type(ey.grad_fn).__name__ == "LstmLayerBackward0"
    ty, th, tc = torch._VF.lstm(tx, (ts[3][None], ts[4][None]), [ts[1], ts[5], ts[2], ts[6]], True, 1, 0.0, False,
                             False, False)
    g = RNG.standard_normal((T, B, H))
    ((ey * ember.tensor(g)).sum() + (ec * ec).sum()).backward()
    ((ty * torch.tensor(g)).sum() + (tc[0] * tc[0]).sum()).backward()
    close(ey, ty, atol=1e-12, rtol=1e-10)
    for t, e, n in zip(ts, es, names, strict=True):
        if n in want:
            close(e.grad, t.grad, atol=1e-11, rtol=1e-9)
        else:
            assert e.grad is None
    if need in ("all", "biases"):
        es[2].grad.add_(1.0)  # separate buffers: b_hh's gradient does not move with b_ih's
        close(es[6].grad + 1.0, es[2].grad)


def test_lstm_layer_errors() -> None:
    x, w, h0 = ember.randn(3, 2, 4), ember.randn(8, 4), ember.randn(2, 2)
    with pytest.raises(RuntimeError, match="shapes do not match"):
        ember._lib._C._lstm_layer(x, ember.randn(8, 5), None, h0, h0, ember.randn(8, 2), None)
    with pytest.raises(RuntimeError, match="b_ih"):
        ember._lib._C._lstm_layer(x, w, ember.randn(7), h0, h0, ember.randn(8, 2), None)
    with pytest.raises(RuntimeError, match="float32 or float64"):
        ember._lib._C._lstm_layer(x.double(), w, None, h0, h0, ember.randn(8, 2), None)
    with pytest.raises(RuntimeError, match="expected x"):
        ember._lib._C._lstm_layer(ember.randn(6, 4), w, None, h0, h0, ember.randn(8, 2), None)


def test_sequence_argument_errors() -> None:
    xg, h0, w = ember.randn(3, 2, 6), ember.randn(2, 2), ember.randn(6, 2)
    with pytest.raises(RuntimeError, match="shapes do not match"):
        ember._lib._C._gru_sequence(ember.randn(3, 2, 5), h0, w, None)
    with pytest.raises(RuntimeError, match="b_hh"):
        ember._lib._C._gru_sequence(xg, h0, w, ember.randn(5))
    with pytest.raises(RuntimeError, match="float32 or float64"):
        ember._lib._C._gru_sequence(xg.double(), h0, w, None)
    with pytest.raises(TypeError, match="must be Tensor"):
        ember._lib._C._gru_sequence(xg, 1, w, None)


_CAP_SCRIPT = """
import json, ember
ember.manual_seed(3)
m = ember.nn.LSTM(7, 37, bidirectional=True)
x = ember.randn(9, 29, 7, requires_grad=True)
out, (h, c) = m(x)
(out * out).sum().backward()
print(json.dumps([out.sum().item(), c.sum().item(), x.grad.sum().item(), m.weight_hh_l0.grad.sum().item()]))
"""


@pytest.mark.parametrize("cap", ["default", "avx2"])
def test_narrower_cpu_capability_agrees(cap: str) -> None:
    # EMBER_CPU_CAPABILITY caps the vector kernels (packed GEMM tiles, gate passes): the
    # narrower ones, unused on a wide CI machine otherwise, must give the same numbers
    import json
    import os
    import subprocess
    import sys

    def run(env_cap: str | None) -> list[float]:
        env = {k: v for k, v in os.environ.items() if k != "EMBER_CPU_CAPABILITY"}
        if env_cap:
            env["EMBER_CPU_CAPABILITY"] = env_cap
        out = subprocess.run([sys.executable, "-c", _CAP_SCRIPT], env=env, check=True, capture_output=True,
                             text=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    np.testing.assert_allclose(run(cap), run(None), rtol=1e-4, atol=1e-3)
