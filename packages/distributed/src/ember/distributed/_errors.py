"""Temporary exception classes for the store/launcher branch (the process-group branch owns this file)."""

from __future__ import annotations


class DistError(RuntimeError):
    """Base of every ember.distributed error."""


class DistBackendError(DistError):
    """A collective failed in the backend."""


class DistNetworkError(DistError):
    """A socket could not connect, listen, send or receive."""


class DistStoreError(DistError):
    """A store operation failed or timed out."""
