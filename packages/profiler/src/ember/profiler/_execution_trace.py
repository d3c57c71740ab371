"""ExecutionTraceObserver: a Chakra execution trace (JSON graph of ops with their tensors).

Recording uses the core profiler hook, of which only one session runs at a time. An observer
that starts while nothing is profiling opens its own session; when a ``profile`` (or the legacy
autograd profiler) starts meanwhile, the observer hands its session over (``yield_session``)
and reads the profiler's records when that one stops (``deliver``), keeping only the records
inside its own start/stop windows. A ``TorchFunctionMode`` on the starting thread sees each
Python-level call's tensors and results, which gives outputs and tensor identities to the ops
those calls reached directly.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from typing import Any
from warnings import warn

from ember._lib import _C

from ._et_nodes import CTYPE, CallRecord, IdState, TensorInfo, convert, process_node

__all__ = ["ExecutionTraceObserver"]

SCHEMA = "1.1.1-chakra.0.0.4"

# Observers between start() and stop(), and those still owed the records of a profiler session.
_running: list[ExecutionTraceObserver] = []
_waiting: list[ExecutionTraceObserver] = []
_owner: ExecutionTraceObserver | None = None  # whose own core session is running now


def wants_inputs() -> bool:
    """Whether a profiler starting now must record shapes and arguments for an observer."""
    return bool(_running)


def _hand_out(raw: list[tuple[Any, ...]], extra: ExecutionTraceObserver | None = None) -> None:
    takers = list(_waiting)
    if extra is not None and extra not in takers:
        takers.append(extra)
    _waiting.clear()
    for obs in takers:
        obs._ingest(raw)


def _resume() -> None:
    """With no session running, the first running observer records on its own again; the
    others read its records."""
    if _running and not _C._profiler_active():
        _running[0]._own_session()
        _waiting.extend(o for o in _running[1:] if o not in _waiting)


def yield_session() -> None:
    """Called before a profiler starts its core session: an observer recording on its own stops
    its session (keeping what it recorded), and every running observer reads the profiler's
    records instead."""
    global _owner
    if _owner is not None:
        obs, _owner = _owner, None
        _hand_out(_C._profiler_stop(), obs)
    _waiting.extend(o for o in _running if o not in _waiting)


def deliver(raw: list[tuple[Any, ...]]) -> None:
    """Called with a profiler's records when it stops: observers take what fell in their
    windows, and those still running go back to recording on their own."""
    _hand_out(raw)
    _resume()


def _tensor_info(t: Any) -> TensorInfo | None:
    try:
        dtype = str(t.dtype).rsplit(".", 1)[-1]
        return TensorInfo(
            id(t), int(t.untyped_storage().data_ptr()), int(t.storage_offset()), int(t.numel()),
            int(t.element_size()), str(t.device), list(t.shape), CTYPE.get(dtype, dtype), list(t.stride()),
        )
    except Exception:  # a tensor-like without storage (meta, sparse...): leave it unidentified
        return None


def _flatten(value: Any, out: list[Any]) -> None:
    import ember

    if isinstance(value, ember.Tensor):
        info = _tensor_info(value)
        if info is not None:
            out.append(info)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _flatten(v, out)
    elif value is None or isinstance(value, (bool, int, float, str)):
        out.append(value)


def _make_mode(calls: list[CallRecord]) -> Any:
    from ember.overrides import TorchFunctionMode

    class _CallRecorder(TorchFunctionMode):
        """Records each Python-level call's tensors and results (core clock) for the trace."""

        def __torch_function__(self, func: Callable[..., Any], types: Any, args: Any = (),
                               kwargs: dict[str, Any] | None = None) -> Any:
            kwargs = kwargs or {}
            start = _C._profiler_now_ns()
            result = func(*args, **kwargs)
            end = _C._profiler_now_ns()
            import ember

            inputs = [i for a in (*args, *kwargs.values()) if isinstance(a, ember.Tensor)
                      for i in [_tensor_info(a)] if i is not None]
            outputs: list[Any] = []
            _flatten(result, outputs)
            calls.append(CallRecord(start, end, inputs, outputs))
            return result

    return _CallRecorder()


class ExecutionTraceObserver:
    """Writes a Chakra execution trace: every op recorded between ``start()`` and ``stop()``, as a
    graph node with its inputs and outputs (values, shapes, types, strides) and its parent.

    ``register_callback(path)`` opens the output file; ``unregister_callback()`` (also
    ``cleanup()``, and the object's finalizer) writes the finished JSON there, gzip-compressed
    when the path ends in ``gz``. Pass one to ``profile(execution_trace_observer=...)`` to trace
    the profiler's recording windows. ember knows the outputs (and tensor identities) of ops a
    Python call reached directly; ops nested inside others list their inputs only.
    """

    def __init__(self) -> None:
        self._registered = False
        self._execution_trace_running = False
        self.extra_resources_collection = False
        self.resources_dir: str = ""
        self.output_file_path: str = ""
        self.output_file_path_observer: str = ""
        self._ids = IdState()
        self._nodes: list[dict[str, Any]] = []
        self._windows: list[list[int | None]] = []
        self._calls: list[CallRecord] = []
        self._mode: Any = None
        self._header: dict[str, Any] = {}

    def __del__(self) -> None:
        """Finalizes the output file (``unregister_callback()``)."""
        try:
            self.unregister_callback()
        except Exception:  # interpreter shutdown: modules may already be gone
            pass

    @staticmethod
    def build_execution_trace_obs_from_env() -> ExecutionTraceObserver | None:
        """A registered observer writing to a new temporary ``*.et.json`` file when the environment
        variable ``ENABLE_PYTORCH_EXECUTION_TRACE`` is ``1``; otherwise None."""
        if os.environ.get("ENABLE_PYTORCH_EXECUTION_TRACE", "0") != "1":
            return None
        try:
            with tempfile.NamedTemporaryFile("w+t", suffix=".et.json", delete=False) as fp:
                filename = fp.name
        except Exception as e:
            warn(f"Execution trace will not be recorded. Exception on creating default temporary file: {e}",
                 stacklevel=2)
            return None
        et = ExecutionTraceObserver()
        et.register_callback(filename)
        et.set_extra_resource_collection(os.environ.get("ENABLE_PYTORCH_EXECUTION_TRACE_EXTRAS", "0") == "1")
        return et

    def set_extra_resource_collection(self, val: bool) -> None:
        """Whether to also collect extra resources (a ``<trace>_resources`` directory); ember
        generates no kernels, so the directory stays empty."""
        self.extra_resources_collection = val
        if val:
            self.get_resources_dir(can_create=True)

    def register_callback(self, output_file_path: str) -> ExecutionTraceObserver:
        """Attach the observer, writing to ``output_file_path`` (created, empty, now). A second
        call while registered changes nothing. Returns the observer."""
        if not self._registered:
            self.output_file_path = output_file_path
            if output_file_path.endswith(".gz"):
                with tempfile.NamedTemporaryFile("w+b", suffix=".json", delete=False) as fp:
                    output_file_path = fp.name
            self.output_file_path_observer = output_file_path
            try:
                open(output_file_path, "w").close()
            except OSError as e:
                warn(f"Failed to open '{output_file_path}': {e}", stacklevel=2)
                return self
            self._header = {"schema": SCHEMA, "pid": os.getpid(), "time": time.strftime("%Y-%m-%d %H:%M:%S"),
                            "start_ts": time.monotonic_ns() // 1_000_000}
            self._ids = IdState()
            self._nodes = []
            self._registered = True
        return self

    def get_resources_dir(self, can_create: bool = False) -> str | None:
        """The ``<trace name>_resources`` directory next to the trace, when extra resource
        collection is on (created if ``can_create``); None otherwise."""
        if not self.extra_resources_collection:
            return None
        if self.resources_dir:
            return self.resources_dir
        path = ExecutionTraceObserver.get_resources_dir_for_et_path(self.output_file_path, create_dir=can_create)
        if not path:
            return None
        self.resources_dir = path
        return path

    @staticmethod
    def get_resources_dir_for_et_path(trace_path: str, create_dir: bool = False) -> str | None:
        """``<dir>/<trace file stem>_resources`` for ``trace_path`` if it exists (or is created
        with ``create_dir``), else None."""
        work_dir, file_name = os.path.split(trace_path)
        resource_dir = os.path.join(work_dir, os.path.splitext(file_name)[0] + "_resources")
        if not os.path.exists(resource_dir):
            if not create_dir:
                return None
            try:
                os.mkdir(resource_dir)
            except Exception:
                warn(f"Execution trace exception when creating {resource_dir}", stacklevel=2)
                return None
        return resource_dir

    def unregister_callback(self) -> None:
        """Stop (if running) and write the finished trace; does nothing when not registered."""
        if not self._registered:
            return
        self.stop()
        if self in _waiting:  # its windows lie in a profiler session still running: cut it short
            self._ingest([])
            _waiting.remove(self)
        self._write(self.output_file_path_observer)
        if self.output_file_path.endswith("gz"):
            print(f"Execution Trace: compressing {self.output_file_path_observer} to {self.output_file_path}")
            with open(self.output_file_path_observer, "rb") as fin, gzip.open(self.output_file_path, "wb") as fout:
                shutil.copyfileobj(fin, fout)
            os.remove(self.output_file_path_observer)
        self._registered = False

    @property
    def is_registered(self) -> bool:
        """True between ``register_callback`` and ``unregister_callback``."""
        return self._registered

    def is_running(self) -> bool:
        """True between ``start()`` and ``stop()``."""
        return self._execution_trace_running

    def start(self) -> None:
        """Start capturing (only while registered; a second start does nothing)."""
        if not self._registered or self._execution_trace_running:
            return
        self._execution_trace_running = True
        self._windows.append([_C._profiler_now_ns(), None])
        _running.append(self)
        try:
            self._mode = _make_mode(self._calls)
            self._mode.__enter__()
        except ImportError:  # no function modes: ops keep their inputs only
            self._mode = None
        if _C._profiler_active():
            _waiting.append(self)  # a profiler records already: read its records when it stops
        else:
            self._own_session()

    def stop(self) -> None:
        """Stop capturing; what was recorded goes into the trace."""
        global _owner
        if not self._execution_trace_running:
            return
        self._execution_trace_running = False
        if self._mode is not None:
            try:
                self._mode.__exit__(None, None, None)
            except RuntimeError:  # stopped from another thread than the one that started
                pass
            self._mode = None
        self._windows[-1][1] = _C._profiler_now_ns()
        _running.remove(self)
        if _owner is self:
            _owner = None
            _hand_out(_C._profiler_stop(), self)
            _resume()

    def cleanup(self) -> None:
        """Finalize the output (``unregister_callback()``)."""
        self.unregister_callback()

    def get_output_file_path(self) -> str | None:
        """The path given to ``register_callback`` (None before any)."""
        return self.output_file_path or None

    # ------------------------------------------------------------------ internals

    def _own_session(self) -> None:
        global _owner
        _owner = self
        # Shapes and concrete arguments give each node its inputs.
        _C._profiler_start(True, False, False, True)

    def _ingest(self, raw: list[tuple[Any, ...]]) -> None:
        windows = [(w[0], w[1]) for w in self._windows]
        # An open window stays: the records still to come belong to it too.
        self._windows = [w for w in self._windows if w[1] is None]
        calls, self._calls[:] = list(self._calls), []
        records = [
            r for r in raw
            if r[1] != "memory" and any(w0 <= r[2] and (w1 is None or r[3] <= w1) for w0, w1 in windows)
        ]
        convert(records, calls, self._ids, self._nodes)

    def _write(self, path: str) -> None:
        doc = dict(self._header)
        doc["nodes"] = [*self._nodes, process_node()]
        doc["finish_ts"] = time.monotonic_ns() // 1_000_000
        with open(path, "w") as f:
            json.dump(doc, f, indent=2)

