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


BUILDERS = {name: cell_cases for name in GATES}
