"""ember's versions of the ``torch._utils._rebuild_*`` functions a checkpoint calls.

The unpicklers hand these out for the torch names (see ``_allowlist.py``), so
loading a file never imports torch.  Every geometry coming from a file is
checked here with Python integers before it reaches C++, so hostile sizes,
strides or offsets cannot overflow or reach outside the storage.
"""

from __future__ import annotations

import sys
from typing import Any

from ember._lib import _C
from ember.serialization._storage import TypedStorage

_INT64_MAX = 2**63 - 1


def _int_tuple(value: Any, what: str) -> list[int]:
    if not isinstance(value, (tuple, list)) or not all(type(v) is int for v in value):
        raise RuntimeError(f"ember.load: tensor {what} must be a tuple of ints, got {value!r}")
    return list(value)


def _view(storage: Any, dtype: Any, offset: Any, size: Any, stride: Any) -> Any:
    """A strided view of ``storage``, validated against its real extent."""
    if not isinstance(storage, TypedStorage):
        raise RuntimeError(f"ember.load: expected a checkpoint storage, got {type(storage).__name__}")
    sizes, strides = _int_tuple(size, "size"), _int_tuple(stride, "stride")
    if type(offset) is not int or not 0 <= offset <= _INT64_MAX:
        raise RuntimeError(f"ember.load: invalid storage offset {offset!r}")
    if len(sizes) != len(strides):
        raise RuntimeError(f"ember.load: tensor has {len(sizes)} sizes but {len(strides)} strides")
    if any(s < 0 for s in sizes) or any(s < 0 for s in strides):
        raise RuntimeError(f"ember.load: negative size or stride in size={sizes}, stride={strides}")
    numel = 1
    for s in sizes:
        numel *= s
    if numel > _INT64_MAX or any(s > _INT64_MAX for s in strides):
        raise RuntimeError(f"ember.load: tensor size {sizes} / stride {strides} overflows int64")
    flat = storage.untyped.typed(dtype)
    if numel:
        last = offset + sum((n - 1) * st for n, st in zip(sizes, strides, strict=True))
        if last >= flat.numel():
            raise RuntimeError(
                f"ember.load: tensor with size {sizes}, stride {strides} and storage offset {offset} "
                f"needs {last + 1} elements but its storage holds {flat.numel()}"
            )
    return _C._as_strided_storage(flat, sizes, strides, offset)


def _set_requires_grad(t: Any, requires_grad: Any) -> Any:
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor(storage: Any, storage_offset: Any, size: Any, stride: Any) -> Any:
    return _view(storage, getattr(storage, "dtype", None), storage_offset, size, stride)


def _rebuild_tensor_v2(storage: Any, storage_offset: Any, size: Any, stride: Any, requires_grad: Any,
                       backward_hooks: Any, metadata: Any = None) -> Any:
    # Backward hooks and the neg bit cannot be represented; torch itself only writes empty
    # ones for weights. The conj bit is set again (the storage holds the conjugates).
    t = _view(storage, getattr(storage, "dtype", None), storage_offset, size, stride)
    if metadata and metadata.get("conj"):
        t = t.conj()
    return _set_requires_grad(t, requires_grad)


def _rebuild_tensor_v3(storage: Any, storage_offset: Any, size: Any, stride: Any, requires_grad: Any,
                       backward_hooks: Any, dtype: Any, metadata: Any = None) -> Any:
    if not isinstance(dtype, _C.dtype):
        raise RuntimeError(f"ember.load: expected a dtype, got {dtype!r}")
    return _set_requires_grad(_view(storage, dtype, storage_offset, size, stride), requires_grad)


_parameter_cls: list[Any] = []


def parameter_class() -> Any:
    """``ember.nn.Parameter`` once ember-nn provides it, else None (cached after the first look)."""
    if not _parameter_cls:
        try:
            from ember.nn import Parameter  # type: ignore[attr-defined]
        except ImportError:
            Parameter = None
        _parameter_cls.append(Parameter)
    return _parameter_cls[0]


def loaded_parameter_class() -> Any:
    """The Parameter class if ember.nn is already imported (no import: used while saving)."""
    mod = sys.modules.get("ember.nn")
    return getattr(mod, "Parameter", None) if mod is not None else None


def make_parameter(data: Any = None, requires_grad: Any = True) -> Any:
    """``nn.Parameter(data, requires_grad)``; a plain tensor flagged requires_grad until ember.nn has one."""
    if data is None:
        data = _C.empty(0)
    if not isinstance(data, _C.TensorBase):
        raise RuntimeError(f"ember.load: Parameter data must be a tensor, got {type(data).__name__}")
    cls = parameter_class()
    if cls is not None:
        return cls(data, bool(requires_grad))
    return data.detach().requires_grad_(bool(requires_grad))


def set_state(obj: Any, state: Any) -> Any:
    """Restore Python attributes saved with a tensor (dict, or (dict, slots) like pickle's BUILD)."""
    if state is None:
        return obj
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    for part in (state, slots):
        if not part:
            continue
        if not isinstance(part, dict):
            raise RuntimeError(f"ember.load: tensor state must be a dict, got {type(part).__name__}")
        for k, v in part.items():
            if not isinstance(k, str) or k.startswith("__"):
                raise RuntimeError(f"ember.load: refusing to set attribute {k!r} on a loaded tensor")
            setattr(obj, k, v)
    return obj


def _rebuild_parameter(data: Any, requires_grad: Any, backward_hooks: Any) -> Any:
    return make_parameter(data, requires_grad)


def _rebuild_parameter_with_state(data: Any, requires_grad: Any, backward_hooks: Any, state: Any) -> Any:
    return set_state(make_parameter(data, requires_grad), state)


def _rebuild_from_type_v2(func: Any, new_type: Any, args: Any, state: Any) -> Any:
    if not isinstance(args, tuple):
        raise RuntimeError("ember.load: _rebuild_from_type_v2 expects an argument tuple")
    ret = func(*args)
    if type(ret) is not new_type:
        raise NotImplementedError(
            f"ember.load: rebuilding a tensor as {getattr(new_type, '__qualname__', new_type)!r} "
            "is not supported"
        )
    return set_state(ret, state)


def _rebuild_device_tensor_from_cpu_tensor(data: Any, dtype: Any, device: Any, requires_grad: Any) -> Any:
    return _set_requires_grad(data.to(dtype=dtype, device=device), requires_grad)


def _rebuild_device_tensor_from_numpy(data: Any, dtype: Any, device: Any, requires_grad: Any) -> Any:
    from ember._numpy import from_numpy

    return _set_requires_grad(from_numpy(data).to(dtype=dtype, device=device), requires_grad)


def _rebuild_meta_tensor_no_storage(dtype: Any, size: Any, stride: Any, requires_grad: Any) -> Any:
    if not isinstance(dtype, _C.dtype):
        raise RuntimeError("ember.load: _rebuild_meta_tensor_no_storage expects a dtype")
    return _C.empty_strided(tuple(size), tuple(stride), dtype=dtype, device="meta", requires_grad=bool(requires_grad))


def unsupported(kind: str) -> Any:
    """A rebuild function for tensor kinds ember cannot represent: it raises when called."""

    def rebuild(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"ember.load: the checkpoint holds {kind}, which ember does not support")

    rebuild.__name__ = f"_rebuild_{kind.replace(' ', '_')}"
    return rebuild


def _get_layout(name: Any) -> Any:
    if name == "torch.strided":
        return _C.strided
    raise RuntimeError(f"ember.load: layout {name!r} is not supported (only torch.strided)")
