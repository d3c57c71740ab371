"""The "nn-rnn" suite: recurrent layers, forward + backward, ember vs torch (issue 5).

Rows are times per call (ratio = ember/torch, lower is better); the target is parity (1.0).
Single-threaded: the recurrences are chains of small GEMMs, where thread counts mostly measure
the BLAS libraries' threading rather than ember's code.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from harness import Bench

TITLES = {
    "nn-rnn": "recurrent layers, forward + backward (ratio = ember/torch time, lower is better)",
}


def _layer(cls: str) -> Any:
    def setup(lib: ModuleType) -> dict[str, Any]:
        lib.manual_seed(0)
        m = getattr(lib.nn, cls)(64, 256)
        x = lib.randn(64, 32, 64).requires_grad_(True)  # (seq, batch, input)

        def run() -> None:
            out, _ = m(x)
            out.sum().backward()

        return {"run": run}

    return setup


def _lstm_cell(lib: ModuleType) -> dict[str, Any]:
    lib.manual_seed(0)
    cell = lib.nn.LSTMCell(64, 256)
    x = lib.randn(32, 64)
    h, c = lib.randn(32, 256), lib.randn(32, 256)

    def run() -> None:
        hy, cy = cell(x, (h, c))
        (hy.sum() + cy.sum()).backward()

    return {"run": run}


def _lstm_infer(lib: ModuleType) -> dict[str, Any]:
    lib.manual_seed(0)
    m = lib.nn.LSTM(64, 256)
    x = lib.randn(64, 32, 64)
    return {"m": m, "x": x, "lib": lib}


BENCHES: list[Bench] = [
    Bench("nn-rnn", f"{cls}(64, 256) seq 64 batch 32 fwd+bwd", "overhead", "run()", _layer(cls), threads=1,
          target=1.0)
    for cls in ("LSTM", "GRU")
] + [
    Bench("nn-rnn", "LSTMCell(64, 256) batch 32 step fwd+bwd", "overhead", "run()", _lstm_cell, threads=1,
          target=1.0),
    Bench("nn-rnn", "LSTM(64, 256) seq 64 batch 32 forward, no_grad", "overhead",
          "with lib.no_grad(): m(x)", _lstm_infer, threads=1, target=1.0),
]
