"""The default save and load planners.

Save: every rank lists its tensor chunks (a DTensor's local shard, or a whole plain tensor)
and pickled objects; the coordinator keeps each replicated item on one rank only (the one
with the least data so far, or the lowest rank), then records every chunk in ``Metadata``.
Load: every rank intersects the chunks it needs (its target tensors' local pieces) with the
saved chunks, giving read items that copy only the overlapping regions: that is resharding."""

from __future__ import annotations

import dataclasses
import io
import math
from collections import defaultdict
from typing import Any

import ember

from . import _dtensor as D
from ._traverse import FLATTEN_MAPPING, flatten_state_dict, set_element
from .metadata import (
    BytesStorageMetadata,
    ChunkStorageMetadata,
    Metadata,
    MetadataIndex,
    StorageMeta,
    TensorProperties,
    TensorStorageMetadata,
)
from .planner import (
    LoadItemType,
    LoadPlan,
    LoadPlanner,
    ReadItem,
    SavePlan,
    SavePlanner,
    TensorWriteData,
    WriteItem,
    WriteItemType,
)

__all__ = ["DefaultLoadPlanner", "DefaultSavePlanner", "create_default_global_save_plan",
           "create_default_local_load_plan", "create_default_local_save_plan"]


def _write_items(fqn: str, obj: Any) -> list[WriteItem]:
    if isinstance(obj, ember.Tensor) or D.is_dtensor(obj):
        offsets, sizes = D.tensor_chunk(obj)
        if 0 in sizes and obj.numel() != 0:
            return []  # an empty trailing shard of an uneven split holds nothing to save
        props = TensorProperties.create_from_tensor(D.local_tensor(obj))
        return [WriteItem(index=MetadataIndex(fqn, offsets), type=WriteItemType.SHARD if D.is_dtensor(obj)
                          else WriteItemType.TENSOR,
                          tensor_data=TensorWriteData(ChunkStorageMetadata(ember.Size(offsets), ember.Size(sizes)),
                                                      props, ember.Size(obj.shape)))]
    return [WriteItem(index=MetadataIndex(fqn), type=WriteItemType.BYTE_IO)]


def create_default_local_save_plan(state_dict: dict[str, Any], is_coordinator: bool) -> SavePlan:
    items: list[WriteItem] = []
    for fqn, obj in state_dict.items():
        items += _write_items(fqn, obj)
    return SavePlan(items)


def dedup_save_plans(all_plans: list[SavePlan], save_to_lowest_rank: bool = False) -> list[SavePlan]:
    """Keep each item that several ranks would write on one of them only."""
    holders: dict[MetadataIndex, list[int]] = defaultdict(list)
    first: dict[MetadataIndex, WriteItem] = {}
    for rank, plan in enumerate(all_plans):
        for item in plan.items:
            holders[item.index].append(rank)
            first.setdefault(item.index, item)
    load = [0] * len(all_plans)
    owner: dict[MetadataIndex, int] = {}
    for index, ranks in holders.items():
        pick = ranks[0] if save_to_lowest_rank else min(ranks, key=lambda r: load[r])
        load[pick] += first[index].tensor_storage_size() or 1
        owner[index] = pick
    return [dataclasses.replace(plan, items=[it for it in plan.items if owner[it.index] == rank])
            for rank, plan in enumerate(all_plans)]


def create_default_global_save_plan(all_plans: list[SavePlan], rewrite_index_hints: bool = True
                                    ) -> tuple[list[SavePlan], Metadata]:
    """Record every chunk in the metadata; give each item its chunk's position as hint."""
    md: dict[str, Any] = {}
    new_plans = []
    for plan in all_plans:
        new_items = []
        for item in plan.items:
            if item.type == WriteItemType.BYTE_IO:
                md[item.index.fqn] = BytesStorageMetadata()
                new_items.append(item)
                continue
            td = item.tensor_data
            entry = md.setdefault(item.index.fqn, TensorStorageMetadata(td.properties, td.size, []))
            if not isinstance(entry, TensorStorageMetadata):
                raise ValueError(f"{item.index.fqn!r} is a tensor on one rank and an object on another")
            if entry.size != td.size:
                raise ValueError(f"{item.index.fqn!r} has global shape {tuple(td.size)} on one rank "
                                 f"and {tuple(entry.size)} on another")
            if rewrite_index_hints:
                item = dataclasses.replace(item, index=dataclasses.replace(item.index, index=len(entry.chunks)))
            entry.chunks.append(td.chunk)
            new_items.append(item)
        new_plans.append(dataclasses.replace(plan, items=new_items))
    return new_plans, Metadata(md)


def _chunks_cover(md: TensorStorageMetadata) -> bool:
    """The chunks tile the tensor: in bounds, pairwise disjoint, total volume = the tensor's."""
    boxes = [c for c in md.chunks if math.prod(c.sizes)]
    if any(o < 0 or o + s > g for c in boxes for o, s, g in zip(c.offsets, c.sizes, md.size)):
        return False
    if sum(math.prod(c.sizes) for c in boxes) != math.prod(md.size):
        return False
    if len(boxes) <= 256:  # disjointness; with equal volume it also proves full coverage
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                if all(ao < bo + bs and bo < ao + as_ for ao, as_, bo, bs in
                       zip(a.offsets, a.sizes, b.offsets, b.sizes)):
                    return False
    return True


class DefaultSavePlanner(SavePlanner):
    mappings: FLATTEN_MAPPING

    def __init__(self, flatten_state_dict: bool = True, flatten_sharded_tensors: bool = True,
                 dedup_replicated_tensors: bool | None = None, dedup_save_to_lowest_rank: bool = False,
                 enable_plan_caching: bool = False) -> None:
        self.flatten_state_dict = flatten_state_dict
        self.flatten_sharded_tensors = flatten_sharded_tensors
        self.mappings = {}
        self.dedup_save_to_lowest_rank = dedup_save_to_lowest_rank
        self._enable_plan_caching = enable_plan_caching

    def set_up_planner(self, state_dict: dict[str, Any], storage_meta: StorageMeta | None = None,
                       is_coordinator: bool = False) -> None:
        if self.flatten_state_dict:
            state_dict, self.mappings = flatten_state_dict(state_dict)
        self.state_dict = state_dict
        self.storage_meta = storage_meta
        self.is_coordinator = is_coordinator

    def create_local_plan(self) -> SavePlan:
        plan = create_default_local_save_plan(self.state_dict, self.is_coordinator)
        if self.flatten_state_dict:
            plan = dataclasses.replace(plan, planner_data=self.mappings)
        self.plan = plan
        return plan

    def create_global_plan(self, all_plans: list[SavePlan]) -> tuple[list[SavePlan], Metadata]:
        all_plans = dedup_save_plans(all_plans, self.dedup_save_to_lowest_rank)
        global_plan, metadata = create_default_global_save_plan(all_plans)
        if self.flatten_state_dict:
            merged: dict[str, Any] = {}
            for p in global_plan:
                merged.update(p.planner_data or {})
            metadata = dataclasses.replace(metadata, planner_data=merged)
        for fqn, md in metadata.state_dict_metadata.items():
            if isinstance(md, TensorStorageMetadata) and not _chunks_cover(md):
                raise ValueError(f"DCP save: the chunks of {fqn!r} saved by the ranks do not tile its "
                                 f"global shape {tuple(md.size)} exactly (overlapping or missing shards)")
        self.global_plan = global_plan
        self.metadata = metadata
        return global_plan, metadata

    def finish_plan(self, new_plan: SavePlan) -> SavePlan:
        self.plan = new_plan
        return new_plan

    def lookup_object(self, index: MetadataIndex) -> Any:
        return find_state_dict_object(self.state_dict, index)

    def transform_object(self, write_item: WriteItem, obj: Any) -> Any:
        if write_item.type == WriteItemType.BYTE_IO:
            buf = io.BytesIO()
            ember.save(obj, buf)
            return buf
        return obj

    def resolve_data(self, write_item: WriteItem) -> Any:
        return self.transform_object(write_item, self.lookup_object(write_item.index))


def find_state_dict_object(state_dict: dict[str, Any], index: MetadataIndex) -> Any:
    if index.fqn not in state_dict:
        raise ValueError(f"Could not find FQN: '{index.fqn}'")
    obj = state_dict[index.fqn]
    if isinstance(obj, ember.Tensor) or D.is_dtensor(obj):
        return D.local_tensor(obj)
    return obj


def _overlap(saved: ChunkStorageMetadata, want_off: list[int], want_size: list[int]
             ) -> tuple[list[int], list[int], list[int]] | None:
    """(offset in saved chunk, offset in wanted piece, lengths) of their overlap, or None."""
    s_off, d_off, lens = [], [], []
    for so, ss, wo, ws in zip(saved.offsets, saved.sizes, want_off, want_size):
        lo, hi = max(so, wo), min(so + ss, wo + ws)
        if hi <= lo:
            return None
        s_off.append(lo - so)
        d_off.append(lo - wo)
        lens.append(hi - lo)
    return s_off, d_off, lens


def create_read_items_for_chunk_list(fqn: str, md: TensorStorageMetadata, offsets: list[int],
                                     sizes: list[int]) -> list[ReadItem]:
    items: list[ReadItem] = []
    if 0 in sizes:  # an empty target needs no bytes
        return items
    for idx, saved in enumerate(md.chunks):
        ov = _overlap(saved, offsets, sizes)  # a 0-d tensor overlaps its one chunk trivially
        if ov is None:
            continue
        s_off, d_off, lens = ov
        items.append(ReadItem(type=LoadItemType.TENSOR, dest_index=MetadataIndex(fqn, offsets, 0),
                              dest_offsets=ember.Size(d_off),
                              storage_index=MetadataIndex(fqn, saved.offsets, idx),
                              storage_offsets=ember.Size(s_off), lengths=ember.Size(lens)))
    return items


def create_default_local_load_plan(state_dict: dict[str, Any], metadata: Metadata,
                                   strict: bool = True) -> LoadPlan:
    requests: list[ReadItem] = []
    for fqn, obj in state_dict.items():
        if fqn not in metadata.state_dict_metadata:
            if strict:
                raise RuntimeError(f"Missing key in checkpoint state_dict: {fqn}.")
            continue
        md = metadata.state_dict_metadata[fqn]
        is_tensor = isinstance(obj, ember.Tensor) or D.is_dtensor(obj)
        if isinstance(md, TensorStorageMetadata) and is_tensor:
            if tuple(obj.shape) != tuple(md.size):
                raise ValueError(f"Size mismatch between saved {ember.Size(md.size)} and current: "
                                 f"{ember.Size(obj.shape)} for {fqn}")
            offsets, sizes = D.tensor_chunk(obj)
            requests += create_read_items_for_chunk_list(fqn, md, offsets, sizes)
        elif isinstance(md, BytesStorageMetadata) and not is_tensor:
            requests.append(ReadItem(type=LoadItemType.BYTE_IO, dest_index=MetadataIndex(fqn),
                                     dest_offsets=ember.Size([0]), storage_index=MetadataIndex(fqn),
                                     storage_offsets=ember.Size([0]), lengths=ember.Size([0])))
        elif is_tensor:
            raise ValueError(f"{fqn} was saved as a non-tensor object but the state dict to load "
                             f"holds a tensor")
        else:
            raise ValueError(f"{fqn} was saved as a tensor of shape {tuple(md.size)} but the state "
                             f"dict to load holds a {type(obj).__name__}; pass a tensor of that shape")
    return LoadPlan(requests)


class DefaultLoadPlanner(LoadPlanner):
    original_state_dict: dict[str, Any]
    mappings: FLATTEN_MAPPING

    def __init__(self, flatten_state_dict: bool = True, flatten_sharded_tensors: bool = True,
                 allow_partial_load: bool = False) -> None:
        self.flatten_state_dict = flatten_state_dict
        self.flatten_sharded_tensors = flatten_sharded_tensors
        self.original_state_dict = {}
        self.mappings = {}
        self.allow_partial_load = allow_partial_load

    def set_up_planner(self, state_dict: dict[str, Any], metadata: Metadata | None = None,
                       is_coordinator: bool = False) -> None:
        self.original_state_dict = state_dict
        if self.flatten_state_dict:
            state_dict, self.mappings = flatten_state_dict(state_dict)
        self.state_dict = state_dict
        self.metadata = metadata
        self.is_coordinator = is_coordinator

    def create_local_plan(self) -> LoadPlan:
        if self.metadata is None:
            raise AssertionError("self.metadata is not None")
        return create_default_local_load_plan(self.state_dict, self.metadata, not self.allow_partial_load)

    def create_global_plan(self, global_plan: list[LoadPlan]) -> list[LoadPlan]:
        return global_plan

    def finish_plan(self, new_plan: LoadPlan) -> LoadPlan:
        return new_plan

    def load_bytes(self, read_item: ReadItem, value: io.BytesIO) -> None:
        obj = ember.load(value, weights_only=False)
        fqn = read_item.dest_index.fqn
        if self.flatten_state_dict:
            set_element(self.original_state_dict, self.mappings[fqn], obj)
        else:
            self.state_dict[fqn] = obj

    def lookup_tensor(self, index: MetadataIndex) -> Any:
        return find_state_dict_object(self.state_dict, index)

    def transform_tensor(self, read_item: ReadItem, tensor: Any) -> Any:
        return narrow_tensor_by_index(tensor, read_item.dest_offsets, read_item.lengths)

    def resolve_tensor(self, read_item: ReadItem) -> Any:
        return self.transform_tensor(read_item, self.lookup_tensor(read_item.dest_index))

    def commit_tensor(self, read_item: ReadItem, tensor: Any) -> None:
        pass


def narrow_tensor_by_index(tensor: Any, offsets: Any, sizes: Any) -> Any:
    """The region ``[offsets, offsets + sizes)`` of ``tensor`` (a view)."""
    for d, (o, s) in enumerate(zip(offsets, sizes)):
        if o != 0 or s != tensor.shape[d]:
            tensor = tensor.narrow(d, o, s)
    return tensor


class _EmptyStateDictLoadPlanner(DefaultLoadPlanner):
    """Loads a whole checkpoint (or the given ``keys``) without a template: the state dict is
    rebuilt from the metadata (fresh tensors of the saved shapes). One process only: it
    holds everything."""

    def __init__(self, keys: Any = None, *args: Any, **kwargs: Any) -> None:
        self.keys = keys
        super().__init__(*args, **kwargs)

    def _should_include_key(self, key: str, metadata: Metadata) -> bool:
        if self.keys is None or key in self.keys:
            return True
        path = (metadata.planner_data or {}).get(key, ())
        prefixes = [".".join(map(str, path[:i + 1])) for i in range(len(path))]
        return any(p in self.keys for p in prefixes)

    def set_up_planner(self, state_dict: dict[str, Any], metadata: Metadata | None = None,
                       is_coordinator: bool = False) -> None:
        if state_dict:
            raise AssertionError("not state_dict")
        if metadata is None:
            raise AssertionError("metadata is not None")
        for k, v in metadata.state_dict_metadata.items():
            if not self._should_include_key(k, metadata):
                continue
            if isinstance(v, TensorStorageMetadata):
                v = ember.empty(tuple(v.size), dtype=v.properties.dtype)
            if metadata.planner_data is not None and k in metadata.planner_data:
                set_element(state_dict, metadata.planner_data[k], v)
            else:
                state_dict[k] = v
        super().set_up_planner(state_dict, metadata, is_coordinator)
