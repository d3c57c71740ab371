"""Process groups: ``init_process_group`` and friends (torch.distributed's c10d API) on MPI.

The CPU backend is MPI; it answers to ``"mpi"`` and, so PyTorch scripts run unchanged, to
``"gloo"`` and the default. Each group owns a duplicate of MPI_COMM_WORLD (or a split of it),
so groups never see each other's messages.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlparse

from . import _mpi_boot
from ._mpi_backend import MPIGroupComm

default_pg_timeout = timedelta(seconds=1800)
_NOT_INIT = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")


class Backend(str):
    """A backend name, lower-cased (``Backend('GLOO') == 'gloo'``)."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    backend_list = [UNDEFINED, GLOO, NCCL, UCC, MPI, XCCL]
    default_device_backend_map = {"cpu": GLOO, "cuda": NCCL}

    def __new__(cls, name: str) -> Backend:
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, got {type(name)}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return super().__new__(cls, value)


def _check_backend(backend: Any) -> str:
    """The backend string after PyTorch's checks; MPI runs every CPU backend."""
    if backend is None:
        return Backend.GLOO
    name = str(backend).lower()
    per_device = dict(part.split(":", 1) for part in name.split(",") if ":" in part)
    if per_device:
        name = per_device.get("cpu", "")
        if not name:
            raise RuntimeError(f"init_process_group: backend {backend!r} names no CPU backend; "
                               "ember runs collectives on the CPU (use 'gloo' or 'mpi')")
    if name in ("nccl", "xccl", "ucc"):
        raise RuntimeError(
            f"init_process_group: the {name!r} backend needs GPU tensors, and this ember build "
            f"has no CUDA backend; use backend='gloo' or 'mpi' (the CPU backend, on MPI)")
    if name not in ("gloo", "mpi"):
        raise ValueError(f"Invalid backend: '{backend}'")
    return name


class ProcessGroup:
    """A group of ranks and its communicator."""

    def __init__(self, comm: MPIGroupComm | None, ranks: list[int], backend: str,
                 timeout: timedelta, name: str, desc: str = "") -> None:
        self._comm = comm
        self._ranks = ranks
        self._backend = backend
        self._timeout = timeout
        self.group_name = name
        self.group_desc = desc or name
        self.bound_device_id = None
        self._debug_detail = _detail()
        self._backend_arg: Any = None  # init_process_group's/new_group's backend argument

    def rank(self) -> int:
        """This process's rank within the group."""
        return self._comm.rank() if self._comm is not None else -1

    def size(self) -> int:
        """The number of ranks in the group."""
        return len(self._ranks)

    def name(self) -> str:
        """The backend's name (``"gloo"``, ``"mpi"``...)."""
        return self._backend

    @property
    def ranks(self) -> list[int]:
        return list(self._ranks)

    def __repr__(self) -> str:
        return f"ProcessGroup(ranks={self._ranks}, backend={self._backend!r})"

    def _mpi(self) -> MPIGroupComm:
        assert self._comm is not None
        return self._comm


def _detail() -> bool:
    """Whether the debug level is DETAIL (an unknown TORCH_DISTRIBUTED_DEBUG value is OFF here:
    get_debug_level reports it)."""
    from ._debug import get_debug_level

    try:
        return get_debug_level().name == "DETAIL"
    except ValueError:
        return False


class GroupMember:
    """``GroupMember.WORLD`` (the default group) and ``NON_GROUP_MEMBER``."""

    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = -100


class _World:
    """The process's distributed state (the default group, every group made since)."""

    def __init__(self) -> None:
        self.default: ProcessGroup | None = None
        self.store: Any = None
        self.groups: list[ProcessGroup] = []
        self.generation = 0
        self.backend = ""


_world = _World()


def is_initialized() -> bool:
    """Whether ``init_process_group`` has set up the default group."""
    return _world.default is not None


def _default() -> ProcessGroup:
    if _world.default is None:
        raise ValueError(_NOT_INIT)
    return _world.default


def resolve(group: Any) -> ProcessGroup:
    """``group`` or the default group (PyTorch's error when none exists)."""
    if group is None or group is GroupMember.WORLD:
        return _default()
    if isinstance(group, ProcessGroup):
        _default()
        return group
    raise TypeError(f"expected a ProcessGroup or None for 'group', got {type(group).__name__}")


def _as_seconds(timeout: Any) -> timedelta:
    if timeout is None:
        return default_pg_timeout
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, "
                        f"got {type(timeout)}")
    return timeout


def _env(name: str) -> str:
    value = os.environ.get(name)
    if value is None:
        raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: "
                         f"environment variable {name} expected, but not set")
    return value


def _store_for(init_method: str | None, rank: int, world_size: int,
               timeout: timedelta) -> tuple[Any, int, int]:
    """(store, rank, world_size) from the init method, PyTorch's rendezvous rules."""
    from .store import FileStore

    if init_method is None:
        init_method = "env://"
    url = urlparse(init_method)
    query = {k: v[0] for k, v in parse_qs(url.query).items()}
    if "rank" in query and rank == -1:
        rank = int(query["rank"])
    if "world_size" in query and world_size == -1:
        world_size = int(query["world_size"])
    if url.scheme == "env":
        if rank == -1:
            rank = int(_env("RANK"))
        if world_size == -1:
            world_size = int(_env("WORLD_SIZE"))
        host, port = _env("MASTER_ADDR"), int(_env("MASTER_PORT"))
        agent = os.environ.get("TORCHELASTIC_USE_AGENT_STORE", "").lower() == "true"
        store = _tcp_store(host, port, world_size, rank == 0 and not agent, timeout)
        if agent:  # the launcher's store: keys of this restart round only, as torchrun's workers
            from .store import PrefixStore

            store = PrefixStore(f"/worker/attempt_{os.environ.get('TORCHELASTIC_RESTART_COUNT', '0')}",
                                store)
    elif url.scheme == "tcp":
        if rank == -1 or world_size == -1:
            raise ValueError("rank and world_size must be given (arguments or the URL's query) "
                             f"for init_method {init_method!r}")
        store = _tcp_store(url.hostname, url.port, world_size, rank == 0, timeout)
    elif url.scheme == "file":
        if rank == -1 or world_size == -1:
            raise ValueError("rank and world_size must be given (arguments or the URL's query) "
                             f"for init_method {init_method!r}")
        store = FileStore(url.path, world_size)
    else:
        raise ValueError(f"Unsupported init_method {init_method!r}: use env://, tcp:// or file://")
    return store, rank, world_size


_tcp_stores: dict[tuple, Any] = {}


def _tcp_store(host: str, port: int, world_size: int, is_master: bool, timeout: timedelta) -> Any:
    """One TCPStore per address for the life of the process: a re-init after
    destroy_process_group reuses it (under a new key prefix) instead of racing a closing
    server for the port."""
    from .store import TCPStore

    key = (host, port, world_size, is_master)
    if key not in _tcp_stores:
        _tcp_stores[key] = TCPStore(host, port, world_size, is_master=is_master, timeout=timeout)
    return _tcp_stores[key]


def init_process_group(backend: Any = None, init_method: str | None = None,
                       timeout: timedelta | None = None, world_size: int = -1, rank: int = -1,
                       store: Any = None, group_name: str = "", pg_options: Any = None,
                       device_id: Any = None) -> None:
    """Join the job: the default process group of ``world_size`` ranks (torch's signature)."""
    if _world.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = _check_backend(backend)
    tmo = _as_seconds(timeout)
    if store is not None and init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    if store is not None:
        if world_size <= 0:
            raise ValueError("world_size must be positive if using store")
        if rank < 0:
            raise ValueError("rank must be non-negative if using store")
    elif init_method is None and _mpi_boot.under_mpi_launcher() and (
            "MASTER_ADDR" not in os.environ or "RANK" not in os.environ):
        rs = _mpi_boot.launcher_rank_size()
        if rs is not None:
            rank = rs[0] if rank == -1 else rank
            world_size = rs[1] if world_size == -1 else world_size
    else:
        store, rank, world_size = _store_for(init_method, rank, world_size, tmo)
    if store is not None:
        from .store import PrefixStore

        # Each init round gets fresh keys, so a store (or a launcher's) can be reused.
        gen = store.add("ember/init_generation/" + str(rank), 1)
        store = PrefixStore(f"default_pg/{gen}/", store)
    world = _mpi_boot.boot(rank, world_size, store, tmo.total_seconds())
    if rank == -1 or world_size == -1:
        rank, world_size = world.Get_rank(), world.Get_size()
    comm = MPIGroupComm(world.Dup(), tmo.total_seconds(), "ProcessGroupMPI")
    pg = ProcessGroup(comm, list(range(world_size)), name, tmo, group_name or "0")
    pg._backend_arg = backend  # what get_backend_config reports (the string as given)
    _world.default, _world.store, _world.backend = pg, store, name
    _world.groups = [pg]
    GroupMember.WORLD = pg


def destroy_process_group(group: Any = None) -> None:
    """Destroy ``group`` (None: every group, after which ``is_initialized()`` is False)."""
    if group is None or group is GroupMember.WORLD:
        for pg in _world.groups:
            _free(pg)
        _world.default, _world.store, _world.groups = None, None, []
        GroupMember.WORLD = None
        return
    if group == GroupMember.NON_GROUP_MEMBER:
        return
    pg = resolve(group)
    _free(pg)
    if pg in _world.groups:
        _world.groups.remove(pg)


def _free(pg: ProcessGroup) -> None:
    if pg._comm is not None and _mpi_boot.check_failed() is None:
        try:
            pg._comm.comm.Free()
        except Exception:  # noqa: BLE001 - a broken communicator needs no freeing
            pass
    pg._comm = None


def new_group(ranks: list[int] | None = None, timeout: timedelta | None = None, backend: Any = None,
              pg_options: Any = None, use_local_synchronization: bool = False,
              group_desc: str | None = None, device_id: Any = None, sort_ranks: bool = True) -> Any:
    """A group of ``ranks`` (all ranks of the default group call it, members or not, unless
    ``use_local_synchronization``); non-members get ``GroupMember.NON_GROUP_MEMBER``."""
    world = _default()
    size = world.size()
    members = list(range(size)) if ranks is None else [int(r) for r in ranks]
    for r in members:
        if not 0 <= r < size:
            raise ValueError(f"The new group's rank should be within the world_size set by "
                             f"init_process_group, but got rank {r} (world size {size})")
    if len(set(members)) != len(members):
        raise ValueError(f"new_group: duplicate ranks in {members}")
    if sort_ranks:
        members = sorted(members)
    name = _check_backend(backend) if backend is not None else world.name()
    tmo = _as_seconds(timeout) if timeout is not None else world._timeout
    me = world.rank()
    MPI = _mpi_boot.mpi()
    base = world._mpi().comm
    if use_local_synchronization:
        if me not in members:
            return GroupMember.NON_GROUP_MEMBER
        sub = base.Create_group(base.Get_group().Incl(members))
    else:
        color = 0 if me in members else MPI.UNDEFINED
        sub = base.Split(color, members.index(me) if me in members else 0)
        if me not in members:
            return GroupMember.NON_GROUP_MEMBER
    _world.generation += 1
    pg = ProcessGroup(MPIGroupComm(sub, tmo.total_seconds(), "ProcessGroupMPI"), members, name,
                      tmo, str(_world.generation), group_desc or "")
    pg._backend_arg = backend if backend is not None else getattr(world, "_backend_arg", None)
    _world.groups.append(pg)
    return pg


def new_subgroups(group_size: int | None = None, group: Any = None, timeout: timedelta | None = None,
                  backend: Any = None, pg_options: Any = None,
                  group_desc: str | None = None) -> tuple[Any, list[Any]]:
    """Equal consecutive subgroups of ``group_size`` ranks: (this rank's subgroup, all)."""
    size = get_world_size()
    group_size = group_size or 1
    if group_size <= 0:
        raise ValueError("The arg 'group_size' must be positive")
    if size % group_size != 0:
        raise ValueError(f"The world size ({size}) must be divisible by 'group_size={group_size}'")
    return new_subgroups_by_enumeration(
        [list(range(i, i + group_size)) for i in range(0, size, group_size)], timeout, backend,
        pg_options, group_desc)


def new_subgroups_by_enumeration(ranks_per_subgroup_list: list[list[int]],
                                 timeout: timedelta | None = None, backend: Any = None,
                                 pg_options: Any = None,
                                 group_desc: str | None = None) -> tuple[Any, list[Any]]:
    """Creates one process group per list of global ranks in ``ranks_per_subgroup_list`` (every rank
    must call it).

    Returns:
        (this rank's subgroup, the list of every subgroup).
    """
    if not ranks_per_subgroup_list:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    me, mine, groups = get_rank(), None, []
    for ranks in ranks_per_subgroup_list:
        g = new_group(ranks, timeout, backend, pg_options, group_desc=group_desc)
        groups.append(g)
        if me in ranks:
            if mine is not None:
                raise ValueError(f"Rank {me} has appeared in both subgroup {mine.ranks} and {ranks}")
            mine = g
    return mine, groups


def get_rank(group: Any = None) -> int:
    """This process's rank in ``group`` (the global rank for the default group); -1 if it is not a member.

    Args:
        group (ProcessGroup, optional): the group (the default group if None).
    """
    if group == GroupMember.NON_GROUP_MEMBER:
        return -1
    return resolve(group).rank()


def get_world_size(group: Any = None) -> int:
    """The number of ranks in ``group`` (all processes for the default group).

    Args:
        group (ProcessGroup, optional): the group (the default group if None).
    """
    if group == GroupMember.NON_GROUP_MEMBER:
        return -1
    return resolve(group).size()


def get_backend(group: Any = None) -> Backend:
    """The backend of ``group`` (a ``Backend`` string such as ``"gloo"``).

    Args:
        group (ProcessGroup, optional): the group (the default group if None).
    """
    if group == GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    return Backend(resolve(group).name())


def get_process_group_ranks(group: Any) -> list[int]:
    """The global ranks of every member of ``group``, in group-rank order."""
    return resolve(group).ranks


def get_pg_count() -> int:
    """How many process groups this process made (the default one included)."""
    return _world.generation + (1 if _world.default is not None else 0)


def _get_all_pg_configs() -> list[dict[str, Any]]:
    """Each live group this rank belongs to, as the profiler's `distributedInfo.pg_config` lists it."""
    return [{"pg_name": pg.group_name, "pg_desc": "default_pg" if pg is _world.default else pg.group_desc,
             "backend_config": f"cpu:{pg.name()}", "pg_size": pg.size(), "ranks": pg.ranks}
            for pg in _world.groups]


def get_global_rank(group: Any, group_rank: int) -> int:
    """The global rank of the rank ``group_rank`` of ``group``."""
    ranks = resolve(group).ranks
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {ranks}")
    return ranks[group_rank]


def get_group_rank(group: Any, global_rank: int) -> int:
    """The rank within ``group`` of the process whose global rank is ``global_rank``."""
    ranks = resolve(group).ranks
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {ranks}")
    return ranks.index(global_rank)


def get_node_local_rank(fallback_rank: int | None = None) -> int:
    """This process's rank on its machine, from the launcher's ``LOCAL_RANK`` variable
    (``fallback_rank`` if unset, else an error)."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank "
                       "to allow `get_node_local_rank` to work, assuming you are not running "
                       "in a multi-device context and want the code to run locally instead.")
