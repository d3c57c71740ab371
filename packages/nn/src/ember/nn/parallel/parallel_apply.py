"""Running modules side by side, one thread per device (PyTorch's
``torch.nn.parallel.parallel_apply``)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import ember
from ember import Tensor
from ember.nn.modules.module import Module
from ember.nn.parallel._utils import ExceptionWrapper, _get_cuda_device_index

__all__ = ["get_a_var", "parallel_apply"]


def get_a_var(obj: Any) -> Tensor | None:
    """The first tensor found in ``obj`` (a tensor, or lists, tuples and dicts holding them), None
    when there is none."""
    if isinstance(obj, Tensor):
        return obj
    if isinstance(obj, (list, tuple)):
        for result in map(get_a_var, obj):
            if isinstance(result, Tensor):
                return result
    if isinstance(obj, dict):
        for result in map(get_a_var, obj.items()):
            if isinstance(result, Tensor):
                return result
    return None


def _current_stream(device: int | None) -> Any:
    if not ember.cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return ember.cuda.current_stream(device)


def parallel_apply(modules: Sequence[Module], inputs: Sequence[Any], kwargs_tup: Sequence[dict[str, Any]] | None = None,
                   devices: Sequence[Any] | None = None) -> list[Any]:
    """Calls each of ``modules`` on its input, each in its own thread on its device.

    Each thread runs with the caller's grad mode and CUDA autocast state, its device current
    and, as the current stream, the stream that was current on that device in the caller. An
    exception in a thread is raised again in the caller, naming the replica and the device.

    Args:
        modules (Sequence[nn.Module]): the modules (replicas) to run.
        inputs (Sequence): per module, its positional arguments (a list or tuple) or its only
            argument.
        kwargs_tup (Sequence[dict], optional): per module, its keyword arguments.
        devices (Sequence[int or ember.device], optional): per module, its device (default: the
            current device).

    ``modules``, ``inputs`` and, when given, ``kwargs_tup`` and ``devices`` are of one length.

    Returns:
        list: the modules' outputs, in order.
    """
    if len(modules) != len(inputs):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of inputs {len(inputs)}")
    if kwargs_tup is not None:
        if len(modules) != len(kwargs_tup):
            raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of kwargs_tup "
                                 f"{len(kwargs_tup)}")
    else:
        kwargs_tup = ({},) * len(modules)
    if devices is not None:
        if len(modules) != len(devices):
            raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of devices "
                                 f"{len(devices)}")
    else:
        devices = [None] * len(modules)
    indices: list[int | None] = [_get_cuda_device_index(x, True) for x in devices]
    streams = [_current_stream(d) for d in indices]
    lock = threading.Lock()
    results: dict[int, Any] = {}
    grad_enabled, autocast_enabled = ember.is_grad_enabled(), ember.is_autocast_enabled()

    def _worker(i: int, module: Module, input: Any, kwargs: dict[str, Any], device: int | None = None,
                stream: Any = None) -> None:
        ember.set_grad_enabled(grad_enabled)
        if device is None:
            t = get_a_var(input)
            if t is None:
                with lock:
                    results[i] = ExceptionWrapper(where=f"in replica {i}, no device was provided and no tensor input "
                                                        "was found; device cannot be resolved")
                return
            device = t.get_device()
        if stream is None:
            stream = ember.cuda.current_stream(device)
        try:
            with ember.cuda.device(device), ember.cuda.stream(stream), \
                    ember.amp.autocast("cuda", enabled=autocast_enabled):
                # a single input that is not a list or tuple is the only argument (and not sliced)
                if not isinstance(input, (list, tuple)):
                    input = (input,)
                output = module(*input, **kwargs)
            with lock:
                results[i] = output
        except Exception:
            with lock:
                results[i] = ExceptionWrapper(where=f"in replica {i} on device {device}")

    if len(modules) > 1:
        threads = [threading.Thread(target=_worker, args=(i, module, input, kwargs, device, stream))
                   for i, (module, input, kwargs, device, stream)
                   in enumerate(zip(modules, inputs, kwargs_tup, indices, streams, strict=True))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    else:
        _worker(0, modules[0], inputs[0], kwargs_tup[0], indices[0], streams[0])

    outputs = []
    for i in range(len(inputs)):
        output = results[i]
        if isinstance(output, ExceptionWrapper):
            output.reraise()
        outputs.append(output)
    return outputs
