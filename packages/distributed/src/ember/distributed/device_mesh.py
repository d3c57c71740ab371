"""``DeviceMesh``: the ranks of a job laid out as an n-d array, one process group per mesh dim.

A mesh dim's groups are the 1-d slices of the rank array along that dim; every rank belongs to
exactly one of them. All slices of a dim are made by one ``MPI_Comm_split`` (a color per slice)
instead of one collective ``new_group`` per slice; a 1-d mesh over the whole job is the
default group itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ember

from . import _mpi_boot
from ._mpi_backend import MPIGroupComm
from .process_group import ProcessGroup, _default, _world, get_rank

__all__ = ["DeviceMesh", "init_device_mesh"]


def _split_group(ranks_per_color: list[list[int]], desc: str) -> ProcessGroup | None:
    """This rank's group among disjoint ``ranks_per_color`` (one split over the world)."""
    world = _default()
    me = world.rank()
    MPI = _mpi_boot.mpi()
    color, members = MPI.UNDEFINED, None
    for c, ranks in enumerate(ranks_per_color):
        if me in ranks:
            color, members = c, ranks
    sub = world._mpi().comm.Split(color, members.index(me) if members else 0)
    if members is None:
        return None
    if members == world._ranks:
        sub.Free()
        return world
    _world.generation += 1
    pg = ProcessGroup(MPIGroupComm(sub, world._timeout.total_seconds(), "ProcessGroupMPI"), members,
                      world._backend, world._timeout, str(_world.generation), desc)
    _world.groups.append(pg)
    return pg


class DeviceMesh:
    """An n-d array of ranks (``mesh``) with optional dim names; collectives along a dim use
    ``get_group(dim)``."""

    def __init__(self, device_type: str, mesh: Any, *, mesh_dim_names: tuple[str, ...] | None = None,
                 backend_override: Any = None, _init_backend: bool = True,
                 _groups: list[ProcessGroup | None] | None = None,
                 _layout: tuple[int, ...] | None = None) -> None:
        if device_type != "cpu":
            raise RuntimeError(f"DeviceMesh: device type {device_type!r} is not available "
                               "(ember.distributed runs on CPU)")
        t = mesh if isinstance(mesh, ember.Tensor) else ember.tensor(mesh, dtype=ember.int64)
        self.device_type = device_type
        self.mesh = t.to(ember.int32).contiguous()
        flat = [int(v) for v in self.mesh.reshape(-1).tolist()]
        if len(set(flat)) != len(flat):
            raise RuntimeError(f"DeviceMesh: the mesh must not repeat ranks, got {flat}")
        if mesh_dim_names is not None:
            mesh_dim_names = tuple(mesh_dim_names)
            if len(mesh_dim_names) != self.mesh.dim():
                raise RuntimeError(f"mesh_dim_names {mesh_dim_names} must have one name per mesh "
                                   f"dim ({self.mesh.dim()} dims)")
            if len(set(mesh_dim_names)) != len(mesh_dim_names):
                raise RuntimeError(f"Each mesh_dim_name must be unique, got {mesh_dim_names}")
        self.mesh_dim_names = mesh_dim_names
        self._flat = flat
        self._layout = _layout  # a slice's strides in the mesh it was cut from
        self._rank = get_rank()
        self._groups = _groups if _groups is not None else (
            [self._make_group(d) for d in range(self.mesh.dim())] if _init_backend else [])

    # -- construction ----------------------------------------------------------------------
    def _slices(self, dim: int) -> list[list[int]]:
        """The rank lists of the 1-d slices of the mesh along ``dim``."""
        moved = self.mesh.movedim(dim, -1).reshape(-1, self.mesh.shape[dim])
        return [[int(v) for v in row] for row in moved.tolist()]

    def _make_group(self, dim: int) -> ProcessGroup | None:
        name = self.mesh_dim_names[dim] if self.mesh_dim_names else str(dim)
        return _split_group(self._slices(dim), f"mesh_{name}")

    @staticmethod
    def from_group(group: Any, device_type: str, mesh: Any = None, *,
                   mesh_dim_names: tuple[str, ...] | None = None) -> DeviceMesh:
        """A 1-d mesh over an existing group (its ranks in group order)."""
        if isinstance(group, (list, tuple)):
            if len(group) != 1:
                raise NotImplementedError("DeviceMesh.from_group: only one group (a 1-d mesh) "
                                          "is supported")
            group = group[0]
        pg = group if isinstance(group, ProcessGroup) else _default()
        ranks = pg._ranks if mesh is None else mesh
        return DeviceMesh(device_type, ranks, mesh_dim_names=mesh_dim_names, _groups=[pg])

    # -- queries ---------------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        """The number of mesh dimensions."""
        return self.mesh.dim()

    @property
    def shape(self) -> tuple[int, ...]:
        """The mesh's shape (ranks along each dim)."""
        return tuple(self.mesh.shape)

    def size(self, mesh_dim: int | None = None) -> int:
        """The number of ranks in the mesh, or along ``mesh_dim``."""
        return self.mesh.numel() if mesh_dim is None else self.mesh.shape[mesh_dim]

    def _dim(self, mesh_dim: int | str | None, what: str) -> int:
        if mesh_dim is None:
            if self.ndim > 1:
                raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions. Optional "
                                   f"kwarg `mesh_dim` needs to be specified when device_mesh.ndim "
                                   f"> 1 ({what}).")
            return 0
        if isinstance(mesh_dim, str):
            if not self.mesh_dim_names or mesh_dim not in self.mesh_dim_names:
                raise KeyError(f"Mesh dimension '{mesh_dim}' does not exist. Available mesh "
                               f"dimensions are: mesh_dim_names={self.mesh_dim_names}")
            return self.mesh_dim_names.index(mesh_dim)
        if not -self.ndim <= mesh_dim < self.ndim:
            raise IndexError(f"mesh_dim {mesh_dim} is out of range for a {self.ndim}-d mesh")
        return mesh_dim % self.ndim

    def get_group(self, mesh_dim: int | str | None = None) -> ProcessGroup:
        """This rank's process group along ``mesh_dim`` (an index or a dim name)."""
        g = self._groups[self._dim(mesh_dim, "get_group")]
        if g is None:
            raise RuntimeError(f"rank {self._rank} is not part of {self!r}")
        return g

    def get_all_groups(self) -> list[ProcessGroup]:
        """This rank's process group along every mesh dim, in dim order."""
        return [self.get_group(d) for d in range(self.ndim)]

    def get_rank(self) -> int:
        """This process's global rank."""
        return self._rank

    def get_coordinate(self) -> tuple[int, ...] | None:
        """This rank's index along every mesh dim (None when the rank is not in the mesh)."""
        if self._rank not in self._flat:
            return None
        flat_i = self._flat.index(self._rank)
        coord = []
        for n in reversed(self.shape):
            coord.append(flat_i % n)
            flat_i //= n
        return tuple(reversed(coord))

    def get_local_rank(self, mesh_dim: int | str | None = None) -> int:
        """This rank's index along ``mesh_dim`` (its rank in that dim's group)."""
        coord = self.get_coordinate()
        if coord is None:
            raise RuntimeError(f"rank {self._rank} is not part of {self!r}")
        return coord[self._dim(mesh_dim, "get_local_rank")]

    # -- slicing ---------------------------------------------------------------------------
    def __getitem__(self, names: str | Sequence[str]) -> DeviceMesh:
        if not self.mesh_dim_names:
            raise RuntimeError("Cannot slice a DeviceMesh without mesh_dim_names!")
        names = (names,) if isinstance(names, str) else tuple(names)
        if any(n not in self.mesh_dim_names for n in names):
            raise KeyError(f"Invalid mesh_dim_names {names} specified. Valid mesh_dim_names are "
                           f"{list(self.mesh_dim_names)}.")
        if names == self.mesh_dim_names:
            return self
        dims = [self.mesh_dim_names.index(n) for n in names]
        if dims != sorted(dims):
            raise KeyError(f"Invalid mesh_dim_names {names} specified: they must follow the "
                           f"order of the mesh's dims {list(self.mesh_dim_names)}.")
        # The sub-mesh this rank lies in: fix the other dims at this rank's coordinate.
        coord = self.get_coordinate()
        index = tuple(slice(None) if d in dims else coord[d] for d in range(self.ndim))
        sub = self.mesh[index]
        strides = self._strides()
        return DeviceMesh(self.device_type, sub, mesh_dim_names=names,
                          _groups=[self._groups[d] for d in dims],
                          _layout=tuple(strides[d] for d in dims))

    # -- identity and printing -------------------------------------------------------------
    def _strides(self) -> tuple[int, ...]:
        if self._layout is not None:
            return self._layout
        out, acc = [], 1
        for n in reversed(self.shape):
            out.append(acc)
            acc *= n
        return tuple(reversed(out))

    def __repr__(self) -> str:
        if self.mesh_dim_names:
            dims = ", ".join(f"{n}={s}" for n, s in zip(self.mesh_dim_names, self.shape))
            shape = f"({dims})"
        else:
            shape = str(self.shape)
        return f"DeviceMesh({shape}, '{self.device_type}', stride={self._strides()})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DeviceMesh):
            return False
        return (self is other or (self._flat == other._flat and self.shape == other.shape
                                  and self.mesh_dim_names == other.mesh_dim_names
                                  and self.device_type == other.device_type))

    def __hash__(self) -> int:
        return hash((tuple(self._flat), self.shape, self.mesh_dim_names, self.device_type))


def init_device_mesh(device_type: str, mesh_shape: tuple[int, ...], *,
                     mesh_dim_names: tuple[str, ...] | None = None,
                     backend_override: Any = None) -> DeviceMesh:
    """A mesh of shape ``mesh_shape`` over all ranks of the job (row-major), with its groups."""
    mesh_shape = tuple(int(s) for s in mesh_shape)
    if mesh_dim_names is not None and len(mesh_dim_names) != len(mesh_shape):
        raise RuntimeError("mesh_shape and mesh_dim_names should have same length!",
                           f"Found len(mesh_dim_names): {len(mesh_dim_names)} and "
                           f"len(mesh_shape):{len(mesh_shape)}.")
    world = _default().size()
    if math.prod(mesh_shape) != world:
        raise RuntimeError(f"init_device_mesh: mesh_shape {mesh_shape} holds "
                           f"{math.prod(mesh_shape)} ranks but the world size is {world}")
    mesh = ember.arange(world, dtype=ember.int64).reshape(mesh_shape)
    return DeviceMesh(device_type, mesh, mesh_dim_names=mesh_dim_names)


def _mesh_or_default(mesh: DeviceMesh | None) -> DeviceMesh:
    """``mesh``, or the 1-d mesh over the default group (made once per default group)."""
    if mesh is not None:
        return mesh
    world = _default()
    cached = getattr(world, "_ember_default_mesh", None)
    if cached is None:
        cached = DeviceMesh.from_group(world, "cpu")
        world._ember_default_mesh = cached
    return cached

