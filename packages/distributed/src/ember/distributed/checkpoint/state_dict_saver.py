"""``save`` and ``async_save``: every rank calls them with its own (possibly sharded) state
dict. Steps: local plans -> the coordinator's global plan and metadata -> each rank writes
its items -> the coordinator commits ``.metadata`` (last). Any rank's failure becomes a
``CheckpointException`` on all ranks; a dead rank makes the others' collectives time out."""

from __future__ import annotations

import os
import threading
import warnings
from concurrent.futures import Future
from enum import Enum
from typing import Any

import ember.distributed as dist

from ._storage_utils import _storage_setup
from .default_planner import DefaultSavePlanner
from .metadata import Metadata
from .planner import SavePlan, SavePlanner
from .stateful import Stateful
from .storage import StorageWriter, WriteResult
from .utils import _DistWrapper

__all__ = ["AsyncCheckpointerType", "async_save", "save", "save_state_dict"]


class AsyncCheckpointerType(Enum):
    THREAD = "thread"
    PROCESS = "process"


def _no_dist(no_dist: bool) -> bool:
    return no_dist or not dist.is_available() or not dist.is_initialized()


def _stateful_to_state_dict(state_dict: dict[str, Any]) -> dict[str, Any]:
    return {k: v.state_dict() if isinstance(v, Stateful) else v for k, v in state_dict.items()}


def save(state_dict: dict[str, Any], *, checkpoint_id: str | os.PathLike | None = None,
         storage_writer: StorageWriter | None = None, planner: SavePlanner | None = None,
         process_group: Any = None, no_dist: bool = False, use_collectives: bool = True) -> Metadata:
    """Save ``state_dict`` (each rank passes its own) as a distributed checkpoint."""
    no_dist = _no_dist(no_dist)
    if no_dist:
        warnings.warn("torch.distributed is disabled, unavailable or uninitialized, assuming the intent "
                      "is to save in a single process.", stacklevel=2)
    writer = _storage_setup(storage_writer, checkpoint_id, reader=False)
    return _save_state_dict(_stateful_to_state_dict(state_dict), writer, process_group, 0, no_dist,
                            planner, use_collectives)


def save_state_dict(state_dict: dict[str, Any], storage_writer: StorageWriter, process_group: Any = None,
                    coordinator_rank: int = 0, no_dist: bool = False, planner: SavePlanner | None = None) -> Metadata:
    """Deprecated spelling of ``save`` (kept for old scripts)."""
    warnings.warn("'save_state_dict' is deprecated and will be removed in future versions. "
                  "Please use 'save' instead.", FutureWarning, stacklevel=2)
    storage_writer.reset()
    return _save_state_dict(state_dict, storage_writer, process_group, coordinator_rank, no_dist, planner)


def _save_state_dict(state_dict: dict[str, Any], storage_writer: StorageWriter, process_group: Any = None,
                     coordinator_rank: int = 0, no_dist: bool = False, planner: SavePlanner | None = None,
                     use_collectives: bool = True) -> Metadata:
    distw = _DistWrapper(process_group, not no_dist, coordinator_rank)
    planner = planner if planner is not None else DefaultSavePlanner()
    global_metadata: Metadata | None = None

    def local_step() -> SavePlan:
        planner.set_up_planner(state_dict=state_dict, storage_meta=storage_writer.storage_meta(),
                               is_coordinator=distw.is_coordinator)
        storage_writer.set_up_storage_writer(distw.is_coordinator, rank=distw.rank,
                                             use_collectives=use_collectives)
        return storage_writer.prepare_local_plan(planner.create_local_plan())

    def global_step(all_local_plans: list[SavePlan]) -> list[SavePlan]:
        nonlocal global_metadata
        all_local_plans, global_metadata = planner.create_global_plan(all_local_plans)
        return storage_writer.prepare_global_plan(all_local_plans)

    def write_data() -> list[WriteResult]:
        final = planner.finish_plan(central_plan)
        fut = storage_writer.write_data(final, planner)
        return fut.result()

    def finish_checkpoint(all_results: list[list[WriteResult]]) -> Metadata:
        assert global_metadata is not None
        storage_writer.finish(metadata=global_metadata, results=all_results)
        return global_metadata

    if use_collectives:
        central_plan = distw.reduce_scatter("plan", local_step, global_step)
        return distw.all_reduce("write", write_data, finish_checkpoint)
    central_plan = global_step([local_step()])[0]
    metadata = finish_checkpoint([write_data()])
    distw.barrier()
    return metadata


_ASYNC_GROUPS: dict[Any, Any] = {}


def _async_group(process_group: Any) -> Any:
    """A private copy of ``process_group`` for the background writer, so its collectives never
    interleave with the training loop's on the same communicator (created once, collectively)."""
    key = id(process_group) if process_group is not None else None
    if key not in _ASYNC_GROUPS:
        ranks = dist.get_process_group_ranks(process_group) if process_group is not None else None
        _ASYNC_GROUPS[key] = dist.new_group(ranks=ranks)
    return _ASYNC_GROUPS[key]


def async_save(state_dict: dict[str, Any], *, checkpoint_id: str | os.PathLike | None = None,
               storage_writer: StorageWriter | None = None, planner: SavePlanner | None = None,
               process_group: Any = None,
               async_checkpointer_type: AsyncCheckpointerType = AsyncCheckpointerType.THREAD,
               async_stager: Any = None, no_dist: bool = False, use_collectives: bool = True) -> Future:
    """Stage ``state_dict`` to CPU now, write it in a background thread; returns a Future of the
    ``Metadata``. Call ``.result()`` before the next ``async_save``."""
    if async_checkpointer_type != AsyncCheckpointerType.THREAD:
        raise NotImplementedError("ember's async_save runs the writes in a thread "
                                  "(AsyncCheckpointerType.THREAD) only")
    no_dist = _no_dist(no_dist)
    writer = _storage_setup(storage_writer, checkpoint_id, reader=False)
    state_dict = _stateful_to_state_dict(state_dict)
    if async_stager is not None:
        staged = async_stager.stage(state_dict)
    elif hasattr(writer, "stage"):
        staged = writer.stage(state_dict)
    else:
        from .staging import copy_to_cpu

        staged = copy_to_cpu(state_dict)
    if hasattr(staged, "result"):
        staged = staged.result()
    group = None if no_dist else _async_group(process_group)
    fut: Future = Future()

    def run() -> None:
        try:
            fut.set_result(_save_state_dict(staged, writer, group, 0, no_dist, planner, use_collectives))
        except BaseException as e:  # noqa: BLE001 - handed to the caller through the Future
            fut.set_exception(e)

    threading.Thread(target=run, name="ember-dcp-async-save", daemon=True).start()
    return fut
