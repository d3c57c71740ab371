"""``DTensor``: a tensor whose value is spread over a DeviceMesh.

Design: a DTensor *is* its local tensor to the compiled core -- the C++ tensor under the Python
object is this rank's shard -- and the Python class adds the global view (``shape``,
``placements``, ``device_mesh``). Calls reach the sharding rules two ways:

* DTensor methods (``dt.sum()``, ``dt @ w``, ``dt.view(...)``) are Python overrides (``_ops``);
* top-level functions and the Tensor methods not overridden (``ember.sum(dt)``, ``F.linear``,
  ``ember._foreach_add_``) reach ``DTensor.__torch_function__`` (``_dispatch``), which picks the
  rule once per call: layout-aware rules, elementwise ops on the local shards, metadata and the
  optimizers' ``_foreach_*``/fused steps on the local shards as they are (one Python hop per
  call, none per tensor), and PyTorch's errors where the local result would be wrong.

Rules and DTensor methods run with subclass dispatch off (``_run_local``): inside them the core
sees local shards, as it always did, and autograd records the core ops on the local tensors.
Plain tensors never reach Python. The bindings start looking for a ``__torch_function__`` in
their arguments with the first DTensor made (``_dispatch_on``), not at import: importing this
package costs plain-tensor code nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ember
from ember import Tensor, _torch_function
from ember._lib import _C

from ..device_mesh import DeviceMesh, _mesh_or_default
from ._redistribute import Redistribute, redistribute_local
from ._utils import contiguous_strides, normalize_placements
from .placement_types import STRIDED_SEEN, Partial, Placement, Replicate, Shard, _StridedShard

_TB = ember._lib._C.TensorBase
# run_local(func, types, args, kwargs): func(*args, **kwargs) with subclass __torch_function__
# off, so the core sees every DTensor as its local shard (one C call, no Python frame).
_run_local = _C._disabled_torch_function_impl
_DETACH, _VIEW_AS = _TB.detach, _TB.view_as
_RG = _TB.requires_grad.__get__
_GRAD_GET, _GRAD_SET = _TB.grad.__get__, _TB.grad.__set__
# what DTensor.__torch_function__ runs for a function: a rule, or LOCAL (the function itself on
# the local shards); filled by _dispatch.install, then per function on its first call
LOCAL: Any = object()
RULES: dict[Any, Any] = {}


def classify(func: Any) -> Any:
    """The rule for a function not in RULES yet (``_dispatch.install`` puts its own here)."""
    raise RuntimeError("ember.distributed.tensor: DTensor ops before the package initialized")


_dispatching = False


def _dispatch_on() -> None:
    """From the first DTensor on, the bindings look for ``__torch_function__`` (a class taking
    part counts from its creation; DTensor is made without it and counts here, once -- a
    count per live DTensor would cost every op result)."""
    global _dispatching
    if not _dispatching:
        _dispatching = True
        _torch_function._install_tensor_methods()
        _C._add_torch_function_subclasses(1)


def _strided(a: Any) -> bool:
    return isinstance(a, DTensor) and any(type(p) is _StridedShard for p in a._spec.placements)


def unstride(rule: Any, args: Any, kwargs: Any) -> tuple[Any, Any]:
    """The operands of ``rule`` with their _StridedShard mesh dims replicated, unless the rule
    handles them (``strided_ok``: views, sums) or is elementwise over operands laid out alike
    (``strided_same``): the other rules know only Shard/Replicate/Partial."""
    if getattr(rule, "strided_ok", False):
        return args, kwargs
    vals = [x for a in (*args, *kwargs.values())
            for x in (a if isinstance(a, (list, tuple)) else (a,)) if isinstance(x, DTensor)]
    if not any(_strided(x) for x in vals):
        return args, kwargs
    if getattr(rule, "strided_same", False) and all(x._spec == vals[0]._spec for x in vals):
        return args, kwargs

    def fix(a: Any) -> Any:
        if isinstance(a, (list, tuple)):
            return type(a)(fix(x) for x in a)
        if not _strided(a):
            return a
        return a.redistribute(placements=[Replicate() if type(p) is _StridedShard else p
                                          for p in a._spec.placements])

    return tuple(fix(a) for a in args), {k: fix(v) for k, v in kwargs.items()}


def local_dispatch(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` run with subclass dispatch off: for DTensor methods, whose bodies call the core on
    the local shards (and would otherwise re-enter ``__torch_function__``)."""
    def method(*args: Any, **kwargs: Any) -> Any:
        if STRIDED_SEEN[0]:
            args, kwargs = unstride(fn, args, kwargs)
        return _run_local(fn, (), args, kwargs)

    method.__name__, method.__qualname__, method.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    return method


def _local_property(name: str, settable: bool = False) -> property:
    """A Tensor property read on the local shard without the ``__torch_function__`` round trip
    (metadata the optimizers and FSDP read per parameter)."""
    desc = getattr(_TB, name)
    get, put = desc.__get__, desc.__set__

    def fget(self: Any) -> Any:
        return _run_local(get, (), (self,), None)

    def fset(self: Any, value: Any) -> None:
        _run_local(put, (), (self, value), None)

    return property(fget, fset if settable else None, doc=desc.__doc__)


def _local_method(name: str) -> Callable[..., Any]:
    base = getattr(_TB, name)

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return _run_local(base, (), (self, *args), kwargs)

    method.__name__ = method.__qualname__ = name
    return method


class DTensorSpec:
    """What makes a local tensor a DTensor: mesh, placements, global shape and stride."""

    __slots__ = ("mesh", "placements", "shape", "stride")

    def __init__(self, mesh: DeviceMesh, placements: tuple[Placement, ...], shape: Sequence[int],
                 stride: Sequence[int] | None = None) -> None:
        self.mesh = mesh
        self.placements = tuple(placements)
        self.shape = ember.Size(shape)
        self.stride = tuple(stride) if stride is not None else contiguous_strides(shape)

    def with_placements(self, placements: Sequence[Placement]) -> DTensorSpec:
        return DTensorSpec(self.mesh, tuple(placements), self.shape, self.stride)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, DTensorSpec) and self.mesh == other.mesh
                and self.placements == other.placements and self.shape == other.shape)

    def __repr__(self) -> str:
        return f"DTensorSpec({self.mesh!r}, {self.placements}, {tuple(self.shape)})"


def adopt(t: Tensor, spec: DTensorSpec) -> DTensor:
    """Make the fresh core result ``t`` a DTensor of ``spec`` (its Python object changes class);
    a tensor that may be referenced elsewhere (a DTensor, an input) is aliased first."""
    if not _dispatching:
        _dispatch_on()
    if type(t) is not Tensor:
        t = _run_local(_plain_view, (), (t,), None)
    t.__class__ = DTensor
    t._spec = spec
    return t  # type: ignore[return-value]


def _alias(t: Tensor) -> Tensor:
    """A plain tensor sharing ``t``'s storage (no autograd history)."""
    return _run_local(_DETACH, (), (t,), None)  # type: ignore[no-any-return]


def _plain_view(t: Tensor) -> Tensor:
    """(Run with dispatch off.) A plain tensor sharing ``t``'s storage: a view that autograd
    connects to ``t`` when it requires grad, else a detached alias."""
    if ember.is_grad_enabled() and _RG(t):
        return _VIEW_AS(t, t)  # type: ignore[no-any-return]
    return _DETACH(t)  # type: ignore[no-any-return]


class DTensor(Tensor):
    """A distributed tensor: ``placements`` on ``device_mesh``, global ``shape``."""

    _spec: DTensorSpec
    # the class is made with dispatch disabled so that it is not counted at import; the real
    # handler (_handle) is put on right after, and _dispatch_on counts the first DTensor
    __torch_function__ = _C._disabled_torch_function_impl

    # metadata read per parameter (optimizers, FSDP): no __torch_function__ round trip
    dtype = _local_property("dtype")
    device = _local_property("device")
    layout = _local_property("layout")
    ndim = _local_property("ndim")
    is_leaf = _local_property("is_leaf")
    grad_fn = _local_property("grad_fn")
    requires_grad = _local_property("requires_grad", settable=True)
    dim = _local_method("dim")
    is_contiguous = _local_method("is_contiguous")
    is_floating_point = _local_method("is_floating_point")
    is_complex = _local_method("is_complex")

    # -- construction ----------------------------------------------------------------------
    def _as_parameter(self, requires_grad: bool) -> Tensor:
        """What ``nn.Parameter(dtensor)`` gives: a Parameter that stays a DTensor (same shard,
        placements and mesh), as in PyTorch."""
        from ..fsdp._param_group import DTensorParameter  # fsdp imports this package: load late

        p = Tensor._make_subclass(DTensorParameter, self.to_local().detach(), requires_grad)
        p._spec = self._spec
        return p

    def __new__(cls, *args: Any, **kwargs: Any) -> DTensor:
        raise TypeError("DTensor: build one with DTensor.from_local(...) or distribute_tensor(...)")

    @staticmethod
    def from_local(local_tensor: Tensor, device_mesh: DeviceMesh | None = None,
                   placements: Sequence[Placement] | None = None, *, run_check: bool = False,
                   shape: Sequence[int] | None = None, stride: Sequence[int] | None = None,
                   grad_placements: Sequence[Placement] | None = None) -> DTensor:
        """Each rank's ``local_tensor`` as its piece of a DTensor (no communication unless
        ``run_check``); without ``shape`` the global shape assumes even shards."""
        mesh = _mesh_or_default(device_mesh)
        pls = normalize_placements(placements, mesh, local_tensor.dim(), "from_local")
        if shape is None:
            gshape = list(local_tensor.shape)
            for i, p in enumerate(pls):
                if isinstance(p, Shard):
                    gshape[p.dim] *= mesh.size(i)
        else:
            gshape = list(shape)
        local = local_tensor
        if run_check:
            _check_replicas(local, mesh, pls)
        if isinstance(local, DTensor):
            local = local.to_local()
        spec = DTensorSpec(mesh, pls, gshape, stride)
        if ember.is_grad_enabled() and local.requires_grad:
            return adopt(_TB.view_as(local, local), spec)
        out = _alias(local)
        return adopt(out, spec)

    def to_local(self, *, grad_placements: Sequence[Placement] | None = None) -> Tensor:
        """This rank's piece as a plain tensor (a view: gradients flow back to the DTensor)."""
        return _run_local(_plain_view, (), (self,), None)  # type: ignore[no-any-return]

    def redistribute(self, device_mesh: DeviceMesh | None = None,
                     placements: Sequence[Placement] | None = None, *, async_op: bool = False,
                     forward_dtype: Any = None, backward_dtype: Any = None) -> DTensor:
        """The same global value under ``placements`` (collectives on the mesh dims that change)."""
        mesh = device_mesh or self._spec.mesh
        if mesh != self._spec.mesh:
            raise NotImplementedError("redistribute: moving a DTensor to another mesh is not "
                                      "supported")
        if placements is None:
            raise RuntimeError("placements is needed for redistribute!")
        dst = normalize_placements(placements, mesh, self.dim(), "redistribute")
        for p in dst:
            if isinstance(p, Partial) and not any(q == p for q in self._spec.placements):
                if not isinstance(p, Partial) or p.reduce_op not in ("sum", "avg", "max", "min"):
                    raise RuntimeError(f"redistribute: can not redistribute to {p}")
        local = self.to_local()
        if forward_dtype is not None and local.dtype != forward_dtype:
            local = local.to(forward_dtype)
        src = self._spec.placements
        if dst == src:
            out = local
        elif ember.is_grad_enabled() and local.requires_grad:
            out = Redistribute.apply(local, mesh, src, dst, tuple(self._spec.shape))
        else:
            out = redistribute_local(local, mesh, src, dst, tuple(self._spec.shape))
        return adopt(out, DTensorSpec(mesh, dst, self._spec.shape, self._spec.stride))

    def full_tensor(self, *, grad_placements: Sequence[Placement] | None = None) -> Tensor:
        """The whole global value on every rank, as a plain tensor."""
        repl = tuple(Replicate() for _ in range(self._spec.mesh.ndim))
        return self.redistribute(placements=repl).to_local()

    # -- the global view -------------------------------------------------------------------
    @property
    def device_mesh(self) -> DeviceMesh:
        return self._spec.mesh

    @property
    def placements(self) -> tuple[Placement, ...]:
        return self._spec.placements

    @property
    def shape(self) -> Any:  # type: ignore[override]
        return self._spec.shape

    def size(self, dim: int | None = None) -> Any:  # type: ignore[override]
        if dim is None:
            return self._spec.shape
        return self._spec.shape[dim]

    def numel(self) -> int:  # type: ignore[override]
        n = 1
        for s in self._spec.shape:
            n *= s
        return n

    nelement = numel

    def stride(self, dim: int | None = None) -> Any:  # type: ignore[override]
        return self._spec.stride if dim is None else self._spec.stride[dim]

    def __len__(self) -> int:
        if not self._spec.shape:
            raise TypeError("len() of a 0-d tensor")
        return self._spec.shape[0]

    def __repr__(self, *, tensor_contents: str | None = None) -> str:  # type: ignore[override]
        local = repr(_alias(self))
        return (f"DTensor(local_tensor={local}, device_mesh={self._spec.mesh!r}, "
                f"placements={self._spec.placements})")

    __str__ = __repr__

    def __hash__(self) -> int:
        return id(self)

    # -- plain-tensor conversions that keep the DTensor --------------------------------------
    def detach(self) -> DTensor:  # type: ignore[override]
        return adopt(_alias(self), self._spec)

    @property
    def data(self) -> DTensor:  # type: ignore[override]
        return adopt(_alias(self), self._spec)

    @data.setter
    def data(self, value: Tensor) -> None:
        _run_local(_TB.data.__set__, (), (self, value), None)
        if isinstance(value, DTensor):
            self._spec = value._spec

    @property
    def grad(self) -> DTensor | None:  # type: ignore[override]
        """The gradient as a DTensor of this tensor's spec (the core accumulates local grads)."""
        g = _run_local(_GRAD_GET, (), (self,), None)
        if g is not None and type(g) is Tensor:
            g.__class__ = DTensor
            g._spec = self._spec
        return g

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        _run_local(_GRAD_SET, (), (self, value), None)

    def register_hook(self, hook: Any) -> Any:  # type: ignore[override]
        spec = self._spec

        def wrapped(g: Tensor) -> Any:
            out = hook(adopt(_alias(g), spec))
            return out.to_local() if isinstance(out, DTensor) else out

        return _run_local(Tensor.register_hook, (), (self, wrapped), None)

    def __deepcopy__(self, memo: dict[int, Any]) -> DTensor:  # type: ignore[override]
        r = adopt(_TB.clone(_alias(self)), self._spec)
        if self.requires_grad:
            r.requires_grad_(True)
        memo[id(self)] = r
        return r

    def __reduce_ex__(self, protocol: int) -> Any:  # type: ignore[override]
        raise RuntimeError("DTensor: pickling is not supported; save it with "
                           "ember.distributed.checkpoint or pickle .full_tensor() / .to_local()")

    def item(self) -> Any:  # type: ignore[override]
        return Tensor.item(self._replicated())

    def tolist(self) -> Any:  # type: ignore[override]
        return Tensor.tolist(self._replicated())

    def __bool__(self) -> bool:
        return bool(Tensor.item(self._replicated()))

    def __float__(self) -> float:
        return float(Tensor.item(self._replicated()))

    def __int__(self) -> int:
        return int(Tensor.item(self._replicated()))

    def _replicated(self) -> Tensor:
        if all(isinstance(p, Replicate) for p in self._spec.placements):
            return _alias(self)
        return self.full_tensor()


def _handle(cls: type, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    """``DTensor.__torch_function__``: top-level functions and the Tensor methods not overridden
    here run the rule ``_dispatch`` picks for ``func`` (cached per function), with subclass
    dispatch off."""
    if len(types) > 1 and not all(issubclass(t, DTensor) for t in types):
        return NotImplemented  # another subclass's turn (PyTorch's protocol)
    rule = RULES.get(func)
    if rule is None:
        rule = classify(func)
    if rule is LOCAL:  # layout-independent: the core on the local shards as they are
        return _run_local(func, types, args, kwargs)
    if STRIDED_SEEN[0]:
        args, kwargs = unstride(rule, args, kwargs or {})
    return _run_local(rule, types, args, kwargs)


DTensor.__torch_function__ = classmethod(_handle)  # type: ignore[assignment]
DTensor.__module__ = "ember.distributed.tensor"


def _check_replicas(local: Tensor, mesh: DeviceMesh, pls: tuple[Placement, ...]) -> None:
    """run_check: a Replicate piece must be the same on every rank of its mesh dim."""
    from .. import collectives as C

    for i, p in enumerate(pls):
        if isinstance(p, Replicate):
            ref = local.detach().clone().contiguous()
            C.broadcast(ref, group_src=0, group=mesh.get_group(i))
            if not ember.equal(ref, local.detach()):
                raise ValueError("DTensor.from_local(run_check=True): the Replicate local "
                                 "tensors differ across ranks")


def distribute_tensor(tensor: Tensor, device_mesh: DeviceMesh | None = None,
                      placements: Sequence[Placement] | None = None, *,
                      src_data_rank: int | None = 0) -> DTensor:
    """Split the full ``tensor`` (the copy on ``src_data_rank`` counts; None: each rank's own)
    over the mesh; the result is a leaf that requires grad as ``tensor`` does."""
    mesh = _mesh_or_default(device_mesh)
    pls = normalize_placements(placements, mesh, tensor.dim(), "distribute_tensor")
    if isinstance(tensor, DTensor):
        if tensor.device_mesh != mesh or tensor.placements != pls:
            raise ValueError(f"Cannot distribute a DTensor with device mesh {tensor.device_mesh} "
                             f"and placements {tensor.placements} to a different device mesh "
                             f"{mesh} and placements {pls}.")
        return tensor
    if any(isinstance(p, Partial) for p in pls):
        raise RuntimeError("distribute_tensor: Partial placements are not a way to distribute a "
                           "full tensor")
    with ember.no_grad():
        full = tensor.detach().contiguous()
        # A meta tensor has no values to send: each rank takes its shape's share (as torch)
        if src_data_rank is not None and not tensor.is_meta:
            from .. import collectives as C

            if src_data_rank not in mesh._flat:
                raise ValueError(f"distribute_tensor: src_data_rank {src_data_rank} is not in "
                                 f"the mesh {mesh}")
            full = full.clone()
            src_coord = _coordinate_of(mesh, src_data_rank)
            # Last mesh dim first: each step spreads the value to the next slice.
            for i in reversed(range(mesh.ndim)):
                C.broadcast(full, group_src=src_coord[i], group=mesh.get_group(i))
        src = tuple(Replicate() for _ in pls)
        local = redistribute_local(full, mesh, src, pls, tuple(tensor.shape))
        if local is full or local.data_ptr() == tensor.data_ptr():
            local = local.clone()
    out = adopt(local, DTensorSpec(mesh, pls, tensor.shape, contiguous_strides(tensor.shape)))
    if tensor.requires_grad:
        out.requires_grad_(True)
    return out


def _coordinate_of(mesh: DeviceMesh, rank: int) -> tuple[int, ...]:
    flat_i = mesh._flat.index(rank)
    coord = []
    for n in reversed(mesh.shape):
        coord.append(flat_i % n)
        flat_i //= n
    return tuple(reversed(coord))
