"""``ember.backends.quantized``: ember has no quantized kernels; the engine names PyTorch's default."""

from __future__ import annotations

engine = "x86"
supported_engines: list[str] = []
