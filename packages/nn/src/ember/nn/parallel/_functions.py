"""The autograd functions of ``DataParallel``'s copies: each one's backward is the copy the other
way (a broadcast's backward sums the gradients onto the source device, a scatter's gathers them,
a gather's scatters), itself recorded, so the graph can be differentiated again."""

from __future__ import annotations

import warnings
from itertools import chain
from typing import Any

import ember
from ember.autograd.function import Function
from ember.nn.parallel import comm
from ember.nn.parallel._utils import _get_device_index


def _fill_missing(grads: tuple[Any, ...], metas: list[tuple[Any, Any, Any]]) -> tuple[Any, ...]:
    """Zeros, on the output's own device, for the outputs that got no gradient."""
    return tuple(ember.zeros(shape, dtype=dtype, device=device) if g is None else g
                 for g, (shape, dtype, device) in zip(grads, metas, strict=True))


def _metas(tensors: Any) -> list[tuple[Any, Any, Any]]:
    return [(tuple(t.shape), t.dtype, t.device) for t in tensors]


class Broadcast(Function):
    """Copies of tensors (all on one GPU) on each target GPU; backward: ``ReduceAddCoalesced``."""

    @staticmethod
    def forward(ctx: Any, target_gpus: Any, *inputs: Any) -> Any:
        """The inputs on each of ``target_gpus``, device by device (the first device's are the inputs)."""
        if not all(i.device.type != "cpu" for i in inputs):
            raise AssertionError("Broadcast function not implemented for CPU tensors")
        target_gpus = [_get_device_index(x, True) for x in target_gpus]
        ctx.target_gpus = target_gpus
        if len(inputs) == 0:
            return ()
        ctx.num_inputs = len(inputs)
        ctx.input_device = inputs[0].get_device()
        outputs = comm.broadcast_coalesced(inputs, target_gpus)
        non_differentiables: list[Any] = []
        for idx, needs_grad in enumerate(ctx.needs_input_grad[1:]):
            if not needs_grad:
                non_differentiables.extend(device_outputs[idx] for device_outputs in outputs)
        ctx.mark_non_differentiable(*non_differentiables)
        flat = tuple(chain.from_iterable(outputs))
        ctx.set_materialize_grads(False)
        ctx.out_metas = _metas(flat)
        return flat

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """The gradients of all copies of each input, summed on the input's device."""
        grads = ReduceAddCoalesced.apply(ctx.input_device, ctx.num_inputs, *_fill_missing(grad_outputs, ctx.out_metas))
        return (None,) + tuple(grads)


class ReduceAddCoalesced(Function):
    """Sums of per-device lists of tensors on one device; backward: ``Broadcast``."""

    @staticmethod
    def forward(ctx: Any, destination: Any, num_inputs: int, *grads: Any) -> Any:
        """``grads`` holds ``num_inputs`` tensors per device, device after device; the i-th
        tensors of all devices are summed on ``destination``."""
        ctx.target_gpus = [grads[i].get_device() for i in range(0, len(grads), num_inputs)]
        per_device = [grads[i:i + num_inputs] for i in range(0, len(grads), num_inputs)]
        results = comm.reduce_add_coalesced(per_device, destination)
        ctx.set_materialize_grads(False)
        ctx.out_metas = _metas(results)
        return results

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """Each sum's gradient, broadcast back to the devices of the summands."""
        return (None, None) + tuple(Broadcast.apply(ctx.target_gpus, *_fill_missing(grad_outputs, ctx.out_metas)))


class Gather(Function):
    """The inputs (one per GPU) concatenated along ``dim`` on ``target_device``; backward: ``Scatter``."""

    @staticmethod
    def forward(ctx: Any, target_device: Any, dim: int, *inputs: Any) -> Any:
        """Concatenates ``inputs`` along ``dim`` on ``target_device`` ("cpu", or -1, for the CPU);
        0-d inputs gathered along dim 0 become a vector, with PyTorch's warning."""
        if not all(i.device.type != "cpu" for i in inputs):
            raise AssertionError("Gather function not implemented for CPU tensors")
        if target_device == "cpu":
            ctx.target_device = "cpu"
        else:
            target_device = _get_device_index(target_device, True)
            ctx.target_device = target_device
        ctx.dim = dim
        ctx.input_gpus = tuple(i.get_device() for i in inputs)
        if all(t.dim() == 0 for t in inputs) and dim == 0:
            inputs = tuple(t.view(1) for t in inputs)
            warnings.warn("Was asked to gather along dimension 0, but all input tensors were scalars; will instead "
                          "unsqueeze and return a vector.", stacklevel=2)
            ctx.unsqueezed_scalar = True
        else:
            ctx.unsqueezed_scalar = False
        ctx.input_sizes = tuple(i.size(ctx.dim) for i in inputs)
        return comm.gather(inputs, ctx.dim, ctx.target_device)

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        """The output's gradient, split back onto the inputs' devices."""
        scattered = Scatter.apply(ctx.input_gpus, ctx.input_sizes, ctx.dim, grad_output)
        if ctx.unsqueezed_scalar:
            scattered = tuple(g[0] for g in scattered)
        return (None, None) + tuple(scattered)


class Scatter(Function):
    """Chunks of ``input`` along ``dim``, one per target GPU; backward: ``Gather``."""

    @staticmethod
    def forward(ctx: Any, target_gpus: Any, chunk_sizes: Any, dim: int, input: Any) -> Any:
        """``input`` split along ``dim`` (in ``chunk_sizes``, or equal chunks), a chunk per GPU; a
        CPU input is copied on per-device side streams the current streams then wait for."""
        target_gpus = [_get_device_index(x, True) for x in target_gpus]
        ctx.dim = dim
        ctx.input_device = input.get_device() if input.device.type != "cpu" else -1
        streams = None
        if ember.cuda.is_available() and ctx.input_device == -1:
            # copy from the host on background streams
            streams = [_get_stream(ember.device("cuda", d)) for d in target_gpus]
        outputs = comm.scatter(input, target_gpus, chunk_sizes, ctx.dim, streams)
        if streams is not None:  # the current streams wait for the copies before using them
            for i, output in enumerate(outputs):
                with ember.cuda.device(target_gpus[i]):
                    main_stream = ember.cuda.current_stream()
                    main_stream.wait_stream(streams[i])
                    output.record_stream(main_stream)
        ctx.set_materialize_grads(False)
        ctx.out_metas = _metas(outputs)
        return outputs

    @staticmethod
    def backward(ctx: Any, *grad_output: Any) -> Any:
        """The chunks' gradients, concatenated on the input's device."""
        return None, None, None, Gather.apply(ctx.input_device, ctx.dim, *_fill_missing(grad_output, ctx.out_metas))


# background streams for copies from the host, one per device, made on first use
_streams: list[Any] | None = None


def _get_stream(device: ember.device) -> Any:
    """The background stream that copies from the CPU to ``device`` (None for the CPU)."""
    global _streams
    if device.type == "cpu" or not ember.cuda.is_available():
        return None
    if device.type != "cuda":
        raise AssertionError(f"Expected current accelerator type cuda to match device type {device.type}")
    if _streams is None:
        _streams = [None] * ember.cuda.device_count()
    index = device.index if device.index is not None else ember.cuda.current_device()
    if _streams[index] is None:
        _streams[index] = ember.cuda.Stream(index)
    return _streams[index]
