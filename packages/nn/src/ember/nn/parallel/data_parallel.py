"""``DataParallel``: single-process multi-GPU replication in PyTorch; with CPU modules (all
ember has today) it is a pass-through wrapper, as PyTorch's is without GPUs."""

from __future__ import annotations

from typing import Any

from ember.nn.modules.module import Module


class DataParallel(Module):
    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None,
                 dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list[Any] = []
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)
