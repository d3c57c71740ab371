"""Key-value stores: the rendezvous substrate of :mod:`ember.distributed` (``torch.distributed`` stores)."""

from __future__ import annotations

from ._base import Store
from ._file import FileStore
from ._hash import HashStore
from ._prefix import PrefixStore
from ._tcp import TCPStore

__all__ = ["FileStore", "HashStore", "PrefixStore", "Store", "TCPStore"]
