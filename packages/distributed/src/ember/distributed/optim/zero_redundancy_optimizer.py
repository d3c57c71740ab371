"""``ZeroRedundancyOptimizer`` (ZeRO stage 1): each rank keeps the optimizer state of only its
share of the parameters.

As PyTorch's: the parameters of each group are partitioned greedily, largest first, each going
to the rank with the fewest elements so far; every rank builds a local optimizer over its share,
steps it, then every parameter is broadcast from its owner. ``state_dict`` needs a preceding
``consolidate_state_dict(to)``, which gathers each rank's local state on rank ``to``; the
consolidated state uses the global parameter indices of an ordinary optimizer.
"""

from __future__ import annotations

import copy
import io
from collections.abc import Callable
from itertools import chain
from typing import Any

import ember
from ember.optim import Optimizer

from .. import collectives as C
from ..algorithms.join import Join, Joinable, JoinHook
from ..object_collectives import broadcast_object_list
from ..process_group import GroupMember, get_global_rank, get_rank, get_world_size


def _copy_tensors(value: Any) -> Any:
    """``value`` with every tensor in it copied (lists, tuples and dicts walked)."""
    if isinstance(value, ember.Tensor):
        return value.detach().clone()
    if isinstance(value, (list, tuple)):
        out = [_copy_tensors(v) for v in value]
        return out if isinstance(value, list) else tuple(out)
    if isinstance(value, dict):
        return {k: _copy_tensors(v) for k, v in value.items()}
    return value


class _ZeROJoinHook(JoinHook):
    """A joined rank still takes part in the parameter broadcasts of the ranks still stepping."""

    def __init__(self, zero: ZeroRedundancyOptimizer) -> None:
        self.zero = zero

    def main_hook(self) -> None:
        """Shadows one ``step``: the parameter broadcasts."""
        self.zero._sync_params()


class ZeroRedundancyOptimizer(Optimizer, Joinable):
    """Wraps ``optimizer_class`` so each rank of ``process_group`` holds the optimizer state of a
    shard of the parameters only (ZeRO); ``step`` updates the shard and broadcasts it.

    Args:
        params: the parameters (Tensors) or parameter groups (dicts), the same on every rank.
        optimizer_class (type): the local optimizer's class, e.g. ``ember.optim.Adam``.
        process_group (ProcessGroup, optional): the group sharing the state (the default group).
        parameters_as_bucket_view (bool): keep each rank's parameters in one flat buffer and
            broadcast that buffer (one collective per rank) instead of each parameter.
        overlap_with_ddp (bool): overlapping the step with DDP's backward is not implemented.
        **defaults: the local optimizer's arguments (``lr``...).
    """

    def __init__(self, params: Any, optimizer_class: type[Optimizer], process_group: Any = None,
                 parameters_as_bucket_view: bool = False, overlap_with_ddp: bool = False,
                 **defaults: Any) -> None:
        if overlap_with_ddp:
            raise NotImplementedError("ember: ZeroRedundancyOptimizer(overlap_with_ddp=True) is "
                                      "not implemented")
        params = self._verify_and_init_params(params)
        self._verify_same_dense_param_type()
        self.initialized = False
        Optimizer.__init__(self, params, defaults)
        self._partition_cache: list[list[dict[str, Any]]] = []
        self._param_to_rank_cache: dict[Any, int] = {}
        self._index_cache: list[Any] = []
        self._is_trainable_mask = self._get_is_trainable_mask()
        self.process_group = process_group if process_group is not None else GroupMember.WORLD
        self.world_size: int = get_world_size(self.process_group)
        self.rank: int = get_rank(self.process_group)
        self.global_rank: int = get_global_rank(self.process_group, self.rank) \
            if self.process_group is not None else self.rank
        self._overlap_with_ddp = False
        self._optim_defaults = defaults
        self._optim_constructor = optimizer_class
        self._init_local_optimizer()
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self._buckets: list[Any] = []
        self._build_param_buckets()
        self._all_state_dicts: list[dict[str, Any]] = []
        self.initialized = True

    # -- checks ----------------------------------------------------------------------------
    def _verify_and_init_params(self, params: Any) -> list[Any]:
        if isinstance(params, ember.Tensor):
            raise TypeError("`params` argument should be an iterable of Tensors, but got "
                            f"{ember.typename(params)}")
        try:
            all_params = list(params)
        except TypeError as e:
            raise TypeError("`params` argument should be an iterable of Tensors or dicts, but "
                            f"got {ember.typename(params)}") from e
        if len(all_params) == 0:
            raise ValueError("ZeroRedundancyOptimizer got an empty parameter list")
        all_tensors = all(isinstance(p, ember.Tensor) for p in all_params)
        all_dicts = all(isinstance(p, dict) for p in all_params)
        if not all_tensors and not all_dicts:
            raise TypeError("`params` argument should be an iterable of Tensors or dicts")
        if all_tensors:
            self._all_params = all_params
        else:
            self._all_params = []
            for group in all_params:
                if "params" not in group:
                    raise ValueError("Each parameter group passed-in via `params` must have a "
                                     "'params' key mapping to the parameters in the group")
                self._all_params.extend(group["params"])
        return all_params

    def _verify_same_dense_param_type(self) -> None:
        typename = ember.typename(self._all_params[0])
        for param in self._all_params[1:]:
            other = ember.typename(param)
            if other != typename:
                raise ValueError("ZeroRedundancyOptimizer only supports using the same dense "
                                 f"type for all parameters but got both {typename} and {other}")

    def _get_is_trainable_mask(self) -> list[bool]:
        return [bool(p.requires_grad) for p in self._all_params]

    # -- partition -------------------------------------------------------------------------
    def _clear_cache(self) -> None:
        self._partition_cache = []
        self._param_to_rank_cache = {}
        self._index_cache = []

    def _partition_parameters(self) -> list[list[dict[str, Any]]]:
        """Per rank, its param groups: copies of the global groups holding its parameters."""
        if not self._partition_cache:
            self._partition_cache = [[] for _ in range(self.world_size)]
            sizes = [0] * self.world_size
            for group in self.param_groups:
                per_rank: list[list[Any]] = [[] for _ in range(self.world_size)]
                # Largest first, each to the least loaded rank (the lowest rank on a tie).
                for param in sorted(group["params"], key=lambda t: t.numel(), reverse=True):
                    rank = sizes.index(min(sizes))
                    per_rank[rank].append(param)
                    sizes[rank] += param.numel()
                for rank, ps in enumerate(per_rank):
                    rank_group = copy.copy(group)
                    rank_group["params"] = ps
                    self._partition_cache[rank].append(rank_group)
        return self._partition_cache

    @property
    def _param_to_rank(self) -> dict[Any, int]:
        if not self._param_to_rank_cache:
            for rank, groups in enumerate(self._partition_parameters()):
                for group in groups:
                    for p in group["params"]:
                        self._param_to_rank_cache[p] = rank
        return self._param_to_rank_cache

    @property
    def _index_to_param(self) -> list[Any]:
        if not self._index_cache:
            self._index_cache = list(chain.from_iterable(g["params"] for g in self.param_groups))
        return self._index_cache

    def _param_index(self, param: Any) -> int:
        for i, p in enumerate(self._index_to_param):
            if p is param:
                return i
        raise KeyError("parameter not managed by this optimizer")

    def _init_local_optimizer(self) -> None:
        groups = self._partition_parameters()[self.rank]
        self.optim: Optimizer = self._optim_constructor(groups, **self._optim_defaults)
        self._sync_param_groups(self.optim.param_groups, self.param_groups)

    # -- parameter groups ------------------------------------------------------------------
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a parameter group (call it on every rank): the new parameters are partitioned
        and this rank's share joins its local optimizer.

        Args:
            param_group (dict): the parameters (``"params"``) and their options.
        """
        super().add_param_group(param_group)
        if self.initialized:
            self._clear_cache()
            groups = self._partition_parameters()[self.rank]
            if len(groups) == len(self.optim.param_groups) + 1:
                self.optim.add_param_group(groups[-1])
            if self.parameters_as_bucket_view:
                self._build_param_buckets()

    @staticmethod
    def _sync_param_groups(src: list[dict[str, Any]], dst: list[dict[str, Any]]) -> None:
        """Copies every option but ``params`` from ``src``'s groups to ``dst``'s."""
        if len(src) != len(dst):
            raise AssertionError("Mismatch between number of source and destination parameter "
                                 "groups")
        for s, d in zip(src, dst):
            for k in s:
                if k != "params":
                    d[k] = s[k]

    # -- buckets ---------------------------------------------------------------------------
    def _build_param_buckets(self) -> None:
        """With ``parameters_as_bucket_view``: each rank's trainable parameters become views
        into one flat tensor (one per rank), broadcast whole by ``step``."""
        if not self.parameters_as_bucket_view:
            return
        self._buckets = []
        for groups in self._partition_parameters():
            trainable = [p for g in groups for p in g["params"] if p.requires_grad]
            if not trainable:
                self._buckets.append(ember.empty(0, dtype=self._all_params[0].dtype))
                continue
            bucket = ember.empty(sum(p.numel() for p in trainable), dtype=trainable[0].dtype)
            off = 0
            with ember.no_grad():
                for p in trainable:
                    n = p.numel()
                    bucket[off:off + n].copy_(p.data.reshape(-1))
                    p.data = bucket[off:off + n].view(p.shape)
                    off += n
            self._buckets.append(bucket)

    # -- stepping --------------------------------------------------------------------------
    def _broadcast_params_from_rank(self, rank: int) -> list[Any]:
        src = get_global_rank(self.process_group, rank) if self.process_group is not None \
            else rank
        if self.parameters_as_bucket_view:
            bucket = self._buckets[rank]
            if bucket.numel() == 0:
                return []
            return [C.broadcast(bucket, src=src, group=self.process_group, async_op=True)]
        return [C.broadcast(p.data, src=src, group=self.process_group, async_op=True)
                for g in self._partition_parameters()[rank] for p in g["params"]]

    def _sync_params(self) -> None:
        """Every parameter from its owner to every rank."""
        handles = []
        for rank in range(self.world_size):
            handles.extend(self._broadcast_params_from_rank(rank))
        for h in handles:
            if h is not None:
                h.wait()

    def _local_step(self, closure: Callable[[], Any] | None = None, **kwargs: Any) -> Any:
        Join.notify_join_context(self)
        mask = self._get_is_trainable_mask()
        if mask != self._is_trainable_mask:
            self._build_param_buckets()
            self._is_trainable_mask = mask
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
        loss = self.optim.step(**kwargs) if closure is None else \
            self.optim.step(closure=closure, **kwargs)
        self._sync_param_groups(self.optim.param_groups, self.param_groups)
        return loss

    def step(self, closure: Callable[[], Any] | None = None, **kwargs: Any) -> Any:
        """Steps this rank's shard with the local optimizer, then broadcasts every parameter
        from its owner.

        Args:
            closure (callable, optional): recomputes the loss, for the local optimizer.

        Returns:
            The local optimizer's result (the closure's loss, if any).
        """
        loss = self._local_step(closure=closure, **kwargs)
        self._sync_params()
        return loss

    # -- Join ------------------------------------------------------------------------------
    def join_hook(self, **kwargs: Any) -> JoinHook:
        """The hook with which a rank that ran out of inputs shadows the others' broadcasts."""
        return _ZeROJoinHook(self)

    @property
    def join_device(self) -> Any:
        """The device of the parameters (CPU)."""
        return self._all_params[0].device

    @property
    def join_process_group(self) -> Any:
        """The group the state is sharded over."""
        return self.process_group

    # -- state dicts -----------------------------------------------------------------------
    def consolidate_state_dict(self, to: int = 0) -> None:
        """Gathers every rank's local optimizer state on group rank ``to`` (call it on every
        rank), for a following ``state_dict()`` there.

        Args:
            to (int): the group rank that receives the states.
        """
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
        self._all_state_dicts = []
        for rank in range(self.world_size):
            if rank == to:  # the receiver's own state needs no message
                if self.rank == to:
                    self._all_state_dicts.append(_copy_tensors(self.optim.state_dict()))
                continue
            # A broadcast from each other rank (PyTorch's choice, which every backend has).
            src = get_global_rank(self.process_group, rank) if self.process_group is not None \
                else rank
            obj: list[bytes | None] = [_to_bytes(self.optim.state_dict()) if rank == self.rank
                                       else None]
            broadcast_object_list(obj, src=src, group=self.process_group)
            if self.rank == to:
                self._all_state_dicts.append(_from_bytes(obj[0] or b""))

    def state_dict(self) -> dict[str, Any]:
        """The whole optimizer's state with global parameter indices, as an ordinary optimizer
        over all the parameters would give it; needs ``consolidate_state_dict`` on this rank
        first (and is as recent as that call)."""
        if len(self._all_state_dicts) == 0:
            raise RuntimeError("Optimizer state has not been consolidated on this rank. Please "
                               f"call `consolidate_state_dict(to={self.rank})` on all ranks "
                               "beforehand if you meant to save the global state.")
        state_dict = super().state_dict()
        for rank, local in enumerate(self._all_state_dicts):
            for local_group, global_group in zip(local["param_groups"],
                                                 self._partition_parameters()[rank]):
                for local_index, param in zip(local_group["params"], global_group["params"]):
                    if local_index in local["state"]:
                        state_dict["state"][self._param_index(param)] = local["state"][local_index]
        state_dict["state"] = dict(sorted(state_dict["state"].items()))
        return state_dict

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a ``state_dict()`` (global indices): this rank keeps the state of its own
        parameters in its local optimizer.

        Args:
            state_dict (dict): a state from ``state_dict()``.
        """
        for index, value in list(state_dict["state"].items()):
            param = self._index_to_param[index]
            if self._param_to_rank[param] != self.rank:
                state_dict["state"][index] = None
            else:
                self.optim.state[param] = _copy_tensors(value)
        super().load_state_dict(state_dict)
        self._sync_param_groups(state_dict["param_groups"], self.param_groups)
        self._sync_param_groups(self.param_groups, self.optim.param_groups)


def _to_bytes(obj: Any) -> bytes:
    buf = io.BytesIO()
    ember.save(obj, buf)
    return buf.getvalue()


def _from_bytes(data: bytes) -> Any:
    return ember.load(io.BytesIO(data), weights_only=False)
