"""Backend queries of torch.distributed: ``is_backend_available``, ``get_backend_config``,
``supports_complex``, and the ``BuiltinCommHookType`` enum."""

from __future__ import annotations

import enum
from typing import Any

from .process_group import Backend, GroupMember, resolve
from .reduce_op import ReduceOp


class BuiltinCommHookType(enum.Enum):
    """The DDP communication hooks implemented in the backend (``_register_builtin_comm_hook``):
    ALLREDUCE and FP16_COMPRESS."""

    ALLREDUCE = 1
    FP16_COMPRESS = 2


def _single_available(name: str) -> bool:
    from . import is_gloo_available, is_mpi_available

    name = name.lower()
    if name in (Backend.GLOO, Backend.MPI):
        return is_gloo_available() if name == Backend.GLOO else is_mpi_available()
    return False  # nccl/ucc/xccl need an accelerator ember does not have


def is_backend_available(backend: str) -> bool:
    """Whether ``backend`` (a name, or a per-device spec such as ``"cpu:gloo,cuda:nccl"``, which
    needs every named backend) can be used in this process: gloo and mpi (ember's CPU backend
    on MPI), not nccl/ucc/xccl.

    Args:
        backend (str): the backend name.
    """
    if ":" in backend:
        names = [part.split(":", 1)[1] for part in backend.lower().split(",") if part]
        return all(_single_available(n) for n in names)
    return _single_available(backend)


def get_backend_config(group: Any = None) -> str:
    """The backend configuration of ``group`` as PyTorch prints it: the per-device backends the
    group was made with (``backend=None``: ``"cpu:gloo"``, PyTorch's default without CUDA; a
    plain name such as ``"gloo"`` applies to every device: ``"cpu:gloo,cuda:gloo"``). ember
    runs every CPU backend on MPI.

    Args:
        group (ProcessGroup, optional): the group (the default group if None).
    """
    if group == GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    pg = resolve(group)
    if pg.rank() < 0:
        raise ValueError("Invalid process group specified")
    arg = getattr(pg, "_backend_arg", None)
    if arg is None:
        return "cpu:gloo"
    name = str(arg).lower()
    if ":" in name:
        return ",".join(part.strip() for part in name.split(",") if part.strip())
    name = str(Backend(name))
    return f"cpu:{name},cuda:{name}"


def supports_complex(reduceOp: Any) -> bool:  # noqa: N803 - PyTorch's argument name
    """Whether ``reduceOp`` can reduce complex tensors: all but MAX, MIN, PRODUCT and the
    bitwise ones.

    Args:
        reduceOp (ReduceOp): the reduction.
    """
    deny = (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT, ReduceOp.BAND, ReduceOp.BOR,
            ReduceOp.BXOR)
    op = reduceOp.op if isinstance(reduceOp, ReduceOp) else reduceOp
    return op not in deny
