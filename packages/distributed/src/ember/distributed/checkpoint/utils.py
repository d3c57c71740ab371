"""The collective steps of a save or load, with failures gathered instead of raised.

Each step runs a function on every rank and catches what it raises; the coordinator sees
all outcomes, so one failing rank turns into the same ``CheckpointException`` on every rank
(no rank is left waiting in a collective). A rank that dies or stalls makes the others'
collective fail with the process group's timeout (DistBackendError), never a hang."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import ember.distributed as dist

from .api import CheckpointException, _is_wrapped_exception, _wrap_exception

T = TypeVar("T")
R = TypeVar("R")


def _failures(results: list[Any]) -> dict[int, Any]:
    return {i: r for i, r in enumerate(results) if _is_wrapped_exception(r)}


class _DistWrapper:
    """Object collectives over ``group`` (or plain local calls when ``use_dist`` is False)."""

    def __init__(self, group: Any, use_dist: bool, coordinator_rank: int) -> None:
        self.group = group
        self.use_dist = use_dist
        self.coordinator_rank = coordinator_rank
        if use_dist:
            self.global_coordinator_rank = (dist.get_global_rank(group, coordinator_rank)
                                            if group is not None else coordinator_rank)
            self.rank = dist.get_rank(group)
            self.is_coordinator = self.rank == coordinator_rank
        else:
            self.global_coordinator_rank = 0
            self.rank = 0
            self.is_coordinator = True

    def get_rank(self) -> int:
        return self.rank

    def get_world_size(self) -> int:
        return dist.get_world_size(self.group) if self.use_dist else 1

    def broadcast_object(self, obj: T | None) -> T:
        box = [obj]
        if self.use_dist:
            dist.broadcast_object_list(box, src=self.global_coordinator_rank, group=self.group)
        return box[0]  # type: ignore[return-value]

    def gather_object(self, obj: T) -> list[T] | None:
        if not self.use_dist:
            return [obj]
        out: list[Any] | None = [None] * self.get_world_size() if self.is_coordinator else None
        dist.gather_object(obj, out, dst=self.global_coordinator_rank, group=self.group)
        return out

    def all_gather_object(self, obj: T) -> list[T]:
        if not self.use_dist:
            return [obj]
        out: list[Any] = [None] * self.get_world_size()
        dist.all_gather_object(out, obj, group=self.group)
        return out

    def scatter_object(self, objs: list[T] | None) -> T:
        if not self.use_dist:
            assert objs is not None
            return objs[0]
        out: list[Any] = [None]
        dist.scatter_object_list(out, objs if self.is_coordinator else None,
                                 src=self.global_coordinator_rank, group=self.group)
        return out[0]

    def barrier(self) -> None:
        if self.use_dist:
            dist.barrier(group=self.group)

    @staticmethod
    def _run(fn: Callable[..., T], *args: Any) -> Any:
        try:
            return fn(*args)
        except BaseException as e:  # noqa: BLE001 - every failure travels to the coordinator
            if isinstance(e, KeyboardInterrupt):
                raise
            return _wrap_exception(e)

    def reduce_scatter(self, step: str, map_fun: Callable[[], T],
                       reduce_fun: Callable[[list[T]], list[R]]) -> R:
        """map on every rank -> gather -> reduce on the coordinator -> one result per rank."""
        local = self._run(map_fun)
        gathered = self.gather_object(local)
        scattered: list[Any] | None = None
        if self.is_coordinator:
            assert gathered is not None
            failed = _failures(gathered)
            if not failed:
                out = self._run(reduce_fun, gathered)
                failed = {self.rank: out} if _is_wrapped_exception(out) else {}
                if not failed and len(out) != len(gathered):
                    failed = {self.rank: _wrap_exception(RuntimeError(
                        f"{step}: the coordinator produced {len(out)} plans for {len(gathered)} ranks"))}
            scattered = [CheckpointException(step, failed)] * len(gathered) if failed else list(out)
        result = self.scatter_object(scattered)
        if isinstance(result, CheckpointException):
            raise result
        return result

    def all_reduce(self, step: str, map_fun: Callable[[], T], reduce_fun: Callable[[list[T]], R]) -> R:
        """map on every rank -> gather -> reduce on the coordinator -> broadcast its result."""
        local = self._run(map_fun)
        gathered = self.gather_object(local)
        result: Any = None
        if self.is_coordinator:
            assert gathered is not None
            failed = _failures(gathered)
            if not failed:
                result = self._run(reduce_fun, gathered)
                if _is_wrapped_exception(result):
                    failed = {self.rank: result}
            if failed:
                result = CheckpointException(step, failed)
        result = self.broadcast_object(result)
        if isinstance(result, CheckpointException):
            raise result
        return result

    def all_gather(self, step: str, map_fun: Callable[[], T]) -> list[T]:
        local = self._run(map_fun)
        results = self.all_gather_object(local)
        failed = _failures(results)
        if failed:
            raise CheckpointException(step, failed)
        return results

    def broadcast(self, step: str, map_fun: Callable[[], T]) -> T:
        result: Any = None
        if self.is_coordinator:
            result = self._run(map_fun)
        result = self.broadcast_object(result)
        if _is_wrapped_exception(result):
            raise CheckpointException(step, {self.coordinator_rank: result})
        return result
