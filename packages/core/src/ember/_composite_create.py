"""Tensor creation PyTorch offers beyond ``tensor``/``empty``: asarray (aliasing what it can),
frombuffer and from_file (memory of a Python buffer or a mapped file), empty_permuted (a dense
tensor whose memory runs in a given dim order). Memory is shared through ``_C._from_buffer``, the
hook ``from_numpy`` uses, with the buffer's owner kept alive by the tensor."""

from __future__ import annotations

import os
import warnings
from typing import Any

import ember
from ember._argcheck import check_names
from ember._composite_pointwise import _pretty
from ember._lib import _C
from ember._tensor import Tensor

__all__ = ["asarray", "empty_permuted", "from_file", "frombuffer"]

_warned_readonly = False


def _buffer_address(buffer: Any) -> tuple[int, int, Any]:
    """(address, byte length, owner) of a C-contiguous Python buffer; the owner keeps it alive."""
    import ctypes  # (imported on use: `import ember` stays fast)

    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if not view.c_contiguous:
        raise RuntimeError("could not retrieve buffer from object")
    view = view.cast("B") if view.ndim != 1 or view.format != "B" else view
    if view.nbytes == 0:
        return 0, 0, view
    if view.readonly:
        global _warned_readonly
        if not _warned_readonly:
            _warned_readonly = True
            warnings.warn("The given buffer is not writable, and PyTorch does not support non-writable tensors. This "
                          "means you can write to the underlying (supposedly non-writable) buffer using the tensor. "
                          "You may want to copy the buffer to protect its data or make it writable before "
                          "converting it to a tensor. This type of warning will be suppressed for the rest of this "
                          "program.", UserWarning, stacklevel=3)
        # ctypes refuses read-only buffers; CPython's own buffer API hands out the address
        pybuf = (ctypes.c_char * ctypes.sizeof(ctypes.c_void_p * 11))()
        get = ctypes.pythonapi.PyObject_GetBuffer
        get.argtypes = [ctypes.py_object, ctypes.c_void_p, ctypes.c_int]
        if get(view, pybuf, 0) != 0:
            raise RuntimeError("could not retrieve buffer from object")
        address = ctypes.c_void_p.from_buffer(pybuf).value or 0
        release = ctypes.pythonapi.PyBuffer_Release
        release.argtypes = [ctypes.c_void_p]
        release(pybuf)  # the memoryview (owner) holds its own export
        return address, view.nbytes, view
    return ctypes.addressof(ctypes.c_char.from_buffer(view)), view.nbytes, view


def _requires_grad(t: Tensor, requires_grad: Any) -> Tensor:
    if requires_grad:
        if not (t.is_floating_point() or t.is_complex()):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad_(True)
    return t


def frombuffer(buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False) -> Tensor

    A 1-d tensor over the memory of an object with the buffer protocol (``bytearray``,
    ``array.array``, ``memoryview``, ``mmap``, ...): skips ``offset`` bytes, then reads ``count``
    elements of ``dtype`` (all the rest when ``count`` is -1). No copy: writes show on both sides.
    A read-only buffer warns once, as in PyTorch.

    Args:
        buffer (object): a C-contiguous Python buffer.
        dtype (ember.dtype): the element type of the tensor.
        count (int): how many elements to read; -1 for the rest of the buffer.
        offset (int): how many bytes to skip at the start.
        requires_grad (bool): whether the tensor records gradients (floating dtypes only).

    Returns:
        Tensor: a 1-d tensor sharing the buffer's memory.

    Example::

        >>> b = bytearray([1, 0, 2, 0])
        >>> ember.frombuffer(b, dtype=ember.int16)
        tensor([1, 2], dtype=torch.int16)
    """
    address, nbytes, owner = _buffer_address(buffer)
    item = _C.empty([0], dtype=dtype).element_size()
    if nbytes == 0 or count == 0:
        raise ValueError(f"both buffer length ({nbytes}) and count ({count}) must not be 0")
    if offset < 0 or offset >= nbytes:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length ({nbytes} "
                         "bytes) minus 1")
    if count < 0:
        if (nbytes - offset) % item:
            raise ValueError(f"buffer length ({nbytes - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({item})")
        count = (nbytes - offset) // item
    elif offset + count * item > nbytes:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset ({offset} bytes) must not "
                         f"be greater than actual buffer length ({nbytes} bytes)")
    t = _C._from_buffer(address + offset, count * item, [count], [1], dtype, owner)
    return _requires_grad(t, requires_grad)


def from_file(filename: str, shared: bool | None = None, size: int = 0, *, dtype: Any = None, layout: Any = None,
              device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False) -> Tensor

    A 1-d CPU tensor of ``size`` elements backed by a memory-mapped file. With ``shared=True``
    the mapping is shared (writes reach the file, which is created or grown as needed); otherwise
    it is private (copy-on-write: the file is never changed and must hold ``size`` elements).

    Args:
        filename (str): the file to map.
        shared (bool, optional): whether writes go to the file.
        size (int): the number of elements.
        dtype (ember.dtype, optional): the element type (the default dtype when None).
        layout (ember.layout, optional): only ``ember.strided``.
        device (ember.device, optional): the CPU, or a CUDA device (a copy) in a CUDA build.
        pin_memory (bool): accepted as False only (mapped memory is not pinned).
        requires_grad (bool): whether the tensor records gradients.

    Returns:
        Tensor: the mapped tensor.

    Example::

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "t.bin")
        >>> ember.arange(4.).numpy().tofile(path)
        >>> ember.from_file(path, shared=False, size=4)
        tensor([0., 1., 2., 3.])
    """
    dtype = dtype if dtype is not None else ember.get_default_dtype()
    if device is not None and _C.device(device).type != "cpu":
        raise RuntimeError("from_file: only CPU tensors can be mapped to files")
    if pin_memory:
        raise RuntimeError("from_file: tensors backed by a memory-mapped file cannot be created in pinned memory")
    item = _C.empty([0], dtype=dtype).element_size()
    nbytes = size * item
    path = os.fsdecode(filename)
    if shared:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    else:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as e:
            raise RuntimeError(f"unable to open file <{path}> in read-only mode: {e.strerror} ({e.errno})") from None
    try:
        if size < 0:
            raise RuntimeError(f"unable to mmap {nbytes} bytes from file <{path}>: Cannot allocate memory (12)")
        have = os.fstat(fd).st_size
        if have < nbytes:
            if not shared:
                raise RuntimeError(f"file <{path}> size <{have}> is smaller than the required mapping size <{nbytes}>")
            os.ftruncate(fd, nbytes)
        if nbytes == 0:
            return _requires_grad(ember.empty(0, dtype=dtype), requires_grad)
        import mmap

        mapping = mmap.mmap(fd, nbytes, access=mmap.ACCESS_WRITE if shared else mmap.ACCESS_COPY)
    finally:
        os.close(fd)
    import ctypes

    address = ctypes.addressof(ctypes.c_char.from_buffer(mapping))
    t = _C._from_buffer(address, nbytes, [size], [1], dtype, mapping)
    return _requires_grad(t, requires_grad)


def empty_permuted(size: Any, physical_layout: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                   requires_grad: bool | None = False, pin_memory: bool | None = False) -> Tensor:
    """empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False) -> Tensor

    An uninitialized dense tensor of shape ``size`` whose memory is laid out in the dim order
    ``physical_layout``, outermost first: ``(0, 2, 3, 1)`` on a 4-d size is channels-last.
    ``physical_layout`` must be a permutation of ``range(len(size))``.

    Args:
        size (tuple of ints): the logical shape.
        physical_layout (tuple of ints): the dims from the slowest to the fastest varying in memory.
        dtype (ember.dtype, optional): the element type (the default dtype when None).
        layout (ember.layout, optional): only ``ember.strided``.
        device (ember.device, optional): the CPU, or a CUDA device (a copy) in a CUDA build.
        requires_grad (bool): whether the tensor records gradients.
        pin_memory (bool): accepted for PyTorch's signature.

    Returns:
        Tensor: the tensor, with strides following ``physical_layout``.

    Example::

        >>> ember.empty_permuted((2, 3, 4), (2, 0, 1)).stride()
        (3, 1, 6)
    """  # noqa: E501  (the signature line autodoc reads must be one line)
    for name, v in (("size", size), ("physical_layout", physical_layout)):
        if not isinstance(v, (tuple, list, ember.Size)) or not all(isinstance(n, int) for n in v):
            raise TypeError(f"empty_permuted(): argument '{name}' (position {1 if name == 'size' else 2}) must be "
                            f"tuple of ints, not {type(v).__name__}")
    dim = len(size)
    if dim != len(physical_layout):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {dim} is not equal to len(physical_layout) = {len(physical_layout)}")
    seen = [False] * dim
    for i, p in enumerate(physical_layout):
        if not 0 <= p < dim:
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {dim - 1}, but got {p} at index "
                               f"{i}).  NB: negative dims not currently supported; file an issue if you want it.")
        if seen[p]:
            raise RuntimeError("Duplicate dim not allowed")
        seen[p] = True
    phys = ember.empty([size[p] for p in physical_layout], dtype=dtype, layout=layout, device=device,
                       pin_memory=bool(pin_memory))
    inverse = [0] * dim
    for i, p in enumerate(physical_layout):
        inverse[p] = i
    return _requires_grad(phys.permute(inverse), requires_grad)


def _alias_error(t: Tensor, dtype: Any) -> ValueError:
    return ValueError(f"can't alias tensor with dtype '{_pretty(t.dtype)}' into dtype '{_pretty(dtype)}'.")


def _from_tensor(obj: Tensor, dtype: Any, copy: bool | None, requires_grad: bool | None) -> Tensor:
    wrong_dtype = dtype is not None and dtype != obj.dtype
    if copy is False and wrong_dtype:
        raise _alias_error(obj, dtype)
    t = (obj.to(dtype) if wrong_dtype else obj.clone()) if copy or wrong_dtype else obj
    if requires_grad is None:
        if obj.requires_grad:
            warnings.warn("torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
                          "False. Pass requires_grad=False explicitly to get the old behavior and silence this "
                          "warning.", UserWarning, stacklevel=3)
        return t
    if t.is_leaf:  # the flag is set on the result itself, which may be obj (as PyTorch does)
        return _requires_grad(t, True) if requires_grad else t.requires_grad_(False)
    return t if requires_grad else t.detach()


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None,
            requires_grad: bool | None = None) -> Tensor:
    """asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None) -> Tensor

    Converts ``obj`` to a tensor, sharing its memory when it can: a tensor, a NumPy array or a
    DLPack capsule is aliased unless ``copy=True`` or another ``dtype`` is asked for; an object
    with the buffer protocol is read as raw bytes of ``dtype`` (the default dtype when None);
    numbers and sequences are copied. ``copy=False`` raises ValueError where aliasing is not
    possible. ``requires_grad`` None keeps a tensor's own flag and history.

    Args:
        obj (object): a tensor, NumPy array or scalar, DLPack capsule, buffer, number or sequence.
        dtype (ember.dtype, optional): the element type of the result.
        device (ember.device, optional): the CPU, or a CUDA device (a copy) in a CUDA build.
        copy (bool, optional): True always copies, False never does, None copies only if needed.
        requires_grad (bool, optional): whether the result records gradients.

    Returns:
        Tensor: the converted tensor.

    Example::

        >>> a = ember.tensor([1, 2, 3])
        >>> ember.asarray(a) is a
        True
        >>> ember.asarray([1.5, 2.5], dtype=ember.float64)
        tensor([1.5000, 2.5000], dtype=torch.float64)
    """
    from ember._runtime import factory_device

    device = factory_device(device)
    dev_type = None if device is None else (device if isinstance(device, _C.device) else _C.device(device)).type
    if dev_type not in (None, "cpu"):
        if dev_type != "cuda" or not _C._cuda_is_compiled():
            raise RuntimeError(f"PyTorch is not linked with support for {dev_type} devices")
        # built as on the CPU, then moved (a copy, as PyTorch's asarray onto another device)
        t = asarray(obj, dtype=dtype, device="cpu", copy=copy).to(device)
        return t if requires_grad is None else _requires_grad(t.detach(), requires_grad)
    if isinstance(obj, Tensor):
        return _from_tensor(obj, dtype, copy, requires_grad)
    module = type(obj).__module__
    if module == "numpy" and hasattr(obj, "dtype"):  # an ndarray or a NumPy scalar
        import numpy as np

        arr = np.asarray(obj)
        t = ember.from_numpy(arr) if arr.ndim else ember.from_numpy(arr.reshape(1)).reshape(())
        return _from_tensor(t, dtype, copy, False if requires_grad is None else requires_grad)
    if type(obj).__name__ == "PyCapsule" or (hasattr(obj, "__dlpack__") and not isinstance(obj, (bytes, bytearray))):
        t = ember.from_dlpack(obj)
        return _from_tensor(t, dtype, copy, False if requires_grad is None else requires_grad)
    if isinstance(obj, (bytes, bytearray, memoryview)) or (
            not isinstance(obj, (list, tuple, str, int, float, bool)) and _has_buffer(obj)):
        t = frombuffer(obj, dtype=dtype if dtype is not None else ember.get_default_dtype())
        return _from_tensor(t, None, copy, False if requires_grad is None else requires_grad)
    if copy is False:
        raise ValueError("can't alias arbitrary sequence into a tensor.")
    if isinstance(obj, str):
        raise TypeError("new(): invalid data type 'str'")
    return _requires_grad(ember.tensor(obj, dtype=dtype, device="cpu"), requires_grad)


def _has_buffer(obj: Any) -> bool:
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


# PyTorch's parser TypeErrors for Tensor / bool arguments (this module loads lazily, after
# ember/__init__.py wrapped its own names).
check_names(globals(), ["asarray", "empty_permuted", "frombuffer"])
