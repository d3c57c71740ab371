"""DTensor factories: ``zeros``, ``ones``, ``empty``, ``full``, ``rand``, ``randn``.

Each builds only this rank's shard (its local shape from the placements), except the random
ones: PyTorch makes random DTensors consistent with one full tensor through an offset-based
Philox generator, on CUDA-like meshes only (on a CPU mesh its ``rand`` fails). ember's CPU
generator (mt19937) cannot skip ahead, so ``rand``/``randn`` synchronise the default generator
from the mesh's first rank, draw the *full* tensor on every rank and keep the local shard: the
DTensor equals ``ember.rand(size)`` drawn on that rank, every rank's generator advances alike,
and Replicate shards agree. The cost is one full-size draw per rank.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ember

from ..device_mesh import DeviceMesh, _mesh_or_default
from ._dtensor import DTensor, DTensorSpec, adopt
from ._redistribute import redistribute_local
from ._utils import compute_local_shape, contiguous_strides, normalize_placements
from .placement_types import Partial, Placement, Replicate


def _size(size: Any) -> list[int]:
    """PyTorch's normalize_to_torch_size: ``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` alike."""
    if isinstance(size, int):
        return [size]
    if len(size) == 1 and isinstance(size[0], (Sequence, ember.Size)):
        return [int(s) for s in size[0]]
    return [int(s) for s in size]


def _init(make: Callable[..., Any], size: list[int], dtype: Any, layout: Any, requires_grad: bool,
          device_mesh: DeviceMesh | None, placements: Sequence[Placement] | None,
          random: bool = False) -> DTensor:
    mesh = _mesh_or_default(device_mesh)
    pls = tuple(placements) if placements else tuple(Replicate() for _ in range(mesh.ndim))
    if mesh.ndim != len(pls):
        raise AssertionError("mesh dimension does not match the length of placements")
    if layout is not None and layout != ember.strided:
        raise AssertionError("layout value not supported!")
    pls = normalize_placements(pls, mesh, len(size), "DTensor factory")
    if any(isinstance(p, Partial) for p in pls):
        raise RuntimeError("DTensor factories do not create Partial placements")
    if random:
        _sync_rng(mesh)
        full = make(size, dtype=dtype)
        local = redistribute_local(full, mesh, tuple(Replicate() for _ in pls), pls, tuple(size))
        if local is not full:  # a view of the full draw: keep only the shard's memory
            local = local.clone()
    else:
        local = make(list(compute_local_shape(size, mesh, pls)), dtype=dtype)
    out = adopt(local, DTensorSpec(mesh, pls, size, contiguous_strides(size)))
    if requires_grad:
        out.requires_grad_(True)
    return out


def _sync_rng(mesh: DeviceMesh) -> None:
    """Every rank of the mesh takes the default generator state of the mesh's first rank."""
    from .. import collectives as C

    state = ember.get_rng_state().clone()
    for i in reversed(range(mesh.ndim)):
        C.broadcast(state, group_src=0, group=mesh.get_group(i))
    ember.set_rng_state(state)


def zeros(*size: Any, requires_grad: bool = False, dtype: Any = None, layout: Any = ember.strided,
          device_mesh: DeviceMesh | None = None,
          placements: Sequence[Placement] | None = None) -> DTensor:
    """A DTensor of zeros of global shape ``size`` (``zeros(2, 3)`` or ``zeros((2, 3))``).

    Args:
        size (int...): the global shape.
        requires_grad (bool): whether autograd records operations on the result.
        dtype (dtype, optional): the element type (the default dtype if None).
        layout (layout): only ``ember.strided``.
        device_mesh (DeviceMesh, optional): the mesh (the 1-d mesh over the default group if
            None).
        placements (sequence of Placement, optional): one per mesh dim (Replicate if None).
    """
    return _init(ember.zeros, _size(size), dtype, layout, requires_grad, device_mesh, placements)


def ones(*size: Any, dtype: Any = None, layout: Any = ember.strided, requires_grad: bool = False,
         device_mesh: DeviceMesh | None = None,
         placements: Sequence[Placement] | None = None) -> DTensor:
    """A DTensor of ones of global shape ``size``; the arguments are ``zeros``'s."""
    return _init(ember.ones, _size(size), dtype, layout, requires_grad, device_mesh, placements)


def empty(*size: Any, dtype: Any = None, layout: Any = ember.strided, requires_grad: bool = False,
          device_mesh: DeviceMesh | None = None,
          placements: Sequence[Placement] | None = None) -> DTensor:
    """An uninitialised DTensor of global shape ``size``; the arguments are ``zeros``'s."""
    return _init(ember.empty, _size(size), dtype, layout, requires_grad, device_mesh, placements)


def full(size: Any, fill_value: Any, *, dtype: Any = None, layout: Any = ember.strided,
         requires_grad: bool = False, device_mesh: DeviceMesh | None = None,
         placements: Sequence[Placement] | None = None) -> DTensor:
    """A DTensor of global shape ``size`` filled with ``fill_value`` (its dtype inferred from
    the value, as ``ember.full``); the other arguments are ``zeros``'s."""
    def make(shape: list[int], dtype: Any = None) -> Any:
        return ember.full(shape, fill_value, dtype=dtype)

    return _init(make, _size(size), dtype, layout, requires_grad, device_mesh, placements)


def rand(*size: Any, requires_grad: bool = False, dtype: Any = None, layout: Any = ember.strided,
         device_mesh: DeviceMesh | None = None,
         placements: Sequence[Placement] | None = None) -> DTensor:
    """A DTensor of uniform [0, 1) samples of global shape ``size``, equal to ``ember.rand(size)``
    drawn with the mesh's first rank's generator (every rank's generator advances alike); the
    arguments are ``zeros``'s."""
    return _init(ember.rand, _size(size), dtype, layout, requires_grad, device_mesh, placements,
                 random=True)


def randn(*size: Any, requires_grad: bool = False, dtype: Any = None, layout: Any = ember.strided,
          device_mesh: DeviceMesh | None = None,
          placements: Sequence[Placement] | None = None) -> DTensor:
    """A DTensor of standard normal samples of global shape ``size``, equal to
    ``ember.randn(size)`` drawn with the mesh's first rank's generator; the arguments are
    ``zeros``'s."""
    return _init(ember.randn, _size(size), dtype, layout, requires_grad, device_mesh, placements,
                 random=True)
