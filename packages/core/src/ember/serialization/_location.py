"""``map_location``: where each loaded storage ends up (PyTorch's rules, CPU build).

Storages are first read to the CPU; then the location tag saved with them
('cpu', 'cuda:1', ...) or ``map_location`` decides where they go.  This build
has no CUDA, so any CUDA target raises the no-CUDA error, which tells the user
to pass ``map_location=torch.device('cpu')``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember._lib import _C
from ember.serialization._storage import LoadedStorage, no_cuda_error

Restore = Callable[[LoadedStorage, str], LoadedStorage]


def _cuda_available() -> bool:
    if not _C._cuda_is_compiled():
        return False
    import ember.cuda

    return bool(ember.cuda.is_available())


def default_restore_location(storage: LoadedStorage, location: Any) -> LoadedStorage:
    """Move ``storage`` to the device named by the location tag ``location``."""
    location = str(location)
    if location == "cpu" or location.startswith("cpu:"):
        return storage
    if location == "cuda" or location.startswith("cuda:"):
        if not _cuda_available():
            raise no_cuda_error()
        return LoadedStorage(storage._bytes.to(location))
    if location == "meta":  # map_location="meta": the shapes without the values
        return LoadedStorage(storage._bytes.to("meta"))
    raise RuntimeError(
        "don't know how to restore data location of torch.storage.UntypedStorage (tagged with "
        f"{location})"
    )


def restorer(map_location: Any) -> Restore:
    """The ``(storage, location) -> storage`` function that ``map_location`` asks for."""
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        def remap(storage: LoadedStorage, location: str) -> LoadedStorage:
            return default_restore_location(storage, map_location.get(location, location))

        return remap
    if isinstance(map_location, (str, bytes, _C.device)):
        target = map_location.decode() if isinstance(map_location, bytes) else str(map_location)
        _C.device(target)  # a bad device string fails here, before any reading

        def to_target(storage: LoadedStorage, location: str) -> LoadedStorage:
            return default_restore_location(storage, target)

        return to_target

    def call(storage: LoadedStorage, location: str) -> LoadedStorage:
        result = map_location(storage, location)
        if result is None:
            return default_restore_location(storage, location)
        if not isinstance(result, LoadedStorage):
            raise TypeError(
                f"map_location callable must return the storage it was given (or a moved copy) or None, "
                f"got {type(result).__name__}"
            )
        return result

    return call
