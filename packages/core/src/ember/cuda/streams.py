"""torch.cuda's streams and events over the CUDA backend (kernels/cuda/cuda_streams.cpp). Streams
come from a per-device pool and are non-blocking, as PyTorch's; every ember kernel, copy and
allocation goes on the calling thread's current stream. Without CUDA the classes raise
PyTorch's errors when made, and `stream(None)` / `set_stream(None)` do nothing."""

from __future__ import annotations

from typing import Any

from ember._lib import _C


def _cuda() -> Any:
    """The compiled core, or PyTorch's AssertionError for a build without CUDA."""
    if not _C._cuda_is_compiled():
        raise _C.CudaNotCompiledError("Torch not compiled with CUDA enabled")
    return _C


def _device_index(device: Any) -> int:
    """A device index >= 0 (None, "cuda" or -1: the current device)."""
    c = _cuda()
    if device is None:
        return int(c._cuda_current_device())
    if isinstance(device, int):
        return device if device >= 0 else int(c._cuda_current_device())
    d = _C.device(device)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return int(c._cuda_current_device()) if d.index is None else d.index


class Stream:
    """Stream(device=None, priority=0) -> a CUDA stream from the device's pool.

    A queue of work on one GPU: kernels on one stream run in order, streams run side by side
    and are ordered with events (``wait_event``, ``wait_stream``). Lower numbers are higher
    priorities; 0 is the default.
    """

    cuda_stream: int
    device_index: int
    priority: int

    def __new__(cls, device: Any = None, priority: int = 0, **kwargs: Any) -> Stream:
        if not _C._cuda_is_compiled():
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        index = _device_index(device)
        handle = kwargs.get("stream_ptr")
        if handle is None:
            handle = int(_C._cuda_stream_from_pool(index, int(priority)))
        return cls._wrap(int(handle), index, int(priority))

    @classmethod
    def _wrap(cls, handle: int, index: int, priority: int = 0) -> Stream:
        s = object.__new__(cls)
        s.cuda_stream, s.device_index, s.priority = handle, index, priority
        return s

    @property
    def device(self) -> Any:
        return _C.device("cuda", self.device_index)

    @property
    def device_type(self) -> int:
        return 1  # c10::DeviceType::CUDA

    def wait_event(self, event: Event) -> None:
        """Makes later work on this stream wait for the event's recorded work."""
        event.wait(self)

    def wait_stream(self, stream: Stream) -> None:
        """Makes later work on this stream wait for the work queued on `stream` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event: Event | None = None) -> Event:
        """Records `event` (a new one if None) after the work queued so far; returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def query(self) -> bool:
        """Whether all work queued on the stream has finished."""
        return bool(_C._cuda_stream_query(self.device_index, self.cuda_stream))

    def synchronize(self) -> None:
        """Waits for all work queued on the stream."""
        _C._cuda_stream_synchronize(self.device_index, self.cuda_stream)

    @property
    def _as_parameter_(self) -> Any:
        import ctypes

        return ctypes.c_void_p(self.cuda_stream)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Stream):
            return self.cuda_stream == other.cuda_stream and self.device_index == other.device_index
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.cuda_stream, self.device_index))

    def __repr__(self) -> str:
        return f"<torch.cuda.Stream device={self.device} cuda_stream={self.cuda_stream:#x}>"


class ExternalStream(Stream):
    """ExternalStream(stream_ptr, device=None): a stream made elsewhere (its cudaStream_t as an int)."""

    def __new__(cls, stream_ptr: int, device: Any = None, **kwargs: Any) -> ExternalStream:
        if not _C._cuda_is_compiled():
            raise RuntimeError("torch.cuda.ExternalStream requires CUDA support")
        return cls._wrap(int(stream_ptr), _device_index(device))


class Event:
    """Event(enable_timing=False, blocking=False, interprocess=False) -> a CUDA event.

    A marker in a stream's work: ``record`` places it, ``wait`` makes another stream wait for
    it, ``query`` / ``synchronize`` watch it from the host, ``elapsed_time`` times two of them
    (with ``enable_timing=True``). The device event is made at the first ``record``.
    """

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        if not _C._cuda_is_compiled():
            raise RuntimeError("Tried to instantiate dummy base class Event")
        self.enable_timing, self.blocking, self.interprocess = bool(enable_timing), bool(blocking), bool(interprocess)
        self._handle = 0
        self._device_index = -1

    @property
    def cuda_event(self) -> int:
        return self._handle

    @property
    def device(self) -> Any:
        return None if self._handle == 0 else _C.device("cuda", self._device_index)

    def record(self, stream: Stream | None = None) -> None:
        """Records the event on `stream` (the current stream if None)."""
        if stream is None:
            stream = current_stream()
        if self._handle == 0:
            self._device_index = stream.device_index
            self._handle = int(_C._cuda_event_create(self._device_index, self.enable_timing, self.blocking,
                                                     self.interprocess))
        elif stream.device_index != self._device_index:
            raise RuntimeError(f"Event device {_C.device('cuda', self._device_index)} does not match recording "
                               f"stream's device {stream.device}.")
        _C._cuda_event_record(self._device_index, self._handle, stream.cuda_stream)

    def wait(self, stream: Stream | None = None) -> None:
        """Makes later work on `stream` (the current one if None) wait for this event."""
        if self._handle == 0:
            return  # never recorded: nothing to wait for, as in PyTorch
        if stream is None:
            stream = current_stream()
        _C._cuda_stream_wait_event(stream.device_index, stream.cuda_stream, self._handle)

    def query(self) -> bool:
        """Whether the work before the event has finished (True when never recorded)."""
        return True if self._handle == 0 else bool(_C._cuda_event_query(self._handle))

    def synchronize(self) -> None:
        """Waits for the work before the event."""
        if self._handle:
            _C._cuda_event_synchronize(self._handle)

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds between this event and `end_event` (both recorded, both timing)."""
        if self._handle == 0 or end_event._handle == 0:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return float(_C._cuda_event_elapsed_ms(self._handle, end_event._handle))

    def __del__(self) -> None:
        if getattr(self, "_handle", 0):
            _C._cuda_event_destroy(self._device_index, self._handle)
            self._handle = 0

    def __repr__(self) -> str:
        return f"<torch.cuda.Event {self._handle:#x}>" if self._handle else "<torch.cuda.Event uninitialized>"


def current_stream(device: Any = None) -> Stream:
    """The calling thread's current stream on `device` (the current device if None)."""
    index = _device_index(device)
    return Stream._wrap(int(_C._cuda_current_stream(index)), index)


def default_stream(device: Any = None) -> Stream:
    """The device's default stream (handle 0), which the other streams do not wait for."""
    return Stream._wrap(0, _device_index(device))


def set_stream(stream: Stream | None) -> None:
    """Makes `stream` the current stream of its device for this thread (None: nothing)."""
    if stream is None:
        return
    _C._cuda_set_current_stream(stream.device_index, stream.cuda_stream)


class StreamContext:
    """The context of ``ember.cuda.stream(s)``: `s` is the current stream (and its device the
    current device) inside, the previous ones again after. None, or no CUDA: does nothing."""

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream
        self._prev: list[Stream] = []
        self._prev_device = -1

    def __enter__(self) -> Stream | None:
        s = self.stream
        if s is None or not _C._cuda_is_compiled() or _C._cuda_device_count() == 0:
            return s
        self._prev_device = int(_C._cuda_current_device())
        self._prev = [current_stream(self._prev_device)]
        if s.device_index != self._prev_device:
            self._prev.append(current_stream(s.device_index))
            _C._cuda_set_device(s.device_index)
        set_stream(s)
        return s

    def __exit__(self, *exc: Any) -> None:
        if not self._prev:
            return
        for p in self._prev:
            set_stream(p)
        _C._cuda_set_device(self._prev_device)
        self._prev = []


def stream(stream: Stream | None) -> StreamContext:
    """A context in which `stream` is the current stream (see StreamContext)."""
    return StreamContext(stream)
