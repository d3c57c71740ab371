"""The "nn-conv" suite: convolutions and padding, forward + backward, ember vs torch
(issue 5 kernels, part A). ``torch.nn.functional`` in a statement is the library's own."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from harness import Bench

TITLES = {
    "nn-conv": "convolution forward + backward (ratio = torch/ember time, higher is better)",
    "nn-pad": "F.pad forward + backward (ratio = torch/ember time, higher is better)",
}


def conv2d_3x3(lib: ModuleType) -> dict[str, Any]:
    """ResNet-style block layer: 64 -> 64 channels, 3x3, 32x32 images, batch 32."""
    x = lib.randn(32, 64, 32, 32).requires_grad_(True)
    w = (lib.randn(64, 64, 3, 3) * 0.05).requires_grad_(True)
    b = lib.randn(64).requires_grad_(True)
    return {"x": x, "w": w, "b": b}


def conv1d_audio(lib: ModuleType) -> dict[str, Any]:
    """1-D: 32 -> 64 channels, kernel 5, length 2048, batch 16."""
    x = lib.randn(16, 32, 2048).requires_grad_(True)
    w = (lib.randn(64, 32, 5) * 0.05).requires_grad_(True)
    return {"x": x, "w": w}


def conv_transpose_up(lib: ModuleType) -> dict[str, Any]:
    """2x upsampling decoder layer: 64 -> 32 channels, 4x4 kernel, stride 2, 16x16 -> 32x32, batch 16."""
    x = lib.randn(16, 64, 16, 16).requires_grad_(True)
    w = (lib.randn(64, 32, 4, 4) * 0.05).requires_grad_(True)
    return {"x": x, "w": w}


def pad_input(lib: ModuleType) -> dict[str, Any]:
    return {"x": lib.randn(16, 32, 64, 64).requires_grad_(True), "F": lib.nn.functional}


BENCHES: list[Bench] = [
    Bench("nn-conv", "conv2d 3x3 64->64 32x32 b32 fwd+bwd", "throughput",
          "lib.conv2d(x, w, b, padding=1).sum().backward()", conv2d_3x3, threads=1, target=1.0),
    Bench("nn-conv", "conv2d 3x3 64->64 32x32 b32 fwd+bwd", "throughput",
          "lib.conv2d(x, w, b, padding=1).sum().backward()", conv2d_3x3, threads=2, target=None),
    Bench("nn-conv", "conv2d 3x3 64->64 32x32 b32 fwd", "throughput",
          "lib.conv2d(x.detach(), w.detach(), b.detach(), padding=1)", conv2d_3x3, threads=1, target=1.0),
    Bench("nn-conv", "conv1d k5 32->64 L2048 b16 fwd+bwd", "throughput",
          "lib.conv1d(x, w, padding=2).sum().backward()", conv1d_audio, threads=1, target=0.8),
    Bench("nn-conv", "conv_transpose2d 4x4 s2 64->32 16->32 b16 fwd+bwd", "throughput",
          "lib.conv_transpose2d(x, w, stride=2, padding=1).sum().backward()", conv_transpose_up, threads=1,
          target=0.8),
] + [
    Bench("nn-pad", f"pad {mode} (2,2,2,2) 16x32x64x64 fwd+bwd", "throughput",
          f"F.pad(x, (2, 2, 2, 2), mode={mode!r}).sum().backward()", pad_input, threads=1, target=None)
    for mode in ("constant", "reflect", "replicate", "circular")
] + [
    Bench("nn-pad", f"pad {mode} (2,2,2,2) 16x32x64x64 fwd", "throughput",
          f"F.pad(x.detach(), (2, 2, 2, 2), mode={mode!r})", pad_input, threads=1, target=None)
    for mode in ("reflect", "replicate")
]
