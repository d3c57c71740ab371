"""Parity inputs for the recurrent cells (ops/nn_rnn.yaml): rnn_tanh_cell, rnn_relu_cell,
lstm_cell, gru_cell, with and without biases, in float32 / float64, non-contiguous weights,
and PyTorch's shape errors."""

from __future__ import annotations

from typing import Any

import parity_inputs as H

T, Case = H.T, H.Case

GATES = {"rnn_tanh_cell": 1, "rnn_relu_cell": 1, "lstm_cell": 4, "gru_cell": 3}


def C(id: str, *args: Any, meta: bool = False, **kwargs: Any) -> Case:
    return Case(id, args, kwargs, method=False, inplace=False, out=False, meta=meta)


def _hidden(name: str, h: T, c: T | None = None) -> Any:
    # lstm_cell takes (h, c) as a list; the others one tensor
    return [h, c if c is not None else h] if name == "lstm_cell" else h


def cell_cases(op: dict) -> list:
    name = op["name"]
    g = GATES[name]
    cs = []
    for dt in ("float32", "float64"):
        B, In, Hd = 3, 5, 4
        cs.append(C(f"bias-{dt}", T((B, In), dt), _hidden(name, T((B, Hd), dt), T((B, Hd), dt, dom="small")),
                    T((g * Hd, In), dt, dom="small"), T((g * Hd, Hd), dt, dom="small"),
                    T((g * Hd,), dt), T((g * Hd,), dt)))
        cs.append(C(f"nobias-{dt}", T((B, In), dt), _hidden(name, T((B, Hd), dt)),
                    T((g * Hd, In), dt, dom="small"), T((g * Hd, Hd), dt, dom="small")))
    cs += [
        C("one-bias", T((2, 3), "float64"), _hidden(name, T((2, 2), "float64")), T((g * 2, 3), "float64"),
          T((g * 2, 2), "float64"), T((g * 2,), "float64")),
        C("noncontig", T((4, 3), "float64", view="t"), _hidden(name, T((3, 2), "float64", view="slice2")),
          T((g * 2, 3), "float64", view="t"), T((g * 2, 2), "float64", view="offset"), None,
          T((g * 2,), "float64")),
        C("batch1", T((1, 6), "float32"), _hidden(name, T((1, 3), "float32")), T((g * 3, 6), "float32"),
          T((g * 3, 3), "float32"), T((g * 3,), "float32"), T((g * 3,), "float32")),
        C("empty-batch", T((0, 3), "float32"), _hidden(name, T((0, 2), "float32")), T((g * 2, 3), "float32"),
          T((g * 2, 2), "float32")),
        # errors: input width, batch mismatch, hidden width, 1-D input
        C("bad-input-size", T((2, 4), "float32"), _hidden(name, T((2, 2), "float32")), T((g * 2, 3), "float32"),
          T((g * 2, 2), "float32"), meta=True),
        C("bad-batch", T((2, 3), "float32"), _hidden(name, T((3, 2), "float32")), T((g * 2, 3), "float32"),
          T((g * 2, 2), "float32"), meta=True),
        C("bad-hidden", T((2, 3), "float32"), _hidden(name, T((2, 3), "float32")), T((g * 2, 3), "float32"),
          T((g * 2, 2), "float32"), meta=True),
        C("1d-input", T((3,), "float32"), _hidden(name, T((2,), "float32")), T((g * 2, 3), "float32"),
          T((g * 2, 2), "float32"), meta=True),
        C("dtype-mismatch", T((2, 3), "float64"), _hidden(name, T((2, 2), "float32")), T((g * 2, 3), "float32"),
          T((g * 2, 2), "float32"), meta=True),
    ]
    if name == "lstm_cell":
        cs.append(C("one-state", T((2, 3), "float32"), [T((2, 2), "float32")], T((8, 3), "float32"),
                    T((8, 2), "float32"), meta=True))
    return cs


# ---- the whole-sequence layers (private to ember: compared with the same steps in torch ops)


def _steps(cell: Any, xg: Any, state: tuple, reverse: bool) -> tuple:
    """Runs cell(xg[t], state) -> state over the time steps (newest first when reverse); y stacks
    each step's h at its own time index."""
    torch = H.torch
    n = xg.shape[0]
    ys = [None] * n
    for s in range(n):
        t = n - 1 - s if reverse else s
        state = cell(xg[t], state)
        ys[t] = state[0]
    y = torch.stack(ys) if n else xg.new_zeros((0, *state[0].shape))
    return (y, *state)


def _lstm_sequence_ref(xg: Any, h0: Any, c0: Any, w_hh: Any, b_hh: Any = None, reverse: bool = False) -> tuple:
    def cell(x: Any, hc: tuple) -> tuple:
        g = x + hc[0] @ w_hh.t() + (b_hh if b_hh is not None else 0)
        i, f, c, o = g.chunk(4, 1)
        c = f.sigmoid() * hc[1] + i.sigmoid() * c.tanh()
        return o.sigmoid() * c.tanh(), c

    return _steps(cell, xg, (h0, c0), reverse)


def _gru_sequence_ref(xg: Any, h0: Any, w_hh: Any, b_hh: Any = None, reverse: bool = False) -> tuple:
    def cell(x: Any, hs: tuple) -> tuple:
        gh = hs[0] @ w_hh.t() + (b_hh if b_hh is not None else 0)
        xr, xz, xn = x.chunk(3, 1)
        hr, hz, hn = gh.chunk(3, 1)
        r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
        return ((1 - z) * (xn + r * hn).tanh() + z * hs[0],)

    return _steps(cell, xg, (h0,), reverse)


def _lstm_layer_ref(x: Any, w_ih: Any, b_ih: Any, h0: Any, c0: Any, w_hh: Any, b_hh: Any = None,
                    reverse: bool = False) -> tuple:
    xg = x @ w_ih.t() + (b_ih if b_ih is not None else 0)
    return _lstm_sequence_ref(xg, h0, c0, w_hh, b_hh, reverse)


# ember-only ops: test_parity calls these for torch's side.
TORCH_REFERENCES = {"_lstm_sequence": _lstm_sequence_ref, "_gru_sequence": _gru_sequence_ref,
                    "_lstm_layer": _lstm_layer_ref}


def sequence_cases(op: dict) -> list:
    name = op["name"]
    g = 3 if name == "_gru_sequence" else 4
    cs = []
    for dt in ("float32", "float64"):
        for rev in (False, True):
            Tn, B, In, Hd = 3, 2, 5, 4
            h = [T((B, Hd), dt, dom="small")] + ([T((B, Hd), dt, dom="small")] if g == 4 else [])
            w_hh, b_hh = T((g * Hd, Hd), dt, dom="small"), T((g * Hd,), dt, dom="small")
            if name == "_lstm_layer":
                head = [T((Tn, B, In), dt), T((g * Hd, In), dt, dom="small"), T((g * Hd,), dt, dom="small")]
            else:
                head = [T((Tn, B, g * Hd), dt)]
            tag = f"{dt}{'-reverse' if rev else ''}"
            cs.append(C(f"bias-{tag}", *head, *h, w_hh, b_hh, rev))
            cs.append(C(f"nobias-{tag}", *head, *h, w_hh, None, reverse=rev))
    if name == "_lstm_layer":  # no input bias either
        cs.append(C("no-biases", T((2, 3, 4), "float64"), T((8, 4), "float64", dom="small"), None,
                    T((3, 2), "float64"), T((3, 2), "float64"), T((8, 2), "float64", dom="small"), None))
    else:
        hs = [T((1, 2), "float64")] * (2 if g == 4 else 1)
        cs.append(C("one-step", T((1, 1, g * 2), "float64"), *hs, T((g * 2, 2), "float64", view="t"), None))
    return cs


BUILDERS = {name: cell_cases for name in GATES} | {name: sequence_cases for name in TORCH_REFERENCES}
