"""``torch.utils.data._utils.worker``: the worker-information helpers under their PyTorch path."""

from __future__ import annotations

from ember.utils.data._worker import ExceptionWrapper, WorkerInfo, get_worker_info

__all__ = ["ExceptionWrapper", "WorkerInfo", "get_worker_info"]
