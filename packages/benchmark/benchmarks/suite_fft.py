"""The "fft" suite: ember.fft (issue 22 point 5) vs torch.fft. Ratios are torch time / ember time
(higher is better); the issue's target is >= 0.9 for rfft/irfft of 2^20 float32 and fft2 of a
1024 x 1024 complex64 matrix. Also the backward of rfft and a 1-d batch, the shapes stft uses."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
from harness import Bench

TITLES = {
    "fft": "rfft / irfft 2^20 float32, fft2 1024^2 complex64, batched and backward forms (ratio = torch/ember time)",
}

N = 1 << 20


def signals(lib: ModuleType) -> dict[str, Any]:
    """A 2^20 float32 signal, its half-spectrum, a 1024 x 1024 complex64 matrix, a batch of 256
    float32 frames of 1024 points (stft-like), and a grad-requiring copy of the signal."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(N).astype(np.float32)
    spec = np.fft.rfft(x).astype(np.complex64)
    z = (rng.standard_normal((1024, 1024)) + 1j * rng.standard_normal((1024, 1024))).astype(np.complex64)
    frames = rng.standard_normal((256, 1024)).astype(np.float32)
    xg = lib.from_numpy(x.copy()).requires_grad_()
    return {"x": lib.from_numpy(x), "spec": lib.from_numpy(spec), "z": lib.from_numpy(z),
            "frames": lib.from_numpy(frames), "xg": xg, "torch": lib}


BENCHES: list[Bench] = [
    row
    for th in (1, 2)
    for row in (
        Bench("fft", "rfft float32, 2^20", "throughput", "torch.fft.rfft(x)", signals, threads=th, target=0.9),
        Bench("fft", "irfft complex64 -> float32, 2^20", "throughput", "torch.fft.irfft(spec)", signals, threads=th,
              target=0.9),
        Bench("fft", "fft2 complex64, 1024x1024", "throughput", "torch.fft.fft2(z)", signals, threads=th,
              target=0.9),
        Bench("fft", "rfft float32, 256 frames of 1024", "throughput", "torch.fft.rfft(frames)", signals,
              threads=th),
        Bench("fft", "rfft float32 2^20, forward + backward", "throughput",
              "torch.fft.rfft(xg).abs().sum().backward()", signals, threads=th),
    )
]
