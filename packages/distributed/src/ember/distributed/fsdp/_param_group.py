"""One ``fully_shard`` group: its parameters' shards in one flat buffer, the all-gather that
unshards them and the reduce-scatter that shards their gradients.

Layout: every parameter owns a slot of ceil(dim / n) rows in each rank's flat shard buffer
(torch.chunk's split, padded), and the sharded parameters are views into that buffer: the
optimizer updates them in place and the next all-gather sends the buffer as it is (no
copy-in unless mixed precision casts it). The all-gather output (rank-major) is copied out
once into a flat unsharded buffer that the unsharded parameters view. Gradients take the
reverse way: copied into a rank-major buffer, one reduce-scatter, and the sharded gradients
are views of its output.

Autograd: the unsharded parameters are the outputs of ``Unshard`` (inputs: the sharded
parameters), so its backward runs once every use of the group's parameters has its gradient
and does the reduce-scatter there. Resharding after forward frees the unsharded buffer: the
saved-tensor hooks (``_state``) replace saved views of it by their place in it, and backward
all-gathers again on the first use.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ember
from ember import Tensor
from ember.autograd import Function
from ember.nn import Parameter

from .. import collectives as C
from ..reduce_op import ReduceOp
from ..tensor._dtensor import DTensor, DTensorSpec
from ..tensor._utils import chunk_sizes
from ..tensor.placement_types import Replicate, Shard


class DTensorParameter(DTensor, Parameter):
    """A sharded parameter: a DTensor that modules register as a Parameter (named DTensor,
    as torch's ``nn.Parameter(dtensor)`` is)."""


DTensorParameter.__name__ = DTensorParameter.__qualname__ = "DTensor"
DTensorParameter.__module__ = "ember.distributed.tensor"


def _make_param(local: Tensor, spec: DTensorSpec, requires_grad: bool) -> DTensorParameter:
    p = Tensor._make_subclass(DTensorParameter, local, requires_grad)
    p._spec = spec
    return p


class ParamInfo:
    """One parameter of a group: where it lives on its module and in the flat buffers."""

    def __init__(self, owners: list[tuple[Any, str]], param: Tensor, dim: int, n: int,
                 rank: int) -> None:
        self.owners = owners  # (module, attribute name): more than one for a shared parameter
        self.shape = tuple(param.shape)
        self.dim = dim
        self.requires_grad = param.requires_grad
        self.dtype = param.dtype
        size = self.shape[dim]
        self.rest = math.prod(s for i, s in enumerate(self.shape) if i != dim)
        self.rows = -(-size // n) if size else 0  # rows of a rank's (padded) slot
        self.slot = self.rows * self.rest
        self.local_rows = chunk_sizes(size, n)[rank]
        self.local_shape = tuple(self.local_rows if i == dim else s for i, s in enumerate(self.shape))
        self.numel = math.prod(self.shape)
        self.offset = 0  # in the flat shard buffer (set by the group)
        self.full_offset = 0  # in the flat unsharded buffer
        self.sharded: DTensorParameter | None = None


class ParamGroup:
    """The parameters of one ``fully_shard`` call and their collectives."""

    def __init__(self, params: list[tuple[list[tuple[Any, str]], Tensor]], mesh: Any, shard_fn: Any,
                 mp: Any, post_forward_group: Any) -> None:
        self.mesh = mesh
        self.shard_dim = mesh.ndim - 1  # mesh dim the shards run along ((replicate, shard) = HSDP)
        self.shard_group = mesh.get_group(self.shard_dim)
        self.replicate_group = mesh.get_group(0) if mesh.ndim == 2 else None
        self.n = mesh.size(self.shard_dim)
        self.rank = mesh.get_local_rank(self.shard_dim)
        self.mp = mp
        self.post_forward_group = post_forward_group  # (group, size) for int reshard or None
        self.infos: list[ParamInfo] = []
        dtypes = {p.dtype for _, p in params}
        if len(dtypes) > 1:
            raise NotImplementedError(f"fully_shard: the parameters of one group must share a "
                                      f"dtype, got {sorted(str(d) for d in dtypes)}")
        for owners, p in params:
            name = owners[0][1]
            placement = shard_fn(p) if shard_fn is not None else None
            dim = 0 if placement is None else placement.dim
            if not isinstance(placement, (Shard, type(None))):
                raise ValueError(f"shard_placement_fn must return Shard or None, got {placement}")
            if p.dim() == 0:
                raise NotImplementedError(f"fully_shard: 0-d parameter {name!r} is not supported")
            dim %= p.dim()
            if dim != 0 and p.shape[dim] % self.n != 0:
                raise NotImplementedError(f"fully_shard: Shard({dim}) needs dim {dim} of "
                                          f"{name!r} (shape {tuple(p.shape)}) divisible by the "
                                          f"shard world size {self.n}")
            self.infos.append(ParamInfo(owners, p, dim, self.n, self.rank))
        self.dtype = params[0][1].dtype if params else ember.float32
        off = full_off = 0
        for info in self.infos:
            info.offset, info.full_offset = off, full_off
            off += info.slot
            full_off += info.numel
        self.slot_numel, self.full_numel = off, full_off
        self.placements = (Shard(0),) if mesh.ndim == 1 else (Replicate(), Shard(0))
        self._shard([p for _, p in params])
        # unshard state
        self.full: Tensor | None = None  # flat unsharded buffer (param dtype)
        self.unsharded: tuple[Tensor, ...] | None = None  # per-param views (graph outputs)
        self.pending: tuple[Any, Tensor, bool] | None = None  # (work, output, from piece)
        self.prefetched = False
        self.post_forward_shard: Tensor | None = None  # int reshard: this rank's piece
        self.grad_acc: list[Tensor | None] | None = None  # unsynced accumulated grads
        # settings (FSDPModule.set_*)
        self.requires_gradient_sync = True
        self.requires_all_reduce = True
        self.reshard_after_backward = True
        self.divide_factor: float | None = None
        self.all_reduce_hook: Callable[[Tensor], None] | None = None

    # -- sharding --------------------------------------------------------------------------
    def _shard(self, params: list[Tensor]) -> None:
        """Copy each parameter's chunk into the flat shard buffer; register DTensor params."""
        meta = [p.is_meta for p in params]
        if any(meta) and not all(meta):
            raise NotImplementedError("fully_shard: a group's parameters must be all on the meta "
                                      "device or all materialized, not a mix")
        # Parameters built under ``ember.device("meta")`` have no data: the flat shard is a meta
        # buffer as well, and ``reset_sharded`` (after ``Module.to_empty``) gives it memory.
        on_meta = bool(params) and all(meta)
        self.flat_shard = ember.zeros(self.slot_numel, dtype=self.dtype,
                                      device="meta" if on_meta else None)
        with ember.no_grad():
            for info, p in zip(self.infos, params):
                local = self.flat_shard[info.offset: info.offset + info.local_rows * info.rest]
                local = local.view(info.local_shape)
                if not on_meta:
                    full = p.detach()
                    chunk = full.narrow(info.dim, min(self.rank * info.rows,
                                                      info.shape[info.dim]), info.local_rows)
                    local.copy_(chunk)
                placements = tuple(Shard(info.dim) if isinstance(pl, Shard) else pl
                                   for pl in self.placements)
                spec = DTensorSpec(self.mesh, placements, info.shape)
                info.sharded = _make_param(local, spec, info.requires_grad)
        self._set_on_modules(tuple(i.sharded for i in self.infos))

    def reset_sharded(self) -> None:
        """After ``Module._apply`` (``to_empty``, ``to``, ``cpu``, ...) the modules hold new
        sharded parameters that no longer view the flat shard buffer the all-gather sends and
        the optimizer must update: copy their local shards into a fresh buffer on their device
        and register views of it again (torch's ``reset_sharded_param``)."""
        if not self.infos:
            return
        news = [info.owners[0][0]._parameters[info.owners[0][1]] for info in self.infos]
        if any(n is None for n in news):
            return
        meta = [n.is_meta for n in news]
        if any(meta) and not all(meta):
            # fully_shard([a, b]): ``a._apply`` ran, ``b``'s has not yet; its call resets
            return
        on_meta = all(meta)
        with ember.no_grad():
            shards = [n.to_local() if isinstance(n, DTensor) else n.detach() for n in news]
        for info, t in zip(self.infos, shards):
            if tuple(t.shape) != info.local_shape:
                raise RuntimeError(f"fully_shard: parameter {info.owners[0][1]!r} became a tensor "
                                   f"of shape {tuple(t.shape)}, expected its local shard's "
                                   f"{info.local_shape}")
        self.dtype = shards[0].dtype
        flat = ember.zeros(self.slot_numel, dtype=self.dtype,
                           device="meta" if on_meta else shards[0].device)
        with ember.no_grad():
            for info, t, n in zip(self.infos, shards, news):
                local = flat[info.offset: info.offset + info.local_rows * info.rest]
                local = local.view(info.local_shape)
                if not on_meta:
                    local.copy_(t)
                info.dtype = self.dtype
                assert info.sharded is not None
                grad = n.grad
                info.sharded = _make_param(local, info.sharded._spec, info.requires_grad)
                if grad is not None:
                    info.sharded.grad = grad
        self.flat_shard = flat
        self._set_on_modules(tuple(i.sharded for i in self.infos))

    def meta_names(self) -> list[Any]:
        """The (module, attribute) owners of this group's parameters still on the meta device."""
        return [i.owners[0] for i in self.infos if i.sharded is not None and i.sharded.is_meta]

    @property
    def param_dtype(self) -> Any:
        return self.mp.param_dtype or self.dtype

    @property
    def reduce_dtype(self) -> Any:
        return self.mp.reduce_dtype or self.mp.param_dtype or self.dtype

    # -- unshard ---------------------------------------------------------------------------
    def start_all_gather(self, prefetch: bool = False) -> None:
        """Issue the (async) all-gather of the shards unless they are gathered or on the way."""
        if self.full is not None or self.pending is not None or not self.infos:
            return
        self.prefetched = prefetch
        if self.post_forward_shard is not None:
            group, k = self.post_forward_group
            out = ember.empty(k * self.post_forward_shard.numel(), dtype=self.param_dtype)
            work = C.all_gather_into_tensor(out, self.post_forward_shard, group=group,
                                            async_op=True)
            self.pending = (work, out, True)
            return
        send = self.flat_shard if self.param_dtype == self.dtype else self.flat_shard.to(
            self.param_dtype)
        out = ember.empty(self.n * self.slot_numel, dtype=self.param_dtype)
        work = C.all_gather_into_tensor(out, send, group=self.shard_group, async_op=True)
        self.pending = (work, out, False)

    def drop_prefetch(self) -> None:
        """Forget an all-gather a prefetch started (its values may predate an optimizer step)."""
        if self.pending is not None and self.prefetched:
            self.pending[0].wait()
            self.pending = None

    def wait_all_gather(self) -> Tensor:
        """The flat unsharded buffer, all-gathering first if needed."""
        if self.full is not None:
            return self.full
        self.start_all_gather()
        work, out, from_post_forward = self.pending
        self.pending = None
        work.wait()
        if from_post_forward:
            self.full = out[: self.full_numel]
            self.post_forward_shard = None
            return self.full
        full = ember.empty(self.full_numel, dtype=self.param_dtype)
        ranks = out.view(self.n, self.slot_numel)
        with ember.no_grad():
            for info in self.infos:
                dst = full[info.full_offset: info.full_offset + info.numel].view(info.shape)
                src = ranks[:, info.offset: info.offset + info.slot]
                _copy_out(dst, src, info, self.n)
        self.full = full
        return full

    def unsharded_views(self) -> tuple[Tensor, ...]:
        full = self.wait_all_gather()
        return tuple(full[i.full_offset: i.full_offset + i.numel].view(i.shape) for i in self.infos)

    def register_unsharded(self) -> None:
        """Unshard and put the unsharded parameters on their modules (autograd-connected
        outputs of ``Unshard`` when grad mode records)."""
        if not self.infos:
            return
        if self.unsharded is not None and self.full is not None:
            self._set_on_modules(self.unsharded)
            return
        self.wait_all_gather()
        sharded = [i.sharded for i in self.infos]
        if ember.is_grad_enabled() and any(p.requires_grad for p in sharded):
            outs = Unshard.apply(self, *sharded)
            outs = outs if isinstance(outs, tuple) else (outs,)
        else:
            outs = self.unsharded_views()
        self.unsharded = tuple(outs)
        self._set_on_modules(self.unsharded)

    def _set_on_modules(self, tensors: tuple[Tensor, ...]) -> None:
        for info, t in zip(self.infos, tensors):
            for owner, name in info.owners:
                owner._parameters[name] = t

    def reshard(self, keep_post_forward: bool = False) -> None:
        """Free the unsharded buffer (keep this rank's piece for an int reshard_after_forward)
        and put the sharded parameters back on their modules."""
        if self.pending is not None:
            self.wait_all_gather()
        if keep_post_forward and self.post_forward_group is not None and self.full is not None:
            group, k = self.post_forward_group
            piece = -(-self.full_numel // k)
            padded = ember.zeros(piece * k, dtype=self.param_dtype)
            padded[: self.full_numel].copy_(self.full.detach())
            j = group.rank()
            self.post_forward_shard = padded[j * piece: (j + 1) * piece].clone()
        self.full = None
        self.unsharded = None
        self._set_on_modules(tuple(i.sharded for i in self.infos))

    # -- gradients -------------------------------------------------------------------------
    def post_backward(self, grads: tuple[Tensor | None, ...]) -> tuple[Tensor | None, ...]:
        """Reduce-scatter the unsharded grads into sharded grads (or accumulate them unsynced)."""
        grads = tuple(None if g is None or not i.requires_grad else g
                      for g, i in zip(grads, self.infos))
        if self.grad_acc is not None:
            grads = tuple(a if g is None else (g if a is None else a + g)
                          for a, g in zip(self.grad_acc, grads))
            self.grad_acc = None
        if not self.requires_gradient_sync:
            self.grad_acc = [None if g is None else g.to(self.reduce_dtype) for g in grads]
            if self.reshard_after_backward:
                self.reshard()
            return tuple(None for _ in grads)
        if all(g is None for g in grads):
            self.reshard() if self.reshard_after_backward else None
            return grads
        send = ember.empty(self.n * self.slot_numel, dtype=self.reduce_dtype)
        ranks = send.view(self.n, self.slot_numel)
        with ember.no_grad():
            for info, g in zip(self.infos, grads):
                dst = ranks[:, info.offset: info.offset + info.slot]
                if g is None:
                    dst.zero_()
                else:
                    _copy_in(dst, g, info, self.n)
        out = ember.empty(self.slot_numel, dtype=self.reduce_dtype)
        C.reduce_scatter_tensor(out, send, op=ReduceOp.SUM, group=self.shard_group)
        if self.replicate_group is not None and self.requires_all_reduce:
            C.all_reduce(out, group=self.replicate_group)
        factor = self.divide_factor if self.divide_factor is not None else (
            self.n * (self.replicate_group.size() if self.replicate_group is not None else 1))
        if factor != 1:
            out.div_(factor)
        if self.all_reduce_hook is not None:
            self.all_reduce_hook(out)
        if out.dtype != self.dtype:
            out = out.to(self.dtype)
        if self.reshard_after_backward:
            self.reshard()
        return tuple(None if g is None else out[i.offset: i.offset + i.local_rows * i.rest]
                     .view(i.local_shape) for i, g in zip(self.infos, grads))


def _copy_out(dst: Tensor, src: Tensor, info: ParamInfo, n: int) -> None:
    """Rank-major gathered slots (n, slot) -> the parameter's full tensor."""
    rows, size = info.rows, info.shape[info.dim]
    if info.dim != 0:  # even shards along another dim: (n, local...) -> move n next to dim
        parts = src.reshape((n,) + info.local_shape)
        split = info.shape[:info.dim] + (n, rows) + info.shape[info.dim + 1:]
        dst.view(split).movedim(info.dim, 0).copy_(parts)
        return
    if rows == 0:
        return
    rest = info.shape[1:]
    whole = size // rows  # ranks holding a full slot
    if whole:
        dst[: whole * rows].view((whole, rows) + rest).copy_(src[:whole].view((whole, rows) + rest))
    left = size - whole * rows
    if left:
        dst[whole * rows:].copy_(src[whole, : left * info.rest].view((left,) + rest))


def _copy_in(dst: Tensor, g: Tensor, info: ParamInfo, n: int) -> None:
    """A full gradient -> the rank-major slots (n, slot), zero in the padding."""
    rows, size = info.rows, info.shape[info.dim]
    if info.dim != 0:
        split = info.shape[:info.dim] + (n, rows) + info.shape[info.dim + 1:]
        dst.view((n,) + info.local_shape).copy_(g.reshape(split).movedim(info.dim, 0))
        return
    if rows == 0:
        return
    rest = info.shape[1:]
    whole = size // rows
    if whole:
        dst[:whole].view((whole, rows) + rest).copy_(g[: whole * rows].view((whole, rows) + rest))
    left = size - whole * rows
    if whole < n:
        tail = dst[whole]
        if left:
            tail[: left * info.rest].copy_(g[whole * rows:].reshape(-1))
        tail[left * info.rest:].zero_()
        if whole + 1 < n:
            dst[whole + 1:].zero_()


class Unshard(Function):
    """Sharded parameters -> unsharded parameters (already gathered by the group); backward:
    the group's reduce-scatter."""

    @staticmethod
    def forward(ctx: Any, group: ParamGroup, *sharded: Tensor) -> tuple[Tensor, ...]:
        ctx.group = group
        return group.unsharded_views()

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple[Any, ...]:
        group: ParamGroup = ctx.group
        return (None,) + group.post_backward(tuple(g.contiguous() if g is not None else None
                                                   for g in grads))
