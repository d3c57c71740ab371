"""torch.distributed's exception classes (all RuntimeError subclasses, as in PyTorch)."""

from __future__ import annotations


class DistError(RuntimeError):
    """Base of the errors raised by ember.distributed."""


class DistBackendError(DistError):
    """A collective failed or timed out, or a peer of the group died."""


class DistNetworkError(DistError):
    """A connection (store, rendezvous) could not be made or broke."""


class DistStoreError(DistError):
    """A store operation failed or timed out."""


class QueueEmptyError(DistStoreError):
    """A store queue (``Store.queue_pop`` without blocking) had no item to give."""
