"""The deprecated coalesced collectives: several tensors in one all-reduce or all-gather.

Each packs its tensors into one flat buffer, runs one collective, and unpacks; PyTorch warns
(FutureWarning) that both are to be removed, and so does ember.
"""

from __future__ import annotations

import warnings
from typing import Any

import ember

from . import collectives as C
from ._work import Future
from .process_group import GroupMember
from .reduce_op import ReduceOp, as_reduce_op

_DOCS = "https://pytorch.org/docs/main/distributed.html#collective-functions"


def _same_dtype(tensors: list[Any]) -> None:
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise ValueError("Invalid usage of tensors with different dtypes"
                             f"Found {tensors[0].dtype} and  {t.dtype}")


def _tensor_list(ts: Any, name: str) -> list[Any]:
    """PyTorch's check (and message) that ``ts`` is a list of tensors."""
    if not isinstance(ts, list):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"List[torch.Tensor]\n             but got {type(ts)} instead.")
    if not all(isinstance(t, ember.Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"List[torch.Tensor]\n             but got {type(ts)} with elements of "
                        f"type {[type(t) for t in ts]}.")
    return ts


def _done(work: Any, async_op: bool, result: Any) -> Any:
    """PyTorch returns the Work's Future with async_op (not the Work itself)."""
    if async_op:
        fut = Future()
        if work is not None:
            work.wait()
        fut.set_result(result)
        return fut
    if work is not None:
        work.wait()
    return None


def all_reduce_coalesced(tensors: Any, op: Any = ReduceOp.SUM, group: Any = None,
                         async_op: bool = False) -> Any:
    """Reduces every tensor of ``tensors`` across the group in one all-reduce (deprecated).

    Args:
        tensors (list of Tensor or Tensor): the inputs, reduced in place; one dtype for all.
        op (ReduceOp): how values combine.
        group (ProcessGroup, optional): the group (the default group if None).
        async_op (bool): return a ``Future`` of the tensors instead of waiting.

    Returns:
        A ``Future`` with ``async_op``, else None.
    """
    warnings.warn("`torch.distributed.all_reduce_coalesced` will be deprecated. If you must use "
                  f"it, please revisit our documentation later at {_DOCS}", FutureWarning,
                  stacklevel=2)
    if isinstance(tensors, ember.Tensor):
        tensors = [tensors]
    _tensor_list(tensors, "tensor")
    _same_dtype(tensors)
    if group == GroupMember.NON_GROUP_MEMBER or C._member(group) is None:
        return None
    red = as_reduce_op(op, "all_reduce_coalesced")
    if not tensors:
        return _done(None, async_op, tensors)
    flat = ember.cat([t.reshape(-1) for t in tensors])
    work = C.all_reduce(flat, op=red, group=group, async_op=True)
    if work is not None:
        work.wait()
    off = 0
    for t in tensors:
        t.copy_(flat[off:off + t.numel()].reshape(t.shape))
        off += t.numel()
    return _done(None, async_op, tensors)


def all_gather_coalesced(output_tensor_lists: Any, input_tensor_list: Any, group: Any = None,
                         async_op: bool = False) -> Any:
    """Gathers every tensor of ``input_tensor_list`` from every rank in one all-gather
    (deprecated): ``output_tensor_lists[r][i]`` receives rank ``r``'s ``input_tensor_list[i]``.

    Args:
        output_tensor_lists (list of list of Tensor): one list per rank, shaped as the inputs.
        input_tensor_list (list of Tensor): this rank's tensors (one dtype).
        group (ProcessGroup, optional): the group (the default group if None).
        async_op (bool): return a ``Future`` instead of waiting.

    Returns:
        A ``Future`` with ``async_op``, else None.
    """
    warnings.warn("`torch.distributed.all_gather_coalesced` will be deprecated. If you must use "
                  f"it, please revisit our documentation later at {_DOCS}", FutureWarning,
                  stacklevel=2)
    if group == GroupMember.NON_GROUP_MEMBER or C._member(group) is None:
        return None
    _tensor_list(input_tensor_list, "input_tensor_list")
    _same_dtype(input_tensor_list)
    if not isinstance(output_tensor_lists, list):
        raise TypeError("Invalid function argument: output_tensor_lists should be a list")
    for out in output_tensor_lists:
        _tensor_list(out, "output_tensor_lists")
        _same_dtype(out)
    pg = C._member(group)
    assert pg is not None
    if len(output_tensor_lists) != pg.size():
        raise RuntimeError(f"all_gather_coalesced: output_tensor_lists must have one list per "
                           f"rank ({pg.size()}), got {len(output_tensor_lists)}")
    flat = ember.cat([t.reshape(-1) for t in input_tensor_list])
    every = ember.empty(flat.numel() * pg.size(), dtype=flat.dtype)
    C.all_gather_into_tensor(every, flat, group=group)
    for r, outs in enumerate(output_tensor_lists):
        if len(outs) != len(input_tensor_list):
            raise RuntimeError("all_gather_coalesced: each output list must hold one tensor per "
                               "input tensor")
        off = r * flat.numel()
        for o, i in zip(outs, input_tensor_list):
            if o.numel() != i.numel():
                raise RuntimeError("all_gather_coalesced: output tensor sizes must match the "
                                   "input tensors'")
            o.copy_(every[off:off + i.numel()].reshape(o.shape))
            off += i.numel()
    return _done(None, async_op, output_tensor_lists)
