"""Distributed communication package (torch.distributed) on MPI.

Process groups (``init_process_group``, ``new_group``, ``get_rank``...), stores, the
collectives (``all_reduce``, ``broadcast``, ``all_gather``, ``reduce_scatter_tensor``,
``barrier``, send/recv...) and the object collectives. The CPU backend runs on MPI (mpi4py
and the ``mpich`` wheel by default, any MPI mpi4py is built against otherwise); it answers to
``"mpi"`` and also to ``"gloo"`` and the default, so PyTorch scripts run unchanged. Start jobs
with ``ember-run`` (torchrun's flags), torchrun itself, ``mpiexec`` or ``srun``.
"""

from __future__ import annotations

import importlib
from typing import Any, NewType

from ._backend_info import BuiltinCommHookType, get_backend_config, is_backend_available, supports_complex
from ._breakpoint import breakpoint
from ._coalesced import all_gather_coalesced, all_reduce_coalesced
from ._debug import DebugLevel, get_debug_level, set_debug_level, set_debug_level_from_env
from ._errors import DistBackendError, DistError, DistNetworkError, DistStoreError, QueueEmptyError
from ._monitored_barrier import monitored_barrier
from ._options import (
    AllreduceCoalescedOptions,
    AllreduceOptions,
    AllToAllOptions,
    BarrierOptions,
    BroadcastOptions,
    GatherOptions,
    ReduceOptions,
    ReduceScatterOptions,
    ScatterOptions,
)
from ._split_group import split_group
from ._work import Future, Work
from .collectives import (
    P2POp,
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    all_to_all,
    all_to_all_single,
    barrier,
    batch_isend_irecv,
    broadcast,
    gather,
    irecv,
    isend,
    recv,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
    send,
)
from .object_collectives import (
    all_gather_object,
    broadcast_object_list,
    gather_object,
    recv_object_list,
    scatter_object_list,
    send_object_list,
)
from .process_group import (
    Backend,
    GroupMember,
    ProcessGroup,
    default_pg_timeout,
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_node_local_rank,
    get_pg_count,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    init_process_group,
    is_initialized,
    new_group,
    new_subgroups,
    new_subgroups_by_enumeration,
)
from .reduce_op import ReduceOp, _make_nccl_premul_sum, reduce_op  # noqa: F401  (torch.distributed has it)
from .rendezvous import register_rendezvous_handler, rendezvous

RankType = int  # torch: int | SymInt; ember has no symbolic ints
GroupName = NewType("GroupName", str)  # a process group's registered name

group = GroupMember  # torch.distributed.group.WORLD


def is_available() -> bool:
    """True: ember.distributed is always built (its engine, MPI, is a dependency)."""
    return True


def is_mpi_available() -> bool:
    """Whether the MPI backend can be used (mpi4py and an MPI library are installed)."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def is_gloo_available() -> bool:
    """The "gloo" backend name runs on ember's CPU backend (MPI)."""
    return is_mpi_available()


def is_nccl_available() -> bool:
    """Whether the NCCL backend is available: never in ember, which has no GPU."""
    return False


def is_ucc_available() -> bool:
    """Whether the UCC backend is available: never in ember."""
    return False


def is_xccl_available() -> bool:
    """Whether the XCCL (Intel GPU) backend is available: never in ember."""
    return False


def is_torchelastic_launched() -> bool:
    """Whether this process was started by ``torchrun`` (ember's launcher), which sets ``TORCHELASTIC_RUN_ID``."""
    import os

    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def get_default_backend_for_device(device: Any) -> str:
    """The backend ember uses for tensors on ``device``: ``"gloo"`` for the CPU."""
    kind = device if isinstance(device, str) else getattr(device, "type", str(device))
    kind = kind.split(":")[0]
    if kind not in Backend.default_device_backend_map:
        raise ValueError(f"Default backend not registered for device : {device}")
    return Backend.default_device_backend_map[kind]


_LAZY = {  # names loaded on first use (they pull in more of ember)
    "TCPStore": ".store", "FileStore": ".store", "HashStore": ".store", "PrefixStore": ".store",
    "Store": ".store", "DeviceMesh": ".device_mesh", "init_device_mesh": ".device_mesh",
    "GradBucket": "._ddp.grad_bucket",
}
# Submodules reachable as attributes, as after `import torch.distributed`.
_SUBMODULES = ("algorithms", "checkpoint", "device_mesh", "elastic", "fsdp", "launcher", "optim",
               "pipelining", "rpc", "tensor")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    if name in _SUBMODULES:
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module 'ember.distributed' has no attribute '{name}'")


__all__ = [
    "AllToAllOptions", "AllreduceCoalescedOptions", "AllreduceOptions", "BarrierOptions",
    "BroadcastOptions", "BuiltinCommHookType", "DeviceMesh", "GatherOptions", "GradBucket",
    "GroupName", "QueueEmptyError", "RankType", "ReduceOptions", "ReduceScatterOptions",
    "ScatterOptions", "all_gather_coalesced", "all_reduce_coalesced", "breakpoint",
    "get_backend_config", "init_device_mesh", "is_backend_available", "is_ucc_available",
    "is_xccl_available", "monitored_barrier", "register_rendezvous_handler", "rendezvous",
    "set_debug_level", "set_debug_level_from_env", "split_group", "supports_complex",
    "Backend", "DebugLevel", "DistBackendError", "DistError", "DistNetworkError", "DistStoreError",
    "FileStore", "Future", "GroupMember", "HashStore", "P2POp", "PrefixStore", "ProcessGroup",
    "ReduceOp", "Store", "TCPStore", "Work", "all_gather", "all_gather_into_tensor",
    "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single", "barrier",
    "batch_isend_irecv", "broadcast", "broadcast_object_list", "default_pg_timeout",
    "destroy_process_group", "gather", "gather_object", "get_backend",
    "get_debug_level", "get_default_backend_for_device", "get_global_rank", "get_group_rank",
    "get_node_local_rank", "get_pg_count", "get_process_group_ranks", "get_rank", "get_world_size", "group",
    "init_process_group", "irecv", "is_available", "is_gloo_available", "is_initialized",
    "is_mpi_available", "is_nccl_available", "is_torchelastic_launched", "isend",
    "new_group", "new_subgroups", "new_subgroups_by_enumeration", "recv", "recv_object_list",
    "reduce", "reduce_op", "reduce_scatter", "reduce_scatter_tensor", "scatter",
    "scatter_object_list", "send", "send_object_list",
]
