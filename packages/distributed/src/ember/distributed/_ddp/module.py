"""``DistributedDataParallel``: the wrapper that averages gradients over the group.

Construction checks that every rank holds the same parameter shapes and broadcasts rank 0's
parameters and buffers; forward re-broadcasts buffers and arms the reducer; backward averages
the gradients in buckets (reducer.py), overlapped with the rest of backward.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import ember
from ember import nn

from .. import collectives as C
from ..algorithms.join import Join, Joinable, JoinHook
from ..object_collectives import all_gather_object
from ..process_group import resolve
from .reducer import DEFAULT_BUCKET_BYTES, FIRST_BUCKET_BYTES, Reducer


class DistributedDataParallel(nn.Module, Joinable):
    """Data parallelism over a process group (torch.nn.parallel.DistributedDataParallel)."""

    def __init__(self, module: Any, device_ids: Any = None, output_device: Any = None,
                 dim: int = 0, broadcast_buffers: bool | None = None, init_sync: bool = True,
                 process_group: Any = None, bucket_cap_mb: float | None = None,
                 find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 delay_all_reduce_named_params: Any = None, param_to_hook_all_reduce: Any = None,
                 mixed_precision: Any = None, device_mesh: Any = None,
                 skip_all_reduce_unused_params: bool = False, **unused: Any) -> None:
        super().__init__()
        Joinable.__init__(self)
        if process_group is not None and device_mesh is not None:
            raise RuntimeError("Cannot specify both process_group and device_mesh arguments.")
        if device_mesh is not None:
            process_group = device_mesh.get_group()
        self.process_group = resolve(process_group)
        params = _unique_trainable(module)
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        if device_ids is not None or output_device is not None:
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with "
                "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                f"{device_ids}, output_device {output_device}, and module parameters "
                f"{ {p.device for p in params} }.")
        self.module = module
        self.device_ids = None
        self.output_device = None
        self.dim = dim
        self.broadcast_buffers = True if broadcast_buffers is None else broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.static_graph = static_graph
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = DEFAULT_BUCKET_BYTES if bucket_cap_mb is None \
            else int(bucket_cap_mb * 1024 * 1024)
        self._check_same_shapes(params)
        meta = [n for n, p in module.named_parameters() if p.is_meta]
        if meta and init_sync:
            # as torch (a RuntimeError from its initial broadcast): a meta parameter has no
            # values to send; init_sync=False lets it through there, so it does here too
            raise RuntimeError(f"DistributedDataParallel: parameters {meta} are on the meta "
                               "device; materialize them first (Module.to_empty and an init)")
        if init_sync:
            self._broadcast(list(params) + list(self._buffers_to_sync()))
        self.reducer = Reducer(params, self.process_group, self.bucket_bytes_cap,
                               FIRST_BUCKET_BYTES, find_unused_parameters or static_graph,
                               gradient_as_bucket_view)
        self._forwarded = False

    # -- construction -----------------------------------------------------------------------
    def _check_same_shapes(self, params: list[Any]) -> None:
        mine = [(tuple(p.shape), str(p.dtype)) for p in params]
        pg = C._member(self.process_group)
        everyone: list[Any] = [None] * pg.size()
        all_gather_object(everyone, mine, group=self.process_group)
        for r, theirs in enumerate(everyone):
            if len(theirs) != len(mine):
                raise RuntimeError(
                    f"DDP expects same model across all ranks, but Rank {pg.rank()} has "
                    f"{len(mine)} params, while rank {r} has inconsistent {len(theirs)} params.")
            for i, (a, b) in enumerate(zip(mine, theirs)):
                if tuple(a[0]) != tuple(b[0]) or a[1] != b[1]:
                    raise RuntimeError(
                        f"DDP expects same model across all ranks, but Rank {pg.rank()} has "
                        f"parameter {i} of shape {list(a[0])} ({a[1]}), while rank {r} has "
                        f"shape {list(b[0])} ({b[1]}).")

    def _buffers_to_sync(self) -> Iterator[Any]:
        return (b for b in self.module.buffers() if b is not None)

    def _broadcast(self, tensors: list[Any]) -> None:
        """Rank 0's values of ``tensors``: one flat broadcast per dtype."""
        by_dtype: dict[Any, list[Any]] = {}
        for t in tensors:
            by_dtype.setdefault(t.dtype, []).append(t)
        root = self.process_group.ranks[0]
        with ember.no_grad():
            for ts in by_dtype.values():
                flat = ember.cat([t.detach().reshape(-1) for t in ts])
                C.broadcast(flat, src=root, group=self.process_group)
                off = 0
                for t in ts:
                    t.detach().copy_(flat[off:off + t.numel()].view(t.shape))
                    off += t.numel()

    # -- forward ----------------------------------------------------------------------------
    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        Join.notify_join_context(self)
        sync = ember.is_grad_enabled() and self.require_backward_grad_sync
        if sync:
            self.reducer.check_finished()
        if self.broadcast_buffers and self.require_forward_param_sync and self.module.training:
            bufs = list(self._buffers_to_sync())
            if bufs:
                self._broadcast(bufs)
        out = self.module(*inputs, **kwargs)
        if sync:
            self.reducer.prepare(out)
        self._forwarded = True
        return out

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Backward inside accumulates local gradients; the first synced backward after it
        averages the accumulated sums."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    # -- hooks and options ------------------------------------------------------------------
    def register_comm_hook(self, state: Any, hook: Any) -> None:
        if self._forwarded:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be "
                               "called before the first forward pass of DDP.")
        if self.reducer.comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be "
                               "called once.")
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        self.reducer.comm_hook = (state, hook)

    def _set_static_graph(self) -> None:
        self.static_graph = True
        self.reducer.find_unused = True

    # -- Join -------------------------------------------------------------------------------
    def join(self, divide_by_initial_world_size: bool = True, enable: bool = True,
             throw_on_early_termination: bool = False) -> Join:
        return Join([self], enable, throw_on_early_termination,
                    divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs: Any) -> JoinHook:
        return _DDPJoinHook(self)

    @property
    def join_device(self) -> Any:
        return ember.device("cpu")

    @property
    def join_process_group(self) -> Any:
        return self.process_group


class _DDPJoinHook(JoinHook):
    """A joined rank's part of one iteration of the others: buffers and zero gradients."""

    def __init__(self, ddp: DistributedDataParallel) -> None:
        self.ddp = ddp

    def main_hook(self) -> None:
        d = self.ddp
        if d.broadcast_buffers and d.module.training:
            bufs = list(d._buffers_to_sync())
            if bufs:
                d._broadcast(bufs)
        r = d.reducer
        for b in r.buckets:
            b.buffer.zero_()
            C.all_reduce(b.buffer, group=d.process_group)
        if r.find_unused:
            C.all_reduce(ember.zeros(len(r.params), dtype=ember.uint8), op=C.ReduceOp.MAX,
                         group=d.process_group)

    def post_hook(self, is_last_joiner: bool) -> None:
        """Every rank ends with the last joiner's parameters."""
        d = self.ddp
        me = ember.tensor([float(d.process_group.rank() if is_last_joiner else -1)])
        C.all_reduce(me, op=C.ReduceOp.MAX, group=d.process_group)
        src = d.process_group.ranks[int(me.item())]
        with ember.no_grad():
            for p in d.module.parameters():
                C.broadcast(p.detach(), src=src, group=d.process_group)


def _unique_trainable(module: Any) -> list[Any]:
    seen: set[int] = set()
    out = []
    for p in module.parameters():
        if p.requires_grad and id(p) not in seen:
            seen.add(id(p))
            out.append(p)
    return out
