"""``ember.Stream`` and ``ember.Event``: PyTorch's device-generic stream and event objects.

ember runs every op synchronously on the CPU, so the CPU stream is always idle (``query`` is
True, ``synchronize`` returns at once) and, as in PyTorch, the CPU backend records no events. A
CUDA stream or event needs the CUDA backend, which this build does not have.
"""

from __future__ import annotations

from typing import Any

import ember

__all__ = ["Event", "Stream"]

_NO_EVENTS = "cpu backend doesn't support events."
_DEVICE_TYPES = {"cpu": 0, "cuda": 1, "meta": 9}


def _device(device: Any) -> ember.device:
    if device is None:
        return ember.device("cpu")  # no accelerator: PyTorch's current accelerator falls back to the CPU
    if isinstance(device, int) and not isinstance(device, bool):
        raise RuntimeError("Cannot access accelerator device when none is available.")
    d = ember.device(device)
    if d.type == "cuda":
        raise RuntimeError("PyTorch is not linked with support for cuda devices")
    return d


class Stream:
    """Stream(device=None, *, priority=0) -> Stream

    An in-order queue of work on a device. ember executes every op synchronously on the CPU,
    so a CPU stream is always complete; it works as a context manager like PyTorch's.

    Args:
        device (ember.device, optional): the stream's device; default: the CPU (no accelerator).
        priority (int, optional): 0 or negative (higher priority); ignored on the CPU.

    Example::

        >>> s = ember.Stream("cpu")
        >>> s.query()
        True
    """

    def __init__(self, device: Any = None, *, priority: int = 0, stream_id: int = 0, device_index: int = -1,
                 device_type: int | None = None) -> None:
        self.device = _device(device) if device_type is None else ember.device(
            {v: k for k, v in _DEVICE_TYPES.items()}.get(device_type, "cpu"))
        self.stream_id = stream_id
        # a CPU stream has no device index (only the CPU can be made here: _device refuses CUDA)
        self.device_index = device_index if device_type is not None else -1
        self.device_type = _DEVICE_TYPES.get(self.device.type, 0)

    def query(self) -> bool:
        """Whether all work submitted to the stream has completed (always, on the CPU)."""
        return True

    def synchronize(self) -> None:
        """Waits for the stream's work (none is ever pending on the CPU)."""

    def is_capturing(self) -> bool:
        """Whether a graph capture is under way on the stream (never, on the CPU)."""
        return False

    @property
    def native_handle(self) -> int:
        """The backend's own stream handle (the CPU backend has none)."""
        raise RuntimeError("Backend doesn't support getting stream native handle.")

    def record_event(self, event: Event | None = None) -> Event:
        """Records an event on the stream (the CPU backend records no events)."""
        raise RuntimeError(_NO_EVENTS)

    def wait_event(self, event: Event) -> None:
        """Makes later work on the stream wait for ``event`` (nothing to wait for on the CPU)."""

    def wait_stream(self, stream: Stream) -> None:
        """Makes later work on the stream wait for ``stream``'s work (the CPU backend has no events)."""
        raise RuntimeError(_NO_EVENTS)

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and (self.device, self.stream_id) == (other.device, other.stream_id)

    def __hash__(self) -> int:
        return hash((str(self.device), self.stream_id))

    def __repr__(self) -> str:
        return (f"ember.Stream device_type={self.device.type}, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")


class Event:
    """Event(device=None, *, enable_timing=False, blocking=False, interprocess=False) -> Event

    A marker in a stream, to synchronize on or to time work between two of them. The CPU
    backend records no events (``record`` raises, as in PyTorch); an unrecorded event is
    complete.

    Args:
        device (ember.device, optional): the event's device; default: the CPU (no accelerator).
        enable_timing (bool): whether the event measures time.
        blocking (bool): whether ``wait`` blocks.
        interprocess (bool): whether the event can be shared between processes.

    Example::

        >>> ember.Event("cpu").query()
        True
    """

    def __init__(self, device: Any = None, *, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False) -> None:
        self.device = _device(device)
        self._flag = 1 if enable_timing else 0
        self.event_id = 0

    def record(self, stream: Stream | None = None) -> None:
        """Records the event on ``stream`` (the CPU backend records no events)."""
        raise RuntimeError(_NO_EVENTS)

    def query(self) -> bool:
        """Whether the work before the event has completed (always, on the CPU)."""
        return True

    def synchronize(self) -> None:
        """Waits until the event completes (at once on the CPU)."""

    def wait(self, stream: Stream | None = None) -> None:
        """Makes ``stream`` wait for the event (nothing to wait for on the CPU)."""

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds between this event and ``end_event``, both made with ``enable_timing=True``."""
        if not (self._flag and end_event._flag):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        raise RuntimeError(_NO_EVENTS)

    def ipc_handle(self) -> bytes:
        """A handle to share the event with another process (not supported)."""
        raise NotImplementedError("ember.Event ipc is not supported yet")

    @classmethod
    def from_ipc_handle(cls, device: Any, ipc_handle: bytes) -> Event:
        """The event behind another process's ``ipc_handle`` (not supported)."""
        raise NotImplementedError("ember.Event ipc is not supported yet")

    def __repr__(self) -> str:
        index = -1 if self.device.index is None else self.device.index
        return (f"ember.Event device_type={self.device.type}, device_index={index}, event_flag={self._flag}, "
                f"event_id={self.event_id}")
