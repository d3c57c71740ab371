"""Copies of a module on several GPUs (PyTorch's ``torch.nn.parallel.replicate``).

Each replica is a shallow copy of every submodule (``Module._replicate_for_data_parallel``)
whose parameters are differentiable copies of the original's (``Broadcast``), so gradients of a
replica's outputs flow back to the original parameters; buffers are plain copies. On the first
device the copies share storage with the originals: there, in-place updates (BatchNorm's
running statistics) reach the original module."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, TypeVar, cast

from ember import Tensor
from ember.nn.modules.module import Module
from ember.nn.parallel import comm
from ember.nn.parallel._utils import _get_device_index

__all__ = ["replicate"]


def _broadcast_coalesced_reshape(tensors: Sequence[Tensor], devices: Sequence[Any],
                                 detach: bool = False) -> list[list[Tensor]]:
    """Per device, the copies of ``tensors``: differentiable unless ``detach``."""
    from ember.nn.parallel._functions import Broadcast

    if len(tensors) == 0:
        return []
    if detach:
        return comm.broadcast_coalesced(tensors, devices)
    copies = Broadcast.apply(devices, *tensors)
    n = len(tensors)
    return [list(copies[i:i + n]) for i in range(0, len(copies), n)]


T = TypeVar("T", bound=Module)


def replicate(network: T, devices: Sequence[Any], detach: bool = False) -> list[T]:
    """One copy of ``network`` per device of ``devices``, its parameters and buffers on that device.

    ``network`` must be on ``devices[0]``. The replicas' parameters are differentiable copies of
    the original parameters (unless ``detach``), plain tensor attributes rather than
    parameters; buffers that do not require grad are copied without history. The first replica's
    parameters and buffers share storage with the original's.

    Args:
        network (nn.Module): the module to copy.
        devices (Sequence[int or ember.device]): the devices, one replica each.
        detach (bool): copy the parameters without history (as DataParallel does when grad is
            disabled). Default: False.

    Returns:
        list: the replicas, in the order of ``devices``.
    """
    if not devices:
        return []
    devices = [_get_device_index(x, True) for x in devices]
    num_replicas = len(devices)

    params = list(network.parameters())
    param_indices = {id(p): idx for idx, p in enumerate(params)}
    param_copies = _broadcast_coalesced_reshape(params, devices, detach)

    buffers = list(network.buffers())
    buffers_rg: list[Tensor] = []  # buffers that require grad: copied differentiably
    buffers_not_rg: list[Tensor] = []
    for buf in buffers:
        (buffers_rg if buf.requires_grad and not detach else buffers_not_rg).append(buf)
    buffer_indices_rg = {id(b): idx for idx, b in enumerate(buffers_rg)}
    buffer_indices_not_rg = {id(b): idx for idx, b in enumerate(buffers_not_rg)}
    buffer_copies_rg = _broadcast_coalesced_reshape(buffers_rg, devices, detach=detach)
    buffer_copies_not_rg = _broadcast_coalesced_reshape(buffers_not_rg, devices, detach=True)

    modules = list(network.modules())
    module_copies: list[list[Module]] = [[] for _ in devices]
    module_indices: dict[int, int] = {}
    for i, module in enumerate(modules):
        module_indices[id(module)] = i
        for j in range(num_replicas):
            replica = module._replicate_for_data_parallel()
            # the replica's parameters, by name (DistributedDataParallel reads them here: they are
            # no longer in parameters())
            replica._former_parameters = OrderedDict()
            module_copies[j].append(replica)

    for i, module in enumerate(modules):
        for key, child in module._modules.items():
            for j in range(num_replicas):
                replica = module_copies[j][i]
                if child is None:
                    replica._modules[key] = None
                else:
                    setattr(replica, key, module_copies[j][module_indices[id(child)]])
        for key, param in module._parameters.items():
            for j in range(num_replicas):
                replica = module_copies[j][i]
                if param is None:
                    replica._parameters[key] = None
                else:
                    param_copy = param_copies[j][param_indices[id(param)]]
                    # not leaves any more: a plain attribute, not a parameter
                    setattr(replica, key, param_copy)
                    replica._former_parameters[key] = param_copy
        for key, buf in module._buffers.items():
            for j in range(num_replicas):
                replica = module_copies[j][i]
                if buf is None:
                    replica._buffers[key] = None
                elif buf.requires_grad and not detach:
                    setattr(replica, key, buffer_copies_rg[j][buffer_indices_rg[id(buf)]])
                else:
                    setattr(replica, key, buffer_copies_not_rg[j][buffer_indices_not_rg[id(buf)]])

    return [cast(T, module_copies[j][0]) for j in range(num_replicas)]
