"""Copies between GPUs (``torch.nn.parallel.comm``, also ``torch.cuda.comm``): broadcast a tensor
to several devices, sum tensors of several devices onto one, scatter a tensor in chunks over
devices, gather chunks onto one device. What ``DataParallel`` moves its inputs, replicas and
outputs with; the autograd functions over them are in ``ember.nn.parallel._functions``.

The copies go tensor by tensor (the ``buffer_size`` of the coalesced forms is accepted; ember
does not pack small tensors into one buffer first)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import ember
from ember import Tensor
from ember.nn.parallel._utils import _get_device_index

__all__ = ["broadcast", "broadcast_coalesced", "reduce_add", "reduce_add_coalesced", "scatter", "gather"]


def _cuda(index: int) -> ember.device:
    return ember.device("cuda", index)


def _on(t: Tensor, index: int) -> bool:
    return t.device.type == "cuda" and t.get_device() == index


def broadcast(tensor: Tensor, devices: Iterable[Any] | None = None, *, out: Sequence[Tensor] | None = None
              ) -> tuple[Tensor, ...]:
    """Copies ``tensor`` to each of ``devices`` (or into the tensors ``out``).

    Args:
        tensor (Tensor): what to broadcast, on the CPU or a GPU.
        devices (Iterable[ember.device, str or int], optional): the GPUs to copy it to.
        out (Sequence[Tensor], optional): keyword-only; GPU tensors of ``tensor``'s shape to copy
            it into.

    Exactly one of ``devices`` and ``out`` is given.

    Returns:
        tuple: with ``devices``, one tensor per device (``tensor`` itself on its own device, a
        copy elsewhere); with ``out``, the ``out`` tensors.
    """
    if not ((devices is None) ^ (out is None)):
        raise RuntimeError(f"Exactly one of 'devices' and 'out' must be specified, but got devices={devices} "
                           f"and out={out}")
    with ember.no_grad():
        if devices is not None:
            indices = [_get_device_index(d) for d in devices]
            return tuple(tensor if _on(tensor, d) else tensor.to(_cuda(d), non_blocking=True) for d in indices)
        assert out is not None
        for i, o in enumerate(out):
            if o.device.type != "cuda":
                raise RuntimeError(f"Expected all output tensors to be CUDA tensors, but output tensor at index {i} "
                                   f"has device '{o.device}'")
            if o.shape != tensor.shape:
                raise RuntimeError(f"Expected all output tensors to have same shape as the source tensor "
                                   f"{list(tensor.shape)}, but output tensor at index {i} has shape {list(o.shape)}")
            o.copy_(tensor, non_blocking=True)
        return tuple(out)


def broadcast_coalesced(tensors: Sequence[Tensor], devices: Iterable[Any], buffer_size: int = 10485760
                        ) -> list[list[Tensor]]:
    """Copies each of ``tensors`` (all on ``devices[0]``) to each of ``devices``.

    Args:
        tensors (sequence): the tensors, all on the first of ``devices``.
        devices (Iterable[ember.device, str or int]): the GPUs to copy them to.
        buffer_size (int): the most bytes PyTorch packs into one copy (accepted; ember copies
            tensor by tensor).

    Returns:
        list: per device, the list of its tensors: the inputs themselves for ``devices[0]``,
        copies that do not require grad (and have no history) elsewhere.
    """
    indices = [_get_device_index(d) for d in devices]
    if not indices:
        raise RuntimeError("Expected at least one device to broadcast to")
    tensors = list(tensors)
    for t in tensors:
        if t.get_device() != indices[0]:
            raise RuntimeError(f"All tensors must be on devices[0]: {indices[0]}")
    outputs = [tensors]
    with ember.no_grad():
        for d in indices[1:]:
            outputs.append([t.detach().to(_cuda(d), non_blocking=True) for t in tensors])
    return outputs


def reduce_add(inputs: Sequence[Tensor], destination: Any = None) -> Tensor:
    """The elementwise sum of ``inputs`` (one per GPU, all of one shape) on ``destination``.

    Args:
        inputs (Sequence[Tensor]): the tensors to add, each on a GPU; one of them on
            ``destination``.
        destination (int, optional): the device of the result (default: the current device).

    Returns:
        Tensor: the sum, on ``destination`` (the only input itself when there is one).
    """
    dest = _get_device_index(destination, optional=True)
    size = inputs[0].shape
    root = None  # the input already on the destination
    for i, t in enumerate(inputs):
        if t.device.type == "cpu":
            raise AssertionError(f"reduce_add expects all inputs to be on GPUs, but input {i} is on CPU")
        if t.get_device() == dest:
            root = i
        if t.shape != size:
            got, expected = "x".join(map(str, t.shape)), "x".join(map(str, size))
            raise ValueError(f"input {i} has invalid size: got {got}, but expected {expected}")
    if root is None:
        raise RuntimeError("reduce_add expects destination to be on the same GPU with one of the tensors")
    if len(inputs) == 1:
        return inputs[0]
    device = ember.device(inputs[root].device.type, dest)
    others = [t for i, t in enumerate(inputs) if i != root]
    result = inputs[root] + others[0].to(device, non_blocking=True)  # a new tensor, not a clone
    for t in others[1:]:
        result.add_(t.to(device, non_blocking=True))
    return result


def reduce_add_coalesced(inputs: Sequence[Sequence[Tensor]], destination: Any = None,
                         buffer_size: int = 10485760) -> tuple[Tensor, ...]:
    """Sums, tensor by tensor, the lists of ``inputs`` (one list per GPU) onto ``destination``.

    Args:
        inputs (Sequence[Sequence[Tensor]]): per GPU, the tensors of that GPU; the i-th tensors
            of all lists have one shape.
        destination (int, optional): the device of the results (default: the current device).
        buffer_size (int): the most bytes PyTorch packs into one copy (accepted; ember adds
            tensor by tensor).

    Returns:
        tuple: the sums, new tensors without history, on ``destination``.
    """
    out = []
    with ember.no_grad():
        for at_gpus in zip(*inputs, strict=True):
            total = reduce_add(at_gpus, destination)
            out.append(total.detach().clone() if len(at_gpus) == 1 else total.detach())
    return tuple(out)


def _scatter(tensor: Tensor, devices: list[int], chunk_sizes: Sequence[int] | None, dim: int,
             streams: Sequence[Any] | None) -> list[Tensor]:
    if not devices:
        raise RuntimeError("Expected at least one device to scatter to")
    if chunk_sizes is not None:
        if len(chunk_sizes) != len(devices):
            raise RuntimeError(f"Expected devices and chunk_sizes to be of same length, but got len(devices) = "
                               f"{len(devices)} and len(chunk_sizes) = {len(chunk_sizes)}")
        chunks = list(tensor.split(list(chunk_sizes), dim))
    else:
        chunks = list(tensor.chunk(len(devices), dim))
    source = tensor.get_device()
    for i, chunk in enumerate(chunks):
        d = devices[i]
        if d == source:
            continue  # already there: the chunk is a view of the input
        stream = streams[i] if streams is not None and i < len(streams) else None
        if stream is not None and stream.device_index != d:
            raise RuntimeError(f"Expected the device associated with the stream at index {i} (was "
                               f"{stream.device_index}) to match the device supplied at that index (expected {d})")
        with ember.cuda.stream(stream):
            chunks[i] = chunk.to(_cuda(d), non_blocking=True)
    return chunks


def scatter(tensor: Tensor, devices: Iterable[Any] | None = None, chunk_sizes: Sequence[int] | None = None,
            dim: int = 0, streams: Sequence[Any] | None = None, *, out: Sequence[Tensor] | None = None
            ) -> tuple[Tensor, ...]:
    """Splits ``tensor`` along ``dim`` and places a chunk on each device (or in each of ``out``).

    Args:
        tensor (Tensor): what to scatter, on the CPU or a GPU.
        devices (Iterable[ember.device, str or int], optional): the GPUs to scatter to.
        chunk_sizes (Iterable[int], optional): the size of each device's chunk (as many as
            devices, summing to ``tensor.size(dim)``); equal chunks (``Tensor.chunk``) if None.
        dim (int, optional): the dimension to split. Default: 0.
        streams (Iterable[ember.cuda.Stream], optional): per device, the stream to copy on
            (the current stream where None).
        out (Sequence[Tensor], optional): keyword-only; GPU tensors to copy the chunks into; their
            sizes along ``dim`` are the chunk sizes.

    Exactly one of ``devices`` and ``out`` is given.

    Returns:
        tuple: the chunks, one per device (fewer when ``Tensor.chunk`` makes fewer); a chunk
        already on its device is a view of ``tensor``.
    """
    if out is None:
        if devices is None:
            raise RuntimeError("Exactly one of 'devices' and 'out' must be specified")
        return tuple(_scatter(tensor, [_get_device_index(d) for d in devices], chunk_sizes, dim, streams))
    if devices is not None:
        raise RuntimeError(f"'devices' must not be specified when 'out' is specified, but got devices={devices}")
    if chunk_sizes is not None:
        raise RuntimeError(f"'chunk_sizes' must not be specified when 'out' is specified, but got "
                           f"chunk_sizes={chunk_sizes}")
    if not out:
        raise RuntimeError("Expected at least one output tensor to scatter to")
    dim = dim + tensor.dim() if dim < 0 else dim
    sizes = []
    for i, o in enumerate(out):
        if o.device.type != "cuda":
            raise RuntimeError(f"Expected all output tensors to be CUDA tensors, but output tensor at index {i} "
                               f"has device '{o.device}'")
        expected = list(tensor.shape)
        expected[dim] = o.shape[dim]
        if list(o.shape) != expected:
            raise RuntimeError(f"Output tensor at index {i} has incorrect shape: {list(o.shape)}. Expected same "
                               f"shape except for scatter dim {dim} as the source tensor: {list(tensor.shape)}.")
        sizes.append(o.shape[dim])
    if sum(sizes) != tensor.shape[dim]:
        raise RuntimeError(f"Total size for output tensors along scatter dim ({sum(sizes)}) does not match the "
                           f"source tensor size along that dim ({tensor.shape[dim]})")
    for i, (o, chunk) in enumerate(zip(out, tensor.split(sizes, dim), strict=True)):
        stream = streams[i] if streams is not None and i < len(streams) else None
        with ember.cuda.stream(stream):
            o.copy_(chunk, non_blocking=True)
    return tuple(out)


def _gather_check(tensors: Sequence[Tensor], dim: int) -> tuple[int, list[int]]:
    if not tensors:
        raise RuntimeError("Expected at least one tensor to gather from")
    first = tensors[0]
    nd = first.dim()
    if not -max(nd, 1) <= dim < max(nd, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(nd, 1)}, {max(nd, 1) - 1}], "
                         f"but got {dim})")
    dim = dim + nd if dim < 0 else dim
    expected = list(first.shape)
    total = 0
    for i, t in enumerate(tensors):
        if t.device.type != "cuda":
            raise RuntimeError(f"Expected all input tensors to be CUDA tensors, but tensor at index {i} has device "
                               f"{t.device}")
        if t.dim() != len(expected):
            raise RuntimeError(f"Expected all input tensors to have the same number of dimensions, but tensor at "
                               f"index {i}has {t.dim()} dimensions, (expected {len(expected)})")
        expected[dim] = t.shape[dim]
        if list(t.shape) != expected:
            raise RuntimeError(f"Input tensor at index {i} has invalid shape {list(t.shape)}, but expected {expected}")
        total += t.shape[dim]
    expected[dim] = total
    return dim, expected


def _gather_into(tensors: Sequence[Tensor], result: Tensor, dim: int) -> Tensor:
    parts = result.split([t.shape[dim] for t in tensors], dim)
    for part, t in zip(parts, tensors, strict=True):
        part.copy_(t, non_blocking=result.device.type == "cuda")
    return result


def gather(tensors: Sequence[Tensor], dim: int = 0, destination: Any = None, *, out: Tensor | None = None
           ) -> Tensor:
    """Concatenates ``tensors`` (one per GPU) along ``dim`` on ``destination`` (or into ``out``).

    Args:
        tensors (Iterable[Tensor]): the tensors, on GPUs, of equal sizes except along ``dim``.
        dim (int, optional): the dimension to concatenate along. Default: 0.
        destination (ember.device, str or int, optional): the device of the result, the CPU or a
            GPU (default: the current GPU; -1, deprecated, is the CPU).
        out (Tensor, optional): keyword-only; the tensor to write the result into (then no
            ``destination``).

    Returns:
        Tensor: the concatenation, on ``destination`` (or ``out``).
    """
    tensors = list(tensors)
    if out is None:
        if destination == -1:
            warnings.warn('Using -1 to represent CPU tensor is deprecated. Please use a device object or string '
                          'instead, e.g., "cpu".', FutureWarning, stacklevel=2)
        index = _get_device_index(destination, allow_cpu=True, optional=True)
        dim, size = _gather_check(tensors, dim)
        device = ember.device("cpu") if index == -1 else _cuda(index)
        with ember.no_grad():
            result = ember.empty(size, dtype=tensors[0].dtype, device=device)
            return _gather_into(tensors, result, dim)
    if destination is not None:
        raise RuntimeError(f"'destination' must not be specified when 'out' is specified, but got "
                           f"destination={destination}")
    dim, size = _gather_check(tensors, dim)
    if list(out.shape) != size:
        raise RuntimeError(f"Expected out tensor to have shape {size}, but got {list(out.shape)}")
    with ember.no_grad():
        return _gather_into(tensors, out, dim)
