"""Tensor methods that see the storage under a tensor: untyped_storage / storage / storage_type,
set_ with a storage source, and slice_inverse (a view of self's storage with another tensor's
geometry). The storage classes themselves are ember/storage.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ember._lib import _C

if TYPE_CHECKING:
    from ember._tensor import Tensor

_SET_SIGNATURES = (
    " * ()\n * (torch.Storage source)\n"
    " * (torch.Storage source, int storage_offset, tuple of ints size, tuple of ints stride = None)\n"
    " * (Tensor source)\n"
    " * (Tensor source, int storage_offset, tuple of ints size, tuple of ints stride = None)\n"
)


def _storage_module() -> Any:
    from ember import storage

    return storage


def untyped_storage(self: Any) -> Any:
    """The :class:`ember.UntypedStorage` under this tensor: its bytes, shared (not copied)."""
    return _storage_module().UntypedStorage._wrap(_C._storage_as(self, _C.uint8))


def _typed_storage(self: Any) -> Any:
    mod = _storage_module()
    return mod.TypedStorage(wrap_storage=self.untyped_storage(), dtype=self.dtype, _internal=True)


def storage(self: Any) -> Any:
    """The (deprecated) :class:`ember.TypedStorage` under this tensor, with PyTorch's warning."""
    _storage_module()._warn_typed_storage_removal(stacklevel=2)
    return _typed_storage(self)


def storage_type(self: Any) -> Any:
    """The legacy storage class of this tensor's dtype (``ember.FloatStorage`` ...)."""
    _storage_module()._warn_typed_storage_removal()
    return _typed_storage(self)._get_legacy_storage_class()


def _set_error(args: tuple) -> TypeError:
    got = ", ".join(_type_name(a) for a in args)
    return TypeError(f"set_() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + _SET_SIGNATURES)


def _type_name(a: Any) -> str:
    mod = _storage_module()
    if isinstance(a, mod.UntypedStorage):
        return "torch.storage.UntypedStorage"
    if isinstance(a, mod.TypedStorage):
        return "torch.storage.TypedStorage"
    return "Tensor" if isinstance(a, _C.TensorBase) else type(a).__name__


def set_(self: Any, source: Any = None, storage_offset: Any = None, size: Any = None, stride: Any = None) -> Any:
    """Make this tensor a view of ``source``: a tensor (its storage, sizes and strides), or a storage
    with a storage offset, size and stride (elements of this tensor's dtype); ``set_()`` empties it."""
    args = tuple(a for a in (source, storage_offset, size, stride) if a is not None)
    if self.requires_grad and self.grad_fn is None and _C.is_grad_enabled():  # an in-place op on a leaf
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if source is None:
        if args:
            raise _set_error(args)
        return _C._set_(self, _C.empty(0, dtype=self.dtype))
    mod = _storage_module()
    if isinstance(source, _C.TensorBase):
        if storage_offset is None and size is None and stride is None:
            return _C._set_(self, source)
        base = _C._storage_as(source, source.dtype)
    elif isinstance(source, (mod.UntypedStorage, mod.TypedStorage)):
        if isinstance(source, mod.TypedStorage):
            if source.dtype != self.dtype:
                from ember._composite_pointwise import _pretty

                raise RuntimeError(f"Expected a Storage of type {_pretty(self.dtype).lower()} or an UntypedStorage, "
                                   f"but got type {_pretty(source.dtype)} for argument 1 'storage'")
            source = source._untyped_storage
        if storage_offset is not None and size is None:
            raise _set_error(args)
        base = _C._storage_as(source._t, self.dtype)
    else:
        raise _set_error(args)
    if self.dtype != base.dtype:
        raise TypeError(f"set_(): expected source of dtype {self.dtype}, got {base.dtype}")
    offset = 0 if storage_offset is None else int(storage_offset)
    shape = [base.numel()] if size is None else list(size)
    strides = _C.empty(shape).stride() if stride is None else list(stride)
    # PyTorch grows the storage to fit the requested view (resize_ semantics)
    need = offset + 1 + sum((s - 1) * st for s, st in zip(shape, strides)) if all(shape) else 0
    nbytes = need * self.dtype.itemsize
    if nbytes > _C._storage_info(base)[2]:
        _C._storage_resize_(base, nbytes)
    return _C._set_(self, _C._as_strided_storage(base, shape, strides, offset))


def slice_inverse(self: Tensor, src: Tensor, dim: int = 0, start: Any = None, end: Any = None,
                  step: int = 1) -> Tensor:
    """The inverse of ``src = base.slice(dim, start, end, step)``: a view of self's storage with
    src's sizes, strides and storage offset (aten::slice_inverse)."""
    return self.as_strided(src.size(), src.stride(), src.storage_offset())


def to_padded_tensor(self: Any, padding: float, output_size: Any = None) -> Any:
    """Nested tensors only (``torch.nested``): a strided tensor raises, as in PyTorch."""
    raise NotImplementedError(
        "Could not run 'aten::to_padded_tensor' with arguments from the 'CPU' backend. This could be because the "
        "operator doesn't exist for this backend, or was omitted during the selective/custom build process (if "
        "using custom build). 'aten::to_padded_tensor' is only available for nested tensors, which ember does "
        "not have.")


def _no_name_setter(self: Any, value: Any) -> None:
    raise AttributeError("attribute 'name' of 'torch._C.TensorBase' objects is not writable")


# Named tensors' per-tensor name: PyTorch's getter gives None for every tensor it makes.
name = property(lambda self: None, _no_name_setter, doc="None for every tensor, since ember has no named tensors.")


def install(tensor_cls: type) -> None:
    for fn in (untyped_storage, _typed_storage, storage, storage_type, set_, slice_inverse, to_padded_tensor):
        setattr(tensor_cls, fn.__name__, fn)
    tensor_cls.name = name
