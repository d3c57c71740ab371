"""``load``: in place. Each rank passes a state dict whose tensors already have the target
shapes and shardings; DCP reads only the saved chunks overlapping each rank's pieces and
copies them in (resharding). Non-tensor values are replaced in the caller's dict;
``Stateful`` values get ``load_state_dict`` afterwards."""

from __future__ import annotations

import os
import warnings
from typing import Any

from ._storage_utils import _storage_setup
from .default_planner import DefaultLoadPlanner
from .metadata import Metadata
from .planner import LoadPlan, LoadPlanner
from .state_dict_saver import _no_dist
from .stateful import Stateful
from .storage import StorageReader
from .utils import _DistWrapper

__all__ = ["load", "load_state_dict"]


def load(state_dict: dict[str, Any], *, checkpoint_id: str | os.PathLike | None = None,
         storage_reader: StorageReader | None = None, planner: LoadPlanner | None = None,
         process_group: Any = None, no_dist: bool = False) -> None:
    """Load a distributed checkpoint into ``state_dict`` in place (every rank calls it)."""
    no_dist = _no_dist(no_dist)
    if no_dist:
        warnings.warn("torch.distributed is disabled, unavailable or uninitialized, assuming the intent "
                      "is to load in a single process.", stacklevel=2)
    reader = _storage_setup(storage_reader, checkpoint_id, reader=True)
    keys = sorted(state_dict.keys())
    staged = {k: state_dict[k].state_dict() if isinstance(state_dict[k], Stateful) else state_dict[k]
              for k in keys}
    _load_state_dict(staged, reader, process_group, 0, no_dist, planner)
    for k in keys:
        elem = state_dict[k]
        if isinstance(elem, Stateful):
            elem.load_state_dict(staged[k])
        else:
            state_dict[k] = staged[k]


def load_state_dict(state_dict: dict[str, Any], storage_reader: StorageReader, process_group: Any = None,
                    coordinator_rank: int = 0, no_dist: bool = False, planner: LoadPlanner | None = None) -> None:
    """Deprecated spelling of ``load``."""
    warnings.warn("'load_state_dict' is deprecated and will be removed in future versions. "
                  "Please use 'load' instead.", FutureWarning, stacklevel=2)
    storage_reader.reset()
    _load_state_dict(state_dict, storage_reader, process_group, coordinator_rank, no_dist, planner)


def _load_state_dict(state_dict: dict[str, Any], storage_reader: StorageReader, process_group: Any = None,
                     coordinator_rank: int = 0, no_dist: bool = False, planner: LoadPlanner | None = None) -> None:
    distw = _DistWrapper(process_group, not no_dist, coordinator_rank)
    planner = planner if planner is not None else DefaultLoadPlanner()

    use_collectives = True

    def local_step() -> LoadPlan:
        nonlocal use_collectives
        try:
            metadata: Metadata = storage_reader.read_metadata()
        except FileNotFoundError:
            # Saved with use_collectives=False: each rank wrote its own __{rank}.metadata.
            try:
                metadata = storage_reader.read_metadata(rank=distw.rank)
            except FileNotFoundError:
                metadata = None  # type: ignore[assignment]
            if metadata is None:
                raise
            use_collectives = False
        planner.set_up_planner(state_dict, metadata, distw.is_coordinator)
        storage_reader.set_up_storage_reader(metadata, distw.is_coordinator, rank=distw.rank,
                                             use_collectives=use_collectives)
        return storage_reader.prepare_local_plan(planner.create_local_plan())

    def global_step(all_local_plans: list[LoadPlan]) -> list[LoadPlan]:
        return storage_reader.prepare_global_plan(planner.create_global_plan(all_local_plans))

    central_plan: LoadPlan = distw.reduce_scatter("plan", local_step, global_step)

    def read_data() -> None:
        final = planner.finish_plan(central_plan)
        storage_reader.read_data(final, planner).result()

    distw.all_gather("read", read_data)
