"""ember.Stream / ember.Event (CPU: always complete, no events recorded), ember.futures.Future, and
the flag functions is_neg / resolve_neg / is_distributed / get_device_module / to_dlpack /
set_autocast_gpu_dtype, side by side with PyTorch 2.13."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")


def _run(lib: Any, call: Callable[[Any], Any]) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = call(lib)
        except Exception as e:  # noqa: BLE001 - the type and message are compared
            first = str(e).splitlines()[0].split(". ")[0].rstrip(".")
            return f"{type(e).__name__}: {first}"
    return repr(r).replace("torch", "X").replace("ember", "X")


CASES: dict[str, Callable[[Any], Any]] = {
    "device-module-default": lambda L: L.get_device_module().__name__,
    "device-module-cpu": lambda L: L.get_device_module("cpu").__name__,
    "device-module-device": lambda L: L.get_device_module(L.device("cpu")).__name__,
    "device-module-cuda": lambda L: L.get_device_module("cuda:1").__name__,
    "device-module-int": lambda L: L.get_device_module(3),
    "is-neg": lambda L: (L.is_neg(L.ones(2)), L.ones(2).is_neg()),
    "resolve-neg-list": lambda L: L.resolve_neg([1]),
    "resolve-neg-self": lambda L: (lambda x: (x.resolve_neg() is x, L.resolve_neg(x) is x))(L.ones(2)),
    "is-distributed": lambda L: (L.is_distributed(L.ones(1)), L.ones(1).is_distributed()),
    "is-neg-none": lambda L: L.is_neg(None),
    "stream-default": lambda L: L.Stream(),
    "stream-cpu": lambda L: L.Stream("cpu"),
    "stream-cpu-index": lambda L: L.Stream("cpu:1"),
    "stream-int": lambda L: L.Stream(0),
    "stream-cuda": lambda L: L.Stream("cuda"),
    "stream-query": lambda L: (L.Stream("cpu").query(), L.Stream("cpu").synchronize(), L.Stream().is_capturing()),
    "stream-record-event": lambda L: L.Stream("cpu").record_event(),
    "stream-wait-stream": lambda L: L.Stream("cpu").wait_stream(L.Stream()),
    "stream-wait-event": lambda L: L.Stream("cpu").wait_event(L.Event()),
    "stream-eq": lambda L: (L.Stream("cpu") == L.Stream("cpu"), hash(L.Stream()) == hash(L.Stream("cpu"))),
    "stream-fields": lambda L: (L.Stream("cpu").device_type, L.Stream("cpu").device_index, L.Stream().stream_id,
                                L.Stream().device),
    "stream-handle": lambda L: L.Stream("cpu").native_handle,
    "stream-context": lambda L: (lambda s: s.__enter__() is s)(L.Stream()),
    "event-default": lambda L: L.Event(),
    "event-timing": lambda L: L.Event("cpu", enable_timing=True),
    "event-query": lambda L: (L.Event().query(), L.Event().synchronize(), L.Event().wait(), L.Event().event_id),
    "event-record": lambda L: L.Event().record(),
    "event-elapsed-untimed": lambda L: L.Event().elapsed_time(L.Event()),
    "event-cuda": lambda L: L.Event("cuda"),
    "event-device": lambda L: L.Event().device,
    "future": lambda L: (lambda f: (f.done(), f.set_result(3), f.wait(), f.value(), f.done()))(L.futures.Future()),
    "future-then": lambda L: (lambda f: (f.then(lambda x: x.wait() + 1), f.set_result(1)))(L.futures.Future())[0].wait(),
    "future-exception": lambda L: (lambda f: (f.set_exception(ValueError("boom")), f.wait()))(L.futures.Future()),
    "future-twice": lambda L: (lambda f: (f.set_result(1), f.set_result(2)))(L.futures.Future()),
    "collect-all-empty": lambda L: L.futures.collect_all([]).wait(),
    "wait-all": lambda L: (lambda f: (f.set_result(5), L.futures.wait_all([f])))(L.futures.Future())[1],
    "record-stream-cpu": lambda L: L.ones(2).record_stream(L.Stream("cpu")),
    "to-dlpack": lambda L: type(L.to_dlpack(L.ones(2))).__name__,
    "autocast-gpu-dtype": lambda L: (L.set_autocast_gpu_dtype(L.bfloat16), L.get_autocast_dtype("cuda"),
                                     L.set_autocast_dtype("cuda", L.float16)),
    "autocast-gpu-dtype-int": lambda L: L.set_autocast_gpu_dtype(1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name: str) -> None:
    assert _run(ember, CASES[name]) == _run(torch, CASES[name])


def test_future_wait_blocks_until_another_thread_sets_it() -> None:
    fut: ember.futures.Future[int] = ember.futures.Future()
    threading.Timer(0.05, fut.set_result, args=(7,)).start()
    assert fut.wait() == 7 and fut.done()


def test_future_callbacks_run_once_each_in_order() -> None:
    fut: ember.futures.Future[int] = ember.futures.Future()
    seen: list[int] = []
    fut.add_done_callback(lambda f: seen.append(f.value()))
    fut.add_done_callback(lambda f: seen.append(f.value() * 10))
    fut.set_result(2)
    fut.add_done_callback(lambda f: seen.append(-1))  # already done: runs at once
    assert seen == [2, 20, -1]


def test_set_autocast_gpu_dtype_is_deprecated() -> None:
    with pytest.warns(DeprecationWarning, match="set_autocast_dtype"):
        ember.set_autocast_gpu_dtype(ember.float16)
